#!/usr/bin/env python3
"""test_ws_limits.py — attacks on the game port's HTTP side, each beside an
honest line client and an honest WebSocket that must still be answered:
a head that never ends in size (431 at 16 KiB) or in time (closed at
--hello-timeout), 10,000 half-open handshakes at once, a WebSocket flood of
small messages, a frame of 1 GiB, and a WebSocket that never reads (dropped
by --out-cap). Each runs alone (meson: is_parallel false): floods.

    python3 tests/server/test_ws_limits.py build/server/tapisd [test-name...]
"""
import os
import selectors
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (TIMEOUT, WS_TEXT, Closed, read_http_head, run_tests,  # noqa: E402
                     wait_for, ws_frame)
from util import raise_nofile, served  # noqa: E402


def honest(srv):
    """A line client and a WebSocket, both greeted: they must keep being answered."""
    return [srv.connect("line%d" % len(srv.log)), srv.connect_ws("ws%d" % len(srv.log))]


def answered(clients):
    for c in clients:
        assert c.ok("ping")["ok"]


def read_until_eof(s, limit=1 << 20):
    data = b""
    s.settimeout(TIMEOUT)
    try:
        while len(data) < limit:
            d = s.recv(65536)
            if not d:
                break
            data += d
    except ConnectionResetError:
        pass
    return data


@served()
def a_huge_head_gets_431_at_its_cap(srv):
    others = honest(srv)
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.sendall(b"GET / HTTP/1.1\r\n")
    sent = 0
    try:
        while sent < (1 << 20):  # a megabyte of headers, never the blank line
            s.sendall(b"X-Junk: " + b"j" * 1000 + b"\r\n")
            sent += 1010
    except (BrokenPipeError, ConnectionResetError):
        pass  # answered and closed while we wrote: fine
    data = read_until_eof(s)
    assert data.startswith(b"HTTP/1.1 431 "), data[:80]
    answered(others)


@served("--hello-timeout", "1s")
def a_head_that_never_ends_is_closed_at_the_hello_timeout(srv):
    others = honest(srv)
    s = socket.create_connection(("127.0.0.1", srv.port))
    s.sendall(b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n")

    def closed():
        try:
            s.sendall(b"X-Slow: 1\r\n")  # a line now and then, never the end
            answered(others)
            s.settimeout(0.05)
            return s.recv(100) == b""
        except socket.timeout:
            return False
        except (BrokenPipeError, ConnectionResetError):
            return True
    wait_for(closed, "the slow head closed", every=0.1)
    assert srv.log_has(r"closed: no HTTP request in time")
    answered(others)


@served("--max-conns", "11000", "--max-conns-per-ip", "0", "--conn-rate", "0",
        "--hello-timeout", "3s", "--log-level", "warn")
def ten_thousand_half_open_handshakes(srv):
    n = 10000
    assert raise_nofile(n + 200) >= n + 100, "the test needs %d descriptors" % (n + 100)
    others = honest(srv)
    sel = selectors.DefaultSelector()
    socks = []
    try:
        for i in range(n):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", srv.port))
            s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n")  # no end
            socks.append(s)
            if i % 1000 == 999:
                answered(others)  # the server keeps answering while they pile up
        answered(others)
        # every one of them is closed at its hello timeout, unanswered
        for s in socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        open_ = set(socks)
        deadline = time.monotonic() + 60
        while open_:
            assert time.monotonic() < deadline, "%d half-open handshakes still open" % len(open_)
            for key, _ in sel.select(1):
                try:
                    d = key.fileobj.recv(100)
                except (BlockingIOError, ConnectionResetError):
                    d = b""
                assert d == b"", "a half-open handshake got %r" % d
                sel.unregister(key.fileobj)
                open_.discard(key.fileobj)
        answered(others)
    finally:
        sel.close()
        for s in socks:
            s.close()


@served("--line-rate", "1000", "--error-rate", "20")
def a_websocket_flood_is_budgeted_and_others_go_on(srv):
    others = honest(srv)
    f = srv.connect_ws("flood")
    burst = b"".join(ws_frame(WS_TEXT, b"ping") for _ in range(2000))
    codes = set()
    try:
        for _ in range(50):  # 100,000 pings as fast as the socket takes them
            f.sock.sendall(burst)
            answered(others)
    except OSError:
        pass  # closed for too many errors while we wrote: read what came before
    try:
        while True:
            m = f.recv(TIMEOUT)
            if m.get("ok") is False or m.get("ev") == "error":
                codes.add(m["error"]["code"])
    except (Closed, OSError):
        pass
    assert codes == {"rate_limited", "too_many_errors"}, codes
    assert f.close_code in (1008, None), f.close_code  # None: the reset beat the close frame
    answered(others)


@served("--max-line", "8192")
def a_gigabyte_frame_is_cut_at_max_line(srv):
    others = honest(srv)
    c = srv.connect_ws()
    chunk = b"y" * (1 << 20)
    head = ws_frame(WS_TEXT, chunk, length=1 << 30)  # masked with its key; the rest never comes
    got = None
    try:
        c.sock.sendall(head)
        for _ in range(64):  # another 64 MiB, unmasked garbage as far as the server cares
            c.sock.sendall(chunk)
            answered(others)
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass  # the server stopped reading and closed: the point
    try:
        got = c.recv()
    except (Closed, OSError):
        pass
    assert got and got["error"]["code"] == "line_too_long", got
    answered(others)


@served("--out-cap", "65536")
def a_websocket_that_never_reads_is_dropped(srv):
    others = honest(srv)
    bad = srv.connect_ws("bad", rcvbuf=4096)
    flood = b"".join(ws_frame(WS_TEXT, b"help") for _ in range(500))
    bad.sock.settimeout(2)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 20 and not srv.log_has("slow reader"):
        try:
            bad.sock.sendall(flood)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            break
        answered(others)
    assert srv.wait_log(r"conn \d+ dropped: slow reader"), "".join(srv.log[-10:])
    answered(others)


if __name__ == "__main__":
    run_tests(sys.argv)
