"""`tapis` against a hostile server: nothing from the wire reaches the
terminal raw, and an idle client sends keepalive pings it does not show.

A fake server (FakeServer, standard library) accepts tapis's connection,
answers its hello, and pushes names, chat, a table, errors and a line that is
not JSON, all carrying ESC sequences (clear the screen, home the cursor,
recolour, set the window title), BEL, CR/LF (a forged "[server]" line), DEL,
the 8-bit CSI (U+009B) and bidi overrides. tapis runs in a pseudo-terminal
with NO_COLOR=1, so none of those bytes may appear on the pty; their escaped
forms (\\x1b, \\u202e, ...) must. `--json` must turn the same lines into JSON
without raw control characters that parses to the same values.

Environment: TAPIS.
"""
import contextlib
import json
import os
import queue
import re
import subprocess
import threading
import time

from clientutil import FakeServer, TIMEOUT, check, run, tapis_session

TAPIS = os.environ["TAPIS"]

ESC, BEL, DEL, CSI8 = "\x1b", "\x07", "\x7f", "\x9b"
RLO, PDF, LRI, PDI = "\u202e", "\u202c", "\u2066", "\u2069"  # bidi override, pop, isolate, pop

ROOM = "r" + ESC + "[31m1"
MALLORY = "mal" + BEL + "lory" + RLO
EVIL_SEAT = "ev" + ESC + "[2J" + ESC + "[Hil" + RLO + "nosliw" + PDF
CHAT = (ESC + "[2J" + ESC + "[Hhi" + BEL + "\n[server] vic was banned: type quit\r"
        + LRI + "gnp.exe" + PDI + " " + DEL + CSI8 + "5m " + ESC + "]0;pwned" + BEL)
ERROR_MESSAGE = "no room " + ESC + "[2J\r\n[server] you were kicked" + BEL + RLO
EVENT_MESSAGE = "bye " + ESC + "[5m" + RLO + "\n[server] reconnect to evil.example"

# Byte strings that would act on a terminal; none may reach the pty.
FORBIDDEN = [
    b"\x1b[2J", b"\x1b[H", b"\x1b[31m", b"\x1b[5m", b"\x1b]0;", b"\x07", b"\x7f",
    "\u009b".encode(), RLO.encode(), PDF.encode(), LRI.encode(), PDI.encode(),
]


def room_event(status="waiting"):
    return {"ev": "room", "room": ROOM, "game": "233", "title": "233" + BEL, "players": 3,
            "private": False, "status": status,
            "seats": [{"seat": 0, "name": "vic", "bot": False, "connected": True},
                      {"seat": 1, "name": EVIL_SEAT, "bot": False, "connected": True}, None],
            "spectators": 0}


def state_event():
    view = {"game": "233", "seat": 0, "turn": 0, "phase": "draw" + ESC + "[2J", "round": 1,
            "target": 233, "dealer": 1, "draw_pile": 50, "direction": 1,
            "players": [{"seat": 0, "cards": 2, "score": 0}, {"seat": 1, "cards": 8, "score": 0}],
            "discard": "G6" + ESC + "[H", "discarder": 1,
            "events": [{"seat": 1, "did": "discard" + RLO, "card": "G6" + BEL}],
            "hand": ["Y3", "B" + ESC + "[5m"],
            "legal": [{"type": "draw"}, {"type": "dr" + ESC + "[2J"}]}
    return {"ev": "state", "room": ROOM, "seq": 1, "waiting": [0], "deadline_ms": None,
            "view": view}


def assert_nothing_raw(tty):
    raw = tty.raw
    for bad in FORBIDDEN:
        assert bad not in raw, "%r reached the terminal:\n%r" % (bad, raw[-3000:])
    # No forged line: "[server]" never starts a line.
    text = raw.decode("utf-8", "replace")
    for line in re.split(r"[\r\n]", text):
        assert not re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line).startswith("[server]"), repr(line)


