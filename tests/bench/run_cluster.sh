#!/bin/sh
# run_cluster.sh TAPISD LOADGEN [TABLES] — what a cluster costs, and how long
# a takeover takes (issue 15). Starts its own redis-server on a free port.
#
#   1. one node, no Redis: LOADGEN tables --tables TABLES --think 100, then
#      the same tables saturated (--think 0)
#   2. the same two loads on three nodes sharing a Redis, every table's two
#      players connected to two different nodes (loadgen --ports): at least
#      one of them, and on average more, is served through a relay
#   3. a takeover: 3 x TABLES tables played 3 s on the three nodes, then the
#      node hosting the most is killed with SIGKILL; the other two claim and
#      rebuild its tables; reported: the tables it hosted, those taken over,
#      the time from the kill to the last table back (log times; it includes
#      the --node-ttl of 3 s before the node is known dead) and the longest
#      rebuild on one node
#
# Used by the meson benchmark cluster-500; by hand:
#   tests/bench/run_cluster.sh build-rel/server/tapisd build-rel/tests/bench/loadgen 500
# Two cores run three nodes, Redis and the load generator here: the figures
# are what one machine can show, not what three would.
set -u
# shellcheck source=tests/bench/bench.sh
. "$(dirname "$0")/bench.sh"
take_args "TAPISD LOADGEN [TABLES]" tapisd loadgen -- "$@"
tables=${3:-500}
common="$budgets --db none --turn-timer 0 --reconnect-window 10m --log-level info"
raise_nofile 16384
make_tmp tapisd-cluster
redis=""
nodes=""
cleanup() {
    for p in $nodes $redis; do stop_server "$p"; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_redis() {
    rport=$(free_port)
    redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no \
        >"$tmp/redis.log" 2>&1 &
    redis=$!
    _i=0
    until redis-cli -p "$rport" ping >/dev/null 2>&1; do
        _i=$((_i + 1))
        [ $_i -lt 100 ] || { echo "run_cluster: redis-server did not start" >&2; exit 1; }
        sleep 0.05
    done
}

# start_nodes N: N nodes on the Redis; sets $nodes, $ports (comma list), $pids
start_nodes() {
    ports=""
    nodes=""
    for i in $(seq 1 "$1"); do
        l=$tmp/node$i.log
        # shellcheck disable=SC2086
        "$tapisd" --listen 127.0.0.1:0 $common --redis "127.0.0.1:$rport" --node-id "n$i" 2>"$l" &
        pid=$!
        nodes="$nodes $pid"
        tapisd_port run_cluster "$l" "$pid"
        ports="${ports:+$ports,}$port"
    done
    sleep 1.5 # every node has seen the others (a heartbeat is 1 s)
}

stop_nodes() {
    for p in $nodes; do stop_server "$p"; done
    nodes=""
    [ -n "$redis" ] && stop_server "$redis"
    redis=""
}

status=0
# 1. One node alone, then 2. three nodes with players on the wrong node; each
# load on servers of its own (a session holds its name while its seats are held).
for think in 100 0; do
    suffix=""
    [ "$think" = 0 ] && suffix="-saturated"
    # shellcheck disable=SC2086
    "$tapisd" --listen 127.0.0.1:0 $common 2>"$tmp/alone.log" &
    nodes=$!
    tapisd_port run_cluster "$tmp/alone.log" "$nodes"
    "$loadgen" tables --tables "$tables" --think "$think" --port "$port" \
        --label "one-node$suffix" || status=1
    stop_nodes

    start_redis
    start_nodes 3
    "$loadgen" tables --tables "$tables" --think "$think" --ports "$ports" \
        --label "three-nodes-relayed$suffix" || status=1
    links=0
    for i in 1 2 3; do links=$((links + $(grep -c ': link to node' "$tmp/node$i.log"))); done
    echo "run_cluster: links opened by the three nodes: $links"
    stop_nodes
done

# 3. A takeover.
start_redis
start_nodes 3
"$loadgen" tables --tables $((3 * tables)) --think 100 --duration 3 --warmup 0 --ports "$ports" \
    --label takeover-load >"$tmp/load3.out" 2>&1 || { cat "$tmp/load3.out" >&2; status=1; }
# the node with the most rooms
victim=""
most=-1
i=0
for pid in $nodes; do
    i=$((i + 1))
    n=$(redis-cli -p "$rport" scard "tapis:node:n$i:rooms")
    if [ "$n" -gt "$most" ]; then most=$n victim=$i victim_pid=$pid; fi
done
t_kill=$(date +%s.%N)
kill -KILL "$victim_pid"
wait "$victim_pid" 2>/dev/null
nodes=$(echo "$nodes" | tr ' ' '\n' | grep -vx "$victim_pid" | tr '\n' ' ')
taken=0
_i=0
while [ $_i -lt 300 ]; do
    taken=$(cat "$tmp"/node*.log | sed -n "s/.*node n$victim is gone; \([0-9]*\) of its.*/\1/p" |
        awk '{ n += $1 } END { print n + 0 }')
    done_nodes=$(grep -l "node n$victim is gone" "$tmp"/node*.log 2>/dev/null | wc -l)
    [ "$done_nodes" -ge 2 ] && break
    sleep 0.1
    _i=$((_i + 1))
done
last=$(grep -h "node n$victim is gone" "$tmp"/node*.log | cut -d' ' -f1 | sort | tail -n 1)
rebuild=$(sed -n "s/.*node n$victim is gone; .* here in \([0-9]*\) ms.*/\1/p" "$tmp"/node*.log |
    sort -n | tail -n 1)
t_last=$(date -d "$last" +%s.%N 2>/dev/null || echo "$t_kill")
echo "mode=takeover tables_on_dead_node=$most taken_over=$taken" \
    "kill_to_last_table_ms=$(echo "$t_last $t_kill" | awk '{ printf "%.0f", ($1 - $2) * 1000 }')" \
    "longest_rebuild_ms=${rebuild:-?}"
if [ "$taken" -lt "$most" ]; then
    echo "run_cluster: $most tables on the dead node, $taken taken over" >&2
    status=1
fi
exit $status
