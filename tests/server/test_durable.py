#!/usr/bin/env python3
"""test_durable.py — durable tables (--db, issue 13): kill -9 and restart.

For each game (233, aspoint3, seqnum, slap) a table of people and a built-in
bot plays a while on a server with --db in a temporary directory; the server
is killed with SIGKILL and started again on the same database; every player
says hello with its token on a new connection and must get back its seat and
exactly the view it had (same seq, same hand, same legal), then the game is
played on to game_over. Also: a 233 kill while claims wait in the dispute
window, a slap kill during a round, a corrupt or cut journal refused with a
clear log line while the other rooms load, --db none (nothing written, a
restart loses the tables) and the token never in the database in clear.
Length: over 800 lines on purpose: each test kills and restarts a server on
one database, with the helpers for that beside them.
Usage: test_durable.py PATH/TO/tapisd"""
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (HELD, Player, Server, ends_a_round, is_ev, play, pump, quiesce,  # noqa: E402
                     run_tests, serving, test, wait_for)

BOT_DELAY = "0-3"
CLAIM_SEED = os.environ.get("TAPIS_CLAIM_SEED", "1")


class TempDir:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="tapis-durable-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


@contextlib.contextmanager
def temp_db(name="tapis.db"):
    """The path of a database `name` (not created) in a new temporary
    directory, removed with all it holds after the block."""
    with TempDir() as d:
        yield os.path.join(d, name)


def kill(srv, players):
    """SIGKILL the server, then read what it wrote before dying."""
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()
    for p in players:
        for m in pump(p.c):
            p.handle(m)
        p.c.close()


def refuses_to_start(exe, db, says):
    """A tapisd on the database db stops at its start, saying `says`."""
    try:
        Server(exe, "--db", db, start_timeout=3).kill()
    except RuntimeError as e:
        assert says in str(e), str(e)
    else:
        raise AssertionError("tapisd started on %s (want: %s)" % (db, says))


def resume(srv, player, room):
    """Say hello with player's token on a new connection; returns (client, state)."""
    c = srv.connect()
    r = c.hello(player.c.name, token=player.c.token)
    assert r["resumed"] is True and room in r["rooms"] and r["token"] == player.c.token, r
    st = c.event(is_ev("state", room), keep=True)
    return c, st


def check_same_view(before, st, name):
    assert st["seq"] == before[0], "%s: seq %d after the restart, %d before" % (
        name, st["seq"], before[0])
    assert st["view"] == before[1], "%s: the view changed across the restart:\n before %s\n " \
        "after  %s" % (name, json.dumps(before[1], sort_keys=True),
                       json.dumps(st["view"], sort_keys=True))


def resume_all(srv, players, room, player=Player):
    """Reconnect every player; check each view; return new players (of the
    class `player`) ready to go on."""
    out = []
    for p in players:
        c, st = resume(srv, p, room)
        check_same_view((p.seq, p.view), st, p.c.name)
        np = player(c, room)
        np.seq, np.view = st["seq"], st["view"]
        c.events = [m for m in c.events if m.get("ev") != "state" or m["seq"] > np.seq]
        out.append(np)
    return out


def seated(srv, names, game="233", players=None, options=None):
    """Each of `names` connects; the first creates a table of `game` for
    `players` (default: one seat each) and the others join it. Returns the
    room and the clients, in the order of names."""
    clients = [srv.connect(n) for n in names]
    room = clients[0].ok("create", game=game, players=players or len(names),
                         options=options or {})["room"]
    for c in clients[1:]:
        c.ok("join", room=room)
    return room, clients


def kill_and_resume(exe, game, options, people, bots, until_seq, strategy=None, srv_args=(),
                    check_before_kill=None, finish_timeout=90, declares=True):
    """The common test: play, kill -9, restart, compare, play to the end. The
    game must still be on at the kill, for every deal: `options`, `until_seq`
    and `declares` (the people's, before the kill) make sure of it."""
    with temp_db() as db:
        args = ("--db", db, "--bot-delay", BOT_DELAY) + tuple(srv_args)
        srv = Server(exe, *args)
        try:
            room, clients = seated(srv, ["ann", "bob", "cyd", "dee"][:people], game,
                                   people + bots, options)
            for _ in range(bots):
                a = {"strategy": strategy} if strategy else {}
                clients[0].ok("addbot", room=room, **a)
            players = [Player(c, room, declares=declares) for c in clients]
            rng = random.Random(13)
            # (people who hold back stop the table once a bot has declared)
            play(players, rng, until=lambda ps: min(p.seq for p in ps) >= until_seq
                 or any(p.holds_back() for p in ps), timeout=60)
            quiesce(players)
            assert not any(p.over for p in players), "the game ended before the kill"
            if check_before_kill:
                check_before_kill(players)
            kill(srv, players)
        finally:
            srv.kill()
        with serving(exe, *args) as srv:
            assert srv.log_has(r"room %s: restored" % room), "".join(srv.log)
            players = resume_all(srv, players, room)
            play(players, rng, timeout=finish_timeout)
            results = [p.over["result"] for p in players]
            assert all(r == results[0] for r in results), results
            print("  %s: killed at seq %d, resumed, played to the end (%d more acts): %s"
                  % (game, players[0].seq, sum(p.acts for p in players),
                     json.dumps(results[0])[:100]))


