#!/usr/bin/env bash
# Regenerate the lock files in requirements/ from pyproject.toml: every package pinned to one
# version with the sha256 of every file the index offers for it, for Linux x86-64 and Python
# 3.11 (what scripts/setup.sh, the Dockerfile and CI install). Run it after changing a
# dependency or an extra in pyproject.toml, and commit the result.
#
#   default.txt     pip install graphmem            the embedded default (scripts/run.sh)
#   production.txt  pip install 'graphmem[production]'   + MySQL, Qdrant, Neo4j, Redis drivers
#   dev.txt         pip install 'graphmem[dev]'     every extra and the test tools (test.sh)
#
# uv does the resolving; it is installed into a throwaway virtualenv, never into the project's.
# A package listed in scripts/pins.txt (a re-uploaded model: the exact file that was reviewed)
# keeps only the hash pinned there; the lock fails if the index no longer offers that file.
# Extra arguments go to `uv pip compile`, e.g. --upgrade-package fastmcp.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-python3}
UV_VERSION=${UV_VERSION:-0.13.9}

TOOLS=$(mktemp -d)
trap 'rm -rf "$TOOLS"' EXIT
"$PY" -m venv "$TOOLS/venv"
"$TOOLS/venv/bin/python" -m pip install -q "uv==$UV_VERSION"
UV=$TOOLS/venv/bin/uv
# uv verifies TLS with its own roots unless told to use the system's (as pip does)
export UV_SYSTEM_CERTS=${UV_SYSTEM_CERTS:-1}

mkdir -p "$REPO/requirements"
cd "$REPO"
lock() { # OUTPUT [--extra NAME]...
    local out=$1
    shift
    echo "lock: requirements/$out" >&2
    "$UV" pip compile pyproject.toml "$@" \
        --generate-hashes \
        --python-version 3.11 \
        --python-platform x86_64-manylinux_2_28 \
        --no-header --annotation-style line \
        --custom-compile-command scripts/lock.sh \
        --quiet \
        --output-file "requirements/$out" \
        "${EXTRA_ARGS[@]}"
}
# reviewed LOCKFILE: narrow each package of scripts/pins.txt to its reviewed hash.
reviewed() {
    "$PY" - "requirements/$1" scripts/pins.txt <<'PYEOF'
import re, sys
from pathlib import Path

lock, pins = Path(sys.argv[1]), Path(sys.argv[2])
text = lock.read_text()
for line in pins.read_text().splitlines():
    m = re.match(r"^([A-Za-z0-9_.-]+==\S+)\s+--hash=(sha256:[0-9a-f]{64})", line)
    if not m:
        continue
    pin, digest = m.groups()
    block = re.search(rf"^{re.escape(pin)} \\\n((?:    --hash=sha256:[0-9a-f]{{64}}(?: \\)?\n)+)", text, re.M)
    if block is None:
        continue  # not in this lock (not a dependency of these extras)
    if f"--hash={digest}" not in block.group(1):
        sys.exit(f"lock: {pin}: the index no longer offers the reviewed file {digest}")
    text = text.replace(block.group(0), f"{pin} \\\n    --hash={digest}\n")
lock.write_text(text)
PYEOF
}
EXTRA_ARGS=("$@")
for spec in default.txt: production.txt:production dev.txt:dev; do
    out=${spec%%:*} extra=${spec#*:}
    lock "$out" ${extra:+--extra "$extra"}
    reviewed "$out"
done
