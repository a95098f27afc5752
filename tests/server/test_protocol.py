#!/usr/bin/env python3
"""test_protocol.py — tapisd's envelope over real sockets: replies, the lobby,
and a catalogue of bad input, one case per kind of trouble, each expecting its
named error and disturbing nobody else. Usage: test_protocol.py PATH/TO/tapisd"""
import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Client, Server, is_ev, run_tests, test, wait_for  # noqa: E402
from util import served  # noqa: E402


def expect_error(reply, code, re=None):
    assert reply.get("ok") is False, "expected error %s, got %r" % (code, reply)
    assert reply["error"]["code"] == code, "expected %s, got %r" % (code, reply)
    assert isinstance(reply["error"]["message"], str) and reply["error"]["message"]
    if re is not None:
        assert reply.get("re") == re, "re: expected %r, got %r" % (re, reply)


def control_still_works(c):
    assert c.ok("ping")["re"] == "ping"


@served()
def replies_come_in_request_order_with_ids(srv):
    c = srv.connect()
    c.send_raw('{"cmd":"ping","id":"a"}\n{"cmd":"games","id":[1,2]}\nping\n'
               '{"cmd":"ping"}\n{"cmd":"nope","id":7}\n')
    r = [c.recv() for _ in range(5)]
    assert [m.get("re") for m in r] == ["ping", "games", "ping", "ping", "nope"], r
    assert r[0]["id"] == "a" and r[1]["id"] == [1, 2] and "id" not in r[2] and "id" not in r[3]
    assert r[1]["games"][0]["id"] == "233", r[1]
    expect_error(r[4], "unknown_command")
    assert r[4]["id"] == 7


@served()
def commands_before_hello_answer_hello_first(srv):
    c = srv.connect()
    expect_error(c.request("rooms"), "hello_first", "rooms")
    expect_error(c.request("create", game="233"), "hello_first")
    assert c.ok("help")["text"]
    assert "join" in c.ok("help", command="join")["text"]
    expect_error(c.request("help", command="nope"), "not_found")
    c.hello("ann")
    assert c.ok("rooms")["rooms"] == []


@served()
def bad_input_catalogue(srv):
    other = srv.connect("other")
    c = srv.connect("bad")
    cases = [
        (b'{"cmd":"ping"\n', "bad_json"),
        (b'{"cmd":"ping"} trailing\n', "bad_json"),
        (b'{"cmd":"ping","cmd":"games"}\n', "bad_json"),
        (b'{"cmd":"ping","x":"\xff\xfe"}\n', "bad_json"),
        (b'{"cmd":"ping","x":"a\x00b"}\n', "bad_json"),
        (b'{"cmd":"ping","x":' + b'[' * 100 + b']' * 100 + b'}\n', "bad_json"),
        (b'{"cmd":42}\n', "bad_request"),
        (b'{"id":1}\n', "bad_request"),
        (b'{"cmd":"join"}\n', "bad_request"),
        (b'{"cmd":"join","room":true}\n', "bad_request"),
        (b'{"cmd":"join","room":"1","seat":"0"}\n', "bad_request"),
        (b'{"cmd":"join","room":"1","seat":-1}\n', "bad_request"),
        (b'{"cmd":"create","game":"233","players":4.0}\n', "bad_request"),
        (b'{"cmd":"act","action":{"card":"Y3"}}\n', "bad_request"),
        (b'{"cmd":"act","action":"draw"}\n', "bad_request"),
        (b'{"cmd":"frobnicate"}\n', "unknown_command"),
        (b'9lives now\n', "unknown_command"),
        (b'join\n', "bad_request"),
        (b'ping \x01\n', "bad_request"),
        (b'{"cmd":"create","game":"chess"}\n', "not_found"),
        (b'{"cmd":"create","game":"233","players":9}\n', "bad_players"),
        (b'{"cmd":"create","game":"233","players":1}\n', "bad_players"),
        (b'{"cmd":"create","game":"233","options":{"nope":1}}\n', "bad_option"),
        (b'{"cmd":"create","game":"233","options":{"target":"x"}}\n', "bad_option"),
        (b'{"cmd":"join","room":"999"}\n', "not_found"),
        (b'{"cmd":"watch","room":999}\n', "not_found"),
        (b'{"cmd":"act","action":{"type":"draw"}}\n', "bad_request"),  # in no room
        (b'{"cmd":"say","text":"hi"}\n', "bad_request"),
    ]
    for data, code in cases:
        c.send_raw(data)
        r = c.recv()
        expect_error(r, code)
        control_still_works(other)
    control_still_works(c)
    assert srv.alive()


