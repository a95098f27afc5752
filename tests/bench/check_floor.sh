#!/bin/sh
# check_floor.sh TAPISD FLOOR — the floor writes tapisd's bytes (floor.c).
#
# Records games from a tapisd started with --seed 1 (`floor record`), serves
# that script with `floor serve`, records the same games again from the
# floor, and compares the two scripts byte for byte: every line the floor
# wrote for every request (hello, create, join, each act, the leaves) must
# be the line tapisd wrote. Twice: 4 games cut at 300 acts (what the
# benchmarks replay), and 3 whole games to a target of 30 (game_over, the
# leaves in both orders, a new room on the same connections). The meson
# test floor_replays_tapisd.
set -u
# shellcheck source=tests/bench/bench.sh
. "$(dirname "$0")/bench.sh"
take_args "TAPISD FLOOR" tapisd floor -- "$@"
make_tmp check-floor
server_pin="" # no pinning (nor pin_cores, which moves the script): a test, not a measure

# check NAME [floor record options...]
check() {
    name=$1
    shift
    # (no pings: they answer no request, and come when the clock says)
    # shellcheck disable=SC2086
    start_tapisd check_floor "$tapisd" $budgets --db none --seed 1 --ping-interval 0
    "$floor" record --port "$port" --out "$tmp/$name.tapisd" "$@" 2>"$tmp/record.log" ||
        { cat "$tmp/record.log" >&2; exit 1; }
    stop_server "$server"
    wait "$server" 2>/dev/null
    log=$tmp/floor.log
    : >"$log" # before the start: tapisd_port must not read the last run's port
    "$floor" serve --script "$tmp/$name.tapisd" 2>"$log" &
    server=$!
    tapisd_port check_floor "$log" "$server"
    "$floor" record --port "$port" --out "$tmp/$name.floor" "$@" 2>"$tmp/record.log" ||
        { cat "$tmp/record.log" >&2; exit 1; }
    stop_server "$server"
    wait "$server" 2>/dev/null
    server=""
    if ! cmp "$tmp/$name.tapisd" "$tmp/$name.floor"; then
        echo "check_floor: $name: the floor's bytes differ from tapisd's" >&2
        exit 1
    fi
    echo "check_floor: $name: $(grep -c '^step act' "$tmp/$name.tapisd") acts," \
        "$(wc -c <"$tmp/$name.tapisd") bytes of script, the same from both"
}

check cut --games 4 --acts 300
check whole --games 3 --acts 100000 --target 30
