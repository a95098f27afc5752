#!/usr/bin/env python3
"""test_cluster.py — several tapisd nodes as one server on Redis (issue 15).

Each test starts its own redis-server on a free loopback port (no
persistence) and three nodes joined through it (--redis, --node-id a/b/c,
--node-ttl 2s). A game hosted on node b is played to game_over by a
client of node a (relayed) and one of b; `rooms` lists the same rooms on
every node; names and tokens are the cluster's; a node killed with SIGKILL
mid-game has its room taken over by a or c, and every player carries on
with its token (on any node) from the view it had, and so does every
player and spectator of the dead node when two nodes see it die at the
same moment and race to take it over; players a living node
relays for, asking `state` once a second while the room's node is dead,
keep their connection and their game (no storm of links, no error budget
spent); Redis killed and started again empty mid-game loses no table.
Accounts, ratings and names are the cluster's (a guest name of one node
cannot be registered on another), and so is matchmaking's queue: seekers
on two nodes get one table, three seeks crossing on three nodes seat two
and leave one waiting (nobody seated twice), and a seeker who cancels,
drops or whose node dies leaves the queue in Redis. profile and
leaderboard wait for Redis without stopping the node (another client's
ping is answered while Redis is stopped), and are answered from the
node's memory when Redis hangs for a heartbeat.
Length: over 800 lines on purpose: every test runs on its own Redis and
three nodes, set up by the helpers at the top.
Usage: test_cluster.py PATH/TO/tapisd"""
import functools
import hashlib
import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (HELD, Client, Player, Server, free_port, is_ev, play, pump,  # noqa: E402
                     quiesce, run_tests, test, wait_for)

TTL = "2s"


class Redis:
    """redis-server on loopback, no persistence: a restart starts empty."""

    def __init__(self, port=None):
        self.exe = shutil.which("redis-server")
        assert self.exe, "redis-server not found (deploy/dev installs it)"
        # A free port can be taken by another test between free_port() and
        # redis-server's bind: then redis-server exits, and another port is tried.
        for _ in range(5):
            self.port = port or free_port()
            if self.start(fail=False) or port:
                return
        raise RuntimeError("redis-server did not start on five free ports")

    def start(self, fail=True):
        self.proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:  # it could not bind
                if fail:
                    raise RuntimeError("redis-server exited %d" % self.proc.returncode)
                return False
            try:  # ours, not another test's on the same port: its pid answers
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"INFO server\r\n")
                    info = b""
                    while b"process_id:" not in info or not info.endswith(b"\r\n\r\n"):
                        d = s.recv(65536)
                        if not d:
                            break
                        info += d
                    if b"process_id:%d\r\n" % self.proc.pid in info:
                        return True
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def command(self, *args):
        """One command in RESP; returns the raw reply (enough for the checks here)."""
        msg = b"*%d\r\n" % len(args) + b"".join(
            b"$%d\r\n%s\r\n" % (len(a.encode()), a.encode()) for a in args)
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(msg)
            time.sleep(0.05)
            return s.recv(1 << 20).decode(errors="replace")


class Cluster:
    def __init__(self, exe, ids=("a", "b", "c"), extra=(), per_node=None):
        self.exe = exe
        self.extra = extra
        self.per_node = per_node or {}
        self.redis = Redis()
        self.nodes = {}
        try:
            for i in ids:
                self.start(i)
            self.wait_members(ids)
        except Exception:
            self.close()
            raise

    def start(self, i):
        """Start node i (again)."""
        self.nodes[i] = Server(self.exe, "--redis", "127.0.0.1:%d" % self.redis.port,
                               "--node-id", i, "--node-ttl", TTL, "--bot-delay", "0-3",
                               *self.extra, *self.per_node.get(i, ()))
        return self.nodes[i]

    def wait_members(self, ids, timeout=10):
        """Until every node has seen every other (their log says so)."""
        deadline = time.monotonic() + timeout
        for i in ids:
            for j in ids:
                if i == j:
                    continue
                assert self.nodes[i].wait_log(r"cluster: node %s at " % j,
                                              max(0, deadline - time.monotonic())), \
                    "node %s never saw node %s" % (i, j)

    def close(self, clean=False):
        """Stop the nodes (with clean=True: SIGTERM, each must exit 0, which under
        ASan also checks leaks), then Redis."""
        try:
            for s in self.nodes.values():
                if clean and s.alive():
                    s.finish()
                else:
                    s.kill()
        finally:
            for s in self.nodes.values():
                s.kill()
            self.redis.kill()


def clustered(*extra):
    """@clustered(options...) on `def name(cl):` — a test of its own cluster."""
    def register(fn):
        @functools.wraps(fn)
        def run(exe):
            cl = Cluster(exe, extra=extra)
            ok = False
            try:
                fn(cl)
                ok = True
            finally:
                if not ok:  # what each node said last (which one did what)
                    for i, node in cl.nodes.items():
                        print("".join("  %s: %s" % (i, l) for l in node.log[-30:]), end="")
                cl.close(clean=ok)
        return test(run)
    return register


def cross_node_table(cl, seed, target=40, names=("ann", "bob"), held=False):
    """ann, on node b, opens a table of 233 (race=arrival: the nodes' --race is
    reaction, a node taking it over must keep it), gives it a seed
    (docs/FAIRNESS.md; ann.commit is the commitment its room event showed),
    bob, on node a, joins (through a link to b) and a bot fills. Returns
    (room, [ann, bob] as Players, rng). With held, the table declares only
    when a player says so (HELD) and ann and bob never do (Player's
    declares=False): no round ends until they are set to declare again."""
    ann = cl.nodes["b"].connect(names[0])
    options = dict(HELD if held else {}, target=target, race="arrival")
    room = ann.ok("create", game="233", players=3, options=options)["room"]
    ann.commit = ann.event(is_ev("room", room))["deal"]["commit"]
    ann.ok("seed", room=room, text=names[0] + "'s seed")
    bob = cl.nodes["a"].connect(names[1])
    # a knows the room's node from Redis, and may not have linked to it yet
    # (after Redis came back empty, a meets b again at a beat): `unavailable`
    # says try again, as a client is told to (PROTOCOL.md).
    deadline = time.monotonic() + 10
    while True:
        r = bob.request("join", room=room)
        if r.get("ok") or r["error"]["code"] != "unavailable" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert r.get("ok") and r["room"] == room and r["seat"] == 1, r
    ann.ok("addbot", room=room)
    return room, [Player(c, room, declares=not held) for c in (ann, bob)], random.Random(seed)


