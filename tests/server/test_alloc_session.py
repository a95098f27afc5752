#!/usr/bin/env python3
"""test_alloc_session.py — a scripted tapisd session with its Nth allocation
failing, for every N (SQLite's test/malloc.test; tests/core/test_alloc_fail.c
does the same for core/ and protocol/).

tapisd_allocfail is tapisd with hooks (alloc_fail_hooks.c) that fail the Nth
allocation counted from when it listens (TAPIS_ALLOC_FAIL_AT=N) and print
"allocations: K failed: F alive: L" at exit. The session: three clients say
hello (carol over a WebSocket, as a browser), list games, create a table of aspoint3 for two,
give it a seed (docs/FAIRNESS.md: the game is dealt again), join it, watch it,
play moves taken from "legal", chat, ask for the state, play a short game
against a built-in bot to its end, list rooms, ask for help, drop a
connection and resume its session with the token, send a bad line, rename,
leave; then the operator's commands (admin, stats, announce, close) and a
scrape of /metrics (200, or 500 when out of memory); quit. It runs once with no failure (every reply must be ok: that run
also gives K), then once for each N with a new server. In a failing run:
 - a reply may be the error "internal" (the request changed nothing: the
   script sends it again, and then it must succeed), and the server may close
   a connection (its later steps are skipped);
 - anything else fails: a crash, no answer within 5 s (a hang: a reply or an
   event that never comes), a line that is not a well-formed message, an
   error other than "internal", a state event skipped or out of order, a room
   more or fewer than the creates that succeeded;
 - then a new connection's hello must be answered, SIGTERM must give exit
   code 0, with nothing left allocated ("alive: 0") and, in a sanitizer build,
   no report.

Environment: TAPIS_ALLOC_STRIDE=S tries every N up to 200, then every Sth
(default 7; the soak suite sets 1); TAPIS_ALLOC_JOBS servers at once (default:
twice the number of CPUs, at most 8); TAPIS_ALLOC_ONLY=N runs that N alone, with
the server's log.
Usage: test_alloc_session.py PATH/TO/tapisd_allocfail"""
import json
import os
import re
import socket
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (WS_CLOSE, WS_TEXT, Closed, Server, read_to_eof, ws_frame,  # noqa: E402
                     ws_handshake)

HANG = 5.0  # s without the answer the script waits for: a hang
ARGS = ("--seed", "1", "--bot-delay", "0", "--log-level", "warn", "--metrics", "127.0.0.1:0")
ADMIN_TOKEN = "alloc-session-operator-token"
MOVES = 6   # moves played at the table of two, each seat taking the first legal action
BOT_MOVES = 20  # at most, in the short game against a bot (it ends after 2 or 3)
SANITIZER_REPORT = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:")


class Broken(Exception):
    """The server broke a rule (not an allowed out-of-memory outcome)."""


# Keys an ok reply must have, by command.
REPLY_KEYS = {
    "hello": ("token", "name", "rooms"), "games": ("games",), "create": ("room", "seat"),
    "join": ("room", "seat"), "watch": ("room",), "leave": ("room",), "addbot": ("room", "seat"),
    "act": ("room",), "say": ("room",), "seed": ("room",), "state": ("room", "status", "seats"),
    "rooms": ("rooms", "total"), "help": ("text",), "admin": ("admin",), "stats": ("stats",),
    "close": ("room",),
}
# Keys an event must have, by name.
EVENT_KEYS = {
    "state": ("room", "seq", "view", "waiting"), "room": ("room", "status", "seats"),
    "chat": ("room", "from", "text"), "game_over": ("room", "result"),
    "error": ("error",), "disconnect": ("room", "seat", "name"),
    "reconnect": ("room", "seat", "name"),
}


