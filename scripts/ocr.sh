#!/usr/bin/env bash
# Install what images as memories read text with (graphmem.images.ocr,
# tests/service/test_images*.py, bench/images.py): Debian's Tesseract with its English and
# Simplified Chinese data, and a Chinese and a Latin font the tests and the benchmark render their
# images with (fonts-wqy-microhei, fonts-dejavu-core).
# Idempotent: nothing is done when all are there. The apt-get output goes to
# $GRAPHMEM_SERVICES_DIR/apt-ocr.log (default: <repo>/.services), and a failure prints its
# tail and exits 1, so the tests never run without the OCR they need.
# Needs root (or sudo) only when something is missing.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=$(realpath -m "${GRAPHMEM_SERVICES_DIR:-$REPO/.services}")
LOG=$DIR/apt-ocr.log

# shellcheck source=lib/procs.sh
source "$REPO/scripts/lib/procs.sh"

TESSDATA=/usr/share/tesseract-ocr/5/tessdata
pkgs=()
command -v tesseract >/dev/null || pkgs+=(tesseract-ocr)
[[ -e $TESSDATA/eng.traineddata ]] || pkgs+=(tesseract-ocr-eng)
[[ -e $TESSDATA/chi_sim.traineddata ]] || pkgs+=(tesseract-ocr-chi-sim)
[[ -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ]] || pkgs+=(fonts-wqy-microhei)
[[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]] || pkgs+=(fonts-dejavu-core)
if ((${#pkgs[@]} == 0)); then
    echo "ocr: tesseract (eng, chi_sim) and the fonts are installed"
    exit 0
fi
apt_install ocr "$LOG" "${pkgs[@]}"
