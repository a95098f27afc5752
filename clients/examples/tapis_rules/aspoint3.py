"""As.point3 (core/aspoint3/RULES.md): two players, three cards, aces and threes.

A card is suit * 13 + rank (rank 0 the ace, 1..9 the 2..10, 10 J, 11 Q, 12
K; suits S H D C). Each deal: two hidden cards each (the other player first,
one at a time), then a face-down and a face-up card in the centre. The
starter (alternating) may swap one hidden card with the face-down card,
blind, or keep; the other player takes the face-down card, or the face-up one
(a challenge), and the starter gets the card left. A hand's points: the sum
of its values, or with aces, aces * (30 + 3 * threes).
"""
from collections import Counter

from tapis_rules import Illegal, action_type, winners

DEFAULTS = {"rounds": 3, "target": 350, "packs": 0, "pack_scoring": "manche"}
VALUES = [30, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20]   # by rank: ace 30, J 12, Q 15, K 20
NAMES = [r + s for s in "SHDC" for r in ["A"] + [str(n) for n in range(2, 11)] + ["J", "Q", "K"]]
BONUS_AT, BONUS_UNDER, BONUS, CHALLENGE_EXTRA = 210, 200, 30, 5


def value(c):
    return VALUES[c % 13]


def points(cards):
    """Aces combine with each other and with threes only: every ace with every three."""
    aces = sum(c % 13 == 0 for c in cards)
    threes = sum(c % 13 == 2 for c in cards)
    return aces * (30 + 3 * threes) if aces else sum(value(c) for c in cards)


def more(by):
    """The seat with more, or -1 when equal."""
    return 0 if by[0] > by[1] else 1 if by[1] > by[0] else -1


