#!/usr/bin/env bash
# Start/stop a local Qdrant for graphmem's server tests and the cluster test, natively and
# bound to 127.0.0.1 only: one node, or a three-node cluster (Raft consensus, so collections
# can have several shards and a replication factor of 2 or 3).
#
#   scripts/qdrant.sh start [single|cluster]   default: single
#   scripts/qdrant.sh stop
#   scripts/qdrant.sh status
#   scripts/qdrant.sh kill N                   kill -9 node N (1-3) of a running cluster
#   scripts/qdrant.sh restart-node N           start node N again after a kill
#
# The Qdrant server binary comes from Qdrant's own releases (the qdrant-x86_64-unknown-linux-gnu
# tarball on its GitHub releases page, or /qdrant/qdrant copied out of the qdrant/qdrant
# container image): set QDRANT_BIN to it, or put `qdrant` on PATH. Pin the version you test
# against (QDRANT_VERSION below is what graphmem was last tested with) and check what it
# prints with `"$QDRANT_BIN" --version`.
#
# Ports (HTTP / gRPC / cluster p2p), per node k = 1..3:
#   HTTP 3633k, gRPC 3634k, p2p 3635k   (single node: 36331 / 36341)
# State, data, pid files and logs live in $GRAPHMEM_SERVICES_DIR/qdrant (default
# <repo>/.services/qdrant); `start` writes $GRAPHMEM_SERVICES_DIR/qdrant.env with
#   GRAPHMEM_TEST_QDRANT_URL (node 1), GRAPHMEM_TEST_QDRANT_URLS (every node, comma-separated)
#   and GRAPHMEM_TEST_QDRANT_REPLICAS (2 on the cluster, 1 on a single node).
set -euo pipefail

QDRANT_VERSION=1.18.3
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE=$(realpath -m "${GRAPHMEM_SERVICES_DIR:-$REPO/.services}")
DIR=$BASE/qdrant
ENV_FILE=$BASE/qdrant.env
BIN=${QDRANT_BIN:-$(command -v qdrant || true)}
START_TIMEOUT=${GRAPHMEM_QDRANT_TIMEOUT:-90}

say() { echo "qdrant: $*"; }
die() { say "$*" >&2; exit 1; }

http_port() { echo $((36330 + $1)); }
grpc_port() { echo $((36340 + $1)); }
p2p_port() { echo $((36350 + $1)); }

# shellcheck source=lib/procs.sh
source "$REPO/scripts/lib/procs.sh"

alive() { pid_alive "$DIR/node$1.pid" qdrant; }

ready() { curl -fsS "http://127.0.0.1:$(http_port "$1")/readyz" >/dev/null 2>&1; }

# node K MODE: start node K (MODE single, first or join) in the background.
node() {
    local k=$1 mode=$2 args=()
    mkdir -p "$DIR/node$k/storage" "$DIR/node$k/snapshots"
    if [[ $mode != single ]]; then
        args=(--uri "http://127.0.0.1:$(p2p_port "$k")")
        [[ $mode == join ]] && args+=(--bootstrap "http://127.0.0.1:$(p2p_port 1)")
    fi
    (
        cd "$DIR/node$k"
        export QDRANT__SERVICE__HOST=127.0.0.1
        export QDRANT__SERVICE__HTTP_PORT=$(http_port "$k")
        export QDRANT__SERVICE__GRPC_PORT=$(grpc_port "$k")
        export QDRANT__STORAGE__STORAGE_PATH=$DIR/node$k/storage
        export QDRANT__STORAGE__SNAPSHOTS_PATH=$DIR/node$k/snapshots
        export QDRANT__TELEMETRY_DISABLED=true
        export QDRANT__CLUSTER__ENABLED=$([[ $mode == single ]] && echo false || echo true)
        export QDRANT__CLUSTER__P2P__PORT=$(p2p_port "$k")
        setsid "$BIN" "${args[@]}" >>"$DIR/node$k.log" 2>&1 &
        echo $! >"$DIR/node$k.pid"
    )
    local waited=0
    until ready "$k"; do
        alive "$k" || { tail -n 30 "$DIR/node$k.log" >&2; die "node $k exited while starting"; }
        ((waited++ < START_TIMEOUT)) || die "node $k not ready after ${START_TIMEOUT}s (log: $DIR/node$k.log)"
        sleep 1
    done
    say "node $k ready on 127.0.0.1:$(http_port "$k") (pid $(<"$DIR/node$k.pid"))"
}

