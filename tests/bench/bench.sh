# shellcheck shell=sh
# bench.sh — sourced by the bench scripts (run_bench.sh, run_abuse.sh,
# compare_redis.sh; POSIX sh): what they share.
#
# $budgets: tapisd's options that lift its rate and per-address budgets, which
#   a load generator's thousands of connections from one address would meet.
# need_args N USAGE "$@": exit 2 with "usage: SCRIPT USAGE" unless there are N
#   arguments or more.
# take_args USAGE NAME... -- "$@": need_args for as many arguments as NAMEs,
#   then the first arguments in those variables, in order (the caller shifts).
# running PID: true while PID runs (a zombie does not).
# raise_nofile N: the limit on open files raised to N, or as far as it goes.
# pin_cores: sets $server_pin and $client_pin, the taskset prefixes that pin
#   the server to core BENCH_SERVER_CPU (default 1) and the client to core
#   BENCH_CLIENT_CPU (default 0); empty without taskset or a second core.
#   The script itself moves to the client's core, and so does all it starts
#   unpinned (its samplers, awk, sleep): nothing of the harness runs on the
#   measured server's core.
# stop_server PID: SIGTERM, then SIGKILL if PID still runs 5 s later.
# make_tmp WHO: $tmp, a new temporary directory, removed at exit after the
#   server $server (if set) is stopped; INT and TERM exit with 130.
# start_tapisd WHO TAPISD [options...]: TAPISD (pinned by $server_pin) on a
#   free port of 127.0.0.1, logging at level info (which gives the port) to
#   $log in $tmp; sets $server and $port (see tapisd_port).
# tapisd_port WHO LOG PID: wait for the tapisd started as PID, logging to LOG,
#   to say "listening on 127.0.0.1:PORT"; sets $port, or prints why (prefixed
#   WHO) with the log and exits 1 when it died or said nothing in 5 s.
# cpu_ticks PID: utime + stime of PID, in clock ticks (0 once it is gone).
# preempted PID: how many times PID was taken off its core while it could
#   still run (involuntary context switches; 0 once it is gone).
# steal_ticks CPU: the time the hypervisor kept core CPU (all cores when CPU
#   is empty) from running, from /proc/stat, in clock ticks (0 without it).
# figure FILE KEY: the value of the key=value figure KEY of loadgen's line in FILE.

budgets="--line-rate 1000000 --conn-rate 1000000 --create-rate 100000 --max-conns-per-ip 0"

need_args() {
    if [ $(($# - 2)) -lt "$1" ]; then
        echo "usage: $0 $2" >&2
        exit 2
    fi
}

take_args() {
    _usage=$1
    shift
    _names=""
    _n=0
    while [ "$1" != -- ]; do
        _names="$_names $1"
        _n=$((_n + 1))
        shift
    done
    shift
    [ $# -ge $_n ] || need_args "$_n" "$_usage"
    for _name in $_names; do
        eval "$_name=\$1"
        shift
    done
}

running() {
    [ -r "/proc/$1/status" ] && ! grep -Eq '^State:[[:space:]]*[ZX]' "/proc/$1/status" 2>/dev/null
}

raise_nofile() {
    ulimit -n "$1" 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}

# shellcheck disable=SC2034 # server_pin and client_pin are the caller's
pin_cores() {
    server_pin=""
    client_pin=""
    if command -v taskset >/dev/null 2>&1 && [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ]; then
        server_pin="taskset -c ${BENCH_SERVER_CPU:-1}"
        client_pin="taskset -c ${BENCH_CLIENT_CPU:-0}"
        taskset -p -c "${BENCH_CLIENT_CPU:-0}" $$ >/dev/null 2>&1 || :
    fi
}

stop_server() {
    if running "$1"; then
        kill -TERM "$1" 2>/dev/null
        _i=0
        while running "$1" && [ "$_i" -lt 50 ]; do
            sleep 0.1
            _i=$((_i + 1))
        done
        kill -KILL "$1" 2>/dev/null
    fi
}

make_tmp() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    server=""
    trap 'if [ -n "$server" ]; then stop_server "$server"; wait "$server" 2>/dev/null; fi
          rm -rf "$tmp"' EXIT
    trap 'exit 130' INT TERM
}

start_tapisd() {
    _who=$1
    _tapisd=$2
    shift 2
    log=$tmp/tapisd.log
    : >"$log" # emptied here, not by the background job: tapisd_port must not read an old port
    # shellcheck disable=SC2086 # $server_pin is words
    $server_pin "$_tapisd" --listen 127.0.0.1:0 --log-level info "$@" 2>"$log" &
    server=$!
    tapisd_port "$_who" "$log" "$server"
}

tapisd_port() {
    port=""
    _i=0
    while [ $_i -lt 100 ]; do
        port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$2" | head -n 1)
        [ -n "$port" ] && return 0
        if ! running "$3"; then
            echo "$1: tapisd exited at start:" >&2
            cat "$2" >&2
            exit 1
        fi
        sleep 0.05
        _i=$((_i + 1))
    done
    echo "$1: tapisd did not say where it listens:" >&2
    cat "$2" >&2
    exit 1
}

cpu_ticks() {
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

preempted() {
    awk '/^nonvoluntary_ctxt_switches/ { print $2; f = 1 } END { if (!f) print 0 }' \
        "/proc/$1/status" 2>/dev/null || echo 0
}

steal_ticks() {
    awk -v c="cpu$1" '$1 == c { print $9 + 0; f = 1 } END { if (!f) print 0 }' /proc/stat 2>/dev/null ||
        echo 0
}

figure() {
    sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$1" | head -n 1
}
