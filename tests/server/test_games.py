#!/usr/bin/env python3
"""test_games.py — the three newer games over real sockets (issues 5, 6, 7).

aspoint3: whole games between two clients choosing from "legal" and between a
client and a built-in bot, watched by a spectator; no hidden card (a hand, the
face-down centre card) reaches anyone but its owner before the deal's reveal,
checked over every message afterwards with the reveals (`last_deal`).

seqnum: team games of 4 and 6 seats, two clients and server bots; a hand
appears only under the top-level "hand" of its owner's own view, and no card
of a client's hand appears anywhere in what the others receive at that seq;
the draw rule ("draw before the next player has played and drawn") over the
protocol, with two clients stepping deterministically and with a bot.

slap: a real-time game between Python bots on their own connections and
threads with different reaction times (the fast one must make more plays),
watched by a spectator; card names appear only where RULES.md documents a
face-up card (column tops, pile tops, events), so a face-down card reaches
nobody, its owner included.

Every test also checks that at each seq a seated player's view, without its
private keys, equals the spectator's view. Usage: test_games.py PATH/TO/tapisd"""
import os
import random
import re
import select
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Player, Server, is_ev, play, pump, run_tests, test  # noqa: E402

BOT_DELAY = "0-3"


# ---------------------------------------------------------------- helpers

def strings(obj, path=""):
    """Every (path, string) in obj."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(v, path + "/" + k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from strings(v, "%s/%d" % (path, i))
    elif isinstance(obj, str):
        yield path, obj


def key_paths(obj, key, path=""):
    """Every path at which `key` occurs in obj."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = path + "/" + k
            if k == key:
                out.append(p)
            out += key_paths(v, key, p)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += key_paths(v, key, "%s/%d" % (path, i))
    return out


def states(client, room):
    return [m for m in client.all if m.get("ev") == "state" and m.get("room") == room]


def check_hand_only_in_own_view(client, seat):
    """A "hand" key appears only as /view/hand of `seat`'s own state events."""
    n = 0
    for m in client.all:
        for path in key_paths(m, "hand"):
            ok = seat is not None and m.get("ev") == "state" and path == "/view/hand" \
                and m["view"].get("seat") == seat
            assert ok, "seat %r received a hand at %s: %r" % (seat, path, m)
            n += 1
    return n


def check_public_equals_spectator(player, spectator, room, private):
    """At every seq both received, the player's view minus its private keys is
    exactly the spectator's view. Returns the number of seqs compared."""
    spec = {m["seq"]: m["view"] for m in states(spectator, room)}
    n = 0
    for m in states(player, room):
        v = m["view"]
        for k in ("seat", "legal"):
            assert k in v, "a seated view lacks %r: %r" % (k, v)
        if m["seq"] not in spec:
            continue
        pub = {k: x for k, x in v.items() if k not in private}
        sv = spec[m["seq"]]
        assert not (set(private) & set(sv)), "spectator view has private keys: %r" % sv
        if pub != sv:
            diff = sorted(k for k in set(pub) | set(sv) if pub.get(k) != sv.get(k))
            raise AssertionError("seq %d: seat %r's public view differs from the spectator's "
                                 "in %r:\n  %r\n  %r" % (m["seq"], v.get("seat"), diff,
                                                         {k: pub.get(k) for k in diff},
                                                         {k: sv.get(k) for k in diff}))
        n += 1
    return n


class Spectator(Player):
    def maybe_act(self, *a, **k):
        pass


def check_same_result(players):
    results = [p.over["result"] for p in players]
    assert all(r == results[0] for r in results), results
    return results[0]


# ---------------------------------------------------------------- aspoint3

AP3_CARD = re.compile(r"^(10|[2-9AJQK])[SHDC]$")
AP3_PRIVATE = ("seat", "hand", "legal", "swapped_out")


