#!/usr/bin/env python3
"""Check a finished tapis game's deal (docs/FAIRNESS.md), standard library only.

    verify.py [HOST:PORT] GAME_ID [--commit HEX]   fetch the record (`replay ID`)
    verify.py --record FILE [--commit HEX]         a record saved as JSON
    verify.py --vectors FILE                       the test vectors: recompute
                                                   the cases of FILE, print JSON

It checks, apart from the server's C code:

1. the server seed hashes (BLAKE2b-256) to the commitment the record shows,
   and to the one you saw in the `room` events before the deal (--commit);
2. the players' seeds are the journal's `seed` entries, all before `start`;
3. the key (keyed BLAKE2b over "tapis-deal-v1", the room, the seats' seeds)
   and its ChaCha20 stream give the game's first deck (Fisher-Yates over the
   game's fresh deck), which it prints;
4. the game replayed by its rules, one module a game in tapis_rules/ beside
   this file (all four games; a port of each core/<game>/RULES.md, written
   apart from the C core): the options are the game's, the game is dealt
   from the stream and every later shuffle drawn from it in the order the
   game makes them, every `act` entry is checked to be legal for its seat
   and applied, every `tick` settles something due, and the result is the
   record's.

Exit status 0 when every check holds, 1 naming the first difference (the
entry's number, the move, what the rules say; or the field of the result,
with the recorded value and the one the rules give).
"""
import hashlib
import json
import socket
import struct
import sys

import tapis_rules

LABEL = b"tapis-deal-v1"
SEED_MAX = 64

# ---------------------------------------------------------------------------
# ChaCha20 (the original cipher: 64-bit counter, 64-bit nonce of zeros)
# ---------------------------------------------------------------------------

MASK = 0xFFFFFFFF


def _rotl(x, n):
    return ((x << n) & MASK) | (x >> (32 - n))


