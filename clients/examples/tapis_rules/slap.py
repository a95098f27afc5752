"""slap (core/slap/RULES.md): a real-time discard race, in plain Python.

132 cards (four colours, values 1 to 11, three copies) are shuffled once and
dealt evenly into the players' face-down draw piles; each round lays four
columns of 1, 2, 3, 4 cards, `go_ms` later each player turns up a go card as
their discard pile, and everyone plays at once. A player whose columns are
empty slaps a pile (boxing it); the others race to slap the rest. A card is
held here as its code: colour * 11 + value - 1 (R1 = 0 ... Y11 = 43).

Lists of cards (draw piles, columns, discard piles) have their top at the end.
"""
from collections import Counter

from tapis_rules import Illegal, action_type, fields, integer, winners

KINDS, DECK, COLUMNS, MAX_SEATS = 44, 132, 4, 6
SETUP, PLAY, RACE, OVER = "setup", "play", "race", "over"
DEFAULTS = {"go_ms": 1000, "stall_ms": 1500, "max_stalls": 30, "max_rounds": 20}
COLUMN = integer(0, COLUMNS - 1, "no_such_column")
PILE = integer(0, MAX_SEATS - 1, "no_such_pile")
# Each action's fields, in the order of its inline form ("play 2 1").
FIELDS = {"play": (("column", "pile"), (COLUMN, PILE)), "turn": (("column",), (COLUMN,)),
          "move": (("column", "to"), (COLUMN, COLUMN)), "slap": (("pile",), (PILE,))}


def colour(c):
    return c // 11


def value(c):
    return c % 11 + 1


def name(c):
    return "RGBY"[colour(c)] + str(value(c))


def fits(card, top):
    """"Playing": higher and of another colour, or odd on an even card of its own colour."""
    if colour(card) != colour(top):
        return value(card) > value(top)
    return value(card) % 2 == 1 and value(top) % 2 == 0


class Player:
    def __init__(self, draw):
        self.draw = draw                     # face down
        self.cols = [[] for _ in range(COLUMNS)]
        self.up = [False] * COLUMNS          # is the column's top card face up?
        self.slapped = -1                    # the pile this player slapped this round

    def held(self):
        return len(self.draw) + sum(len(c) for c in self.cols)

    def put_under_turned(self, cards):
        """A face-up stack turned over and slid under the draw pile."""
        self.draw[0:0] = cards[::-1]