def ap3_check_hidden(receivers, room):
    """receivers: [(client, seat or None)]. Before deal d is revealed, the cards
    that were hidden in it (its six cards but the face-up one, known from the
    reveal) appear nowhere in a receiver's messages but its own "hand" and
    "swapped_out", which must hold its own cards. Returns (deals, messages checked)."""
    reveals = {}
    for c, _ in receivers:
        for m in states(c, room):
            ld = m["view"].get("last_deal")
            if ld:
                if ld["deal"] in reveals:
                    assert reveals[ld["deal"]] == ld, "two reveals of deal %d" % ld["deal"]
                reveals[ld["deal"]] = ld
    checked = 0
    for c, seat in receivers:
        for m in c.all:
            if m.get("ev") == "game_over":
                continue
            if m.get("ev") != "state":
                cards = [(p, s) for p, s in strings(m) if AP3_CARD.match(s)]
                assert not cards, "a card in a message that is not a state: %r" % m
                continue
            v = m["view"]
            d = v["deal"]
            ld = v.get("last_deal")
            if ld and ld["deal"] == d:
                continue  # this deal is revealed (the game's last state)
            assert d in reveals, "deal %d was never revealed" % d
            r = reveals[d]
            six = [x for three in r["cards"] for x in three]
            assert len(set(six)) == 6 and r["up"] in six and r["down"] in six, r
            hidden = set(six) - {r["up"]}
            assert v["up"] == r["up"], (v["up"], r)
            for path, s in strings({k: x for k, x in v.items()
                                    if k not in ("last_deal", "hand", "swapped_out", "legal")}):
                assert s not in hidden, \
                    "seat %r saw hidden card %s of deal %d at /view%s before the reveal " \
                    "(seq %d): %r" % (seat, s, d, path, m["seq"], v)
            if seat is None:
                assert not (set(AP3_PRIVATE) & set(v)), v
            else:
                mine = set(r["cards"][seat]) | {r["down"]}
                assert len(v["hand"]) == 2 and set(v["hand"]) <= mine, \
                    "seat %d's hand %r is not its own (deal %r)" % (seat, v["hand"], r)
                if "swapped_out" in v:
                    assert v["swapped_out"] == r["down"] and r["starter"] == seat, (v, r)
                for a in v["legal"]:
                    if a.get("type") == "swap":
                        assert a["card"] in v["hand"], (a, v["hand"])
            checked += 1
    return len(reveals), checked


def ap3_game(exe, with_bot, options, seed, strategy=None):
    """A whole game of aspoint3 on the deals of --seed `seed` (the clients'
    choices come from the same seed). A turn game, with nothing to race: the
    same seed plays the same game every time, so the counts of deals that
    the tests assert are those of a known game, not of a deal's luck."""
    srv = Server(exe, "--bot-delay", BOT_DELAY, "--seed", str(seed))
    try:
        a = srv.connect("ann")
        room = a.ok("create", game="aspoint3", players=2, options=options)["room"]
        w = srv.connect("watcher")
        w.ok("watch", room=room)
        clients = [a]
        if with_bot:
            args = {"strategy": strategy} if strategy else {}
            assert a.ok("addbot", room=room, **args)["seat"] == 1
        else:
            b = srv.connect("bob")
            assert b.ok("join", room=room)["seat"] == 1
            clients.append(b)
        players = [Player(c, room) for c in clients]
        spec = Spectator(w, room)
        play(players + [spec], random.Random(seed), timeout=60)
        result = check_same_result(players + [spec])
        assert result["winners"] and set(result["winners"]) <= {0, 1}, result
        for p in players:
            assert not p.view["legal"], p.view["legal"]
            assert p.view["phase"] == "over", p.view
        receivers = [(c, i) for i, c in enumerate(clients)] + [(w, None)]
        deals, checked = ap3_check_hidden(receivers, room)
        assert deals == result["deals"], (deals, result)
        compared = sum(check_public_equals_spectator(c, w, room, AP3_PRIVATE) for c in clients)
        for c, seat in receivers:
            check_hand_only_in_own_view(c, seat)
        # two states a deal (the starter's choice, the pick) for each receiver
        assert deals >= 3 and checked >= 2 * len(receivers) * (deals - 1), (deals, checked)
        print("  %d deals, %d messages checked for hidden cards, %d views compared with the "
              "spectator's; %d own actions; result winners %r scores %r"
              % (deals, checked, compared, sum(p.acts for p in players),
                 result["winners"], result["scores"]))
        r = a.request("act", room=room, action={"type": "keep"})
        assert r["ok"] is False and r["error"]["code"] == "game_over", r
        return deals
    finally:
        srv.finish()


