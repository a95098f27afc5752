#!/bin/sh
# run_ratio.sh TAPISD BASELINE LOADGEN MODE [loadgen options...]
#
# tapisd against a baseline under the same load in one run: RATIO_PAIRS pairs
# (default 3), tapisd first in odd pairs and the baseline first in even ones
# (A B B A A B: a drift of the machine over the set, or a run that slows the
# one after it, falls on both sides alike), each server started
# afresh on a free port, pinned as in run_bench.sh, under the same LOADGEN
# MODE command. Prints each run's loadgen line and its server figures, then
# for each side the medians with their spread (min-max), and the ratios
# tapisd/baseline of the medians (and the range of the ratios pair by pair).
#
#   BASELINE is the floor (tests/bench/floor, MODE tables): first a tapisd
#     with --seed 1 plays games with `floor record` (FLOOR_GAMES games, 32
#     by default, each cut at FLOOR_ACTS acts, 400: a table at --think 100
#     plays about 120 in 10 s), and the floor then replays the bytes tapisd
#     wrote (floor.c says how). Figures: the server's CPU per act and the
#     bytes it wrote per act (its write calls, /proc/PID/io's wchar), over
#     loadgen's measured acts; loadgen's p50 and p99.
#   BASELINE is redis-server (MODE ping, started here with no persistence):
#     requests/s, p50, p99 and the server's CPU. Exit 77 (skipped) without it.
#
# The server's CPU time and bytes are taken over a window as long as
# loadgen's measurement (--duration, 10 s), ending 0.25 s before loadgen
# exits (within its measurement and warm-up, past the set-up of the tables
# and before the connections close), from samples of /proc every 0.2 s
# interpolated at the window's ends: at a steady pace (--think) the acts of
# that window are loadgen's measured ones. The log is not counted out of
# the bytes: at the default level tapisd logs nothing in that window.
#
#   tests/bench/run_ratio.sh build-release/server/tapisd build-release/tests/bench/floor \
#       build-release/tests/bench/loadgen tables --tables 500 --think 100
#   tests/bench/run_ratio.sh build-release/server/tapisd redis-server \
#       build-release/tests/bench/loadgen ping --conns 50
#
# Environment: RATIO_PAIRS, FLOOR_GAMES, FLOOR_ACTS, TAPISD_ARGS (extra
# tapisd options), BENCH_SERVER_CPU and BENCH_CLIENT_CPU (run_bench.sh).
# RATIO_SELF=1 runs the floor in tapisd's place too (MODE tables; tapisd only
# records the script): the ratios of two identical servers, what the machine
# alone spreads a pair's ratio by.
# Exit status: 0 when every run completed (aims met or not), 77 when the
# baseline is missing, 1 otherwise.
set -u
# shellcheck source=tests/bench/bench.sh
. "$(dirname "$0")/bench.sh"
take_args "TAPISD BASELINE LOADGEN MODE [loadgen options...]" tapisd baseline loadgen mode -- "$@"
shift 4
pairs=${RATIO_PAIRS:-3}

case $mode:$(basename "$baseline") in
tables:redis-server | ping:floor*)
    echo "run_ratio: the floor answers tables, redis-server ping" >&2
    exit 2
    ;;
*:redis-server)
    base=redis
    command -v "$baseline" >/dev/null 2>&1 || {
        echo "run_ratio: no $baseline: skipped" >&2
        exit 77
    }
    ;;
*)
    base=floor
    [ -x "$baseline" ] || {
        echo "run_ratio: $baseline: not the floor (ninja -C BUILD tests/bench/floor)" >&2
        exit 2
    }
    ;;
esac

raise_nofile 16384
pin_cores
make_tmp tapisd-ratio
score=""
[ -n "$server_pin" ] && score=${BENCH_SERVER_CPU:-1}

