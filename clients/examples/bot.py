#!/usr/bin/env python3
"""bot.py -- a complete tapis bot in Python, standard library only.

Run a server (build/server/tapisd), then:

    python3 clients/examples/bot.py [HOST:PORT] [--players 2] [--games 1] [--target 233]

The bot opens a 233 table, fills the other seats with server bots, and plays
its own seat until the game is over. It shows the whole protocol a bot needs:

  * one JSON object per line, both ways (protocol/PROTOCOL.md);
  * every request gets exactly one reply {"re": ..., "ok": ...}, in order;
  * events {"ev": ...} arrive at any time, between replies;
  * a "state" event carries your view, and view["legal"] lists every action
    you may play now: send one back unchanged and you never play illegally;
  * the server pings ({"ev": "ping", "n": N}); answering at once with
    {"cmd": "pong", "n": N} lets it measure your round trip, which races
    credit you, and an act that names the state it answers ("seq") is
    settled by your reaction time from that state.

Its strategy is the simplest one that works: a random legal action. Change
choose() to do better (core/233/RULES.md explains the game).
"""
import json
import random
import socket
import sys


class Connection:
    """A line-based JSON connection to tapisd."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=60)
        self.buf = b""

    def send(self, **msg):
        # Compact JSON plus "\n": one request per line.
        self.sock.sendall(json.dumps(msg).encode() + b"\n")

    def receive(self):
        # Read until a whole line is buffered, then decode it.
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the server closed the connection")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)


def choose(view):
    """Pick one of the legal actions (None when there is nothing to do)."""
    legal = view.get("legal") or []
    # Winning beats everything: declare, or claim the discard that completes
    # a winning combination. Otherwise, any legal action at random.
    for action in legal:
        if action["type"] == "declare" or action.get("declare") or action.get("final"):
            return action
    return random.choice(legal) if legal else None


def play(conn, players, options):
    """Open a table, seat server bots, play until game_over; return the result."""
    conn.send(cmd="create", game="233", players=players, options=options)
    room = seat = None
    acting = False      # True while our act waits for its reply
    view = None         # a view not yet acted on
    last = None         # the latest view, to try again after a refusal
    seq = 0             # the latest state's number: our act answers it
    while True:
        msg = conn.receive()

        if "re" in msg:                          # a reply to one of our requests
            if msg["re"] == "create":
                if not msg["ok"]:
                    raise RuntimeError(msg["error"])
                room, seat = msg["room"], msg["seat"]   # the creator is seated
                for _ in range(players - 1):     # one addbot per free seat
                    conn.send(cmd="addbot", room=room)
            elif msg["re"] == "pong":
                pass                             # it only measured the round trip
            elif msg["re"] == "act":
                acting = False
                # A refusal is normal in a real-time game (too_late: another
                # player was faster). We choose again from the latest view.
                if not msg["ok"]:
                    if msg["error"]["code"] in ("bad_request", "bad_json"):
                        raise RuntimeError(msg["error"])
                    view = view or last
            elif not msg["ok"]:
                raise RuntimeError(msg["error"])

        elif msg.get("ev") == "ping":            # answer at once: the round trip
            conn.send(cmd="pong", n=msg["n"])

        elif msg.get("ev") == "state" and msg.get("room") == room:
            view = last = msg["view"]            # what we may see, and our legal moves
            seq = msg["seq"]

        elif msg.get("ev") == "game_over" and msg.get("room") == room:
            conn.send(cmd="leave", room=room)
            return msg["result"], seat

        # Other events (room, chat, join...) need nothing from a bot.

        # One action at a time: wait for the reply before sending the next.
        if view is not None and not acting:
            action = choose(view)
            view = None                          # decide once per view
            if action is not None:
                conn.send(cmd="act", room=room, action=action, seq=seq)
                acting = True


def main():
    address = "127.0.0.1:7233"
    players, games, options = 2, 1, {}
    args = sys.argv[1:]
    while args:
        arg = args.pop(0)
        if arg == "--players":
            players = int(args.pop(0))
        elif arg == "--games":
            games = int(args.pop(0))
        elif arg == "--target":                  # a shorter game: the first total over N wins
            options["target"] = int(args.pop(0))
        else:
            address = arg
    host, _, port = address.rpartition(":")

    conn = Connection(host or "127.0.0.1", int(port))
    conn.send(cmd="hello", name="pybot")        # say who we are first
    reply = conn.receive()
    if not reply.get("ok"):
        sys.exit("hello refused: %s" % reply)

    for n in range(games):
        result, me = play(conn, players, options)
        won = me in result["winners"]
        print("game %d: %s with %d points (scores %s)"
              % (n + 1, "won" if won else "lost", result["scores"][me], result["scores"]))
    conn.send(cmd="quit")


if __name__ == "__main__":
    main()
