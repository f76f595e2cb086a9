#!/usr/bin/env bash
# Set up (the default install only: no torch, no server drivers), then run graphmem's MCP server
# on the embedded default (SQLite + Qdrant Edge in the user data directory, or
# $GRAPHMEM_DATA_DIR; no other server). Extra arguments go to `graphmem serve`, e.g. --stdio or
# --port 9000.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$REPO/scripts/setup.sh" default
VENV=${GRAPHMEM_VENV:-$REPO/.venv}
exec "$VENV/bin/graphmem" serve "$@"