@test
def aspoint3_two_clients_full_game_hidden_cards(exe):
    # ~30 points a hand: about 5 deals a round, 15 in all (over a reshuffle after 8)
    deals = ap3_game(exe, False, {"target": 150, "rounds": 3}, seed=5)
    assert deals > 8, "the game should go past a reshuffle (%d deals)" % deals


@test
def aspoint3_client_against_bot_hidden_cards(exe):
    ap3_game(exe, True, {"target": 150, "rounds": 2}, seed=55)


@test
def aspoint3_client_against_random_bot_packs_variant(exe):
    # counted in total: two packs of eight deals
    deals = ap3_game(exe, True, {"packs": 2, "pack_scoring": "total"}, seed=555,
                     strategy="random")
    assert deals == 16, deals


# ---------------------------------------------------------------- seqnum

SEQ_CARD = re.compile(r"^(\d+[+-]\d+|plus|minus)$")
SEQ_PRIVATE = ("seat", "team", "hand", "legal", "at_once")


def seq_check_hands(clients, seats, spectator, room):
    """No card of a client's hand at seq n appears in what another client or the
    spectator received at seq n (plus/minus, of which there are two, excepted;
    and the last events once a reshuffle may have brought a played card back)."""
    hands = {}  # seat -> {seq: hand}
    for c, s in zip(clients, seats):
        hands[s] = {}
        for m in states(c, room):
            v = m["view"]
            assert v["seat"] == s and v["team"] == s % v["teams"], v
            assert v["players"][s]["cards"] == len(v["hand"]), v
            for a in v["legal"]:
                if "card" in a:
                    assert a["card"] in v["hand"], (a, v["hand"])
            hands[s][m["seq"]] = set(v["hand"]) - {"plus", "minus"}
    checked = 0
    for c, me in list(zip(clients, seats)) + [(spectator, None)]:
        for m in c.all:
            if m.get("ev") != "state":
                if m.get("ev") != "game_over":
                    cards = [(p, x) for p, x in strings(m) if SEQ_CARD.match(x)]
                    assert not cards, "a card in a message that is not a state: %r" % m
                continue
            v = m["view"]
            skip = {"hand", "legal"}
            if v["reshuffles"] > 0:
                skip.add("events")
            seen = {x: p for p, x in strings({k: y for k, y in v.items() if k not in skip})
                    if SEQ_CARD.match(x)}
            for other in seats:
                if other == me or m["seq"] not in hands[other]:
                    continue
                leak = hands[other][m["seq"]] & set(seen)
                assert not leak, "seat %r saw seat %d's cards %r at %r (seq %d)" % (
                    me, other, sorted(leak), [seen[x] for x in leak], m["seq"])
                assert v["players"][other]["cards"] >= len(hands[other][m["seq"]])
            checked += 1
    return checked


def seqnum_team_game(exe, nplayers, teams, seed):
    srv = Server(exe, "--bot-delay", BOT_DELAY)
    try:
        a = srv.connect("ann")
        room = a.ok("create", game="seqnum", players=nplayers,
                    options={"teams": teams, "max_turns": 300})["room"]
        w = srv.connect("watcher")
        w.ok("watch", room=room)
        b = srv.connect("bob")
        assert b.ok("join", room=room, seat=1)["seat"] == 1
        bots = [a.ok("addbot", room=room)["seat"] for _ in range(nplayers - 2)]
        assert bots == list(range(2, nplayers)), bots
        players = [Player(a, room), Player(b, room)]
        spec = Spectator(w, room)
        play(players + [spec], random.Random(seed), timeout=60)
        result = check_same_result(players + [spec])
        v = spec.view
        assert v["over"] and v["teams"] == teams and v["goal"] == 2, v
        assert result["reason"] in ("sequences", "max_turns", "no_cards"), result
        if result["reason"] == "sequences":
            t = result["team"]
            assert result["winners"] == [s for s in range(nplayers) if s % teams == t], result
            assert result["sequences"][t] >= 2, result
        # bots played: a seat >= 2 put chips or passed
        assert any(e.get("seat", -1) >= 2 for m in states(w, room)
                   for e in m["view"]["events"]), "the bots never played"
        for c, s in ((a, 0), (b, 1), (w, None)):
            check_hand_only_in_own_view(c, s)
        checked = seq_check_hands([a, b], [0, 1], w, room)
        compared = sum(check_public_equals_spectator(c, w, room, SEQ_PRIVATE) for c in (a, b))
        lapsed = [p["lapsed"] for p in v["players"]]
        print("  %d seats, %d teams: %d turns, %d reshuffles, reason %s, winners %r, lapsed %r;"
              " %d messages checked, %d views compared"
              % (nplayers, teams, result["turns"], v["reshuffles"], result["reason"],
                 result["winners"], lapsed, checked, compared))
        assert result["turns"] >= 10, result
    finally:
        srv.finish()


