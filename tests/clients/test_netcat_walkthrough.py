"""clients/examples/NETCAT.md (the netcat walkthrough) replayed against a real tapisd.

The walkthrough's transcript blocks are parsed from the markdown: a line
after "> " is typed, any other line is the server's, an indented line goes on
the previous server line, and "..." or "…" stands for text left out. The
server is started with the flags the document says the session was recorded
with (on a free port), the typed lines are sent over one TCP connection in
order, and every server line the document shows must be the next line the
server really sends, elisions matching anything within the line. The block
showing only the end of a separate game (the `create ...` its prose names)
is replayed against a fresh server: dora creates that table, seats a bot and
plays the first legal action whenever she is waited on; the block's lines
must be the last ones of the game, in order.

Usage: test_netcat_walkthrough.py [--doc PATH] [CHECK...]
(--doc: another copy of the walkthrough, e.g. a mutated one.)
Environment: TAPISD.
"""
import json
import os
import re
import select
import shlex
import socket
import sys
import time

from clientutil import TIMEOUT, Server, check, run

TAPISD = os.environ["TAPISD"]
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients",
                   "examples", "NETCAT.md")
if "--doc" in sys.argv:
    i = sys.argv.index("--doc")
    DOC = sys.argv[i + 1]
    del sys.argv[i:i + 2]

LINE_WAIT = max(10.0, TIMEOUT)   # longest wait for one expected line
GAME_WAIT = 480.0                # a whole game against a bot at --bot-delay 500


# --------------------------------------------------------------------------
# The document
# --------------------------------------------------------------------------

class Block:
    """One fenced block: items are ("send" | "recv", text, doc line number)."""

    def __init__(self, start, prose):
        self.start = start
        self.prose = prose   # the text between the previous block and this one
        self.items = []
        self.shell = []


def parse(path):
    blocks = []
    prose = []
    block = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            if block is None:
                block = Block(n, "\n".join(prose))
                prose = []
            else:
                blocks.append(block)
                block = None
            continue
        if block is None:
            prose.append(line)
        elif line.startswith("$ "):
            block.shell.append(line[2:])
        elif line.startswith("> "):
            block.items.append(("send", line[2:], n))
        elif line[:1].isspace() and line.strip():
            assert block.items and block.items[-1][0] == "recv", \
                "%s:%d: an indented line that goes on no server line" % (path, n)
            kind, text, first = block.items[-1]
            block.items[-1] = (kind, text + line.lstrip(), first)
        elif line.strip():
            block.items.append(("recv", line, n))
    assert block is None, "%s: unterminated ``` block at line %d" % (path, block.start)
    for b in blocks:
        assert not (b.shell and b.items), \
            "%s:%d: a block mixes shell commands and a transcript" % (path, b.start)
    return "\n".join(lines), blocks


def recorded_flags(text):
    """The tapisd flags the session was recorded with (minus --listen)."""
    m = re.search(r"recorded\s+against\s+`(?:\S*/)?tapisd\b([^`]*)`", text)
    assert m, "the walkthrough does not say which tapisd flags it was recorded with"
    args = shlex.split(m.group(1))
    out = []
    while args:
        a = args.pop(0)
        if a == "--listen":
            args.pop(0)
        elif not a.startswith("--listen="):
            out.append(a)
    assert "--seed" in out, "recorded without --seed: %r" % out
    return out


def pattern(expected):
    """A server line as shown (elisions are wildcards) -> a compiled regex.

    The reconnect token comes from the OS random source, not from --seed, so
    a shown token stands for any 32 lowercase hex digits."""
    parts = re.split(r"\.\.\.|…", expected)
    rx = ".*?".join(re.escape(p) for p in parts)
    rx = re.sub(r'(\\?"token\\?"\\?:\\?")[0-9a-f]{32}(?=\\?")', r"\1[0-9a-f]{32}", rx)
    return re.compile(rx, re.S)


# --------------------------------------------------------------------------
# A line connection
# --------------------------------------------------------------------------

