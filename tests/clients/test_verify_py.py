"""clients/examples/verify.py replays finished games by its own rules.

verify.py's tapis_rules/ are the games' rules in plain Python, apart from
the C core. Records of many finished games (tests/core/game_records: played
through core/, dealt by deal version 1 from fixed seeds, with every player
count, random and greedy seats, ticks and deadlines settled by acts) must
all verify; tampered copies (a move, a seed, the result changed) must fail,
each naming its first difference, and exactly when `tapis verify` (the C
core's replay) fails them too, at the same entry.

Environment: TAPIS, GAME_RECORDS.
"""
import json
from collections import Counter
import os
import random
import re
import subprocess
import sys
import tempfile

from clientutil import TIMEOUT, check, run

TAPIS = os.environ["TAPIS"]
GAME_RECORDS = os.environ["GAME_RECORDS"]
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "examples")
VERIFY_PY = os.path.join(EXAMPLES, "verify.py")
sys.path.insert(0, EXAMPLES)
import verify  # noqa: E402

# The games whose rules verify.py has, and how many records of each the test
# replays: (options, count) runs of game_records, with fixed seeds.
RUNS = {
    "slap": [({}, 150), ({"go_ms": 0, "stall_ms": 0, "max_stalls": 2, "max_rounds": 5}, 100)],
    "seqnum": [({}, 200), ({"teams": 3}, 60), ({"max_turns": 30}, 40)],
    "aspoint3": [({}, 100), ({"packs": 3}, 40), ({"packs": 4, "pack_scoring": "total"}, 40),
                 ({"rounds": 5, "target": 100}, 40)],
    "233": [({}, 15), ({"target": 80}, 50), ({"declare": "may", "take": "draw", "target": 100}, 30),
            ({"claim_sequences": True, "dispute_ms": 0, "target": 100}, 30),
            ({"max_rebuilds": 0, "target": 60}, 30),
            ({"max_rebuilds": 20, "declare": "may", "target": 60, "dispute_ms": 1000}, 30)],
}
# The rules each game's records must bring into play (the rules' `seen`).
SEEN = {
    "slap": ["slap", "last pile", "stall", "move", "round ended blocked", "round ended by slaps",
             "round with fewer than 11 cards", "end: a player out", "end: max_rounds"],
    "seqnum": ["rebuilt draw pile", "lapsed draw", "trade", "pass", "minus", "sequence",
               "sequence with a corner", "end: sequences", "end: max_turns"],
    "aspoint3": ["swap", "challenge won", "challenge lost", "210 bonus", "drawn round"],
    "233": ["+5 dealt", "+5 drawn", "-5 dealt", "-5 drawn and given", "claim out of turn",
            "disputed claim", "discard taken to win", "take", "meld: sequence with a joker",
            "meld: square with a joker", "meld: triple with a joker", "square laid with a joker",
            "rebuilt draw pile", "reverse", "stop", "round with the pile run out",
            "declared: 2-3-3", "declared: 2-3-4", "declared: 2-4-4", "declared: rainbow",
            "declared: super sequence", "declare before drawing"],
}
# The player counts of each game.
SEATS = {"slap": [2, 3, 4, 5, 6], "seqnum": [2, 3, 4, 6], "aspoint3": [2], "233": [2, 3, 4, 5, 6]}


# The suite 'soak' replays SCALE times as many games (TAPIS_VERIFY_PY_SCALE).
SCALE = int(os.environ.get("TAPIS_VERIFY_PY_SCALE", "1"))


def records(game, options, count, seed):
    p = subprocess.run([GAME_RECORDS, game, str(count), str(seed), json.dumps(options)],
                       capture_output=True, text=True, timeout=TIMEOUT * 3, check=True)
    return [json.loads(line) for line in p.stdout.splitlines()]


_cache = {}


def all_records(game):
    if game not in _cache:
        _cache[game] = [r for i, (o, n) in enumerate(RUNS[game])
                        for r in records(game, o, n * SCALE, 11 + i)]
    return _cache[game]


def py_check(record, seen=None):
    """verify.py's check in this process: None when it verifies, else its
    message; adds the rules that came into play to `seen`."""
    try:
        found = verify.check(record)
    except verify.Differs as e:
        return str(e)
    if seen is not None:
        seen.update(found["game"].seen)
    return None