# sample PID: "TIME CPU_TICKS WCHAR" of PID now (the system's uptime in s, its
# utime + stime in clock ticks, /proc/PID/io's wchar: bytes to write calls).
sample() {
    awk 'FILENAME == "/proc/uptime" { t = $1 }
         FILENAME ~ /stat$/ { sub(/^.*\) /, ""); c = $12 + $13 }
         $1 == "wchar:" { w = $2 }
         END { print t, c + 0, w + 0 }' /proc/uptime "/proc/$1/stat" "/proc/$1/io" 2>/dev/null
}

# start_floor SCRIPT: the floor on a free port; sets $server, $port, $log.
start_floor() {
    log=$tmp/floor.log
    : >"$log" # before the start, as in start_tapisd
    # shellcheck disable=SC2086 # $server_pin is words
    $server_pin "$baseline" serve --script "$1" 2>"$log" &
    server=$!
    tapisd_port run_ratio "$log" "$server"
}

# start_redis: redis-server on a free port; sets $server, $port, $log.
start_redis() {
    log=$tmp/redis.log
    : >"$log" # redis-server appends: an old "Ready" must not count
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # shellcheck disable=SC2086
    $server_pin "$baseline" --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
        --daemonize no --maxclients 4000 --dir "$tmp" --logfile "$log" &
    server=$!
    _i=0
    until grep -q 'Ready to accept connections' "$log" 2>/dev/null; do
        _i=$((_i + 1))
        if [ $_i -ge 100 ] || ! running "$server"; then
            echo "run_ratio: redis-server did not start on port $port" >&2
            cat "$log" >&2 2>/dev/null
            exit 1
        fi
        sleep 0.05
    done
}

# record_script: what tapisd writes for FLOOR_GAMES games, into $tmp/script.
record_script() {
    # (no pings in the script: they answer no request; the measured tapisd sends them)
    # shellcheck disable=SC2086
    start_tapisd run_ratio "$tapisd" $budgets --db none --seed 1 --ping-interval 0 ${TAPISD_ARGS:-}
    # loadgen's --target, if any, is the recording's too
    target=$(echo " $* " | sed -n 's/.* --target \([0-9][0-9]*\) .*/\1/p')
    "$baseline" record --port "$port" --out "$tmp/script" ${FLOOR_GAMES:+--games "$FLOOR_GAMES"} \
        ${FLOOR_ACTS:+--acts "$FLOOR_ACTS"} ${target:+--target "$target"} || exit 1
    stop_server "$server"
    wait "$server" 2>/dev/null
    server=""
}