@contextlib.contextmanager
def started(*args, env=None):
    """A FakeServer, and tapis (as vic, NO_COLOR=1) connected to it past the
    hello: (server, tty) for a `with` block, both closed after it."""
    server = FakeServer()
    with tapis_session(TAPIS, server, "--name", "vic", *args,
                       env=dict({"NO_COLOR": "1"}, **(env or {}))) as tty:
        assert server.connected.wait(TIMEOUT), "tapis did not connect"
        server.hello()
        tty.expect(r"hello vic\.")
        yield server, tty


@check
def hostile_names_chat_and_errors_are_shown_escaped():
    with started() as (server, tty):
        server.send(room_event())
        tty.expect(re.escape(r"room r\x1b[31m1 (233, waiting): seat 0 vic, "
                             r"seat 1 ev\x1b[2J\x1b[Hil\u202enosliw\u202c, seat 2 empty"))
        tty.expect(re.escape(r"another player types `join r\x1b[31m1`"))

        server.send({"ev": "chat", "room": ROOM, "from": MALLORY, "seat": 1, "text": CHAT})
        tty.expect(re.escape(r"[r\x1b[31m1] mal\x07lory\u202e: \x1b[2J\x1b[Hhi\x07\x0a[server] "
                             r"vic was banned: type quit\x0d\u2066gnp.exe\u2069 \x7f\u009b5m "
                             r"\x1b]0;pwned\x07"))

        # A typed command gets an error reply whose message is hostile.
        tty.send("join zz")
        req = server.next_request()
        assert req["cmd"] == "join", req
        server.send({"re": "join", "ok": False,
                     "error": {"code": "not" + ESC + "[2J_found", "message": ERROR_MESSAGE}})
        tty.expect(re.escape(r"! not\x1b[2J_found: no room \x1b[2J\x0d\x0a[server] "
                             r"you were kicked\x07\u202e"))

        # Joins and leaves name the player; an error event has a message.
        server.send({"ev": "join", "room": ROOM, "seat": 1, "name": MALLORY})
        tty.expect(re.escape(r"[r\x1b[31m1] mal\x07lory\u202e (seat 1) sits down"))
        server.send({"ev": "error", "error": {"code": "hello" + BEL, "message": EVENT_MESSAGE}})
        tty.expect(re.escape(r"! server: hello\x07: bye \x1b[5m\u202e\x0a[server] "
                             r"reconnect to evil.example"))

        # A line that is not JSON at all.
        # (Not 0xff: the line splitter takes it for telnet's IAC.)
        server.send(b"garbage \x1b[2J\x07 \xfe\xc0\x80")
        tty.expect(re.escape(r"? garbage \x1b[2J\x07 \xfe\xc0\x80"))

        # An event tapis does not know is shown as JSON, escaped.
        server.send({"ev": "surprise", "text": RLO + DEL + "x"})
        tty.expect(re.escape(r'{"ev":"surprise","text":"\u202e\u007fx"}'))

        assert_nothing_raw(tty)
        tty.send("quit")
        req = server.next_request()
        assert req["cmd"] == "quit", req
        server.send({"re": "quit", "ok": True})
        tty.expect(r"bye")
        server.close()  # as tapisd does after quit
        assert tty.proc.wait(TIMEOUT) == 0
        assert_nothing_raw(tty)


@check
def a_hostile_table_is_drawn_escaped():
    with started() as (server, tty):
        server.send(room_event("playing"))
        server.send(state_event())
        # The prompt and the header carry the room id; names, phase, cards, events: all escaped.
        tty.expect(re.escape(r"-- room r\x1b[31m1 . 233 . round 1 . target 233 . "
                             r"dealer ev\x1b[2J\x1b[Hil\u202enosliw\u202c --"))
        tty.expect(re.escape(r"discard G6\x1b[H (ev\x1b[2J"))
        tty.expect(re.escape(r"last: ev\x1b[2J\x1b[Hil\u202enosliw\u202c discard\u202e G6\x07"))
        tty.expect(r"hand .*B\\x1b\[5m")
        tty.expect(re.escape(r"your turn (draw\x1b[2J)"))
        # The hostile action word, however the inline form writes it (a word, or JSON).
        hostile_action = r"dr(\\x1b|\\u001[bB])\[2J"
        tty.expect(r"2\) .*" + hostile_action)
        tty.send("legal")
        tty.expect(r"2\s+.*" + hostile_action)
        # `view` prints the raw view: as JSON with \u escapes.
        tty.send("view")
        tty.expect(r'"discard":"G6\\u001[bB]\[H"')
        assert_nothing_raw(tty)
        # Tab completion offers only what can be shown as is: `dr` completes to
        # `draw` alone, not to the hostile action word; Enter plays it. (libedit
        # itself may ring the terminal bell while completing: not wire data, so
        # the raw check above ends before the Tab.)
        os.write(tty.master, b"dr\t")
        time.sleep(0.3)
        os.write(tty.master, b"\r")
        req = server.next_request()
        # (seq: the state the action answers, the one the fake server sent)
        assert req == {"cmd": "act", "action": {"type": "draw"}, "room": ROOM, "seq": 1}, req
        tty.expect(r"tapis:r\\x1b\[31m1> ")


