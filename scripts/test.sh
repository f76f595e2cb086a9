#!/usr/bin/env bash
# Set up, check the static types (mypy, config in pyproject.toml), start the real services the
# tests need (MariaDB, Redis, Neo4j, an S3-compatible server on 127.0.0.1), install the browser the inspector's
# end-to-end tests drive (Debian's chromium and chromium-driver) and the OCR the image tests
# read with (Debian's tesseract-ocr, eng and chi_sim, and a Chinese font), run the whole test
# suite, stop the services. Extra arguments go to pytest.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
scripts/setup.sh dev
VENV=${GRAPHMEM_VENV:-$REPO/.venv}
"$VENV/bin/python" -m mypy
export GRAPHMEM_SERVICES_DIR=${GRAPHMEM_SERVICES_DIR:-$REPO/.services}

scripts/browser.sh
scripts/ocr.sh
scripts/services.sh start
trap 'scripts/services.sh stop >/dev/null 2>&1 || true' EXIT
# shellcheck disable=SC1091
source "$GRAPHMEM_SERVICES_DIR/env"

"$VENV/bin/python" -m pytest "$@"