def metrics(node):
    """GET /metrics of a node started with --metrics 127.0.0.1:0: {name: value}
    for the samples without labels."""
    assert node.wait_log(r"metrics on ", 5), "no 'metrics on' line"
    port = [re.search(r"metrics on \S+:(\d+)", l) for l in node.log if "metrics on" in l][0]
    with socket.create_connection(("127.0.0.1", int(port.group(1))), timeout=5) as s:
        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        body = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            body += d
    out = {}
    for line in body.decode().split("\r\n\r\n", 1)[1].splitlines():
        if line and not line.startswith("#") and "{" not in line:
            name, value = line.split(" ")
            out[name] = float(value)
    return out


def rooms_on(node, client):
    return sorted((r["room"], r["node"], r["status"]) for r in client.ok("rooms",
                                                                         limit=200)["rooms"])


def same_rooms_everywhere(cl, clients, want=None, timeout=10):
    """Until `rooms` says the same on every node (and, if given, lists `want`)."""
    deadline = time.monotonic() + timeout
    while True:
        seen = {i: rooms_on(i, c) for i, c in clients.items()}
        lists = list(seen.values())
        if all(l == lists[0] for l in lists) and (want is None or want(lists[0])):
            return lists[0]
        assert time.monotonic() < deadline, "rooms differ: %r" % seen
        time.sleep(0.1)


def lookers(cl):
    """One client per node that only asks `rooms`."""
    return {i: s.connect("look" + i) for i, s in cl.nodes.items()}


@clustered("--metrics", "127.0.0.1:0")
def a_client_of_node_a_plays_a_game_hosted_on_node_b(cl):
    look = lookers(cl)
    room, players, rng = cross_node_table(cl, 3, target=30)
    listed = same_rooms_everywhere(cl, look, lambda l: any(r[0] == room for r in l))
    assert (room, "b", "playing") in listed, listed
    players[1].c.ok("state", room=room)  # relayed too
    play(players, rng, timeout=90)
    results = [p.over["result"] for p in players]
    assert results[0] == results[1], results
    players[1].c.ok("ping")
    # The room lives on b only: a never created it, and a relayed for bob.
    assert not cl.nodes["a"].log_has(r"room %s: created" % room)
    assert cl.nodes["b"].log_has(r"room %s: created" % room)
    assert cl.nodes["a"].log_has(r"link to node b .* for bob")
    m = metrics(cl.nodes["a"])
    assert m["tapis_cluster_nodes"] == 3 and m["tapis_cluster_redis_up"] == 1, m
    assert m["tapis_relay_links"] == 1, m  # bob's, to b
    assert m["tapis_relayed_requests_total"] >= players[1].acts + 2, m  # join, state, acts
    assert metrics(cl.nodes["b"])["tapis_relayed_requests_total"] == 0
    listed = same_rooms_everywhere(cl, look)
    assert (room, "b", "over") in listed or all(x[0] != room for x in listed), listed
    print("  %d acts by the relayed player, result %s" % (players[1].acts, results[0]))


@clustered("--ping-interval", "50")
def a_relayed_player_who_answers_pings_has_its_whole_round_trip_measured(cl):
    """The node hosting a room pings a relayed player's link like any
    connection; the player's node passes the ping on (under a number of its
    own pings) and the pong back (relay.h). So the host has an estimate for
    bob, relayed, who answers pings (lag_ms beside his seat), and none for
    cyd, relayed too, who answers none, nor for ann on the host itself."""
    ann = cl.nodes["b"].connect("ann")
    room = ann.ok("create", game="233", players=3)["room"]
    bob, cyd = cl.nodes["a"].connect("bob"), cl.nodes["a"].connect("cyd")
    for c in (bob, cyd):
        c.ok("join", room=room)
    seen = set()

    def bob_measured():
        ping = bob.event(is_ev("ping"))
        assert ping["n"] not in seen, ping  # its node's numbers and b's never clash
        seen.add(ping["n"])
        bob.ok("pong", n=ping["n"])
        st = bob.ok("state", room=room)  # relayed: b's summary
        return st if "lag_ms" in st["seats"][1] else None

    st = wait_for(bob_measured, "a lag_ms for bob on b")
    assert st["node"] == "b" and isinstance(st["seats"][1]["lag_ms"], int), st
    assert st["seats"][1]["lag_ms"] >= 1, st
    assert "lag_ms" not in st["seats"][0] and "lag_ms" not in st["seats"][2], st
    assert cl.nodes["a"].log_has(r"link to node b .* for bob")
    print("  bob's round trip through a, as b measured it: %d ms (%d pings answered)"
          % (st["seats"][1]["lag_ms"], len(seen)))


@clustered()
def names_tokens_and_room_ids_are_the_clusters(cl):
    a = cl.nodes["a"].connect("ann")
    b = cl.nodes["b"].connect()
    r = b.request("hello", name="ANN")
    assert r["ok"] is False and r["error"]["code"] == "name_taken", r
    ra = a.ok("create", game="aspoint3")["room"]
    b.hello("bob")
    rb = b.ok("create", game="aspoint3")["room"]
    assert ra != rb, (ra, rb)
    # ann's token on node c: the same session, its room listed
    a.close()
    c = cl.nodes["c"].connect()
    r = c.hello("ann", token=a.token)
    assert r["resumed"] is True and ra in r["rooms"], r
    # an unknown token is refused on every node
    for s in cl.nodes.values():
        r = s.connect().request("hello", name="zed", token="0" * 32)
        assert r["error"]["code"] == "not_found", r
    # a name comes free in the cluster when its session ends
    b.ok("leave", room=rb)
    b.ok("quit")
    deadline = time.monotonic() + 5
    while True:
        r = cl.nodes["a"].connect().request("hello", name="bob")
        if r["ok"]:
            break
        assert time.monotonic() < deadline, r
        time.sleep(0.1)


