"""Every page of the memory inspector (`graphmem ui`) timed on large stores of one user.

The browser tests time each page once on a store whose big user was filled by the bulk path
(record rows and vectors only: no relations, no entities). This benchmark times every page many
times on stores that carry the graph real writes make, at each size asked for (default 10,000
and 100,000 memories of one user), against the inspector started as its users start it:

1. the stores: with `--store DIR` (repeatable), those stores as they are; otherwise a source
   store of `--source-size` memories written through `write_many` (`bench/scale.py --bulk-path
   service`: screening, extraction, linking and the graph projection run for real, only the
   embedding model is skipped past its first `--real-max` memories), multiplied to each
   larger size by `bench/build_store.py --shape one-user`. Built stores are kept under
   `--work` and reused by the next run.
2. the server: `graphmem ui --data-dir STORE` in its own process on 127.0.0.1, with an
   operator and an agent token of the store's biggest user (GRAPHMEM_TOKENS).
3. server-side: each page fetched `--repeat` times over one keep-alive HTTP connection with the
   session cookie, after one unrecorded warm-up: the client's wall time to the last byte, and
   the server's own time (its Server-Timing header). Searches use a fresh query each time, so
   the service's result cache never answers.
4. in Chromium (unless `--no-browser`): the same pages loaded `--browser-repeat` times by the
   headless Chromium the browser tests drive (tests.helpers.ui.chromium), timed by the
   browser's Navigation Timing.

Usage:
  python bench/ui_pages.py                                  # build (or reuse) 10k and 100k
  python bench/ui_pages.py --store S10K --store S100K       # stores built earlier
  python bench/ui_pages.py --sizes 2000 --source-size 2000 --repeat 5 --no-browser   # quick
  python bench/ui_pages.py --store S100K --pages metadata --pages "type filter"   # some pages
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))
from _common import RESULTS_DIR, command_line, machine_info, median, percentile  # noqa: E402

OPERATOR = "gm_bench_ui_operator_token_0123456789ab"
AGENT = "gm_bench_ui_agent_token_0123456789abcdef"
TARGET_MS = 200.0
DB = "graphmem.sqlite3"

Page = tuple[str, str, str, Callable[[int], dict[str, str]] | None]
"""(name, token role, path, the POST form of repetition i or None for a GET)."""


# ------------------------------------------------------------------------------ stores
def run(cmd: list[str]) -> None:
    """A step of the build in its own process, its progress bar on this terminal."""
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    env = {**os.environ, "PYTHONPATH": str(BENCH.parent)}
    subprocess.run(cmd, check=True, env=env)


def build_stores(work: Path, sizes: list[int], source_size: int, real_max: int) -> list[Path]:
    """The stores to measure, built once under `work` (a size equal to the source is the
    source itself; a larger one is that many copies of it, one user)."""
    work.mkdir(parents=True, exist_ok=True)
    source = work / f"s{source_size}"
    if not (source / DB).exists():
        run(
            [
                sys.executable,
                str(BENCH / "scale.py"),
                f"--sizes={source_size}",
                f"--real-max={min(real_max, source_size)}",
                "--bulk-path=service",
                "--users=1",
                "--no-compare",
                "--no-start",
                "--queries=20",
                f"--data-dir={source}",
                f"--out={work / f's{source_size}.json'}",
            ]
        )
    stores = []
    for size in sizes:
        if size == source_size:
            stores.append(source)
            continue
        if size % source_size:
            raise SystemExit(f"--sizes: {size} is not a multiple of --source-size {source_size}")
        out = work / f"s{size}"
        if not (out / DB).exists():
            run(
                [
                    sys.executable,
                    str(BENCH / "build_store.py"),
                    f"--source={source}",
                    f"--out={out}",
                    f"--copies={size // source_size}",
                    "--shape=one-user",
                ]
            )
        stores.append(out)
    return stores


def store_facts(store: Path) -> dict[str, Any]:
    """The biggest user, their memory count, relations, and the memories whose pages are timed:
    the most connected one (the worst graph page) and an ordinary one (the median id), read
    from the SQLite file without opening the service."""
    con = sqlite3.connect(f"file:{store / DB}?mode=ro", uri=True)
    try:
        user, count = con.execute(
            "SELECT user_id, COUNT(*) c FROM memories GROUP BY user_id ORDER BY c DESC LIMIT 1"
        ).fetchone()
        relations = con.execute(
            "SELECT COUNT(*) FROM memory_relations WHERE user_id = ?", (user,)
        ).fetchone()[0]
        hub, degree = con.execute(
            "SELECT source_memory_id, COUNT(*) c FROM memory_relations WHERE user_id = ?"
            " GROUP BY source_memory_id ORDER BY c DESC LIMIT 1",
            (user,),
        ).fetchone() or (None, 0)
        active = con.execute(
            "SELECT COUNT(*) FROM memories WHERE user_id = ? AND status = 'active'", (user,)
        ).fetchone()[0]
        (typical,) = con.execute(
            "SELECT id FROM memories WHERE user_id = ? AND status = 'active' ORDER BY id"
            " LIMIT 1 OFFSET ?",
            (user, active // 2),
        ).fetchone()
    finally:
        con.close()
    return {
        "user": user,
        "memories": int(count),
        "relations": int(relations),
        "hub": hub or typical,
        "hub_out_degree": int(degree),
        "typical": typical,
    }


# ------------------------------------------------------------------------------ server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_inspector(store: Path, user: str, port: int) -> tuple[subprocess.Popen[bytes], float]:
    """`graphmem ui` on the store, as a person starts it; returns the process and how long it
    took until it answered."""
    import httpx

    env = {
        **os.environ,
        "GRAPHMEM_TOKENS": f"{OPERATOR}={user}:operator,{AGENT}={user}:agent",
        "PYTHONPATH": str(BENCH.parent),
    }
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "ui", "--data-dir", str(store), "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"graphmem ui exited with {proc.returncode} on {store}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/login", timeout=2)
            return proc, time.perf_counter() - t0
        except httpx.TransportError:
            if time.monotonic() > deadline:
                proc.terminate()
                raise SystemExit("graphmem ui did not answer within 5 minutes") from None
            time.sleep(0.2)


def log_in(base: str, token: str) -> Any:
    """An HTTP client holding a session of `token`, logged in through the login form."""
    import httpx

    client = httpx.Client(base_url=base, timeout=120)
    form = client.get("/login").text
    nonce = re.search(r'name="csrf" value="([^"]+)"', form)
    assert nonce, "the login page has no CSRF field"
    got = client.post("/login", data={"csrf": html.unescape(nonce[1]), "token": token})
    assert got.status_code == 303, f"login refused: {got.status_code}"
    return client


def csrf_of(client: Any, path: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found, f"{path} has no CSRF field"
    return html.unescape(found[1])


def later_page(client: Any, path: str, pages: int) -> str:
    """The address of page `pages` of a keyset-paged list, reached by its Next links."""
    url = path
    for _ in range(pages - 1):
        found = re.search(r'<a href="([^"]+)" id="next-page"', client.get(url).text)
        if not found:
            break
        url = html.unescape(found[1])
    return url


def pages_of(facts: dict[str, Any], queries: list[str], client: Any) -> list[Page]:
    """Every page of the inspector, on the store's biggest user."""
    u, hub, typical = facts["user"], facts["hub"], facts["typical"]
    csrf = csrf_of(client, f"/u/{u}/search")

    def search(extra: dict[str, str]) -> Callable[[int], dict[str, str]]:
        return lambda i: {"csrf": csrf, "query": queries[i % len(queries)], **extra}

    return [
        ("login", "", "/login", None),
        ("memories (first page)", "operator", f"/u/{u}/memories", None),
        ("memories (page 10)", "operator", later_page(client, f"/u/{u}/memories", 10), None),
        (
            "memories (type=fact, oldest first)",
            "operator",
            f"/u/{u}/memories?type=fact&sort=oldest",
            None,
        ),
        ("memories (most accessed)", "operator", f"/u/{u}/memories?sort=most_accessed", None),
        ("memories (decay)", "operator", f"/u/{u}/memories?sort=decay", None),
        ("memories (metadata i=7)", "operator", f"/u/{u}/memories?metadata=i%3D7", None),
        ("memory (typical)", "operator", f"/u/{u}/m/{typical}", None),
        ("memory (most connected)", "operator", f"/u/{u}/m/{hub}", None),
        ("graph (typical, 2 hops)", "operator", f"/u/{u}/graph/{typical}?hops=2", None),
        ("graph (most connected, 1 hop)", "operator", f"/u/{u}/graph/{hub}?hops=1", None),
        ("graph (most connected, 3 hops)", "operator", f"/u/{u}/graph/{hub}?hops=3", None),
        ("timeline (first page)", "operator", f"/u/{u}/timeline", None),
        ("timeline (page 10)", "operator", later_page(client, f"/u/{u}/timeline", 10), None),
        ("search (form)", "operator", f"/u/{u}/search", None),
        ("search (query, explain, paths)", "operator", f"/u/{u}/search", search({})),
        (
            "search (query with a type filter: two searches)",
            "operator",
            f"/u/{u}/search",
            search({"memory_type": "fact"}),
        ),
        ("quarantine", "operator", f"/u/{u}/quarantine", None),
        ("health (operator: all users, outbox, drift)", "operator", f"/u/{u}/health", None),
        ("health (agent)", "agent", f"/u/{u}/health", None),
    ]