@test
def game_233_resumes_after_kill_with_the_same_views(exe):
    # A game to 60 can end in its first round, on a deal with a rainbow (seen
    # over 18 actions). Before the kill the people hold back (HELD): no round
    # ends, the bot's declaration included (the table then waits on their last
    # draws, and is killed so).
    kill_and_resume(exe, "233", dict(HELD, target=60), people=2, bots=1, until_seq=25,
                    declares=False)


@test
def aspoint3_resumes_after_kill_with_the_same_views(exe):
    kill_and_resume(exe, "aspoint3", {}, people=1, bots=1, until_seq=6)


@test
def seqnum_resumes_after_kill_with_the_same_views(exe):
    kill_and_resume(exe, "seqnum", {"teams": 2, "max_turns": 200}, people=2, bots=2,
                    until_seq=20)


def in_a_round(players):
    v = players[0].view
    assert v and v.get("phase") not in (None, "over"), v


@test
def slap_resumes_after_kill_during_a_round(exe):
    # A slow built-in bot (1 s a move, against people playing their first moves
    # within 0.1 s) and stalls after 2 s, so that the table goes quiet before the
    # kill; at most 5 stalls a round keep the game short.
    kill_and_resume(exe, "slap", {"go_ms": 50, "stall_ms": 2000, "max_stalls": 5,
                                  "max_rounds": 1}, people=2, bots=1, until_seq=15,
                    strategy="greedy:1000", check_before_kill=in_a_round, finish_timeout=120)


class NoClaimPlayer(Player):
    """Plays on without claiming or taking the discard (each would wait for a
    long dispute window)."""

    def maybe_act(self, rng, claim_rate=0.5):
        if self.view:
            legal = self.view.get("legal") or []
            quick = [a for a in legal if a.get("type") not in ("claim", "take")]
            self.view = dict(self.view, legal=quick or [a for a in legal
                                                        if a.get("type") != "claim"])
        super().maybe_act(rng, claim_rate=0)


def claim_in(p):
    return [a for a in (p.view or {}).get("legal") or [] if a.get("type") == "claim"]


def in_step(players, room):
    """Bring every player's view up to date: a `state` request is answered
    after every event of the acts that came before it, so its reply is the
    table as it is once they are all done (nothing else moves at a table of
    people who have not claimed: no bot, no dispute window)."""
    for p in players:
        st = p.c.ok("state", room=room)
        p.seq, p.view = st["seq"], st["view"]
        p.c.events = [m for m in p.c.events if m.get("ev") != "state"]


@test
def claims_pending_in_a_233_dispute_window_survive_a_kill(exe):
    # The people play in lock step, one act at a time (the first seat that
    # may act), each seeing every view before the next: a discard someone can
    # claim is always seen (in free play the next player's draw may cover it
    # first), and the game is the same at every run. Nobody declares (HELD),
    # so the round goes on until a claim comes, whatever the deal.
    with temp_db() as db:
        srv = Server(exe, "--db", db, "--seed", CLAIM_SEED)
        try:
            room, clients = seated(srv, ("ann", "bob", "cyd"),
                                   options=dict(HELD, target=1, dispute_ms=3000))
            players = [NoClaimPlayer(c, room) for c in clients]
            rng = random.Random(5)
            claimed = None
            for _ in range(1000):
                in_step(players, room)
                claimed = next((p for p in players if claim_in(p)), None)
                if claimed:
                    break
                movers = [(p, [a for a in p.view["legal"] if a.get("type") not in
                               ("claim", "take") and not ends_a_round(a)]) for p in players]
                # the first in seat order who may act (gifts can be given at once)
                p, legal = next((p, legal) for p, legal in movers if legal)
                p.c.ok("act", room=room, action=rng.choice(legal))
            assert claimed, "no claim in 1,000 acts: %r" % players[0].view
            t_claim = time.monotonic()
            claimed.c.ok("act", room=room, action=claim_in(claimed)[0])
            in_step(players, room)
            assert players[0].view["claims"], "no pending claim in the view: %r" % players[0].view
            kill(srv, players)
            t_kill = time.monotonic()
        finally:
            srv.kill()
        # Room time stands still while no server hosts the room (docs/STORE.md):
        # the window has at least what it had left at the kill after the restart,
        # whereas a window on wall time would have lost this second too.
        time.sleep(1.0)
        t_restart = time.monotonic()
        with serving(exe, "--db", db) as srv:
            players = resume_all(srv, players, room, NoClaimPlayer)
            assert players[0].view["claims"], players[0].view
            e = players[0].c.event(lambda m: m.get("ev") == "state" and m["room"] == room,
                                   timeout=10, keep=True)
            waited = time.monotonic() - t_restart
            players[0].handle(e)
            assert not e["view"]["claims"], e["view"]
            left = 3.0 - (t_kill - t_claim)
            assert waited >= left, "the dispute window closed %.2fs after the restart, " \
                "with %.2fs left at the kill" % (waited, left)
            print("  claim by %s at seq %d, settled %.2fs after the restart (%.2fs left "
                  "at the kill)" % (claimed.c.name, players[0].seq, waited, left))
            play(players, rng, timeout=120)
            assert all(p.over for p in players)