class Game:
    def __init__(self, seats, options, stream):
        if seats != 2:
            raise Illegal("bad_players", "As.point3 is for 2 players")
        o = dict(DEFAULTS, **options)
        self.rounds, self.target, self.packs = o["rounds"], o["target"], o["packs"]
        self.total_scoring = o["pack_scoring"] == "total"
        self.stream = stream
        self.stock = []                      # top: the end
        self.score, self.total = [0, 0], [0, 0]
        self.round = self.deal = self.pack = 0
        self.history, self.winners = [], 0
        self.seen = Counter()                # how often each rule came into play
        self.phase = None
        self.start_round()
        self.start_deal()

    def shuffle_all(self):
        """Every card back, shuffled: a new pack (only between deals)."""
        self.stock = self.stream.shuffle(list(range(52)))
        self.pack += 1

    def start_round(self):
        self.round += 1
        self.score = [0, 0]
        self.bonus_by = -1

    def start_deal(self):
        if len(self.stock) < 6:
            self.shuffle_all()
        self.deal += 1
        self.starter = (self.deal - 1) % 2
        other = 1 - self.starter
        self.hand = [[], []]
        for _ in range(2):
            self.hand[other].append(self.stock.pop())
            self.hand[self.starter].append(self.stock.pop())
        self.down = self.stock.pop()
        self.up = self.stock.pop()
        self.swapped = False
        self.phase = "swap"

    def turn(self):
        return {"swap": self.starter, "pick": 1 - self.starter}.get(self.phase, -1)

    # --- actions ------------------------------------------------------------

    @staticmethod
    def parse(action):
        kind = action_type(action, ("swap", "keep", "pick"), "As.point3")
        args = action.get("args")
        if args is not None and not isinstance(args, list):
            raise Illegal("bad_action", "\"args\" must be a list")
        if kind == "keep":
            if any(k not in ("type", "args") for k in action) or args:
                raise Illegal("bad_action", "keep takes no arguments")
            return kind, None
        if any(k not in ("type", "args", "card") for k in action):
            raise Illegal("bad_action", "this action takes only \"card\"")
        if args is not None and "card" in action:
            raise Illegal("bad_action", "give \"card\" or \"args\", not both")
        if args is not None and len(args) != 1:
            raise Illegal("bad_action", "inline: swap CARD, or pick down|up")
        v = args[0] if args is not None else action.get("card")
        if not isinstance(v, str):
            raise Illegal("bad_action", "this action needs a \"card\" string")
        if kind == "pick":
            if v not in ("up", "down"):
                raise Illegal("bad_action", "pick takes the card \"down\" or \"up\"")
            return kind, v == "up"
        if not v.isascii() or v.upper() not in NAMES:
            raise Illegal("unknown_card", "no card %r" % v)
        return kind, NAMES.index(v.upper())

    def apply(self, seat, action, now):
        kind, arg = self.parse(action)
        if self.phase == "over":
            raise Illegal("game_over", "the game is over")
        if seat != self.turn():
            raise Illegal("not_your_turn", "it is seat %d's turn" % self.turn())
        if (kind == "pick") != (self.phase == "pick"):
            raise Illegal("wrong_step", "the %s step, not %s" % (self.phase, kind))
        if kind == "swap":
            if arg not in self.hand[seat]:
                raise Illegal("not_in_hand", "seat %d does not hold %s" % (seat, NAMES[arg]))
            # Blind: the face-down card joins the hand, the given card lies face down.
            self.hand[seat][self.hand[seat].index(arg)] = self.down
            self.down, self.swapped = arg, True
            self.seen["swap"] += 1
            self.phase = "pick"
        elif kind == "keep":
            self.phase = "pick"
        else:
            self.pick(arg)

    def pick(self, up):
        st, pk = self.starter, 1 - self.starter
        cards = [list(self.hand[0]), list(self.hand[1])]
        cards[pk].append(self.up if up else self.down)
        cards[st].append(self.down if up else self.up)
        v = [points(cards[0]), points(cards[1])]
        pts = list(v)
        if not up:
            winner = more(v)
        elif v[pk] > v[st]:                  # a challenge won: the opponent scores nothing
            winner, pts[st] = pk, 0
            self.seen["challenge won"] += 1
        else:                                # lost (a tie too): the opponent adds the card and 5
            winner = st
            pts[st] += value(self.up) + CHALLENGE_EXTRA
            self.seen["challenge lost"] += 1
        if self.packs:                       # the packs variant: one point per deal won
            pts = [int(winner == 0), int(winner == 1)]
        self.score = [self.score[0] + pts[0], self.score[1] + pts[1]]
        if not self.packs:
            self.bonus_rule()
        next_deal = True
        if self.packs:
            if len(self.stock) >= 6:
                pass                         # the pack goes on
            elif not self.total_scoring:     # by manche: a used-up pack is a round
                w = more(self.score)
                self.end_round(w, 1)
                if w >= 0 and self.total[w] >= self.packs:
                    self.end_game(self.total)
                    next_deal = False
                else:
                    self.start_round()
            elif self.pack >= self.packs:
                self.end_game(self.score)
                next_deal = False
        elif self.score[0] > self.target or self.score[1] > self.target:
            # The first total over the target wins the round, scoring the difference.
            self.end_round(more(self.score), abs(self.score[0] - self.score[1]))
            if self.round >= self.rounds:
                self.end_game(self.total)
                next_deal = False
            else:
                self.start_round()
                self.shuffle_all()           # a new round, a new pack
        if next_deal:
            self.start_deal()

    def bonus_rule(self):
        """The first to reach 210 in a round gives an opponent under 200 30 points;
        spent once anyone reaches 210 (both in one deal: neither is first)."""
        if self.bonus_by >= 0:
            return
        r = [self.score[0] >= BONUS_AT, self.score[1] >= BONUS_AT]
        if not any(r):
            return
        if all(r):
            self.bonus_by = 2
            return
        first = 0 if r[0] else 1
        self.bonus_by = first
        if self.score[1 - first] < BONUS_UNDER:
            self.score[1 - first] += BONUS
            self.seen["210 bonus"] += 1

    def end_round(self, winner, pts):
        if winner < 0:
            pts = 0
            self.seen["drawn round"] += 1
        else:
            self.total[winner] += pts
        self.history.append({"round": self.round, "winner": winner if winner >= 0 else None,
                             "scores": list(self.score), "points": pts, "totals": list(self.total)})

    def end_game(self, by):
        self.phase = "over"
        self.winners = 1 if by[0] > by[1] else 2 if by[1] > by[0] else 3

    def tick(self, now):
        return False     # no clock: nothing is ever due

    def over(self):
        return self.phase == "over"

    def result(self):
        by = self.score if self.packs and self.total_scoring else self.total
        r = {"winners": winners(self.winners, 2), "scores": list(by),
             "mode": "packs" if self.packs else "points", "rounds": self.round,
             "deals": self.deal, "history": self.history}
        if self.packs:
            r["pack_scoring"] = "total" if self.total_scoring else "manche"
        return r