def check_message(m, line):
    if not isinstance(m, dict):
        raise Broken("not a JSON object: %r" % line)
    if "re" in m:
        if not isinstance(m.get("ok"), bool):
            raise Broken("reply without ok: %r" % line)
        if m["ok"]:
            for k in REPLY_KEYS.get(m["re"], ()):
                if k not in m:
                    raise Broken("%s reply without %r: %r" % (m["re"], k, line))
        else:
            e = m.get("error")
            if not (isinstance(e, dict) and isinstance(e.get("code"), str)
                    and isinstance(e.get("message"), str)):
                raise Broken("error reply without code and message: %r" % line)
        return
    if not isinstance(m.get("ev"), str):
        raise Broken("neither a reply nor an event: %r" % line)
    for k in EVENT_KEYS.get(m["ev"], ()):
        if k not in m:
            raise Broken("%s event without %r: %r" % (m["ev"], k, line))
    if m["ev"] == "state":
        v = m["view"]
        if not isinstance(v, dict) or not isinstance(m["seq"], int):
            raise Broken("state event with a bad view or seq: %r" % line)
        if "seat" in v and not isinstance(v.get("legal"), list):
            raise Broken("a seat's state event without legal: %r" % line)


class Peer:
    """One connection, tolerant of what running out of memory may do to it:
    an "internal" reply (request() sends the request once more), or the
    connection closed by the server (`gone`: request() and event() give None)."""

    def __init__(self, run, port, name):
        self.run = run
        self.name = name
        self.buf = b""
        self.events = []
        self.views = {}  # room -> (seq, view) of the latest state event
        self.over = set()  # rooms whose game_over came
        self.gone = False
        self.token = None
        self.next_id = 0
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=HANG)

    def close(self):
        self.sock.close()
        self.gone = True

    def _recv(self, timeout):
        """Lines' bytes read within timeout (b"" at the end of the connection);
        socket.timeout or BlockingIOError when nothing came."""
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(65536)
        except ConnectionError:
            return b""

    def _read(self, deadline, waiting_for):
        """The next message, or None once the server closed the connection."""
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Broken("%s: no %s within %.0f s" % (self.name, waiting_for, HANG))
            try:
                d = self._recv(left)
            except socket.timeout:
                continue
            if not d:
                self.gone = True
                return None
            self.buf += d
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            m = json.loads(line.decode())
        except ValueError:
            raise Broken("%s: not JSON: %r" % (self.name, line))
        check_message(m, line)
        if m.get("ev") == "state":
            room = m["room"]
            seq = self.views.get(room, (0, None))[0]
            if seq and m["seq"] != seq + 1:  # (the first one: any seq, to a spectator)
                raise Broken("%s: state of room %s went from seq %d to %d"
                             % (self.name, room, seq, m["seq"]))
            self.views[room] = (m["seq"], m["view"])
        if m.get("ev") == "game_over":
            self.over.add(m["room"])
        return m

    def send_line(self, data):
        try:
            self.sock.sendall(data)
            return True
        except (BrokenPipeError, ConnectionError):
            self.gone = True
            return False

    def request(self, cmd, raw=None, **args):
        """Send a request; its reply (retried once after "internal"), or None
        if the connection is gone. Any other error is Broken unless the step
        expects it (raw lines: their one expected error code)."""
        for attempt in (1, 2):
            if self.gone:
                return None
            self.next_id += 1
            rid = self.next_id
            if raw is not None:
                data, rid = raw, None
            else:
                msg = {"cmd": cmd, "id": rid}
                msg.update(args)
                data = (json.dumps(msg) + "\n").encode()
            if not self.send_line(data):
                return None
            deadline = time.monotonic() + HANG
            while True:
                m = self._read(deadline, "reply to %s" % cmd)
                if m is None:
                    return None
                if "re" not in m:
                    self.events.append(m)
                    continue
                if m.get("id") != rid and not (m["re"] is None and "id" not in m
                                               and m.get("error", {}).get("code") == "internal"):
                    # (out of memory while parsing the line: neither re nor id could be read)
                    raise Broken("%s: reply out of order, wanted id %r: %r" % (self.name, rid, m))
                break
            if m["ok"]:
                if cmd == "hello":
                    self.token = m["token"]
                return m
            code = m["error"]["code"]
            if code == "internal" and self.run.failing and attempt == 1:
                self.run.note("%s %s: internal" % (self.name, cmd))
                continue
            if raw is not None and code == cmd:
                return m
            raise Broken("%s: %s answered %s (%s)" % (self.name, cmd, code,
                                                      m["error"]["message"]))
        raise Broken("%s: %s answered internal twice" % (self.name, cmd))

    def event(self, pred, what):
        """The first event (queued or to come) matching pred; None if gone."""
        deadline = time.monotonic() + HANG
        while True:
            for i, e in enumerate(self.events):
                if pred(e):
                    del self.events[:i + 1]
                    return e
            self.events.clear()
            if self.gone:
                return None
            m = self._read(deadline, what)
            if m is None:
                return None
            if "re" in m:
                raise Broken("%s: a reply while waiting for %s: %r" % (self.name, what, m))
            self.events.append(m)

    def pump(self):
        """Read what has come (events), without waiting."""
        while not self.gone:
            try:
                d = self._recv(0.0)
            except (BlockingIOError, socket.timeout):
                break
            if not d:
                self.gone = True
                break
            self.buf += d
        while b"\n" in self.buf:
            m = self._read(time.monotonic() + HANG, "event")
            if "re" in m:
                raise Broken("%s: an unexpected reply: %r" % (self.name, m))
            self.events.append(m)

    def progress(self, room, seq):
        """Wait for a state of `room` later than seq, or its end; False if gone."""
        if self.views.get(room, (0, None))[0] > seq or room in self.over:
            return True
        return self.event(lambda e: e.get("room") == room and (
            e["ev"] == "game_over" or e["ev"] == "state" and e["seq"] > seq),
            "state of room %s after seq %d" % (room, seq)) is not None

    def state_after(self, room, seq):
        """Wait for a state of `room` later than seq; its (seq, view) or None if gone."""
        if self.views.get(room, (0, None))[0] > seq:
            return self.views[room]
        e = self.event(lambda e: e.get("ev") == "state" and e["room"] == room
                       and e["seq"] > seq, "state of room %s after seq %d" % (room, seq))
        return None if e is None else self.views[room]