def edit_journal(con, sql, params=()):
    """Run an UPDATE or DELETE written for `journal` on journal and on each part
    of its tail, where the entries of the last second may be (docs/STORE.md).
    It must change exactly one entry, wherever that entry is."""
    changed = 0
    for table in ["journal"] + ["journal_tail%d" % k for k in range(4)]:
        changed += con.execute(sql.replace("journal", table), params).rowcount
    assert changed == 1, "%d entries changed by %s %r" % (changed, sql, params)


def play_a_little(srv, names, seq=8, target=1):
    """A 233 table of two people who play `seq` changes and are still playing:
    they declare nothing (HELD), so no round ends, whatever the deal (at target
    1, a winning hand dealt ended the game at once and the room was not one to
    restore). Players made later (resume_all) declare and end the game."""
    room, clients = seated(srv, names, options=dict(HELD, target=target))
    players = [Player(c, room, declares=False) for c in clients]
    play(players, random.Random(len(names[0])), until=lambda ps: min(p.seq for p in ps) >= seq)
    quiesce(players, quiet=0.3)
    assert not any(p.over for p in players), "a game ended while nobody declared"
    return room, players


@test
def corrupt_or_cut_journal_is_refused_and_the_other_rooms_load(exe):
    with temp_db() as db:
        srv = Server(exe, "--db", db)
        try:
            r1, p1 = play_a_little(srv, ("ann", "bob"))
            r2, p2 = play_a_little(srv, ("cyd", "dee"))
            r3, p3 = play_a_little(srv, ("eve", "fay"))
            kill(srv, p1 + p2 + p3)
        finally:
            srv.kill()
        con = sqlite3.connect(db)
        rid = {r: con.execute("SELECT rid FROM rooms WHERE code = ?", (r,)).fetchone()[0]
               for r in (r1, r2, r3)}
        n1 = con.execute("SELECT min(n) FROM journal_all WHERE rid = ? AND kind = 'act'",
                         (rid[r1],)).fetchone()[0]
        edit_journal(con, "UPDATE journal SET data = substr(data, 1, 9) WHERE rid = ? AND n = ?",
                     (rid[r1], n1))
        n2 = con.execute("SELECT max(n) FROM journal_all WHERE rid = ? AND kind = 'act'",
                         (rid[r2],)).fetchone()[0]
        edit_journal(con, "DELETE FROM journal WHERE rid = ? AND n = ?", (rid[r2], n2 - 1))
        con.commit()
        con.close()
        with serving(exe, "--db", db) as srv:
            assert srv.log_has(r"room %s \(233\): its journal does not replay: entry %d \(act\): "
                               r"the action is not a JSON object.*quarantined" % (r1, n1)), \
                "".join(srv.log)
            assert srv.log_has(r"room %s \(233\): its journal does not replay: entry %d is "
                               r"missing.*quarantined" % (r2, n2 - 1)), "".join(srv.log)
            assert srv.log_has(r"room %s: restored" % r3), "".join(srv.log)
            assert not srv.log_has(r"room (%s|%s): restored" % (r1, r2)), "".join(srv.log)
            # the third room plays on; the players of the others have nothing to resume
            p3 = resume_all(srv, p3, r3)
            play(p3, random.Random(3), timeout=60)
            c = srv.connect()
            r = c.request("hello", name="ann", token=p1[0].c.token)
            assert r["ok"] is False and r["error"]["code"] == "not_found", r
            # new rooms are numbered after every stored one
            new = srv.connect("gus").ok("create", game="233", players=2)["room"]
            assert int(new) == max(int(r1), int(r2), int(r3)) + 1, (new, r1, r2, r3)
        con = sqlite3.connect(db)
        st = dict(con.execute("SELECT code, status FROM rooms").fetchall())
        con.close()
        assert st[r1] == "quarantined" and st[r2] == "quarantined" and st[r3] == "over", st


