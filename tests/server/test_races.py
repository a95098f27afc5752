#!/usr/bin/env python3
"""test_races.py — two claims of one discard. Claims further apart than the
dispute window go to the earlier one; claims within it go to the lower score
(and, between equal scores, to the earlier one). The window comes from
tapisd --dispute-window; the deal from --seed, so a run is reproducible.

The script plays a 4-seat table itself, one action at a time and never
taking or claiming, until the position it needs arises: the turn player may
`take` the discard and another seat may `claim` it. Then it sends the two
competing actions at chosen moments.

Timing: the server stamps each line when it reads it, and a loaded machine
(a hypervisor's steal, another build) may delay any read by more than the
gaps the script leaves. So the script does not assume where its actions
land: the server logs each action with its stamp (--log-level debug), and
each test checks the rule against those stamps (within the window: the
lower score, then the earlier; beyond it: the earlier, the other too_late),
which holds for every timing. The same races at exact times, with the
server clock set by the test, are tests/server/test_room.c (the window) and
test_scheduler.c (stamp order, the backlog). Usage: test_races.py PATH/TO/tapisd"""
import functools
import json
import os
import random
import re
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, run_tests, test  # noqa: E402
from util import served  # noqa: E402

WINDOW_MS = 400


class Table:
    def __init__(self, exe, seed, extra=()):
        self.srv = Server(exe, "--dispute-window", str(WINDOW_MS), "--seed", str(seed),
                          "--turn-timer", "0", "--log-level", "debug", *extra)
        self.cs = [self.srv.connect("s%d" % i) for i in range(4)]
        self.room = None
        self.rng = random.Random(seed)
        self.acts_seen = 0
        self.new_table()

    def new_table(self):
        """A table of the four (the last one left): each is dealt anew."""
        for c in self.cs if self.room else ():
            c.ok("leave", room=self.room)
        r = self.cs[0].ok("create", game="233", players=4)
        self.room = r["room"]
        for c in self.cs[1:]:
            c.ok("join", room=self.room)
        self.sync()

    def sync(self):
        """Every seat's current view (the state command answers after pending events)."""
        self.views = [c.ok("state", room=self.room)["view"] for c in self.cs]
        for c in self.cs:
            c.events = []
        return self.views

    def score(self, seat):
        return self.views[0]["players"][seat]["score"]

    def step(self):
        """One plain action by a seat that has one (no take, no claim). False if none."""
        for seat, v in enumerate(self.views):
            plain = [a for a in v["legal"] if a["type"] not in ("take", "claim")]
            if plain:
                a = self.rng.choice(plain)
                r = self.cs[seat].request("act", room=self.room, action=a)
                assert r["ok"], (a, r)
                self.sync()
                return True
        return False

    def find(self, want, limit=3000):
        """Play until want(T, take_action, O, claim_action) holds; return that tuple
        (in a first round: then the next table, dealt anew, is played)."""
        for _ in range(limit):
            v = self.views[0]
            if v["phase"] == "over" or v["round"] > 1:
                self.new_table()
                continue
            turn = v["turn"]
            takes = [a for a in self.views[turn]["legal"] if a["type"] == "take"]
            for o, ov in enumerate(self.views):
                claims = [a for a in ov["legal"] if a["type"] == "claim"]
                if o != turn and takes and claims and want(turn, o):
                    return turn, takes[0], o, claims[0]
            if not self.step():
                time.sleep(0.01)
                self.sync()
        raise AssertionError("the position never arose")

    def act(self, seat, action):
        return self.cs[seat].request("act", room=self.room, action=action)

    def act_then_late(self, first, first_action, late, late_action):
        """first acts (accepted); late acts after the dispute window closed.
        Returns the late one's reply and the event that settled the claim."""
        assert self.act(first, first_action)["ok"]
        time.sleep(WINDOW_MS / 1000 + 0.3)
        reply = self.act(late, late_action)
        return reply, self.settled()

    def settled(self):
        """Wait for the claim to be settled; return the event that settled it."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            v = self.sync()[0]
            if not v["claims"]:
                for e in reversed(v["events"]):
                    if e.get("did") in ("take", "claim"):
                        return e
            time.sleep(0.05)
        raise AssertionError("claims not settled: %r" % v)

    def stamps(self, n):
        """The last n actions that reached the game: [(seat, stamp_us, result)]."""
        deadline = time.monotonic() + 10
        while True:  # the log arrives through a pipe: let it catch up
            acts = [(int(m.group(1)), int(m.group(2)), m.group(3)) for m in
                    (re.search(r"act seat=(\d+) stamp=(\d+) type=\S+ (\S+)", l)
                     for l in list(self.srv.log)) if m]
            if len(acts) >= self.acts_seen + n or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert len(acts) >= self.acts_seen + n, acts[-5:]
        return acts[-n:]

    def race(self, a, b):
        """Seats a and b raced (in that order of their sends): the winner and
        the number of contenders that the rule gives for the stamps the
        server logged, and the seat that came second by stamp."""
        (s1, t1, _), (s2, t2, _) = sorted(self.stamps(2), key=lambda x: x[1])
        assert {s1, s2} == {a, b}, (s1, s2, a, b)
        if t2 // 1000 > t1 // 1000 + WINDOW_MS:  # the game's now is in ms
            return s1, 1, s2
        lower = s1 if self.scores[s1] <= self.scores[s2] else s2
        return lower, 2, s2

    def mark(self):
        """Remember the actions logged so far: race() looks at the ones after."""
        self.acts_seen = len([l for l in list(self.srv.log) if " act seat=" in l])
        self.scores = [self.score(i) for i in range(4)]  # before the race

    def close(self):
        self.srv.finish()


def at_table(seed, extra=()):
    """@at_table(seed) on `def name(t):` — a test at its own Table, closed after it."""
    def register(fn):
        @functools.wraps(fn)
        def run(exe):
            t = Table(exe, seed, extra)
            try:
                fn(t)
            finally:
                t.close()
        return test(run)
    return register


def first_alone_then_late(t, first, first_act, late, late_act):
    """`first` acts, then `late` once the window has closed (sent after the
    first's reply and a sleep longer than the window: its stamp is later than
    the window's end whatever the machine's load). The first wins alone and
    the late action is refused: returns (the refusal, the settling event)."""
    t.mark()
    refused, e = t.act_then_late(first, first_act, late, late_act)
    assert t.race(first, late) == (first, 1, late), t.stamps(2)
    assert refused["ok"] is False, refused
    assert e["seat"] == first and e["contenders"] == 1, e
    return refused, e


@at_table(1)
def claims_apart_go_to_the_earlier_one(t):
    turn, take, o, claim = t.find(lambda turn, o: True)
    refused, _ = first_alone_then_late(t, turn, take, o, claim)  # the take, then the claim
    assert refused["error"]["code"] == "too_late", refused
    assert t.views[turn]["phase"] == "discard" and t.views[0]["turn"] == turn


@at_table(2)
def claim_first_then_take_late_goes_to_the_claim(t):
    turn, take, o, claim = t.find(lambda turn, o: True)
    _, e = first_alone_then_late(t, o, claim, turn, take)
    assert e["did"] == "claim", e


@at_table(3)
def claims_within_the_window_go_to_the_lower_score(t):
    turn, take, o, claim = t.find(lambda turn, o: t.score(turn) != t.score(o), limit=6000)
    first, second = (turn, o) if t.score(turn) > t.score(o) else (o, turn)
    acts = {turn: take, o: claim}
    t.mark()
    assert t.act(first, acts[first])["ok"]
    time.sleep(0.05)  # far within the window, unless the machine stalls: see race()
    r = t.act(second, acts[second])
    e = t.settled()
    winner, contenders, _ = t.race(first, second)
    if contenders == 2:
        assert winner == second  # the lower score, although second
        assert r["ok"], "a claim within the window joins the dispute: %r" % r
    else:
        assert r["ok"] is False and r["error"]["code"] == "too_late", r
    assert e["seat"] == winner and e["contenders"] == contenders, (e, t.score(first),
                                                                   t.score(second))


@at_table(4)
def claims_within_the_window_with_equal_scores_go_to_the_earlier(t):
    turn, take, o, claim = t.find(lambda turn, o: t.score(turn) == t.score(o))
    t.mark()
    assert t.act(o, claim)["ok"]
    time.sleep(0.05)
    t.act(turn, take)
    e = t.settled()
    assert t.race(o, turn)[0] == o  # the earlier, in the window or beyond it
    assert e["seat"] == o and e["contenders"] == t.race(o, turn)[1], e


@at_table(4, extra=("--line-rate", "0", "--error-rate", "0", "--out-cap", "268435456"))
def a_backlog_cannot_overtake_an_earlier_line(t):
    """The turn player queues 10,000 `state` lines (60 KB, under the read
    pause, each a few tens of µs of work), then sends `take` 20 ms after
    another seat's `claim` (scores equal, both in the window: the earlier
    wins). The take carries the stamp of its own read, later than the claim,
    so the honest claim wins. Before, a connection's lines all carried the
    stamp of its oldest waiting line, and the late take won every time.
    A stall of the machine longer than the 20 ms could still make the
    server read the take first: the outcome is checked against the logged
    stamps, and the same backlog at set times is test_scheduler.c's."""
    turn, take, o, claim = t.find(lambda turn, o: t.score(turn) == t.score(o))
    tc = t.cs[turn]
    n = 10000
    backlog = b"state\n" * n
    replies = []

    def read_turn():  # the turn player reads its answers, as a real client would
        while True:
            m = json.loads(tc.read_line(20))
            if m.get("re"):
                replies.append(m)
                if m.get("id") == "take":
                    return
    t.mark()
    reader = threading.Thread(target=read_turn)
    reader.start()
    sender = threading.Thread(target=tc.send_raw, args=(backlog,))
    sender.start()
    time.sleep(0.005)  # the backlog is on its way
    t.cs[o].send({"cmd": "act", "id": "claim", "room": t.room, "action": claim})
    time.sleep(0.02)
    sender.join()
    tc.send({"cmd": "act", "id": "take", "room": t.room, "action": take})
    # its reply waits for the backlog read before it: seconds under a sanitizer
    assert t.cs[o].reply("claim", 60)["ok"]
    reader.join(30)
    assert len(replies) == n + 1, len(replies)
    deadline = time.monotonic() + 5
    while True:
        v = t.cs[o].ok("state", room=t.room)["view"]
        if not v["claims"] or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    settled = [e for e in v["events"] if e.get("did") in ("take", "claim")]
    assert settled, v["events"]
    e = settled[-1]
    winner, contenders, _ = t.race(o, turn)
    assert e["seat"] == winner and e["contenders"] == contenders, (e, t.stamps(2), replies[-1])


