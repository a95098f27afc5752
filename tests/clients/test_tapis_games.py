"""The `tapis` terminal client on the games beyond 233, in a pseudo-terminal
against a real tapisd: for aspoint3, seqnum and slap, a table with a bot, the
game's picture, one move by its number in `legal`, and the update; seqnum's
autodraw; tab completion of an action's words.

Environment: TAPISD, TAPIS.
"""
import contextlib
import os
import re

from clientutil import Server, check, run, tapis_session

TAPISD = os.environ["TAPISD"]
TAPIS = os.environ["TAPIS"]


def open_table(tty, name, create, game):
    tty.expect(r"hello %s\." % name)
    tty.send(create)
    room = tty.expect(r"room (\S+) created; you sit at seat 0").group(1)
    tty.send("addbot")
    tty.expect(r"a bot sits at seat 1")
    tty.expect(r"-- room %s \. %s \." % (room, game))
    return room


@contextlib.contextmanager
def table_with_a_bot(name, create, game, bot_delay="200", env=None):
    """tapis as `name` against its own tapisd (seed 5) at a new table, made by
    `create`, with a bot at seat 1: (tty, room) for a `with` block."""
    server = Server(TAPISD, "--bot-delay", bot_delay, "--seed", "5")
    with tapis_session(TAPIS, server, "--name", name, env=env) as tty:
        yield tty, open_table(tty, name, create, game)


def legal_number(tty, pattern):
    """Type `legal` and return the number of the first listed action matching pattern."""
    tty.send("legal")
    m = tty.expect(r"((?:\s+\d+\s+[^\n]*\n)+)\s*type a number to play it|nothing to play now")
    for line in (m.group(1) or "").splitlines():
        lm = re.match(r"\s*(\d+)\s+(.*\S)", line)
        if lm and re.search(pattern, lm.group(2)):
            return lm.group(1), lm.group(2)
    raise AssertionError("no legal action like %r in:\n%s" % (pattern, m.group(1)))


@check
def an_account_sees_ratings_beside_the_names():
    # A guest registers its own name, opens a rated table: the seats show the ratings
    # (0.0 before any rated game, the bot level's too); leaving loses the game.
    server = Server(TAPISD, "--bot-delay", "0", "--seed", "5", "--pwhash", "min")
    with tapis_session(TAPIS, server, "--name", "ada") as tty:
        tty.expect(r"hello ada\.")
        tty.send("register ada secret-pass")
        tty.expect(r"account ada registered; its key, shown this once \(for bots\): [0-9a-f]{32}")
        tty.send("create aspoint3 2 rated")
        tty.expect(r"room (\S+) created; you sit at seat 0")
        tty.send("addbot")
        tty.expect(r"seat 0\s+ada \(0\.0\)\s+\(you\)")
        tty.expect(r"seat 1\s+bot1 \(0\.0\)")
        tty.send("leave")
        tty.expect(r"left room")
        tty.send("profile")
        tty.expect(r'"abandoned":\s*true')


@check
def aspoint3_picture_a_move_by_number_and_the_reveal():
    with table_with_a_bot("ada", "create aspoint3 2", "aspoint3") as (tty, room):
        # Seat 0 starts deal 1: own two cards, the centre (face-down as ??).
        tty.expect(r"round 1/3 \. deal 1 \. target 350")
        tty.expect(r"seat 0\s+ada\s+\(you\)\s+round\s+0\s+total\s+0\s+starter")
        tty.expect(r"centre  up [0-9AJQK]+[SHDC]  down \?\?")
        tty.expect(r"your cards  [0-9AJQK]+[SHDC] [0-9AJQK]+[SHDC]")
        tty.expect(r"your turn: keep, or swap CARD")
        num, words = legal_number(tty, r"^keep$")
        tty.send(num)
        # The bot picks; the reveal of deal 1 shows both hands of three.
        tty.expect(r"last deal 1: ada started and kept; bot1 took (up|down)")
        tty.expect(r"ada\s+(\S+ ){2}\S+\s+=\s+\d+")
        # Deal 2: the bot starts, then ada picks; `pick d<Tab>` completes to down.
        tty.expect(r"your turn: pick down \(both score\), or pick up")
        tty.tab("pick d", r"pick down")
        tty.enter()
        tty.expect(r"last deal 2: bot1 started and (kept|swapped); ada took down")
        assert room