@served("--max-line", "1024")
def line_too_long_replies_then_closes(srv):
    other = srv.connect("other")
    c = srv.connect()
    c.send_raw(b"ping\n" + b"x" * 5000 + b"\nping\n")
    r = c.recv()
    assert r["re"] == "ping" and r["ok"], r
    r = c.recv()
    expect_error(r, "line_too_long")
    assert r["re"] is None, r
    rest = c.wait_closed()
    assert rest == [], "nothing may follow line_too_long: %r" % rest
    # exactly at the limit is fine
    d = srv.connect()
    d.send_raw(b"ping" + b" " * (1024 - 4) + b"\n")
    assert d.recv()["ok"]
    # a megabyte without a newline is cut off early, not buffered
    e = srv.connect()
    try:
        e.send_raw(b"y" * (1 << 20))
    except OSError:
        pass
    expect_error(e.recv(), "line_too_long")
    e.wait_closed()
    control_still_works(other)


@served()
def telnet_negotiation_is_ignored(srv):
    c = srv.connect()
    # IAC WILL ECHO, IAC DO SGA, IAC SB NAWS ... IAC SE, split across writes
    c.send_raw(b"\xff\xfb\x01\xff\xfd\x03pi")
    time.sleep(0.05)
    c.send_raw(b"ng\xff\xfa\x1f\x00\x50\x00\x18\xff\xf0\r\n")
    r = c.recv()
    assert r["re"] == "ping" and r["ok"], r


