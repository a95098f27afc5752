"""test_ws.py — the game port's HTTP side: WebSockets and the page's files.

A WebSocket's text messages are the protocol's lines, both ways: a whole
game over one, beside line clients; the same error codes, budgets and
limits; pings answered; the Origin check. Then the files of --web-root: 200
with the security headers, HEAD, 404, paths that may not be served, 405,
and a line connection whose first line merely starts with a capital.
The handshake and the frames are written by hand (harness.py: ws_frame,
ws_handshake, WsClient).

    python3 tests/server/test_ws.py build/server/tapisd [test-name...]
"""
import os
import random
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (WS_BINARY, WS_CLOSE, WS_PING, WS_TEXT, Client, Closed, Player,  # noqa: E402
                     WsClient, is_ev, play, read_http_head, run_tests, test, ws_frame,
                     ws_handshake, Server)
from util import served  # noqa: E402


def expect_error(reply, code):
    assert reply.get("ok") is False and reply["error"]["code"] == code, (code, reply)


def closed_with(c, code):
    """Read until the server's close frame; it must carry `code`. Returns the messages before it."""
    got = c.wait_closed()
    assert c.close_code == code, "close code %r (%r), wanted %d; messages %r" % (
        c.close_code, c.close_reason, code, got)
    return got


# ---------------------------------------------------------------- WebSocket


