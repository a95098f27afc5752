"""seqnum (core/seqnum/RULES.md): sequences of five chips on a board of numbers.

100 cards: the 48 additions and 48 subtractions whose answers are 1..48
(card k < 48 makes k + 1, card 48 + k makes k + 1), and two each of "plus"
(a chip anywhere free) and "minus" (an opponent's chip off, unless it is in a
finished sequence). On your turn: trade dead cards (both cells of the answer
covered) one per turn, then play a card on a cell showing its answer, or pass
if none can be played; after a play, draw, before the next player has played
and drawn, or that draw is lost for the rest of the game.
"""
from collections import Counter

from tapis_rules import Illegal, action_type, winners

SIDE, CELLS, TOP, PLUS, MINUS = 10, 100, 48, 96, 97
CORNERS = (0, 9, 90, 99)
DEFAULTS = {"teams": 0, "max_turns": 400}
# The board (RULES.md, "The board"): the number on each cell, row by row; 0 on the corners.
LAYOUT = [
    0, 40, 34, 44, 40, 11, 23, 26, 1, 0,
    1, 44, 32, 17, 20, 25, 43, 25, 22, 39,
    17, 8, 6, 48, 9, 31, 10, 2, 30, 13,
    12, 33, 13, 36, 29, 24, 23, 15, 11, 47,
    31, 16, 7, 20, 2, 45, 42, 29, 41, 12,
    45, 21, 30, 32, 34, 39, 22, 27, 18, 48,
    19, 35, 18, 46, 14, 19, 9, 3, 38, 46,
    47, 37, 15, 8, 37, 43, 28, 36, 41, 16,
    5, 27, 28, 6, 3, 14, 33, 4, 38, 24,
    0, 7, 35, 5, 4, 42, 26, 10, 21, 0,
]


def answer(kind):
    return kind + 1 if kind < TOP else kind - TOP + 1 if kind < 2 * TOP else 0