def time_http(clients: dict[str, Any], page: Page, repeat: int, base: str) -> dict[str, Any]:
    """`repeat` fetches of one page after a warm-up: client wall time and Server-Timing."""
    import httpx

    name, role, path, form = page
    client = clients[role] if role else httpx.Client(base_url=base, timeout=120)
    wall, server = [], []
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        got = client.post(path, data=form(i)) if form else client.get(path)
        took = (time.perf_counter() - t0) * 1000
        assert got.status_code == 200, f"{name}: HTTP {got.status_code}"
        dur = re.search(r"dur=([0-9.]+)", got.headers.get("server-timing", ""))
        if i:  # the first fetch warms caches (and a search's model); it is not recorded
            wall.append(took)
            server.append(float(dur[1]) if dur else took)
    return {"n": repeat, **p50_p95(wall=wall, server=server), "bytes": len(got.content)}


def p50_p95(**series: list[float]) -> dict[str, float]:
    """`<name>_p50_ms` and `<name>_p95_ms` of each series, to 0.1 ms."""
    out: dict[str, float] = {}
    for name, values in series.items():
        out[f"{name}_p50_ms"] = round(median(values) or 0, 1)
        out[f"{name}_p95_ms"] = round(percentile(values, 95) or 0, 1)
    return out