class WsPeer(Peer):
    """A Peer over a WebSocket of the game port (harness.py's frames): each
    request one text message, each text message received one line. A
    handshake the server could not answer (out of memory) leaves it gone."""

    def __init__(self, run, port, name):
        super().__init__(run, port, name)
        self.raw = b""
        self.close_seen = False
        try:
            status, _, self.raw = ws_handshake(self.sock)
        except (Closed, ConnectionError, socket.timeout):
            status = None
        if status != 101:
            if not run.failing:
                raise Broken("%s: the WebSocket handshake answered %r" % (name, status))
            run.note("%s: no WebSocket" % name)
            self.gone = True

    def send_line(self, data):
        return super().send_line(ws_frame(WS_TEXT, data.rstrip(b"\n")))

    def _recv(self, timeout):
        """The text messages of the frames read, each as a line; b"" at a close frame."""
        out = b""
        while not self.close_seen:
            while len(self.raw) >= 2:
                n, off = self.raw[1] & 0x7F, 2
                if n == 126:
                    n, off = int.from_bytes(self.raw[2:4], "big"), 4
                elif n == 127:
                    n, off = int.from_bytes(self.raw[2:10], "big"), 10
                if len(self.raw) < off + n:
                    break
                op, payload = self.raw[0] & 0x0F, self.raw[off:off + n]
                self.raw = self.raw[off + n:]
                if op == WS_CLOSE:
                    self.close_seen = True
                    return out
                if op == WS_TEXT:
                    out += payload + b"\n"
            if out:
                return out
            d = super()._recv(timeout)
            if not d:
                return b""
            self.raw += d
        return b""


def play(room, players, watchers, moves):
    """Play `moves` moves: the seat with a legal action on the latest state takes
    the first one; every member still connected must see the new state."""
    for _ in range(moves):
        live = [p for p in players if not p.gone]
        if not live:
            return
        seq = max(p.views.get(room, (0, None))[0] for p in live)
        actor = None
        for p in live:
            s, v = p.views.get(room, (0, None))
            if s == seq and v and v.get("legal"):
                actor = p
                break
        if actor is None:
            return  # the seat to play is gone (its connection closed), or the game is over
        if actor.request("act", room=room, action=actor.views[room][1]["legal"][0]) is None:
            return
        for p in players + watchers:
            if not p.gone:
                p.state_after(room, seq)


