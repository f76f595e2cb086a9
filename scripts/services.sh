#!/usr/bin/env bash
# Start/stop the real database services graphmem's test suite needs, natively
# (no Docker), all bound to 127.0.0.1 only:
#   MariaDB  127.0.0.1:33306   db graphmem_test, user graphmem / graphmem
#                              (may also create/drop databases named graphmem_*)
#   Redis    127.0.0.1:36379   no persistence
#   Redis Cluster 127.0.0.1:37001-37003 three masters (bus ports +10000), scripts/redis-cluster.sh
#   Neo4j 5  127.0.0.1:37687   Bolt, user neo4j / password (in-process harness,
#            127.0.0.1:37474   HTTP; data is thrown away when it stops)
#   S3       127.0.0.1:49300   an S3-compatible API (gofakes3 over a directory, built from
#                              deploy/s3-test-server), bucket graphmem-test, access key
#                              graphmem-test; data is thrown away when it starts
#
# Usage: scripts/services.sh start|stop|status
#   start   installs what is missing (apt: mariadb-server, redis-server, and
#           openjdk-17-jdk-headless + maven if java/mvn are absent), builds
#           scripts/neo4j-launcher with Maven and the S3 test server with Go (once:
#           the binary is cached by the hash of its sources, see s3_binary), starts
#           whatever is not running and writes $GRAPHMEM_SERVICES_DIR/env (export
#           lines for the tests). Idempotent: services already running are left alone.
#   stop    stops them all via their pid files and removes the env file.
#   status  prints each service's state; exits 0 only if all of them run.
#   start-s3, stop-s3   the S3 server alone (its lines in the env file, the others kept).
# State, data, pid files and logs live in $GRAPHMEM_SERVICES_DIR
# (default: <repo>/.services). Needs root (or sudo) only to apt-get install.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=$(realpath -m "${GRAPHMEM_SERVICES_DIR:-$REPO/.services}")
LAUNCHER=$REPO/scripts/neo4j-launcher

MYSQL_PORT=${GRAPHMEM_MYSQL_PORT:-33306}
REDIS_PORT=${GRAPHMEM_REDIS_PORT:-36379}
BOLT_PORT=${GRAPHMEM_BOLT_PORT:-37687}
HTTP_PORT=${GRAPHMEM_NEO4J_HTTP_PORT:-37474}
NEO4J_USER=neo4j
NEO4J_PASSWORD=password
NEO4J_TIMEOUT=${GRAPHMEM_NEO4J_TIMEOUT:-180}
S3_PORT=${GRAPHMEM_S3_PORT:-49300}
S3_BUCKET=graphmem-test
S3_ACCESS_KEY=graphmem-test
S3_SECRET_KEY=graphmem-test-secret

say() { echo "services: $*"; }

# shellcheck source=lib/procs.sh
source "$REPO/scripts/lib/procs.sh"

# fail SERVICE LOGFILE MESSAGE: print the message and the log's tail, exit 1.
fail() {
    say "$1: FAILED: $3" >&2
    log_tail "$2" 40
    exit 1
}

# spawn PIDFILE LOGFILE CMD...: run CMD in the background in its own session
# (so a terminal's Ctrl-C or hangup does not reach it); PIDFILE gets its pid.
spawn() {
    setsid bash -c 'echo $$ >"$0"; exec "$@"' "$1" "${@:3}" </dev/null >>"$2" 2>&1 &
}

# stop_pid NAME PIDFILE PATTERN TIMEOUT: SIGTERM, wait, then SIGKILL.
stop_pid() {
    local name=$1 pidfile=$2 pattern=$3 timeout=$4 pid i
    if ! pid_alive "$pidfile" "$pattern"; then
        rm -f "$pidfile"
        say "$name: not running"
        return 0
    fi
    pid=$(<"$pidfile")
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < timeout * 4; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.25
    done
    if kill -0 "$pid" 2>/dev/null; then
        say "$name: still running after ${timeout}s, sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        sleep 0.5
    fi
    rm -f "$pidfile"
    say "$name: stopped (pid $pid)"
}

