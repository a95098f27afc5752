#!/bin/sh
# run_ws.sh TAPISD LOADGEN MODE [loadgen options...]
#
# WebSockets against lines on one tapisd, in one run: the same LOADGEN MODE
# command over the line protocol, then over WebSockets (loadgen --ws 1), and
# again, WS_PAIRS times (default 3: L W L W L W), against the same server,
# started once on a free port and pinned as in run_bench.sh. Prints each
# run's loadgen line, then for each transport the medians of the rate
# (requests or actions a second), p50 and p99 with their spread (min-max),
# and the ratios WebSocket/lines of the medians. The figures are
# docs/BENCHMARKS.md's "WebSockets"; the aim is a WebSocket rate of at least
# 0.8 times the lines'.
#
#   tests/bench/run_ws.sh build-release/server/tapisd build-release/tests/bench/loadgen \
#       ping --conns 50
#
# Environment: WS_PAIRS, TAPISD_ARGS, BENCH_SERVER_CPU, BENCH_CLIENT_CPU.
# Exit status: 0 when every run completed (aim met or not), 1 otherwise.
set -u
# shellcheck source=tests/bench/bench.sh
. "$(dirname "$0")/bench.sh"
take_args "TAPISD LOADGEN MODE [loadgen options...]" tapisd loadgen mode -- "$@"
shift 3
pairs=${WS_PAIRS:-3}

raise_nofile 16384
pin_cores
make_tmp tapisd-ws
# shellcheck disable=SC2086
start_tapisd run_ws "$tapisd" $budgets --db none ${TAPISD_ARGS:-}
what=$([ "$mode" = ping ] && echo requests || echo actions)
status=0
i=1
while [ "$i" -le "$pairs" ]; do
    for t in lines ws; do
        ws=""
        [ "$t" = ws ] && ws="--ws 1"
        # shellcheck disable=SC2086
        $client_pin "$loadgen" "$mode" "$@" $ws --port "$port" --label "$t $i" >"$tmp/out" ||
            { echo "run_ws: the $t run $i failed" >&2; status=1; }
        cat "$tmp/out"
        echo "$t $(figure "$tmp/out" "${what}_per_s") $(figure "$tmp/out" p50_us)" \
            "$(figure "$tmp/out" p99_us)" >>"$tmp/results"
    done
    i=$((i + 1))
done
running "$server" || { echo "run_ws: tapisd died:" >&2; tail -n 20 "$log" >&2; exit 1; }

awk -v what="$what" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" '
    function median(t, k,   n, i, j, v, a) {
        n = cnt[t]
        for (i = 1; i <= n; i++) a[i] = val[t, k, i]
        for (i = 2; i <= n; i++) { v = a[i]; for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
        lo[t, k] = a[1]; hi[t, k] = a[n]
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NF == 4 && $2 != "" { n = ++cnt[$1]; val[$1, 2, n] = $2; val[$1, 3, n] = $3; val[$1, 4, n] = $4 }
    END {
        split("rate p50_us p99_us", name, " ")
        for (t in cnt) for (k = 2; k <= 4; k++) med[t, k] = median(t, k)
        for (k = 2; k <= 4; k++) {
            r = med["lines", k] > 0 ? med["ws", k] / med["lines", k] : 0
            printf "run_ws: %s %s: lines %.1f (%.1f-%.1f), ws %.1f (%.1f-%.1f), ws/lines %.2f\n",
                what, name[k - 1], med["lines", k], lo["lines", k], hi["lines", k],
                med["ws", k], lo["ws", k], hi["ws", k], r
        }
        printf "run_ws: %d runs a transport; load average at the end %s\n", cnt["ws"], load
    }' "$tmp/results"
exit $status