@clustered()
def new_rooms_go_to_the_least_loaded_node(cl):
    ann = cl.nodes["a"].connect("ann")
    placed = []
    for _ in range(6):
        placed.append(ann.ok("create", game="aspoint3")["room"])
        time.sleep(0.8)  # a heartbeat: every node's load is known again
    look = lookers(cl)
    listed = same_rooms_everywhere(cl, look, lambda l: len(l) == 6)
    per_node = {}
    for room, node, _ in listed:
        per_node[node] = per_node.get(node, 0) + 1
    assert sorted(per_node.values()) == [2, 2, 2], per_node
    # ann sits in all six, wherever they are
    for room in placed:
        r = ann.ok("state", room=room)
        assert r["seats"][0]["name"] == "ann", r
    # and finds all six again from another node, each with its room event
    ann.close()
    ann2 = cl.nodes["b"].connect()
    r = ann2.hello("ann", token=ann.token)
    assert sorted(r["rooms"]) == sorted(placed), r
    for room in placed:
        ann2.event(is_ev("room", room), keep=True)
        assert ann2.ok("state", room=room)["seats"][0]["connected"] is True


def back_with_the_same_views(node, ann, bob, room, before):
    """ann says hello with her token on `node`; bob stayed where he was. Both
    get the room's state again, with the seq and view they had `before`.
    Returns (ann's new client, her state event, bob's)."""
    ann2 = node.connect()
    r = ann2.hello(ann.name, token=ann.token)
    assert r["resumed"] and room in r["rooms"], r
    st = ann2.event(is_ev("state", room), keep=True)
    assert (st["seq"], st["view"]) == before[ann.name], (st, before[ann.name])
    bst = bob.event(is_ev("state", room), keep=True, timeout=15)
    assert (bst["seq"], bst["view"]) == before[bob.name], (bst, before[bob.name])
    return ann2, st, bst


def play_until(players, seq, rng):
    """Play until every player has seen `seq`, or until a player holds back
    (held table: then nothing more happens)."""
    play(players, rng, timeout=60,
         until=lambda ps: min(p.seq for p in ps) >= seq or any(p.holds_back() for p in ps))


def table_still_on(cl, seed, seq):
    """cross_node_table(), held, played to `seq` changes (or until the bot has
    declared and the people hold back): its game is still on, and stays on
    until the people are set to declare (go_on_from, or declares = True),
    whatever the deal and however long the test takes before that."""
    room, players, rng = cross_node_table(cl, seed, held=True)
    play_until(players, seq, rng)
    assert not any(p.over for p in players), "a held game ended"
    return room, players, rng


def go_on_from(client, st, room):
    """A Player on client that goes on from state event st (later ones queued)."""
    p = Player(client, room)
    p.seq, p.view = st["seq"], st["view"]
    client.events = [m for m in client.events if m.get("ev") != "state" or m["seq"] > st["seq"]]
    return p


@clustered("--turn-timer", "0", "--metrics", "127.0.0.1:0")
def a_node_killed_mid_game_its_room_resumes_elsewhere(cl):
    # ann is on b, the node that dies; bob is on a, relayed to b
    room, players, rng = table_still_on(cl, 7, 12)
    ann, bob = (p.c for p in players)
    # cyd watches from node c (relayed to b), dee from b itself
    cyd = cl.nodes["c"].connect("cyd")
    cyd.ok("watch", room=room)
    dee = cl.nodes["b"].connect("dee")
    dee.ok("watch", room=room)
    quiesce(players, quiet=0.6)
    before = {p.c.name: (p.seq, p.view) for p in players}
    pump(cyd)
    cyd.events = []  # what cyd saw before the kill
    t0 = time.monotonic()
    cl.nodes["b"].proc.send_signal(signal.SIGKILL)
    cl.nodes["b"].proc.wait()
    # the room comes back on a or c
    look = {i: cl.nodes[i].connect("look" + i) for i in ("a", "c")}
    listed = same_rooms_everywhere(
        cl, look, lambda l: any(r[0] == room and r[1] in ("a", "c") for r in l), timeout=15)
    took = time.monotonic() - t0
    host = [r[1] for r in listed if r[0] == room][0]
    summary = [r for r in look[host].ok("rooms", limit=200)["rooms"] if r["room"] == room][0]
    assert summary["race"] == "arrival", summary  # the room's rule, from its Redis hash
    m = metrics(cl.nodes[host])
    assert m["tapis_rooms_taken_over_total"] == 1 and m["tapis_cluster_nodes"] == 2, m
    # ann reconnects to c with her token; bob's node a links again by itself
    ann2, st, bst = back_with_the_same_views(cl.nodes["c"], ann, bob, room, before)
    # the spectators follow the room: cyd's node links again, dee says hello on a
    cst = cyd.event(is_ev("state", room), keep=True, timeout=15)
    assert cst["seq"] == st["seq"] and "hand" not in cst["view"], cst
    dee2 = cl.nodes["a"].connect()
    r = dee2.hello("dee", token=dee.token)
    assert room in r["rooms"], r
    dst = dee2.event(is_ev("state", room), keep=True, timeout=15)
    assert dst["view"] == cst["view"], (dst, cst)
    again = [go_on_from(ann2, st, room), go_on_from(bob, bst, room)]
    play(again, rng, timeout=90)
    assert again[0].over["result"] == again[1].over["result"]
    # the deal came over with the journal: the commitment made on b, ann's seed
    deal = again[0].over["deal"]
    assert deal["commit"] == ann.commit and deal["seeds"] == [ann.name + "'s seed", "", ""], deal
    assert hashlib.blake2b(bytes.fromhex(deal["server_seed"]), digest_size=32).hexdigest() \
        == deal["commit"], deal
    for w in (cyd, dee2):
        assert w.event(is_ev("game_over", room))["result"] == again[0].over["result"]
    cyd.ok("say", text="gg")  # chat follows the room too
    assert dee2.event(is_ev("chat", room))["text"] == "gg"
    print("  room %s back on %s %.1fs after the kill; played to the end" % (room, host, took))