def time_browser(
    base: str, pages: list[Page], repeat: int, first_query: int
) -> dict[str, dict[str, Any]]:
    """Every page loaded in headless Chromium, logged in with the page's token (operator or
    agent, one browser profile each; the login page as the operator): each page's Navigation
    Timing, `repeat` times after a warm-up. A search is typed into the form, its other fields
    (the type filter) chosen in it, and submitted, as a user does; its queries start at
    `first_query`, past those the HTTP timings sent, so no answer comes from the result cache."""
    from tests.helpers.ui import chromium

    out: dict[str, dict[str, Any]] = {}
    for role, token in (("operator", OPERATOR), ("agent", AGENT)):
        mine = [pg for pg in pages if (pg[1] or "operator") == role]
        if not mine:
            continue
        with tempfile.TemporaryDirectory(prefix="gm-ui-chromium-") as profile:
            driver = chromium(Path(profile))
            try:
                driver.get(base + "/login")
                driver.find_element("id", "f-token").send_keys(token)
                driver.find_element("id", "login-button").click()
                wait_for(driver, lambda d=driver: "/login" not in d.current_url)
                for name, _role, path, form in mine:
                    runs = _browser_runs(driver, base, path, form, repeat, first_query)
                    out[name] = runs
            finally:
                driver.quit()
    return out


def _browser_runs(
    driver: Any,
    base: str,
    path: str,
    form: Callable[[int], dict[str, str]] | None,
    repeat: int,
    first_query: int,
) -> dict[str, Any]:
    from tests.helpers.ui import navigation_ms

    runs = []
    for i in range(repeat + 1):
        driver.get(base + path)
        if form:
            fields = form(first_query + i)
            driver.find_element("id", "f-query").send_keys(fields["query"])
            for field, value in fields.items():
                if field not in ("csrf", "query"):
                    option = f"#f-{field} option[value='{value}']"
                    driver.find_element("css selector", option).click()
            old = driver.find_element("tag name", "html")
            driver.find_element("id", "search-button").click()
            wait_for(driver, lambda o=old: _gone(driver, o))
        wait_for(driver, lambda: _complete(driver))
        if i:
            runs.append(navigation_ms(driver))
    response = [r["response_ms"] for r in runs]
    loaded = [r["loaded_ms"] for r in runs]
    return {"n": repeat, **p50_p95(response=response, loaded=loaded)}


