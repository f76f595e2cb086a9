# Process and port checks shared by scripts/services.sh, scripts/redis-cluster.sh and
# scripts/qdrant.sh (sourced, not run).

# pid_alive PIDFILE PATTERN: true if the pid file names a live process whose command line
# contains PATTERN (guards against stale files and reused pids).
pid_alive() {
    local pid
    [[ -s $1 ]] || return 1
    pid=$(<"$1")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$2"
}

# port_open PORT: true if something listens on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# log_tail FILE LINES: the last lines of a log on stderr, framed (nothing if FILE is absent).
log_tail() {
    if [[ -n $1 && -f $1 ]]; then
        echo "---- last lines of $1 ----" >&2
        tail -n "$2" "$1" >&2
        echo "----" >&2
    fi
}

# apt_install TAG LOG PACKAGE...: install Debian packages (sudo when not root), the output in
# LOG; on failure print its tail and return 1. What scripts/browser.sh and scripts/ocr.sh share.
apt_install() {
    local tag=$1 log=$2
    shift 2
    local sudo=()
    [[ $(id -u) == 0 ]] || sudo=(sudo)
    mkdir -p "$(dirname "$log")"
    echo "$tag: installing with apt-get: $*"
    if ! {
        "${sudo[@]}" apt-get update -q &&
            "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                --no-install-recommends "$@"
    } >"$log" 2>&1; then
        echo "$tag: FAILED: apt-get install $*" >&2
        log_tail "$log" 40
        return 1
    fi
    echo "$tag: installed: $*"
}
