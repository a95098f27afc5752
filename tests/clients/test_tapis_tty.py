"""The `tapis` terminal client in a pseudo-terminal against a real tapisd:
name, lobby, a table with a bot, a move and its update; colours, --json,
reconnection after a dropped connection, and the stop signals.

Environment: TAPISD, TAPIS.
"""
import json
import os
import re
import subprocess

from clientutil import (Proxy, Server, TIMEOUT, Tty, check, ends_on_stop_signals, run,
                        tapis_session)

TAPISD = os.environ["TAPISD"]
TAPIS = os.environ["TAPIS"]


def start_table(tty, name):
    tty.expect(r"your name: ")
    tty.send(name)
    tty.expect(r"hello %s\." % name)
    tty.send("games")
    tty.expect(r"233\s+233\s+2-6 players")
    tty.send("rooms")
    tty.expect(r"(no open rooms|room \S+)")
    tty.send("create 233 2")
    room = tty.expect(r"room (\S+) created; you sit at seat 0").group(1)
    tty.expect(r"1 seat\(s\) to fill")
    tty.send("addbot")
    tty.expect(r"a bot sits at seat 1")
    tty.expect(r"-- room %s \. 233 \. round 1" % room)
    tty.expect(r"seat 0\s+%s\s+\(you\)" % name)
    tty.expect(r"hand 1 \S+")
    return room


@check
def name_lobby_table_move_and_update():
    # Seed 1: a deal in which nobody is dealt a -5 to give first, so the
    # creator's first legal action is the draw.
    server = Server(TAPISD, "--bot-delay", "200", "--seed", "1")
    with tapis_session(TAPIS, server) as tty:
        room = start_table(tty, "tess")
        # The creator deals, so seat 0 opens: draw, then see the update.
        tty.expect(r"your turn \(draw\)")
        # The server's turn timer (default 60 s) shows as time left.
        tty.expect(r"waiting for: tess \((\d+) s left\)")
        tty.send("legal")
        tty.expect(r"1\s+draw")
        tty.send("1")  # legal action number 1: draw
        tty.expect(r"last: .*tess draw")
        # Drawn gifts are placed (a +5 by itself, a -5 on a seat) and the drawer
        # draws again: play legal action 1 until it is time to discard.
        for _ in range(20):
            phase = tty.expect(r"your turn \((\w+)\)").group(1)
            if phase == "discard":
                break
            tty.send("1")
        assert phase == "discard", phase
        tty.send("legal")
        tty.expect(r"type a number to play it")
        # A discard by position in the sorted hand (refused only for a stop).
        tty.send("discard 1")
        tty.expect(r"(last: .*tess discard|must_discard_stop|must_)")
        tty.send("say hello table")
        tty.expect(r"\[%s\] tess: hello table" % room)
        tty.send("quit")
        tty.expect(r"bye")
        assert tty.proc.wait(TIMEOUT) == 0


@check
def take_by_positions_in_the_hand():
    # 233's take names cards of the hand as a claim does: `take 1 2` sends the
    # first two cards of the sorted hand (unknown to the server as "1" "2").
    server = Server(TAPISD, "--bot-delay", "200", "--seed", "1")
    with tapis_session(TAPIS, server) as tty:
        start_table(tty, "tara")
        tty.expect(r"your turn \(draw\)")
        tty.send("take 1 2")
        tty.expect(r"(cannot_claim|cannot_take|own_discard|too_late|tara take)")
        tty.send("quit")
        tty.expect(r"bye")


@check
def cards_are_coloured_on_a_terminal_and_not_with_no_color():
    server = Server(TAPISD, "--bot-delay", "200")
    try:
        for name, env, coloured in (("col", {}, True), ("nocol", {"NO_COLOR": "1"}, False)):
            # two names: the first session still holds its seat (names are unique)
            tty = Tty(TAPIS, server.address, "--name", name, env=env)
            try:
                tty.expect(r"hello %s\." % name)
                tty.send("create 233 2")
                tty.send("addbot")
                tty.expect(r"hand 1 ")
                raw = tty.raw.decode("utf-8", "replace")
                hand = raw[raw.rfind("hand"):]
                has = re.search(r"\x1b\[(3[1-6]|95|38;5;208)m", hand) is not None
                assert has == coloured, "env %s: %r" % (env, hand[:300])
            finally:
                tty.close()
    finally:
        server.stop()


@check
def tab_completes_commands():
    with tapis_session(TAPIS, Server(TAPISD), "--name", "tab") as tty:
        tty.expect(r"hello tab\.")
        tty.tab("gam", r"games")
        tty.enter()
        tty.expect(r"233\s+233\s+2-6 players")


@check
def reconnects_with_its_token_and_gets_its_seat_back():
    server = Server(TAPISD, "--bot-delay", "200")
    proxy = Proxy(server.port)
    tty = Tty(TAPIS, proxy.address, "--name", "rita")
    try:
        tty.expect(r"hello rita\.")
        tty.send("create 233 2")
        room = tty.expect(r"room (\S+) created").group(1)
        tty.send("addbot")
        tty.expect(r"-- room %s \. 233" % room)
        proxy.cut()
        tty.expect(r"connection lost; reconnecting")
        tty.expect(r"welcome back, rita")
        tty.expect(r"-- room %s \. 233" % room)  # the table again, from the server
        tty.send("view")
        tty.expect(r'"seat":0')
        assert proxy.accepted == 2
    finally:
        tty.close()
        proxy.close()
        server.stop()


@check
def json_mode_passes_raw_lines():
    server = Server(TAPISD)
    try:
        p = subprocess.run([TAPIS, server.address, "--json"], input="hello jay\n\ngames\nping\n",
                           capture_output=True, text=True, timeout=TIMEOUT)
    finally:
        server.stop()
    assert p.returncode == 0, p.stderr
    msgs = [json.loads(l) for l in p.stdout.splitlines()]
    assert [m.get("re") for m in msgs] == ["hello", "games", "ping"], p.stdout
    assert all(m["ok"] for m in msgs)


@check
def piped_input_works_without_a_terminal():
    server = Server(TAPISD)
    try:
        p = subprocess.run([TAPIS, server.address], input="pia\nping\n", capture_output=True,
                           text=True, timeout=TIMEOUT)
    finally:
        server.stop()
    assert p.returncode == 0, p.stderr
    assert "hello pia." in p.stdout and "pong" in p.stdout, p.stdout
    assert "\x1b[" not in p.stdout, repr(p.stdout)


@check
def a_stop_signal_ends_the_client_and_puts_the_terminal_back():
    """libedit's own signal handling (which would signal our whole process
    group) is off: the main loop ends and puts the terminal back."""
    server = Server(TAPISD)
    try:
        ends_on_stop_signals(lambda sig: (TAPIS, server.address, "--name", "sig%d" % sig),
                             r"hello sig\d+\.")
    finally:
        server.stop()


if __name__ == "__main__":
    run()