def tail_rows(db):
    """Journal entries in the tail (docs/STORE.md), read beside a running tapisd."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=5)
    n = sum(con.execute("SELECT count(*) FROM journal_tail%d" % k).fetchone()[0]
            for k in range(4))
    con.close()
    return n


@test
def a_storm_of_tables_goes_through_the_tail_and_every_table_resumes(exe):
    """Turns of many entries go to the journal's tail: 80 tables of the load
    generator acting at once, with two players of our own among them, killed
    with entries in the tail; every table replays, the two players resume."""
    loadgen = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(exe))),
                           "tests", "bench", "loadgen")
    assert os.access(loadgen, os.X_OK), "no load generator at %s" % loadgen
    budgets = ("--line-rate", "1000000", "--conn-rate", "1000000", "--create-rate", "100000",
               "--max-conns-per-ip", "0")
    with temp_db() as db:
        srv = Server(exe, "--db", db, *budgets)
        storm = None
        try:
            storm = subprocess.Popen([loadgen, "tables", "--tables", "80", "--duration", "60",
                                      "--warmup", "0", "--port", str(srv.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # the tail fills, and is moved into journal while tapisd runs (it shrinks)
            deadline, seen = time.monotonic() + 20, [0]
            while not (max(seen) > 0 and seen[-1] < max(seen)):
                assert time.monotonic() < deadline, "the tail in 20 s: %s" % seen[-50:]
                time.sleep(0.05)
                seen.append(tail_rows(db))
            room, players = play_a_little(srv, ("ann", "bob"), seq=20)
            kill(srv, players)
        finally:
            srv.kill()
            if storm:
                storm.kill()
                storm.wait()
        left = tail_rows(db)
        con = sqlite3.connect(db)
        unfinished = con.execute("SELECT count(*) FROM rooms WHERE status IN "
                                 "('waiting', 'playing')").fetchone()[0]
        con.close()
        assert left > 0, "the kill found the tail empty"
        with serving(exe, "--db", db, *budgets) as srv:
            assert srv.wait_log(r"store .*: %d tables and \d+ sessions restored in \d+ ms$"
                                % unfinished), "%d unfinished: %s" % (unfinished, "".join(srv.log[-5:]))
            assert not srv.log_has("quarantined"), "".join(srv.log)
            assert tail_rows(db) == 0
            players = resume_all(srv, players, room)
            play(players, random.Random(5), timeout=90)
            print("  %d tables restored, %d entries moved out of the tail at the start"
                  % (unfinished, left))


@test
def a_tail_that_cannot_be_moved_stays_and_the_server_starts(exe):
    """An entry in the tail that journal already has (a duplicate): the move
    fails and says so, the part stays, tapisd starts, and the room whose
    journal now has entry n twice is quarantined, not half-loaded."""
    with temp_db() as db:
        with serving(exe, "--db", db) as srv:
            # both unfinished
            r1, p1 = play_a_little(srv, ("ann", "bob"))
            r2, p2 = play_a_little(srv, ("cyd", "dee"))
        con = sqlite3.connect(db)
        rid = con.execute("SELECT rid FROM rooms WHERE code = ?", (r1,)).fetchone()[0]
        con.execute("INSERT INTO journal_tail%d SELECT * FROM journal WHERE rid = ? AND n = 2"
                    % (rid % 4), (rid,))
        con.commit()
        con.close()
        with serving(exe, "--db", db) as srv:
            assert srv.log_has(r"journal_tail%d stays as it is: UNIQUE constraint failed"
                               % (rid % 4)), "".join(srv.log)
            assert srv.log_has(r"room %s \(233\): its journal does not replay: .*quarantined"
                               % r1), "".join(srv.log)
            assert srv.log_has(r"room %s: restored" % r2), "".join(srv.log)
            resume_all(srv, p2, r2)


@test
def db_none_writes_nothing_and_a_restart_forgets(exe):
    with TempDir() as d:
        srv = Server(exe, "--db", "none", cwd=d)
        try:
            room, players = play_a_little(srv, ("ann", "bob"), seq=4)
            kill(srv, players)
        finally:
            srv.kill()
        assert os.listdir(d) == [], os.listdir(d)
        with serving(exe, "--db", "none", cwd=d) as srv:
            c = srv.connect()
            r = c.request("hello", name="ann", token=players[0].c.token)
            assert r["ok"] is False and r["error"]["code"] == "not_found", r
            assert not srv.log_has("restored")
            c.hello("ann")
        sd = [m for m in c.wait_closed() + c.events if m.get("ev") == "shutdown"]
        assert sd == [{"ev": "shutdown"}], sd  # as before durable tables
        assert os.listdir(d) == [], os.listdir(d)


@test
def default_db_is_tapis_db_in_the_working_directory(exe):
    with TempDir() as d:
        srv = Server(exe, "--db", "tapis.db", cwd=d)  # what the default names
        srv.finish()
        with serving(exe, cwd=d, default_db=True) as srv:
            assert os.path.exists(os.path.join(d, "tapis.db")), os.listdir(d)


@test
def one_server_per_database_and_checkpoints_off_the_loop(exe):
    """A second tapisd on the same file stops at once; the first one's WAL is
    checkpointed by its thread (the database file grows while it runs) and
    sqlite3-style readers may read it meanwhile."""
    import sqlite3
    with temp_db("t.db") as db:
        with serving(exe, "--db", db, "--bot-delay", "0-1", "--turn-timer", "0") as srv:
            refuses_to_start(exe, db, "another tapisd is using it")
            a = srv.connect("ann")
            w = srv.connect("wat")
            # the first checkpoint (within a second) copies the schema: the file
            # is more than its header page
            deadline = time.monotonic() + 20
            while os.path.getsize(db) <= 1024:
                assert time.monotonic() < deadline, "the schema not checkpointed in 20 s"
                time.sleep(0.05)
            size0 = os.path.getsize(db)
            for _ in range(4):  # bot tables write the journal
                room = a.ok("create", game="seqnum", players=2, options={"max_turns": 400})["room"]
                w.ok("watch", room=room)
                a.ok("addbot", room=room)
                a.ok("leave", room=room)
            deadline = time.monotonic() + 20
            while os.path.getsize(db) <= size0:  # only a checkpoint writes the file itself
                assert time.monotonic() < deadline, "no checkpoint in 20 s"
                time.sleep(0.1)
            con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=5)
            n = con.execute("SELECT count(*) FROM journal_all").fetchone()[0]
            con.close()
            assert n > 100, n
            assert a.ok("ping") is not None


def schema_v1_sql():
    """The version 1 schema, as docs/STORE.md writes it down (up to its
    "-- version 2" line): the file a tapisd of that version made."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "docs", "STORE.md")) as f:
        text = f.read()
    block = text.split("```sql", 1)[1].split("```", 1)[0]
    return block.split("-- version 2", 1)[0]


