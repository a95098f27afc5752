#!/usr/bin/env python3
"""test_rtt.py — the server's pings and what they measure, quickly: pings
after hello and pongs answered with the estimate; `lag_ms` beside a seat and
the room's `race` rule in room events; the room option race=; a
connection that never answers is left alone after three pings; `seq` of
an act checked; the journal's race entries; a line quicker than its
sender's estimate settled by the pong of a ping sent at once. The races' fairness across
round trips is test_race_fair.py (suite soak), the rule with the clock
set is test_room.c. Usage: test_rtt.py PATH/TO/tapisd"""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import is_ev, run_tests  # noqa: E402
from util import served  # noqa: E402


def answer_pings(c, n, delay=0):
    """Answer the next n pings of c, each `delay` s late (0: at once, the default;
    later, its estimate is a congested spell's); returns the last pong's reply."""
    r = None
    for _ in range(n):
        ping = c.event(is_ev("ping"))
        assert set(ping) == {"ev", "n"} and ping["n"] >= 1, ping
        time.sleep(delay)
        r = c.ok("pong", n=ping["n"])
    return r


@served("--ping-interval", "30")
def pongs_measure_the_round_trip_shown_beside_the_seat(srv):
    a = srv.connect("ann")
    r = answer_pings(a, 3)
    assert isinstance(r["lag_ms"], int) and r["lag_ms"] >= 1, r
    room = a.ok("create", game="233", players=2)["room"]
    ev = a.event(is_ev("room", room))
    assert ev["race"] == "reaction", ev
    assert isinstance(ev["seats"][0]["lag_ms"], int), ev
    b = srv.connect("bob")  # answers no ping: no lag_ms beside its seat
    b.ok("join", room=room)
    ev = a.event(lambda e: e.get("ev") == "room" and e.get("status") == "playing")
    assert "lag_ms" in ev["seats"][0] and "lag_ms" not in ev["seats"][1], ev
    # a late pong, or one of no ping, is answered and teaches nothing
    r = b.ok("pong", n=999999)
    assert "lag_ms" not in r, r


@served("--ping-interval", "20")
def a_connection_that_never_answers_gets_three_pings(srv):
    c = srv.connect("netcat")
    for n in (1, 2, 3):
        assert c.event(is_ev("ping"))["n"] == n
    # ten intervals and more: no fourth (pings only come later on a slow machine)
    time.sleep(0.3)
    c.ok("ping")
    assert not [e for e in c.events if e.get("ev") == "ping"], c.events


@served()
def pong_is_checked(srv):
    c = srv.connect()
    assert c.request("pong", n=1)["error"]["code"] == "hello_first"
    a = srv.connect("ann")
    assert a.request("pong")["error"]["code"] == "bad_request"
    assert a.request("pong", n=0)["error"]["code"] == "bad_request"


@served()
def the_race_rule_is_a_room_option(srv):
    a = srv.connect("ann")
    room = a.ok("create", game="slap", players=2, options={"race": "arrival"})["room"]
    assert a.event(is_ev("room", room))["race"] == "arrival"
    r = a.request("create", game="slap", players=2, options={"race": "fastest"})
    assert r["error"]["code"] == "bad_option", r
    b = srv.connect("bob")
    b.send_raw(b"create slap 2 race=arrival\n")
    assert b.reply(None)["ok"] is True
    assert b.event(is_ev("room"))["race"] == "arrival"


@served("--race", "arrival")
def the_server_sets_the_default_rule(srv):
    a = srv.connect("ann")
    room = a.ok("create", game="233", players=2)["room"]
    assert a.event(is_ev("room", room))["race"] == "arrival"


@served("--seed", "5", "--bot-delay", "60000")
def an_act_may_name_the_state_it_answers(srv):
    a = srv.connect("ann")
    room = a.ok("create", game="slap", players=2, options={"go_ms": 0})["room"]
    a.ok("addbot", room=room)  # (which waits a minute: --bot-delay)
    st = a.event(lambda e: e.get("ev") == "state" and e["view"].get("legal"))
    r = a.request("act", room=room, action={"type": "draw"}, seq=st["seq"] + 1000)
    assert r["error"]["code"] == "bad_request" and "seq" in r["error"]["message"], r
    legal = st["view"]["legal"]
    r = a.request("act", room=room, action=legal[0], seq=st["seq"])
    assert r["ok"] is True, r