def kill_and_race(cl, dead, others):
    """SIGKILL node `dead`, and have the `others` see it dead at one moment:
    they are stopped (SIGSTOP) just before its heartbeat key expires and
    continued together once Redis has dropped it, so that their overdue
    heartbeats run at once and both take the dead node over at the same time
    (one wins each room's claim; what the other does meanwhile must not undo
    it). Stopped well under --node-ttl: their own keys stay."""
    cl.nodes[dead].proc.send_signal(signal.SIGKILL)
    cl.nodes[dead].proc.wait()
    key = "tapis:node:" + dead

    def pttl():
        return int(cl.redis.command("PTTL", key).strip().lstrip(":"))
    wait_for(lambda: pttl() < 300, "the heartbeat key of node %s near its end" % dead, timeout=5)
    for i in others:
        cl.nodes[i].proc.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: pttl() == -2, "the heartbeat key of node %s gone" % dead, timeout=5)
    finally:
        for i in others:
            cl.nodes[i].proc.send_signal(signal.SIGCONT)


@clustered("--turn-timer", "0")
def spectators_of_the_dead_node_only_keep_their_sessions_when_two_nodes_race(cl):
    # ann (seated) and four spectators are connected to b only; bob, on a,
    # sits there through a link. a and c see b die at the same moment: the
    # one that claims the room restores its watchers' sessions from Redis
    # while the other, which claimed nothing, ends the sessions b held. Each
    # of b's clients must say hello with its token on a or c and be back in
    # the room.
    room, players, _ = cross_node_table(cl, 5)
    ann, bob = (p.c for p in players)
    watchers = [cl.nodes["b"].connect("w%d" % i) for i in range(4)]
    for w in watchers:
        w.ok("watch", room=room)
    look = lookers(cl)
    del look["b"]
    kill_and_race(cl, "b", ("a", "c"))
    listed = same_rooms_everywhere(
        cl, look, lambda l: any(r[0] == room and r[1] in ("a", "c") for r in l), timeout=15)
    host = [r[1] for r in listed if r[0] == room][0]
    for i, old in enumerate([ann] + watchers):
        c = cl.nodes["ac"[i % 2]].connect()
        r = c.request("hello", name=old.name, token=old.token)
        assert r["ok"] and r["resumed"] and room in r["rooms"], (old.name, r)
        st = c.event(is_ev("state", room), timeout=15)
        assert ("hand" in st["view"]) == (old is ann), (old.name, st)
    # what b held and no room needs ends all the same: lookb's name is free
    wait_for(lambda: cl.redis.command("EXISTS", "tapis:node:b:sessions").startswith(":0"),
             "the sessions of node b ended or held elsewhere")
    assert "lookb" not in cl.redis.command("HKEYS", "tapis:names")
    print("  room %s back on %s; ann and the 4 spectators of b back on a and c" % (room, host))


class Resumed(Player):
    """A Player that goes on after its room came back on another node: the
    state sent again then (same seq, same view) is no change."""

    def handle(self, m, check=None):
        if m.get("ev") == "state" and m.get("room") == self.room and m["seq"] == self.seq:
            assert m["view"] == self.view, (m, self.view)
            return
        super().handle(m, check)


def log_mark(node):
    """The index in node's log of a line written after all it wrote so far:
    the "conn N from" of a new connection (a node's log is one stream)."""
    c = node.connect()
    pat = r"conn \d+ from 127\.0\.0\.1:%d\b" % c.sock.getsockname()[1]
    assert node.wait_log(pat), pat
    c.close()
    return [i for i, line in enumerate(list(node.log)) if re.search(pat, line)][0]


def ask_state_each_second(clients, room, named, t_kill, timeout=20):
    """As PROTOCOL.md section 8 advises the clients of a living node when the
    host of their room died: stay, and ask the room's `state` once a second
    (naming it when named[name], else leaving it out). Every client must
    keep its connection, get no error but `unavailable`, and get back, from a
    living node, an ok `state` reply and a `state` event. Returns, by name,
    the latest seq and view seen and the count of `unavailable` replies."""
    import selectors
    sel = selectors.DefaultSelector()
    st = {}
    for c in clients:
        sel.register(c.sock, selectors.EVENT_READ, c)
        st[c.name] = {"next": time.monotonic(), "asked": None, "seq": 0, "view": None,
                      "reply": False, "event": False, "unavailable": 0}
    deadline = time.monotonic() + timeout
    try:
        while not all(s["reply"] and s["event"] for s in st.values()):
            assert time.monotonic() < deadline, "the room never came back: %r" % (
                {n: {k: v for k, v in s.items() if k != "view"} for n, s in st.items()})
            now = time.monotonic()
            for c in clients:
                s = st[c.name]
                if s["asked"] is None and now >= s["next"]:
                    Client._ids += 1
                    s["asked"], s["next"] = Client._ids, now + 1.0
                    msg = {"cmd": "state", "id": Client._ids}
                    if named[c.name]:
                        msg["room"] = room
                    c.send(msg)
            for key, _ in sel.select(0.1):
                c = key.data
                s = st[c.name]
                msgs = pump(c)
                assert not c.closed, "%s's connection was closed after %.1fs: %r" % (
                    c.name, time.monotonic() - t_kill, c.all[-5:])
                for m in msgs:
                    assert m.get("ev") != "error", "%s got %r" % (c.name, m)
                    if "re" in m:
                        assert m.get("id") == s["asked"], (c.name, m, s["asked"])
                        s["asked"] = None
                        if not m["ok"]:
                            assert m["error"]["code"] == "unavailable", (c.name, m)
                            s["unavailable"] += 1
                            continue
                        assert m["node"] in ("a", "c"), m
                        assert m["seq"] >= s["seq"], (c.name, m["seq"], s["seq"])
                        s["reply"] = True
                        s["seq"], s["view"] = m["seq"], m["view"]
                    elif m.get("ev") == "state" and m.get("room") == room:
                        assert m["seq"] >= s["seq"], (c.name, m["seq"], s["seq"])
                        s["event"] = True
                        s["seq"], s["view"] = m["seq"], m["view"]
    finally:
        sel.close()
    return st