@test
def seqnum_four_seats_two_clients_two_bots(exe):
    seqnum_team_game(exe, 4, 2, seed=6)


@test
def seqnum_six_seats_three_teams_two_clients_four_bots(exe):
    seqnum_team_game(exe, 6, 3, seed=66)


def fresh(client, room, pred, timeout=10):
    """The next state event for room whose view satisfies pred (earlier ones dropped)."""
    return client.event(lambda e: e.get("ev") == "state" and e.get("room") == room
                        and pred(e["view"]), timeout=timeout)["view"]


def first_play(view):
    plays = [x for x in view["legal"] if x["type"] == "play"]
    assert plays, view["legal"]
    return plays[0]


@test
def seqnum_draw_lapses_once_the_next_player_played_and_drew(exe):
    """Two clients step by hand: A plays and does not draw; B plays (A may still
    draw); B draws: A's draw is lost (lapsed, max_cards down by one)."""
    srv = Server(exe, "--turn-timer", "0")
    try:
        a = srv.connect("ann")
        room = a.ok("create", game="seqnum", players=2)["room"]
        b = srv.connect("bob")
        b.ok("join", room=room)
        va = fresh(a, room, lambda v: v["turn"] == 0)
        assert va["players"][0]["max_cards"] == 5 and len(va["hand"]) == 5, va
        assert a.ok("act", room=room, action=first_play(va))
        va = fresh(a, room, lambda v: v["players"][0]["owes_draw"])
        assert va["legal"] == [{"type": "draw"}] and len(va["hand"]) == 4, va
        vb = fresh(b, room, lambda v: v["turn"] == 1)
        b.ok("act", room=room, action=first_play(vb))
        # B played, has not drawn: A's window is still open
        va = fresh(a, room, lambda v: v["players"][1]["owes_draw"])
        assert va["players"][0]["owes_draw"] and {"type": "draw"} in va["legal"], va
        assert va["players"][0]["lapsed"] == 0, va
        b.ok("act", room=room, action={"type": "draw"})
        va = fresh(a, room, lambda v: not v["players"][1]["owes_draw"])
        p0 = va["players"][0]
        assert p0["lapsed"] == 1 and p0["max_cards"] == 4 and not p0["owes_draw"], va
        assert p0["cards"] == 4 and len(va["hand"]) == 4, va
        assert {"type": "draw"} not in va["legal"] and va["turn"] == 0, va
        assert {"seat": 0, "did": "lapse"} in va["events"], va["events"]
        assert {"seat": 1, "did": "draw"} in va["events"], va["events"]
        r = a.request("act", room=room, action={"type": "draw"})
        assert r["ok"] is False and r["error"]["code"] == "nothing_to_draw", r
        # the spectator's and B's views show it too
        assert b.ok("state", room=room)["view"]["players"][0]["lapsed"] == 1
        # Now A plays again and draws late, but before B has both played and drawn
        a.ok("act", room=room, action=first_play(va))
        vb = fresh(b, room, lambda v: v["turn"] == 1)
        b.ok("act", room=room, action=first_play(vb))
        a.ok("act", room=room, action={"type": "draw"})
        b.ok("act", room=room, action={"type": "draw"})
        va = fresh(a, room, lambda v: not v["players"][1]["owes_draw"]
                   and not v["players"][0]["owes_draw"])
        p0, p1 = va["players"]
        assert p0["lapsed"] == 1 and p0["max_cards"] == 4 and p0["cards"] == 4, va
        assert p1["lapsed"] == 0 and p1["max_cards"] == 5 and p1["cards"] == 5, va
        assert len(va["hand"]) == 4
    finally:
        srv.finish()