@at_table(5)
def same_iteration_claims_follow_read_order(t):
    """Both claims in flight at once: whichever the server stamped first wins
    the tie, and both replies and the settlement agree with the log order."""
    turn, take, o, claim = t.find(lambda turn, o: t.score(turn) == t.score(o))
    t.mark()
    t.cs[o].send({"cmd": "act", "id": "c", "room": t.room, "action": claim})
    t.cs[turn].send({"cmd": "act", "id": "t", "room": t.room, "action": take})
    rc, rt = t.cs[o].reply("c"), t.cs[turn].reply("t")
    e = t.settled()
    winner, contenders, later = t.race(o, turn)
    assert e["contenders"] == contenders and e["seat"] == winner, (e, t.stamps(2))
    assert (rc if later == o else rt)["ok"] == (contenders == 2), (rc, rt)
    v = t.views[0]
    assert v["turn"] == e["seat"]


@at_table(6)
def lines_that_wait_in_the_kernel_keep_their_arrival(t):
    """The server is stopped (SIGSTOP) while a claim arrives, then a take at
    least 100 ms later; both wait in the kernel and are read in the same
    loop iteration once it runs again. With the kernel's receive stamps
    (--kernel-stamps, on by default) the logged stamps stay at least as far
    apart as the sends were (less 2 ms for reading the two clocks), and the
    earlier claim wins the tie of equal scores; stamped when read, the two
    would be microseconds apart. The gap is measured, not assumed: a stall
    of the test itself only widens it."""
    turn, take, o, claim = t.find(lambda turn, o: t.score(turn) == t.score(o))
    t.mark()
    os.kill(t.srv.proc.pid, signal.SIGSTOP)
    try:
        t.cs[o].send({"cmd": "act", "id": "c", "room": t.room, "action": claim})
        sent = time.monotonic()
        time.sleep(0.1)
        begun = time.monotonic()
        t.cs[turn].send({"cmd": "act", "id": "t", "room": t.room, "action": take})
    finally:
        os.kill(t.srv.proc.pid, signal.SIGCONT)
    t.cs[o].reply("c"), t.cs[turn].reply("t")
    e = t.settled()
    stamps = {seat: us for seat, us, _ in t.stamps(2)}
    gap_us = stamps[turn] - stamps[o]
    assert gap_us >= (begun - sent) * 1e6 - 2000, (gap_us, begun - sent, t.stamps(2))
    assert t.race(o, turn)[0] == o and e["seat"] == o, (e, t.stamps(2))