nodes() { cat "$DIR/nodes" 2>/dev/null || echo 0; }

write_env() {
    local n=$1 urls=() k
    for ((k = 1; k <= n; k++)); do urls+=("http://127.0.0.1:$(http_port "$k")"); done
    {
        echo "export GRAPHMEM_TEST_QDRANT_URL=${urls[0]}"
        echo "export GRAPHMEM_TEST_QDRANT_URLS=$(IFS=,; echo "${urls[*]}")"
        echo "export GRAPHMEM_TEST_QDRANT_REPLICAS=$([[ $n -gt 1 ]] && echo 2 || echo 1)"
    } >"$ENV_FILE"
}

start() {
    local mode=${1:-single}
    [[ -n $BIN && -x $BIN ]] || die "no Qdrant binary: set QDRANT_BIN to a Qdrant $QDRANT_VERSION server binary (see the top of this script)"
    if [[ $(nodes) -gt 0 ]] && alive 1; then
        say "already running ($(nodes) node(s)); stop it first to change the layout"
        return 0
    fi
    rm -rf "$DIR"
    mkdir -p "$DIR"
    say "$("$BIN" --version 2>/dev/null || echo "version unknown")"
    if [[ $mode == single ]]; then
        echo 1 >"$DIR/nodes"
        # A one-peer cluster: custom shard keys (qdrant_shard_groups) need distributed mode.
        node 1 first
        write_env 1
    elif [[ $mode == cluster ]]; then
        echo 3 >"$DIR/nodes"
        node 1 first
        node 2 join
        node 3 join
        local peers=0 waited=0
        until [[ $peers -ge 3 ]]; do
            peers=$(curl -fsS "http://127.0.0.1:$(http_port 1)/cluster" |
                python3 -c 'import json,sys; print(len(json.load(sys.stdin)["result"]["peers"]))')
            ((waited++ < START_TIMEOUT)) || die "the cluster has $peers peers after ${START_TIMEOUT}s"
            sleep 1
        done
        say "cluster of 3 peers ready"
        write_env 3
    else
        die "start single|cluster, not '$mode'"
    fi
    say "env: $ENV_FILE"
}

stop() {
    local k pid
    for k in 1 2 3; do
        if alive "$k"; then
            pid=$(<"$DIR/node$k.pid")
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
            kill -9 "$pid" 2>/dev/null || true
            say "node $k stopped"
        fi
    done
    rm -f "$ENV_FILE" "$DIR"/node*.pid
}

status() {
    local k n ok=0
    n=$(nodes)
    [[ $n -gt 0 ]] || { say "not started"; return 1; }
    for ((k = 1; k <= n; k++)); do
        if alive "$k" && ready "$k"; then say "node $k up on $(http_port "$k")"; else say "node $k DOWN"; ok=1; fi
    done
    return $ok
}

case ${1:-} in
start) start "${2:-single}" ;;
stop) stop ;;
status) status ;;
kill)
    alive "${2:?node number}" || die "node $2 is not running"
    kill -9 "$(<"$DIR/node$2.pid")"
    say "node $2 killed (-9)"
    ;;
restart-node)
    alive "${2:?node number}" && die "node $2 is running"
    node "$2" "$([[ $2 == 1 ]] && echo first || echo join)"
    ;;
*) die "usage: scripts/qdrant.sh start [single|cluster] | stop | status | kill N | restart-node N" ;;
esac
