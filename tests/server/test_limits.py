#!/usr/bin/env python3
"""test_limits.py — tapisd under hostile and heavy load: the loop never
starves, stamps are fair, every budget answers with its code, names and chat
are clean, rights hold. Each test names the weakness it guards against.

Usage: test_limits.py PATH/TO/tapisd [test-name...]"""
import json
import os
import re
import select
import signal
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TIMEOUT, Server, is_ev, read_to_eof, run_tests, test, wait_for  # noqa: E402
from util import drop_a_seated_player, open_sockets, served  # noqa: E402


def bot_table(srv, name="host"):
    """A 233 table that plays by itself: a silent person (the turn timer plays
    for them) and a built-in bot, to a target no game reaches while a test
    runs (to 233 one can be over within 7 s). Returns (client, room)."""
    c = srv.connect(name)
    room = c.ok("create", game="233", players=2, options={"target": 100000})["room"]
    c.ok("addbot")
    c.event(is_ev("state", room))
    return c, room


def probe_pings(c, n, gap=0.01):
    """n pings from c, one at a time; returns the round trips in seconds."""
    lat = []
    for _ in range(n):
        t0 = time.monotonic()
        c.ok("ping")
        lat.append(time.monotonic() - t0)
        time.sleep(gap)
    return lat


def flood(port, chunk, seconds, hello=None, stop=None):
    """Write chunk again and again for `seconds` on a new connection (never
    reading). Returns the bytes written before the server closed it or the
    time ran out."""
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(0.5)
    sent = 0
    if hello:
        s.sendall(hello)
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end and not (stop and stop.is_set()):
            try:
                sent += s.send(chunk)
            except socket.timeout:
                continue
    except OSError:
        pass
    finally:
        s.close()
    return sent


def states_seen(c, room):
    return [m for m in c.all if m.get("ev") == "state" and m.get("room") == room]


def game_keeps_playing(c, room):
    """The table's seq goes on advancing (timers and bots still run): it moves
    past where it is now within the harness timeout (a frozen loop never)."""
    c.events = []
    seq0 = c.ok("state", room=room)["seq"]
    deadline = time.monotonic() + TIMEOUT
    while c.ok("state", room=room)["seq"] <= seq0:
        c.events = []
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# ---------------------------------------------------------------------------
# The loop never starves
# ---------------------------------------------------------------------------

def flood_beside_a_bot_table(exe, chunk, budgets):
    args = ["--turn-timer", "30ms", "--bot-delay", "0-2", "--log-level", "warn"]
    if not budgets:
        args += ["--line-rate", "0", "--error-rate", "0"]
    srv = Server(exe, *args)
    try:
        host, room = bot_table(srv)
        probe = srv.connect("probe")
        stop = threading.Event()
        # the flood goes on until the checks are done (stop), however long they take
        floods = [threading.Thread(target=flood, args=(srv.port, chunk, 6 * TIMEOUT, None, stop))]
        for t in floods:
            t.start()
        time.sleep(0.3)  # the flood is under way
        lat = probe_pings(probe, 100)
        # Without budgets a flooder's lines read before the probe's go first
        # (stamp order), at most its 64 KiB of unhandled input: a bounded
        # wait, never a freeze. (With the budgets, see the tests below.)
        assert max(lat) < 2.0, "a ping waited %.3fs during the flood" % max(lat)
        assert game_keeps_playing(host, room), "the bot table stopped during the flood"
        stop.set()
        for t in floods:
            t.join()
        assert srv.alive()
    finally:
        t0 = time.monotonic()
        srv.finish()  # SIGTERM is heard: exit 0 within the harness timeout
        assert time.monotonic() - t0 < 5


@test
def empty_line_flood_before_hello_does_not_freeze_a_server_with_timers(exe):
    # The livelock: a room timer re-armed at 0 ms against a "now" capped by the
    # oldest queued line never let the loop read again. No budgets here: the
    # loop itself must hold.
    flood_beside_a_bot_table(exe, b"\n" * 65536, budgets=False)


