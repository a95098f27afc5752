#!/usr/bin/env python3
"""make_corpus.py — write the seed corpus of tests/fuzz (corpus/<harness>/).

The seeds are small, meaningful inputs: real protocol lines (protocol/PROTOCOL.md),
telnet negotiation, CRLF, long lines, bad JSON, and game sessions. Each
harness's input layout is described at the top of its .c file; this script
is its only other copy. Running it rewrites the seed files
(all s-* files are replaced) and leaves other files (inputs a fuzzer found
and someone kept) alone. Inputs that fail go to crashes/<harness>/, not here.

    python3 tests/fuzz/make_corpus.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- lines ---

SESSION = [
    "state",
    "hello dora",
    "games",
    "create 233 2 target=30",
    "addbot",
    "take",
    '{"cmd":"act","id":7,"action":{"type":"discard","card":"G1"}}',
    "draw",
    "gift 1",
    "discard B2",
    "discard pink",
    "say good game",
    "leave",
    "quit",
]

LINES = SESSION + [
    # commands, inline
    "hello alice c4dee1d253f224c0406d4aad1257fa4b",
    "create 233 4 private target=500",
    "create seqnum 4 teams=2 max_turns=40",
    "create slap 3 go_ms=0 stall_ms=10",
    "create aspoint3 rounds=5 packs=2",
    "join r1 2",
    "join p0a1b2c3d4e",
    "watch 7",
    "addbot strategy=greedy:500",
    "addbot 3 strategy=random:200-800",
    "rooms 10 20 game=233 status=playing",
    "help join",
    "help",
    "ping",
    "say   hello\tworld, all  ",
    "say caf\u00e9 \u2603 \U0001f0a1",
    # actions, inline
    "claim cards=Y3,Y3",
    "claim final=true",
    "discard card=Y3 declare=true",
    "lay cards=B2,B2,B2,B2",
    "gift to=2",
    "give 2",
    "act leave",
    'act {"type":"x","o":{"a":1}}',
    "act draw room=4",
    "pick card=down",
    "swap 9H",
    "keep",
    "play card=7D cell=45",
    "trade card=JS",
    "pass",
    "play column=2 pile=1",
    "play 2 1",
    "move column=0 to=3",
    "slap pile=0",
    "turn column=4",
    "discard Y3, , ,,",
    "x a=1 a=2",
    "x type=draw",
    "fly 007 -0 -3 99999999999999999999 true false null key=",
    # JSON requests
    '{"cmd":"hello","name":"bob","id":1}',
    '{"cmd":"create","game":"233","players":4,"private":true,"options":{"target":500}}',
    '{"cmd":"join","room":7,"seat":0,"id":"x"}',
    '{"cmd":"act","room":"1","action":{"type":"claim","cards":["Y3","Y3"]}}',
    '{"cmd":"act","action":{"type":"play","args":[2,1]},"id":[1,{"a":null}]}',
    '{"cmd":"say","text":"line\\nbreak \\u001b[2J","room":null}',
    '{"cmd":"state","room":-1}',
    '{"cmd":"join","room":"1","seat":4.0}',
    '{"cmd":"nope"}',
    '{"id":5}',
    '{"cmd":5}',
    '{"cmd":"ping","cmd":"ping"}',
    '{"cmd":"ping"} x',
    '{"cmd":"ping","x":9223372036854775808}',
    '{"cmd":"hello","name":"\\ud800"}',
    '{"cmd":"hello","name":"a\\u0000b"}',
    '[{"cmd":"ping"}]',
    '  \t{"cmd":"ping","re":"x","ev":"y","ok":false}  ',
    "{" * 40 + "}" * 40,
    '{"cmd":"act","action":' + "[" * 31 + "]" * 31 + "}",
    '{"cmd":"act","action":{"type":"' + "t" * 33 + '"}}',
    '{"cmd":"act","action":{"type":"x y","room":1,"r":0.5}}',
    '{"cmd":"help","command":"join"}',
]

BAD_BYTES = [
    b"hello \xff\xfe",
    b"hello a\x00b",
    b'{"cmd":"ping"\x00}',
    b"say \x1b[31mred\x07",
    b"hello \xc0\xaf",
    b"hello \xed\xa0\x80",
    b"   \t  ",
    b"",
    b"GET / HTTP/1.1",
    b"hello " + b"n" * 40,
    b"say " + "\u00e9".encode() * 600,
]


def write(harness, name, data):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "s-" + name), "wb") as f:
        f.write(data)


def envelope():
    for i, line in enumerate(LINES):
        write("envelope", "%02d" % i, line.encode())
    for i, b in enumerate(BAD_BYTES):
        write("envelope", "bytes-%02d" % i, b)


# -------------------------------------------------------------- framing ---

IAC, WILL, WONT, DO, DONT, SB, SE, NOP = 255, 251, 252, 253, 254, 250, 240, 241


def framing_input(stream, max_line=0, pieces=(), per_feed=0):
    """The header of fuzz_framing.c, then the stream."""
    if max_line == 0:
        head = bytes([0])
    elif max_line < 64:
        head = bytes([max_line])
    elif max_line <= 256:
        head = bytes([64, max_line - 1])
    else:
        head = bytes([128]) + struct.pack(">H", max_line - 1)
    head += bytes([len(pieces)]) + bytes(pieces) + bytes([per_feed])
    return head + stream


def framing():
    session = "".join(l + "\n" for l in SESSION).encode()
    crlf = "".join(l + "\r\n" for l in SESSION).encode()
    telnet = (bytes([IAC, DO, 1, IAC, WILL, 3, IAC, SB, 24, 1]) + b"xterm" +
              bytes([IAC, SE]) + b"hel" + bytes([IAC, NOP]) + b"lo ann\r\n" +
              bytes([IAC, IAC]) + b"\r\n" + bytes([IAC, SB, IAC, IAC, IAC, SE]) + b"ping\n")
    cases = {
        "session": framing_input(session),
        "session-bytewise": framing_input(session, pieces=[1]),
        "session-pieces": framing_input(session, pieces=[3, 7, 1, 20], per_feed=2),
        "crlf": framing_input(crlf, pieces=[5, 2]),
        "crlf-split": framing_input(b"ping\r" + b"\nping\r\r\n\r\n\r", pieces=[5, 1]),
        "telnet": framing_input(telnet),
        "telnet-split": framing_input(telnet, pieces=[1, 2, 3]),
        "telnet-unfinished": framing_input(bytes([IAC, SB]) + b"never ends\n" + bytes([IAC])),
        "nul": framing_input(b"hello a\x00b\n\x00\n{\"cmd\":\x00}\n", pieces=[4]),
        "http": framing_input(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
        "http-pri": framing_input(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        "exact-limit": framing_input(b"a" * 16 + b"\n" + b"b" * 16 + b"\r\n", max_line=16),
        "over-limit": framing_input(b"ok\n" + b"c" * 17 + b"\nnever\n", max_line=16),
        "over-limit-cr": framing_input(b"d" * 16 + b"\r" + b"e\n", max_line=16, pieces=[8, 1]),
        "cr-at-limit": framing_input(b"d" * 16 + b"\r", max_line=16),
        "limit-1": framing_input(b"a\nbb\n\n\r\n", max_line=1),
        "limit-200": framing_input(b"x" * 199 + b"\n" + b"y" * 202 + b"\n", max_line=200,
                                   pieces=[100, 3]),
        "long-line": framing_input(b"say " + b"z" * 3000 + b"\n", max_line=2048,
                                   pieces=[241, 17]),
        "many-lines": framing_input(b"ping\n" * 300, pieces=[250], per_feed=3),
        "empty-lines": framing_input(b"\n\n \n\t\n\r\n"),
        "no-newline": framing_input(b"hello ann"),
        "lone-cr": framing_input(b"a\rb\r\rc\n", max_line=3),
        "iac-in-long": framing_input(b"f" * 10 + bytes([IAC, DO, 5]) * 4 + b"f" * 6 + b"\n",
                                     max_line=16, pieces=[2]),
        "utf8": framing_input("say caf\u00e9 \u2603\n".encode() * 3, pieces=[6]),
        "default-limit": framing_input(b"w" * 8193 + b"\n"),
    }
    for name, data in cases.items():
        write("framing", name, data)


# ---------------------------------------------------------------- games ---

GAMES = ["233", "aspoint3", "seqnum", "slap"]  # game_registry() order


def games_input(game, seats_index, steps, options=0, seed=1, start=0, extra=b""):
    """The header of fuzz_games.c, then the steps (bytes)."""
    head = bytes([GAMES.index(game), seats_index, options]) + extra + struct.pack(">Q", seed)
    head += bytes([0]) if start == 0 else bytes([1]) + struct.pack(">I", start)
    return head + steps


def listed(seat_byte=0, index=0, dt=70):
    """A listed action: a waiting seat that can play (seat byte odd), its index-th."""
    return bytes([dt, 0, seat_byte | 1, index])


def json_action(text, seat_byte=1, dt=64):
    t = text.encode()
    return bytes([dt, 14, seat_byte, len(t)]) + t


def games():
    def play(n, spread=7):
        return b"".join(listed(index=(i * spread) % 5, dt=64 + i % 90) for i in range(n))

    hostile = bytes([13, 0, 25])  # a byte per option, in default_options' order
    cases = {
        "233-2-play": games_input("233", 0, play(120)),
        "233-4-play": games_input("233", 2, play(200, 3), seed=7),
        "233-6-small": games_input("233", 4, play(150, 5), options=2, extra=bytes(8), seed=3),
        "233-2-json": games_input("233", 0, listed() + json_action('{"type":"draw"}') +
                                  json_action('{"type":"discard","card":"Y3"}') +
                                  json_action('{"type":"take"}') +
                                  json_action('{"type":"claim","cards":["Y3","Y3"]}') +
                                  json_action('{"type":"gift","to":1}') +
                                  json_action('{"type":"discard","args":["pink"]}') +
                                  json_action('{"type":"lay","cards":["B2","B2","B2","B2"]}') +
                                  play(40)),
        "233-2-race": games_input("233", 0, b"".join(listed(seat_byte=2 * s, dt=0)
                                                     for s in range(2)) * 30),
        "233-3-garbage": games_input("233", 1, b"".join(
            listed(index=i % 3) + bytes([70, 13, 1, i % 8, i, 3, 7, i]) +
            bytes([64, 11, 3, 1, i % 3, 0, 2]) + bytes([64, 9, 1, 1, 0, 0, 0, i])
            for i in range(30))),
        "233-2-hostile": games_input("233", 0, play(40), options=3, extra=hostile),
        "233-2-timeouts": games_input("233", 0, b"".join(bytes([255, 15, 0]) + listed()
                                                         for _ in range(30))),
        "233-2-bots": games_input("233", 0, b"".join(bytes([80, 8, 1, i % 4, 0, 0, 0, i])
                                                     for i in range(80))),
        "233-2-defaults": games_input("233", 0, b"".join(bytes([254, 7, 1]) + listed()
                                                         for _ in range(40))),
        "aspoint3-play": games_input("aspoint3", 0, play(120)),
        "aspoint3-json": games_input("aspoint3", 0, json_action('{"type":"pick","card":"down"}') +
                                     json_action('{"type":"swap","card":"9H"}') +
                                     json_action('{"type":"keep"}') + play(60)),
        "aspoint3-hostile": games_input("aspoint3", 0, play(60), options=3, extra=hostile),
        "seqnum-2-play": games_input("seqnum", 0, play(200)),
        "seqnum-4-teams": games_input("seqnum", 2, play(200, 3), options=1, extra=bytes(8)),
        "seqnum-6-play": games_input("seqnum", 3, play(150)),
        "seqnum-json": games_input("seqnum", 1, json_action('{"type":"draw"}') +
                                   json_action('{"type":"play","card":"7D","cell":45}') +
                                   json_action('{"type":"trade","card":"JS"}') +
                                   json_action('{"type":"pass"}') + play(80)),
        "slap-2-play": games_input("slap", 0, play(200)),
        "slap-4-race": games_input("slap", 2, b"".join(listed(seat_byte=2 * (i % 4), dt=i % 3)
                                                       for i in range(200))),
        "slap-3-idle": games_input("slap", 1, b"".join(bytes([255, 15, 0]) + listed(dt=0)
                                                       for _ in range(60))),
        "slap-json": games_input("slap", 0, json_action('{"type":"play","column":0,"pile":1}') +
                                 json_action('{"type":"play","args":[2,1]}') +
                                 json_action('{"type":"move","column":1,"to":2}') +
                                 json_action('{"type":"slap","pile":0}') +
                                 json_action('{"type":"turn","column":3}') + play(100)),
        "slap-small": games_input("slap", 0, play(200), options=2, extra=bytes(8), seed=11),
        "slap-hostile": games_input("slap", 1, play(80), options=3, extra=hostile * 2),
        "resample": games_input("233", 1, b"".join(listed() + bytes([64, 15, 1, i % 4]) +
                                                   bytes(8) for i in range(30))),
    }
    for name, data in cases.items():
        write("games", name, data)


# ---------------------------------------------------------------- http ---

def http_input(data, pieces=()):
    """The header of fuzz_http.c (a count and piece sizes), then the bytes."""
    return bytes([len(pieces)]) + bytes(pieces) + data


def http():
    ws = (b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:7233\r\nUpgrade: websocket\r\n"
          b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
          b"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:7233\r\n\r\n")
    cases = {
        "websocket": http_input(ws),
        "websocket-pieces": http_input(ws + b"\x81\x84abcd", pieces=[1, 7, 30, 2]),
        "page": http_input(b"GET /app.js?v=2 HTTP/1.1\r\nHost: x\r\n\r\n"),
        "metrics": http_input(b"\r\n\nHEAD /metrics HTTP/1.0\nAccept: */*\n\n"),
        "proxied": http_input(b"GET / HTTP/1.1\r\nX-Forwarded-For: 1.2.3.4, 10.0.0.1\r\n"
                              b"X-Forwarded-For: ::1\r\nContent-Length: 0\r\n\r\n"),
        "absolute": http_input(b"GET http://h:1/ws/x?y=1 HTTP/1.1\r\n\r\n"),
        "bad": http_input(b"GET / HTTP/1.1\r\nNo colon\r\n folded\r\n: v\r\n\r\n"),
        "many": http_input(b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 70 + b"\r\n"),
        "endless": http_input(b"GET / HTTP/1.1\r\n" + b"X-Slow: 1\r\n" * 30, pieces=[9]),
    }
    for name, data in cases.items():
        write("http", name, data)


if __name__ == "__main__":
    for h in ("envelope", "framing", "games", "http"):
        d = os.path.join(HERE, "corpus", h)
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if name.startswith("s-"):
                os.remove(os.path.join(d, name))
    envelope()
    framing()
    games()
    http()
