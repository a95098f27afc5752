"""util.py — shared by the tests of tapisd in this folder (standard library
only), on top of harness.py.

served(*args) registers a test (harness.test) that runs against its own
tapisd started with those arguments and stopped with srv.finish() (a clean
exit, 0) whatever the test's outcome: the test function takes the Server.
"""
import contextlib
import functools
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, test  # noqa: E402


def served(*args, **kw):
    """@served("--line-rate", "10") on `def name(srv):` — a test of its own tapisd."""
    def register(fn):
        @functools.wraps(fn)
        def run(exe):
            srv = Server(exe, *args, **kw)
            try:
                fn(srv)
            finally:
                srv.finish()
        return test(run)
    return register


def watched_table(srv, host, watcher, options, players=3):
    """`host` creates a table of 233 for `players` with `options`, and
    `watcher` watches it. Returns (host's client, watcher's client, room)."""
    h = srv.connect(host)
    room = h.ok("create", game="233", players=players, options=options)["room"]
    w = srv.connect(watcher)
    w.ok("watch", room=room)
    return h, w, room


def drop_a_seated_player(srv, name="ann", other="bob"):
    """`name` creates a table of 233 for two, `other` joins it, then `name`'s
    connection closes: its seat and its name are held. Returns its token."""
    a = srv.connect(name)
    b = srv.connect(other)
    room = a.ok("create", game="233", players=2)["room"]
    b.ok("join", room=room)
    a.close()
    return a.token


@contextlib.contextmanager
def open_sockets():
    """A list for the raw sockets a test opens; each one is closed at the end."""
    socks = []
    try:
        yield socks
    finally:
        for s in socks:
            s.close()


def raise_nofile(n):
    """Raise this process's descriptor limit to n (at most its hard limit); returns the limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(n, hard), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