def a_quick_act_after_slow_pongs(srv):
    """ann's pongs all came 150 ms late (5 of them: her estimate), then her
    table starts and she acts the moment its state comes: too quick for that
    estimate. Returns ann, her room and the action's reply."""
    a = srv.connect("ann")
    r = answer_pings(a, 5, delay=0.15)
    assert r["lag_ms"] >= 150, r
    room = a.ok("create", game="233", players=2)["room"]
    b = srv.connect("bob")  # answers no ping: credited nothing
    b.ok("join", room=room)
    st = a.event(lambda e: e.get("ev") == "state" and e["view"].get("legal"))
    assert st["view"]["turn"] == st["view"]["seat"] == 0, st["view"]  # (--seed: ann's turn)
    r = a.request("act", room=room, action=st["view"]["legal"][0], seq=st["seq"])
    assert r["ok"] is True, r
    return a, room


QUICK = ("--ping-interval", "300", "--seed", "3")


@served(*QUICK)
def an_honest_player_keeps_its_quota_when_its_round_trip_shrinks(srv):
    """The network got faster: the ping sent at once upon the quick act comes
    back as fast as the act did, the estimate was only old, and nothing is
    taken from the quota."""
    a, room = a_quick_act_after_slow_pongs(srv)
    ping = a.event(is_ev("ping"))  # the one asked at once, ahead of the schedule
    r = a.ok("pong", n=ping["n"])
    assert r["lag_ms"] <= 20, r
    srv.wait_log(r"round trip shrank to \d+ ms: no race quota taken")
    assert not srv.log_has("sooner than the sender"), "an honest player's quota was taken"


@served(*QUICK)
def a_liar_whose_next_pong_is_as_slow_loses_its_quota(srv):
    """The pongs were held back on purpose: the one asked at once is held too,
    and the lie is proven."""
    a, room = a_quick_act_after_slow_pongs(srv)
    ping = a.event(is_ev("ping"))
    time.sleep(0.15)
    a.ok("pong", n=ping["n"])
    srv.wait_log(r"sooner than the sender's round trip allows \(its next pong was as slow\)")
    assert not srv.log_has("no race quota taken")


@served(*QUICK)
def a_liar_that_never_answers_loses_its_quota_at_its_next_line(srv):
    """No pong within a second of the doubt: the next line proves the lie."""
    a, room = a_quick_act_after_slow_pongs(srv)
    time.sleep(1.1)
    st = a.event(lambda e: e.get("ev") == "state" and e["view"].get("legal"))
    a.request("act", room=room, action=st["view"]["legal"][0])
    srv.wait_log(r"sooner than the sender's round trip allows \(no pong came\)")


def journal_of(srv, a, room):
    return a.ok("replay", game_id=room)["record"]["actions"]


@served("--ping-interval", "20", "--db", os.path.join(tempfile.mkdtemp(), "t.db"), "--seed",
        "7", "--bot-delay", "0")
def the_journal_says_how_named_acts_were_settled(srv):
    a = srv.connect("ann")
    room = a.ok("create", game="aspoint3", players=2, options={"race": "arrival"})["room"]
    a.ok("addbot", room=room)
    seen = set()
    while True:
        e = a.event(lambda e: e.get("ev") in ("state", "game_over", "ping"))
        if e["ev"] == "ping":
            a.ok("pong", n=e["n"])
            continue
        if e["ev"] == "game_over":
            break
        legal = e["view"].get("legal") or []
        if legal and e["seq"] not in seen:
            seen.add(e["seq"])
            a.request("act", room=room, action=legal[0], seq=e["seq"])  # (a race lost: refused)
    actions = journal_of(srv, a, room)
    races = [(i, x) for i, x in enumerate(actions) if x["kind"] == "race"]
    assert races, actions[:10]
    for i, x in races:
        nxt = actions[i + 1]
        assert nxt["kind"] == "act" and nxt["seat"] == x["seat"] and nxt["at"] == x["at"], nxt
        d = x["data"]
        assert d["rule"] == "arrival" and d["credit_us"] == 0 and d["hold_us"] == 0, d
        assert isinstance(d["seq"], int) and d["arrival"] <= x["at"], d


if __name__ == "__main__":
    run_tests(sys.argv)
