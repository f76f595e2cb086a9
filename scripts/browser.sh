#!/usr/bin/env bash
# Install what the inspector's browser tests drive (tests/ui/test_ui_browser.py): Debian's
# chromium and its chromedriver (chromium-driver), at /usr/bin/chromium and
# /usr/bin/chromedriver. Idempotent: nothing is done when both are there. The apt-get output
# goes to $GRAPHMEM_SERVICES_DIR/apt-browser.log (default: <repo>/.services), and a failure
# prints its tail and exits 1, so the tests never run without the browser they need.
# Needs root (or sudo) only when something is missing.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=$(realpath -m "${GRAPHMEM_SERVICES_DIR:-$REPO/.services}")
LOG=$DIR/apt-browser.log

# shellcheck source=lib/procs.sh
source "$REPO/scripts/lib/procs.sh"

pkgs=()
command -v chromium >/dev/null || pkgs+=(chromium)
command -v chromedriver >/dev/null || pkgs+=(chromium-driver)
if ((${#pkgs[@]} == 0)); then
    echo "browser: chromium and chromedriver are installed"
    exit 0
fi
apt_install browser "$LOG" "${pkgs[@]}"