@served()
def handshake_answers_the_rfc_example(srv):
    # RFC 6455, 1.3: this key's accept value is s3pPLMBiTxaQ9kYGzzhZRbK+xOo=
    s = socket.create_connection(("127.0.0.1", srv.port))
    status, h, rest = ws_handshake(s, key="dGhlIHNhbXBsZSBub25jZQ==")
    assert status == 101 and h["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", h
    assert h["upgrade"].lower() == "websocket" and h["connection"].lower() == "upgrade", h
    assert rest == b"", rest
    s.close()


@served("--bot-delay", "1-5", "--seed", "55")
def whole_game_over_a_websocket_beside_a_line_client(srv):
    a = srv.connect_ws("ann")
    room = a.ok("create", game="aspoint3", players=2, options={"target": 150, "rounds": 2})["room"]
    w = srv.connect("watcher")  # a line client watches the same table
    w.ok("watch", room=room)
    assert a.ok("addbot", room=room)["seat"] == 1
    me = Player(a, room)
    play([me], random.Random(55), timeout=60)
    assert me.over and me.over["result"]["winners"], me.over
    assert me.acts > 0, "the WebSocket player never acted"
    states = [m for m in a.all if is_ev("state", room)(m)]
    assert len(states) > 3 and all(m["view"]["seat"] == 0 for m in states)
    # every frame the server sent was one text message holding one JSON object, no newline
    texts = [p for op, p in a.frames if op == WS_TEXT]
    assert len(texts) == len(a.all), (len(texts), len(a.all))
    assert all(not p.endswith(b"\n") and b"\n" not in p for p in texts)
    wo = w.event(is_ev("game_over", room))
    assert wo["result"] == me.over["result"]


@served()
def inline_form_and_lines_inside_messages(srv):
    c = srv.connect_ws()
    c.send_raw("ping")
    assert c.recv()["re"] == "ping"
    c.send_raw('{"cmd":\n"ping",\n"id":3}')  # a line feed inside a message is a space
    r = c.recv()
    assert r["re"] == "ping" and r["id"] == 3, r
    c.send_raw("ping\r\n")  # a trailing end of line is the line's end
    assert c.recv()["re"] == "ping"


@served()
def ping_frame_gets_its_pong_and_fragments_are_one_message(srv):
    c = srv.connect_ws("ann")
    c.send_frame(WS_PING, b"are you there?")
    c.send_frame(WS_TEXT, b'{"cmd":"pi', fin=False)
    c.send_frame(WS_PING, b"")  # a control frame between the fragments
    c.send_frame(0, b'ng","id":', fin=False)
    c.send_frame(0, b'"x"}')
    r = c.recv()
    assert r["re"] == "ping" and r["id"] == "x", r
    assert c.pongs == [b"are you there?", b""], c.pongs


@served()
def same_error_codes_as_lines(srv):
    other = srv.connect("other")
    c = srv.connect_ws("bad")
    for data, code in [(b'{"cmd":"ping"', "bad_json"),
                       (b'{"cmd":"ping","x":"a\\u0000b"}', "bad_json"),
                       (b'{"cmd":42}', "bad_request"),
                       (b'{"cmd":"frobnicate"}', "unknown_command"),
                       (b'{"cmd":"join","room":"999"}', "not_found"),
                       (b'{"cmd":"create","game":"233","players":9}', "bad_players")]:
        c.send_raw(data)
        expect_error(c.recv(), code)
        assert other.ok("ping")
    assert c.ok("ping")
    expect_error(srv.connect_ws().request("rooms"), "hello_first")


@served("--max-line", "1024")
def message_over_max_line_gets_line_too_long_then_close_1009(srv):
    c = srv.connect_ws()
    c.send_raw(b"ping" + b" " * (1024 - 4))  # at the limit: fine
    assert c.recv()["ok"]
    c.send_raw(b"x" * 5000)
    r = c.recv()
    expect_error(r, "line_too_long")
    closed_with(c, 1009)
    assert srv.connect("other").ok("ping")


@served("--error-rate", "2")
def error_budget_closes_with_too_many_errors_and_1008(srv):
    c = srv.connect_ws()
    got = []
    # All ten in one write: the server closes after its budget, and a later
    # write of ours would meet a closed socket.
    c.sock.sendall(b"".join(ws_frame(WS_TEXT, b"frobnicate") for _ in range(10)))
    try:
        while True:
            got.append(c.recv())
    except Closed:
        pass
    assert got[-1]["error"]["code"] == "too_many_errors", got[-3:]
    assert c.close_code == 1008, c.close_code


@served()
def client_close_is_answered_and_the_connection_closed(srv):
    c = srv.connect_ws("ann")
    c.send_frame(WS_CLOSE, (1000).to_bytes(2, "big") + b"bye")
    closed_with(c, 1000)
    assert c.close_reason == "bye", c.close_reason  # the client's close frame, echoed
    c.sock.settimeout(10)
    assert c.raw == b"" and c.sock.recv(100) == b"", "the server must close the TCP connection"


@served()
def quit_closes_with_1000(srv):
    c = srv.connect_ws()
    c.send_raw("quit")
    got = closed_with(c, 1000)
    assert got and got[0]["re"] == "quit", got


@served()
def origin_of_the_server_itself_or_none_is_accepted_others_refused(srv):
    host = "127.0.0.1:%d" % srv.port
    WsClient(srv.port).ok("ping")  # no Origin: a program
    WsClient(srv.port, origin="http://" + host).ok("ping")
    WsClient(srv.port, origin="HTTP://" + host.upper()).ok("ping")  # case does not matter
    # default ports aside: the Host a proxy passes on against the page's Origin
    WsClient(srv.port, http_host="cards.test", origin="http://cards.test:80").ok("ping")
    WsClient(srv.port, http_host="cards.test:443", origin="https://cards.test").ok("ping")
    for bad in ("http://evil.example", "http://127.0.0.1:1", "null", "https://127.0.0.1",
                "http://", "http://%s/path" % host, "ftp://" + host, "http://" + host + ".evil"):
        s = socket.create_connection(("127.0.0.1", srv.port))
        status, h, _ = ws_handshake(s, origin=bad)
        assert status == 403, (bad, status)
        s.close()
    assert srv.wait_log(r"origin http://evil.example refused")


@served("--allow-origin", "https://cards.example", "--allow-origin", "http://a.test:8080,http://b.test")
def allow_origin_adds_origins(srv):
    for ok in ("https://cards.example", "http://a.test:8080", "http://b.test"):
        WsClient(srv.port, origin=ok).ok("ping")
    s = socket.create_connection(("127.0.0.1", srv.port))
    assert ws_handshake(s, origin="http://a.test")[0] == 403
    s.close()


@served()
def bad_handshakes_get_their_status(srv):
    cases = [
        (b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Version: 13\r\n\r\n", 400),  # no key
        (b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n", 400),
        (b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n", 426),
        (b"POST /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 405),
        (b"GET /ws HTTP/1.0\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 400),
    ]
    for req, status in cases:
        s = socket.create_connection(("127.0.0.1", srv.port))
        s.sendall(req)
        got = read_http_head(s)[0]
        assert got == status, (req, got, status)
        s.close()
    assert srv.connect("other").ok("ping")


# Bad input, one case a line: what the client sends, the close code it gets
# (None: a close frame without a code, for a frame header that cannot be
# read at all). Each on a WebSocket of its own, a ping of another client after it.
BAD_FRAMES = [
    ("unmasked frame", ws_frame(WS_TEXT, b"ping", mask=False), 1002),
    ("binary message", ws_frame(WS_BINARY, b"ping"), 1003),
    ("invalid UTF-8", ws_frame(WS_TEXT, b'{"cmd":"ping","x":"\xff"}'), 1007),
    ("UTF-8 cut at the end", ws_frame(WS_TEXT, b"ping \xc3"), 1007),
    ("UTF-8 surrogate", ws_frame(WS_TEXT, b"say \xed\xa0\x80"), 1007),
    ("UTF-8 invalid across fragments", ws_frame(WS_TEXT, b"ping \xe2\x82", fin=False) +
     ws_frame(0, b"A"), 1007),
    ("reserved bit", ws_frame(WS_TEXT, b"ping", rsv=4), 1002),
    ("unknown opcode", ws_frame(3, b"ping"), 1002),
    ("continuation with no message", ws_frame(0, b"ping"), 1002),
    ("new message inside a fragmented one", ws_frame(WS_TEXT, b"pi", fin=False) +
     ws_frame(WS_TEXT, b"ng"), 1002),
    ("close with a reserved code", ws_frame(WS_CLOSE, (1005).to_bytes(2, "big")), 1002),
    ("control frame over 125 bytes", ws_frame(WS_PING, b"x" * 126), None),
    ("fragmented control frame", ws_frame(WS_PING, b"x", fin=False), None),
    ("length with its top bit set (2^63)", ws_frame(WS_TEXT, b"", length=1 << 63)[:14] + b"ab", None),
    ("length of 2^62", ws_frame(WS_TEXT, b"", length=1 << 62)[:14] + b"ab", 1009),
    ("length of 2^31", ws_frame(WS_TEXT, b"", length=1 << 31)[:14] + b"ab", 1009),
]


@served()
def bad_frames_catalogue(srv):
    other = srv.connect("other")
    for name, data, code in BAD_FRAMES:
        c = srv.connect_ws("x%d" % len(other.all))
        c.sock.sendall(data)
        got = c.wait_closed()
        assert got == [], (name, got)
        assert c.close_code == code, "%s: close %r, wanted %r" % (name, c.close_code, code)
        c.sock.settimeout(10)
        assert c.sock.recv(100) == b"", name + ": the TCP connection must close"
        assert other.ok("ping"), name
    assert srv.alive()


@served("--max-line", "100")
def a_long_message_is_refused_before_it_has_all_come(srv):
    # a frame announcing 1 GiB: line_too_long once --max-line is passed, not at its end
    c = srv.connect_ws()
    c.sock.sendall(ws_frame(WS_TEXT, b"x" * 1000, length=1 << 30))  # the rest never comes
    expect_error(c.recv(), "line_too_long")
    closed_with(c, 1009)
    # a message in many fragments, each short: the same
    d = srv.connect_ws()
    for _ in range(20):
        d.send_frame(WS_TEXT if _ == 0 else 0, b"y" * 10, fin=False)
    expect_error(d.recv(), "line_too_long")
    closed_with(d, 1009)


# ---------------------------------------------------------------- proxies


def refused_with(m, code):
    assert m.get("ev") == "error" and m["error"]["code"] == code, (code, m)


def xff(ip):
    return ["X-Forwarded-For: 198.51.100.7, " + ip]  # the last address is the proxy's word


@served("--trusted-proxy", "127.0.0.1", "--max-conns-per-ip", "2")
def trusted_proxy_counts_the_client_it_names(srv):
    a1 = WsClient(srv.port, extra=xff("10.0.0.1"))
    a2 = WsClient(srv.port, extra=xff("10.0.0.1"))
    s = socket.create_connection(("127.0.0.1", srv.port))
    status, h, _ = ws_handshake(s, extra=xff("10.0.0.1"))
    assert status == 503 and h.get("retry-after"), (status, h)
    s.close()
    b = WsClient(srv.port, extra=xff("10.0.0.2"))  # another client of the same proxy
    for c in (a1, a2, b):
        assert c.ok("ping")
    assert srv.wait_log(r"is 10\.0\.0\.1 via 127\.0\.0\.1")
    # the line protocol through a stream proxy: a PROXY protocol v1 line first
    p1 = Client(srv.port)
    p1.send_raw(b"PROXY TCP4 10.0.0.3 127.0.0.1 5555 7233\r\nping\n")
    assert p1.recv()["re"] == "ping"
    p2 = Client(srv.port)
    p2.send_raw(b"PROXY TCP6 2001:db8::1 ::1 5555 7233\r\n")
    p2.send_raw(b"GET / HTTP/1.1\r\n" + b"\r\n".join(x.encode() for x in xff("10.0.0.1")) + b"\r\n\r\n")
    assert read_http_head(p2.sock)[0] == 404  # counted as 2001:db8::1: X-Forwarded-For comes too late
    held = [Client(srv.port) for _ in range(2)]  # kept open: the two of 10.0.0.4
    for c in held:
        c.send_raw(b"PROXY TCP4 10.0.0.4 127.0.0.1 1 2\r\n")
        assert c.ok("ping")  # counted by now
    extra = Client(srv.port)
    extra.send_raw(b"PROXY TCP4 10.0.0.4 127.0.0.1 1 2\r\n")
    refused_with(extra.recv(), "too_many_connections")


@served("--trusted-proxy", "127.0.0.1", "--max-conns-per-ip", "1")
def a_trusted_proxy_that_names_nobody_counts_as_itself(srv):
    a = srv.connect("ann")
    b = srv.connect()
    b.send_raw(b"ping\n")  # a line connection is counted at its first bytes
    refused_with(b.recv(), "too_many_connections")
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.sendall(b"GET / HTTP/1.1\r\n\r\n")
    assert read_http_head(s)[0] == 503
    assert a.ok("ping")


@served("--max-conns-per-ip", "3")
def forwarded_for_and_proxy_lines_from_others_are_ignored(srv):
    a = WsClient(srv.port, extra=xff("10.0.0.1"))
    b = WsClient(srv.port, extra=xff("10.0.0.2"))
    c = Client(srv.port)
    c.send_raw(b"PROXY TCP4 10.0.0.9 127.0.0.1 1 2\r\n")
    expect_error(c.recv(), "unknown_command")  # not a trusted proxy: a line like any other
    d = Client(srv.port)  # the fourth from 127.0.0.1, whatever the others said
    refused_with(d.recv(), "too_many_connections")
    assert a.ok("ping") and b.ok("ping")


# ---------------------------------------------------------------- the page


class Answers:
    """The answers read from one connection, in order (a kept connection has several)."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _more(self):
        d = self.sock.recv(65536)
        assert d, "closed inside an answer"
        self.buf += d

    def next(self, head=False):
        """(status, headers with lower-case names, body); no body after a HEAD."""
        while b"\r\n\r\n" not in self.buf:
            self._more()
        top, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = top.decode().split("\r\n")
        h = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
        n = 0 if head else int(h["content-length"])
        while len(self.buf) < n:
            self._more()
        body, self.buf = self.buf[:n], self.buf[n:]
        return int(lines[0].split()[1]), h, body


def connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(10)
    return s


def http(port, req):
    """(status, headers, body) of one request on a connection of its own (closed after)."""
    s = connect(port)
    s.sendall(req)
    got = Answers(s).next(head=req.startswith(b"HEAD "))
    s.close()
    return got


def web_root():
    d = tempfile.mkdtemp(prefix="tapis-web-")
    files = {"index.html": b"<!doctype html><title>t</title>\n", "app.js": b"export const x = 1;\n",
             "sub/style.css": b"body{}\n", ".secret": b"no\n", "notes.xyz": b"no\n"}
    for name, data in files.items():
        os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    return d, files


@test
def page_files_with_their_headers(exe):
    root, files = web_root()
    with Server(exe, "--web-root", root) as srv:
        assert srv.wait_log("web page from " + root)
        st, h, body = http(srv.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert st == 200 and body == files["index.html"], (st, body)
        assert h["content-type"] == "text/html; charset=utf-8", h
        assert "default-src 'self'" in h["content-security-policy"], h
        assert h["x-content-type-options"] == "nosniff" and "cache-control" in h, h
        assert int(h["content-length"]) == len(body)
        st, h, body = http(srv.port, b"GET /app.js?v=2 HTTP/1.1\r\n\r\n")
        assert st == 200 and h["content-type"].startswith("text/javascript") and body == files["app.js"]
        st, h, body = http(srv.port, b"GET /sub/style.css HTTP/1.0\r\n\r\n")
        assert st == 200 and h["content-type"].startswith("text/css"), (st, h)
        st, h, body = http(srv.port, b"HEAD /app.js HTTP/1.1\r\n\r\n")
        assert st == 200 and body == b"" and int(h["content-length"]) == len(files["app.js"])
        for path in (b"/nope.html", b"/.secret", b"/notes.xyz", b"/../" + root.encode() + b"/index.html",
                     b"/sub/../index.html", b"/%2e%2e/index.html", b"//etc/passwd", b"/sub",
                     b"/sub/", b"/a\\b.js", b"/" + b"a" * 300 + b".js"):
            st, h, body = http(srv.port, b"GET " + path + b" HTTP/1.1\r\n\r\n")
            assert st == 404, (path, st)
            assert "default-src 'self'" in h["content-security-policy"]
        st, h, _ = http(srv.port, b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        assert st == 405 and "GET" in h["allow"], (st, h)
        st, h, _ = http(srv.port, b"DELETE /app.js HTTP/1.1\r\n\r\n")
        assert st == 405
        st, _, _ = http(srv.port, b"GET / HTTP/1.1\r\nbad header\r\n\r\n")
        assert st == 400
        st, _, _ = http(srv.port, b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 2000 + b"\r\n")
        assert st == 431
        assert srv.connect("other").ok("ping")


@test
def files_on_a_kept_connection(exe):
    root, files = web_root()
    with Server(exe, "--web-root", root) as srv:
        s = connect(srv.port)
        a = Answers(s)
        for path, name in ((b"/", "index.html"), (b"/app.js", "app.js"), (b"/nope.css", None)):
            s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            st, h, body = a.next()
            assert h["connection"] == "keep-alive", h
            assert (st, body) == ((200, files[name]) if name else (404, b"not found\n")), (path, st)
        # two at once (pipelined): answered in order
        s.sendall(b"HEAD /app.js HTTP/1.1\r\n\r\nGET /sub/style.css HTTP/1.1\r\n\r\n")
        st, h, body = a.next(head=True)
        assert st == 200 and int(h["content-length"]) == len(files["app.js"]), (st, h)
        st, h, body = a.next()
        assert st == 200 and body == files["sub/style.css"]
        assert a.buf == b""
        # then the same connection becomes a WebSocket
        assert ws_handshake(s)[0] == 101
        s.close()
        # Connection: close, HTTP/1.0, an error: closed after the answer
        for req in (b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", b"GET / HTTP/1.0\r\n\r\n",
                    b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"):
            s = connect(srv.port)
            s.sendall(req)
            a = Answers(s)
            st, h, body = a.next()
            assert h["connection"] == "close" and a.buf == b"" and s.recv(100) == b"", (req, h)
            s.close()
        # HTTP/1.0 asking to keep it
        s = connect(srv.port)
        s.sendall(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        assert Answers(s).next()[1]["connection"] == "keep-alive"
        s.close()
        # at most 100 requests on one connection
        s = connect(srv.port)
        s.sendall(b"HEAD / HTTP/1.1\r\n\r\n" * 120)
        a = Answers(s)
        kept = [a.next(head=True)[1]["connection"] for _ in range(100)]
        assert kept[:99] == ["keep-alive"] * 99 and kept[99] == "close", kept[-3:]
        assert a.buf == b"" and s.recv(100) == b""
        s.close()


@served("--hello-timeout", "1s")
def a_kept_connection_closes_when_no_request_comes(srv):
    s = connect(srv.port)
    s.sendall(b"GET / HTTP/1.1\r\n\r\n")
    assert Answers(s).next()[0] == 404
    assert s.recv(100) == b""  # closed by the server at its hello timeout, not at once
    assert srv.wait_log(r"closed: no HTTP request in time")


@served("--web-root", "none")
def no_web_root_serves_nothing_but_websockets_work(srv):
    assert http(srv.port, b"GET / HTTP/1.1\r\n\r\n")[0] == 404
    assert not srv.log_has("web page")
    srv.connect_ws("ann").ok("ping")


@served()
def a_line_starting_with_a_capital_is_still_a_line(srv):
    c = srv.connect()
    c.send_raw(b"PING\n")  # no HTTP request line: the line protocol's inline form
    r = c.recv()
    assert "re" in r, r
    c.send_raw(b"ping\n")
    assert c.recv()["re"] == "ping"


if __name__ == "__main__":
    run_tests(sys.argv)