def session(run, port):
    """The script. Steps whose peer or room is gone are skipped."""
    a = Peer(run, port, "alice")
    a.request("hello", name="alice")
    a.request("games")
    r = a.request("create", game="aspoint3", players=2)
    room = r and r["room"]
    if room:
        a.request("seed", room=room, text="alice's seed")  # the game is dealt again
    b = Peer(run, port, "bob")
    b.request("hello", name="bob")
    b.request("rooms")
    joined = room and b.request("join", room=room)
    c = WsPeer(run, port, "carol")  # a browser's WebSocket
    c.request("hello", name="carol")
    watching = room and c.request("watch", room=room)
    if joined:
        # The game starts: both seats get a first state, and so does the spectator.
        for p in (a, b) + ((c,) if watching else ()):
            p.state_after(room, 0)
        play(room, [a, b], [c] if watching else [], MOVES)
    if room and a.request("say", room=room, text="hello there") and watching:
        c.event(lambda e: e.get("ev") == "chat", "chat")
    if joined:
        b.request("state", room=room)
    # A short game against a bot, to its end.
    r2 = a.request("create", game="aspoint3", players=2, options={"rounds": 1, "target": 40})
    room2 = r2 and r2["room"]
    if room2 and a.request("addbot", room=room2) and a.state_after(room2, 0):
        for _ in range(BOT_MOVES):
            if room2 in a.over:
                break
            seq, view = a.views[room2]
            if view.get("legal") and not a.request("act", room=room2, action=view["legal"][0]):
                break
            if not a.progress(room2, seq):
                break
        if not a.gone and room2 not in a.over:
            raise Broken("the game against the bot is not over after %d moves" % BOT_MOVES)
    r = c.request("rooms")
    made = bool(room) + bool(room2)
    if r and not a.gone and r["total"] != made:  # alice sits in every room made
        raise Broken("%d rooms, the session made %d (a create that failed made one?)"
                     % (r["total"], made))
    c.request("help", command="act")
    if watching:
        c.request("leave", room=room)
    if joined and b.token:
        # bob drops (his seat is held) and comes back with his token.
        token = b.token
        b.close()
        b = Peer(run, port, "bob")
        r = b.request("hello", name="bob", token=token)
        if r and not r["resumed"]:
            raise Broken("bob's session was not resumed: %r" % r)
        if r:
            b.state_after(room, 0)
    b.request("bad_json", raw=b'{"cmd": "ping", oops\n')
    b.request("hello", name="bobby")
    if joined:
        b.request("leave", room=room)  # a bot takes the seat
    a.request("ping")
    # The operator: stats, an announcement, a room closed; and a scrape.
    if a.request("admin", token=ADMIN_TOKEN):
        a.request("stats")
        a.request("announce", text="the operator speaks")
        if room2:
            a.request("close", room=room2)
    scrape(run)
    run.closed = sum(p.gone for p in (a, b, c))  # closed by the server
    for p in (a, b):
        p.request("quit")
        deadline = time.monotonic() + HANG
        while not p.gone:
            if time.monotonic() > deadline:
                raise Broken("%s: not closed after quit" % p.name)
            p.pump()
            time.sleep(0.005)
    c.close()


def scrape(run):
    """GET /metrics: 200 with the families, or (out of memory) 500 or no answer."""
    deadline = time.monotonic() + HANG  # the log is read by another thread: it may lag
    while not (m := re.search(r"metrics on \S+:(\d+)", "".join(run.srv.log))):
        if time.monotonic() > deadline:
            raise Broken("no 'metrics on' line")
        time.sleep(0.01)
    s = socket.create_connection(("127.0.0.1", int(m.group(1))), timeout=HANG)
    s.sendall(b"GET /metrics HTTP/1.1\r\n\r\n")
    try:
        data = read_to_eof(s)
    except socket.timeout:
        raise Broken("/metrics: no answer in %.0f s" % HANG)
    except ConnectionResetError:  # closed unanswered (out of memory), the request unread
        if not run.failing:
            raise Broken("/metrics: connection reset")
        data = b""
    finally:
        s.close()
    status = data.split(b" ", 2)[1] if data.startswith(b"HTTP/1.1 ") else b""
    if status == b"200" and b"tapis_connections_open" in data:
        return
    if run.failing and status in (b"500", b""):
        run.note("metrics: %s" % (status.decode() or "closed"))
        return
    raise Broken("/metrics answered %r" % data[:80])


