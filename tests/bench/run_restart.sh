#!/bin/sh
# run_restart.sh TAPISD LOADGEN [TABLES] — how long a restart takes with
# TABLES (default 1,000) unfinished tables in the database.
#
# Starts TAPISD on a fresh database, lets LOADGEN play TABLES tables of 233 at
# full speed for a few seconds (each table's journal grows to tens of
# entries), stops the server with SIGTERM (the tables are kept), then starts
# it again on the same database and reports what the restart logged: the
# tables restored and the time from the start of the restore to the end, and
# the wall time from exec to "listening on". Twice, the second on a warm
# page cache. Used by the meson benchmark restart-1000; by hand:
#
#   tests/bench/run_restart.sh build-rel/server/tapisd build-rel/tests/bench/loadgen 1000
set -u
# shellcheck source=tests/bench/bench.sh
. "$(dirname "$0")/bench.sh"
take_args "TAPISD LOADGEN [TABLES]" tapisd loadgen -- "$@"
tables=${3:-1000}
raise_nofile 16384
pin_cores
make_tmp tapisd-restart
db="--db $tmp/restart.db --reconnect-window 10m --turn-timer 0"

# shellcheck disable=SC2086
start_tapisd run_restart "$tapisd" $budgets $db
# shellcheck disable=SC2086
$client_pin "$loadgen" tables --tables "$tables" --duration 3 --warmup 0 --port "$port" \
    --label restart-load >"$tmp/loadgen.out" 2>&1 || {
    echo "run_restart: loadgen failed; its output and the server log (tail):" >&2
    cat "$tmp/loadgen.out" >&2
    tail -n 20 "$log" >&2
    exit 1
}
stop_server "$server"
wait "$server" 2>/dev/null
server=""

status=0
for run in 1 2; do
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    start_tapisd run_restart "$tapisd" $budgets $db
    t1=$(date +%s%N)
    line=$(grep -o 'store .*: [0-9]* tables and [0-9]* sessions restored in [0-9]* ms' "$log")
    restored=$(echo "$line" | sed -n 's/.*: \([0-9]*\) tables and.*/\1/p')
    restore_ms=$(echo "$line" | sed -n 's/.* restored in \([0-9]*\) ms/\1/p')
    entries=$(sed -n 's/.*, \([0-9]*\) journal entries).*/\1/p' "$log" | awk '{ n += $1 } END { print n + 0 }')
    # tapisd_port polls every 50 ms: the wall time is that coarse.
    echo "mode=restart run=$run tables=$tables restored=${restored:-0} journal_entries=$entries" \
        "restore_ms=${restore_ms:-?}" \
        "exec_to_listening_ms=$(((t1 - t0) / 1000000))"
    if [ "${restored:-0}" -lt "$tables" ]; then
        echo "run_restart: $tables tables played, ${restored:-0} restored" >&2
        tail -n 20 "$log" >&2
        status=1
    fi
    stop_server "$server"
    wait "$server" 2>/dev/null
    server=""
done
exit $status