@test
def a_version_1_database_is_migrated_and_a_newer_one_refused(exe):
    """Migrations from the first version on: a version 1 file with a session
    and a waiting table is brought to the current schema at start, and the
    player takes the seat back with the token; a file of a newer version
    than this tapisd knows is refused, unchanged."""
    import hashlib
    with temp_db("v1.db") as db:
        token = "0123456789abcdef0123456789abcdef"
        con = sqlite3.connect(db)
        con.executescript(schema_v1_sql())
        con.execute("INSERT INTO sessions VALUES (5, 'olga', ?, 0)",
                    (hashlib.blake2b(token.encode(), digest_size=32).hexdigest(),))
        con.execute("INSERT INTO rooms (rid, code, game, players, options, seed, private, title,"
                    " status, created) VALUES (3, '3', '233', 2, '{}', 42, 0, '233', 'waiting', 0)")
        con.execute("INSERT INTO seats (rid, seat, name, session) VALUES (3, 0, 'olga', 5)")
        con.execute("INSERT INTO journal VALUES (3, 1, 'seat', 0, 0, ?)",
                    (json.dumps({"name": "olga", "session": 5}),))
        con.execute("PRAGMA user_version = 1")
        con.commit()
        con.close()
        with serving(exe, "--db", db) as srv:
            c = srv.connect()
            r = c.request("hello", name="olga", token=token)
            assert r["ok"] and r["resumed"] and r["rooms"] == ["3"], r
            st = c.ok("state", room="3")
            assert st["status"] == "waiting" and st["seats"][0]["name"] == "olga", st
            assert st["race"] == "reaction", st  # recorded before the rule was: --race
            b = srv.connect("ben")
            b.ok("join", room="3")
            c.event(is_ev("state", "3"))
            assert srv.connect("max").ok("history", all=True)["total"] == 0
        con = sqlite3.connect(db)
        version = con.execute("PRAGMA user_version").fetchone()[0]
        indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        journal_sql = con.execute("SELECT sql FROM sqlite_master WHERE name='journal'").fetchone()[0]
        first = con.execute("SELECT n, kind, data FROM journal WHERE rid = 3 ORDER BY n").fetchone()
        kept = con.execute("SELECT count(*) FROM journal WHERE rid = 3").fetchone()[0]
        tail = sum(con.execute("SELECT count(*) FROM journal_tail%d" % k).fetchone()[0]
                   for k in range(4))
        con.execute("PRAGMA user_version = 99")
        con.commit()
        con.close()
        assert version >= 3 and {"rooms_by_end", "seats_by_session"} <= indexes, (version, indexes)
        assert "WITHOUT ROWID" in journal_sql, journal_sql  # version 3
        # version 4: entries go to the tail; a stop moves it all into journal
        assert version >= 4 and tail == 0 and kept >= 3, (version, tail, kept)
        assert first[:2] == (1, "seat") and json.loads(first[2])["name"] == "olga", first
        refuses_to_start(exe, db, "schema version 99 is newer than this tapisd knows")


@test
def a_rooms_race_rule_is_kept_across_kill_and_restart(exe):
    """race= is the room's: kept in its record and restored with it, whatever
    --race the restarted server has. A room created race=arrival on a server
    of --race reaction, and one left to the default (reaction), keep their
    rules after kill -9 and a restart with --race arrival, waiting or playing;
    a room created after the restart takes the new default."""
    with temp_db() as db:
        srv = Server(exe, "--db", db, "--race", "reaction", "--bot-delay", BOT_DELAY)
        try:
            ann = srv.connect("ann")
            waiting = ann.ok("create", game="233", players=2, options={"race": "arrival"})["room"]
            playing, (bob, _) = seated(srv, ["bob", "cyd"], options=dict(HELD))
            default = bob.ok("create", game="slap", players=2)["room"]
            rules = {waiting: "arrival", playing: "reaction", default: "reaction"}
            look = srv.connect("dan")
            before = {x["room"]: x for x in look.ok("rooms")["rooms"]}
            for room, rule in rules.items():
                assert before[room]["race"] == rule, (room, before[room])
            assert before[playing]["status"] == "playing", before[playing]
            srv.proc.send_signal(signal.SIGKILL)
            srv.proc.wait()
        finally:
            srv.kill()
        with serving(exe, "--db", db, "--race", "arrival", "--bot-delay", BOT_DELAY) as srv:
            look = srv.connect("eve")
            after = {x["room"]: x for x in look.ok("rooms")["rooms"]}
            for room, rule in rules.items():
                assert after[room]["race"] == rule, (room, rule, after.get(room))
                assert after[room]["status"] == before[room]["status"], (room, after[room])
            new = look.ok("create", game="233", players=2)["room"]
            assert look.ok("state", room=new)["race"] == "arrival"
        con = sqlite3.connect(db)
        kept = dict(con.execute("SELECT code, race FROM rooms"))
        con.close()
        assert kept == dict(rules, **{new: "arrival"}), kept