# ---------------------------------------------------------------- installs
ensure_packages() {
    local pkgs=() sudo=() policy=/usr/sbin/policy-rc.d own_policy=0
    command -v mariadbd >/dev/null || pkgs+=(mariadb-server)
    command -v redis-server >/dev/null || pkgs+=(redis-server)
    command -v java >/dev/null || pkgs+=(openjdk-17-jdk-headless)
    command -v mvn >/dev/null || pkgs+=(maven)
    ((${#pkgs[@]})) || return 0
    [[ $(id -u) == 0 ]] || sudo=(sudo)
    say "installing with apt-get: ${pkgs[*]}"
    mkdir -p "$DIR"
    # Keep the packages' own services (port 3306/6379) from being started:
    # a temporary policy-rc.d, unless the machine already has one.
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
        "${sudo[@]}" chmod 755 "$policy"
        trap "${sudo[*]} rm -f $policy" EXIT
        own_policy=1
    fi
    {
        "${sudo[@]}" apt-get update -q &&
            "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                --no-install-recommends "${pkgs[@]}"
    } >"$DIR/apt.log" 2>&1 || fail apt "$DIR/apt.log" "apt-get install ${pkgs[*]}"
    if ((own_policy)); then
        "${sudo[@]}" rm -f "$policy"
        trap - EXIT
    fi
    say "installed: ${pkgs[*]}"
}

# ---------------------------------------------------------------- MariaDB
MY=$DIR/mariadb
MY_CNF=$MY/my.cnf
MY_PID=$MY/mariadb.pid
MY_LOG=$MY/mariadb.log

mysql_root() { mariadb --defaults-file="$MY_CNF" -u "$(id -un)" "$@"; }

start_mariadb() {
    local t0=$SECONDS i
    if pid_alive "$MY_PID" mariadbd; then
        say "mariadb: already running (pid $(<"$MY_PID"))"
    else
        rm -f "$MY_PID" "$MY/mariadb.sock"
        port_open "$MYSQL_PORT" && fail mariadb "" "port $MYSQL_PORT is in use by another process"
        mkdir -p "$MY"
        cat >"$MY_CNF" <<EOF
# Generated by scripts/services.sh (test-only MariaDB for graphmem).
[mysqld]
datadir=$MY/data
socket=$MY/mariadb.sock
pid-file=$MY_PID
log-error=$MY_LOG
port=$MYSQL_PORT
bind-address=127.0.0.1
skip-name-resolve
character-set-server=utf8mb4
collation-server=utf8mb4_unicode_ci
innodb_buffer_pool_size=256M
innodb_flush_log_at_trx_commit=2
[client]
socket=$MY/mariadb.sock
port=$MYSQL_PORT
default-character-set=utf8mb4
EOF
        if [[ ! -d $MY/data/mysql ]]; then
            say "mariadb: initialising $MY/data"
            rm -rf "$MY/data"
            mariadb-install-db --defaults-file="$MY_CNF" --user="$(id -un)" \
                --auth-root-authentication-method=socket --skip-test-db \
                >"$MY/install.log" 2>&1 || {
                rm -rf "$MY/data"
                fail mariadb "$MY/install.log" "mariadb-install-db"
            }
        fi
        say "mariadb: starting on 127.0.0.1:$MYSQL_PORT"
        spawn "$MY_PID" "$MY/mariadbd.out" mariadbd --defaults-file="$MY_CNF" --user="$(id -un)"
        for ((i = 0; ; i++)); do
            mariadb-admin --defaults-file="$MY_CNF" -u "$(id -un)" --connect-timeout=2 \
                ping >/dev/null 2>&1 && break
            ((i < 240)) || fail mariadb "$MY_LOG" "not answering after 60 s"
            if ((i > 4)) && ! pid_alive "$MY_PID" mariadbd; then
                fail mariadb "$MY_LOG" "mariadbd exited"
            fi
            sleep 0.25
        done
    fi
    # Idempotent: (re)create the test database and user on every start.
    mysql_root >>"$MY/setup.log" 2>&1 <<'SQL' || fail mariadb "$MY/setup.log" "creating database/user"
CREATE DATABASE IF NOT EXISTS graphmem_test CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS 'graphmem'@'127.0.0.1' IDENTIFIED BY 'graphmem';
CREATE USER IF NOT EXISTS 'graphmem'@'localhost' IDENTIFIED BY 'graphmem';
ALTER USER 'graphmem'@'127.0.0.1' IDENTIFIED BY 'graphmem';
ALTER USER 'graphmem'@'localhost' IDENTIFIED BY 'graphmem';
GRANT ALL PRIVILEGES ON `graphmem_test`.* TO 'graphmem'@'127.0.0.1', 'graphmem'@'localhost';
GRANT ALL PRIVILEGES ON `graphmem\_%`.* TO 'graphmem'@'127.0.0.1', 'graphmem'@'localhost';
FLUSH PRIVILEGES;
SQL
    say "mariadb: ready (pid $(<"$MY_PID"), $((SECONDS - t0)) s)"
}

# ---------------------------------------------------------------- Redis
RD=$DIR/redis
RD_PID=$RD/redis.pid
RD_LOG=$RD/redis.log

start_redis() {
    local t0=$SECONDS i
    if pid_alive "$RD_PID" redis-server; then
        say "redis: already running (pid $(<"$RD_PID"))"
        return 0
    fi
    rm -f "$RD_PID"
    port_open "$REDIS_PORT" && fail redis "" "port $REDIS_PORT is in use by another process"
    mkdir -p "$RD"
    say "redis: starting on 127.0.0.1:$REDIS_PORT"
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --protected-mode yes \
        --daemonize yes --pidfile "$RD_PID" --dir "$RD" --logfile "$RD_LOG" \
        --save '' --appendonly no >>"$RD/redis.out" 2>&1 ||
        fail redis "$RD_LOG" "redis-server did not start"
    for ((i = 0; ; i++)); do
        [[ $(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]] && break
        ((i < 120)) || fail redis "$RD_LOG" "not answering after 30 s"
        sleep 0.25
    done
    say "redis: ready (pid $(<"$RD_PID"), $((SECONDS - t0)) s)"
}

# ---------------------------------------------------------------- Neo4j
N4=$DIR/neo4j
N4_PID=$N4/neo4j.pid
N4_LOG=$N4/neo4j.log
N4_CP=$LAUNCHER/target/classpath.txt

# True if the launcher's build output is newer than its sources and every jar
# on its class path is still in the Maven cache.
launcher_built() {
    local jar jars
    [[ -s $N4_CP && -f $LAUNCHER/target/classes/graphmem/Main.class ]] || return 1
    [[ -z $(find "$LAUNCHER/pom.xml" "$LAUNCHER/src" -type f -newer "$N4_CP") ]] || return 1
    IFS=: read -r -a jars <"$N4_CP"
    for jar in "${jars[@]}"; do [[ -f $jar ]] || return 1; done
}

start_neo4j() {
    local t0=$SECONDS i
    if pid_alive "$N4_PID" graphmem.Main; then
        say "neo4j: already running (pid $(<"$N4_PID"))"
        return 0
    fi
    rm -f "$N4_PID"
    mkdir -p "$N4"
    if ! launcher_built; then
        say "neo4j: building scripts/neo4j-launcher with Maven (first time downloads ~190 MB into ~/.m2)"
        (cd "$LAUNCHER" && mvn -q -B package) >"$N4/build.log" 2>&1 ||
            fail neo4j "$N4/build.log" "mvn package"
        touch "$N4_CP"
        say "neo4j: built in $((SECONDS - t0)) s"
    fi
    for i in $BOLT_PORT $HTTP_PORT; do
        port_open "$i" && fail neo4j "" "port $i is in use by another process"
    done
    rm -rf "$N4/work"   # leftovers of a killed run; the data is ephemeral
    say "neo4j: starting (Bolt 127.0.0.1:$BOLT_PORT, HTTP 127.0.0.1:$HTTP_PORT)"
    : >"$N4_LOG"
    spawn "$N4_PID" "$N4_LOG" java -Xms256m -Xmx1g -XX:+ExitOnOutOfMemoryError \
        -cp "$LAUNCHER/target/classes:$(<"$N4_CP")" graphmem.Main \
        "$N4/work" "$BOLT_PORT" "$HTTP_PORT" "$NEO4J_PASSWORD"
    for ((i = 0; ; i++)); do
        if port_open "$BOLT_PORT" && grep -q '^READY' "$N4_LOG"; then break; fi
        if ((i > 4)) && ! pid_alive "$N4_PID" graphmem.Main; then
            fail neo4j "$N4_LOG" "launcher exited"
        fi
        if ((i >= NEO4J_TIMEOUT * 2)); then
            stop_pid neo4j "$N4_PID" graphmem.Main 10 >/dev/null
            fail neo4j "$N4_LOG" "Bolt port not open after $NEO4J_TIMEOUT s"
        fi
        sleep 0.5
    done
    say "neo4j: ready (pid $(<"$N4_PID"), $((SECONDS - t0)) s)"
}

# ---------------------------------------------------------------- S3
S3=$DIR/s3
S3_PID=$S3/s3.pid
S3_LOG=$S3/s3.log
S3_SRC=$REPO/deploy/s3-test-server
# Built binaries are kept outside the checkout, keyed by the hash of the server's sources and
# the Go version, so a fresh clone (CI) on the same machine starts it without building again.
S3_CACHE=${GRAPHMEM_S3_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/graphmem/s3-test-server}

go_cmd() {
    if command -v go >/dev/null; then
        command -v go
    elif [[ -x /usr/local/go/bin/go ]]; then
        echo /usr/local/go/bin/go
    fi
}

# s3_binary: print the path of the built server, building it first if its sources changed.
s3_binary() {
    local go key bin t0=$SECONDS
    go=$(go_cmd)
    [[ -n $go ]] || fail s3 "" "Go (1.24 or later) is needed to build $S3_SRC: install it, or put it on PATH"
    key=$({ cat "$S3_SRC/go.mod" "$S3_SRC/go.sum" "$S3_SRC"/*.go; "$go" version; } |
        sha256sum | cut -c1-16)
    bin=$S3_CACHE/$key/s3-test-server
    if [[ ! -x $bin ]]; then
        mkdir -p "$S3" "$S3_CACHE/$key"
        say "s3: building $S3_SRC with $("$go" version | cut -d' ' -f3) (modules from the Go proxy, once)" >&2
        (cd "$S3_SRC" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0 \
            "$go" build -trimpath -o "$bin.tmp" .) >"$S3/build.log" 2>&1 ||
            fail s3 "$S3/build.log" "go build"
        mv "$bin.tmp" "$bin"
        say "s3: built in $((SECONDS - t0)) s: $bin" >&2
    fi
    echo "$bin"
}

start_s3() {
    local t0=$SECONDS bin i
    if pid_alive "$S3_PID" s3-test-server; then
        say "s3: already running (pid $(<"$S3_PID"))"
        return 0
    fi
    rm -f "$S3_PID"
    bin=$(s3_binary)
    port_open "$S3_PORT" && fail s3 "" "port $S3_PORT is in use by another process"
    rm -rf "$S3/data"   # the data is ephemeral, like Neo4j's
    mkdir -p "$S3/data"
    say "s3: starting on 127.0.0.1:$S3_PORT"
    : >"$S3_LOG"
    spawn "$S3_PID" "$S3_LOG" "$bin" -addr "127.0.0.1:$S3_PORT" -dir "$S3/data" \
        -bucket "$S3_BUCKET" -access-key "$S3_ACCESS_KEY"
    for ((i = 0; ; i++)); do
        if port_open "$S3_PORT" && grep -q '^READY' "$S3_LOG"; then break; fi
        if ((i > 4)) && ! pid_alive "$S3_PID" s3-test-server; then
            fail s3 "$S3_LOG" "server exited"
        fi
        ((i < 120)) || fail s3 "$S3_LOG" "not listening after 30 s"
        sleep 0.25
    done
    say "s3: ready (pid $(<"$S3_PID"), $((SECONDS - t0)) s)"
}

s3_env() {
    cat <<EOF
export GRAPHMEM_TEST_S3_ENDPOINT=http://127.0.0.1:$S3_PORT
export GRAPHMEM_TEST_S3_BUCKET=$S3_BUCKET
export GRAPHMEM_TEST_S3_ACCESS_KEY=$S3_ACCESS_KEY
export GRAPHMEM_TEST_S3_SECRET_KEY=$S3_SECRET_KEY
EOF
}

# s3_env_only [add]: drop the S3 lines from the env file, then (add) write them again; the
# other services' lines stay. For start-s3 / stop-s3, which leave the other services alone.
s3_env_only() {
    mkdir -p "$DIR"
    { grep -v '^export GRAPHMEM_TEST_S3_' "$DIR/env" 2>/dev/null || true
      [[ ${1:-} != add ]] || s3_env; } >"$DIR/env.s3.tmp"
    mv "$DIR/env.s3.tmp" "$DIR/env"
}

# ---------------------------------------------------------------- commands
write_env() {
    cat >"$DIR/env.tmp" <<EOF
export GRAPHMEM_TEST_MYSQL_URL=mysql://graphmem:graphmem@127.0.0.1:$MYSQL_PORT/graphmem_test
export GRAPHMEM_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0
export GRAPHMEM_TEST_NEO4J_URL=bolt://127.0.0.1:$BOLT_PORT
export GRAPHMEM_TEST_NEO4J_USER=$NEO4J_USER
export GRAPHMEM_TEST_NEO4J_PASSWORD=$NEO4J_PASSWORD
$(s3_env)
EOF
    mv "$DIR/env.tmp" "$DIR/env"
}

cmd_start() {
    local t0=$SECONDS
    mkdir -p "$DIR"
    ensure_packages
    start_mariadb
    start_redis
    start_neo4j
    start_s3
    write_env
    "$REPO/scripts/redis-cluster.sh" start
    say "all services up in $((SECONDS - t0)) s; env: $DIR/env"
}

cmd_stop() {
    # In parallel: Neo4j alone takes several seconds to shut down.
    stop_pid neo4j "$N4_PID" graphmem.Main 60 &
    stop_pid redis "$RD_PID" redis-server 20 &
    stop_pid mariadb "$MY_PID" mariadbd 60 &
    stop_pid s3 "$S3_PID" s3-test-server 10 &
    "$REPO/scripts/redis-cluster.sh" stop &
    wait
    rm -rf "$N4/work"
    rm -f "$DIR/env"
}

cmd_status() {
    local ok=0 s
    for s in "mariadb:$MY_PID:mariadbd:$MYSQL_PORT" "redis:$RD_PID:redis-server:$REDIS_PORT" \
        "neo4j:$N4_PID:graphmem.Main:$BOLT_PORT" "s3:$S3_PID:s3-test-server:$S3_PORT"; do
        IFS=: read -r name pidfile pattern port <<<"$s"
        if pid_alive "$pidfile" "$pattern"; then
            say "$name: running (pid $(<"$pidfile"), 127.0.0.1:$port)"
        else
            say "$name: stopped"
            ok=1
        fi
    done
    "$REPO/scripts/redis-cluster.sh" status || ok=1
    return $ok
}

case ${1:-} in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
start-s3) start_s3 && s3_env_only add ;;
stop-s3) stop_pid s3 "$S3_PID" s3-test-server 10 && s3_env_only ;;
*)
    echo "usage: $0 start|stop|status|start-s3|stop-s3" >&2
    exit 2
    ;;
esac