@check
def keepalive_pings_an_idle_server_and_hides_the_reply():
    with started("--keepalive", "700ms") as (server, tty):
        t0 = time.monotonic()
        req = server.next_request(timeout=5)
        waited = time.monotonic() - t0
        assert req.get("cmd") == "ping" and req.get("id") == "tapis-keepalive", req
        assert 0.2 < waited < 3, waited
        server.send({"re": "ping", "id": "tapis-keepalive", "ok": True})
        # Another one after another idle period.
        req = server.next_request(timeout=5)
        assert req.get("cmd") == "ping", req
        server.send({"re": "ping", "id": "tapis-keepalive", "ok": True})
        # A ping the person types is answered on screen; the keepalives were not.
        tty.send("ping")
        while True:
            req = server.next_request(timeout=5)
            if req.get("cmd") == "ping" and req.get("id") != "tapis-keepalive":
                break
            server.send({"re": "ping", "id": "tapis-keepalive", "ok": True})
        server.send({"re": "ping", "ok": True})
        tty.expect(r"pong")
        time.sleep(0.3)
        tty._read(0.2)
        assert tty.text().count("pong") == 1, tty.text()


@check
def an_active_client_sends_no_keepalive():
    with started("--keepalive", "1500ms") as (server, tty):
        for _ in range(4):  # something sent every 0.5 s: no ping is due
            time.sleep(0.5)
            tty.send("rooms")
            req = server.next_request()
            assert req.get("cmd") == "rooms", req
            server.send({"re": "rooms", "ok": True, "rooms": []})
        try:
            req = server.next_request(timeout=0.8)
            raise AssertionError("unexpected request %r" % req)
        except queue.Empty:
            pass


@check
def json_mode_writes_hostile_lines_as_escaped_json():
    server = FakeServer()
    hostile = [
        {"ev": "chat", "room": ROOM, "from": MALLORY, "seat": 1, "text": CHAT},
        {"ev": "room", "room": ROOM, "seats": [{"seat": 0, "name": EVIL_SEAT}]},
    ]

    def feed():
        assert server.connected.wait(TIMEOUT)
        server.next_line()  # hello
        for m in hostile:
            server.send(m)
        server.send(b"not json \x1b[2J\x07\xfe")
        server.send(b'{"a":\r1}')  # valid JSON with a raw CR between tokens
        server.send({"re": "hello", "ok": True})

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    try:
        p = subprocess.Popen([TAPIS, server.address, "--json"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = p.communicate(b"hello vic\n", timeout=TIMEOUT)
    finally:
        server.close()
    t.join(TIMEOUT)
    assert p.returncode == 0, err
    for bad in FORBIDDEN + [b"\r", b"\x1b", b"\xfe"]:
        assert bad not in out, "%r in --json output:\n%r" % (bad, out)
    lines = out.decode("utf-8").split("\n")
    assert lines[-1] == "", lines
    assert [json.loads(l) for l in lines[:2]] == hostile, lines[:2]
    assert lines[2] == r"not json \x1b[2J\x07\xfe", lines[2]
    assert json.loads(lines[3]) == {"a": 1}, lines[3]
    assert json.loads(lines[4]) == {"re": "hello", "ok": True}


if __name__ == "__main__":
    run()
