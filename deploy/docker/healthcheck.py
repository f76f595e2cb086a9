"""The graphmem image's healthcheck: exit 0 when the server's GET /healthz answers 200.

The slim base image has no curl or wget, and Python is there anyway; standard library only,
so a broken install still gets a clear "unhealthy" rather than an import error. The port is the
server's own setting (GRAPHMEM_PORT), so a changed port needs no second change here.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def check(port: str, timeout: float) -> tuple[bool, str]:
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status == 200, f"{resp.status} {resp.read(512).decode(errors='replace')}"
    except urllib.error.HTTPError as e:  # 503: the body names the stores that did not answer
        return False, f"{e.code} {e.read(512).decode(errors='replace')}"
    except OSError as e:
        return False, f"{url}: {e}"


def main() -> int:
    port = os.environ.get("GRAPHMEM_PORT", "8765")
    timeout = float(os.environ.get("GRAPHMEM_HEALTHCHECK_TIMEOUT", "4"))
    ok, detail = check(port, timeout)
    print(detail)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
