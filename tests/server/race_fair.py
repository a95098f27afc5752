"""race_fair.py — races between players at different round trips, over real
sockets, each player behind a delay proxy of its own (this kernel has no
netem): how often each one wins.

Three (or more) players sit at a table of slap, the game where everyone
plays at once. Each connects through a TCP proxy that holds every chunk a
fixed time each way (half its round trip), answers the server's pings at
once (or late: a liar), and answers each state it receives after a
reaction time drawn from one distribution for all, naming the state's
`seq` (a newer state before that replaces it). A race is a state that
every player received with something to play; its winner is the player
whose answer to it made the next state. That is read from the finished
game's record (`replay`): the journal's entries that make states (start,
act, tick) count the states, and each act that names a seq follows a race
entry saying which (races_of()). Races around which the script's own loop
ran late are left out (Punctuality, LATE_MS).

Used by test_race_fair.py (suite soak) and by the benchmark race-shares:

    python3 tests/server/race_fair.py build/server/tapisd --rtt 5,60,150 \
        [--races 300] [--rule reaction|arrival] [--liar 0] [--seed 1] [--tables 1]

prints each player's share of the races it ran, and the credit the server
gave each (the journal's race entries).
"""
import argparse
import asyncio
import json
import os
import random
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server  # noqa: E402

REACT_MS = (30, 130)  # every player's reaction time: uniform in this range
# A game ends after 50 rounds at most (slap's server rule 2): a deal where
# nobody takes the others' cards would otherwise play on for minutes, past
# play_game()'s bound, and the run's length would be the deal's.
GAME_OPTIONS = {"go_ms": 0, "stall_ms": 50, "max_rounds": 50}
# The races a game of three brings, about (37-82 were seen): fewer than most
# games bring, so that the tables seldom stop short of the races asked.
RACES_A_GAME = 40
# The harness is one event loop for every player and proxy: when the machine
# starves it, its delays and pongs come late, and the round trips the server
# measures are not the proxies'. So it times itself (Punctuality): a timer
# every 10 ms, a spell of lateness wherever one ran over LATE_MS late (spells
# under MERGE_S apart are one). A race counts only if no spell touched its
# answers (from ANSWER_BEFORE before its state came to ANSWER_AFTER after:
# reactions up to 130 ms, round trips up to 150 ms), and no spell of
# SUSTAINED_S or more came in the LATE_BEFORE before it. A long spell makes
# every pong of the server's estimate late (the least of the last five, 100
# ms apart), and then a player's prompt answers look quicker than its round
# trip, which costs an honest player its race quota (server/room/room_race.c)
# for the seconds of races that refill it. Starved 3 s in every 11 (SIGSTOP
# and SIGCONT), a run counting every race gave the nearest player 42.8 % of
# them; counting these, 34.7 %. And no table starts a game while the loop was
# late in the last CALM_S, unless none is playing.
LATE_MS = 10
MERGE_S = 0.1
# The loop's timer does not see every way a busy harness skews the races (a
# harness slowed throughout, by glibc's MALLOC_PERTURB_, still gave the
# nearest player 57.6 % of the races that timer let count): so a race counts
# only if, too, from LATE_BEFORE before it to ANSWER_AFTER after, the
# server's estimate of each honest player's round trip (the `lag_ms` of its
# pong replies) stayed within EST_SLACK_MS of its proxy's. Slowed so, two
# runs counting these gave 34.0 / 33.1 / 32.9 % and 34.4 / 31.1 / 34.4 %;
# starved 3 s in 11, 34.0 / 34.0 / 32.0 %, every counted race's winner
# credited its whole estimate. Not every starvation is undone: the same
# run beside a whole CI run on this machine's two cores, the server
# starved too, gave the nearest 44.3 %. The test does not starve itself
# (tests/server/meson.build turns MALLOC_PERTURB_ off).
EST_SLACK_MS = 5
ANSWER_BEFORE, ANSWER_AFTER = 0.2, 0.4
SUSTAINED_S, LATE_BEFORE = 0.3, 5.0
CALM_S = 1.0
# A machine that starves the harness for good ends the run with too few
# races counted (the caller's assertion says how many were late), not a hang.
DEADLINE_S = 900


