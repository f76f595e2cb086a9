#!/usr/bin/env bash
# Create the virtualenv (default .venv, or $GRAPHMEM_VENV) and install graphmem into it from a
# lock file: every dependency at the exact version and file hash in requirements/<set>.txt
# (--require-hashes), then graphmem itself, editable, without resolving anything again.
#
#   scripts/setup.sh default   the embedded default (what scripts/run.sh needs)
#   scripts/setup.sh dev       every extra and the test tools (scripts/test.sh; the default)
#
# Re-running is cheap: it reinstalls only when pyproject.toml or the lock file changed. A venv
# set up for dev also satisfies default (dev is a superset), so run.sh after test.sh installs
# nothing. Regenerate the lock files with scripts/lock.sh.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${GRAPHMEM_VENV:-$REPO/.venv}
PY=${PYTHON:-python3}
SET=${1:-dev}
LOCK=$REPO/requirements/$SET.txt
if [ ! -f "$LOCK" ]; then
  echo "setup: no lock file requirements/$SET.txt (use default, production or dev)" >&2
  exit 2
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating virtualenv $VENV" >&2
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
fi

stamp="$VENV/.graphmem-installed"
digest() { cat "$REPO/pyproject.toml" "$REPO/requirements/$1.txt" | sha256sum | cut -d' ' -f1; }
installed=$(cat "$stamp" 2>/dev/null || true)
# the stamp is "<set> <digest>"; dev covers default
up_to_date() {
  [ "$installed" = "$SET $(digest "$SET")" ] ||
    { [ "$SET" = default ] && [ "$installed" = "dev $(digest dev)" ]; }
}
if ! up_to_date || ! "$VENV/bin/python" -c "import graphmem" 2>/dev/null; then
  echo "setup: installing graphmem's $SET dependencies from requirements/$SET.txt" >&2
  "$VENV/bin/python" -m pip install -q --require-hashes -r "$LOCK"
  # the project alone: its dependencies are all in place, and setuptools comes from the lock
  "$VENV/bin/python" -m pip install -q --no-deps --no-build-isolation -e "$REPO"
  echo "$SET $(digest "$SET")" > "$stamp"
fi
