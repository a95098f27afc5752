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
set -u
# shellcheck source=tests/bench/bench.sh
. "$(dirname "$0")/bench.sh"
need_args 3 "TAPISD LOADGEN MODE [loadgen options...]" "$@"
tapisd=$1
loadgen=$2
shift 2

# 4,000 connections on each side of one machine, plus the server's own fds.
raise_nofile 16384
pin_cores

make_tmp tapisd-bench
case ${BENCH_DB:-none} in
none) db="--db none" ;;
batch | always) db="--db $tmp/bench.db --fsync $BENCH_DB" ;;
*)
    echo "run_bench: BENCH_DB is none, batch or always" >&2
    exit 2
    ;;
esac
# The default log level (info) logs connections and rooms, not requests.
# shellcheck disable=SC2086
start_tapisd run_bench "$tapisd" $budgets $db ${TAPISD_ARGS:-}

# The server's core (unpinned: all cores), for the time the hypervisor kept
# it from running (steal).
score=""
[ -n "$server_pin" ] && score=${BENCH_SERVER_CPU:-1}
t0=$(date +%s.%N)
k0=$(steal_ticks "$score")
p0=$(preempted "$server")
c0=$(cpu_ticks "$server")
# shellcheck disable=SC2086
$client_pin "$loadgen" "$@" --port "$port"
status=$?
c1=$(cpu_ticks "$server")
p1=$(preempted "$server")
k1=$(steal_ticks "$score")
t1=$(date +%s.%N)
# The server's CPU over the whole run (set-up and warm-up included): near
# 100% means the server, not the client, set the pace. The tail depends on
# the machine as much as on tapisd, so the figure comes with how often tapisd
# was taken off its core while it could run (kernel threads, other
# processes) and how long the hypervisor kept that core (steal).
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" \
    -v p="$((p1 - p0))" -v k0="$k0" -v k1="$k1" -v core="${score:-all}" \
    'BEGIN { s = (c1 - c0) / hz; w = t1 - t0;
             printf "run_bench: tapisd cpu %.2fs in %.2fs (%.0f%%), preempted %d times, " \
                    "core %s stolen %.0f ms\n", s, w, 100 * s / w, p, core, 1000 * (k1 - k0) / hz }'
if [ $status -ne 0 ]; then
    echo "run_bench: loadgen failed ($status); server log (tail):" >&2
    tail -n 20 "$log" >&2
fi
exit $status