def nodelay(writer):
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class DelayProxy:
    """Listens on a free loopback port; each connection is piped to the server,
    every chunk held `one_way` seconds in each direction, order kept."""

    def __init__(self, host, port, one_way):
        self.host, self.port, self.one_way = host, port, one_way
        self.listen_port = None
        self.tasks = []

    async def start(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.listen_port = self.server.sockets[0].getsockname()[1]

    async def handle(self, cr, cw):
        ur, uw = await asyncio.open_connection(self.host, self.port)
        nodelay(cw)
        nodelay(uw)
        try:
            await asyncio.gather(self.pipe(cr, uw), self.pipe(ur, cw), return_exceptions=True)
        except asyncio.CancelledError:  # the end of the run
            pass

    async def pipe(self, r, w):
        loop = asyncio.get_running_loop()
        q = asyncio.Queue()

        async def send():
            try:
                while True:
                    due, data = await q.get()
                    wait = due - loop.time()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    if not data:
                        break
                    w.write(data)
                    await w.drain()
            except ConnectionError:  # the other side is gone: so is this one
                pass
            w.close()

        sender = asyncio.create_task(send())
        try:
            while True:
                data = await r.read(65536)
                q.put_nowait((loop.time() + self.one_way, data))
                if not data:
                    break
            await sender  # the end goes through as late as the bytes did
        except (ConnectionError, asyncio.CancelledError):
            sender.cancel()
            w.close()

    def close(self):
        self.server.close()


class Punctuality:
    """How late the harness's loop runs: a timer every 10 ms, and the spells
    (start, end, in loop time) when it ran more than LATE_MS late."""

    def __init__(self):
        self.spells = []

    async def watch(self):
        loop = asyncio.get_running_loop()
        while True:
            t = loop.time()
            await asyncio.sleep(0.01)
            now = loop.time()
            if now - t - 0.01 <= LATE_MS / 1000:
                continue
            if self.spells and t - self.spells[-1][1] < MERGE_S:
                self.spells[-1] = (self.spells[-1][0], now)
            else:
                self.spells.append((t, now))

    def punctual(self, start, end, longer_than=0.0):
        """No spell (of at least `longer_than` seconds) overlaps [start, end]."""
        for s, e in reversed(self.spells):
            if e < start:
                return True
            if s <= end and e - s >= longer_than:
                return False
        return True

    def counts(self, at, off):
        """Whether a race whose state came at `at` counts (LATE_MS and
        EST_SLACK_MS above), `off` being when its players' estimates were off."""
        return (self.punctual(at - ANSWER_BEFORE, at + ANSWER_AFTER)
                and self.punctual(at - LATE_BEFORE, at, SUSTAINED_S)
                and not any(at - LATE_BEFORE <= t <= at + ANSWER_AFTER for t in off))


class Player:
    """One player: its own connection through its proxy, its own reactions.
    It answers every state that leaves it something to play, a reaction time
    after it came, naming its seq; a newer state before that replaces it (a
    person reacts to what they see last)."""

    def __init__(self, name, port, rng, pong_delay=0.0):
        self.name, self.port, self.rng = name, port, rng
        self.pong_delay = pong_delay
        self.room = None
        self.seat = None
        self.replies = asyncio.Queue()  # replies to anything but act and pong
        self.timer = None  # the pending reaction
        self.scheduled = {}  # seq -> when (loop time): the states it received with something to play
        self.over = asyncio.Event()
        self.lag_ms = None
        self.nominal_ms = None  # its proxy's round trip, if it is honest
        self.off = []  # when (loop time) a pong reply said a lag_ms past nominal_ms

    async def connect(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port,
                                                                   limit=1 << 26)
        nodelay(self.writer)
        self.task = asyncio.create_task(self.read_loop())
        return await self.ok("hello", name=self.name)

    def send(self, **msg):
        self.writer.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    async def ok(self, cmd, **args):
        self.send(cmd=cmd, **args)
        r = await asyncio.wait_for(self.replies.get(), 30)
        if not r.get("ok"):
            raise RuntimeError("%s %s: %s" % (self.name, cmd, r))
        return r

    def new_game(self, room, seat):
        self.room, self.seat = room, seat
        self.scheduled = {}
        self.over = asyncio.Event()

    def on_state(self, seq, view):
        if self.timer:
            self.timer.cancel()
            self.timer = None
        legal = view.get("legal") or []
        if not legal:
            return
        action = self.rng.choice(legal)
        wait = self.rng.uniform(*REACT_MS) / 1000
        self.scheduled[seq] = asyncio.get_running_loop().time()

        def act():
            self.timer = None
            if self.over.is_set():
                return
            self.send(cmd="act", room=self.room, action=action, seq=seq)

        self.timer = asyncio.get_running_loop().call_later(wait, act)

    async def read_loop(self):
        loop = asyncio.get_running_loop()
        while True:
            try:
                line = await self.reader.readline()
            except (ConnectionError, asyncio.CancelledError):
                return
            if not line:
                return
            msg = json.loads(line)
            ev = msg.get("ev")
            if ev == "ping":
                n = msg["n"]
                if self.pong_delay:
                    loop.call_later(self.pong_delay, lambda n=n: self.send(cmd="pong", n=n))
                else:
                    self.send(cmd="pong", n=n)
            elif ev == "state" and msg.get("room") == self.room:
                self.on_state(msg["seq"], msg["view"])
            elif ev == "game_over" and msg.get("room") == self.room:
                self.over.set()
                if self.timer:
                    self.timer.cancel()
                    self.timer = None
            elif ev is None and msg.get("re") == "pong":
                if "lag_ms" in msg:
                    self.lag_ms = msg["lag_ms"]
                    if self.nominal_ms is not None and self.lag_ms > self.nominal_ms + EST_SLACK_MS:
                        self.off.append(loop.time())
            elif ev is None and msg.get("re") == "act":
                pass  # taken or refused: the record says who won
            elif ev is None:
                await self.replies.put(msg)


async def settle_lags(players, rtts, timeout=30):
    """Until each player's pong replies say a round trip near its proxy's."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if all(p.lag_ms is not None and p.lag_ms >= r for p, r in zip(players, rtts)):
            return
        await asyncio.sleep(0.05)
    raise RuntimeError("round trips never measured: %s" % [p.lag_ms for p in players])


async def play_game(players, rule):
    host = players[0]
    opts = dict(GAME_OPTIONS, race=rule)
    r = await host.ok("create", game="slap", players=len(players), options=opts)
    room = r["room"]
    host.new_game(room, r["seat"])
    for p in players[1:]:
        p.new_game(room, None)
        p.seat = (await p.ok("join", room=room))["seat"]
    await asyncio.wait_for(asyncio.gather(*(p.over.wait() for p in players)), 600)
    await asyncio.sleep(0.5)  # the last acts' replies
    for p in players:
        await p.ok("leave", room=room)
    return room


async def game_record(player, room):
    """The finished game of room (a public room's id is its game's): its record."""
    return (await player.ok("replay", game_id=room))["record"]


def races_of(record, players):
    """The winner's seat of each race, and when its state came (the first
    player's receipt, loop time). A race is a state k that every player
    received with something to play (each drew its reaction to it), and that
    an answer to k ended: the journal's entry that made state k + 1 is an act
    whose race entry names seq k. A player whose reaction was cut short by
    state k + 1 lost that race (its answer would have come after it), so
    nobody's lost races go uncounted."""
    entries = record["actions"]
    made = {}  # state seq -> the entry index that made it
    for i, e in enumerate(entries):
        if e["kind"] in ("start", "act", "tick"):
            made[len(made) + 1] = i
    everyone = set.intersection(*(set(p.scheduled) for p in players))
    wins = []
    for k in sorted(everyone):
        i = made.get(k + 1)
        if i is None or entries[i]["kind"] != "act" or i == 0:
            continue
        race = entries[i - 1]
        if race["kind"] == "race" and race["data"].get("seq") == k:
            wins.append((entries[i]["seat"], min(p.scheduled[k] for p in players)))
    return wins


def credits_of(record):
    """seat -> [credit ms] of the journal's race entries."""
    out = {}
    for e in record["actions"]:
        if e["kind"] == "race":
            out.setdefault(e["seat"], []).append(e["data"]["credit_us"] / 1000)
    return out


async def play_table(t, srv, rtts, races_wanted, rule, liar, seed, tally, punct, log):
    """Table t's players, each behind its proxy, play games until the tables
    together have counted races_wanted races (those the harness was punctual
    for); their wins and credits go to tally, by player index."""
    proxies, players = [], []
    try:
        for i, rtt in enumerate(rtts):
            px = DelayProxy(srv.host, srv.port, rtt / 2000)
            await px.start()
            proxies.append(px)
            rng = random.Random(seed * 1000 + t * 100 + i)
            players.append(Player("t%dp%d" % (t, i), px.listen_port, rng))
        for i, p in enumerate(players):
            p.nominal_ms = rtts[i] if i != liar else None
        if liar is not None:  # its proxy as near as can be; it delays its pongs to look far
            players[liar].pong_delay = rtts[liar] / 1000
            proxies[liar].one_way = 0.0025  # its real round trip: 5 ms
        for p in players:
            await p.connect()
        await settle_lags(players, [int(r) if i != liar else 0 for i, r in enumerate(rtts)])
        # A table starts another game only while the races counted, and those
        # the games still playing are likely to bring, fall short: the last
        # table to stop still plays on until enough are counted.
        loop = asyncio.get_running_loop()
        while (tally["counted"] + RACES_A_GAME * tally["playing"] < races_wanted
               and loop.time() < tally["deadline"]):
            if tally["playing"] and not punct.punctual(loop.time() - CALM_S, loop.time()):
                await asyncio.sleep(0.1)  # fewer tables at once while the harness is late
                continue
            tally["playing"] += 1
            try:
                room = await play_game(players, rule)
                record = await game_record(players[0], room)
                seat_to_player = {p.seat: i for i, p in enumerate(players)}
                off = [t for p in players for t in p.off]
                for seat, at in races_of(record, players):
                    if not punct.counts(at, off):
                        tally["late"] += 1
                        continue
                    tally["wins"][seat_to_player[seat]] += 1
                    tally["counted"] += 1
                for seat, cs in credits_of(record).items():
                    tally["credits"][seat_to_player[seat]].extend(cs)
            finally:
                tally["playing"] -= 1
            log("  table %d, game %s: %d races so far" % (t, room, tally["counted"]))
        return [p.lag_ms for p in players]
    finally:
        for p in players:
            if hasattr(p, "writer"):
                p.writer.close()
        for px in proxies:
            px.close()


async def run_async(exe, rtts, races_wanted, rule, liar, seed, cap_ms, tables, log=print):
    """`tables` tables of the same players' round trips play at once on one
    server (the races are the same kind at each; more tables, less waiting)."""
    db = tempfile.NamedTemporaryFile(suffix=".db", delete=False)
    db.close()
    srv = Server(exe, "--db", db.name, "--ping-interval", "100", "--race-cap", str(cap_ms),
                 "--turn-timer", "0", "--error-rate", "0", "--line-rate", "0",
                 "--conn-rate", "0")
    tally = {"wins": [0] * len(rtts), "counted": 0, "playing": 0, "late": 0,
             "credits": {i: [] for i in range(len(rtts))}}
    tally["deadline"] = asyncio.get_running_loop().time() + DEADLINE_S
    punct = Punctuality()
    watch = asyncio.create_task(punct.watch())
    try:
        lags = await asyncio.gather(*(play_table(t, srv, rtts, races_wanted, rule, liar, seed,
                                                 tally, punct, log) for t in range(tables)))
        if tally["late"]:
            log("  %d races not counted: the harness ran late around them, or an estimate"
                " was off (%d late spells over %d ms)"
                % (tally["late"], len(punct.spells), LATE_MS))
        # each player's lag: the lowest its tables measured (a liar's: the highest)
        lag = [(max if i == liar else min)(ls[i] for ls in lags) for i in range(len(rtts))]
        return tally["wins"], tally["counted"], tally["credits"], lag
    finally:
        watch.cancel()
        srv.finish()
        os.unlink(db.name)


def run(exe, rtts, races=300, rule="reaction", liar=None, seed=1, cap_ms=200, tables=1,
        log=print):
    """Play until `races` races are counted; returns (shares, counted, credits, lags)."""
    wins, counted, credits, lags = asyncio.run(
        run_async(exe, rtts, races, rule, liar, seed, cap_ms, tables, log))
    shares = [w / max(counted, 1) for w in wins]
    return shares, counted, credits, lags


def report(rtts, shares, counted, credits, lags, rule, liar, out=print):
    out("race=%s, %d races, reactions uniform in %d-%d ms%s" %
        (rule, counted, REACT_MS[0], REACT_MS[1],
         ", player %d lies (pongs delayed)" % liar if liar is not None else ""))
    for i, rtt in enumerate(rtts):
        cs = credits.get(i, [])
        mean = sum(cs) / len(cs) if cs else 0.0
        out("  player %d  rtt %4d ms  lag_ms %4s  share %5.1f%%  credit mean %6.1f ms max %6.1f ms"
            % (i, rtt, lags[i], 100 * shares[i], mean, max(cs) if cs else 0.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tapisd")
    ap.add_argument("--rtt", default="5,60,150", help="round trips in ms, one a player")
    ap.add_argument("--races", type=int, default=300)
    ap.add_argument("--rule", default="reaction", choices=["reaction", "arrival"])
    ap.add_argument("--liar", type=int, default=None,
                    help="this player is 5 ms away but delays its pongs to look --rtt far")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cap", type=int, default=200, help="--race-cap of the server")
    ap.add_argument("--tables", type=int, default=1, help="tables playing at once")
    a = ap.parse_args()
    rtts = [int(x) for x in a.rtt.split(",")]
    shares, counted, credits, lags = run(a.tapisd, rtts, a.races, a.rule, a.liar, a.seed, a.cap,
                                         a.tables)
    report(rtts, shares, counted, credits, lags, a.rule, a.liar)


if __name__ == "__main__":
    main()