@test
def brace_flood_beside_a_bot_table_does_not_freeze_it(exe):
    flood_beside_a_bot_table(exe, b"{\n" * 32768, budgets=False)


@served("--turn-timer", "30ms", "--bot-delay", "0-2", "--log-level", "warn",
        "--max-conns-per-ip", "0", "--conn-rate", "0")
def ping_storm_beside_a_bot_table_does_not_freeze_it(srv):
    # Ordinary load did it too: many clients pinging every 20 ms while a bot
    # table runs. (The abuse benchmark runs the 1,000-client version.)
    n = 150
    with open_sockets() as socks:
        host, room = bot_table(srv)
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", srv.port))
            s.sendall(b"hello storm%d\n" % i)
            s.setblocking(False)
            socks.append(s)
        stop = threading.Event()

        def storm():
            while not stop.is_set():
                for s in socks:
                    try:
                        s.send(b"ping\n")
                        s.recv(65536)
                    except (BlockingIOError, InterruptedError):
                        pass
                time.sleep(0.02)
        t = threading.Thread(target=storm)
        t.start()
        try:
            probe = srv.connect("probe")
            lat = probe_pings(probe, 100)
            assert max(lat) < 0.5, "a ping waited %.3fs during the storm" % max(lat)
            assert game_keeps_playing(host, room), "the bot table stopped during the storm"
        finally:
            stop.set()
            t.join()


# ---------------------------------------------------------------------------
# Budgets
# ---------------------------------------------------------------------------

@served("--line-rate", "10", "--error-rate", "0")
def line_rate_answers_rate_limited_then_recovers(srv):
    # hello is one line of the 20 a burst allows. All in one write, read at
    # once under one stamp: the budget has no time to refill between the lines
    # (with hello answered first, a next write 100 ms later found it full again).
    c = srv.connect()
    c.send_raw('{"cmd":"hello","name":"ann","id":"h"}\n' +
               "".join('{"cmd":"ping","id":%d}\n' % i for i in range(30)))
    assert c.recv()["ok"] is True
    replies = [c.recv() for _ in range(30)]
    assert [r["id"] for r in replies] == list(range(30))
    codes = [r["ok"] or r["error"]["code"] for r in replies]
    assert codes[:19] == [True] * 19, codes
    assert set(codes[19:]) == {"rate_limited"}, codes
    time.sleep(0.5)  # five lines' worth come back
    assert c.request("ping")["ok"]


@served("--line-rate", "100", "--error-rate", "5")
def a_flood_that_goes_on_is_closed_with_too_many_errors(srv):
    got = []
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.settimeout(5)
    s.sendall(b"ping\n" * 1000)
    data = read_to_eof(s)
    msgs = [json.loads(l) for l in data.split(b"\n") if l]
    got = [m.get("ok") or m["error"]["code"] for m in msgs]
    assert got.count(True) == 200, got.count(True)  # the burst: twice the rate
    assert "rate_limited" in got
    assert got[-1] == "too_many_errors" and msgs[-1].get("ev") == "error", msgs[-1]
    assert len(msgs) < 220 + 20, len(msgs)  # closed after the error burst, not 1,000 replies
    assert srv.alive()


@served("--max-rooms", "1", "--error-rate", "1", "--create-rate", "0")
def the_servers_own_failures_spend_no_error_budget(srv):
    # --error-rate 1: bursts of two errors. A full server is no fault of the
    # client's: twenty `create` refused with server_full in a row leave it
    # connected, and its own errors are counted as before (the third closes).
    c = srv.connect("ann")
    c.ok("create", game="aspoint3")
    for _ in range(20):
        r = c.request("create", game="aspoint3")
        assert r["ok"] is False and r["error"]["code"] == "server_full", r
    c.ok("ping")
    for _ in range(2):
        assert c.request("nosuch")["error"]["code"] == "unknown_command"
    c.send({"cmd": "nosuch"})
    msgs = c.wait_closed()
    assert msgs[-1].get("ev") == "error" and msgs[-1]["error"]["code"] == "too_many_errors", msgs