@served("--log-level", "debug", "--turn-timer", "0", "--error-rate", "0")
def actions_reach_the_game_in_stamp_order_under_load(srv):
    """Four players pipeline hundreds of actions each at the same moment, more
    than the server takes in one loop iteration: the debug log, written as
    each action reaches the game, must show non-decreasing read stamps."""
    cs = [srv.connect("s%d" % i) for i in range(4)]
    room = cs[0].ok("create", game="233", players=4)["room"]
    for c in cs[1:]:
        c.ok("join", room=room)
    kinds = [{"type": "draw"}, {"type": "take"}, {"type": "discard", "card": "Y1"},
             {"type": "claim", "cards": ["Y1", "Y1"]}]
    bursts = []
    for i, c in enumerate(cs):
        lines = []
        for k in range(300):
            lines.append(json.dumps({"cmd": "act", "id": k, "room": room,
                                     "action": kinds[(i + k) % 4]}))
        # the first chunk is big (over one iteration's budget), then small ones interleave
        chunks = [lines[:150]] + [lines[j:j + 10] for j in range(150, 300, 10)]
        bursts.append([("\n".join(ch) + "\n").encode() for ch in chunks])
    start = threading.Barrier(4)

    def fire(c, chunks):
        start.wait()
        for data in chunks:
            c.send_raw(data)
            time.sleep(0.0005)
    ts = [threading.Thread(target=fire, args=(c, d)) for c, d in zip(cs, bursts)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for c in cs:
        got = 0
        while got < 300:
            m = c.recv()
            if "re" in m:
                assert m["id"] == got, "reply out of order: %r" % m
                got += 1
    deadline = time.monotonic() + 10
    while True:  # the log arrives through a pipe: let it catch up
        stamps = [int(m.group(1)) for m in
                  (re.search(r"act seat=\d+ stamp=(\d+)", l) for l in list(srv.log)) if m]
        if len(stamps) >= 1200 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert len(stamps) == 1200, len(stamps)
    bad = [(a, b) for a, b in zip(stamps, stamps[1:]) if b < a]
    assert not bad, "actions reached the game out of stamp order: %r" % bad[:5]


if __name__ == "__main__":
    run_tests(sys.argv)