@test
def sigterm_keeps_the_tables_and_says_restart(exe):
    with temp_db() as db:
        with serving(exe, "--db", db) as srv:
            room, players = play_a_little(srv, ("ann", "bob"))
        for p in players:
            for m in p.c.wait_closed():
                p.handle(m)
            sd = [m for m in p.c.all if m.get("ev") == "shutdown"]
            assert sd and sd[0].get("restart") is True, sd
            p.c.close()
        with serving(exe, "--db", db) as srv:
            players = resume_all(srv, players, room)
            play(players, random.Random(2), timeout=60)


@test
def token_is_not_in_the_database_in_clear(exe):
    with temp_db() as db:
        srv = Server(exe, "--db", db)
        try:
            room, players = play_a_little(srv, ("ann", "bob"), seq=3)
            tokens = [p.c.token for p in players]
            srv.proc.send_signal(signal.SIGKILL)  # the WAL file stays as it was
            srv.proc.wait()
        finally:
            srv.kill()
        d = os.path.dirname(db)
        files = [f for f in os.listdir(d) if f.startswith("tapis.db")]
        data = b"".join(open(os.path.join(d, f), "rb").read() for f in files)
        assert b"ann" in data, "the sessions are not in %r" % files
        for t in tokens:
            assert t.encode() not in data, "a token is in the database in clear"
            assert t.upper().encode() not in data
        assert not any(t in line for t in tokens for line in srv.log), "a token was logged"
        con = sqlite3.connect(db)
        hashes = [h for (h,) in con.execute("SELECT token_hash FROM sessions")]
        con.close()
        assert len(hashes) == 2 and all(len(h) == 64 for h in hashes), hashes


# -- match history (issue 13): history, replay, --export-game --

HISTORY_BOT_DELAY = "0-5"
FINISHING = {  # options that end a game soon, and the bots it is played against
    "233": ({"target": 1}, 1),
    "aspoint3": ({}, 1),
    "seqnum": ({"teams": 2, "max_turns": 200}, 3),
    "slap": ({"go_ms": 50, "stall_ms": 300, "max_stalls": 3, "max_rounds": 1}, 1),
}


def finish_game(client, game, private=False, seed=7, timeout=90):
    """client opens a table of `game` with built-in bots and plays it to the
    end; returns (room, result of its game_over event)."""
    options, bots = FINISHING[game]
    args = {"private": True} if private else {}
    room = client.ok("create", game=game, players=1 + bots, options=options, **args)["room"]
    for _ in range(bots):
        client.ok("addbot", room=room)
    p = Player(client, room)
    play([p], random.Random(seed), timeout=timeout)
    quiesce([p], quiet=0.2)
    return room, p.over["result"]


def export(exe, db, game_id):
    import subprocess
    return subprocess.run([exe, "--db", db, "--export-game", game_id], capture_output=True,
                          text=True, timeout=30)


def inline(client, line):
    """Send an inline line (no id); return its reply."""
    client.send_raw(line + "\n")
    while True:
        m = client.recv()
        if "re" in m:
            return m
        client.events.append(m)


def error_code(r):
    assert r["ok"] is False, r
    return r["error"]["code"]


