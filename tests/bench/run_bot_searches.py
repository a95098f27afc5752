#!/usr/bin/env python3
"""run_bot_searches.py — the event loop's latency while hard bots play.

Usage: run_bot_searches.py TAPISD [--tables N] [--game G] [--seconds S]
                           [--searches A,B] [--pairs P]

For each pair of runs, one run per --searches value (alternately, so that
a slow spell of the machine falls on both): tapisd (--db none, --bot-delay
0: every bot moves as soon as it may) hosts N tables of G, each with a
hard bot and a normal one, all playing at once; a probe client sends a
ping, waits for its reply, waits 10 ms and sends the next, for S seconds.
Its round trips are what any client waits while the bots think. With
--bot-searches 0 the searches run on the loop, as before
server/room/room_think.c; otherwise on libuv's thread pool.

Prints one line per run (ping p50, p99 and max; the bots' moves and the
searches made off the loop, from /metrics) and the medians per setting.
Figures go to docs/BENCHMARKS.md ("Hard bots and the loop").
"""
import argparse
import os
import re
import socket
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from harness import Server, read_to_eof  # noqa: E402

def metrics(srv):
    port = None
    for line in list(srv.log):
        m = re.search(r"metrics on (\S+):(\d+)\b", line)
        if m:
            port = int(m.group(2))
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
    body = read_to_eof(s).decode()
    s.close()
    out = {}
    for line in body.splitlines():
        m = re.match(r"^([a-z_]+)(\{[^}]*\})? (\S+)$", line)
        if m:
            out[m.group(1)] = out.get(m.group(1), 0) + float(m.group(3))
    return out


def discard(sock):
    """Read and drop what comes, until the end (the watcher's states)."""
    sock.settimeout(None)
    try:
        while sock.recv(1 << 16):
            pass
    except OSError:
        pass


def one_run(exe, searches, args):
    srv = Server(exe, "--bot-delay", "0", "--bot-searches", str(searches), "--metrics",
                 "127.0.0.1:0", "--log-level", "warn", "--create-rate", "0", "--line-rate", "0")
    try:
        srv.wait_log(r"metrics on ")
        host, watcher = srv.connect("host"), srv.connect("watcher")
        for _ in range(args.tables):
            room = host.ok("create", game=args.game, players=2)["room"]
            watcher.ok("watch", room=room)  # (a room nobody attends closes)
            host.ok("addbot", room=room, strategy="hard")  # the table starts
            host.ok("leave", room=room)  # a normal bot takes the seat
        threading.Thread(target=discard, args=(watcher.sock,), daemon=True).start()
        probe = srv.connect("probe")
        rtts = []
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            t0 = time.monotonic()
            probe.ok("ping")
            rtts.append((time.monotonic() - t0) * 1e3)
            time.sleep(0.01)
        m = metrics(srv)
        with open("/proc/%d/stat" % srv.proc.pid) as f:  # utime, stime: fields 14, 15
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    finally:
        srv.finish()
    rtts.sort()
    return {
        "p50": rtts[len(rtts) // 2],
        "p99": rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))],
        "max": rtts[-1],
        "pings": len(rtts),
        "moves": m.get("tapis_actions_applied_total", 0),
        "off": m.get("tapis_bot_searches_total", 0),
        "cpu": cpu,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tapisd")
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--game", default="seqnum")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--searches", default="0,3")
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args()
    settings = [int(s) for s in args.searches.split(",")]
    runs = {s: [] for s in settings}
    for p in range(args.pairs):
        for s in settings:
            r = one_run(args.tapisd, s, args)
            runs[s].append(r)
            print("pair %d --bot-searches %d: %d tables of %s, ping p50 %.2f ms p99 %.2f ms "
                  "max %.1f ms (%d pings); %d moves, %d searches off the loop; tapisd cpu %.1f s"
                  % (p + 1, s, args.tables, args.game, r["p50"], r["p99"], r["max"], r["pings"],
                     r["moves"], r["off"], r["cpu"]), flush=True)
    for s in settings:
        rs = runs[s]

        def med(k):
            return statistics.median(r[k] for r in rs)

        def spread(k):
            return "%.1f-%.1f" % (min(r[k] for r in rs), max(r[k] for r in rs))

        print("--bot-searches %d, median of %d: ping p50 %.2f ms, p99 %.2f ms (%s), max %.1f ms "
              "(%s); %.0f moves in %.0f s" % (s, len(rs), med("p50"), med("p99"), spread("p99"),
                                             med("max"), spread("max"), med("moves"),
                                             args.seconds))


if __name__ == "__main__":
    main()
