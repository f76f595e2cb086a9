#!/usr/bin/env bash
# Start/stop a local 3-master Redis Cluster (no replicas, no persistence) from the
# distribution's redis-server, bound to 127.0.0.1, for graphmem's Redis Cluster tests:
#   masters  127.0.0.1:37001 37002 37003   (GRAPHMEM_REDIS_CLUSTER_PORTS="p1 p2 p3")
#   and their cluster bus on each port + 10000 (47001-47003)
#
# Usage: scripts/redis-cluster.sh start|stop|status
#   start   starts whichever nodes are not running, joins them into one cluster with
#           `redis-cli --cluster create` when they are not in one yet, waits until every
#           node reports cluster_state:ok, and writes the URL graphmem and the tests use:
#             $GRAPHMEM_SERVICES_DIR/redis-cluster/env
#               export GRAPHMEM_TEST_REDIS_CLUSTER_URL=redis+cluster://127.0.0.1:37001/0
#           (the same line is added to $GRAPHMEM_SERVICES_DIR/env if that file exists).
#           Idempotent: a running, healthy cluster is left alone.
#   stop    stops every node and forgets the cluster (its data is thrown away anyway).
#   status  prints each node's state and the cluster's; exits 0 only if all is well.
# State, pid files and logs live in $GRAPHMEM_SERVICES_DIR/redis-cluster
# (default: <repo>/.services/redis-cluster).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=$(realpath -m "${GRAPHMEM_SERVICES_DIR:-$REPO/.services}")
CD=$DIR/redis-cluster
read -r -a PORTS <<<"${GRAPHMEM_REDIS_CLUSTER_PORTS:-37001 37002 37003}"
TIMEOUT=${GRAPHMEM_REDIS_CLUSTER_TIMEOUT:-30}
URL="redis+cluster://127.0.0.1:${PORTS[0]}/0"
ENV_LINE="export GRAPHMEM_TEST_REDIS_CLUSTER_URL=$URL"

say() { echo "redis-cluster: $*"; }

# shellcheck source=lib/procs.sh
source "$REPO/scripts/lib/procs.sh"

# fail MESSAGE [LOGFILE]: print the message (and the log's tail), exit 1.
fail() {
    say "FAILED: $1" >&2
    log_tail "${2:-}" 30
    exit 1
}
cli() { redis-cli -h 127.0.0.1 -p "$1" "${@:2}" 2>/dev/null; }
# field PORT NAME: one field of CLUSTER INFO on that node (empty if it does not answer).
field() { cli "$1" cluster info | tr -d '\r' | sed -n "s/^$2://p"; }