def card_name(kind):
    """"Cards": n = (n - n/3) + n/3, and n = (n + (49 - n)/2) - (49 - n)/2."""
    if kind == PLUS:
        return "plus"
    if kind == MINUS:
        return "minus"
    n = answer(kind)
    if kind < TOP:
        return "%d+%d" % (n - n // 3, n // 3)
    return "%d-%d" % (n + (49 - n) // 2, (49 - n) // 2)


NAMES = {card_name(k): k for k in range(98)}


def parse_card(v):
    if not isinstance(v, str):
        raise Illegal("bad_action", "give the card by name, e.g. \"card\":\"25-24\"")
    kind = NAMES.get(v.lower() if v.lower() in ("plus", "minus") else v)
    if kind is None:
        raise Illegal("unknown_card", "no such card in seqnum: %r" % v)
    return kind


def cells_of(n):
    return [c for c in range(CELLS) if LAYOUT[c] == n]


class Game:
    def __init__(self, seats, options, stream):
        o = dict(DEFAULTS, **options)
        teams = o["teams"]
        if seats == 5 or not 2 <= seats <= 6:
            raise Illegal("bad_players", "seqnum is played by 2, 3, 4 or 6")
        if (seats <= 3 and teams not in (0, seats)) or \
                (seats >= 4 and teams and (teams not in (2, 3) or seats % teams)):
            raise Illegal("bad_option", "%d players cannot make %d teams" % (seats, teams))
        self.seats, self.stream = seats, stream
        # Alone at 2 and 3 (one sequence wins); in teams at 4 and 6 (two win),
        # seat s playing for team s % teams.
        self.nteams = seats if seats <= 3 else teams or 2
        self.goal = 1 if seats <= 3 else 2
        deal = 5 if seats <= 3 else 4
        self.max_turns = o["max_turns"]
        self.seen = Counter()                 # how often each rule came into play
        self.draw = stream.shuffle(list(range(96)) + [PLUS, PLUS, MINUS, MINUS])   # top: the end
        self.chip = [None] * CELLS            # a cell's chip: its team
        self.seqs = []                        # finished sequences: (team, five cells)
        self.hand = [[] for _ in range(seats)]
        self.discards = [[] for _ in range(seats)]   # each player's, oldest first
        self.owe = [-1] * seats               # the turn number of a play whose draw is pending
        self.turn, self.turns, self.traded = 0, 0, False
        self.over_, self.winner, self.reason = False, -1, None
        # One card at a time, starting left of the dealer (the last seat).
        for _ in range(deal):
            for s in range(seats):
                self.draw_card(s)

    def team(self, seat):
        return seat % self.nteams

    def draw_card(self, seat):
        """An empty draw pile is rebuilt from every discard pile (seat by seat,
        each oldest first) and shuffled."""
        if not self.draw:
            for s in range(self.seats):
                self.draw += self.discards[s]
                self.discards[s] = []
            self.draw = self.stream.shuffle(self.draw)
            self.seen["rebuilt draw pile"] += 1
        if self.draw:
            self.hand[seat].append(self.draw.pop())

    def locked(self, cell):
        return cell not in CORNERS and self.chip[cell] is not None and \
            any(cell in cells for _, cells in self.seqs)

    def dead(self, kind):
        """An equation whose two cells are covered."""
        n = answer(kind)
        return bool(n) and all(self.chip[c] is not None for c in cells_of(n))

    def find_sequences(self, team, cell):
        """Every line of five through `cell` (corners count for everyone) all the
        team's, sharing at most one chip with each of its finished sequences."""
        found = 0
        r0, c0 = divmod(cell, SIDE)
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            for back in range(4, -1, -1):
                cells = []
                for i in range(5):
                    r, c = r0 + (i - back) * dr, c0 + (i - back) * dc
                    if not (0 <= r < SIDE and 0 <= c < SIDE):
                        break
                    cells.append(r * SIDE + c)
                    if cells[-1] not in CORNERS and self.chip[cells[-1]] != team:
                        break
                if len(cells) < 5 or not (cells[-1] in CORNERS or self.chip[cells[-1]] == team):
                    continue
                if any(t == team and sum(x in cells for x in s if x not in CORNERS) > 1
                       for t, s in self.seqs):
                    continue
                if len(self.seqs) < 32:
                    self.seqs.append((team, cells))
                    self.seen["sequence" + (" with a corner" if set(cells) & set(CORNERS) else "")] += 1
                    found += 1
        return found

    def check_cell(self, seat, card, c):
        if not 0 <= c < CELLS:
            raise Illegal("bad_cell", "cells are numbered 0 to 99")
        if card == MINUS:
            if self.chip[c] is None:
                raise Illegal("no_chip", "cell %d holds no chip" % c)
            if self.chip[c] == self.team(seat):
                raise Illegal("own_chip", "a minus removes an opponent's chip")
            if self.locked(c):
                raise Illegal("locked", "the chip on cell %d is in a finished sequence" % c)
            return
        if c in CORNERS:
            raise Illegal("free_corner", "no chip goes on a corner")
        n = answer(card)
        if n and LAYOUT[c] != n:
            raise Illegal("wrong_cell", "%s makes %d, cell %d shows %d" % (card_name(card), n, c, LAYOUT[c]))
        if self.chip[c] is not None:
            raise Illegal("occupied", "cell %d is taken" % c)

    def can_play(self, seat):
        for card in set(self.hand[seat]):
            for c in (cells_of(answer(card)) if answer(card) else range(CELLS)):
                try:
                    self.check_cell(seat, card, c)
                    return True
                except Illegal:
                    pass
        return False

    # --- actions ------------------------------------------------------------

    def parse(self, action):
        kind = action_type(action, ("play", "trade", "draw", "pass"), "seqnum")
        args = action.get("args")
        if args is not None and (not isinstance(args, list) or not args):
            raise Illegal("bad_action", "\"args\" must be a non-empty list")
        args = args or []
        keys = {"draw": (), "pass": (), "trade": ("card",), "play": ("card", "cell")}[kind]
        if any(k not in ("type", "args") + keys for k in action):
            raise Illegal("bad_action", "%s takes %s" % (kind, list(keys)))
        if not keys:
            if args:
                raise Illegal("bad_action", "this action takes no arguments")
            return kind, None, None
        # Each field by name, or else the inline form's next word.
        pos, got = 0, []
        for k in keys:
            if k in action:
                got.append((action[k], False))
            else:
                got.append((args[pos] if pos < len(args) else None, True))
                pos += 1
        if pos < len(args) or (kind == "trade" and pos != len(args)):
            raise Illegal("bad_action", "inline: %s CARD%s" % (kind, " CELL" if kind == "play" else ""))
        card = parse_card(got[0][0])
        if kind == "trade":
            return kind, card, None
        cell, positional = got[1]
        if cell is None:
            raise Illegal("bad_action", "play needs a \"cell\"")
        if positional and isinstance(cell, str) and cell.lstrip("+-").isdigit():
            cell = int(cell)
        if not isinstance(cell, int) or isinstance(cell, bool):
            raise Illegal("bad_action", "\"cell\" must be a number 0..99")
        return kind, card, cell if 0 <= cell < CELLS else -1

    def apply(self, seat, action, now):
        kind, card, cell = self.parse(action)
        if self.over_:
            raise Illegal("game_over", "the game is over")
        if kind == "draw":
            if self.owe[seat] < 0:
                raise Illegal("nothing_to_draw", "you draw once after each play")
            # Every earlier play still waiting for its draw has been overtaken: lost.
            for s in range(self.seats):
                if s != seat and 0 <= self.owe[s] < self.owe[seat]:
                    self.owe[s] = -1
                    self.seen["lapsed draw"] += 1
            self.owe[seat] = -1
            self.draw_card(seat)
            return
        if seat != self.turn:
            raise Illegal("not_your_turn", "it is seat %d's turn" % self.turn)
        if kind == "trade":
            if self.traded:
                raise Illegal("already_traded", "one dead card per turn")
            if card not in self.hand[seat]:
                raise Illegal("not_in_hand", "seat %d holds no %s" % (seat, card_name(card)))
            if not self.dead(card):
                raise Illegal("not_dead", "%s is not dead" % card_name(card))
            self.discard(seat, card)
            self.draw_card(seat)
            self.traded = True
            self.seen["trade"] += 1
            return
        if kind == "pass":
            if self.can_play(seat):
                raise Illegal("must_play", "seat %d holds a card it can play" % seat)
            self.turns += 1
            self.seen["pass"] += 1
            return self.end_turn()
        if card not in self.hand[seat]:
            raise Illegal("not_in_hand", "seat %d holds no %s" % (seat, card_name(card)))
        self.check_cell(seat, card, cell)
        # Playing again before drawing for the last play loses that draw.
        if self.owe[seat] >= 0:
            self.seen["lapsed draw"] += 1
        self.discard(seat, card)
        self.turns += 1
        self.owe[seat] = self.turns
        team = self.team(seat)
        if card == MINUS:
            self.seen["minus"] += 1
            self.chip[cell] = None
        else:
            self.chip[cell] = team
            if self.find_sequences(team, cell) and \
                    sum(t == team for t, _ in self.seqs) >= self.goal:
                self.finish(team, "sequences")
        self.end_turn()

    def discard(self, seat, card):
        self.hand[seat].remove(card)
        self.discards[seat].append(card)

    def finish(self, winner, reason):
        self.over_, self.winner, self.reason = True, winner, reason
        self.seen["end: " + reason] += 1

    def end_turn(self):
        """The next seat; a draw after max_turns (server rule), or when nobody
        holds a card or owes a draw."""
        if self.over_:
            return
        self.turn, self.traded = (self.turn + 1) % self.seats, False
        if self.turns >= self.max_turns:
            self.finish(-1, "max_turns")
        elif not any(self.hand[s] or self.owe[s] >= 0 for s in range(self.seats)):
            self.finish(-1, "no_cards")

    def tick(self, now):
        return False     # no clock: nothing is ever due

    def over(self):
        return self.over_

    def result(self):
        r = {"winners": winners(sum(1 << s for s in range(self.seats)
                                    if self.winner >= 0 and self.team(s) == self.winner), self.seats),
             "team": self.winner if self.winner >= 0 else None,
             "sequences": [sum(t == team for t, _ in self.seqs) for team in range(self.nteams)],
             "reason": self.reason, "turns": self.turns}
        if self.nteams < self.seats:
            r["teams"] = self.nteams
        return r