def wait_for(driver: Any, ready: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise SystemExit(f"the browser did not get there: {driver.current_url}")
        time.sleep(0.01)


def _complete(driver: Any) -> bool:
    return bool(driver.execute_script("return document.readyState") == "complete")


def _gone(driver: Any, old: Any) -> bool:
    """Whether the page `old` belongs to has been replaced (see the browser tests' _replaced:
    an element of a page being torn down may also answer with an unknown error)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support import expected_conditions

    try:
        return bool(expected_conditions.staleness_of(old)(driver))
    except WebDriverException:
        return True


# ------------------------------------------------------------------------------ run
def measure(store: Path, args: argparse.Namespace) -> dict[str, Any]:
    from synth import Generator

    facts = store_facts(store)
    print(
        f"{store}: {facts['memories']:,} memories of {facts['user']},"
        f" {facts['relations']:,} relations",
        file=sys.stderr,
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc, started = start_inspector(store, facts["user"], port)
    entry: dict[str, Any] = {
        "store": str(store),
        **facts,
        "inspector_start_s": round(started, 2),
        "loadavg_before": [round(x, 2) for x in os.getloadavg()],
    }
    try:
        clients = {"operator": log_in(base, OPERATOR), "agent": log_in(base, AGENT)}
        # the HTTP timings send the first queries, the browser the next browser_repeat + 1: a
        # query sent twice would be answered from the service's result cache
        http_queries = args.repeat * 3 + 2
        queries = Generator(seed=11).queries(http_queries + args.browser_repeat + 1)
        pages = [
            p
            for p in pages_of(facts, queries, clients["operator"])
            if not args.pages or any(want in p[0] for want in args.pages)
        ]
        entry["http"] = {}
        for page in pages:
            entry["http"][page[0]] = got = time_http(clients, page, args.repeat, base)
            print(
                f"  {page[0]}: server p50 {got['server_p50_ms']} / p95 {got['server_p95_ms']} ms",
                file=sys.stderr,
            )
        entry["loadavg_after_http"] = [round(x, 2) for x in os.getloadavg()]
        if not args.no_browser:
            entry["browser"] = time_browser(base, pages, args.browser_repeat, http_queries)
            entry["loadavg_after_browser"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return entry


def markdown(result: dict[str, Any]) -> str:
    """One row per page: server p50 / p95 at each size, and the browser's where measured."""
    stores = result["stores"]
    head = "| page |" + "".join(
        f" {s['memories']:,}: server p50 / p95 ms | {s['memories']:,}: Chromium response /"
        " loaded p50 ms |"
        for s in stores
    )
    lines = [head, "|---|" + "---|---|" * len(stores)]
    for name in stores[0]["http"]:
        row = f"| {name} |"
        for s in stores:
            h = s["http"].get(name, {})
            b = (s.get("browser") or {}).get(name)
            slow = " **over**" if h.get("server_p95_ms", 0) > TARGET_MS else ""
            row += f" {h.get('server_p50_ms')} / {h.get('server_p95_ms')}{slow} |"
            row += f" {b['response_p50_ms']} / {b['loaded_p50_ms']} |" if b else " - |"
        lines.append(row)
    for s in stores:
        lines.append(
            f"\n{s['memories']:,} memories ({s['relations']:,} relations): load average"
            f" {s['loadavg_before']} before, {s.get('loadavg_after_http')} after the HTTP"
            f" timings, {s.get('loadavg_after_browser', '-')} after the browser's"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--store", action="append", type=Path, help="an embedded store (repeatable)")
    p.add_argument("--sizes", default="10000,100000", help="stores to build, comma-separated")
    p.add_argument("--source-size", type=int, default=10_000, help="memories written for real")
    p.add_argument("--real-max", type=int, default=2_000, help="of those, embedded by the model")
    p.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "graphmem-ui-bench")
    p.add_argument("--repeat", type=int, default=30, help="HTTP fetches per page")
    p.add_argument("--browser-repeat", type=int, default=5, help="Chromium loads per page")
    p.add_argument("--no-browser", action="store_true")
    p.add_argument(
        "--pages",
        action="append",
        help="time only the pages whose name holds this text (repeatable), e.g. 'metadata'",
    )
    p.add_argument("--out", type=Path, default=RESULTS_DIR / "ui_pages.json")
    args = p.parse_args(argv)
    stores = args.store or build_stores(
        args.work, [int(x) for x in args.sizes.split(",")], args.source_size, args.real_max
    )
    result: dict[str, Any] = {
        "benchmark": "ui_pages",
        "command": command_line(),
        "machine": machine_info(),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "target_ms": TARGET_MS,
        "stores": [measure(s, args) for s in stores],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(markdown(result))
    print(f"\nwritten: {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