# --error-rate 5: bursts of 10 errors at most, so that the 20 `unavailable`
# of the burst below would close bob's connection if they were charged.
@clustered("--turn-timer", "0", "--error-rate", "5")
def a_relayed_player_asking_state_through_a_node_death_keeps_its_game(cl):
    # ann opens a table on b and then moves to c; bob, on a, joins: both are
    # relayed to b. b dies (SIGKILL); both stay and ask `state` once a second
    # (section 8), bob naming the room, ann leaving it out (her only room).
    ann_b = cl.nodes["b"].connect("ann")
    room = ann_b.ok("create", game="233", players=2)["room"]
    bob = cl.nodes["a"].connect("bob")
    assert bob.ok("join", room=room)["seat"] == 1
    ann_b.close()
    ann = cl.nodes["c"].connect()
    assert room in ann.hello("ann", token=ann_b.token)["rooms"]
    rng = random.Random(17)
    players = [go_on_from(ann, ann.event(is_ev("state", room), keep=True), room),
               Player(bob, room)]
    play_until(players, 6, rng)
    quiesce(players, quiet=0.3)
    a = cl.nodes["a"]
    killed_at = log_mark(a)
    t0 = time.monotonic()
    cl.nodes["b"].proc.send_signal(signal.SIGKILL)
    cl.nodes["b"].proc.wait()
    # A client that sends again at once (the log: twenty links opened
    # and refused in 4 ms): once node a has seen b fail, twenty requests in a
    # row are answered `unavailable` at once, without a new link for each.
    r = bob.request("state", room=room)
    assert not r["ok"] and r["error"]["code"] == "unavailable", r
    before = log_mark(a)
    ids = []
    for _ in range(20):
        Client._ids += 1
        ids.append(Client._ids)
        bob.send({"cmd": "state", "id": Client._ids, "room": room})
    codes = [bob.reply(i)["error"]["code"] for i in ids]
    assert codes == ["unavailable"] * 20, codes
    burst = [line for line in a.log[before:log_mark(a)] if re.search(r"link to node b \(", line)]
    assert len(burst) <= 2, "%d links to b for 20 requests:\n%s" % (len(burst), "".join(burst))
    st = ask_state_each_second([ann, bob], room, {"ann": False, "bob": True}, t0)
    took = time.monotonic() - t0
    for c in (ann, bob):
        assert st[c.name]["seq"] >= players[0].seq, (c.name, st[c.name]["seq"], players[0].seq)
    tries = [line for line in a.log[killed_at:] if re.search(r"link to node b \(", line)]
    # the game goes on: each of them acts, through whichever node hosts it now
    again = []
    for c in (ann, bob):
        q = Resumed(c, room)
        q.seq, q.view = st[c.name]["seq"], st[c.name]["view"]
        c.events = [m for m in c.events if m.get("ev") != "state" or m["seq"] > q.seq]
        again.append(q)
    play(again, rng, until=lambda ps: all(q.acts - q.refused >= 3 for q in ps), timeout=60)
    assert all(q.acts - q.refused >= 2 for q in again), [(q.acts, q.refused) for q in again]
    for c in (ann, bob):
        c.ok("ping")
    host = [r["node"] for r in bob.ok("rooms")["rooms"] if r["room"] == room][0]
    print("  room %s back on %s %.1fs after the kill; node a tried b %d times (%d during a "
          "burst of 20 requests); unavailable: ann %d, bob %d + 21; played on to seq %d"
          % (room, host, took, len(tries), len(burst), st["ann"]["unavailable"],
             st["bob"]["unavailable"], min(q.seq for q in again)))


def written_again(cl, room=None, seq=0):
    """Wait until the nodes have written back into an emptied Redis themselves
    and the room directory (and room's journal up to seq, if named)."""
    deadline = time.monotonic() + 15
    while True:
        keys = cl.redis.command("KEYS", "tapis:*")
        n = cl.redis.command("XLEN", "tapis:journal:%s" % room) if room else ":0"
        if all("tapis:node:%s\r" % i in keys for i in "abc") and \
                int(n[1:]) >= seq and (not room or "tapis:rooms\r" in keys):
            return
        assert time.monotonic() < deadline, (keys, n)
        time.sleep(0.1)


@clustered()
def redis_restarting_mid_game_loses_no_table(cl):
    room, players, rng = table_still_on(cl, 11, 8)
    host = [r[1] for r in rooms_on(None, players[0].c) if r[0] == room][0]
    cl.redis.kill()
    play_until(players, players[0].seq + 6, rng)  # the table plays on without Redis
    cl.redis.start()  # empty
    assert not any(p.over for p in players), "a held game ended"
    # what Redis lost is written again by the nodes: themselves, the journal, the room
    written_again(cl, room, players[0].seq)
    look = lookers(cl)
    same_rooms_everywhere(cl, look, lambda l: any(r[0] == room and r[1] == host for r in l),
                          timeout=15)
    r = cl.nodes["c"].connect().request("hello", name=players[1].c.name.capitalize())
    assert r["error"]["code"] == "name_taken", r
    for p in players:
        p.declares = True
    play(players, rng, timeout=90)
    assert players[0].over["result"] == players[1].over["result"]