@test
def seqnum_draw_lapses_against_a_server_bot(exe):
    """A client that plays and never draws loses the card once the bot (next
    seat) has played and drawn; the spectator sees the lapse too."""
    srv = Server(exe, "--bot-delay", "5-10", "--turn-timer", "0")
    try:
        a = srv.connect("ann")
        room = a.ok("create", game="seqnum", players=3)["room"]
        w = srv.connect("watcher")
        w.ok("watch", room=room)
        a.ok("addbot", room=room)
        a.ok("addbot", room=room)
        va = fresh(a, room, lambda v: v["turn"] == 0)
        a.ok("act", room=room, action=first_play(va))
        va = fresh(a, room, lambda v: v["players"][0]["lapsed"] > 0, timeout=10)
        p0 = va["players"][0]
        assert p0["lapsed"] == 1 and p0["max_cards"] == 4 and p0["cards"] == 4, va
        assert not p0["owes_draw"] and {"type": "draw"} not in va["legal"], va
        events = va["events"]
        assert {"seat": 0, "did": "lapse"} in events and {"seat": 1, "did": "draw"} in events, \
            events
        vw = fresh(w, room, lambda v: v["players"][0]["lapsed"] == 1)
        assert vw["players"][0]["max_cards"] == 4 and "hand" not in vw
        r = a.request("act", room=room, action={"type": "draw"})
        assert r["ok"] is False and r["error"]["code"] == "nothing_to_draw", r
    finally:
        srv.finish()


@test
def seqnum_server_bots_never_lose_a_draw(exe):
    """A bot never forgets its draw: the draw after a play is the rest of the
    move (the game says at_once) and the server's bots take it without their
    reaction time, before any other seat's move due at the same time. Before,
    an all-bot table lost 2.4 draws a game at 5-40 ms; at --bot-delay 0, where
    every move falls due at once, the next seat played and drew first (tables
    of four random bots lost draws in two games of three). Every level listed
    by `games` at seats 1-3 (seat 0 is the greedy bot that replaces a person)
    at --bot-delay 0 (random, the level that lost most, six times), and random
    at 5-40 ms: every seat keeps its cards. (Every level at every seat, two to
    four seats, on the set clock: test_room.c.)"""
    for delay in ("0", "5-40"):
        srv = Server(exe, "--bot-delay", delay, "--turn-timer", "0")
        try:
            a = srv.connect("ann")
            games = {g["id"]: g for g in a.ok("games")["games"]}
            levels = [b["level"] for b in games["seqnum"]["bots"]]
            assert "random" in levels and "normal" in levels, levels
            w = srv.connect("watcher")
            for level in (levels + ["random"] * 5 if delay == "0" else ["random"]):
                room = a.ok("create", game="seqnum", players=4,
                            options={"max_turns": 120})["room"]
                w.ok("watch", room=room)
                for _ in range(3):
                    a.ok("addbot", room=room, strategy=level)
                a.ok("leave", room=room)  # a bot (greedy) takes seat 0
                w.event(is_ev("game_over", room), timeout=60)
                v = w.ok("state", room=room)["view"]
                lost = [p["lapsed"] for p in v["players"]]
                assert lost == [0, 0, 0, 0], (delay, level, v["players"])
                w.ok("leave", room=room)
        finally:
            srv.finish()


# ---------------------------------------------------------------- slap

SLAP_CARD = re.compile(r"^[RGBY](1[01]|[1-9])$")
SLAP_PRIVATE = ("seat", "hand", "legal")
# where RULES.md documents a face-up card
SLAP_FACE_UP = [re.compile(p) for p in (
    r"^/view/players/\d+/tops/[0-3]$",
    r"^/view/piles/\d+/top$",
    r"^/view/events/\d+/card$",
    r"^/view/events/\d+/cards/\d+$",
)]
PREFER = {"slap": 0, "play": 1, "turn": 2, "move": 3}


