#!/usr/bin/env python3
"""test_load.py — a client that never reads is dropped without hurting the
others; 1,000 connections at once each get their answers; a flood of
pipelined requests is answered in order while others still get through.
Usage: test_load.py PATH/TO/tapisd"""
import os
import selectors
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, is_ev, run_tests, test  # noqa: E402
from util import open_sockets, raise_nofile, served  # noqa: E402


@served("--out-cap", "65536")
def client_that_never_reads_is_dropped_without_hurting_others(srv):
    good = srv.connect("good")
    room = good.ok("create", game="233", players=2)["room"]
    bad = srv.connect("bad", rcvbuf=4096)
    bad.ok("watch", room=room)
    good.ok("addbot")
    # pipeline requests whose replies are long, and never read them
    flood = b"help\n" * 2000
    sent = 0
    dropped = False
    t0 = time.monotonic()
    bad.sock.settimeout(2)
    while time.monotonic() - t0 < 20:
        try:
            bad.sock.sendall(flood)
            sent += 1
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            dropped = True
            break
        assert good.ok("ping")  # the others go on meanwhile
        if srv.log_has("slow reader"):
            dropped = True
            break
    assert dropped, "a client that never reads was not dropped (%d floods sent); log:\n%s" % (
        sent, "".join(srv.log[-15:]))
    srv.wait_log("slow reader", 5)
    assert srv.log_has(r"conn \d+ dropped: slow reader"), "".join(srv.log[-10:])
    # the table and the good client are unaffected
    for _ in range(20):
        assert good.ok("ping")
    s = good.ok("state", room=room)
    assert s["status"] == "playing" and s["spectators"] == 0, s


@test
def thousand_concurrent_connections(exe):
    n = 1000
    have = raise_nofile(n + 200)
    assert have >= n + 50, "cannot open %d sockets (RLIMIT_NOFILE %d)" % (n, have)
    srv = Server(exe, "--log-level", "warn", "--max-conns-per-ip", "0", "--conn-rate", "0")
    try:
        with open_sockets() as socks:
            for i in range(n):
                s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
                socks.append(s)
            # every connection says hello and pings, all in flight together
            for i, s in enumerate(socks):
                s.sendall(b'{"cmd":"hello","name":"c%d"}\n{"cmd":"ping","id":%d}\n' % (i, i))
            sel = selectors.DefaultSelector()
            bufs = {}
            for s in socks:
                s.setblocking(False)
                sel.register(s, selectors.EVENT_READ)
                bufs[s] = b""
            done = set()
            deadline = time.monotonic() + 60
            while len(done) < n and time.monotonic() < deadline:
                for key, _ in sel.select(1):
                    s = key.fileobj
                    d = s.recv(65536)
                    assert d, "server closed a connection"
                    bufs[s] += d
                    if bufs[s].count(b"\n") >= 2:
                        done.add(s)
                        sel.unregister(s)
            assert len(done) == n, "%d of %d connections answered" % (len(done), n)
            for i, s in enumerate(socks):
                lines = bufs[s].split(b"\n")
                assert b'"re":"hello"' in lines[0] and b'"ok":true' in lines[0], lines[0]
                assert lines[1] == b'{"re":"ping","id":%d,"ok":true}' % i, lines[1]
            sel.close()
            assert srv.alive()
            # and a table still plays among them
            c = srv.connect("player")
            c.ok("create", game="233", players=2)
            c.ok("addbot")
            c.event(is_ev("state"))
    finally:
        srv.finish()


@served("--line-rate", "0", "--error-rate", "0")
def pipelined_flood_is_answered_in_order_and_others_get_through(srv):
    # without budgets: the order and the fairness alone (the budgets have their own tests)
    flooder = srv.connect("flooder")
    other = srv.connect("other")
    n = 20000
    data = b"".join(b'{"cmd":"ping","id":%d}\n' % i for i in range(n))
    got = []

    def read_all():
        while len(got) < n:
            got.append(flooder.recv(30))
    t = threading.Thread(target=read_all)
    t.start()
    flooder.send_raw(data)
    lat = []
    while t.is_alive() and len(lat) < 50:
        t0 = time.monotonic()
        other.ok("ping")
        lat.append(time.monotonic() - t0)
    t.join(60)
    assert len(got) == n and [m["id"] for m in got] == list(range(n))
    assert max(lat) < 1.0, "a flood held another client for %.3fs" % max(lat)


if __name__ == "__main__":
    run_tests(sys.argv)
