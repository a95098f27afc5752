#!/usr/bin/env python3
"""test_valgrind.py — a short but varied session of tapisd under valgrind
(memcheck, --leak-check=full): lobby, a game with a bot and a spectator, bad
input, a dropped and a replaced connection, the reconnect window running out,
then SIGTERM. Passes when valgrind reports no error and no leak and tapisd
exits 0. Skipped (exit 77) without valgrind or for a sanitizer build.
Usage: test_valgrind.py PATH/TO/tapisd"""
import os
import random
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (WS_BINARY, WS_PING, WS_TEXT, Player, Server, play, run_tests,  # noqa: E402
                     test)


def sanitized(exe):
    with open(exe, "rb") as f:
        data = f.read()
    return b"__asan_init" in data or b"__ubsan_handle" in data


@test
def valgrind_session_is_clean(exe):
    srv = Server(exe, "--bot-delay", "1-5", "--reconnect-window", "300ms",
                 "--max-line", "1000",
                 # tapisd may be linked with jemalloc (-Djemalloc): memcheck must
                 # replace its malloc as it does glibc's, or it would see nothing
                 wrapper=["valgrind", "--soname-synonyms=somalloc=*jemalloc*",
                          "--leak-check=full", "--error-exitcode=99",
                          "--errors-for-leak-kinds=definite,indirect,possible"],
                 start_timeout=60)
    try:
        a, b, w = srv.connect("a"), srv.connect("b"), srv.connect("w")
        room = a.ok("create", game="233", players=3,
                    options={"target": 40, "dispute_ms": 10})["room"]
        w.ok("watch", room=room)
        b.ok("join", room=room)
        a.ok("addbot")
        x = srv.connect("x")
        x.send_raw(b'{"cmd":"ping"\nGET\n{"cmd":"join","room":"9"}\n' + b"z" * 2000 + b"\n")
        h = srv.connect()
        h.send_raw(b"GET / HTTP/1.1\r\n\r\n")
        ws = srv.connect_ws("ws")  # wslay's frames, both ways, and a close of each kind
        ws.ok("watch", room=room)
        ws.send_frame(WS_PING, b"p")
        ws.send_frame(WS_TEXT, b'{"cmd":"ping","id":"fr', fin=False)
        ws.send_frame(0, b'ag"}')
        assert ws.reply("frag")["ok"] and ws.pongs == [b"p"]
        srv.connect_ws().send_frame(WS_BINARY, b"x")
        srv.connect_ws().send_frame(WS_TEXT, b"\xff")
        pa, pb = Player(a, room), Player(b, room)
        play([pa, pb], random.Random(1), until=lambda ps: ps[0].seq > 30, timeout=120)
        b2 = srv.connect()
        b2.hello("b", token=b.token)  # takes b over
        b2.close()                   # then drops: held, then a bot after 300 ms
        time.sleep(1.0)
        a.ok("say", text="bye")
        a.ok("rooms")
        p = srv.connect("p")
        p.ok("create", game="233", players=2, private=True)
    finally:
        rc = srv.stop(timeout=60)
    report = "".join(l for l in srv.log if l.startswith("=="))
    assert rc == 0, "tapisd under valgrind exited %r:\n%s" % (rc, report[-4000:])
    assert "ERROR SUMMARY: 0 errors" in report, report[-4000:]
    # memcheck saw the allocations (about 10,000; none if it missed the allocator)
    allocs = re.search(r"total heap usage: ([\d,]+) allocs", report)
    assert allocs and int(allocs.group(1).replace(",", "")) > 1000, report[-2000:]
    print("  %s allocations seen by memcheck" % allocs.group(1))


if __name__ == "__main__":
    # Under ASan memcheck cannot run (the sanitizer owns the allocator): the
    # one skip. Without valgrind the test fails: deploy/dev installs it.
    if len(sys.argv) > 1 and sanitized(sys.argv[1]):
        print("skipped: sanitizer build")
        sys.exit(77)
    assert shutil.which("valgrind"), "valgrind not found: apt-get install valgrind (deploy/dev does)"
    run_tests(sys.argv)