@clustered("--turn-timer", "0")
def tapis_bot_goes_on_through_another_node(cl):
    # tapis-bot is given two nodes, b first; b dies mid-game; the bot's
    # connection opens again on a with its token and the game ends.
    bot = os.path.join(os.path.dirname(os.path.abspath(cl.exe)), "..", "clients", "tapis-bot")
    addrs = "127.0.0.1:%d,127.0.0.1:%d" % (cl.nodes["b"].port, cl.nodes["a"].port)
    # seqnum ends after max_turns: a game of a known length, slow enough
    # (greedy:150) that it cannot end before the kill
    p = subprocess.Popen([bot, addrs, "--game", "seqnum", "--players", "2", "--bots", "1",
                          "--strategy", "greedy:150", "--option", "max_turns=40", "--name", "tb",
                          "--timeout", "120"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        look = cl.nodes["a"].connect("looka")
        deadline = time.monotonic() + 10
        while not any(r["node"] == "b" and r["status"] == "playing"
                      for r in look.ok("rooms")["rooms"]):
            assert time.monotonic() < deadline and p.poll() is None, "no game on b"
            time.sleep(0.1)
        time.sleep(0.2)
        assert any(r["status"] == "playing" for r in look.ok("rooms")["rooms"]), "game over"
        cl.nodes["b"].proc.send_signal(signal.SIGKILL)
        cl.nodes["b"].proc.wait()
        out, err = p.communicate(timeout=150)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 0, (out, err)
    assert re.search(r"reconnects [1-9]", out), out
    print("  " + out.strip().splitlines()[-1])


@test
def a_node_restarted_in_time_takes_its_tables_back(exe):
    d = tempfile.mkdtemp(prefix="tapis-cluster-")
    # "In time" is within b's TTL: 10 s, not the suite's 2 s, so that a stop
    # and a start on a loaded machine (sanitizers, tests in parallel) stay
    # well inside it; the takeover after a TTL is the other tests'.
    cl = Cluster(exe, extra=("--turn-timer", "0", "--node-ttl", "10s"),
                 per_node={"b": ("--db", os.path.join(d, "b.db"))})
    ok = False
    try:
        room, players, rng = table_still_on(cl, 5, 10)
        ann, bob = (p.c for p in players)
        quiesce(players, quiet=0.6)
        before = {p.c.name: (p.seq, p.view) for p in players}
        # SIGTERM (an upgrade): b keeps its tables in its database; started again
        # at once on another port, within its TTL, it takes them back.
        assert cl.nodes["b"].stop() == 0
        b = cl.start("b")
        # (logged after "listening on": read by a thread)
        assert b.wait_log(r"store .*: 1 tables", 5), "".join(b.log)
        look = lookers(cl)
        same_rooms_everywhere(cl, look, lambda l: any(r[0] == room and r[1] == "b" for r in l))
        assert not any(s.log_has(r"taken over from node b") for s in cl.nodes.values())
        # bob stays on a: a links again to b at its new address by itself
        ann2, st, bst = back_with_the_same_views(b, ann, bob, room, before)
        again = [go_on_from(ann2, st, room), go_on_from(bob, bst, room)]
        play(again, rng, timeout=90)
        assert again[0].over["result"] == again[1].over["result"]
        ok = True
    finally:
        cl.close(clean=ok)
        shutil.rmtree(d, ignore_errors=True)


@clustered("--idle-timeout", "1s")
def via_counts_only_from_a_nodes_address(cl):
    # 127.0.0.2 is loopback too, but no node's address: "via" is no way out of
    # the idle timeout there.
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    s.connect(("127.0.0.1", cl.nodes["a"].port))
    s.settimeout(5)
    s.sendall(b'{"cmd":"hello","name":"eve","via":"a"}\n')
    got = b""
    t0 = time.monotonic()
    while b"idle_timeout" not in got:
        d = s.recv(4096)
        assert d, "closed without idle_timeout: %r" % got
        got += d
    assert b'"ok":true' in got and 0.8 < time.monotonic() - t0 < 4, got
    s.close()


# -- accounts and ratings (issue 27): one truth in Redis --

def rated_table_with_a_bot(client):
    """A rated aspoint3 table of `client` with a bot; returns (room, node hosting it)."""
    room = client.ok("create", game="aspoint3", players=2, rated=True)["room"]
    client.ok("addbot", room=room, strategy="normal")
    client.event(lambda e: e.get("ev") == "state" and e.get("room") == room)
    node = [r for r in client.ok("rooms")["rooms"] if r["room"] == room][0]["node"]
    return room, node


def aspoint3_rating(client, name):
    return [r for r in client.ok("profile", name=name)["ratings"] if r["game"] == "aspoint3"]


@clustered("--pwhash", "min")
def accounts_and_ratings_are_the_clusters(cl):
    a = cl.nodes["a"].connect()
    a.ok("register", name="alice", password="alice-password")
    c = cl.nodes["c"].connect()
    assert c.request("register", name="ALICE", password="x-password")["error"]["code"] == \
        "name_taken"
    assert c.request("hello", name="alice")["error"]["code"] == "name_taken"
    b = cl.nodes["b"].connect()
    assert b.ok("hello", name="alice", password="alice-password")["account"] is True
    room, node = rated_table_with_a_bot(b)
    b.ok("leave", room=room)  # a loss, on whichever node hosts it
    c.hello("carol")
    wait_for(lambda: aspoint3_rating(c, "alice"), "alice's rating seen from node c")
    mine = aspoint3_rating(c, "alice")[0]
    assert mine["games"] == 1 and mine["rating"] < 0, mine
    assert c.ok("profile", name="alice")["recent"][0]["room"] == room
    # The leaderboard is the cluster's too: node a never held the game.
    a.hello("ann")
    board = a.ok("leaderboard", game="aspoint3")
    assert [p["name"] for p in board["provisional"]] == ["bot:normal", "alice"], board
    assert board["provisional_total"] == 2 and board["players"] == [] and board["total"] == 0
    assert abs(board["provisional"][1]["rating"] - mine["rating"]) < 1e-9, board


@clustered("--pwhash", "min")
def a_rated_game_stays_rated_when_its_node_dies(cl):
    b = cl.nodes["b"].connect()
    b.ok("register", name="alice", password="alice-password")
    b.ok("hello", name="alice", password="alice-password")
    room = b.ok("create", game="aspoint3", players=2, rated=True)["room"]
    b.ok("addbot", room=room, strategy="normal:60000")  # slow: the game is under way
    b.event(lambda e: e.get("ev") == "state" and e.get("room") == room)
    host = [r for r in b.ok("rooms")["rooms"] if r["room"] == room][0]["node"]
    cl.nodes[host].proc.send_signal(signal.SIGKILL)
    cl.nodes[host].proc.wait()
    other = [i for i in ("a", "b", "c") if i != host][0]
    c = cl.nodes[other].connect()
    c.hello("carol")
    wait_for(lambda: any(r["room"] == room and r["node"] != host
                         for r in c.ok("rooms")["rooms"]), "the room taken over", timeout=15)
    new_host = [r for r in c.ok("rooms")["rooms"] if r["room"] == room][0]["node"]
    assert cl.nodes[new_host].wait_log(r"room %s: rated again after its node's death" % room, 5)
    a = cl.nodes[new_host].connect()
    assert a.ok("hello", name="alice", password="alice-password")["rooms"] == [room]
    a.ok("leave", room=room)
    wait_for(lambda: aspoint3_rating(c, "alice"), "alice's abandoned game rated")
    rec = c.ok("profile", name="alice")["recent"]
    assert len(rec) == 1 and rec[0]["abandoned"] and rec[0]["room"] == room, rec


def two_losses_from_new():
    """alice's (mu, sigma) after losing twice to a bot level, both new (core/rating.c)."""
    beta, tau = 25 / 6, 25 / 300
    me, bot = (25.0, 25 / 3), (25.0, 25 / 3)
    for _ in range(2):
        p = [(m, (s * s + tau * tau) ** 0.5) for m, s in (bot, me)]  # bot first
        c = (sum(s * s + beta * beta for _, s in p)) ** 0.5
        e = [math.exp(m / c) for m, _ in p]
        out = []
        for i in range(2):
            s2 = p[i][1] ** 2
            if i == 0:
                quo = e[0] / (e[0] + e[1])
                w, d = 1 - quo, quo * (1 - quo)
            else:
                q0, q1 = e[1] / (e[0] + e[1]), 1.0
                w, d = -q0 + (1 - q1), q0 * (1 - q0) + q1 * (1 - q1)
            gamma = s2 ** 0.5 / c
            out.append((p[i][0] + s2 / c * w, p[i][1] * max(1 - gamma * s2 / c / c * d,
                                                            1e-4) ** 0.5))
        bot, me = out
    return me


@clustered("--pwhash", "min")
def two_games_ending_at_once_on_two_nodes_lose_neither_update(cl):
    a = cl.nodes["a"].connect()
    a.ok("register", name="alice", password="alice-password")
    a.ok("hello", name="alice", password="alice-password")
    r1, n1 = rated_table_with_a_bot(a)
    r2, n2 = rated_table_with_a_bot(a)
    assert n1 != n2, "both tables on node %s" % n1
    # Both tables lose alice in one write: two nodes rate alice and bot:normal at once.
    a.send_raw('{"cmd":"leave","room":"%s"}\n{"cmd":"leave","room":"%s"}\n' % (r1, r2))
    c = cl.nodes["c"].connect("carol")
    wait_for(lambda: aspoint3_rating(c, "alice") and
             aspoint3_rating(c, "alice")[0]["games"] == 2, "both games in alice's rating")
    mine = aspoint3_rating(c, "alice")[0]
    bot = aspoint3_rating(c, "bot:normal")[0]
    assert bot["games"] == 2, bot
    mu, sigma = two_losses_from_new()
    assert abs(mine["mu"] - mu) < 1e-9 and abs(mine["sigma"] - sigma) < 1e-9, (mine, mu, sigma)
    assert {x["room"] for x in c.ok("profile", name="alice")["recent"]} == {r1, r2}
    assert cl.redis.command("HGET", "tapis:account:alice", "r:aspoint3").split()[-1] == "2"


# -- matchmaking (issue 27): the cluster's queue --

def matched(c, timeout=10):
    return c.event(is_ev("matched"), timeout=timeout)


def the_matched(clients, count, timeout=15):
    """Until `count` of clients ({name: Client}) got `matched`: {name: event}."""
    got = {}
    deadline = time.monotonic() + timeout
    while len(got) < count:
        assert time.monotonic() < deadline, "matched: only %r" % sorted(got)
        for name, c in clients.items():
            if name not in got:
                try:
                    got[name] = c.event(is_ev("matched"), timeout=0.05, keep=True)
                except (TimeoutError, AssertionError, socket.timeout):
                    pass
    return got


def seekers_in_redis(cl):
    return int(cl.redis.command("HLEN", "tapis:seek").strip().lstrip(":"))


@clustered("--pwhash", "min")
def seekers_on_two_nodes_are_seated_at_one_table(cl):
    a = cl.nodes["a"].connect()
    a.ok("register", name="alice", password="alice-password")
    a.ok("hello", name="alice", password="alice-password")
    b = cl.nodes["b"].connect()
    b.ok("register", name="bob", password="bob-password")
    b.ok("hello", name="bob", password="bob-password")
    assert a.ok("seek", game="aspoint3", rated=True)["rated"] is True
    b.ok("seek", game="aspoint3", rated=True)
    ma, mb = matched(a), matched(b)
    assert ma["room"] == mb["room"] and {ma["seat"], mb["seat"]} == {0, 1}, (ma, mb)
    assert ma["rated"] and mb["rated"] and mb["game"] == "aspoint3"
    assert seekers_in_redis(cl) == 0
    pa, pb = Player(a, ma["room"]), Player(b, mb["room"])
    play([pa, pb], random.Random(5), timeout=120)
    assert len(pa.over["ratings"]) == 2 and len(pb.over["ratings"]) == 2, pb.over
    assert {r["name"] for r in pb.over["ratings"]} == {"alice", "bob"}, pb.over
    assert a.request("cancel")["error"]["code"] == "not_found"  # out of the queue
    assert b.request("cancel")["error"]["code"] == "not_found"


@clustered()
def three_seekers_on_three_nodes_at_once_make_one_table_and_one_waits(cl):
    cs = {i: cl.nodes[i].connect("p" + i) for i in ("a", "b", "c")}
    for c in cs.values():  # the three seeks cross: each node matches from the queue at once
        c.send_raw('{"cmd":"seek","game":"aspoint3","id":"s"}\n')
    for c in cs.values():
        c.reply("s")
    got = the_matched(cs, 2)
    one, two = got.values()
    assert one["room"] == two["room"] and {one["seat"], two["seat"]} == {0, 1}, got
    waiting = [i for i in cs if i not in got][0]
    wait_for(lambda: seekers_in_redis(cl) == 1, "the third seeker in Redis")
    assert cs[waiting].ok("ping") and not [e for e in cs[waiting].events
                                           if e.get("ev") == "matched"]
    d = cl.nodes["a"].connect("pd")  # a fourth: the one waiting gets a table with it
    d.ok("seek", game="aspoint3")
    md, mw = matched(d), matched(cs[waiting])
    assert md["room"] == mw["room"] != one["room"], (md, mw, one)
    assert seekers_in_redis(cl) == 0
    for c in list(cs.values()) + [d]:  # nobody was seated twice
        c.ok("ping")
        assert not [e for e in c.events if e.get("ev") == "matched"], c.events
    seats = d.ok("state", room=md["room"])
    assert sorted(x["name"] for x in seats["seats"]) == sorted(["pd", "p" + waiting]), seats


@clustered()
def seekers_who_cancel_drop_or_whose_node_dies_leave_the_clusters_queue(cl):
    ann = cl.nodes["c"].connect("ann")
    ann.ok("seek", game="aspoint3")
    wait_for(lambda: seekers_in_redis(cl) == 1, "ann's seek in Redis")
    ann.ok("cancel")
    wait_for(lambda: seekers_in_redis(cl) == 0, "ann's cancel in Redis")
    bea = cl.nodes["c"].connect("bea")
    bea.ok("seek", game="aspoint3")
    wait_for(lambda: seekers_in_redis(cl) == 1, "bea's seek in Redis")
    bea.close()
    wait_for(lambda: seekers_in_redis(cl) == 0, "bea's drop in Redis")
    cid = cl.nodes["c"].connect("cid")
    cid.ok("seek", game="aspoint3")
    wait_for(lambda: seekers_in_redis(cl) == 1, "cid's seek in Redis")
    cl.nodes["c"].proc.send_signal(signal.SIGKILL)
    cl.nodes["c"].proc.wait()
    wait_for(lambda: seekers_in_redis(cl) == 0, "the dead node's seeker reaped", timeout=15)
    dan = cl.nodes["a"].connect("dan")
    eve = cl.nodes["b"].connect("eve")
    dan.ok("seek", game="aspoint3")
    eve.ok("seek", game="aspoint3")
    md, me = matched(dan), matched(eve)
    assert md["room"] == me["room"], (md, me)
    state = eve.ok("state", room=me["room"])
    assert sorted(x["name"] for x in state["seats"]) == ["dan", "eve"], state


@clustered()
def a_guest_name_of_another_node_cannot_be_registered(cl):
    b = cl.nodes["b"].connect("dora")
    a = cl.nodes["a"].connect()
    assert a.request("register", name="Dora", password="dora-password")["error"]["code"] == \
        "name_taken"
    # The guest herself may register it, on her node: the name is hers already.
    assert b.ok("register", name="dora", password="dora-password")["logged_in"] is True
    c = cl.nodes["c"].connect()
    assert c.request("hello", name="DORA")["error"]["code"] == "name_taken"


# -- what does not wait for Redis --

def replies(client, ids, timeout=10):
    """The replies to the requests `ids` (sent raw), by id."""
    got = {}
    deadline = time.monotonic() + timeout
    while len(got) < len(ids):
        m = client.recv(max(0.01, deadline - time.monotonic()))
        if "re" in m:
            got[m["id"]] = m
    return got


@clustered("--pwhash", "min", "--node-ttl", "9s")
def profile_and_leaderboard_wait_for_redis_and_the_loop_does_not(cl):
    a = cl.nodes["a"].connect()
    a.ok("register", name="alice", password="alice-password")
    x, y = cl.nodes["a"].connect("xavier"), cl.nodes["a"].connect("yann")
    cl.redis.proc.send_signal(signal.SIGSTOP)
    try:
        x.send_raw('{"cmd":"profile","name":"alice","id":"p"}\n'
                   '{"cmd":"leaderboard","game":"aspoint3","id":"l"}\n')
        # The node serves its other clients while x's reads wait for Redis (a heartbeat, 3 s
        # here, before it gives them up).
        assert y.ok("ping")
        assert not x.events and not x.buf.strip(), "x answered while Redis was stopped"
    finally:
        cl.redis.proc.send_signal(signal.SIGCONT)
    got = replies(x, ["p", "l"])
    assert got["p"]["ok"] and got["p"]["name"] == "alice", got
    assert got["l"]["ok"] and got["l"]["game"] == "aspoint3" and got["l"]["total"] == 0, got


@clustered("--pwhash", "min")
def a_profile_is_answered_from_the_node_when_redis_hangs(cl):
    a = cl.nodes["a"].connect()
    a.ok("register", name="alice", password="alice-password")
    x = cl.nodes["a"].connect("xavier")
    cl.redis.proc.send_signal(signal.SIGSTOP)
    try:  # given up after a heartbeat without an answer: what node a holds
        r = x.request("profile", name="alice", timeout=15)
        assert r["ok"] and r["name"] == "alice" and r["ratings"] == [], r
        assert cl.nodes["a"].wait_log(r"Redis answered none of \d+ commands", 5)
    finally:
        cl.redis.proc.send_signal(signal.SIGCONT)


if __name__ == "__main__":
    run_tests(sys.argv)