@test
def history_lists_finished_games_newest_first_and_replay_serves_them(exe):
    with temp_db() as db:
        with serving(exe, "--db", db, "--bot-delay", HISTORY_BOT_DELAY) as srv:
            ann, bob, cyd = srv.connect("ann"), srv.connect("bob"), srv.connect("cyd")
            g1, res1 = finish_game(ann, "233", seed=1)
            g2, res2 = finish_game(ann, "233", seed=2)
            g3, res3 = finish_game(bob, "233", seed=3)
            gp, _ = finish_game(ann, "233", private=True, seed=4)
            waiting = cyd.ok("create", game="233", players=2)["room"]
            # the caller's games, newest first, with the names by seat and the result
            h = ann.ok("history")
            assert [g["id"] for g in h["games"]] == [gp, g2, g1], h
            assert h["total"] == 3 and h["limit"] == 20 and h["offset"] == 0, h
            byid = {g["id"]: g for g in h["games"]}
            assert byid[g1]["players"] == ["ann", "bot"] and byid[g1]["game"] == "233", byid
            assert byid[g1]["result"] == res1 and byid[g2]["result"] == res2, byid
            assert all(isinstance(g["ended"], int) and g["ended"] > 0 for g in h["games"]), h
            assert byid[gp]["ended"] >= byid[g2]["ended"] >= byid[g1]["ended"], h
            hb = bob.ok("history")
            assert [g["id"] for g in hb["games"]] == [g3] and hb["total"] == 1, hb
            assert hb["games"][0]["result"] == res3 and hb["games"][0]["players"] == ["bob", "bot"]
            assert cyd.ok("history")["games"] == [] and cyd.ok("history")["total"] == 0
            # every public finished game; the private one only in its players' history
            ha = cyd.ok("history", all=True)
            assert [g["id"] for g in ha["games"]] == [g3, g2, g1] and ha["total"] == 3, ha
            # inline forms and paging
            r = inline(cyd, "history all 2")
            assert r["ok"] and [g["id"] for g in r["games"]] == [g3, g2], r
            assert r["limit"] == 2 and r["total"] == 3, r
            r = inline(cyd, "history all 1 1")
            assert [g["id"] for g in r["games"]] == [g2] and r["offset"] == 1, r
            r = inline(ann, "history 1 2")
            assert [g["id"] for g in r["games"]] == [g1] and r["total"] == 3, r
            r = ann.ok("history", limit=100, offset=1000000)
            assert r["games"] == [] and r["total"] == 3, r
            for bad in ({"limit": 0}, {"limit": 101}, {"offset": -1}, {"offset": 1000001},
                        {"limit": "5"}, {"all": "yes"}):
                assert error_code(ann.request("history", **bad)) == "bad_request", bad
            assert error_code(inline(ann, "history 0")) == "bad_request"
            assert error_code(inline(ann, "history all 1 2 3")) == "bad_request"
            # replay: the record of a finished game
            rec = cyd.ok("replay", game_id=g1)["record"]
            assert rec["id"] == g1 and rec["game"] == "233" and rec["players"] == 2, rec
            assert rec["result"] == res1 and rec["options"]["target"] == 1, rec
            assert isinstance(rec["seed"], str) and int(rec["seed"]) >= 0, rec
            assert rec["seats"] == [
                {"seat": 0, "name": "ann", "bot": False, "strategy": None},
                {"seat": 1, "name": "bot", "bot": True, "strategy": rec["seats"][1]["strategy"]}
            ], rec["seats"]
            assert rec["started"] <= rec["ended"], rec
            acts = rec["actions"]
            assert [a["n"] for a in acts] == list(range(1, len(acts) + 1)), acts[:5]
            assert {a["kind"] for a in acts} >= {"seat", "start", "act"}, acts[:5]
            assert all(isinstance(a["data"], dict) for a in acts if a["kind"] == "act"), acts
            assert inline(cyd, "replay %s" % g1)["record"] == rec
            assert cyd.ok("replay", game_id=int(g2))["record"]["result"] == res2
            # unknown ids, unfinished games, someone else's private game
            assert error_code(cyd.request("replay", game_id="999")) == "not_found"
            assert error_code(cyd.request("replay", game_id="pnope")) == "not_found"
            assert error_code(cyd.request("replay", game_id=waiting)) == "not_finished"
            assert error_code(bob.request("replay", game_id=gp)) == "not_found"
            assert ann.ok("replay", game_id=gp)["record"]["id"] == gp
            assert error_code(cyd.request("replay")) == "bad_request"
        # --export-game prints the same record, without listening
        r = export(exe, db, g1)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == rec and "listening" not in r.stderr, (r.stdout, r.stderr)
        for bad_id, why in (("999", "no game 999"), (waiting, "not finished")):
            r = export(exe, db, bad_id)
            assert r.returncode == 1 and r.stdout == "" and why in r.stderr, (bad_id, r)
        missing = os.path.join(os.path.dirname(db), "missing.db")
        r = export(exe, missing, g1)
        assert r.returncode == 1 and "cannot open" in r.stderr, r
        assert not os.path.exists(missing)


@test
def every_finished_game_exports_and_a_tampered_journal_does_not(exe):
    with temp_db() as db:
        with serving(exe, "--db", db, "--bot-delay", HISTORY_BOT_DELAY) as srv:
            ann = srv.connect("ann")
            rooms = {}
            for i, game in enumerate(("233", "aspoint3", "seqnum", "slap")):
                rooms[game] = finish_game(ann, game, seed=10 + i)
            h = ann.ok("history", limit=10)
            assert sorted(g["game"] for g in h["games"]) == sorted(rooms), h
            unfinished = ann.ok("create", game="233", players=2, options={"target": 1})["room"]
            ann.ok("addbot", room=unfinished)
            p = Player(ann, unfinished)
            play([p], random.Random(5), until=lambda ps: ps[0].seq >= 4)
            assert error_code(ann.request("replay", game_id=unfinished)) == "not_finished"
        con = sqlite3.connect(db)
        over = [r[0] for r in con.execute("SELECT code FROM rooms WHERE status = 'over'")]
        con.close()
        assert sorted(over) == sorted(r for r, _ in rooms.values()), over
        for game, (room, result) in rooms.items():
            r = export(exe, db, room)
            assert r.returncode == 0, (game, r.stderr)
            rec = json.loads(r.stdout)
            assert rec["game"] == game and rec["result"] == result, (game, rec["result"], result)
        r = export(exe, db, unfinished)
        assert r.returncode == 1 and "not finished" in r.stderr, r
        # a journal edited by hand does not replay to the stored result: no export
        con = sqlite3.connect(db)
        rid = {g: con.execute("SELECT rid FROM rooms WHERE code = ?", (room,)).fetchone()[0]
               for g, (room, _) in rooms.items()}
        n = con.execute("SELECT max(n) FROM journal_all WHERE rid = ? AND kind = 'act'",
                        (rid["233"],)).fetchone()[0]
        edit_journal(con, "UPDATE journal SET data = '{\"type\":\"bogus\"}' WHERE rid = ? AND n = ?",
                     (rid["233"], n))
        last = con.execute("SELECT max(n) FROM journal_all WHERE rid = ? AND kind = 'act'",
                           (rid["aspoint3"],)).fetchone()[0]
        edit_journal(con, "DELETE FROM journal WHERE rid = ? AND n = ?", (rid["aspoint3"], last))
        con.execute("UPDATE rooms SET result = '{\"winner\":99}' WHERE rid = ?", (rid["seqnum"],))
        con.commit()
        con.close()
        for game, why in (("233", "entry %d (act seat" % n), ("aspoint3", "does not"),
                          ("seqnum", "not the one stored")):
            r = export(exe, db, rooms[game][0])
            assert r.returncode == 1 and r.stdout == "", (game, r)
            assert "does not replay" in r.stderr and why in r.stderr, (game, r.stderr)
        assert export(exe, db, rooms["slap"][0]).returncode == 0


