#!/bin/sh
# run_bench.sh TAPISD LOADGEN MODE [loadgen options...]
#
# Starts TAPISD on a free port of 127.0.0.1 (pinned to one core when taskset
# is there and the machine has two cores or more), runs LOADGEN MODE against
# it (pinned to another core), stops the server and exits with the load
# generator's status. Used by the meson benchmarks (meson test --benchmark)
# and handy by hand:
#
#   tests/bench/run_bench.sh build/server/tapisd build/tests/bench/loadgen ping --conns 50
#
# Environment: BENCH_SERVER_CPU (default 1), BENCH_CLIENT_CPU (default 0),
# TAPISD_ARGS (extra server options, e.g. "--turn-timer 0"), BENCH_DB (none,
# the default: no journal; batch or always: a fresh database in a temporary
# directory with that --fsync).
#
# The load generator is one address opening up to 1,000 connections at once
# and sending thousands of lines a second on each: the budgets are raised out
# of its way, not turned off, so that their cost is in the figures.
budgets="--line-rate 1000000 --conn-rate 1000000 --create-rate 100000 --max-conns-per-ip 0"
set -u
# shellcheck source=tests/bench/server_port.sh
. "$(dirname "$0")/server_port.sh"
if [ $# -lt 3 ]; then
    echo "usage: $0 TAPISD LOADGEN MODE [loadgen options...]" >&2
    exit 2
fi
tapisd=$1
loadgen=$2
shift 2

# 4,000 connections on each side of one machine, plus the server's own fds.
ulimit -n 16384 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

server_pin=""
client_pin=""
if command -v taskset >/dev/null 2>&1 && [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ]; then
    server_pin="taskset -c ${BENCH_SERVER_CPU:-1}"
    client_pin="taskset -c ${BENCH_CLIENT_CPU:-0}"
fi

log=$(mktemp "${TMPDIR:-/tmp}/tapisd-bench.XXXXXX")
dbdir=$(mktemp -d "${TMPDIR:-/tmp}/tapisd-bench-db.XXXXXX")
case ${BENCH_DB:-none} in
none) db="--db none" ;;
batch | always) db="--db $dbdir/bench.db --fsync $BENCH_DB" ;;
*)
    echo "run_bench: BENCH_DB is none, batch or always" >&2
    exit 2
    ;;
esac
# The default log level (info) logs connections and rooms, not requests; it
# is needed for the "listening on" line that gives the port.
# shellcheck disable=SC2086
$server_pin "$tapisd" --listen 127.0.0.1:0 --log-level info $budgets $db ${TAPISD_ARGS:-} 2>"$log" &
server=$!

cleanup() {
    if kill -0 "$server" 2>/dev/null; then
        kill -TERM "$server" 2>/dev/null
        i=0
        while kill -0 "$server" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -KILL "$server" 2>/dev/null
    fi
    wait "$server" 2>/dev/null
    rm -f "$log"
    rm -rf "$dbdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tapisd_port run_bench "$log" "$server"

t0=$(date +%s.%N)
c0=$(cpu_ticks "$server")
# shellcheck disable=SC2086
$client_pin "$loadgen" "$@" --port "$port"
status=$?
c1=$(cpu_ticks "$server")
t1=$(date +%s.%N)
# The server's CPU over the whole run (set-up and warm-up included): near
# 100% means the server, not the client, set the pace.
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { s = (c1 - c0) / hz; w = t1 - t0;
             printf "run_bench: tapisd cpu %.2fs in %.2fs (%.0f%%)\n", s, w, 100 * s / w }'
if [ $status -ne 0 ]; then
    echo "run_bench: loadgen failed ($status); server log (tail):" >&2
    tail -n 20 "$log" >&2
fi
exit $status