def _quarter(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK
    s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK
    s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = _rotl(s[b] ^ s[c], 7)


def chacha20_block(key, counter):
    """64 bytes of keystream: block `counter` under a 32-byte key, nonce 0."""
    state = list(struct.unpack("<4I", b"expand 32-byte k")) + list(struct.unpack("<8I", key))
    state += [counter & MASK, counter >> 32, 0, 0]
    s = state[:]
    for _ in range(10):
        _quarter(s, 0, 4, 8, 12)
        _quarter(s, 1, 5, 9, 13)
        _quarter(s, 2, 6, 10, 14)
        _quarter(s, 3, 7, 11, 15)
        _quarter(s, 0, 5, 10, 15)
        _quarter(s, 1, 6, 11, 12)
        _quarter(s, 2, 7, 8, 13)
        _quarter(s, 3, 4, 9, 14)
    return struct.pack("<16I", *[(x + y) & MASK for x, y in zip(s, state)])


class Stream:
    """The game's generator: the keystream read as little-endian 32-bit words."""

    def __init__(self, key):
        self.key, self.block, self.buf = key, 0, b""

    def word(self):
        if not self.buf:
            self.buf = chacha20_block(self.key, self.block)
            self.block += 1
        w, self.buf = struct.unpack("<I", self.buf[:4])[0], self.buf[4:]
        return w

    def below(self, n):
        """Uniform in [0, n): words at or above 2^32 - 2^32 % n are drawn again."""
        limit = (1 << 32) - (1 << 32) % n
        while True:
            u = self.word()
            if u < limit:
                return u % n

    def shuffle(self, deck):
        """Fisher-Yates: for i = n-1 down to 1, swap deck[i] and deck[below(i + 1)]."""
        deck = list(deck)
        for i in range(len(deck) - 1, 0, -1):
            j = self.below(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return deck


# ---------------------------------------------------------------------------
# The rule
# ---------------------------------------------------------------------------

def commitment(server_seed):
    return hashlib.blake2b(server_seed, digest_size=32).digest()


def _lp(b):
    return struct.pack("<I", len(b)) + b


def deal_key(server_seed, room, seeds):
    """BLAKE2b-256, keyed with the server seed, of the label, lp(room),
    u32(seats) and lp(seed) of each seat in seat order."""
    msg = LABEL + _lp(room.encode()) + struct.pack("<I", len(seeds))
    msg += b"".join(_lp(s.encode()) for s in seeds)
    return hashlib.blake2b(msg, key=server_seed, digest_size=32).digest()


# Each game's fresh deck, as its core builds it before the first shuffle
# (card codes: core/<game>/RULES.md and its cards' files).
COPIES_233 = [4] * 24 + [5] * 4 + [6, 2, 5, 5, 6]   # 33 kinds: core/233/cards.h's order
FRESH = {
    "233": [c for c, k in enumerate(COPIES_233) for _ in range(k)],
    "aspoint3": list(range(52)),
    "seqnum": list(range(96)) + [96, 96, 97, 97],
    "slap": [i % 44 for i in range(132)],
}


def first_deck(game, key):
    return Stream(key).shuffle(FRESH[game])


# ---------------------------------------------------------------------------
# A record
# ---------------------------------------------------------------------------

class Differs(Exception):
    pass


def check(record, commit_seen=None):
    """The checks of the module's doc; returns what was found, or raises Differs."""
    deal = record.get("deal")
    if not isinstance(deal, dict):
        raise Differs("the record has no deal: dealt before deals were provable")
    if deal.get("version") != 1:
        raise Differs("deal.version is %r, not 1" % deal.get("version"))
    try:
        server_seed = bytes.fromhex(deal.get("server_seed", ""))
        commit = bytes.fromhex(deal.get("commit", ""))
    except ValueError:
        raise Differs("deal.server_seed or deal.commit is not hex")
    if len(server_seed) != 32 or len(commit) != 32:
        raise Differs("deal.server_seed or deal.commit is not 32 bytes")
    if commitment(server_seed) != commit:
        raise Differs("deal.commit %s is not BLAKE2b-256(server_seed) = %s"
                      % (commit.hex(), commitment(server_seed).hex()))
    if commit_seen is not None and commit_seen.lower() != commit.hex():
        raise Differs("deal.commit %s is not the commitment seen before the deal, %s"
                      % (commit.hex(), commit_seen))
    players = record.get("players")
    seeds = [""] * players
    started = False
    for e in record.get("actions", []):
        if e.get("kind") == "start":
            started = True
        elif e.get("kind") == "seed":
            text = (e.get("data") or {}).get("seed")
            if started:
                raise Differs("entry %s: a seed after the start" % e.get("n"))
            if not isinstance(text, str) or len(text.encode()) > SEED_MAX:
                raise Differs("entry %s: not a seed" % e.get("n"))
            if not 0 <= e.get("seat", -1) < players:
                raise Differs("entry %s: no seat %s" % (e.get("n"), e.get("seat")))
            seeds[e["seat"]] = text
    key = deal_key(server_seed, record["id"], seeds)
    game = record.get("game")
    deck = first_deck(game, key) if game in FRESH else None
    steps, game = replay(record, key)
    return {"commit": commit.hex(), "seeds": seeds, "key": key.hex(), "first_deck": deck,
            "steps": steps, "game": game}


def first_difference(path, want, got):
    """The first place where the recorded value `want` and the rules' `got` differ."""
    if isinstance(want, dict) and isinstance(got, dict):
        for k in list(want) + [k for k in got if k not in want]:
            if want.get(k) != got.get(k):
                return first_difference("%s.%s" % (path, k), want.get(k), got.get(k))
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got)):
            if a != b:
                return first_difference("%s[%d]" % (path, i), a, b)
    return "%s is %s in the record, the rules give %s" % (path, json.dumps(want), json.dumps(got))


def replay(record, key):
    """Every entry of the journal applied by the game's rules (tapis_rules/),
    from a game dealt by the key's stream; returns the number of moves and
    ticks applied and the game (its `seen` counts the rules that came into
    play), or (None, None) when there are no rules here for the game."""
    rules = tapis_rules.load(record.get("game"))
    if rules is None:
        return None, None
    players = record.get("players")
    if not isinstance(players, int) or not 1 <= players <= 8:
        raise Differs("players is %r" % (players,))
    options = record.get("options") or {}
    for k, v in options.items():
        if k not in rules.DEFAULTS or type(v) is not type(rules.DEFAULTS[k]):
            raise Differs("options: %s has no option %s=%s" % (record["game"], k, json.dumps(v)))
    try:
        game = rules.Game(players, options, Stream(key))
    except tapis_rules.Illegal as x:
        raise Differs("the rules refuse the table: %s" % x)
    last, clock, steps = 0, None, 0
    for e in record.get("actions", []):
        n, kind, seat, at = e.get("n"), e.get("kind"), e.get("seat"), e.get("at")
        if n != last + 1:
            raise Differs("entry %d is missing (found %s)" % (last + 1, n))
        last = n
        if kind in ("act", "tick"):
            if not isinstance(at, int) or (clock is not None and at < clock):
                raise Differs("entry %d: time goes back (%s < %s)" % (n, at, clock))
            clock = at
            steps += 1
        if kind == "act":
            if not isinstance(seat, int) or not 0 <= seat < players:
                raise Differs("entry %d (act): no seat %s" % (n, seat))
            try:
                game.apply(seat, e.get("data"), at)
            except tapis_rules.Illegal as x:
                raise Differs("entry %d (act seat %d: %s): the rules refuse it: %s"
                              % (n, seat, json.dumps(e.get("data")), x))
        elif kind == "tick":
            if not game.tick(at):
                raise Differs("entry %d (tick at %s): nothing was due" % (n, at))
        elif kind not in ("seat", "seed", "start", "race"):
            raise Differs("entry %d: unknown kind %r" % (n, kind))
    if not game.over():
        raise Differs("the journal ends before the game does (entry %d)" % last)
    got = game.result()
    if got != record.get("result"):
        raise Differs("the result is not the recorded one: "
                      + first_difference("result", record.get("result"), got))
    return steps, game