class SlapBot(threading.Thread):
    """A client bot on its own connection and thread: `delay` seconds after it
    could act (a state with legal actions, and no request of its own pending),
    it sends the first action of the latest "legal" in the order slap, play,
    turn, move."""

    def __init__(self, srv, name, delay):
        super().__init__(daemon=True)
        self.c = srv.connect(name)
        self.name = name
        self.delay = delay
        self.room = None
        self.view = None
        self.seq = 0
        self.pending = None
        self.ready_at = None
        self.over = None
        self.ok = {}      # action type -> accepted
        self.refused = {}  # error code -> count
        self.error = None
        self.spectator = False
        self.ids = 1 << 20  # above the ids harness requests used on this connection

    def run(self):
        try:
            self.loop()
        except BaseException as e:  # reported by the main thread
            self.error = e

    def send_act(self, now):
        legal = self.view.get("legal") or []
        if not legal:
            self.ready_at = None
            return
        a = min(legal, key=lambda x: PREFER.get(x["type"], 9))
        self.ids += 1
        self.pending = (self.ids, a["type"], self.seq)
        self.c.send({"cmd": "act", "id": self.ids, "room": self.room, "action": a})
        self.ready_at = None

    def loop(self):
        deadline = time.monotonic() + 60
        while not self.over:
            now = time.monotonic()
            assert now < deadline, "%s: no game_over within 60 s" % self.name
            if self.ready_at is not None and not self.pending and now >= self.ready_at:
                self.send_act(now)
            wait = 0.5 if self.ready_at is None else max(0.0, self.ready_at - now)
            r, _, _ = select.select([self.c.sock], [], [], wait)
            if not r:
                continue
            now = time.monotonic()
            for m in pump(self.c):
                self.handle(m, now)
            assert not self.c.closed, "%s: the server closed the connection" % self.name

    def handle(self, m, now):
        if m.get("ev") == "state" and m.get("room") == self.room:
            assert m["seq"] > self.seq, (self.seq, m["seq"])
            self.seq = m["seq"]
            self.view = m["view"]
            if not self.spectator and self.ready_at is None and not self.pending \
                    and self.view["legal"]:
                self.ready_at = now + self.delay
        elif m.get("ev") == "game_over" and m.get("room") == self.room:
            self.over = m
        elif "re" in m:
            assert self.pending and m.get("id") == self.pending[0], m
            typ = self.pending[1]
            if m["ok"]:
                self.ok[typ] = self.ok.get(typ, 0) + 1
            else:
                code = m["error"]["code"]
                # refusals are races lost to a state that moved on
                assert self.seq > self.pending[2] or code in ("too_late", "pile_taken"), \
                    "%s: %r refused on an unchanged state: %r" % (self.name, typ, m)
                self.refused[code] = self.refused.get(code, 0) + 1
            self.pending = None
            if self.view and self.view["legal"]:
                self.ready_at = now + self.delay


def slap_check_face_up_only(client, seat, room):
    """Card names only where a face-up card is documented; hand always [];
    a column's top shown only on a non-empty column; 132 cards in all."""
    n = 0
    for m in client.all:
        if m.get("ev") != "state":
            cards = [(p, s) for p, s in strings(m) if SLAP_CARD.match(s)]
            assert not cards, "cards in %r" % m
            continue
        for p, s in strings(m):
            if SLAP_CARD.match(s):
                assert any(r.match(p) for r in SLAP_FACE_UP), \
                    "seat %r received card %s at %s, not a face-up place: %r" % (seat, s, p, m)
        v = m["view"]
        if seat is None:
            assert not (set(SLAP_PRIVATE) & set(v)), v
        else:
            assert v["seat"] == seat and v["hand"] == [], v
        total = v["box"] + v["out"]
        for pl in v["players"]:
            for size, top in zip(pl["sizes"], pl["tops"]):
                assert size > 0 or top is None, pl
            assert pl["cards"] == pl["draw"] + sum(pl["sizes"]), pl
            total += pl["cards"]
        for k in v["piles"]:
            assert (k["top"] is None) == (k["cards"] == 0), k
            total += k["cards"]
        assert total == 132, "%d cards in view %r" % (total, v)
        n += 1
    return n