@check
def seqnum_grid_a_play_by_number_and_autodraw():
    with table_with_a_bot("sam", "create seqnum 2", "seqnum") as (tty, _):
        tty.expect(r"turn 1 \. 2 teams \. goal 1 sequence --")
        # The grid: column numbers, then rows with their free corners.
        tty.expect(r"0 +1 +2 +3 +4 +5 +6 +7 +8 +9")
        tty.expect(r"\n\s+0\s+\*\*\s+40\s+34\s+44\s+40\s+11\s+23\s+26\s+1\s+\*\*")
        tty.expect(r"\n\s+9\s+\*\*\s+7\s+35\s+5\s+4\s+42\s+26\s+10\s+21\s+\*\*")
        tty.expect(r"seat 0\s+sam\s+\(you\)\s+team A\s+5/5 cards")
        tty.expect(r"A = your team")
        tty.expect(r"hand\s+\S+")
        tty.expect(r"your turn: play CARD CELL")
        # Free corners are drawn in colour on a terminal.
        assert "\x1b[1;33m ** " in tty.raw.decode("utf-8", "replace")
        num, words = legal_number(tty, r"^play card=\S+ cell=\d+$")
        card, cell = re.match(r"play card=(\S+) cell=(\d+)", words).groups()
        tty.send(num)
        tty.expect(r"last: sam play %s at %s" % (re.escape(card), cell))
        # Autodraw is on: the draw goes out by itself, before the bot's turn is over.
        tty.expect(r"autodraw: drawing")
        tty.expect(r"last: sam play %s at %s \| sam draw" % (re.escape(card), cell))
        # Team A's chip now covers the cell: row cell//10 shows A and the number.
        tty.send("autodraw off")
        tty.expect(r"autodraw is off")
        tty.send("view")
        tty.expect(r'"chips":\[')
        tty.tab("autod", r"autodraw")
        tty.tab(" o\t", r"on\s+off|off\s+on")


@check
def seqnum_grid_without_colour_marks_chips_by_letter():
    with table_with_a_bot("nc", "create seqnum 2", "seqnum", bot_delay="100",
                          env={"NO_COLOR": "1"}) as (tty, _):
        tty.expect(r"your turn: play CARD CELL")
        num, words = legal_number(tty, r"^play card=\S+ cell=\d+$")
        cell = int(re.search(r"cell=(\d+)", words).group(1))
        tty.send(num)
        # The bot's chip appears too; both as letter + number in the grid.
        tty.expect(r"last: nc play \S+ at %d \| nc draw \| bot1 play" % cell)
        text = tty.text()
        assert re.search(r"\bA\s?\d{1,2}[ *]", text) and re.search(r"\bB\s?\d{1,2}[ *]", text), \
            text[-2500:]
        assert "\x1b[" not in tty.raw.decode("utf-8", "replace")[-3000:].replace("\x1b[K", "")


@check
def slap_columns_piles_countdown_and_a_move_by_number():
    with table_with_a_bot("sly", "create slap 2 go_ms=1500", "slap", bot_delay="300") as (tty, _):
        tty.expect(r"round 1/20 \. setup --")
        tty.expect(r"piles\s+0: -- \(0\)\s+1: -- \(0\)")
        # Four columns of 1, 2, 3 and 4 cards: the top face up, the rest counted.
        tty.expect(r"seat 0\s+sly\s+\(you\)\s+draw\s+56\s+cards\s+66")
        tty.expect(r"col 0: [RGBY]\d+\s+col 1: [RGBY]\d+ \+1\s+col 2: [RGBY]\d+ \+2\s+"
                   r"col 3: [RGBY]\d+ \+3")
        tty.expect(r"go in 1\.\d s")
        tty.expect(r"round 1/20 \. play --")
        tty.expect(r"piles\s+0: [RGBY]\d+ \(1\)\s+1: [RGBY]\d+ \(1\)")
        # A move by its number in `legal` (a real-time game: the bot may have
        # changed the table in between, so try again if it was refused).
        for attempt in range(6):
            tty.expect(r"you may: 1\) ")
            try:
                num, words = legal_number(tty, r"^(play|turn|move|slap) ")
            except AssertionError:
                continue  # nothing to play at that moment
            tty.send(num)
            m = tty.expect(r"(last: .*sly (play|turn|move|slap)|! (too_late|cannot_play|"
                           r"face_down|empty_column|pile_taken|already_up|round_over)\S*)")
            if "last:" in m.group(0):
                break
        else:
            raise AssertionError("no move of sly went through")


if __name__ == "__main__":
    run()