# run_one WHO N [loadgen options...]: one run; appends its figures to $tmp/results as
# "WHO N cpu_us_per_act p50_us p99_us bytes_per_act per_s cpu_pct" (tables) or
# "WHO N - p50_us p99_us - per_s cpu_pct" (ping).
run_one() {
    who=$1
    n=$2
    shift 2
    case $who:${RATIO_SELF:-0} in
    tapisd:1) start_floor "$tmp/script" ;;
    tapisd:*)
        # shellcheck disable=SC2086
        start_tapisd run_ratio "$tapisd" $budgets --db none ${TAPISD_ARGS:-}
        ;;
    floor:*) start_floor "$tmp/script" ;;
    redis:*) start_redis ;;
    esac
    load=$(cut -d' ' -f1 /proc/loadavg)
    k0=$(steal_ticks "$score")
    p0=$(preempted "$server")
    rm -f "$tmp/done"
    (while [ ! -e "$tmp/done" ]; do
        sample "$server"
        sleep 0.2
    done) >"$tmp/samples" &
    sampler=$!
    # shellcheck disable=SC2086
    $client_pin "$loadgen" "$mode" "$@" --port "$port" --label "$who $n" >"$tmp/out"
    status=$?
    sample "$server" >>"$tmp/samples"
    : >"$tmp/done"
    wait "$sampler"
    p1=$(preempted "$server")
    k1=$(steal_ticks "$score")
    cat "$tmp/out"
    if [ $status -ne 0 ]; then
        echo "run_ratio: loadgen failed ($status); $who's log (tail):" >&2
        tail -n 20 "$log" >&2
    fi
    stop_server "$server"
    wait "$server" 2>/dev/null
    server=""
    if [ "$who" = floor ] || [ "${RATIO_SELF:-0}" = 1 ]; then
        desyncs=$(sed -n 's/^floor: .* desyncs=\([0-9]*\).*/\1/p' "$log")
        [ "${desyncs:-1}" = 0 ] || {
            echo "run_ratio: the floor could not replay ${desyncs:-?} requests (more acts" \
                "than FLOOR_ACTS a table?)" >&2
            status=1
        }
    fi
    [ $status -eq 0 ] || echo "run_ratio: $who run $n failed ($status)" >&2
    duration=$(echo " $* " | sed -n 's/.* --duration \([0-9.][0-9.]*\) .*/\1/p')
    ops=$(figure "$tmp/out" "$([ "$mode" = ping ] && echo requests || echo actions)")
    awk -v who="$who" -v n="$n" -v hz="$(getconf CLK_TCK)" -v d="${duration:-10}" \
        -v ops="${ops:-0}" -v load="$load" -v k="$((k1 - k0))" -v p="$((p1 - p0))" \
        -v core="${score:-all}" -v p50="$(figure "$tmp/out" p50_us)" \
        -v p99="$(figure "$tmp/out" p99_us)" -v mode="$mode" \
        -v rate="$(figure "$tmp/out" "$([ "$mode" = ping ] && echo requests || echo actions)_per_s")" \
        -v results="$tmp/results" -v ok="$status" '
        # The CPU ticks (x = 2) or bytes (x = 3) at time t, between the samples around it.
        function at(t, x,   i) {
            for (i = 2; i < ns && st[i] < t; i++)
                ;
            if (st[i] == st[i - 1]) return sv[i, x]
            return sv[i - 1, x] + (sv[i, x] - sv[i - 1, x]) * (t - st[i - 1]) / (st[i] - st[i - 1])
        }
        NF == 3 { ns++; st[ns] = $1; sv[ns, 2] = $2; sv[ns, 3] = $3 }
        END {
            tb = st[ns] - 0.25; ta = tb - d
            if (ns < 2 || ta < st[1]) { print "run_ratio: too few samples of the server" > "/dev/stderr"; exit 1 }
            s = (at(tb, 2) - at(ta, 2)) / hz; w = at(tb, 3) - at(ta, 3); pct = 100 * s / d
            if (mode == "tables" && ops > 0) {
                printf "run_ratio: %s %d: cpu %.2fs in %gs (%.0f%%), %.1f us/act; %.0f bytes " \
                       "written, %.1f/act; ", who, n, s, d, pct, 1e6 * s / ops, w, w / ops
                line = sprintf("%s %d %.3f %s %s %.1f %s %.1f", who, n, 1e6 * s / ops,
                               p50, p99, w / ops, rate, pct)
            } else {
                printf "run_ratio: %s %d: cpu %.2fs in %gs (%.0f%%); ", who, n, s, d, pct
                line = sprintf("%s %d - %s %s - %s %.1f", who, n, p50, p99, rate, pct)
            }
            printf "preempted %d times, core %s stolen %.0f ms (whole run), load %s\n", p, core,
                   1000 * k / hz, load
            if (ok == 0) print line >> results
        }' "$tmp/samples" || status=1
    return $status
}

if [ "${RATIO_SELF:-0}" = 1 ] && [ "$base" != floor ]; then
    echo "run_ratio: RATIO_SELF=1 is for the floor (MODE tables)" >&2
    exit 2
fi
if [ "$base" = floor ]; then record_script "$@"; fi
failed=0
i=1
while [ $i -le "$pairs" ]; do
    if [ $((i % 2)) = 1 ]; then
        run_one tapisd $i "$@" || failed=1
        run_one $base $i "$@" || failed=1
    else
        run_one $base $i "$@" || failed=1
        run_one tapisd $i "$@" || failed=1
    fi
    i=$((i + 1))
done