@served()  # the defaults
def brace_flood_is_closed_after_a_bounded_number_of_errors(srv):
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.settimeout(5)
    try:
        s.sendall(b"{\n" * 200000)
    except OSError:
        pass  # closed while we were still writing: fine
    data = read_to_eof(s, stop_on_error=True)
    lines = [json.loads(l) for l in data.split(b"\n") if l]
    assert lines and lines[-1].get("error", {}).get("code") == "too_many_errors", lines[-3:]
    assert len(data) < 20000, "%d bytes of errors for a flood" % len(data)
    probe = srv.connect("probe")
    assert probe.request("ping")["ok"]


@served("--chat-rate", "3", "--max-chat", "20")
def chat_is_rate_limited_and_capped(srv):
    a = srv.connect("ann")
    room = a.ok("create", game="233", players=2)["room"]
    for i in range(3):
        a.ok("say", room=room, text="hi %d" % i)
    r = a.request("say", room=room, text="one more")
    assert r["error"]["code"] == "rate_limited", r
    r = a.request("say", room=room, text="x" * 21)
    assert r["error"]["code"] == "text_too_long", r


@served("--out-cap", "65536")
def a_strangers_chat_flood_does_not_drop_the_player(srv):
    # Before: a spectator's unlimited chat filled the victim's output until the
    # victim was dropped as a slow reader.
    victim = srv.connect("victim", rcvbuf=4096)
    room = victim.ok("create", game="233", players=2)["room"]
    attacker = srv.connect("mallory")
    attacker.ok("watch", room=room)
    text = "spam " * 80
    try:
        attacker.send_raw("".join(json.dumps({"cmd": "say", "room": room, "text": text}) + "\n"
                                  for _ in range(2000)))
    except OSError:
        pass  # its errors spent, the flooder was closed while it was still writing: fine
    time.sleep(1.0)  # the victim reads nothing meanwhile
    got = []
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            got.append(victim.recv(0.3))
        except TimeoutError:
            break
    chats = [m for m in got if m.get("ev") == "chat"]
    assert len(chats) <= 10, "%d chat lines reached the victim" % len(chats)
    assert not victim.closed and victim.request("ping")["ok"]  # still connected


@served("--max-rooms", "3", "--create-rate", "2")
def rooms_have_a_global_cap_and_a_creation_rate(srv):
    a, b = srv.connect("ann"), srv.connect("bob")
    a.ok("create", game="233", players=2)
    a.ok("create", game="233", players=2)
    r = a.request("create", game="233", players=2)
    assert r["error"]["code"] == "rate_limited", r
    b.ok("create", game="233", players=2)
    r = b.request("create", game="233", players=2)
    assert r["error"]["code"] == "server_full", r


@served("--waiting-timeout", "1s", "--reconnect-window", "30s")
def a_waiting_room_nobody_attends_is_closed(srv):
    b = srv.connect("bob")
    a = srv.connect("ann")
    a.ok("create", game="233", players=2)
    a.close()  # ann's seat is held for 30 s, but nobody is connected
    assert b.ok("rooms")["total"] == 1  # a round trip after the close: not 1 s
    wait_for(lambda: b.ok("rooms")["total"] == 0, "the unattended room closed", every=0.05)
    assert srv.wait_log(r"waiting with nobody connected"), "".join(srv.log[-5:])
    # a waiting room with someone connected stays
    b.ok("create", game="233", players=2)
    time.sleep(1.5)  # past the timeout
    assert b.ok("rooms")["total"] == 1


