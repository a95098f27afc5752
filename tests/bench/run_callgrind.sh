#!/bin/sh
# run_callgrind.sh TAPISD FLOOR LOADGEN [TABLES]
#
# Instructions per act of tapisd and of the floor, counted by valgrind's
# callgrind: a figure that the machine's load does not move (the CPU-time
# ratios of run_ratio.sh do). Each server in turn runs under callgrind with
# its instrumentation off, `loadgen tables --tables TABLES --think 100`
# (default 100 tables) plays for 8 s, and the instrumentation is on for 4 s
# in the middle (past the tables' set-up, before they close). The count of
# acts is the calls of each server's own on_act() in that window. Prints,
# per server, its instructions, its acts and their quotient, and keeps each
# profile (callgrind_annotate FILE, --inclusive=yes, --tree=calling) in
# RUN_CALLGRIND_KEEP if set.
#
#   tests/bench/run_callgrind.sh build-release/server/tapisd \
#       build-release/tests/bench/floor build-release/tests/bench/loadgen
#
# User space only: the kernel's work for the same bytes (reads, writes,
# loopback TCP) is about the same for both (run_ratio.sh prints the bytes).
# A build with debug info (meson configure -Ddebug=true) names the lines.
# Exit status: 77 without valgrind, 1 when a run failed.
set -u
# shellcheck shell=sh source=tests/bench/bench.sh
. "$(dirname "$0")/bench.sh"
take_args "TAPISD FLOOR LOADGEN [TABLES]" tapisd floor loadgen -- "$@"
tables=${4:-100}
if ! command -v callgrind_control >/dev/null 2>&1; then
    echo "run_callgrind: no valgrind (callgrind_control): skipped" >&2
    exit 77
fi
make_tmp tapisd-callgrind
server_pin="" # start_tapisd's: not pinned
cg="valgrind --tool=callgrind --instr-atstart=no"

# The floor's script, recorded from a tapisd with --seed 1 (as run_ratio.sh).
# shellcheck disable=SC2086 # $budgets is words
start_tapisd run_callgrind "$tapisd" $budgets --db none --seed 1
"$floor" record --port "$port" --out "$tmp/script" || exit 1
stop_server "$server"
wait "$server" 2>/dev/null
server=""

# profile WHO: one run under callgrind; prints "WHO: N instructions, A acts, N/A per act".
profile() {
    log=$tmp/$1.log
    : >"$log"
    case $1 in
    tapisd)
        # shellcheck disable=SC2086
        $cg --callgrind-out-file="$tmp/$1.out" "$tapisd" --listen 127.0.0.1:0 --log-level info \
            $budgets --db none 2>"$log" &
        ;;
    floor) $cg --callgrind-out-file="$tmp/$1.out" "$floor" serve --script "$tmp/script" 2>"$log" & ;;
    esac
    server=$!
    tapisd_port run_callgrind "$log" "$server"
    "$loadgen" tables --tables "$tables" --think 100 --warmup 2 --duration 6 --port "$port" \
        --label "$1" >"$tmp/out" &
    client=$!
    sleep 3
    callgrind_control -i on "$server" >/dev/null 2>&1
    sleep 4
    callgrind_control -i off "$server" >/dev/null 2>&1
    wait "$client" || {
        echo "run_callgrind: loadgen failed against $1" >&2
        return 1
    }
    stop_server "$server"
    wait "$server" 2>/dev/null
    server=""
    ir=$(callgrind_annotate "$tmp/$1.out" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
    acts=$(callgrind_annotate --tree=caller "$tmp/$1.out" 2>/dev/null | grep -B3 '\*  .*:on_act ' |
        sed -n 's/.*(\([0-9,]*\)x).*/\1/p' | head -n 1 | tr -d ,)
    if [ -z "$ir" ] || [ -z "$acts" ] || [ "$acts" = 0 ]; then
        echo "run_callgrind: no count for $1 (a build without symbols?)" >&2
        return 1
    fi
    echo "run_callgrind: $1: $ir instructions, $acts acts, $((ir / acts)) per act"
    if [ -n "${RUN_CALLGRIND_KEEP:-}" ]; then cp "$tmp/$1.out" "$RUN_CALLGRIND_KEEP/callgrind.$1.out"; fi
}

status=0
profile tapisd || status=1
profile floor || status=1
exit $status