def watched_game(player, watcher, game, seed):
    """Like finish_game, with `watcher` watching from before the start; returns
    (room, {seq: view} of every state the watcher got)."""
    options, bots = FINISHING[game]
    room = player.ok("create", game=game, players=1 + bots, options=options)["room"]
    watcher.ok("watch", room=room)
    for _ in range(bots):
        player.ok("addbot", room=room)
    p = Player(player, room)
    play([p], random.Random(seed), timeout=90)
    quiesce([p], quiet=0.2)
    seen = {}
    wait_for(lambda: pump(watcher) is None or any(is_ev("game_over", room)(m) for m in watcher.all),
             "the watcher's game_over")
    for m in watcher.all:
        if is_ev("state", room)(m):
            seen[m["seq"]] = m["view"]
    return room, seen


@test
def replay_step_is_what_a_live_spectator_saw(exe):
    """`replay ID step=N`: the spectator's view after N moves (act and tick
    entries), replayed by the server; over random games of every game, each
    step is the view a live spectator got (the state of seq N + 1, the start
    being seq 1), and no step holds a hand or a legal action."""
    for seed in (21, 22):
        with temp_db() as db:
            with serving(exe, "--db", db, "--bot-delay", HISTORY_BOT_DELAY, "--seed", str(seed),
                         "--line-rate", "1000000") as srv:
                ann, wat, cyd = srv.connect("ann"), srv.connect("wat"), srv.connect("cyd")
                for game in FINISHING:
                    room, seen = watched_game(ann, wat, game, seed)
                    rec = cyd.ok("replay", game_id=room)["record"]
                    steps = sum(a["kind"] in ("act", "tick") for a in rec["actions"])
                    # the watcher saw every state: the start (seq 1), then one a move
                    assert sorted(seen) == list(range(1, steps + 2)), (game, steps, sorted(seen))
                    for n in range(steps + 1):
                        r = cyd.ok("replay", game_id=room, step=n)
                        assert r["step"] == n and r["steps"] == steps, (game, r)
                        v = r["view"]
                        assert "hand" not in v and "legal" not in v, (game, n, v)
                        assert v.get("seat") is None and v == seen[n + 1], (game, n, v, seen[n + 1])
                    assert r["view"].get("result") == rec["result"] or \
                        r["view"]["phase"] == "over", (game, r["view"])
                    # the inline form, and the bounds
                    assert inline(cyd, "replay %s %d" % (room, steps))["view"] == r["view"]
                    for bad in (steps + 1, -1, "1"):
                        assert error_code(cyd.request("replay", game_id=room, step=bad)) \
                            == "bad_request", (game, bad)
                    assert error_code(inline(cyd, "replay %s %d" % (room, steps + 1))) \
                        == "bad_request"
                # the access rules of replay
                gp, _ = finish_game(ann, "233", private=True, seed=seed)
                assert error_code(cyd.request("replay", game_id=gp, step=0)) == "not_found"
                assert ann.ok("replay", game_id=gp, step=0)["step"] == 0
                assert error_code(cyd.request("replay", game_id="999", step=0)) == "not_found"
                waiting = cyd.ok("create", game="233", players=2)["room"]
                assert error_code(cyd.request("replay", game_id=waiting, step=0)) \
                    == "not_finished"


@test
def db_none_history_is_empty_and_replay_is_not_found(exe):
    with serving(exe, "--db", "none", "--bot-delay", HISTORY_BOT_DELAY) as srv:
        ann = srv.connect("ann")
        room, _ = finish_game(ann, "233")
        for args in ({}, {"all": True}):
            r = ann.ok("history", **args)
            assert r["games"] == [] and r["total"] == 0 and r["offset"] == 0, r
        assert error_code(ann.request("replay", game_id=room)) == "not_found"
    r = export(exe, "none", "1")
    assert r.returncode == 1 and "needs a database" in r.stderr, r


if __name__ == "__main__":
    run_tests(sys.argv)