def slap_game(exe, delays, options, seed, server_bots=0, srv_args=()):
    """Python bots (name, reaction in s) at seats 0.., then server bots; a
    spectator. Plays to game_over on the deal of --seed `seed` (what happens
    next is the bots' race, in real time), runs the hidden-card and spectator
    checks; returns (bots, result)."""
    srv = Server(exe, "--seed", str(seed), *srv_args)
    bots = []
    try:
        bots = [SlapBot(srv, name, d) for name, d in delays]
        n = len(bots) + server_bots
        room = bots[0].c.ok("create", game="slap", players=n, options=options)["room"]
        spec = SlapBot(srv, "watcher", 0)
        spec.spectator = True
        spec.c.ok("watch", room=room)
        for i, bot in enumerate(bots[1:], 1):
            assert bot.c.ok("join", room=room, seat=i)["seat"] == i
        for i in range(server_bots):
            assert bots[0].c.ok("addbot", room=room)["seat"] == len(bots) + i
        for bot in bots + [spec]:
            bot.room = room
            for m in bot.c.events:  # events read with the replies above
                bot.handle(m, time.monotonic())
            bot.c.events = []
        t0 = time.monotonic()
        for bot in bots + [spec]:
            bot.start()
        for bot in bots + [spec]:
            bot.join(70)
            assert not bot.is_alive(), "%s still running" % bot.name
        for bot in bots + [spec]:
            if bot.error:
                raise bot.error
        elapsed = time.monotonic() - t0
        result = spec.over["result"]
        for bot in bots:
            assert bot.over["result"] == result, (bot.name, bot.over, result)
        for bot in bots:
            print("  %-6s %3d ms: accepted %r, refused %r"
                  % (bot.name, bot.delay * 1000, bot.ok, bot.refused))
        print("  %.1fs, result %r" % (elapsed, result))
        assert result["rounds"] >= 1 and result["winners"], result
        assert sum(bot.ok.get("slap", 0) for bot in bots) >= 1, "no client ever slapped"
        checked = sum(slap_check_face_up_only(b.c, i, room) for i, b in enumerate(bots))
        checked += slap_check_face_up_only(spec.c, None, room)
        compared = sum(check_public_equals_spectator(b.c, spec.c, room, SLAP_PRIVATE)
                       for b in bots)
        for i, b in enumerate(bots):
            check_hand_only_in_own_view(b.c, i)
        check_hand_only_in_own_view(spec.c, None)
        print("  %d messages checked for face-down cards, %d views compared with the "
              "spectator's" % (checked, compared))
        assert compared > 50, compared
        return bots, result
    finally:
        for bot in bots:
            bot.c.close()
        srv.finish()


@test
def slap_realtime_bots_fast_beats_slow_and_face_down_stays_hidden(exe):
    bots, result = slap_game(exe, [("fast", 0.02), ("medium", 0.06), ("slow", 0.15)],
                             {"go_ms": 150, "stall_ms": 250, "max_rounds": 4}, seed=1)
    plays = [bot.ok.get("play", 0) for bot in bots]
    assert plays[0] > plays[2], "the fast bot made fewer plays than the slow one: %r" % plays
    # 20 ms against 150 ms: the fast bot gets rid of more cards (it also won
    # every one of a dozen trial runs, against the 60 ms bot too)
    assert result["cards"][0] < result["cards"][2], "the fast bot holds more cards: %r" % result


@test
def slap_instant_bots_race_beside_a_server_bot(exe):
    """Two client bots that react at once (their actions collide on the piles
    and in the slap race) and a built-in bot: refusals are only races lost
    (the harness bot asserts it), and the game ends."""
    slap_game(exe, [("zero", 0.0), ("five", 0.005)],
              {"go_ms": 100, "stall_ms": 150, "max_rounds": 3}, seed=2,
              server_bots=1, srv_args=("--bot-delay", "5-15"))


@test
def slap_turn_timer_measures_each_seats_inactivity(exe):
    """In a simultaneous game the turn timer restarts with every action of a
    seat: two bots acting every 50 ms never time out under a 300 ms timer
    (before, the timer ran from when the game began waiting on a seat and
    fired on players who never stopped playing)."""
    bots, _ = slap_game(exe, [("ann", 0.05), ("bob", 0.05)],
                        {"go_ms": 100, "stall_ms": 150, "max_rounds": 2}, seed=3,
                        srv_args=("--turn-timer", "300ms"))
    for bot in bots:
        timeouts = [m for m in bot.c.all if m.get("ev") == "timeout"]
        assert not timeouts, "%s: the timer fired on an active table: %r" % (bot.name, timeouts)


if __name__ == "__main__":
    run_tests(sys.argv)
