#!/bin/sh
# compare_redis.sh [BUILD_DIR] [DURATION_S]
#
# The issue's aim: tapisd's `ping` at least as fast as Redis's inline PING
# (at least 0.9 times pipelined), measured on the same machine with the same
# client (loadgen, one core) and each server pinned to one other core. For
# 50 connections, 1,000 connections and 50 connections with 16 pings in
# flight, run_ratio.sh runs tapisd and redis-server alternately, three pairs
# (RATIO_PAIRS), DURATION_S seconds each (10), and prints every run, the
# medians with their spread and the ratios tapisd/redis. The same runs are
# the meson benchmarks ratio-ping-* (10 s each). Needs redis-server
# (Debian: apt-get install redis-server).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
duration=${2:-10}
loadgen=$build/tests/bench/loadgen
tapisd=$build/server/tapisd
for f in "$loadgen" "$tapisd"; do
    [ -x "$f" ] || { echo "compare_redis: $f not built (ninja -C $build)" >&2; exit 2; }
done
command -v redis-server >/dev/null 2>&1 || { echo "compare_redis: no redis-server" >&2; exit 2; }

echo "# redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p'), $("$tapisd" --version 2>&1 | head -n 1); client: loadgen, ${duration}s each"
status=0
# One request in flight per connection, then 16 (pipelined, redis-benchmark -P 16).
for r in 50:1 1000:1 50:16; do
    n=${r%:*} p=${r#*:}
    echo "# ping, $n connections, $p in flight"
    "$here/run_ratio.sh" "$tapisd" redis-server "$loadgen" ping --conns "$n" --pipeline "$p" \
        --duration "$duration" || status=1
done
exit $status
