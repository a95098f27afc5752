#!/usr/bin/env python3
"""test_play.py — whole games of 233 over real sockets: four people choosing
from "legal", one person with three built-in bots, and a spectator who must
never receive a hand; and, for every game, state events (encoded for all
members from one encoding of the public view) equal to the `state` reply
(built whole), key order included. Usage: test_play.py PATH/TO/tapisd"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Player, Server, is_ev, play, run_tests, test  # noqa: E402
from util import served, watched_table  # noqa: E402

# Short games: the default target (233) takes 10-30 s of random play.
OPTIONS = {"target": 60, "dispute_ms": 20}


def hand_paths(obj, path=""):
    """Every path at which a key "hand" occurs in obj."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = path + "/" + k
            if k == "hand":
                out.append(p)
            out += hand_paths(v, p)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += hand_paths(v, "%s/%d" % (path, i))
    return out


def no_foreign_hand(seat):
    """A check for Player.handle: `seat` sees a hand only as its own view's "hand"."""
    def check(p, m):
        for path in hand_paths(m):
            ok = seat is not None and m.get("ev") == "state" and path == "/view/hand" \
                and m["view"].get("seat") == seat
            assert ok, "seat %r received a hand at %s: %r" % (seat, path, m)
    return check


def check_game_over(players):
    """The same result for everyone, one that ends a game of 233: a single winner
    (a tie over the target plays another round), the highest total, over the
    target; and nothing left to play."""
    results = [p.over["result"] for p in players]
    assert all(r == results[0] for r in results), results
    r = results[0]
    assert len(r["winners"]) == 1 and r["rounds"] >= 1, r
    top = r["scores"][r["winners"][0]]
    assert top > OPTIONS["target"] and sorted(r["scores"])[-2] < top, r
    for p in players:
        assert not p.view["legal"], "legal actions after game over: %r" % p.view["legal"]


def accepted(p):
    """p's acts the server took: all but the refused and the one still unanswered
    (which may have been taken: this is a lower bound)."""
    return p.acts - p.refused - (1 if p.pending else 0)


@served()
def four_clients_play_to_game_over_choosing_from_legal(srv):
    cs = [srv.connect("p%d" % i) for i in range(4)]
    room = cs[0].ok("create", game="233", players=4, options=OPTIONS)["room"]
    for i, c in enumerate(cs[1:], 1):
        assert c.ok("join", room=room)["seat"] == i
    players = [Player(c, room) for c in cs]
    checks = {}

    def check(p, m):
        no_foreign_hand(cs.index(p.c))(p, m)
        if m.get("ev") == "state":
            checks[p] = checks.get(p, 0) + 1
            assert m["view"]["seat"] == cs.index(p.c), m
            assert isinstance(m["view"]["legal"], list)
    play(players, random.Random(4), timeout=60, check=check)
    check_game_over(players)
    acts = sum(p.acts for p in players)
    print("  %d actions, %d refused after the state moved on, result %r"
          % (acts, sum(p.refused for p in players), players[0].over["result"]))
    # The deal is the server's, at random, and may end the game at once (a
    # rainbow dealt is 100 points: 18 actions). For every deal: the game was
    # played (a round ends with a discard at least), everyone saw its last
    # state, and each act taken made a state of its own after the deal's.
    assert sum(accepted(p) for p in players) >= 1
    assert len({p.seq for p in players}) == 1, [p.seq for p in players]
    assert players[0].seq >= 1 + sum(accepted(p) for p in players), \
        (players[0].seq, [accepted(p) for p in players])
    assert all(checks[p] >= 1 for p in players), checks
    r = cs[0].request("act", room=room, action={"type": "draw"})
    assert r["ok"] is False and r["error"]["code"] == "game_over", r


@served("--bot-delay", "1-5", "--seed", "3")
def one_client_with_three_bots(srv):
    # Seed 3: seat 0 (the person) is not dealt a winning hand, so it opens the
    # game by drawing, before anything can race. What follows depends on the
    # bots' timing and may be short; whatever it is, the bots play (a round
    # ends with the others' last draws and discards, and there are three of them).
    c = srv.connect("solo")
    room = c.ok("create", game="233", options=OPTIONS)["room"]
    seats = [c.ok("addbot")["seat"] for _ in range(3)]
    assert seats == [1, 2, 3], seats
    e = c.event(is_ev("state", room))
    c.events.insert(0, e)
    me = Player(c, room)
    play([me], random.Random(7), timeout=90, check=no_foreign_hand(0))
    check_game_over([me])
    assert accepted(me) >= 1, (me.acts, me.refused)
    moved = {ev["seat"] for m in c.all if is_ev("state", room)(m)
             for ev in m["view"]["events"] if ev.get("did") in ("draw", "discard")}
    assert {1, 2, 3} & moved, "the bots never drew nor discarded: %r" % moved
    r = c.ok("rooms")["rooms"][0]
    assert r["status"] == "over" and [s["bot"] for s in r["seats"]] == [False, True, True, True]


