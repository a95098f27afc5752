"""Tab completion in `tapis` of what only the server knows: game ids, a
game's options and its bot levels come from the server's `games` reply,
which tapis asks for by itself (id "tapis-games", reply not shown) the first
time completion needs it, never from names built into the client.

Against a real tapisd (its games complete) and against a fake server that
hosts one made-up game (which completes; 233, which it does not host, does
not).

Environment: TAPISD, TAPIS.
"""
import json
import os
import time

from clientutil import FakeServer, Server, TIMEOUT, check, run, tapis_session

TAPISD = os.environ["TAPISD"]
TAPIS = os.environ["TAPIS"]


def tab(tty, typed):
    os.write(tty.master, typed.encode() + b"\t")
    time.sleep(0.3)


@check
def create_and_addbot_complete_from_the_servers_games():
    with tapis_session(TAPIS, Server(TAPISD, "--bot-delay", "200"), "--name", "cat") as tty:
        tty.expect(r"hello cat\.")
        tab(tty, "create aspo")
        tty.expect(r"create aspoint3")
        tab(tty, "2 tar")  # an option, with its default
        tty.expect(r"target=350")
        os.write(tty.master, b"\r")
        room = tty.expect(r"room (\S+) created; you sit at seat 0").group(1)
        tty.expect(r"1 seat\(s\) to fill")
        tab(tty, "addbot strategy=fa")  # a bot level of the room's game
        tty.expect(r"strategy=fast")
        os.write(tty.master, b"\r")
        tty.expect(r"a bot sits at seat 1")
        tty.expect(r"-- room %s \. aspoint3 \." % room)
        # The games reply tapis asked for itself was not shown.
        assert "As.point3" not in tty.text(), tty.text()[-2000:]


ZORK = {"id": "zork", "title": "Zork title", "min_players": 2, "max_players": 3,
        "options": {"depth": 3},
        "bots": [{"level": "sleepy", "strategy": "greedy", "pace_ms": [9, 9], "help": "z"}]}


@check
def a_game_only_the_server_knows_completes_and_233_does_not():
    server = FakeServer()
    with tapis_session(TAPIS, server, "--name", "zed", env={"NO_COLOR": "1"}) as tty:
        assert server.connected.wait(TIMEOUT), "tapis did not connect"
        assert json.loads(server.next_line())["cmd"] == "hello"
        server.send({"re": "hello", "ok": True, "token": "t" * 32, "rooms": []})
        tty.expect(r"hello zed\.")
        tab(tty, "create zo")
        req = json.loads(server.next_line())  # asked when first needed, not before
        assert req == {"cmd": "games", "id": "tapis-games"}, req
        server.send({"re": "games", "id": "tapis-games", "ok": True, "games": [ZORK]})
        tab(tty, "")  # the reply came after the first Tab: this one completes
        tty.expect(r"create zork")
        os.write(tty.master, b"\r")
        assert server.next_line() == "create zork"
        # 233 is no game of this server: nothing to complete, sent as typed.
        tab(tty, "create 2")
        os.write(tty.master, b"\r")
        assert server.next_line() == "create 2"
        # Bot levels of that game only.
        tab(tty, "addbot strategy=sl")
        os.write(tty.master, b"\r")
        assert server.next_line() == "addbot strategy=sleepy"
        assert "Zork title" not in tty.text(), tty.text()


if __name__ == "__main__":
    run()