def on_file(record, *argv):
    """The command argv with the record saved to a file as its last argument."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(record, f)
    try:
        return subprocess.run([*argv, f.name], capture_output=True, text=True, timeout=TIMEOUT * 3)
    finally:
        os.unlink(f.name)


def c_check(record):
    """`tapis verify --record`: None when it verifies, else its message."""
    p = on_file(record, TAPIS, "verify", "--record")
    assert p.returncode in (0, 1), p
    return None if p.returncode == 0 else p.stderr


@check
def every_untampered_record_replays_to_its_result():
    for game in RUNS:
        recs, seen = all_records(game), Counter()
        for r in recs:
            assert py_check(r, seen) is None, (game, r["id"], py_check(r))
        seats = sorted(set(r["players"] for r in recs))
        print("  %s: %d records verified, %s players; %s" % (game, len(recs), seats, dict(seen)))
        assert seats == SEATS[game], (game, seats)
        missing = [k for k in SEEN[game] if not seen[k]]
        assert not missing, (game, missing)


@check
def verify_py_says_what_it_replayed():
    for game in RUNS:
        p = on_file(all_records(game)[0], sys.executable, VERIFY_PY, "--record")
        assert p.returncode == 0, p
        assert re.search(r"verified: \d+ moves and ticks replayed by the rules to the recorded "
                         r"result \{", p.stdout), p.stdout


def acts(r):
    return [e for e in r["actions"] if e["kind"] == "act"]


def copy(r):
    return json.loads(json.dumps(r))


def entry_named(message):
    m = re.search(r"entry (\d+)", message or "")
    return int(m.group(1)) if m else None


def changed_move(r, rng):
    """A move replaced by another of the same game's moves (another act's data
    from elsewhere in the record, or one field changed)."""
    t = copy(r)
    a = acts(t)
    e = rng.choice(a)
    if rng.random() < 0.5:
        e["data"] = copy(rng.choice(a)["data"])
    else:
        ints = [k for k, v in e["data"].items() if isinstance(v, int) and not isinstance(v, bool)]
        if ints:
            k = rng.choice(ints)
            e["data"][k] = e["data"][k] + 1
        else:
            e["seat"] = (e["seat"] + 1) % t["players"]
    return t, "entry %d" % e["n"]


@check
def a_changed_move_fails_where_the_c_core_says():
    rng = random.Random(5)
    for game in RUNS:
        refused = same = 0
        for r in all_records(game)[:40]:
            t, _ = changed_move(r, rng)
            py, c = py_check(t), c_check(t)
            assert (py is None) == (c is None), (game, r["id"], py, c)
            if py is not None:
                refused += 1
                assert entry_named(py) == entry_named(c) or "result" in py, (game, py, c)
                same += entry_named(py) == entry_named(c)
        assert refused >= 20, (game, refused)
        print("  %s: %d of 40 changed moves refused, %d at the same entry as tapis verify"
              % (game, refused, same))


@check
def a_changed_seed_deals_other_cards_and_fails():
    for game in RUNS:
        for r in all_records(game)[:15]:
            t = copy(r)
            seeds = [e for e in t["actions"] if e["kind"] == "seed"]
            if seeds:
                seeds[0]["data"]["seed"] += "!"
            else:
                t["deal"]["server_seed"] = t["deal"]["server_seed"][::-1]
                t["deal"]["commit"] = verify.commitment(bytes.fromhex(t["deal"]["server_seed"])).hex()
            py = py_check(t)
            assert py is not None and re.search(r"^entry \d+|^the result|ends before", py), \
                (game, r["id"], py)


@check
def a_changed_result_fails_naming_its_field():
    for game in RUNS:
        for r in all_records(game)[:10]:
            t = copy(r)
            key = sorted(k for k, v in t["result"].items() if k != "winners" and isinstance(v, list)
                         and v and all(isinstance(x, int) for x in v))[0]
            v = t["result"][key]
            v[-1] += 1
            py = py_check(t)
            assert py is not None and "result.%s[%d]" % (key, len(v) - 1) in py, (game, py)
            t = copy(r)
            t["result"]["winners"] = [w for w in range(t["players"]) if w not in r["result"]["winners"]]
            py = py_check(t)
            assert py is not None and "result.winners" in py, (game, py)


@check
def a_changed_option_fails():
    """A target no score reached: the recorded game would not have ended; an
    option of another type, or of no such name, is refused as it is."""
    for game, option, v, says in [("233", "target", 100000, "ends before the game does"),
                                  ("aspoint3", "target", 10000, "the rules refuse it"),  # other new packs
                                  ("slap", "max_rounds", "3", "options: slap has no option"),
                                  ("seqnum", "no_such_option", 1, "has no option no_such_option")]:
        t = copy(all_records(game)[2])
        t["options"][option] = v
        py = py_check(t)
        assert py is not None and says in py, (game, py)
        assert c_check(t) is not None, game


@check
def the_command_line_exits_1_naming_the_first_difference():
    game = list(RUNS)[0]
    r = copy(all_records(game)[1])
    e = acts(r)[len(acts(r)) // 2]
    e["data"] = {"type": "no such move"}
    p = on_file(r, sys.executable, VERIFY_PY, "--record")
    assert p.returncode == 1 and p.stdout == "", p
    assert "entry %d (act seat %d" % (e["n"], e["seat"]) in p.stderr, p.stderr
    assert "unknown_action" in p.stderr, p.stderr


if __name__ == "__main__":
    sys.exit(run())
