#!/bin/sh
# run_abuse.sh TAPISD ABUSE ATTACK [abuse options...]
#
# Starts TAPISD on a free port of 127.0.0.1 (pinned to one core when taskset
# is there and the machine has two cores or more) with the options ATTACK
# needs, runs ABUSE ATTACK against it (pinned to another core, bounded in
# time), checks that the server is still alive, stops it and exits non-zero
# if the attack failed (server dead or hung, see abuse.c). Used by the meson
# benchmarks of the suite 'abuse' and handy by hand:
#
#   tests/bench/run_abuse.sh build/server/tapisd build/tests/bench/abuse ping-storm
#   meson test -C build-release --benchmark --suite abuse -v
#
# Server options per attack: idle-10k runs with --max-conns 20000
# --max-conns-per-ip 0 --conn-rate 0, ping-storm with --max-conns-per-ip 0 --conn-rate 0,
# room-flood-50 with --conn-rate 0; every other
# attack meets the server's defaults. An option this tapisd does not list in
# --help is left out, with a note (an older server). TAPISD_ARGS adds server
# options (after these, unfiltered), e.g. TAPISD_ARGS="--line-rate 0".
# Environment: BENCH_SERVER_CPU (default 1), BENCH_CLIENT_CPU (default 0),
# ABUSE_DURATION (seconds of attack, default 5).
set -u
# shellcheck source=tests/bench/bench.sh
. "$(dirname "$0")/bench.sh"
take_args "TAPISD ABUSE ATTACK [abuse options...]" tapisd abuse attack -- "$@"
shift 3
duration=${ABUSE_DURATION:-5}

case $attack in
idle-10k) wanted="--max-conns 20000 --max-conns-per-ip 0 --conn-rate 0" ;;
ping-storm) wanted="--max-conns-per-ip 0 --conn-rate 0" ;;
# 50 sessions from one address at once: the per-address budget of new
# connections would refuse the tenth on; the room budgets are what is measured.
room-flood-50) wanted="--conn-rate 0" ;;
*) wanted="" ;;
esac

# 10,000 connections on each side of one machine, plus the server's own fds.
raise_nofile 20000
if [ "$attack" = idle-10k ] && [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 10100 ]; then
    echo "run_abuse: note: ulimit -n is $(ulimit -n); idle-10k needs about 10,100" >&2
fi

# Keep only the options this tapisd knows (pairs: --name value).
help=$("$tapisd" --help 2>&1)
server_args=""
set -f
for w in $wanted; do
    case $w in
    --*)
        name=$w
        continue
        ;;
    esac
    if printf '%s\n' "$help" | grep -Eq -- "${name}([ =]|\$)"; then
        server_args="$server_args $name $w"
    else
        echo "run_abuse: note: this tapisd has no $name; running without '$name $w'" >&2
    fi
done
set +f

pin_cores
bound=""
if command -v timeout >/dev/null 2>&1; then
    # abuse stops itself well before this (15 s set-up, 3 x duration, 7 s).
    bound="timeout -k 5 $((30 + 3 * ${duration%.*} + 25))"
fi

make_tmp tapisd-abuse
# The default log level (info), as in production.
# shellcheck disable=SC2086
start_tapisd run_abuse "$tapisd" $server_args --db none ${TAPISD_ARGS:-}

t0=$(date +%s.%N)
c0=$(cpu_ticks "$server")
l0=$(wc -l <"$log")
# shellcheck disable=SC2086
$bound $client_pin "$abuse" "$attack" --port "$port" --pid "$server" --duration "$duration" "$@"
status=$?
c1=$(cpu_ticks "$server")
t1=$(date +%s.%N)
l1=$(wc -l <"$log")
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" \
    -v lines=$((l1 - l0)) -v a="$attack" -v args="$server_args ${TAPISD_ARGS:-}" \
    'BEGIN { s = (c1 - c0) / hz; w = t1 - t0;
             gsub(/^ +| +$/, "", args); if (args == "") args = "(defaults)";
             printf "run_abuse: %s: tapisd %s: cpu %.2fs in %.2fs (%.0f%%), %d log lines\n",
                    a, args, s, w, 100 * s / w, lines }'
if ! running "$server"; then
    echo "run_abuse: $attack: tapisd is dead; server log (tail):" >&2
    tail -n 20 "$log" >&2
    [ $status -eq 0 ] && status=1
elif [ $status -ne 0 ]; then
    [ $status -eq 124 ] && echo "run_abuse: $attack: abuse did not stop in time" >&2
    echo "run_abuse: $attack failed ($status); server log (tail):" >&2
    tail -n 20 "$log" >&2
fi
exit $status
