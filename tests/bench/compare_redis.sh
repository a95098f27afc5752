#!/bin/sh
# compare_redis.sh [BUILD_DIR] [DURATION_S]
#
# The issue's aim: tapisd's `ping` at least as fast as Redis's inline PING,
# measured on the same machine with the same client (loadgen, one core) and
# each server pinned to one other core. Runs `loadgen ping` with 50 and with
# 1,000 connections against redis-server (started here on 127.0.0.1:6399,
# no persistence, stopped afterwards) and against tapisd (run_bench.sh), and
# prints the figures one line each. Not a meson test: it needs redis-server
# (Debian: apt-get install redis-server).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/bench.sh
. "$here/bench.sh"
build=${1:-build}
duration=${2:-10}
loadgen=$build/tests/bench/loadgen
tapisd=$build/server/tapisd
port=${REDIS_PORT:-6399}
for f in "$loadgen" "$tapisd"; do
    [ -x "$f" ] || { echo "compare_redis: $f not built (ninja -C $build)" >&2; exit 2; }
done
command -v redis-server >/dev/null 2>&1 || { echo "compare_redis: no redis-server" >&2; exit 2; }

raise_nofile 4096
pin_cores

make_tmp compare-redis

# redis-server in the foreground of a background job, so that its pid is ours.
# shellcheck disable=SC2086
$server_pin redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize no --maxclients 4000 --dir "$tmp" --logfile "$tmp/redis.log" &
server=$!
i=0
until "$loadgen" ping --port "$port" --conns 1 --warmup 0 --duration 0.05 >/dev/null 2>&1; do
    i=$((i + 1))
    if [ $i -ge 50 ] || ! running "$server"; then
        echo "compare_redis: redis-server did not start on port $port" >&2
        cat "$tmp/redis.log" >&2 2>/dev/null
        exit 1
    fi
    sleep 0.1
done

echo "# redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p'), $("$tapisd" --version 2>&1 | head -n 1); client: loadgen, ${duration}s each"
status=0
# One request in flight per connection, then 16 (pipelined, redis-benchmark -P 16).
runs="50:1 1000:1 50:16"
for r in $runs; do
    n=${r%:*} p=${r#*:}
    # shellcheck disable=SC2086
    $client_pin "$loadgen" ping --port "$port" --conns "$n" --pipeline "$p" \
        --duration "$duration" --label "redis ping-$n-P$p" || status=1
done
stop_server "$server"
wait "$server" 2>/dev/null
server=""
for r in $runs; do
    n=${r%:*} p=${r#*:}
    "$here/run_bench.sh" "$tapisd" "$loadgen" ping --conns "$n" --pipeline "$p" \
        --duration "$duration" --label "tapisd ping-$n-P$p" || status=1
done
exit $status