@served("--idle-timeout", "1s")
def an_idle_connection_is_closed_after_hello(srv):
    quiet = srv.connect("quiet")
    busy = srv.connect("busy")
    # busy pings every 50 ms, twenty times within its timeout, until quiet is closed
    wait_for(lambda: busy.ok("ping") and select.select([quiet.sock], [], [], 0)[0],
             "the quiet connection told of its close", every=0.05)
    msgs = quiet.wait_closed()
    assert msgs and msgs[-1]["error"]["code"] == "idle_timeout", msgs
    assert busy.request("ping")["ok"]


@served("--max-conns-per-ip", "3")
def connections_per_address_are_capped(srv):
    cs = [srv.connect("c%d" % i) for i in range(3)]
    extra = srv.connect()
    msgs = extra.wait_closed(3)
    assert msgs and msgs[0]["error"]["code"] == "too_many_connections", msgs
    cs[0].ok("quit")
    cs[0].wait_closed(3)
    time.sleep(0.1)
    again = srv.connect("again")  # a place is free again
    assert again.request("ping")["ok"]


@served("--conn-rate", "5", "--max-conns-per-ip", "0")
def new_connections_from_one_address_are_rate_limited(srv):
    # Closing and reconnecting at once got around every per-connection and
    # per-session budget (the abuse benchmark's reconnect floods): new
    # connections from one address have a budget of their own.
    codes = []
    t0 = time.monotonic()
    while "rate_limited" not in codes and len(codes) < 100:
        c = srv.connect()
        c.send_raw("ping\n")
        m = c.recv()
        codes.append(m.get("ok") or m["error"]["code"])
        c.close()
    took = time.monotonic() - t0
    assert codes[:10] == [True] * 10, codes  # a burst of twice the rate
    # refused once the burst and what came back meanwhile (5 a second) are spent
    assert codes[-1] == "rate_limited" and len(codes) <= 11 + 5 * took, (took, codes)
    time.sleep(0.5)  # the budget refills: 5 a second
    c = srv.connect()
    assert c.request("ping")["ok"]


# ---------------------------------------------------------------------------
# Scale without cliffs: lookups and pages
# ---------------------------------------------------------------------------

@served("--create-rate", "0")
def rooms_come_in_bounded_pages_with_filters_and_a_total(srv):
    a = srv.connect("ann")
    ids = []
    for i in range(60):
        game = "233" if i % 2 == 0 else "aspoint3"
        ids.append(a.ok("create", game=game, players=2)["room"])
    a.ok("create", game="233", players=2, private=True)
    b = srv.connect("bob")
    r = b.ok("rooms")
    assert r["total"] == 60 and len(r["rooms"]) == 50, (r["total"], len(r["rooms"]))
    assert [x["room"] for x in r["rooms"]] == list(reversed(ids))[:50]  # newest first
    r = b.ok("rooms", limit=7, offset=55)
    assert [x["room"] for x in r["rooms"]] == list(reversed(ids))[55:60]
    r = b.ok("rooms", game="aspoint3", limit=200)
    assert r["total"] == 30 and all(x["game"] == "aspoint3" for x in r["rooms"])
    assert b.ok("rooms", status="playing")["total"] == 0
    assert b.request("rooms", status="sleeping")["error"]["code"] == "bad_request"
    assert b.request("rooms", limit=201)["error"]["code"] == "bad_request"
    assert a.ok("rooms", limit=1)["total"] == 61  # ann sees her private room
    # the inline form
    b.send_raw("rooms 2 1 game=233\n")
    r = b.recv()
    assert r["ok"] and len(r["rooms"]) == 2 and r["total"] == 30 and r["offset"] == 1, r