# Medians (min-max) per side, then tapisd/baseline: the ratio of the medians,
# the range of the ratios pair by pair, the median of those ratios with its
# 95 % interval, and the issue's aims.
[ -s "$tmp/results" ] || exit 1
pipeline=$(echo " $* " | sed -n 's/.* --pipeline \([0-9][0-9]*\) .*/\1/p')
awk -v base="$base" -v mode="$mode" -v pipelined="$([ "${pipeline:-1}" -gt 1 ] && echo 1)" '
    function fmt(x) { return x >= 1000 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x) }
    # a[1..n] in increasing order; its median.
    function sorted_median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    # The median of figure k of side who; its spread into lo[] and hi[].
    function med(who, k,   a, n, i, r) {
        n = 0
        for (i in v) { split(i, key, SUBSEP); if (key[1] == who && key[3] == k) a[++n] = v[i] }
        r = sorted_median(a, n)
        lo[who, k] = a[1]; hi[who, k] = a[n]; cnt[who] = n
        return r
    }
    { for (k = 3; k <= 8; k++) v[$1, $2, k] = $k; pairs[$2] = 1 }
    END {
        if (mode == "tables") { nk = split("3 4 5 6", ks, " "); split("cpu/act_us p50_us p99_us bytes/act", names, " ") }
        else { nk = split("7 4 5 8", ks, " "); split("req/s p50_us p99_us cpu%", names, " ") }
        split("tapisd " base, sides, " ")
        for (s = 1; s <= 2; s++) {
            who = sides[s]
            line = ""
            for (j = 1; j <= nk; j++) {
                m[who, j] = med(who, ks[j])
                line = line sprintf(" %s %s (%s-%s)", names[j], fmt(m[who, j]), fmt(lo[who, ks[j]]), fmt(hi[who, ks[j]]))
            }
            printf "run_ratio: %s, medians of %d (min-max):%s\n", who, cnt[who], line
        }
        # The ratios of the pairs, in order: their range, and their median with the 95 % interval
        # of that median from the order statistics, (r_k, r_(n-k+1)) for the least k with
        # P(Bin(n, 1/2) <= k) > 0.025 (six pairs at least). A p99 moves so much from run to
        # run that this says more than the ratio of the medians alone.
        printf "run_ratio: tapisd/%s:", base
        line = ""
        for (j = 1; j <= 3; j++) {
            n = 0
            split("", rr)
            for (p in pairs)
                if (v[base, p, ks[j]] > 0 && (("tapisd", p, ks[j]) in v))
                    rr[++n] = v["tapisd", p, ks[j]] / v[base, p, ks[j]]
            if (n == 0) continue
            mr = sorted_median(rr, n)
            ratio[j] = m[base, j] > 0 ? m["tapisd", j] / m[base, j] : 0
            printf " %s %.2fx (pairs %.2f-%.2f)", names[j], ratio[j], rr[1], rr[n]
            c = 0; pk = 0.5 ^ n; k = 0
            for (x = 0; x <= n; x++) {
                c += pk
                if (c > 0.025) { k = x; break }
                pk = pk * (n - x) / (x + 1)
            }
            line = line sprintf(" %s %.2fx", names[j], mr)
            if (k >= 1) line = line sprintf(" (%.2f-%.2f)", rr[k], rr[n - k + 1])
        }
        printf "\n"
        printf "run_ratio: tapisd/%s, median of the pairs\047 ratios (95%% interval%s):%s\n", base,
            (k >= 1 ? "" : ": none under 6 pairs"), line
        if (mode == "tables")
            printf "run_ratio: aim cpu/act <= 1.5x: %s; aim p99 <= 1.5x: %s\n",
                (ratio[1] <= 1.5 ? "met" : "not met"), (ratio[3] <= 1.5 ? "met" : "not met")
        else
            printf "run_ratio: aim req/s >= %sx: %s\n", (pipelined ? "0.9" : "1.0"),
                (ratio[1] >= (pipelined ? 0.9 : 1.0) ? "met" : "not met")
    }' "$tmp/results"
exit $failed
