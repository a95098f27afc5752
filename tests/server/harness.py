"""harness.py — shared by the tapisd integration tests (standard library only).

Server(exe, *args) starts tapisd on a free port (--listen 127.0.0.1:0; the
port is read from its "listening on" log line), with --db none unless args
name a --db, and keeps its log: the one launcher of tapisd for every suite
(tests/clients/clientutil.py and tests/deploy/test_deploy.py import it too),
with free_port() and end_process(), and serving(), a Server for a `with`
block that must end cleanly; Client is
one connection speaking the JSON-lines protocol, WsClient the same over a
WebSocket of the game port (its handshake and frames written here, by
hand: ws_frame(), ws_handshake()); run_tests() runs the functions
registered with @test and prints "N passed, M failed" last.
"""
import base64
import contextlib
import hashlib
import json
import os
import random
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import traceback

TIMEOUT = float(os.environ.get("TAPIS_TEST_TIMEOUT", "10"))


def free_port(host="127.0.0.1"):
    """A port nobody listens on now (the kernel's pick, released): for a
    program that must be told its port, or for "no server there". Another
    process may take it meanwhile; tapisd itself is started on port 0."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def end_process(proc, sig=signal.SIGTERM, timeout=TIMEOUT):
    """Send sig to proc (unless it has exited) and wait up to `timeout` s;
    SIGKILL it if it is still there. Returns its exit code, or None when it
    had to be killed."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