@served("--line-rate", "20", "--error-rate", "0", "--create-rate", "0")
def a_page_of_rooms_weighs_on_the_line_budget(srv):
    a = srv.connect("ann")
    for _ in range(25):
        a.ok("create", game="233", players=2)
    b = srv.connect()
    # one write: read at one time under one stamp, no refill between the lines
    # (answered apart, 50 ms between them gave a line back)
    b.send_raw('{"cmd":"hello","name":"bob"}\n{"cmd":"rooms","limit":200}\n' + "ping\n" * 40)
    assert b.recv()["ok"] is True
    assert len(b.recv()["rooms"]) == 25  # weighs 1 + 5 lines
    got = [b.recv()["ok"] for _ in range(40)]
    assert got.count(True) == 33, got  # a burst of 40, less hello and rooms' 6


@served("--create-rate", "0", "--line-rate", "0", "--error-rate", "0", "--conn-rate", "0")
def many_rooms_do_not_slow_a_lookup(srv):
    # Rooms and sessions are found by hash: a missing room costs the same
    # with 3,000 rooms as with none (the 47 ms lookup of a linear scan is gone).
    cs = [srv.connect("u%d" % i) for i in range(50)]
    for c in cs:
        c.send_raw("".join('{"cmd":"create","game":"233","players":2,"id":%d}\n' % i
                           for i in range(60)))
    for c in cs:
        replies = 0
        while replies < 60:
            m = c.recv()
            if "re" in m:
                assert m["ok"], m
                replies += 1
    probe = srv.connect("probe")
    t0 = time.monotonic()
    for _ in range(200):
        assert probe.request("join", room="999999")["error"]["code"] == "not_found"
    per = (time.monotonic() - t0) / 200
    assert per < 0.02, "a missing-room lookup took %.1f ms" % (per * 1000)


@served("--create-rate", "0", "--line-rate", "0")
def a_session_is_in_at_most_64_rooms(srv):
    # Its first two rooms are kept in the session, the rest in a list that
    # grows: each of the 64 is its own, the 65th is refused, and leaving one
    # (from the middle of the list) makes room for another.
    c = srv.connect("ann")
    rooms = [c.ok("create", game="233", players=2)["room"] for _ in range(64)]
    assert len(set(rooms)) == 64, rooms
    r = c.request("create", game="233", players=2)
    assert r["error"]["code"] == "too_many_rooms", r
    c.ok("leave", room=rooms[1])
    rooms[1] = c.ok("create", game="233", players=2)["room"]
    r = c.request("create", game="233", players=2)
    assert r["error"]["code"] == "too_many_rooms", r
    for room in rooms:
        c.ok("state", room=room)


# ---------------------------------------------------------------------------
# Fair stamps
# ---------------------------------------------------------------------------

@served("--log-level", "debug", "--line-rate", "0", "--turn-timer", "0")
def each_line_carries_the_stamp_of_its_own_read(srv):
    # Two lines sent 200 ms apart on one connection reach the game with stamps
    # 200 ms apart, even when the first waits behind a backlog.
    a, b = srv.connect("ann"), srv.connect("bob")
    room = a.ok("create", game="233", players=2)["room"]
    b.ok("join", room=room)
    a.send_raw('{"cmd":"act","room":"%s","action":{"type":"fly"}}\n' % room)
    a.recv()  # fly was read: swim, sent 200 ms later, cannot come in the same read
    time.sleep(0.2)
    a.send_raw('{"cmd":"act","room":"%s","action":{"type":"swim"}}\n' % room)
    a.recv()
    deadline = time.monotonic() + TIMEOUT
    stamps = []
    while len(stamps) < 2 and time.monotonic() < deadline:
        stamps = [int(m.group(1)) for m in
                  (re.search(r"act seat=0 stamp=(\d+) type=(fly|swim)", l)
                   for l in list(srv.log)) if m]
        time.sleep(0.05)
    assert len(stamps) == 2 and stamps[1] - stamps[0] >= 150000, stamps


# ---------------------------------------------------------------------------
# Names, text, rights, secrets
# ---------------------------------------------------------------------------