class Game:
    def __init__(self, seats, options, stream):
        o = dict(DEFAULTS, **options)
        self.seats = seats
        self.go_ms, self.stall_ms = o["go_ms"], o["stall_ms"]
        self.max_stalls, self.max_rounds = o["max_stalls"], o["max_rounds"]
        # Set-up: one shuffle of the 132 cards, dealt in even blocks; the
        # leftovers (interpretation 2) stay out of play.
        deck = stream.shuffle([i % KINDS for i in range(DECK)])
        each = DECK // seats
        self.p = [Player(deck[s * each:(s + 1) * each]) for s in range(seats)]
        self.out = deck[seats * each:]
        self.round = 0
        self.seen = Counter()                # how often each rule came into play
        self.winners = 0
        self.start_round(None)   # interpretation 4: the go is set by the first tick

    # --- rounds -------------------------------------------------------------

    def start_round(self, t):
        """Lay four columns of 1, 2, 3, 4 cards, tops face up; with fewer than
        11 cards keep one for the go and fill the columns in order (interp. 3)."""
        self.round += 1
        self.stalls, self.first, self.phase = 0, -1, SETUP
        self.go_at = None if t is None else t + self.go_ms
        self.stall_at = None
        for p in self.p:
            spare = min(len(p.draw) - 1, 10)
            if spare < 10:
                self.seen["round with fewer than 11 cards"] += 1
            p.slapped = -1
            for c in range(COLUMNS):
                col = p.cols[c] = []
                for _ in range(c + 1):
                    if spare <= 0:
                        break
                    col.append(p.draw.pop())
                    spare -= 1
                p.up[c] = bool(col)
        self.piles = [[] for _ in range(self.seats)]
        self.taken_by = [-1] * self.seats

    def go(self, t):
        """Each player's next draw card turned up: their discard pile."""
        for s, p in enumerate(self.p):
            if p.draw:
                self.piles[s].append(p.draw.pop())
        self.phase, self.go_at = PLAY, None
        self.update_stall(t)

    def end_round(self, t, blocked):
        """Everyone puts the pile they took (blocked: their own) and their
        columns under their draw pile; 0 or 1 card wins, else a new round
        unless max_rounds is reached (the fewest cards win)."""
        for s, p in enumerate(self.p):
            k = s if blocked else p.slapped
            if k >= 0 and (blocked or s != self.first):
                p.put_under_turned(self.piles[k])
                self.piles[k] = []
            for c in range(COLUMNS):
                p.put_under_turned(p.cols[c])
                p.cols[c], p.up[c] = [], False
        self.seen["round ended blocked" if blocked else "round ended by slaps"] += 1
        held = [p.held() for p in self.p]
        low = sum(1 << s for s in range(self.seats) if held[s] <= 1)
        fewest = sum(1 << s for s in range(self.seats) if held[s] == min(held))
        if low or self.round >= self.max_rounds:
            self.phase, self.winners = OVER, low or fewest
            self.seen["end: a player out" if low else "end: max_rounds"] += 1
            self.go_at = self.stall_at = None
        else:
            self.start_round(t)

    def stall(self, t):
        """Nobody can act: one card from each draw pile onto the next pile
        (server rule 3); none left, or max_stalls reached: the round ends blocked."""
        self.stall_at = None
        if not any(p.draw for p in self.p) or self.stalls >= self.max_stalls:
            return self.end_round(t, True)
        self.stalls += 1
        self.seen["stall"] += 1
        for s, p in enumerate(self.p):
            if p.draw:
                self.piles[(s + 1) % self.seats].append(p.draw.pop())
        self.update_stall(t)

    def can_act(self, seat):
        p = self.p[seat]
        if self.phase == RACE:
            return seat != self.first and p.slapped < 0
        if self.phase != PLAY:
            return False
        if not any(p.cols):
            return True                       # the first slap: every pile is free
        some_empty = not all(p.cols)
        for c, col in enumerate(p.cols):
            if not col:
                continue
            if not p.up[c] or (len(col) >= 2 and some_empty):
                return True                   # turn, move
            if any(k and fits(col[-1], k[-1]) for k in self.piles):
                return True
        return False

    def update_stall(self, t):
        """While nobody can act during play, a stall is due stall_ms after that began."""
        if self.phase != PLAY or any(self.can_act(s) for s in range(self.seats)):
            self.stall_at = None
        elif self.stall_at is None:
            self.stall_at = t + self.stall_ms

    # --- the clock ----------------------------------------------------------

    def tick(self, now):
        changed = False
        while True:
            if self.phase == SETUP and self.go_at is None:
                self.go_at = now + self.go_ms
            elif self.phase == SETUP and self.go_at <= now:
                self.go(self.go_at)
            elif self.phase == PLAY and self.stall_at is not None and self.stall_at <= now:
                self.stall(self.stall_at)
            else:
                return changed
            changed = True

    # --- actions ------------------------------------------------------------

    def apply(self, seat, action, now):
        kind = action_type(action, FIELDS, "slap")
        names, kinds = FIELDS[kind]
        a = dict(zip(names, fields(action, names, kinds)))
        self.tick(now)
        self.check(seat, kind, a)
        p = self.p[seat]
        if kind == "play":
            p.up[a["column"]] = False
            self.piles[a["pile"]].append(p.cols[a["column"]].pop())
        elif kind == "turn":
            p.up[a["column"]] = True
        elif kind == "move":
            self.seen["move"] += 1
            p.up[a["column"]] = False
            p.cols[a["to"]], p.up[a["to"]] = [p.cols[a["column"]].pop()], True
        else:
            self.run_slap(seat, a["pile"], now)
        self.update_stall(now)

    def check(self, seat, kind, a):
        if self.phase == OVER:
            raise Illegal("game_over", "the game is over")
        if kind in ("play", "slap") and a["pile"] >= self.seats:
            raise Illegal("no_such_pile", "the piles are 0..%d" % (self.seats - 1))
        if self.phase == SETUP:
            raise Illegal("too_early", "wait for the go")
        p = self.p[seat]
        if kind == "slap":
            if p.slapped >= 0 or seat == self.first:
                raise Illegal("already_slapped", "seat %d has slapped this round" % seat)
            if self.phase == PLAY and any(p.cols):
                raise Illegal("columns_not_empty", "only a player whose columns are empty slaps first")
            if self.taken_by[a["pile"]] >= 0:
                raise Illegal("pile_taken", "pile %d is taken" % a["pile"])
            return
        if self.phase == RACE:
            raise Illegal("round_over", "seat %d has slapped: slap a pile" % self.first)
        c = a["column"]
        col = p.cols[c]
        if kind == "turn":
            if not col:
                raise Illegal("empty_column", "column %d is empty" % c)
            if p.up[c]:
                raise Illegal("already_up", "column %d's top is face up" % c)
            return
        if kind == "move" and a["to"] == c:
            raise Illegal("same_column", "move a card to another column")
        if not col:
            raise Illegal("empty_column", "column %d is empty" % c)
        if not p.up[c]:
            raise Illegal("face_down", "column %d's top card is face down" % c)
        if kind == "move":
            if p.cols[a["to"]]:
                raise Illegal("column_not_empty", "column %d is not empty" % a["to"])
            if len(col) == 1:
                raise Illegal("pointless_move", "moving a column's only card uncovers nothing")
            return
        pile = self.piles[a["pile"]]
        if not pile:
            raise Illegal("empty_pile", "pile %d is empty" % a["pile"])
        if fits(col[-1], pile[-1]):
            return
        if len(pile) >= 2 and fits(col[-1], pile[-2]):
            raise Illegal("too_late", "%s was played on pile %d first" % (name(pile[-1]), a["pile"]))
        raise Illegal("cannot_play", "%s does not go on %s" % (name(col[-1]), name(pile[-1])))

    def run_slap(self, seat, k, t):
        """The first slap boxes pile k and ends play; the others take a pile
        each; the last racer gets the last pile, and the round ends."""
        self.p[seat].slapped, self.taken_by[k] = k, seat
        self.seen["slap"] += 1
        if self.phase == PLAY:
            self.first, self.phase, self.stall_at = seat, RACE, None
            self.piles[k] = []                # boxed: out of the game
        racers = [s for s in range(self.seats) if s != self.first and self.p[s].slapped < 0]
        free = [i for i in range(self.seats) if self.taken_by[i] < 0]
        if len(racers) == 1 and free:
            self.p[racers[0]].slapped, self.taken_by[free[-1]] = free[-1], racers[0]
            self.seen["last pile"] += 1
            racers = []
        if not racers:
            self.end_round(t, False)

    # --- the end ------------------------------------------------------------

    def over(self):
        return self.phase == OVER

    def result(self):
        return {"winners": winners(self.winners, self.seats),
                "cards": [p.held() for p in self.p], "rounds": self.round}
