"""Provable deals (docs/FAIRNESS.md) against a real tapisd.

The test vectors: core's (tests/core/deal_vectors), the plain Python
example's (clients/examples/verify.py --vectors) and the page's agree. The
`seed` command: taken from seated players until the start, refused with a
clear code otherwise; the commitment published in `room` events and the
first `state` before the deal, the server seed and seeds revealed in
`game_over`. `tapis verify`, `tapis-bot --verify` and verify.py (by its own
rules, tests/clients/test_verify_py.py) pass on real finished games of all
four games; a record with any field changed fails
with the first difference named.

Environment: TAPISD, TAPIS, TAPIS_BOT, DEAL_VECTORS.
"""
import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from clientutil import TIMEOUT, Server, check, run

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from harness import Player, play  # noqa: E402

TAPISD = os.environ["TAPISD"]
TAPIS = os.environ["TAPIS"]
TAPIS_BOT = os.environ["TAPIS_BOT"]
DEAL_VECTORS = os.environ["DEAL_VECTORS"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
VERIFY_PY = os.path.join(ROOT, "clients", "examples", "verify.py")
FAIRNESS = os.path.join(ROOT, "docs", "FAIRNESS.md")

# Short games of each game, against one server bot.
SHORT = {"233": ["--option", "target=40"], "aspoint3": ["--option", "rounds=1"],
         "seqnum": ["--option", "max_turns=60"], "slap": ["--option", "max_rounds=3"]}

_fixture = None


class Fixture:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="tapis-fair-")
        self.db = os.path.join(self.dir, "tapis.db")
        self.server = Server(TAPISD, "--db", self.db, "--bot-delay", "1", "--turn-timer", "0")
        self.games = {}   # game -> finished room id (tapis-bot --verify played it)
        for game, opts in SHORT.items():
            before = self.rooms()
            p = subprocess.run([TAPIS_BOT, self.server.address, "--game", game, "--players", "2",
                                "--bots", "1", "--games", "1", "--verify", "--seed", "7", *opts],
                               capture_output=True, text=True, timeout=300)
            assert p.returncode == 0, (game, p.stdout, p.stderr)
            assert "deals verified 1/1" in p.stdout, p.stdout
            self.games[game] = sorted(set(self.rooms()) - set(before), key=int)[-1]

    def rooms(self):
        c = self.server.connect("lister%d" % random.randrange(10 ** 9))
        r = c.ok("history", all=True, limit=100)
        c.close()
        return [g["id"] for g in r["games"]]

    def record(self, room):
        c = self.server.connect("rec%d" % random.randrange(10 ** 9))
        r = c.ok("replay", game_id=room)
        c.close()
        return r["record"]


def fixture():
    global _fixture
    if _fixture is None:
        _fixture = Fixture()
    return _fixture


def tapis_verify(*args):
    return subprocess.run([TAPIS, *args], capture_output=True, text=True, timeout=TIMEOUT * 3)


def verify_py(*args):
    return subprocess.run([sys.executable, VERIFY_PY, *args], capture_output=True, text=True,
                          timeout=TIMEOUT * 3)


def blake(hexseed):
    return hashlib.blake2b(bytes.fromhex(hexseed), digest_size=32).hexdigest()


# --------------------------------------------------------------------------
# The rule's vectors
# --------------------------------------------------------------------------

