"""`tapis replay ID` against a real tapisd with a database: the record of a
finished game re-run through the client's core, step by step.

A tapisd with --db in a temporary directory plays three games to their end
with built-in bots while a spectator watches (seqnum, which has no rounds;
aspoint3 over 2 rounds; slap, whose timers make `tick` entries): the creator seats a bot, then leaves, and a bot
takes its seat. Then `tapis ADDR replay ID --json` must give one step per
`act` and `tick` entry plus the start, each step's view equal to the view
the spectator received in the state event of the same change, and end as
recorded; the server's refusals (not_found, not_finished) exit 1; the
viewer on a terminal (single keys) and on piped lines draws the right step
headings, and a stop signal ends it with the terminal put back; a journal or result tampered with in the database is reported,
and a journal that a restore would refuse (an entry missing or repeated,
time going back) is refused by the client too, at the entry the server's
--export-game names (both replay through core/journal.c).

Environment: TAPISD, TAPIS.
"""
import atexit
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import termios

from clientutil import (FakeServer, Server, TIMEOUT, Tty, check, ends_on_stop_signals, free_port,
                        is_ev, run)

TAPISD = os.environ["TAPISD"]
TAPIS = os.environ["TAPIS"]


class Fixture:
    """The server, its database, and the finished games: game id -> (record,
    spectator's state events by seq)."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="tapis-replay-")
        self.db = os.path.join(self.dir, "tapis.db")
        self.server = Server(TAPISD, "--db", self.db, "--bot-delay", "0-1", "--turn-timer", "0")
        self.ann = self.server.connect("ann")
        self.wes = self.server.connect("wes")
        self.seqnum = self.finish("seqnum", {"teams": 2, "max_turns": 8})
        self.aspoint3 = self.finish("aspoint3", {"rounds": 2, "target": 0})
        # slap's countdowns run out: `tick` entries
        self.slap = self.finish("slap", {"go_ms": 50, "stall_ms": 300, "max_stalls": 3,
                                         "max_rounds": 1})
        # A game in play: its creator never moves (no turn timer).
        cyd = self.server.connect("cyd")
        self.playing = cyd.ok("create", game="233", players=2)["room"]
        cyd.ok("addbot", room=self.playing)

    def finish(self, game, options):
        """ann opens a table of `game` for 2, wes watches, ann seats a bot and
        leaves (a bot takes her seat): the room id, once the game is over."""
        room = self.ann.ok("create", game=game, players=2, options=options)["room"]
        self.wes.events = []
        self.wes.ok("watch", room=room)
        self.ann.ok("addbot", room=room)
        self.ann.ok("leave", room=room)
        over = self.wes.event(is_ev("game_over"), timeout=90, keep=True)
        assert over["room"] == room, over
        self.wes.ok("leave", room=room)
        states = {m["seq"]: m["view"] for m in self.wes.events
                  if m.get("ev") == "state" and m["room"] == room}
        record = self.wes.ok("replay", game_id=room)["record"]
        assert record["result"] == over["result"], (record["result"], over)
        return room, record, states

    def stop(self):
        self.server.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


_FIXTURE = []


def fixture():
    if not _FIXTURE:
        _FIXTURE.append(Fixture())
        atexit.register(_FIXTURE[0].stop)
    return _FIXTURE[0]


def replay_json(address, game_id, *args):
    """`tapis ADDRESS replay ID --json`: (exit status, step lines, end line, stderr)."""
    p = subprocess.run([TAPIS, address, "replay", game_id, "--json"] + list(args),
                       capture_output=True, text=True, timeout=TIMEOUT)
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    steps = [l for l in lines if "step" in l]
    ends = [l for l in lines if l.get("end")]
    assert len(ends) <= 1 and (not ends or lines[-1] is ends[0]), p.stdout[-2000:]
    return p.returncode, steps, ends[0] if ends else None, p.stderr


def changes(record):
    return [a for a in record["actions"] if a["kind"] in ("act", "tick")]


@check
def json_steps_are_the_views_the_spectator_saw_and_end_as_recorded():
    f = fixture()
    assert any(a["kind"] == "tick" for a in f.slap[1]["actions"])
    for room, record, states in (f.seqnum, f.aspoint3, f.slap):
        rc, steps, end, err = replay_json(f.server.address, room)
        assert rc == 0, (rc, err)
        entries = changes(record)
        assert len(steps) == len(entries) + 1, (len(steps), len(entries))
        assert [s["step"] for s in steps] == list(range(len(steps)))
        # step 0: the start; then one step per act or tick entry, in order
        start = next(a for a in record["actions"] if a["kind"] == "start")
        assert (steps[0]["entry"], steps[0]["kind"], steps[0]["action"]) == (start["n"], "start",
                                                                              None), steps[0]
        for s, a in zip(steps[1:], entries):
            assert (s["entry"], s["kind"], s["at"]) == (a["n"], a["kind"], a["at"]), (s, a)
            if a["kind"] == "act":
                assert (s["seat"], s["action"]) == (a["seat"], a["data"]), (s, a)
            else:
                assert s["seat"] is None and s["action"] is None, s
        # the spectator's state event of change k (seq k + 1) showed step k's view
        last_seq = max(states)
        assert last_seq == len(steps), (last_seq, len(steps))
        assert steps[-1]["view"] == states[last_seq], "last views differ"
        for seq, view in states.items():
            assert steps[seq - 1]["view"] == view, "seq %d differs" % seq
        assert "legal" not in steps[-1]["view"] and "hand" not in json.dumps(steps[-1]["view"])
        assert end["as_recorded"] is True and end["result"] == record["result"], end
        assert end["steps"] == len(steps) and end["message"] == "the replay ends as recorded", end


@check
def refusals_of_the_server_exit_1_with_its_message():
    f = fixture()
    rc, steps, end, err = replay_json(f.server.address, f.playing)
    assert rc == 1 and not steps and end is None, (rc, err)
    assert re.search(r"tapis: replay %s: not_finished: " % f.playing, err), err
    rc, steps, end, err = replay_json(f.server.address, "9999")
    assert rc == 1 and not steps and end is None, (rc, err)
    assert "tapis: replay 9999: not_found: " in err, err
    # the viewer too, with a name of our own
    p = subprocess.run([TAPIS, f.server.address, "replay", "9999", "--name", "vic"],
                       capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert p.returncode == 1 and "not_found" in p.stderr and p.stdout == "", p
    # a name taken by a live session is the server's refusal of hello
    p = subprocess.run([TAPIS, f.server.address, "replay", f.seqnum[0], "--name", "wes"],
                       capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert p.returncode == 1 and "tapis: hello: name_taken: " in p.stderr, p
    p = subprocess.run([TAPIS, f.server.address, "replay"], capture_output=True, text=True,
                       timeout=TIMEOUT)
    assert p.returncode == 2 and "which game?" in p.stderr, p
    # no server there
    port = free_port()
    rc, steps, end, err = replay_json("127.0.0.1:%d" % port, "1")
    assert rc == 1 and end is None and "tapis: cannot connect to 127.0.0.1:%d" % port in err, err


def heading(text, k, last):
    return r"step %d/%d — %s" % (k, last, text)


@check
def the_viewer_steps_with_single_keys_on_a_terminal():
    f = fixture()
    room, record, _ = f.seqnum
    last = len(changes(record))
    with Tty(TAPIS, f.server.address, "replay", room) as tty:
        tty.expect(heading(r"the game starts", 0, last))
        tty.expect(r"-- room %s \. seqnum \." % room)
        tty.expect(r"n/Enter/→ next")
        first = changes(record)[0]
        key = lambda k: os.write(tty.master, k)
        key(b"n")
        tty.expect(heading(r"seat %d \(bot%d\) played play " % (first["seat"], first["seat"]), 1,
                           last))
        key(b"p")
        tty.expect(heading(r"the game starts", 0, last))
        key(b"p")
        tty.expect(r"this is the first step")
        key(b"g")
        tty.expect(r"go to step: ")
        key(b"3\r")
        tty.expect(heading(r"seat \d \(bot\d\) played ", 3, last))
        key(b"\x1b[C")  # Right
        tty.expect(heading(r"seat \d \(bot\d\) played ", 4, last))
        key(b"\x1b[D")  # Left
        tty.expect(heading(r"seat \d \(bot\d\) played ", 3, last))
        key(b"\r")  # Enter
        tty.expect(heading(r"seat \d \(bot\d\) played ", 4, last))
        key(b"$")
        tty.expect(heading(r"seat \d \(bot\d\) played ", last, last))
        tty.expect(r"game over in room %s after" % room)
        tty.expect(r"the replay ends as recorded")
        key(b"n")
        tty.expect(r"this is the last step \(q quits\)")
        key(b"g99\r")
        tty.expect(r"no step 99: the steps go from 0 to %d" % last)
        key(b"r2\r")
        tty.expect(r"this game has no rounds")
        key(b"0")
        tty.expect(heading(r"the game starts", 0, last))
        key(b"q")
        assert tty.proc.wait(TIMEOUT) == 0
        # the terminal is put back: line editing and echo again
        lflag = termios.tcgetattr(tty.master)[3]
        assert lflag & termios.ICANON and lflag & termios.ECHO, lflag


@check
def r_goes_to_the_first_step_of_a_round():
    f = fixture()
    room, record, _ = f.aspoint3
    rc, steps, _, _ = replay_json(f.server.address, room)
    assert rc == 0
    round2 = next(s["step"] for s in steps if s["view"].get("round") == 2)
    assert round2 > 0 and steps[round2 - 1]["view"]["round"] == 1
    last = len(steps) - 1
    with Tty(TAPIS, f.server.address, "replay", room) as tty:
        tty.expect(heading(r"the game starts", 0, last))
        tty.expect(r"round 1/2")
        os.write(tty.master, b"r 2\r")
        tty.expect(r"go to round: ")
        tty.expect(heading(r"seat \d \(bot\d\) played ", round2, last))
        tty.expect(r"round 2/2")
        os.write(tty.master, b"r 9\r")
        tty.expect(r"no round 9: the rounds go from 1 to 2")
        os.write(tty.master, b"\x04")  # Ctrl-D
        assert tty.proc.wait(TIMEOUT) == 0


@check
def piped_lines_step_through_the_game_and_end_of_input_quits():
    f = fixture()
    room, record, _ = f.seqnum
    last = len(changes(record))
    p = subprocess.run([TAPIS, f.server.address, "replay", room],
                       input="n\n\ng 5\np\nr 1\nbogus\n$\nn\n0\n",
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr
    shown = [int(k) for k in re.findall(r"^step (\d+)/%d — " % last, p.stdout, re.M)]
    assert shown == [0, 1, 2, 5, 4, last, 0], shown
    assert "this game has no rounds" in p.stdout and "keys: n, Enter" in p.stdout, p.stdout
    assert "this is the last step" in p.stdout and "\x1b[" not in p.stdout, p.stdout[-500:]
    # a step made by the game's timer
    room, record, _ = f.slap
    k = 1 + next(i for i, a in enumerate(changes(record)) if a["kind"] == "tick")
    p = subprocess.run([TAPIS, f.server.address, "replay", room], input="g %d\n" % k,
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr
    assert re.search(r"^step %d/%d — the game's clock: a timer ran out \(\+\d+\.\d s\)$"
                     % (k, len(changes(record))), p.stdout, re.M), p.stdout


@check
def a_stop_signal_ends_the_viewer_and_puts_the_terminal_back():
    f = fixture()
    room, record, _ = f.slap
    ends_on_stop_signals(lambda sig: (TAPIS, f.server.address, "replay", room),
                         heading(r"the game starts", 0, len(changes(record))))


@check
def a_tampered_journal_or_result_is_reported_and_exits_1():
    f = fixture()
    (sroom, srecord, _), (aroom, arecord, _) = f.seqnum, f.aspoint3
    f.server.stop()
    con = sqlite3.connect(f.db)
    rid = {code: con.execute("SELECT rid FROM rooms WHERE code = ?", (code,)).fetchone()[0]
           for code in (sroom, aroom)}
    acts = [a for a in srecord["actions"] if a["kind"] == "act"]
    bad = acts[len(acts) // 2]
    con.execute("UPDATE journal SET data = '{\"type\":\"bogus\"}' WHERE rid = ? AND n = ?",
                (rid[sroom], bad["n"]))
    con.execute("UPDATE rooms SET result = '{\"winners\":[]}' WHERE rid = ?", (rid[aroom],))
    con.commit()
    con.close()
    f.server = Server(TAPISD, "--db", f.db)
    rc, steps, end, err = replay_json(f.server.address, sroom)
    assert rc == 1, (rc, err)
    before = [a for a in changes(srecord) if a["n"] < bad["n"]]
    assert len(steps) == len(before) + 1, (len(steps), len(before))
    assert end["as_recorded"] is False and end["result"] is None, end
    assert re.match(r"entry %d does not replay: unknown_action: " % bad["n"], end["message"]), end
    rc, steps, end, err = replay_json(f.server.address, aroom)
    assert rc == 1 and len(steps) == len(changes(arecord)) + 1, (rc, err)
    assert end["as_recorded"] is False and end["result"] == arecord["result"], end
    assert "not the recorded one" in end["message"], end
    # the viewer says so on its first screen and on the last step, and exits 1
    p = subprocess.run([TAPIS, f.server.address, "replay", sroom], input="$\n",
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 1, p
    assert p.stdout.count("entry %d does not replay: unknown_action" % bad["n"]) == 2, p.stdout
    # options the game refuses: not a single step
    f.server.stop()
    con = sqlite3.connect(f.db)
    con.execute("UPDATE rooms SET options = '{\"max_turns\":0}' WHERE rid = ?", (rid[sroom],))
    con.commit()
    con.close()
    f.server = Server(TAPISD, "--db", f.db)
    rc, steps, end, err = replay_json(f.server.address, sroom)
    assert rc == 1 and steps == [] and end["steps"] == 0 and end["as_recorded"] is False, end
    assert end["message"].startswith("game_new refuses the record: bad_option: "), end
    p = subprocess.run([TAPIS, f.server.address, "replay", sroom], input="",
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 1 and p.stdout == "", p
    assert "tapis: replay %s: game_new refuses the record: bad_option" % sroom in p.stderr, p


def copy_room(con, rid, new_rid):
    """A copy of finished room `rid` under the number `new_rid` but its own id
    (a deal is the room's: docs/FAIRNESS.md), which hides the original (the
    newest room of an id is the record): its row, seats and journal. Returns
    its id. uncopy_room() shows the original again."""
    con.execute("INSERT INTO rooms (rid, code, game, players, options, seed, deal, server_seed, "
                "private, title, status, seq, created, ended, result, note) SELECT ?, code, game, "
                "players, options, seed, deal, server_seed, 0, title, status, seq, created, "
                "ended, result, note FROM rooms WHERE rid = ?", (new_rid, rid))
    con.execute("INSERT INTO seats (rid, seat, name, session, bot, strategy, level, pace_min, "
                "pace_max) SELECT ?, seat, name, session, bot, strategy, level, pace_min, "
                "pace_max FROM seats WHERE rid = ?", (new_rid, rid))
    con.execute("INSERT INTO journal (rid, n, kind, seat, at, data) SELECT ?, n, kind, seat, at, "
                "data FROM journal_all WHERE rid = ?", (new_rid, rid))
    return con.execute("SELECT code FROM rooms WHERE rid = ?", (rid,)).fetchone()[0]


def uncopy_room(con, new_rid):
    for table in ("rooms", "seats", "journal"):
        con.execute("DELETE FROM %s WHERE rid = ?" % table, (new_rid,))


def export(db, game_id):
    return subprocess.run([TAPISD, "--db", db, "--export-game", game_id], capture_output=True,
                          text=True, timeout=TIMEOUT)


@check
def a_journal_a_restore_refuses_is_refused_at_the_entry_the_server_names():
    f = fixture()
    room, record, _ = f.slap
    acts = [a for a in record["actions"] if a["kind"] == "act"]
    gone = acts[len(acts) // 2]  # deleted: the entry after it is refused
    # an act put before the first one: the game's clock would go back
    late = next(a for a in reversed(acts) if a["at"] > acts[0]["at"])
    back = acts[0]["at"] - 1
    clock = max(a["at"] for a in changes(record) if a["n"] < late["n"])
    con = sqlite3.connect(f.db)
    rid = con.execute("SELECT rid FROM rooms WHERE code = ?", (room,)).fetchone()[0]
    top = con.execute("SELECT max(rid) FROM rooms").fetchone()[0]
    con.close()
    # (the entry refused, the entry deleted, the client's words, the server's, the tampering)
    cases = [(gone["n"] + 1, gone["n"], "missing_entry: entry %d is missing (found %d)"
              % (gone["n"], gone["n"] + 1), "entry %d is missing (found %d)"
              % (gone["n"], gone["n"] + 1),
              ("DELETE FROM journal WHERE rid = ? AND n = ?", (top + 1, gone["n"]))),
             (late["n"], None, "time_goes_back: time goes back (%d < %d)" % (back, clock),
              "entry %d: time goes back (%d < %d)" % (late["n"], back, clock),
              ("UPDATE journal SET at = ? WHERE rid = ? AND n = ?", (back, top + 1, late["n"])))]
    for n, deleted, why, server_why, (sql, args) in cases:
        # one tampered copy at a time: it hides the game it copies
        f.server.stop()
        con = sqlite3.connect(f.db)
        uncopy_room(con, top + 1)
        game_id = copy_room(con, rid, top + 1)
        con.execute(sql, args)
        con.commit()
        con.close()
        # the server's own replay (--export-game, a restore's checks) refuses it
        r = export(f.db, game_id)
        assert r.returncode == 1 and r.stdout == "", r
        assert "game %s does not replay: %s" % (game_id, server_why) in r.stderr, r.stderr
        f.server = Server(TAPISD, "--db", f.db)
        rc, steps, end, err = replay_json(f.server.address, game_id)
        assert rc == 1, (rc, err)
        # the steps before the entry refused are kept
        before = [a for a in changes(record) if a["n"] < n and a["n"] != deleted]
        assert len(steps) == len(before) + 1, (len(steps), len(before), end)
        assert end["as_recorded"] is False and end["result"] is None, end
        assert end["message"] == "entry %d does not replay: %s" % (n, why), end
    f.server.stop()
    con = sqlite3.connect(f.db)
    uncopy_room(con, top + 1)
    con.commit()
    con.close()
    f.server = Server(TAPISD, "--db", f.db)


@check
def a_record_with_an_entry_twice_is_refused_at_the_second():
    """A record the store could not hold (its journal is keyed by n), from a
    server that sends one: the second copy of an entry stands where the next
    one is expected."""
    f = fixture()
    room, record, _ = f.slap
    acts = [a for a in record["actions"] if a["kind"] == "act"]
    twice = acts[len(acts) // 2]
    tampered = json.loads(json.dumps(record))
    k = next(i for i, a in enumerate(tampered["actions"]) if a["n"] == twice["n"])
    tampered["actions"].insert(k + 1, dict(tampered["actions"][k]))
    fake = FakeServer()
    try:
        p = subprocess.Popen([TAPIS, fake.address, "replay", room, "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        fake.hello()
        req = fake.next_request()
        assert req["cmd"] == "replay" and req["game_id"] == room, req
        fake.send({"re": "replay", "ok": True, "record": tampered})
        out, err = p.communicate(timeout=TIMEOUT)
    finally:
        fake.close()
    assert p.returncode == 1, (p.returncode, err)
    lines = [json.loads(l) for l in out.splitlines()]
    steps, end = [l for l in lines if "step" in l], lines[-1]
    assert len(steps) == len([a for a in changes(record) if a["n"] <= twice["n"]]) + 1, steps[-1]
    assert end["as_recorded"] is False and end["result"] is None, end
    assert end["message"] == ("entry %d does not replay: missing_entry: entry %d is missing "
                              "(found %d)" % (twice["n"], twice["n"] + 1, twice["n"])), end


if __name__ == "__main__":
    run()