def fetch(addr, game_id):
    host, _, port = addr.rpartition(":")
    with socket.create_connection((host or "127.0.0.1", int(port)), timeout=10) as s:
        f = s.makefile("rw", encoding="utf-8", newline="\n")
        for line in ({"cmd": "hello", "name": "verify-py"},
                     {"cmd": "replay", "game_id": game_id}, {"cmd": "quit"}):
            f.write(json.dumps(line) + "\n")
        f.flush()
        for line in f:
            msg = json.loads(line)
            if msg.get("re") == "replay":
                if not msg.get("ok"):
                    raise Differs("replay %s: %s" % (game_id, msg["error"]["code"]))
                return msg["record"]
    raise Differs("no reply to replay %s" % game_id)


def vectors(path):
    """The cases of FILE (deal_vectors' output) recomputed here, as JSON."""
    with open(path, encoding="utf-8") as f:
        cases = json.load(f)["vectors"]
    out = []
    for c in cases:
        server_seed = bytes.fromhex(c["server_seed"])
        key = deal_key(server_seed, c["room"], c["seeds"])
        st = Stream(key)
        stream = b"".join(struct.pack("<I", st.word()) for _ in range(16))
        out.append({"server_seed": c["server_seed"], "room": c["room"], "seeds": c["seeds"],
                    "commit": commitment(server_seed).hex(), "key": key.hex(),
                    "stream": stream.hex(), "fresh": FRESH,
                    "first_decks": {g: first_deck(g, key) for g in FRESH}})
    return {"version": LABEL.decode(), "vectors": out}


def main(argv):
    args, commit_seen, record_file, record = [], None, None, {}
    it = iter(argv)
    for a in it:
        if a == "--commit":
            commit_seen = next(it, None)
        elif a == "--record":
            record_file = next(it, None)
        elif a == "--vectors":
            print(json.dumps(vectors(next(it)), separators=(",", ":")))
            return 0
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        elif a.startswith("-"):
            print("verify.py: unknown option %s (verify.py --help)" % a, file=sys.stderr)
            return 2
        else:
            args.append(a)
    try:
        if record_file:
            with open(record_file, encoding="utf-8") as f:
                record = json.load(f)
            if not isinstance(record, dict):
                raise Differs("the file holds no record (a JSON object)")
            record = record.get("record", record)
        elif len(args) in (1, 2):
            record = fetch(args[0] if len(args) == 2 else "127.0.0.1:7233", args[-1])
        else:
            print(__doc__, file=sys.stderr)
            return 2
        found = check(record, commit_seen)
    except Differs as e:
        rid = record.get("id") if isinstance(record, dict) else None
        print("verify.py: game %s: %s" % (rid or (args[-1] if args else "?"), e),
              file=sys.stderr)
        return 1
    except (OSError, ValueError) as e:  # no server there, an unreadable file or record
        print("verify.py: %s" % e, file=sys.stderr)
        return 2
    print("game %s (%s): the server seed matches commit %s" % (record["id"], record["game"],
                                                               found["commit"]))
    print("seeds by seat: %s" % json.dumps(found["seeds"], ensure_ascii=False))
    print("key: %s" % found["key"])
    if found["first_deck"] is not None:
        print("first deck (card codes, in array order): %s" % found["first_deck"])
    if found["steps"] is None:
        print("no rules here for %s: tapis verify %s replays it" % (record["game"], record["id"]))
    else:
        print("verified: %d moves and ticks replayed by the rules to the recorded result %s"
              % (found["steps"], json.dumps(record["result"], separators=(",", ":"))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