@check
def the_vectors_of_c_python_and_the_page_agree():
    c = subprocess.run([DEAL_VECTORS], capture_output=True, text=True, timeout=TIMEOUT, check=True)
    want = json.loads(c.stdout)
    assert len(want["vectors"]) == 2 and want["version"] == "tapis-deal-v1", want
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(c.stdout)
    try:
        py = verify_py("--vectors", f.name)
    finally:
        os.unlink(f.name)
    assert py.returncode == 0, py.stderr
    got = json.loads(py.stdout)
    for a, b in zip(want["vectors"], got["vectors"]):
        for k in a:
            assert a[k] == b[k], "vector %s: C %r, Python %r" % (k, a[k], b[k])
    assert got == want
    # The page shows them (all but the fresh decks, which it describes).
    with open(FAIRNESS, encoding="utf-8") as f:
        text = f.read()
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)\n```", text, re.S)]
    shown = [{k: v for k, v in c.items() if k != "fresh"} for c in want["vectors"]]
    assert blocks == shown, "docs/FAIRNESS.md's vectors are not deal_vectors' output"
    # Each first deck is its fresh deck shuffled; no two games' or cases' streams are alike.
    for c in want["vectors"]:
        for g, deck in c["first_decks"].items():
            assert sorted(deck) == sorted(c["fresh"][g]) and deck != c["fresh"][g], g
        assert blake(c["server_seed"]) == c["commit"]


# --------------------------------------------------------------------------
# Seeds and the commitment over the protocol
# --------------------------------------------------------------------------

def room_events(c, room):
    return [e for e in c.events if e.get("ev") == "room" and e.get("room") == room]


@check
def seeds_are_taken_from_seated_players_until_the_start():
    f = fixture()
    a = f.server.connect("ann%d" % random.randrange(10 ** 6))
    b = f.server.connect("bob%d" % random.randrange(10 ** 6))
    w = f.server.connect("wat%d" % random.randrange(10 ** 6))
    room = a.ok("create", game="aspoint3", players=2, options={"rounds": 1})["room"]
    first = a.event(lambda e: e.get("ev") == "room" and e.get("room") == room)
    deal = first["deal"]
    commit = deal["commit"]
    assert re.fullmatch(r"[0-9a-f]{64}", commit) and deal["version"] == 1, deal
    assert deal["seeded"] == [False, False] and "server_seed" not in deal, deal
    # A seat's seed: the room event marks it, the commitment stays.
    assert a.ok("seed", room=room, text="ann's own seed")["room"] == room
    e = a.event(lambda e: e.get("ev") == "room" and e.get("room") == room)
    assert e["deal"] == {"version": 1, "commit": commit, "seeded": [True, False]}, e
    # Refusals, each with its code, changing nothing.
    w.ok("watch", room=room)
    r = w.request("seed", room=room, text="x")
    assert r["error"]["code"] == "not_seated", r
    r = a.request("seed", room=room, text="y" * 65)
    assert r["error"]["code"] == "seed_too_long", r
    r = a.request("seed", room=room, text="tab\there")
    assert r["error"]["code"] == "bad_text", r
    r = a.request("seed", room=room)
    assert r["error"]["code"] == "bad_request", r
    assert a.ok("seed", room=room, text="y" * 64)  # 64 bytes: taken, replaces the first
    assert a.ok("seed", room=room, text="ann's own seed")
    # The table fills: the first state carries the same commitment.
    b.ok("join", room=room)
    st = b.event(lambda e: e.get("ev") == "state" and e.get("room") == room, keep=True)
    assert st["seq"] == 1 and st["deal"] == {"version": 1, "commit": commit}, st
    r = b.request("seed", room=room, text="late")
    assert r["error"]["code"] == "game_started", r
    r = a.request("seed", room=room, text="late")
    assert r["error"]["code"] == "game_started", r
    # Play it out: game_over reveals the server seed and the seeds.
    players = [Player(a, room), Player(b, room)]
    play(players, random.Random(3), timeout=120)
    over = players[0].over
    assert over["deal"]["commit"] == commit and blake(over["deal"]["server_seed"]) == commit, over
    assert over["deal"]["seeds"] == ["ann's own seed", ""], over
    for c in (a, b, w):
        c.close()
    # The record verifies against the commitment seen before the deal, and not another.
    p = tapis_verify(f.server.address, "verify", room, "--commit", commit)
    assert p.returncode == 0 and "verified" in p.stdout and "1 of 2 seats gave a seed" in p.stdout, p
    other = blake(over["deal"]["commit"])
    p = tapis_verify(f.server.address, "verify", room, "--commit", other)
    assert p.returncode == 1 and "not the commitment seen before the deal" in p.stderr, p
    p = verify_py(f.server.address, room, "--commit", commit)
    assert p.returncode == 0 and '["ann\'s own seed", ""]' in p.stdout, p


@check
def a_seat_that_is_left_loses_its_seed():
    f = fixture()
    a = f.server.connect("cat%d" % random.randrange(10 ** 6))
    b = f.server.connect("dan%d" % random.randrange(10 ** 6))
    room = a.ok("create", game="seqnum", players=3)["room"]
    b.ok("join", room=room)
    b.ok("seed", room=room, text="dan's")
    a.event(lambda e: e.get("ev") == "room" and e.get("deal", {}).get("seeded") == [False, True, False])
    b.ok("leave", room=room)
    a.event(lambda e: e.get("ev") == "room" and e.get("deal", {}).get("seeded") == [False, False, False]
            and e["seats"][1] is None)
    a.ok("leave", room=room)
    a.close()
    b.close()


# --------------------------------------------------------------------------
# Verifying real games
# --------------------------------------------------------------------------

@check
def every_game_verifies():
    f = fixture()
    for game, room in f.games.items():
        p = tapis_verify(f.server.address, "verify", room)
        assert p.returncode == 0, (game, p.stderr)
        assert re.match(r"game %s: verified: BLAKE2b-256\(server_seed\) = commit [0-9a-f]{16}\.\.\., "
                        r"1 of 2 seats gave a seed, \d+ steps replayed" % room, p.stdout), p.stdout
        py = verify_py(f.server.address, room)
        assert py.returncode == 0 and "the server seed matches commit" in py.stdout, py
        deck = json.loads(re.search(r"first deck \(card codes, in array order\): (\[.*\])",
                                    py.stdout).group(1))
        assert len(deck) == {"233": 140, "aspoint3": 52, "seqnum": 100, "slap": 132}[game]
        # and replays it by its own rules (tapis_rules/) to the recorded result
        assert re.search(r"verified: \d+ moves and ticks replayed by the rules to the recorded "
                         r"result \{", py.stdout), py.stdout


def tampered(record, change):
    r = json.loads(json.dumps(record))
    change(r)
    return r


def entry(r, kind, pred=lambda e: True):
    return next(e for e in r["actions"] if e["kind"] == kind and pred(e))


def flip_hex(h):
    return ("1" if h[0] != "1" else "2") + h[1:]


@check
def a_tampered_record_fails_at_its_first_difference():
    f = fixture()
    rec = f.record(f.games["233"])
    seeded = entry(rec, "seed")
    acts = [e for e in rec["actions"] if e["kind"] == "act"]
    mid = acts[len(acts) // 2]
    # (what is changed, the change, what the failure says)
    cases = [
        ("deal.server_seed", lambda r: r["deal"].update(server_seed=flip_hex(r["deal"]["server_seed"])),
         "is not BLAKE2b-256(server_seed)"),
        ("deal.commit", lambda r: r["deal"].update(commit=flip_hex(r["deal"]["commit"])),
         "is not BLAKE2b-256(server_seed)"),
        ("deal.version", lambda r: r["deal"].update(version=2), "deal.version is 2"),
        ("deal", lambda r: r.pop("deal"), "dealt before deals were provable"),
        ("id", lambda r: r.update(id=r["id"] + "0"), "does not replay"),
        ("a seed entry", lambda r: entry(r, "seed")["data"].update(seed="other"), "does not replay"),
        ("a seed after the start", lambda r: r["actions"].insert(
            r["actions"].index(entry(r, "start")) + 1,
            {"n": 0, "kind": "seed", "seat": 0, "at": 0, "data": {"seed": "x"}}), "a seed after the start"),
        ("an act", lambda r: entry(r, "act", lambda e: e["n"] == mid["n"]).update(seat=1 - mid["seat"]),
         "entry %d does not replay" % mid["n"]),
        ("an entry's number", lambda r: entry(r, "act", lambda e: e["n"] == mid["n"]).update(n=mid["n"] + 1),
         "entry %d does not replay: missing_entry" % (mid["n"] + 1)),
        # a target no score reached: the recorded game would not have ended
        ("options", lambda r: r["options"].update(target=max(r["result"]["scores"]) + 1000),
         ("does not replay", "not the recorded one", "ends before the game does")),
        ("players", lambda r: r.update(players=3), "does not replay"),
        ("game", lambda r: r.update(game="slap"), "game_new refuses the record"),
        ("result", lambda r: r["result"].update(scores=[s + 1 for s in r["result"]["scores"]]),
         "not the recorded one"),
        ("seed", lambda r: r.update(seed="12"), "a deal of version 1 has none"),
        ("seats", lambda r: r["seats"][1].update(strategy="hard"), "seats[1]"),
    ]
    assert seeded["data"]["seed"], seeded
    d = tempfile.mkdtemp(prefix="tapis-fair-rec-")
    try:
        path = os.path.join(d, "r.json")
        with open(path, "w") as fh:
            json.dump(rec, fh)
        p = tapis_verify("verify", "--record", path)
        assert p.returncode == 0 and "verified" in p.stdout, p
        for what, change, says in cases:
            with open(path, "w") as fh:
                json.dump(tampered(rec, change), fh)
            p = tapis_verify("verify", "--record", path)
            assert p.returncode == 1 and p.stdout == "", (what, p)
            says = says if isinstance(says, tuple) else (says,)
            assert any(x in p.stderr for x in says), (what, says, p.stderr)
            if what.startswith("deal") or what == "a seed after the start":
                py = verify_py("--record", path)
                assert py.returncode == 1, (what, py)
    finally:
        shutil.rmtree(d)


@check
def seeds_survive_a_restart_through_the_journal():
    """A waiting table with a seed, the server restarted (the tables kept): the
    same commitment comes back, the seed is still in (the journal's `seed`
    entry replayed), and the game dealt from it verifies."""
    d = tempfile.mkdtemp(prefix="tapis-fair-restart-")
    try:
        db = os.path.join(d, "r.db")
        srv = Server(TAPISD, "--db", db, "--bot-delay", "1")
        a = srv.connect("eva")
        room = a.ok("create", game="aspoint3", players=2, options={"rounds": 1})["room"]
        a.ok("seed", room=room, text="eva's seed")
        e = a.event(lambda e: e.get("ev") == "room" and e.get("deal", {}).get("seeded") == [True, False])
        commit = e["deal"]["commit"]
        token = a.token
        srv.stop()
        srv = Server(TAPISD, "--db", db, "--bot-delay", "1")
        try:
            a = srv.connect()
            a.hello("eva", token)
            st = a.ok("state", room=room)
            assert st["deal"] == {"version": 1, "commit": commit, "seeded": [True, False]}, st
            b = srv.connect("fay")
            b.ok("join", room=room)
            players = [Player(a, room), Player(b, room)]
            play(players, random.Random(5), timeout=120)
            over = players[0].over
            assert over["deal"]["seeds"] == ["eva's seed", ""] and over["deal"]["commit"] == commit
            a.close()
            b.close()
            p = tapis_verify(srv.address, "verify", room, "--commit", commit)
            assert p.returncode == 0 and "1 of 2 seats gave a seed" in p.stdout, p
        finally:
            srv.finish()
    finally:
        shutil.rmtree(d)


@check
def games_dealt_before_version_1_still_replay():
    """A game of deal version 0 (--deal-version 0: as every game before) in the
    database of a server of today: its record replays as recorded, has no deal
    to verify, and the tables made next are dealt provably. In a database of
    schema 5 (no deal columns) it exports as it is, and a server migrates it
    to schema 6 and replays it."""
    d = tempfile.mkdtemp(prefix="tapis-fair-old-")
    try:
        db = os.path.join(d, "old.db")
        old = Server(TAPISD, "--db", db, "--bot-delay", "1", "--deal-version", "0")
        try:
            p = subprocess.run([TAPIS_BOT, old.address, "--game", "slap", "--players", "2",
                                "--bots", "1", "--games", "1", *SHORT["slap"]],
                               capture_output=True, text=True, timeout=300)
            assert p.returncode == 0, p
        finally:
            old.finish()
        new = Server(TAPISD, "--db", db)
        try:
            c = new.connect("nia")
            rec = c.ok("replay", game_id="1")["record"]
            assert "deal" not in rec and rec["seed"] != "0", rec
            r = subprocess.run([TAPIS, new.address, "replay", "1", "--json"], capture_output=True,
                               text=True, timeout=TIMEOUT * 3)
            end = json.loads(r.stdout.splitlines()[-1])
            assert r.returncode == 0 and end["as_recorded"] is True, (r, end)
            p = tapis_verify(new.address, "verify", "1")
            assert p.returncode == 1 and "dealt before deals were provable" in p.stderr, p
            room = c.ok("create", game="slap", players=2)["room"]
            e = c.event(lambda e: e.get("ev") == "room" and e.get("room") == room)
            assert e["deal"]["version"] == 1, e
            c.close()
        finally:
            new.finish()
        x = subprocess.run([TAPISD, "--db", db, "--export-game", "1"], capture_output=True,
                           text=True, timeout=TIMEOUT)
        assert x.returncode == 0 and json.loads(x.stdout)["seed"] == rec["seed"], x
        # The same game in a database of schema 5, before the deal columns: exported
        # as it is (read-only, not migrated), then migrated by a server, and replayed.
        db5 = os.path.join(d, "schema5.db")
        src, dst = sqlite3.connect(db), sqlite3.connect(db5)
        src.backup(dst)
        src.close()
        dst.execute("ALTER TABLE rooms DROP COLUMN race")  # schema 7's
        dst.execute("ALTER TABLE rooms DROP COLUMN server_seed")
        dst.execute("ALTER TABLE rooms DROP COLUMN deal")
        dst.execute("PRAGMA user_version = 5")
        dst.commit()
        dst.close()
        x5 = subprocess.run([TAPISD, "--db", db5, "--export-game", "1"], capture_output=True,
                            text=True, timeout=TIMEOUT)
        assert x5.returncode == 0 and json.loads(x5.stdout) == json.loads(x.stdout), x5
        srv5 = Server(TAPISD, "--db", db5)
        try:
            c = srv5.connect("oli")
            assert c.ok("replay", game_id="1")["record"] == rec
            r = subprocess.run([TAPIS, srv5.address, "replay", "1", "--json"],
                               capture_output=True, text=True, timeout=TIMEOUT * 3)
            assert r.returncode == 0 and json.loads(r.stdout.splitlines()[-1])["as_recorded"], r
            c.close()
        finally:
            srv5.finish()
        con = sqlite3.connect(db5)
        assert con.execute("PRAGMA user_version").fetchone()[0] == 7
        assert con.execute("SELECT deal, server_seed, race FROM rooms WHERE code = '1'").fetchone() \
            == (0, None, None)
        con.close()
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    try:
        rc = run()
    finally:
        if _fixture:
            _fixture.server.finish()
            shutil.rmtree(_fixture.dir, ignore_errors=True)
    sys.exit(rc)