class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buf = b""
        self.received = []
        self.eof = False

    def send(self, line):
        self.sock.sendall(line.encode() + b"\n")

    def readline(self, timeout):
        """The next line, or None after timeout seconds or at end of stream."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.sock], [], [], left)
            if r:
                d = self.sock.recv(65536)
                if not d:
                    self.eof = True
                    return None
                self.buf += d
        line, self.buf = self.buf.split(b"\n", 1)
        line = line.decode("utf-8", "replace").rstrip("\r")
        self.received.append(line)
        return line

    def close(self):
        self.sock.close()


def stop(server):
    """Stop tapisd by its pid; it must exit cleanly, with no sanitizer report."""
    server.stop()
    server.reader.join(TIMEOUT)
    log = "".join(server.log)
    for word in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        assert word not in log, "tapisd: %s\n%s" % (word, log[-4000:])
    assert server.proc.returncode == 0, "tapisd exited with %s\n%s" % (
        server.proc.returncode, log[-2000:])


def mismatch(path, n, expected, actual, conn):
    recent = "\n".join("  " + l for l in conn.received[-6:])
    return AssertionError("%s:%d: the server disagrees with the walkthrough\n"
                          "expected: %s\nactual:   %s\nlast lines received:\n%s"
                          % (path, n, expected, actual, recent))


def expect(conn, path, n, expected, timeout=LINE_WAIT):
    line = conn.readline(timeout)
    # The server's pings come when their timer says (NETCAT.md tells they may
    # come between any two lines); the walkthrough leaves them out.
    while line is not None and re.fullmatch(r'\{"ev":"ping","n":\d+\}', line):
        line = conn.readline(timeout)
    if line is None:
        raise mismatch(path, n, expected, "(nothing within %.0f s)" % timeout, conn)
    if not pattern(expected).fullmatch(line):
        raise mismatch(path, n, expected, line, conn)
    return line


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------

class Doc:
    """The parsed walkthrough (a parse error fails every check that needs it)."""

    def __init__(self, path):
        text, self.blocks = parse(path)
        self.flags = recorded_flags(text)
        self.session = [b for b in self.blocks if any(k == "send" for k, _, _ in b.items)]
        self.endings = [b for b in self.blocks
                        if b.items and all(k == "recv" for k, _, _ in b.items)]


_doc = []


def doc():
    if not _doc:
        _doc.append(Doc(DOC))
    return _doc[0]


@check
def the_walkthrough_has_a_session_to_replay():
    items = [i for b in doc().session for i in b.items]
    assert sum(k == "send" for k, _, _ in items) >= 5, items
    assert sum(k == "recv" for k, _, _ in items) >= 10, items
    assert items[0][0] == "send", "the session starts with a server line: %r" % (items[0],)
    assert doc().endings, "no block shows the end of a game"


@check
def the_session_replays_line_by_line():
    server = Server(TAPISD, *doc().flags)
    try:
        conn = Conn(server.port)
        try:
            for b in doc().session:
                for kind, text, n in b.items:
                    if kind == "send":
                        conn.send(text)
                    else:
                        expect(conn, DOC, n, text)
            # Nothing the walkthrough leaves out before its last typed line.
            extra = conn.readline(1.0)
            assert extra is None, "%s: a server line after the session: %s" % (DOC, extra)
        finally:
            conn.close()
    finally:
        stop(server)


def first_hello_name():
    for b in doc().session:
        for kind, text, _ in b.items:
            m = re.match(r"hello (\S+)$", text)
            if kind == "send" and m:
                return m.group(1)
    raise AssertionError("the session says no hello NAME")


@check
def the_end_of_a_game_replays():
    name = first_hello_name()
    for b in doc().endings:
        m = re.findall(r"`(create [^`]+)`", b.prose)
        assert m, "%s:%d: the prose before the block names no `create ...`" % (DOC, b.start)
        create = m[-1]
        server = Server(TAPISD, *quick(doc().flags))
        try:
            conn = Conn(server.port)
            try:
                play_to_the_end(conn, name, create, b)
            finally:
                conn.close()
        finally:
            stop(server)


def quick(flags):
    """The recorded flags with the bots' delay at 0: the delay changes when the
    lines arrive, never which lines or their order (the seed fixes the game),
    so a whole game replays in seconds instead of minutes."""
    out = list(flags)
    for i, f in enumerate(out):
        if f == "--bot-delay" and i + 1 < len(out):
            out[i + 1] = "0"
        elif f.startswith("--bot-delay="):
            out[i] = "--bot-delay=0"
    return out


def play_to_the_end(conn, name, create, block):
    recv = [(text, n) for _, text, n in block.items]
    first, n0 = recv[0]
    m = re.match(r'\{"(ev|re)":"([^"]*)"', first)
    assert m, "%s:%d: neither an event nor a reply: %s" % (DOC, n0, first)
    kind = {m.group(1): m.group(2)}
    conn.send("hello " + name)
    conn.send(create)
    conn.send("addbot")
    deadline = time.monotonic() + GAME_WAIT
    seat = None
    while True:
        line = conn.readline(min(LINE_WAIT, max(0.1, deadline - time.monotonic())))
        if line is None:
            raise mismatch(DOC, n0, first, "(nothing within %.0f s of play)" % LINE_WAIT, conn)
        msg = json.loads(line)
        if msg.get("re") in ("hello", "create", "addbot"):
            assert msg["ok"], line
            if msg["re"] == "create":
                seat = msg["seat"]
        if pattern(first).fullmatch(line):
            break
        if all(msg.get(k) == v for k, v in kind.items()):   # the same event, other text
            raise mismatch(DOC, n0, first, line, conn)
        if (msg.get("ev") == "state" and seat in msg["waiting"] and msg["view"]["legal"]):
            conn.send(json.dumps({"cmd": "act", "room": msg["room"],
                                  "action": msg["view"]["legal"][0]}, separators=(",", ":")))
    for text, n in recv[1:]:
        expect(conn, DOC, n, text)


@check
def a_script_gets_every_reply_before_the_close():
    # "printf '...' | nc -N HOST PORT": the server answers every line of a
    # script whose sender closed its side, then closes.
    scripts = [m.group(1) for b in doc().blocks for s in b.shell
               for m in [re.match(r"printf '([^']*)' \| nc -N ", s)] if m]
    assert scripts, "no printf | nc -N example"
    server = Server(TAPISD, *doc().flags)
    try:
        for script in scripts:
            lines = script.replace("\\n", "\n").splitlines()
            conn = Conn(server.port)
            try:
                conn.sock.sendall("".join(l + "\n" for l in lines).encode())
                conn.sock.shutdown(socket.SHUT_WR)
                got = []
                while True:
                    line = conn.readline(LINE_WAIT)
                    if line is None:
                        break
                    got.append(json.loads(line))
                assert conn.eof, "the server did not close after the last reply"
                want = [l.split()[0] for l in lines]
                assert [g.get("re") for g in got] == want, (want, got)
                assert all(g["ok"] for g in got), got
            finally:
                conn.close()
    finally:
        stop(server)


if __name__ == "__main__":
    run()
