"""clientutil.py — shared by the client tests (standard library only).

Server(exe) starts tapisd on a free port (srv.connect(name) is a protocol
client, is_ev(name) matches its events), free_port() names a port nobody
listens on and end_process() stops a program: tests/server/harness.py's, the
one launcher of every suite; Proxy(port) relays one TCP port to
another and can cut every connection (to test reconnection); Tty(exe, args)
runs the terminal client in a pseudo-terminal; tapis_session() runs it
against a server for the length of a `with` block; ends_on_stop_signals()
checks that a loop holding the terminal ends on SIGINT, SIGTERM and SIGHUP
and puts the terminal back; FakeServer plays a server of one connection for
tests that script the wire; check() and run() make each test a list of named
checks printing "N passed, M failed".
"""
import contextlib
import fcntl
import json
import os
import pty
import queue
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
import time
import traceback

TIMEOUT = float(os.environ.get("TAPIS_TEST_TIMEOUT", "20"))

# tapisd is started, watched and stopped by the server tests' launcher.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from harness import Server, end_process, free_port, is_ev  # noqa: E402,F401


class Proxy:
    """Relays 127.0.0.1:self.port to a server port; cut() drops every connection."""

    def __init__(self, target_port):
        self.target = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.address = "127.0.0.1:%d" % self.port
        self.pairs = []
        self.accepted = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                a, _ = self.listener.accept()
            except OSError:
                return
            b = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.pairs.append((a, b))
                self.accepted += 1
            threading.Thread(target=self._relay, args=(a, b), daemon=True).start()

    @staticmethod
    def _relay(a, b):
        socks = [a, b]
        try:
            while True:
                r, _, _ = select.select(socks, [], [])
                for s in r:
                    d = s.recv(65536)
                    if not d:
                        raise OSError
                    (b if s is a else a).sendall(d)
        except OSError:
            for s in socks:
                try:
                    s.close()
                except OSError:
                    pass

    def cut(self):
        with self.lock:
            for a, b in self.pairs:
                for s in (a, b):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
            self.pairs = []

    def close(self):
        self.cut()
        self.listener.close()


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\r|\x07")


class Tty:
    """tapis on a pty: send() types a line, expect() waits for text on screen;
    closed by close(), or at the end of a `with` block."""

    def __init__(self, exe, *args, env=None):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        e = dict(os.environ, TERM="xterm")
        e.pop("NO_COLOR", None)
        e.update(env or {})
        self.proc = subprocess.Popen([exe] + list(args), stdin=slave, stdout=slave,
                                     stderr=slave, env=e, close_fds=True)
        os.close(slave)
        self.raw = b""
        self.seen = 0  # expect() searches the text after this offset

    def _read(self, timeout):
        r, _, _ = select.select([self.master], [], [], timeout)
        if r:
            try:
                d = os.read(self.master, 65536)
            except OSError:
                d = b""
            self.raw += d
            return bool(d)
        return True

    def text(self):
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def expect(self, pattern, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            t = self.text()
            m = re.search(pattern, t[self.seen:])
            if m:
                self.seen += m.end()
                return m
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(min(left, 0.2)) and self.proc.poll() is not None:
                raise AssertionError("no %r on screen; after offset %d:\n%s"
                                     % (pattern, self.seen, t[self.seen:][-3000:]))

    def send(self, line):
        os.write(self.master, line.encode() + b"\r")

    def tab(self, typed, shown):
        """Type `typed` and Tab (no Enter); wait for `shown`, the completion, on screen."""
        os.write(self.master, typed.encode() + b"\t")
        return self.expect(shown)

    def enter(self):
        os.write(self.master, b"\r")

    def close(self):
        end_process(self.proc)
        os.close(self.master)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@contextlib.contextmanager
def tapis_session(exe, server, *args, env=None):
    """tapis (exe, in a Tty) connected to server with args, for a `with` block;
    the Tty is closed after it, then the server (a Server, or a FakeServer)."""
    try:
        tty = Tty(exe, server.address, *args, env=env)
        try:
            yield tty
        finally:
            tty.close()
    finally:
        server.stop()


def ends_on_stop_signals(args_of, ready):
    """For each of SIGINT, SIGTERM and SIGHUP: tapis with args_of(sig) (exe
    first) in a Tty, sent the signal once `ready` is on screen, exits 0 with
    line editing and echo back on the terminal (the loop ends, not the
    process)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        tty = Tty(*args_of(sig))
        try:
            tty.expect(ready)
            tty.proc.send_signal(sig)
            assert tty.proc.wait(TIMEOUT) == 0, sig
            lflag = termios.tcgetattr(tty.master)[3]
            assert lflag & termios.ICANON and lflag & termios.ECHO, (sig, lflag)
        finally:
            tty.close()


class FakeServer:
    """One connection: lines received go to self.lines; send() writes lines
    (a dict as JSON, str or bytes as they are)."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.address = "127.0.0.1:%d" % self.listener.getsockname()[1]
        self.lines = queue.Queue()
        self.conn = None
        self.connected = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        try:
            self.conn, _ = self.listener.accept()
        except OSError:
            return
        self.connected.set()
        buf = b""
        while True:
            try:
                d = self.conn.recv(65536)
            except OSError:
                d = b""
            if not d:
                self.lines.put(None)
                return
            buf += d
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.lines.put(line.decode("utf-8", "replace"))

    def send(self, msg):
        if isinstance(msg, dict):
            msg = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
        if isinstance(msg, str):
            msg = msg.encode("utf-8")
        self.conn.sendall(msg + b"\n")

    def next_line(self, timeout=TIMEOUT):
        line = self.lines.get(timeout=timeout)
        assert line is not None, "tapis closed the connection"
        return line

    def next_request(self, timeout=TIMEOUT):
        """The next line as a request: JSON as sent, or the inline form's first word."""
        line = self.next_line(timeout)
        if line.lstrip().startswith("{"):
            return json.loads(line)
        words = line.split()
        return {"cmd": words[0] if words else "", "words": words, "line": line}

    def hello(self):
        req = self.next_request()
        assert req["cmd"] == "hello", req
        self.send({"re": "hello", "ok": True, "token": "t" * 32, "rooms": []})
        return req

    def close(self):
        for s in (self.conn, self.listener):
            if s is None:
                continue
            try:  # shutdown first: the reader thread's recv() holds the socket open
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    stop = close  # as Server's, for tapis_session()


_TESTS = []


def check(fn):
    _TESTS.append(fn)
    return fn


def run():
    passed = failed = 0
    only = sys.argv[1:]
    for fn in _TESTS:
        if only and fn.__name__ not in only:
            continue
        t0 = time.monotonic()
        try:
            fn()
            passed += 1
            print("ok   %s (%.1fs)" % (fn.__name__, time.monotonic() - t0), flush=True)
        except Exception:
            failed += 1
            print("FAIL %s" % fn.__name__, flush=True)
            traceback.print_exc()
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