class Server:
    """tapisd on a free port, its log kept in self.log (one line an item, read
    by a thread of its own). The server tests, the client tests and the
    packaging tests all start tapisd through this class. With `with`, it is
    stopped (SIGTERM) at the end of the block. `listen` is its one --listen
    (port 0: a free one); self.host and self.port say where it listens."""

    def __init__(self, exe, *args, wrapper=(), start_timeout=TIMEOUT, cwd=None,
                 default_db=False, listen="127.0.0.1:0"):
        self.exe = exe
        self.args = list(args)
        # Many servers start in one working directory: no shared tapis.db unless a
        # test names its own database (or asks for the default, default_db=True).
        if not default_db and not any(a == "--db" or str(a).startswith("--db=")
                                      for a in self.args):
            self.args = ["--db", "none"] + self.args
        # The server's own pings (PROTOCOL.md, "Races") come every 2 s, between
        # any two messages a test reads: a test that wants them names
        # --ping-interval (test_rtt.py, race_fair.py); the others run without,
        # their connections settled by arrival, as a netcat user's are.
        if not any(a == "--ping-interval" or str(a).startswith("--ping-interval=")
                   for a in self.args):
            self.args = ["--ping-interval", "0"] + self.args
        self.log = []
        self._logged = threading.Condition()  # notified at each line and at the end
        self._log_ended = False
        if cwd:
            exe = os.path.abspath(exe)
        self.proc = subprocess.Popen(list(wrapper) + [exe, "--listen", listen] + self.args,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, errors="replace", cwd=cwd)
        self.reader = threading.Thread(target=self._read_log, daemon=True)
        self.reader.start()
        m = self._wait_line(r"listening on (\S+):(\d+)\b", start_timeout)
        if not m:
            self.kill()
            raise RuntimeError("tapisd did not start: " + "".join(self.log[-20:]))
        self.host = m.group(1).strip("[]")
        self.port = int(m.group(2))
        self.address = "%s:%d" % (m.group(1), self.port)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def _read_log(self):
        for line in self.proc.stderr:
            if os.environ.get("TAPIS_TEST_VERBOSE"):
                sys.stderr.write("  tapisd: " + line)
            with self._logged:
                self.log.append(line)
                self._logged.notify_all()
        with self._logged:
            self._log_ended = True
            self._logged.notify_all()

    def _wait_line(self, pattern, timeout):
        """The match of the first line of the log matching pattern, waiting up
        to `timeout` s for it to be written; None if it is not (or the log ends)."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._logged:
            while True:
                for line in self.log[seen:]:
                    m = re.search(pattern, line)
                    if m:
                        return m
                seen = len(self.log)
                left = deadline - time.monotonic()
                if self._log_ended or left <= 0:
                    return None
                self._logged.wait(left)

    def connect(self, name=None, **kw):
        c = Client(self.port, **kw)
        if name is not None:
            c.hello(name)
        return c

    def connect_ws(self, name=None, **kw):
        """A WebSocket (WsClient) on the game port, its handshake done."""
        c = WsClient(self.port, **kw)
        if name is not None:
            c.hello(name)
        return c

    def alive(self):
        return self.proc.poll() is None

    def log_has(self, pattern):
        return any(re.search(pattern, l) for l in list(self.log))

    def wait_log(self, pattern, timeout=TIMEOUT):
        """Wait for a line of the log (read by a thread of its own, so a line
        written just after "listening on" may not be here yet)."""
        return self._wait_line(pattern, timeout) is not None

    def stop(self, sig=signal.SIGTERM, timeout=TIMEOUT):
        """Signal tapisd and wait; returns its exit code."""
        rc = end_process(self.proc, sig, timeout)
        if rc is None:
            raise AssertionError("tapisd did not exit after signal %d" % sig)
        self.reader.join(TIMEOUT)
        return rc

    def finish(self):
        """Stop with SIGTERM and require a clean exit (0): under ASan this also
        checks for leaks, and tapisd itself checks uv_loop_close() == 0."""
        rc = self.stop(signal.SIGTERM)
        if rc != 0:
            raise AssertionError("tapisd exited with %r; log tail:\n%s"
                                 % (rc, "".join(self.log[-40:])))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def serving(exe, *args, **kw):
    """Server(exe, *args, **kw) for the block, finished at its end however the
    block ends (Server.finish(): a clean exit is required)."""
    srv = Server(exe, *args, **kw)
    try:
        yield srv
    finally:
        srv.finish()


def read_to_eof(sock, stop_on_error=False):
    """Every byte the peer sends until it closes. A socket error (a timeout, a
    reset) raises, or with stop_on_error ends the read: what came is returned."""
    data = b""
    while True:
        try:
            d = sock.recv(65536)
        except OSError:
            if not stop_on_error:
                raise
            d = b""
        if not d:
            return data
        data += d


class Closed(Exception):
    pass


class Client:
    _ids = 0

    def __init__(self, port, host="127.0.0.1", family=socket.AF_INET, rcvbuf=None, wrap=None):
        """wrap: a function of the connected socket that returns the one to
        use (an ssl context's wrap_socket, for a server behind TLS)."""
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect((host, port))
        if wrap:
            self.sock = wrap(self.sock)
        self.buf = b""
        self.events = []   # events received while waiting for replies, in order
        self.all = []      # every message received, in order
        self.closed = False
        self.token = None
        self.name = None

    # -- raw I/O --
    def send_raw(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def send(self, obj):
        self.send_raw(json.dumps(obj) + "\n")

    def recv_some(self, deadline, what="line"):
        """The next bytes the socket gives before `deadline` (monotonic); raises
        TimeoutError after it, Closed at the end of the connection."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no %s within the time given" % what)
        self.sock.settimeout(left)
        try:
            d = self.sock.recv(65536)
        except socket.timeout:
            raise TimeoutError("no %s within the time given" % what)
        except ConnectionResetError:
            d = b""
        if not d:
            self.closed = True
            raise Closed("connection closed by the server")
        return d

    def read_line(self, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            self.buf += self.recv_some(deadline)
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def recv(self, timeout=TIMEOUT):
        line = self.read_line(timeout)
        try:
            msg = json.loads(line)
        except ValueError:
            raise AssertionError("server sent a line that is not JSON: %r" % line)
        assert isinstance(msg, dict), "not an object: %r" % line
        self.all.append(msg)
        return msg

    def wait_closed(self, timeout=TIMEOUT):
        """Read until the server closes; returns the messages read meanwhile."""
        got = []
        try:
            while True:
                got.append(self.recv(timeout))
        except Closed:
            return got

    # -- requests --
    def request(self, cmd, timeout=TIMEOUT, **args):
        """Send {"cmd":cmd,"id":N,...}; return the reply (events go to self.events)."""
        Client._ids += 1
        rid = Client._ids
        msg = {"cmd": cmd, "id": rid}
        msg.update(args)
        self.send(msg)
        return self.reply(rid, timeout)

    def reply(self, rid, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            m = self.recv(max(0.01, deadline - time.monotonic()))
            if "re" in m:
                if isinstance(m.get("id"), int) and isinstance(rid, int) and m["id"] < rid:
                    continue  # the answer to an earlier request nobody waited for
                assert m.get("id") == rid, "reply out of order: wanted id %r, got %r" % (rid, m)
                return m
            self.events.append(m)

    def ok(self, cmd, **args):
        r = self.request(cmd, **args)
        assert r.get("ok") is True, "%s %r failed: %r" % (cmd, args, r)
        return r

    def hello(self, name, token=None):
        args = {"name": name}
        if token:
            args["token"] = token
        r = self.ok("hello", **args)
        self.token = r["token"]
        self.name = name
        return r

    def event(self, pred=None, timeout=TIMEOUT, keep=False):
        """The next event (already queued or new) matching pred. Earlier ones are
        dropped, or with keep=True left queued (for a Player that goes on later)."""
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if pred is None or pred(e):
                    if keep:
                        del self.events[i]
                    else:
                        del self.events[:i + 1]
                    return e
            if not keep:
                del self.events[:]  # the same list: callers may hold it
            m = self.recv(max(0.01, deadline - time.monotonic()))
            if "re" in m:
                raise AssertionError("unexpected reply while waiting for an event: %r" % m)
            self.events.append(m)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# -- WebSocket (RFC 6455), the client's side, by hand --

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
WS_TEXT, WS_BINARY, WS_CLOSE, WS_PING, WS_PONG = 1, 2, 8, 9, 10


def ws_accept(key):
    """The Sec-WebSocket-Accept a server must answer to `key`."""
    return base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()


def ws_mask(key, data):
    k = (key * (len(data) // 4 + 1))[:len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(k, "big")).to_bytes(len(data), "big")


def ws_frame(opcode, payload=b"", fin=True, mask=True, rsv=0, length=None):
    """One frame as a client sends it (masked unless mask=False); `length`
    overrides the length the header claims."""
    if isinstance(payload, str):
        payload = payload.encode()
    n = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    m = 0x80 if mask else 0
    if n < 126:
        head += bytes([m | n])
    elif n < 65536:
        head += bytes([m | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([m | 127]) + n.to_bytes(8, "big")
    if mask:
        key = os.urandom(4)
        head += key
        payload = ws_mask(key, payload)
    return head + payload


def ws_handshake(sock, path="/ws", host=None, origin=None, extra=(), key=None):
    """Send an upgrade request on sock; return (status, headers dict with
    lower-case names, bytes read past the head)."""
    key = key or base64.b64encode(os.urandom(16)).decode()
    host = host or "%s:%d" % sock.getpeername()[:2]
    lines = ["GET %s HTTP/1.1" % path, "Host: " + host, "Upgrade: websocket",
             "Connection: Upgrade", "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Version: 13"]
    if origin:
        lines.append("Origin: " + origin)
    lines += list(extra)
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    status, headers, rest = read_http_head(sock)
    if status == 101:
        assert headers.get("sec-websocket-accept") == ws_accept(key), headers
    return status, headers, rest


def read_http_head(sock, timeout=TIMEOUT):
    """(status, headers with lower-case names, the bytes after the head)."""
    data = b""
    deadline = time.monotonic() + timeout
    while b"\r\n\r\n" not in data:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        d = sock.recv(65536)
        if not d:
            raise Closed("closed before the answer's head: %r" % data)
        data += d
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for l in lines[1:]:
        k, v = l.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), headers, rest


class WsClient(Client):
    """A Client over a WebSocket of the game port: each request one text
    message, each text message received one line. Control frames are kept:
    self.pongs (payloads), self.close_code and self.close_reason once the
    server's close frame came (then the client answers it, as RFC 6455 asks,
    and reading raises Closed)."""

    def __init__(self, port, host="127.0.0.1", path="/ws", origin=None, extra=(), http_host=None,
                 **kw):
        super().__init__(port, host=host, **kw)
        status, self.headers, self.raw = ws_handshake(self.sock, path, host=http_host,
                                                      origin=origin, extra=extra)
        assert status == 101, "handshake refused: %d %r" % (status, self.headers)
        self.pongs = []
        self.close_code = None
        self.close_reason = None
        self.frames = []  # (opcode, payload) of every frame received, in order

    def send_frame(self, opcode, payload=b"", **kw):
        self.sock.sendall(ws_frame(opcode, payload, **kw))

    def send_raw(self, data):
        """One text message (a trailing newline is left out: a message is a line)."""
        if isinstance(data, str):
            data = data.encode()
        self.send_frame(WS_TEXT, data[:-1] if data.endswith(b"\n") else data)

    def send(self, obj):
        self.send_frame(WS_TEXT, json.dumps(obj))

    def _frame(self):
        """The next complete frame in self.raw as (fin, opcode, payload), or None."""
        r = self.raw
        if len(r) < 2:
            return None
        assert not r[1] & 0x80, "the server masked a frame"
        n, off = r[1] & 0x7f, 2
        if n == 126:
            if len(r) < 4:
                return None
            n, off = int.from_bytes(r[2:4], "big"), 4
        elif n == 127:
            if len(r) < 10:
                return None
            n, off = int.from_bytes(r[2:10], "big"), 10
        if len(r) < off + n:
            return None
        self.raw = r[off + n:]
        return bool(r[0] & 0x80), r[0] & 0x0f, r[off:off + n]

    def _message(self, frag):
        """The next message from the frames buffered, or None; control frames
        are noted, and a close frame answered (then Closed is raised)."""
        while True:
            f = self._frame()
            if f is None:
                return None
            fin, op, payload = f
            self.frames.append((op, payload))
            if op == WS_PONG:
                self.pongs.append(payload)
            elif op == WS_CLOSE:
                self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                self.close_reason = payload[2:].decode()
                try:
                    self.send_frame(WS_CLOSE, payload[:2])
                except OSError:
                    pass
                self.closed = True
                raise Closed("close frame %r" % self.close_code)
            elif op in (WS_TEXT, WS_BINARY, 0):
                frag.append(payload)
                if fin:
                    data = b"".join(frag)
                    del frag[:]
                    return data

    def read_line(self, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        frag = []
        while True:
            m = self._message(frag)
            if m is not None:
                return m.decode()
            self.raw += self.recv_some(deadline, "message")

    def pump_messages(self):
        """Non-blocking: what has come, as messages (see pump())."""
        self.raw += read_available(self)
        out = []
        frag = []
        while True:
            try:
                m = self._message(frag)
            except Closed:
                break
            if m is None:
                break
            msg = json.loads(m.decode())
            self.all.append(msg)
            out.append(msg)
        return out


def is_ev(name, room=None):
    return lambda e: e.get("ev") == name and (room is None or e.get("room") == room)


def wait_for(cond, what, timeout=TIMEOUT, every=0.02):
    """Poll cond() until it returns a true value, and return that value; fail
    naming `what` after `timeout` s. For what the server does in its own time
    (a timer, a close it has to notice): wait for it, never sleep and assume."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        assert time.monotonic() < deadline, "%s: not within %.0f s" % (what, timeout)
        time.sleep(every)


# -- the runner --
_tests = []


def test(fn):
    _tests.append(fn)
    return fn


def run_tests(argv):
    if len(argv) < 2:
        print("usage: %s PATH/TO/tapisd [test-name...] [-test-name...]" % argv[0])
        sys.exit(2)
    exe = argv[1]
    # NAME runs that test; -NAME leaves it out of the others (all by default)
    only = {a for a in argv[2:] if not a.startswith("-")}
    but = {a[1:] for a in argv[2:] if a.startswith("-")}
    unknown = (only | but) - {fn.__name__ for fn in _tests}
    if unknown:  # a misspelt or renamed name must not pass by running nothing
        print("no such test: %s" % ", ".join(sorted(unknown)), flush=True)
        sys.exit(2)
    passed = failed = 0
    for fn in _tests:
        if (only and fn.__name__ not in only) or fn.__name__ in but:
            continue
        t0 = time.monotonic()
        try:
            fn(exe)
            passed += 1
            print("ok   %s (%.2fs)" % (fn.__name__, time.monotonic() - t0), flush=True)
        except Exception:
            failed += 1
            print("FAIL %s (%.2fs)" % (fn.__name__, time.monotonic() - t0), flush=True)
            traceback.print_exc(file=sys.stdout)
    print("%d passed, %d failed" % (passed, failed), flush=True)
    sys.exit(1 if failed else 0)


# -- playing from "legal" --

def read_available(client):
    """Non-blocking: the bytes client's socket holds now (client.closed set at its end)."""
    got = b""
    client.sock.setblocking(False)
    try:
        while True:
            try:
                d = client.sock.recv(65536)
            except (BlockingIOError, InterruptedError, ssl.SSLWantReadError):
                break
            except ConnectionResetError:
                d = b""
            if not d:
                client.closed = True
                break
            got += d
    finally:
        client.sock.setblocking(True)
    return got


def pump(client):
    """Non-blocking: read what is there; return the complete messages."""
    if isinstance(client, WsClient):
        return client.pump_messages()
    client.buf += read_available(client)
    return drain(client)


def quiesce(players, quiet=0.5, timeout=10):
    """Read until nothing has come for `quiet` seconds (the bots and the game's
    timers are done): the players' views are then the server's last word."""
    deadline = time.monotonic() + timeout
    last = time.monotonic()
    while time.monotonic() - last < quiet:
        assert time.monotonic() < deadline, "the table never went quiet"
        got = False
        for p in players:
            for m in pump(p.c):
                p.handle(m)
                got = True
        if got:
            last = time.monotonic()
        time.sleep(0.02)


def drain(client):
    """The complete messages already buffered by client."""
    out = []
    while b"\n" in client.buf:
        line, client.buf = client.buf.split(b"\n", 1)
        m = json.loads(line.decode())
        client.all.append(m)
        out.append(m)
    return out


def ends_a_round(a):
    """A 233 action that declares, or (a final claim) must be followed by a
    declaration: with the option declare "may", only these end a round before
    the draw pile has run out max_rebuilds + 1 times."""
    return a.get("type") == "declare" or a.get("declare") is True or a.get("final") is True


# 233 options under which a round ends only when a player declares (declare "may":
# the game does not declare for them): see Player's declares=False.
HELD = {"declare": "may"}


def pick_action(legal, rng):
    """A playable choice: finish a round when possible, otherwise at random."""
    for a in legal:
        if ends_a_round(a):
            return a
    # Taking discards keeps the draw pile full and rounds long: mostly draw.
    plain = [a for a in legal if a.get("type") not in ("take", "claim")]
    if plain and rng.random() < 0.9:
        return rng.choice(plain)
    return rng.choice(legal)


class Player:
    """One client's side of a game: the latest state, and one act at a time.
    With declares=False it holds back the end of a 233 round: it never declares
    (ends_a_round), and once someone else has declared it plays nothing (a round
    with a declarer ends after everyone else's last draw and discard). At a table
    created with HELD, no round ends while its people hold back, whatever the
    deal (but by the draw pile running out max_rebuilds + 1 times: hundreds of
    draws), and the game cannot end."""

    def __init__(self, client, room, declares=True):
        self.c = client
        self.room = room
        self.seq = 0
        self.view = None
        self.pending = None   # (id, seq acted on)
        self.over = None
        self.refused = 0
        self.acts = 0
        self.declares = declares

    def handle(self, m, check=None):
        if check:
            check(self, m)
        if m.get("ev") == "state" and m.get("room") == self.room:
            assert m["seq"] > self.seq, "state seq went from %d to %d" % (self.seq, m["seq"])
            self.seq = m["seq"]
            self.view = m["view"]
        elif m.get("ev") == "game_over" and m.get("room") == self.room:
            self.over = m
        elif "re" in m:
            assert self.pending and m.get("id") == self.pending[0], "unexpected reply %r" % m
            if not m["ok"]:
                # A refusal is only fair when the state moved on since we chose.
                assert self.seq > self.pending[1] or self.over, \
                    "legal action refused on an unchanged state: %r" % m
                self.refused += 1
            self.pending = None

    def holds_back(self):
        """Someone has declared and, with declares=False, this player waits: the
        round cannot end until it plays its last draw."""
        return not self.declares and (self.view or {}).get("declarer") is not None

    def maybe_act(self, rng, claim_rate=0.5):
        if self.pending or self.over or not self.view:
            return
        legal = self.view.get("legal") or []
        if not self.declares:
            legal = [] if self.holds_back() else [a for a in legal if not ends_a_round(a)]
        if not legal:
            return
        if all(a.get("type") == "claim" for a in legal) and rng.random() > claim_rate:
            return
        a = pick_action(legal, rng)
        Client._ids += 1
        self.pending = (Client._ids, self.seq)
        self.acts += 1
        self.c.send({"cmd": "act", "id": Client._ids, "room": self.room, "action": a})


def play(players, rng, timeout=60, check=None, until=None):
    """Drive players until every one has seen game_over (or until(players) is true)."""
    import selectors
    sel = selectors.DefaultSelector()
    for p in players:
        sel.register(p.c.sock, selectors.EVENT_READ, p)
        for m in p.c.events:
            p.handle(m, check)
        p.c.events = []
        for m in (p.c.pump_messages() if isinstance(p.c, WsClient) else drain(p.c)):
            # lines read ahead by earlier requests
            p.handle(m, check)
    deadline = time.monotonic() + timeout
    try:
        while not all(p.over for p in players):
            if until and until(players):
                # settle the requests in flight, so that the players can go on later
                while any(p.pending for p in players):
                    assert time.monotonic() < deadline, "no reply to an act"
                    for key, _ in sel.select(0.5):
                        for m in pump(key.data.c):
                            key.data.handle(m, check)
                return
            assert time.monotonic() < deadline, "game not over after %ds: %r %r" % (
                timeout, [(p.c.name, p.seq, p.pending, p.view and p.view.get("legal"))
                          for p in players], [p.c.all[-3:] for p in players])
            for p in players:
                p.maybe_act(rng)
            for key, _ in sel.select(0.5):
                p = key.data
                for m in pump(p.c):
                    p.handle(m, check)
                assert not p.c.closed, "server closed a player's connection"
    finally:
        sel.close()