@served("--web-root", "none")
def http_request_gets_an_http_answer(srv):
    # the game port speaks HTTP too (test_ws.py): never a line of JSON to an HTTP client
    other = srv.connect("other")
    c = srv.connect()
    c.send_raw(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        d = c.sock.recv(65536)
        if not d:
            break
        data += d
    assert data.startswith(b"HTTP/1.1 404 "), data[:100]
    assert b'{"' not in data, data
    control_still_works(other)


@served("--hello-timeout", "300ms")
def hello_timeout_closes(srv):
    slow = srv.connect()
    fast = srv.connect()
    fast.hello("fast")
    t0 = time.monotonic()
    got = slow.wait_closed(5)
    assert 0.2 < time.monotonic() - t0 < 3, time.monotonic() - t0
    assert got and got[-1].get("ev") == "error" and got[-1]["error"]["code"] == "hello_timeout", got
    time.sleep(0.4)
    control_still_works(fast)  # said hello in time: stays


@served("--max-conns", "3")
def connection_cap_refuses_the_extra_one(srv):
    cs = [srv.connect("c%d" % i) for i in range(3)]
    extra = srv.connect()
    got = extra.wait_closed()
    assert got and got[0].get("ev") == "error" and got[0]["error"]["code"] == "server_full", got
    for c in cs:
        control_still_works(c)
    cs[0].close()
    # the server has noticed: it logs the close of the extra one and of cs[0]
    wait_for(lambda: sum(" closed: " in l for l in list(srv.log)) >= 2, "cs[0]'s close noticed")
    again = srv.connect("again")  # a slot is free again
    control_still_works(again)


@served()
def inline_form_plays_the_lobby(srv):
    c = srv.connect()
    c.send_raw("hello inline\ncreate 233 2 target=50\nrooms\nsay hello there\n")
    replies = []
    while len(replies) < 4:
        m = c.recv()
        if "re" in m:
            replies.append(m)
    assert [r["re"] for r in replies] == ["hello", "create", "rooms", "say"], replies
    assert all(r["ok"] for r in replies), replies
    room = replies[1]["room"]
    assert replies[2]["rooms"][0]["room"] == room
    chat = [m for m in c.all if m.get("ev") == "chat"]
    if not chat:
        chat = [c.event(is_ev("chat"))]
    assert chat[0]["text"] == "hello there" and chat[0]["from"] == "inline", chat


@served()
def lobby_create_join_watch_leave(srv):
    a, b, w, x = (srv.connect(n) for n in ("ann", "bob", "wes", "xav"))
    r = a.ok("create", game="233", players=3)
    room = r["room"]
    assert r["seat"] == 0
    rooms = b.ok("rooms")["rooms"]
    assert len(rooms) == 1 and rooms[0]["game"] == "233" and rooms[0]["status"] == "waiting"
    assert rooms[0]["seats"][0]["name"] == "ann" and rooms[0]["seats"][1] is None
    expect_error(b.request("join", room=room, seat=0), "seat_taken")
    expect_error(b.request("join", room=room, seat=3), "bad_request")
    assert b.ok("join", room=room, seat=2)["seat"] == 2
    expect_error(b.request("join", room=room), "already_seated")
    w.ok("watch", room=int(room))
    # private rooms are not listed; their id is the join code
    p = x.ok("create", game="233", players=2, private=True)
    assert p["private"] and p["code"] == p["room"]
    listed = [r["room"] for r in w.ok("rooms")["rooms"]]
    assert p["room"] not in listed and room in listed, listed
    assert p["room"] in [r["room"] for r in x.ok("rooms")["rooms"]]
    # chat reaches players and spectators
    a.ok("say", room=room, text="hi all")
    for c in (a, b, w):
        e = c.event(is_ev("chat", room))
        assert e["text"] == "hi all" and e["from"] == "ann" and e["seat"] == 0, e
    # leave a waiting table frees the seat
    b.ok("leave")
    assert a.event(lambda e: e.get("ev") == "room" and e["seats"][2] is None)
    expect_error(b.request("leave", room=room), "not_in_room")
    # the last seat fills: the table starts by itself
    b.ok("join", room=room)
    x.ok("join", room=room)
    for c in (a, b, x, w):
        st = c.event(is_ev("state", room))
        assert st["seq"] == 1, st
    st_w = [m for m in w.all if m.get("ev") == "state"][-1]
    assert "legal" not in st_w["view"] and "hand" not in st_w["view"], st_w
    expect_error(w.request("act", room=room, action={"type": "draw"}), "not_seated")
    expect_error(w.request("join", room=room), "room_full")
    # the state command answers with the same view
    s = a.ok("state", room=room)
    assert s["seq"] == 1 and s["view"]["seat"] == 0 and "legal" in s["view"], s


@test
def sigterm_sends_shutdown_and_exits_0(exe):
    srv = Server(exe)
    cs = [srv.connect("p%d" % i) for i in range(3)] + [srv.connect()]
    cs[0].ok("create", game="233", players=2)
    cs[0].ok("addbot")
    rc = srv.stop(signal.SIGTERM)
    assert rc == 0, "exit code %r; log:\n%s" % (rc, "".join(srv.log[-20:]))
    for c in cs:
        got = c.wait_closed()
        assert any(m.get("ev") == "shutdown" for m in got + c.events), got
    assert not srv.log_has("not closed cleanly")


@test
def sigint_also_stops_cleanly(exe):
    srv = Server(exe)
    c = srv.connect("p")
    rc = srv.stop(signal.SIGINT)
    assert rc == 0, rc
    assert any(m.get("ev") == "shutdown" for m in c.wait_closed())


@test
def command_line(exe):
    import subprocess
    out = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0 and "--listen" in out.stdout and "--turn-timer" in out.stdout
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0 and out.stdout.startswith("tapisd ")
    for bad in (["--max-line", "x"], ["--listen", "nowhere"], ["--frob"], ["--turn-timer", "5h"]):
        out = subprocess.run([exe] + bad, capture_output=True, text=True, timeout=10)
        assert out.returncode == 2 and out.stderr, (bad, out)


@test
def listens_on_ipv6(exe):
    try:
        s = socket.socket(socket.AF_INET6)
        s.bind(("::1", 0))
        s.close()
    except OSError:
        print("  (no IPv6 loopback here: skipped)")
        return
    srv = Server(exe, listen="[::1]:0")
    try:
        assert srv.host == "::1", srv.address
        c = Client(srv.port, host="::1", family=socket.AF_INET6)
        assert c.ok("ping")
        c.close()
    finally:
        srv.finish()



@test
def games_describe_their_options_and_create_checks_them(exe):
    """option_specs matches options; create refuses each bound's neighbour."""
    srv = Server(exe)
    try:
        c = srv.connect("opt")
        checked = 0
        for g in c.ok("games")["games"]:
            specs = {o["name"]: o for o in g["option_specs"]}
            assert list(specs) == list(g["options"]), (g["id"], specs, g["options"])
            for name, o in specs.items():
                assert o["default"] == g["options"][name], (g["id"], o)
                assert o["type"] in ("int", "bool", "string") and o["help"], o
                if o["type"] == "int":
                    assert o["min"] <= o["default"] <= o["max"], o
                    for bad in (o["min"] - 1, o["max"] + 1):
                        r = c.request("create", game=g["id"], players=g["min_players"],
                                      options={name: bad})
                        assert r["ok"] is False and r["error"]["code"] == "bad_option", (name, r)
                        assert name in r["error"]["message"], r
                        checked += 1
                elif o["type"] == "string":
                    assert o["default"] in o["choices"], o
                    r = c.request("create", game=g["id"], players=g["min_players"],
                                  options={name: "no-such-choice"})
                    assert r["ok"] is False and r["error"]["code"] == "bad_option", (name, r)
                    checked += 1
        assert checked >= 20, checked
    finally:
        srv.finish()


if __name__ == "__main__":
    run_tests(sys.argv)
