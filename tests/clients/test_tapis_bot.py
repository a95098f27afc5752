"""tapis-bot against a real tapisd: many games without a protocol error.

Environment: TAPISD, TAPIS_BOT (paths of the executables); TAPIS_BOT_GAMES_233,
the length of the long match of 233 (default 3, about 10 s; the suite 'soak'
plays 20, about 70 s).
"""
import os
import re
import subprocess
import tempfile
import time

from clientutil import TIMEOUT, Server, check, free_port, run

TAPISD = os.environ["TAPISD"]
TAPIS_BOT = os.environ["TAPIS_BOT"]
GAMES_233 = int(os.environ.get("TAPIS_BOT_GAMES_233", "3"))


def tapis_bot(server, *args, timeout=300):
    p = subprocess.run([TAPIS_BOT, server.address] + list(args), capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def summary(out):
    m = re.search(r"games (\d+)/(\d+)  wins (\d+).*refused (\d+)  timeouts (\d+)  reconnects \d+  errors (\d+)",
                  out)
    assert m, "no summary in: " + out
    return [int(x) for x in m.groups()]


@check
def a_match_of_233_without_a_protocol_error():
    n = GAMES_233
    server = Server(TAPISD, "--bot-delay", "0", "--seed", "7")
    try:
        rc, out, err = tapis_bot(server, "--game", "233", "--players", "2", "--bots", "1",
                                 "--games", str(n), "--seed", "1", timeout=30 + 15 * n)
    finally:
        server.stop()
    assert rc == 0, "exit %d\n%s\n%s" % (rc, out, err)
    games, asked, wins, refused, timeouts, errors = summary(out)
    assert (games, asked, errors) == (n, n, 0), out
    assert 0 <= wins <= n, out


@check
def several_own_seats_race_for_the_discard():
    # Three seats played by tapis-bot (three connections) and one server bot:
    # claims race in real time; refusals are counted, never errors.
    server = Server(TAPISD, "--bot-delay", "0")
    try:
        rc, out, err = tapis_bot(server, "--players", "4", "--bots", "1", "--games", "2",
                                 "--strategy", "random", "--option", "target=40",
                                 "--option", "dispute_ms=20", "--seed", "3")
    finally:
        server.stop()
    assert rc == 0, "exit %d\n%s\n%s" % (rc, out, err)
    games, asked, _, _, _, errors = summary(out)
    assert (games, asked, errors) == (2, 2, 0), out


@check
def tapis_bot_answers_the_servers_pings():
    # Its seats answer each `ping` event with `pong N` (PROTOCOL.md, "Races"):
    # the server then shows their round trip beside them, and a slap game's
    # races are settled by reaction time.
    server = Server(TAPISD, "--bot-delay", "0", "--ping-interval", "20")
    try:
        rc, out, err = tapis_bot(server, "--game", "slap", "--players", "2", "--bots", "1",
                                 "--option", "max_rounds=2", "--seed", "4", "--verbose")
    finally:
        server.stop()
    assert rc == 0, "exit %d\n%s\n%s" % (rc, out, err)
    assert re.search(r'"cmd":"pong","n":\d+|pong \d+', err), err[-2000:]
    assert re.search(r'"ev":"room".*"lag_ms":\d+', err), err[-2000:]
    games, asked, _, _, _, errors = summary(out)
    assert (games, asked, errors) == (1, 1, 0), out


def games_without_a_protocol_error(game, n, *args, bot_delay="0"):
    server = Server(TAPISD, "--bot-delay", bot_delay, "--seed", "11")
    try:
        rc, out, err = tapis_bot(server, "--game", game, "--games", str(n), "--seed", "2", *args)
    finally:
        server.stop()
    assert rc == 0, "exit %d\n%s\n%s" % (rc, out, err)
    games, asked, _, refused, _, errors = summary(out)
    assert (games, asked, errors) == (n, n, 0), out
    return refused


@check
def aspoint3_games_without_a_protocol_error():
    refused = games_without_a_protocol_error("aspoint3", 5, "--players", "2", "--bots", "1")
    assert refused == 0, refused  # a turn game: nothing races
    games_without_a_protocol_error("aspoint3", 2, "--players", "2", "--bots", "0",
                                   "--strategy", "random", "--option", "packs=1")


@check
def seqnum_games_without_a_protocol_error_nor_a_lost_draw():
    # The draw is the rest of the play's move: the view says "at_once" and
    # tapis-bot draws without waiting, as the server's bots do. Against a
    # server bot with a (short) reaction time no draw is lost, so nothing is
    # refused but a draw after the winning play.
    refused = games_without_a_protocol_error("seqnum", 4, "--players", "2", "--bots", "1",
                                             bot_delay="20-40")
    assert refused <= 4, refused
    # Two teams of two, two seats played here (two connections).
    games_without_a_protocol_error("seqnum", 2, "--players", "4", "--bots", "2",
                                   "--strategy", "random")


@check
def slap_games_in_real_time_without_a_protocol_error():
    # Three seats at once, two of them here with a reaction time; short pauses.
    games_without_a_protocol_error("slap", 2, "--players", "3", "--bots", "1",
                                   "--strategy", "greedy:15", "--option", "go_ms=50",
                                   "--option", "stall_ms=50", "--option", "max_rounds=4")
    games_without_a_protocol_error("slap", 1, "--players", "2", "--bots", "1",
                                   "--strategy", "random", "--option", "go_ms=0",
                                   "--option", "stall_ms=20", "--option", "max_rounds=2")


@check
def easy_and_hard_levels_play_over_the_protocol():
    # tapis-bot's easy and a small search against the server's hard and easy
    # bots (quick ones: addbot strategy=LEVEL:MS), from views received over the
    # protocol (aspoint3: short games).
    games_without_a_protocol_error("aspoint3", 1, "--players", "2", "--bots", "1",
                                   "--strategy", "hard/8", "--bot-strategy", "easy:10",
                                   "--option", "rounds=1")
    games_without_a_protocol_error("aspoint3", 1, "--players", "2", "--bots", "1",
                                   "--strategy", "easy", "--bot-strategy", "hard:10",
                                   "--option", "rounds=1")


@check
def it_takes_its_seats_back_after_a_restart_and_a_kill_9():
    """The server stops (SIGTERM, "restart": true), then dies (kill -9) in the
    middle of the game; each time it comes back on the same database and
    port, and tapis-bot reconnects with its token and plays the game out."""
    with tempfile.TemporaryDirectory() as d:
        port = free_port()
        args = ("--db", os.path.join(d, "t.db"), "--listen", "127.0.0.1:%d" % port,
                "--bot-delay", "20-40")
        server = Server(TAPISD, *args)
        # seqnum, with tapis-bot taking 1.2 s a move: the game is still on at
        # the stop and at the kill, 3 s in. By then each side has played at
        # most three chips, and no sequence is made of fewer than four (a 233
        # game between fast bots could end within 1.5 s, and seqnum at 600 ms a
        # move once did by the kill; tapis-bot then exits 0). 20 turns in all.
        bot = subprocess.Popen([TAPIS_BOT, "127.0.0.1:%d" % port, "--game", "seqnum",
                                "--players", "2", "--bots", "1", "--games", "1", "--strategy",
                                "greedy:1200", "--option", "max_turns=20", "--seed", "5"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        try:
            time.sleep(1.5)
            server.stop()  # SIGTERM: the tables are kept
            assert bot.poll() is None, "tapis-bot ended at the stop: %s %s" % bot.communicate()
            server = Server(TAPISD, *args)
            time.sleep(1.5)
            assert bot.poll() is None, "the game ended before the kill: %s" % bot.communicate()[0]
            server.proc.kill()  # kill -9
            server.proc.wait()
            server = Server(TAPISD, *args)
            out, err = bot.communicate(timeout=180)
        finally:
            if bot.poll() is None:
                bot.kill()
            server.stop()
    assert bot.returncode == 0, "exit %d\n%s\n%s" % (bot.returncode, out, err)
    games, asked, _, _, _, errors = summary(out)
    assert (games, asked, errors) == (1, 1, 0), out
    reconnects = int(re.search(r"reconnects (\d+)", out).group(1))
    assert reconnects >= 2, out  # one connection, back after each of the two ends


@check
def without_reconnect_a_restart_is_an_error():
    # The stop must find tapis-bot in a game: the server is stopped as soon
    # as its log says the game started (a sleep of 1 s could come before
    # tapis-bot had connected, or after a 233 game between fast bots had
    # ended). seqnum at 1.2 s a move, as above: no sequence for seconds.
    server = Server(TAPISD, "--bot-delay", "20-40")
    bot = subprocess.Popen([TAPIS_BOT, server.address, "--game", "seqnum", "--players", "2",
                            "--bots", "1", "--reconnect", "0", "--strategy", "greedy:1200"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.wait_log("game starts", TIMEOUT), \
        "no game started: %s" % "".join(server.log[-5:])
    server.stop()
    out, err = bot.communicate(timeout=30)
    assert bot.returncode == 1 and "shutdown event" in err, (bot.returncode, out, err)


@check
def a_protocol_error_gives_a_non_zero_exit():
    # An option the game does not have: create is refused (bad_option).
    server = Server(TAPISD, "--bot-delay", "0")
    try:
        rc, out, err = tapis_bot(server, "--players", "2", "--option", "nope=1", timeout=60)
    finally:
        server.stop()
    assert rc == 1, "exit %d\n%s\n%s" % (rc, out, err)
    assert "create refused" in err, err


@check
def two_bots_on_the_ladder_play_rated_games_by_seek():
    # Two accounts registered over the protocol, then two tapis-bots that log in
    # with the keys and find each other by `seek`, three rated games each.
    server = Server(TAPISD, "--bot-delay", "0", "--pwhash", "min")
    try:
        keys = {}
        for name in ("ladder1", "ladder2"):
            c = server.connect()
            keys[name] = c.ok("register", name=name, password="ladder-password")["key"]
            c.close()
        procs = [subprocess.Popen([TAPIS_BOT, server.address, "--account", name, "--key", key,
                                   "--seek", "aspoint3", "--games", "3", "--seed", str(i)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for i, (name, key) in enumerate(sorted(keys.items()))]
        outs = [p.communicate(timeout=300) for p in procs]
        c = server.connect()
        c.hello("judge")
        profiles = {n: c.ok("profile", name=n) for n in keys}
    finally:
        server.stop()
    for p, (name, _), (out, err) in zip(procs, sorted(keys.items()), outs):
        assert p.returncode == 0, "exit %d\n%s\n%s" % (p.returncode, out, err)
        assert len(re.findall(r"^game \d: rating ", out, re.M)) == 3, out
        m = re.search(r"^rating %s aspoint3: (-?[\d.]+)$" % name, out, re.M)
        assert m, out
        r = profiles[name]["ratings"][0]
        assert r["games"] == 3 and abs(r["rating"] - float(m.group(1))) < 0.051, (r, out)


@check
def bad_command_lines_exit_2():
    for args in (["--players", "1"], ["--bots", "2", "--players", "2"], ["--game", "nope"],
                 ["--strategy", "clever"], ["--strategy", "greedy:soon"],
                 ["--strategy", "hard/0"], ["--strategy", "hard/x"], ["--strategy", "hardly"],
                 ["--account", "ann"], ["--key", "00"]):
        p = subprocess.run([TAPIS_BOT, "127.0.0.1:1"] + args, capture_output=True, text=True)
        assert p.returncode == 2, "%s: exit %d %s" % (args, p.returncode, p.stderr)


@check
def no_server_is_an_error():
    p = subprocess.run([TAPIS_BOT, "127.0.0.1:1", "--players", "2"], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 1 and "cannot connect" in p.stderr, p.stderr


if __name__ == "__main__":
    run()