class Run:
    """One server and one session, failing allocation N (0: none)."""

    def __init__(self, exe, n):
        self.exe = exe
        self.n = n
        self.failing = n > 0
        self.notes = []
        self.closed = 0

    def note(self, s):
        self.notes.append(s)

    def go(self):
        srv = Server(self.exe, *ARGS, "--admin-token-file", TOKEN_FILE,
                     wrapper=["env", "TAPIS_ALLOC_FAIL_AT=%d" % self.n, "TAPIS_ALLOC_LISTENS=2"])
        self.srv = srv
        try:
            session(self, srv.port)
            # The server still answers a new connection's hello (it may close the
            # first one if the allocation that fails is one of its own).
            for attempt in (1, 2):
                d = Peer(self, srv.port, "dave")
                ok = d.request("hello", name="dave")
                d.close()
                if ok:
                    break
                if attempt == 2 or not self.failing:
                    raise Broken("a new connection was closed at hello")
            rc = srv.stop(timeout=30)
        except Exception as e:
            why = str(e) if isinstance(e, Broken) else "%s: %s" % (type(e).__name__, e)
            raise Broken(why + ("" if srv.alive() else " (tapisd died)"))
        finally:
            srv.kill()
        log = "".join(srv.log)
        m = re.search(r"allocations: (\d+) failed: (\d+) alive: (-?\d+)", log)
        if rc != 0:
            raise Broken("exit code %r" % rc)
        if not m:
            raise Broken("no allocation report at exit")
        self.k, failed, alive = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if alive != 0:
            raise Broken("%d blocks still allocated at exit" % alive)
        if SANITIZER_REPORT.search(log):
            raise Broken("sanitizer report")
        if failed != (1 if 0 < self.n <= self.k else 0):
            raise Broken("%d failures made, of %d allocations" % (failed, self.k))
        return self


def attempt(exe, n):
    run = Run(exe, n)
    try:
        run.go()
        return n, None, run
    except Exception as e:
        srv = getattr(run, "srv", None)
        tail = "".join(srv.log[-30:]) if srv else ""
        return n, str(e), tail


def main(argv):
    t0 = time.monotonic()
    if len(argv) != 2:
        print("usage: %s PATH/TO/tapisd_allocfail" % argv[0])
        return 2
    exe = argv[1]
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    global TOKEN_FILE
    fd, TOKEN_FILE = tempfile.mkstemp(prefix="tapis-alloc-admin-")
    os.write(fd, ADMIN_TOKEN.encode() + b"\n")
    os.close(fd)
    try:
        return run_all(exe, t0)
    finally:
        os.unlink(TOKEN_FILE)


def run_all(exe, t0):
    only = os.environ.get("TAPIS_ALLOC_ONLY")
    if only:
        os.environ["TAPIS_TEST_VERBOSE"] = "1"
        n, err, run = attempt(exe, int(only))
        print("N=%s: %s" % (n, err or "ok %r" % run.notes))
        if err:
            print(run)
        return 1 if err else 0
    n, err, ref = attempt(exe, 0)
    if err:
        print("the session without failures failed: %s\n%s" % (err, ref))
        return 1
    k = ref.k
    t_ref = time.monotonic() - t0
    stride = int(os.environ.get("TAPIS_ALLOC_STRIDE", "7"))
    ns = list(range(1, min(k, 200) + 1)) + list(range(200 + stride, k + 1, stride))
    if ns and ns[-1] != k:
        ns.append(k)
    # two servers per core: a run waits on its sockets a good part of the time
    # (885 runs: 2 at once took 21.5 s for 26 s of CPU, 4 at once 17.2 s)
    jobs = int(os.environ.get("TAPIS_ALLOC_JOBS", str(min(8, 2 * (os.cpu_count() or 1)))))
    print("reference session: %d allocations (%.2f s); failing N = 1..%d, %d runs, %d at once"
          % (k, t_ref, k, len(ns), jobs), flush=True)
    failures = []
    internal = closed = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for n, err, run in pool.map(lambda n: attempt(exe, n), ns):
            if err:
                failures.append((n, err, run))
                print("FAIL N=%d: %s" % (n, err), flush=True)
            else:
                internal += len(run.notes)
                closed += run.closed > 0
    for n, err, tail in failures[:3]:
        print("---- N=%d: %s; log tail:\n%s" % (n, err, tail))
    print("%d runs in %.1f s: %d failed (the others: %d internal replies, %d runs with a "
          "connection closed by the server)"
          % (len(ns), time.monotonic() - t0, len(failures), internal, closed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