check_ports() {
    local p
    ((${#PORTS[@]} >= 3)) || fail "a cluster needs at least 3 masters; got ports: ${PORTS[*]}"
    for p in "${PORTS[@]}"; do
        [[ $p =~ ^[0-9]+$ ]] || fail "not a port number: $p"
        # each node also listens on its cluster bus, port + 10000
        ((p > 0 && p + 10000 <= 65535)) || fail "port $p: its cluster bus port $((p + 10000)) is out of range"
    done
    command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
        fail "redis-server and redis-cli are needed (Debian/Ubuntu: apt-get install redis-server)"
}

start_node() {
    local p=$1 d=$CD/$1 i
    say "node $p: starting on 127.0.0.1:$p"
    redis-server --bind 127.0.0.1 --port "$p" --protected-mode yes \
        --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
        --daemonize yes --pidfile "$d/redis.pid" --dir "$d" --logfile "$d/redis.log" \
        --save '' --appendonly no >>"$d/redis.out" 2>&1 ||
        fail "node $p did not start" "$d/redis.log"
    for ((i = 0; ; i++)); do
        [[ $(cli "$p" ping) == PONG ]] && break
        ((i < TIMEOUT * 4)) || fail "node $p not answering after $TIMEOUT s" "$d/redis.log"
        sleep 0.25
    done
}

write_env() {
    mkdir -p "$CD"
    echo "$ENV_LINE" >"$CD/env"
    if [[ -f $DIR/env ]]; then
        { grep -v '^export GRAPHMEM_TEST_REDIS_CLUSTER_URL=' "$DIR/env" || true; echo "$ENV_LINE"; } \
            >"$DIR/env.cluster.tmp"
        mv "$DIR/env.cluster.tmp" "$DIR/env"
    fi
}

drop_env() {
    rm -f "$CD/env"
    if [[ -f $DIR/env ]] && grep -q '^export GRAPHMEM_TEST_REDIS_CLUSTER_URL=' "$DIR/env"; then
        { grep -v '^export GRAPHMEM_TEST_REDIS_CLUSTER_URL=' "$DIR/env" || true; } \
            >"$DIR/env.cluster.tmp"
        mv "$DIR/env.cluster.tmp" "$DIR/env"
    fi
}

cluster_ok() {
    local p
    for p in "${PORTS[@]}"; do
        [[ $(field "$p" cluster_state) == ok ]] || return 1
        [[ $(field "$p" cluster_known_nodes) == "${#PORTS[@]}" ]] || return 1
    done
}

cmd_start() {
    local t0=$SECONDS p any=0 fresh=1 nodes=() i
    check_ports
    mkdir -p "$CD"
    for p in "${PORTS[@]}"; do
        pid_alive "$CD/$p/redis.pid" redis-server && any=1
    done
    for p in "${PORTS[@]}"; do
        if pid_alive "$CD/$p/redis.pid" redis-server; then
            say "node $p: already running (pid $(<"$CD/$p/redis.pid"))"
            continue
        fi
        port_open "$p" && fail "port $p is in use by another process"
        port_open $((p + 10000)) && fail "port $((p + 10000)) (node $p's cluster bus) is in use"
        mkdir -p "$CD/$p"
        rm -f "$CD/$p/redis.pid"
        # With no node left running there is no cluster to rejoin: start from scratch.
        ((any)) || rm -f "$CD/$p/nodes.conf"
        start_node "$p"
    done
    for p in "${PORTS[@]}"; do
        nodes+=("127.0.0.1:$p")
        [[ $(field "$p" cluster_slots_assigned) == 0 ]] || fresh=0
    done
    if ((fresh)) && ! cluster_ok; then
        say "creating the cluster: ${nodes[*]}"
        redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes \
            >"$CD/create.log" 2>&1 || fail "redis-cli --cluster create" "$CD/create.log"
    fi
    # A restarted node rejoins through its nodes.conf; a new cluster needs a moment to agree.
    for ((i = 0; ; i++)); do
        cluster_ok && break
        ((i < TIMEOUT * 4)) ||
            fail "cluster not ok after $TIMEOUT s; try '$0 stop' then '$0 start'" "$CD/create.log"
        sleep 0.25
    done
    write_env
    say "ready: $URL ($((SECONDS - t0)) s); env: $CD/env"
}

cmd_stop() {
    local p pid i
    for p in "${PORTS[@]}"; do
        if ! pid_alive "$CD/$p/redis.pid" redis-server; then
            say "node $p: not running"
        else
            pid=$(<"$CD/$p/redis.pid")
            kill -TERM "$pid" 2>/dev/null || true
            for ((i = 0; i < 80; i++)); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.25
            done
            if kill -0 "$pid" 2>/dev/null; then
                say "node $p: still running after 20 s, sending SIGKILL"
                kill -KILL "$pid" 2>/dev/null || true
            fi
            say "node $p: stopped (pid $pid)"
        fi
        rm -f "$CD/$p/redis.pid" "$CD/$p/nodes.conf"
    done
    drop_env
}

cmd_status() {
    local ok=0 p
    for p in "${PORTS[@]}"; do
        if pid_alive "$CD/$p/redis.pid" redis-server; then
            say "node $p: running (pid $(<"$CD/$p/redis.pid"), 127.0.0.1:$p," \
                "cluster_state $(field "$p" cluster_state))"
        else
            say "node $p: stopped"
            ok=1
        fi
    done
    if cluster_ok; then
        say "cluster: ok ($URL)"
    else
        say "cluster: not ok"
        ok=1
    fi
    return $ok
}

case ${1:-} in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
*)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