@served("--bot-delay", "0-2")
def spectator_never_receives_a_hand(srv):
    host, w, room = watched_table(srv, "host", "watcher", OPTIONS)
    host.ok("addbot")
    host.ok("addbot")
    me = Player(host, room)
    spec = Player(w, room)
    spec.maybe_act = lambda *a, **k: None  # a spectator has nothing to play
    check_host = no_foreign_hand(0)
    check_spec = no_foreign_hand(None)

    def check(p, m):
        (check_spec if p is spec else check_host)(p, m)
        if p is spec and m.get("ev") == "state":
            assert "legal" not in m["view"] and "seat" not in m["view"], m
    play([me, spec], random.Random(11), timeout=90, check=check)
    states = [m for m in w.all if m.get("ev") == "state"]
    assert len(states) >= 2 and states[-1]["seq"] == me.seq, (len(states), me.seq)
    s = w.ok("state", room=room)
    assert not hand_paths(s), hand_paths(s)


@test
def many_tables_at_once(exe):
    """Twenty bot tables at full speed watched by one client. The watcher reads
    more slowly than twenty tables of bots play: the output cap is raised so
    that it is not dropped as a slow reader (test_limits.py tests that)."""
    srv = Server(exe, "--bot-delay", "0", "--out-cap", str(256 << 20))
    try:
        w = srv.connect("watcher")
        rooms = []
        for i in range(20):
            h = srv.connect("h%d" % i)
            rooms.append(h.ok("create", game="233", players=2, options=OPTIONS)["room"])
            w.ok("watch", room=rooms[-1])
            h.ok("addbot")  # the table starts: h and a bot
            h.ok("leave")  # a bot takes over the seat h leaves during play
        over = set()
        while len(over) < len(rooms):
            e = w.event(lambda e: e.get("ev") == "game_over", timeout=60)
            over.add(e["room"])
        assert over == set(rooms)
    finally:
        srv.finish()



@served("--dispute-window", "750")
def a_233_view_says_the_rooms_dispute_window(srv):
    """233's view carries the room's dispute_ms, the server's --dispute-window
    unless the room chose one, so that a client can show the countdown."""
    a, b, w = srv.connect("a"), srv.connect("b"), srv.connect("w")
    for options, want in (({}, 750), ({"dispute_ms": 20}, 20), ({"dispute_ms": 0}, 0)):
        room = a.ok("create", game="233", players=2, options=options)["room"]
        w.ok("watch", room=room)
        b.ok("join", room=room)
        for c in (a, b, w):
            assert c.ok("state", room=room)["view"]["dispute_ms"] == want, (options, c.name)
        for c in (a, b, w):
            c.ok("leave", room=room)


@test
def state_events_equal_the_state_reply_in_every_game(exe):
    """room_changed() joins encoded parts; `state` builds the view whole."""
    def text(v):
        return json.dumps(v, separators=(",", ":"))
    for game in ("233", "aspoint3", "seqnum", "slap"):
        srv = Server(exe, "--turn-timer", "0")
        try:
            a, b, w = srv.connect("a"), srv.connect("b"), srv.connect("w")
            room = a.ok("create", game=game, players=2)["room"]
            w.ok("watch", room=room)
            b.ok("join", room=room)
            rng = random.Random(5)
            compared = 0
            for step in range(40):
                for c in (a, b, w):
                    st = c.ok("state", room=room)
                    got = [e for e in c.events if is_ev("state", room)(e)]
                    del c.events[:]
                    assert got, "%s: no state event before seq %d" % (game, st["seq"])
                    last = got[-1]
                    assert last["seq"] == st["seq"], (game, last["seq"], st["seq"])
                    assert text(last["view"]) == text(st["view"]), (game, last, st)
                    assert last["waiting"] == st["waiting"], (game, last, st)
                    compared += 1
                    c.events.append(last)  # still the latest
                    legal = st["view"].get("legal") or []
                    if c is not w and legal:
                        c.request("act", room=room, action=rng.choice(legal))
            assert compared == 120
        finally:
            srv.finish()


if __name__ == "__main__":
    run_tests(sys.argv)