@served()
def names_must_be_printable_unique_and_not_a_bots(srv):
    c = srv.connect()
    for bad in ["ann\x1b[2J", "bell\x07", "two\nlines", "evil\u202etxt.exe", "zero\u200bwidth",
                " ann", "ann ", "a  b", "bot", "Bot 2", "BOT-7", "bot:3", "\u061cx"]:
        r = c.request("hello", name=bad)
        assert not r["ok"] and r["error"]["code"] in ("bad_name", "bad_request"), (bad, r)
    keep = [srv.connect(good) for good in ["Ann", "bottom", "Zoë", "李雷", "ann marie"]]
    r = c.request("hello", name="ANN")
    assert r["error"]["code"] == "name_taken", r
    # inline: a control byte is refused by the protocol layer already
    c.send_raw("hello ann\x07\n")
    assert c.recv()["error"]["code"] == "bad_request"
    # a name comes free when its session ends
    d = srv.connect("dora")
    d.ok("quit")
    d.wait_closed()
    time.sleep(0.1)
    assert c.ok("hello", name="Dora")["name"] == "Dora"
    # renaming to one's own name in other letters is fine
    assert c.ok("hello", name="DORA")["name"] == "DORA"
    assert all(k.request("ping")["ok"] for k in keep)


@served()
def a_held_session_keeps_its_name_and_gets_it_back_with_its_token(srv):
    token = drop_a_seated_player(srv)
    c = srv.connect()
    assert c.request("hello", name="ann")["error"]["code"] == "name_taken"
    r = c.ok("hello", name="ann", token=token)
    assert r["resumed"] is True


@served()
def chat_with_control_characters_is_refused(srv):
    a = srv.connect("ann")
    room = a.ok("create", game="233", players=2)["room"]
    for bad in ["\x1b[2Jcleared", "ding\x07", "forged\n[server] you won", "\u202eabc",
                "carriage\rreturn"]:
        r = a.request("say", room=room, text=bad)
        assert r["error"]["code"] == "bad_text", (bad, r)
    a.ok("say", room=room, text="plain text, accents é and 🂡 are fine")


@served()
def only_a_seated_player_adds_bots_and_state_is_for_members(srv):
    a, w, x = srv.connect("ann"), srv.connect("watcher"), srv.connect("stranger")
    room = a.ok("create", game="233", players=3)["room"]
    w.ok("watch", room=room)
    r = w.request("addbot", room=room)
    assert r["error"]["code"] == "not_seated", r
    r = x.request("addbot", room=room)
    assert r["error"]["code"] == "not_seated", r
    assert x.request("state", room=room)["error"]["code"] == "not_in_room"
    assert w.ok("state", room=room)["room"] == room
    p = a.ok("create", game="233", players=2, private=True)["room"]
    assert x.request("state", room=p)["error"]["code"] == "not_in_room"
    a.ok("addbot", room=room)


@served("--create-rate", "0")
def private_codes_are_long_random_and_unique(srv):
    a = srv.connect("ann")
    codes = set()
    for _ in range(60):
        code = a.ok("create", game="233", players=2, private=True)["room"]
        assert re.fullmatch(r"p[abcdefghjkmnpqrstuvwxyz023456789]{13}", code), code
        codes.add(code)
        a.ok("leave", room=code)
    assert len(codes) == 60


@served("--log-level", "debug")
def no_part_of_a_token_reaches_the_log(srv):
    tok = drop_a_seated_player(srv)
    time.sleep(0.2)
    c = srv.connect()
    c.ok("hello", name="ann", token=tok)
    time.sleep(0.2)
    log = "".join(srv.log)
    for i in range(0, len(tok) - 5):
        assert tok[i:i + 6] not in log, "token fragment %r in the log" % tok[i:i + 6]


@served()
def a_json_array_is_a_bad_request(srv):
    c = srv.connect()
    c.send_raw('["ping"]\n')
    assert c.recv()["error"]["code"] == "bad_request"
    c.send_raw('["ping"\n')
    assert c.recv()["error"]["code"] == "bad_json"


if __name__ == "__main__":
    run_tests(sys.argv)
