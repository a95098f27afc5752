"""233 (core/233/RULES.md): groups, combinations, claims and gifts, in plain Python.

A card is its kind (cards of one kind are alike): 0..23 the numbers, colour
* 8 + value - 1 (colours yellow, blue, green; Y1..Y8, B1..B8, G1..G8); 24..27
the symbols red, pink, purple, orange; 28 reverse, 29 joker, 30 gift+5, 31
gift-5, 32 stop. A hand is a list of 33 counts. A group is (kind, cards),
kind one of "double", "triple", "sequence", "square", its cards kinds (jokers
as 29).

The game: 8 cards dealt to each player (gifts laid or given at once and
replaced, stops kept), a card turned up; in turn, draw (a gift is placed, a
+5 at once) or take the discard for a meld, then discard, or lay a square;
others may claim the discard for a meld or to win, the lowest score winning
a dispute; four identical cards must be laid; reverse and stop change who
plays next; a winning combination is declared (with option declare "must",
by the game), the others draw one last card each, and the round is scored;
the game ends after a round in which one total alone passes the target.
"""
from collections import Counter
from functools import lru_cache

from tapis_rules import Illegal, action_type, winners

NAMES = ["%s%d" % (c, v) for c in "YBG" for v in range(1, 9)] + \
    ["red", "pink", "purple", "orange", "reverse", "joker", "gift+5", "gift-5", "stop"]
SYMBOL, REVERSE, JOKER, GIFT_PLUS, GIFT_MINUS, STOP, KINDS = 24, 28, 29, 30, 31, 32, 33
COPIES = [4] * 24 + [5] * 4 + [6, 2, 5, 5, 6]          # 140 cards
DEFAULTS = {"dispute_ms": 200, "max_rebuilds": 3, "target": 233, "claim_sequences": False,
            "declare": "must", "take": "claim"}
SIZE = {"double": 2, "triple": 3, "sequence": 3, "square": 4}
POINTS = {"double": 5, "triple": 10, "sequence": 10, "square": 20}
# What each combination pays its declarer (RULES.md, "Groups and combinations").
COMBO_POINTS = {"2-3-3": 50, "2-3-4": 60, "2-4-4": 70, "super sequence": 70, "rainbow": 100}
DRAW, GIFT, DISCARD, OVER = "draw", "gift", "discard", "over"


def is_number(c):
    return c < SYMBOL


def is_symbol(c):
    return SYMBOL <= c < REVERSE


def is_gift(c):
    return c in (GIFT_PLUS, GIFT_MINUS)


def colour(c):
    return c // 8


def value(c):
    return c % 8 + 1


LOWER = [n.lower() for n in NAMES]


def parse_card(v):
    """A card's name, case-insensitive (ASCII), to its kind."""
    if isinstance(v, str) and v.isascii() and v.lower() in LOWER:
        return LOWER.index(v.lower())
    raise Illegal("unknown_card", "no such card in 233: %r" % (v,))


# ---------------------------------------------------------------------------
# Groups, combinations and points
# ---------------------------------------------------------------------------

def group_ok(kind, cards):
    """Is `cards` a group of `kind`? A joker stands for any card; reverse,
    gifts and stops form no group; a double is of symbols; a sequence is three
    numbers of one colour in a window of three values (no wrap-around)."""
    if len(cards) != SIZE[kind]:
        return False
    real = [c for c in cards if c != JOKER]
    if any(c >= REVERSE for c in real):
        return False
    if kind == "sequence":
        values = [value(c) for c in real]
        return all(is_number(c) for c in real) and len(set(values)) == len(values) and \
            len(set(colour(c) for c in real)) <= 1 and (not real or max(values) - min(values) <= 2)
    if kind == "double" and not all(is_symbol(c) for c in real):
        return False
    return len(set(real)) <= 1


def groups_holding(n, jokers, c):
    """Every group that holds card c, the lowest kind still held (lower kinds are
    all placed): the cards it takes from n (a dict kind -> count) and its jokers."""
    out = []
    for kind in ("square", "triple") + (("double",) if is_symbol(c) else ()):
        for k in range(1, min(n[c], SIZE[kind]) + 1):
            if SIZE[kind] - k <= jokers:
                out.append((kind, {c: k}, SIZE[kind] - k))
    if is_number(c):
        v = value(c)
        for w in range(max(1, v - 2), min(v, 6) + 1):      # the window w, w+1, w+2 holds v
            options = [[]]
            for x in range(w, w + 3):
                if x == v:
                    continue
                card = c + (x - v)
                held = x > v and n[card] > 0                # below v nothing is held any more
                jokered = [o + [JOKER] for o in options]
                options = [o + [card] for o in options] + jokered if held else jokered
            for o in options:
                j = o.count(JOKER)
                if j <= jokers:
                    take = Counter({c: 1})
                    take.update(x for x in o if x != JOKER)
                    out.append(("sequence", dict(take), j))
    return out


def lowest(n, start=0):
    for c in range(start, REVERSE):
        if n[c]:
            return c
    return None


def _take(n, take, sign):
    for card, k in take.items():
        n[card] -= sign * k


@lru_cache(maxsize=None)
def best_points(hand):
    """The points of the best grouping of a hand (a tuple of counts): groups
    need not use every card; jokers left alone make a double (two jokers)."""
    n = list(hand[:REVERSE]) + [0] * (KINDS - REVERSE)
    return _best(tuple(n), hand[JOKER], 0)


@lru_cache(maxsize=None)
def _best(n, jokers, start):
    c = lowest(n, start)
    if c is None:                           # jokers alone: squares, then a triple or double
        points = 0
        while jokers >= 2:
            kind = "square" if jokers >= 4 else "triple" if jokers == 3 else "double"
            points += POINTS[kind]
            jokers -= SIZE[kind]
        return points
    best = 0
    m = list(n)
    for kind, take, j in groups_holding(m, jokers, c):
        _take(m, take, 1)
        best = max(best, POINTS[kind] + _best(tuple(m), jokers - j, c))
        _take(m, take, -1)
    m[c] = 0                                # or every copy of c left out of the groups
    return max(best, _best(tuple(m), jokers, c + 1))


@lru_cache(maxsize=None)
def _fits(n, jokers, need):
    """Can the cards of n and the jokers be split exactly into the groups in
    need = (doubles, groups of three, squares)?"""
    c = lowest(n)
    if c is None:
        return jokers == 2 * need[0] + 3 * need[1] + 4 * need[2]
    m = list(n)
    for kind, take, j in groups_holding(m, jokers, c):
        slot = SIZE[kind] - 2
        if not need[slot]:
            continue
        _take(m, take, 1)
        rest = list(need)
        rest[slot] -= 1
        ok = _fits(tuple(m), jokers - j, tuple(rest))
        _take(m, take, -1)
        if ok:
            return True
    return False


def is_rainbow(hand, last_drawn):
    """8 cards in hand: the 4 symbols, one number of each colour, 1 special card
    (a reverse, or a gift or stop drawn last), jokers for any of them."""
    if sum(hand) != 8 or any(hand[c] > 1 for c in range(SYMBOL, REVERSE)):
        return False
    if any(sum(hand[col * 8:col * 8 + 8]) > 1 for col in range(3)):
        return False
    special = hand[REVERSE]
    for c in (GIFT_PLUS, GIFT_MINUS, STOP):
        if hand[c] and c != last_drawn:
            return False
        special += hand[c]
    return special <= 1


@lru_cache(maxsize=None)
def combo(hand, melds, last_drawn):
    """The winning combination of a hand (a tuple of counts) with its locked
    melds (a tuple of groups), or None: every card is used."""
    total = sum(hand) + sum(len(cards) for _, cards in melds)
    if any(not group_ok(kind, list(cards)) for kind, cards in melds) or not 8 <= total <= 10:
        return None
    if not melds and is_rainbow(hand, last_drawn):
        return "rainbow"
    if any(hand[c] for c in (REVERSE, GIFT_PLUS, GIFT_MINUS, STOP)):
        return None
    if total == 8:
        every = list(hand)
        for _, cards in melds:
            for c in cards:
                every[c] += 1
        if all(x <= 1 for x in every[:SYMBOL]) and not any(every[SYMBOL:REVERSE]) and \
                len(set(colour(c) for c in range(SYMBOL) if every[c])) <= 1:
            return "super sequence"
    name, need = {8: ("2-3-3", [1, 2, 0]), 9: ("2-3-4", [1, 1, 1]), 10: ("2-4-4", [1, 0, 2])}[total]
    for kind, _ in melds:
        need[SIZE[kind] - 2] -= 1
        if need[SIZE[kind] - 2] < 0:
            return None
    n = tuple(list(hand[:REVERSE]) + [0] * (KINDS - REVERSE))
    return name if _fits(n, hand[JOKER], tuple(need)) else None


def round_points(hand, melds, declared):
    """A declared (or rainbow) combination pays its total; otherwise the melds
    as laid plus the best grouping of the hand."""
    if declared:
        return COMBO_POINTS[declared]
    return sum(POINTS[kind] for kind, _ in melds) + best_points(hand)


# ---------------------------------------------------------------------------
# Actions on the wire
# ---------------------------------------------------------------------------

def _keys_ok(action, keys):
    return all(k in ("type", "args") + keys for k in action)


def _cards(v, lo, hi):
    if not isinstance(v, list):
        raise Illegal("bad_action", "\"cards\" must be a list of card names")
    if not lo <= len(v) <= hi:
        raise Illegal("bad_action", "give %d to %d cards" % (lo, hi))
    return sorted(parse_card(x) for x in v)


def parse(action):
    """An action as a dict: type, and cards, card, declare, final, to."""
    kind = action_type(action, ("draw", "take", "declare", "discard", "lay", "claim", "gift"), "233")
    args = action.get("args")
    if args is not None and not isinstance(args, list):
        raise Illegal("bad_action", "\"args\" must be a list")
    args = args or []
    a = {"type": kind, "cards": [], "card": None, "declare": False, "final": False, "to": -1}
    bare = _keys_ok(action, ()) and not args
    if kind in ("draw", "declare"):
        if not bare:
            raise Illegal("bad_action", "this action takes no arguments")
    elif kind == "discard":
        if not _keys_ok(action, ("card", "declare")):
            raise Illegal("bad_action", "discard takes \"card\" and \"declare\"")
        card = args[0] if args else action.get("card")
        if not isinstance(card, str):
            raise Illegal("bad_action", "discard needs a \"card\"")
        a["card"] = parse_card(card)
        if "declare" in action and action["declare"] is not True:
            raise Illegal("bad_action", "\"declare\" is true, or left out")
        if len(args) > 2 or (len(args) == 2 and args[1] != "declare"):
            raise Illegal("bad_action", "inline: discard CARD [declare]")
        a["declare"] = action.get("declare") is True or len(args) == 2
    elif kind == "lay":
        if not _keys_ok(action, ("cards",)):
            raise Illegal("bad_action", "lay takes \"cards\"")
        a["cards"] = _cards(args if args else action.get("cards"), 4, 4)
    elif kind in ("take", "claim") and not (kind == "take" and bare):
        if not _keys_ok(action, ("cards", "final")):
            raise Illegal("bad_action", "claim and take take \"cards\" or \"final\"")
        if "final" in action and action["final"] is not True:
            raise Illegal("bad_action", "\"final\" is true, or left out")
        a["final"] = args == ["final"] or action.get("final") is True
        if a["final"]:
            if "cards" in action:
                raise Illegal("bad_action", "claim and take take \"cards\" or \"final\"")
        else:
            a["cards"] = _cards(args if args else action.get("cards"), 1, 3)
    elif kind == "gift":
        if not _keys_ok(action, ("to",)):
            raise Illegal("bad_action", "gift takes \"to\"")
        if len(args) > 1:
            raise Illegal("bad_action", "inline: gift [SEAT]")
        present = bool(args) or "to" in action
        to = args[0] if args else action.get("to")
        if isinstance(to, str):
            if not to.strip().lstrip("+-").isdigit() or not 0 <= int(to) < 8:
                raise Illegal("bad_action", "\"to\" must be a seat number")
            a["to"] = int(to)
        elif present:
            if not isinstance(to, int) or isinstance(to, bool):
                raise Illegal("bad_action", "\"to\" must be a seat number")
            a["to"] = to if 0 <= to < 8 else 8
    return a


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------

class Player:
    def __init__(self, score):
        self.hand = [0] * KINDS
        self.melds = []          # locked groups: (kind, tuple of cards)
        self.gifts_plus = self.gifts_minus = 0
        self.score = score       # the game's total; gifts count at once
        self.last_drawn = -1     # the last card drawn from the pile this round
        self.to_place = 0        # dealt -5s still to give
        self.last_done = False   # made their last draw after a declaration


class Game:
    def __init__(self, seats, options, stream):
        if not 2 <= seats <= 6:
            raise Illegal("bad_players", "233 is for 2 to 6 players")
        o = dict(DEFAULTS, **options)
        self.seats, self.stream = seats, stream
        self.dispute_ms, self.max_rebuilds, self.target = o["dispute_ms"], o["max_rebuilds"], o["target"]
        self.claim_sequences = o["claim_sequences"]
        self.declare_must, self.take_draw = o["declare"] == "must", o["take"] == "draw"
        self.seen = Counter()                # how often each rule came into play
        self.p = [Player(0) for _ in range(seats)]
        self.round, self.winners = 0, 0
        self.start_round(0)
        self.declare_if_must()

    # --- seats and cards ----------------------------------------------------

    def next(self, seat, k):
        return (seat + k * self.dir) % self.seats

    def top(self):
        return self.discard[-1] if self.discard else -1

    def combo_of(self, seat, hand=None, last=None):
        p = self.p[seat]
        return combo(tuple(p.hand if hand is None else hand), tuple(p.melds),
                     p.last_drawn if last is None else last)

    def placing(self):
        return any(p.to_place for p in self.p)

    # --- the deal -----------------------------------------------------------

    def start_round(self, dealer):
        """Shuffle the 140 cards; deal 8 to each, one at a time, left of the
        dealer: a +5 is laid at once and a -5 kept to give, each replaced; turn
        up the topmost card that is no gift or stop; shuffle the pile again
        (the gifts and stops passed over go back in at random)."""
        self.draw = self.stream.shuffle([c for c in range(KINDS) for _ in range(COPIES[c])])
        self.discard = []
        self.p = [Player(p.score) for p in self.p]
        self.round += 1
        for _ in range(8):
            for i in range(1, self.seats + 1):
                self.deal_one((dealer + i) % self.seats)
        i = len(self.draw) - 1
        while self.draw[i] in (GIFT_PLUS, GIFT_MINUS, STOP):
            i -= 1
        self.discard.append(self.draw.pop(i))
        self.draw = self.stream.shuffle(self.draw)
        self.discarder, self.dealer, self.turn, self.dir = -1, dealer, dealer, 1
        self.rebuilds, self.phase, self.open, self.must_win = 0, DRAW, True, False
        self.claims, self.declarer, self.declared = [], -1, None

    def deal_one(self, s):
        p = self.p[s]
        while True:
            c = self.draw.pop()
            if c == GIFT_PLUS:
                p.gifts_plus += 1
                p.score += 5
                self.seen["+5 dealt"] += 1
                continue
            p.hand[c] += 1
            if c != GIFT_MINUS:
                return
            p.to_place += 1
            self.seen["-5 dealt"] += 1

    # --- checks -------------------------------------------------------------

    def combo_after_discard(self, seat, c, last, rainbow):
        """Could seat, holding its hand plus c, discard another card and hold a
        combination (only a rainbow if `rainbow`), with `last` drawn last?"""
        h = list(self.p[seat].hand)
        h[c] += 1
        for x in range(KINDS):
            if not h[x] or x == c:
                continue
            h[x] -= 1
            k = self.combo_of(seat, h, last)
            h[x] += 1
            if (k == "rainbow") if rainbow else k is not None:
                return True
        return False

    def discard_wins(self, seat, card):
        """Discarding card leaves a combination a discard may declare: any
        before a declaration, only a rainbow during the last draws."""
        rest = list(self.p[seat].hand)
        rest[card] -= 1
        c = self.combo_of(seat, rest)
        return c is not None and (self.declarer < 0 or c == "rainbow")

    def check_turn(self, seat, phase, pending_ok):
        if seat != self.turn:
            raise Illegal("not_your_turn", "it is seat %d's turn" % self.turn)
        if self.phase != phase:
            if self.phase == GIFT:
                raise Illegal("must_place_gift", "place the gift you drew first")
            if phase == DRAW:
                raise Illegal("must_discard", "seat %d has drawn: discard" % seat)
            raise Illegal("must_draw", "draw a card first")
        if self.claims and phase == DRAW and not pending_ok:
            raise Illegal("claim_pending", "a claim on the discard is being settled")

    def check_available(self, seat):
        t = self.top()
        if t < 0 or (not self.open and self.declarer < 0):
            raise Illegal("too_late", "the discard is no longer available")
        if t == STOP:
            raise Illegal("cannot_take", "a stop cannot be kept")
        if self.discarder == seat:
            raise Illegal("own_discard", "seat %d cannot take back its own discard" % seat)
        if any(c["seat"] == seat for c in self.claims):
            raise Illegal("already_claimed", "seat %d already claimed this discard" % seat)

    def check_meld(self, seat, a):
        """The discard completes a winning combination (final), or with the cards
        named makes a triple or square (a sequence with claim_sequences)."""
        t, h = self.top(), self.p[seat].hand
        if a["final"]:
            if not self.combo_after_discard(seat, t, -1, self.declarer >= 0):
                raise Illegal("cannot_claim", "%s does not complete a winning combination" % NAMES[t])
            return
        if any(a["cards"].count(c) > h[c] for c in a["cards"]):
            raise Illegal("not_in_hand", "seat %d does not hold those cards" % seat)
        if len(a["cards"]) == 1:
            raise Illegal("cannot_claim", "a discard never makes a double during the round")
        if len(a["cards"]) == 2 and sum(h) < 3:
            raise Illegal("cannot_claim", "no card would be left to discard")
        meld = a["cards"] + [t]
        if (len(meld) == 3 and group_ok("triple", meld)) or (len(meld) == 4 and group_ok("square", meld)) \
                or (len(meld) == 3 and self.claim_sequences and group_ok("sequence", meld)):
            return
        raise Illegal("cannot_claim", "a claimed discard must make a triple or a square")

    def check(self, seat, a):
        if self.phase == OVER:
            raise Illegal("game_over", "the game is over")
        p, kind = self.p[seat], a["type"]
        if self.placing():                   # dealt -5s first, all at once
            if not p.to_place:
                raise Illegal("deal_pending", "wait: the deal is not settled yet")
            if kind != "gift":
                raise Illegal("must_place_gift", "give the -5 gift you were dealt first")
            if not 0 <= a["to"] < self.seats or a["to"] == seat:
                raise Illegal("bad_target", "give the -5 gift to another seat")
            return
        if kind == "draw":
            return self.check_turn(seat, DRAW, False)
        if kind == "take":
            self.check_turn(seat, DRAW, True)
            self.check_available(seat)
            if self.take_draw:
                if a["cards"] or a["final"]:
                    raise Illegal("bad_action", "with option take \"draw\", take the discard alone")
                return
            if not a["cards"] and not a["final"]:
                raise Illegal("cannot_take", "the discard is taken only to meld or to win")
            return self.check_meld(seat, a)
        if kind == "declare":
            self.check_turn(seat, DRAW, False)
            if self.declarer >= 0:
                raise Illegal("round_ending", "seat %d has already declared" % self.declarer)
            if self.combo_of(seat) is None:
                raise Illegal("no_combination", "not a winning combination")
            return
        if kind == "discard":
            return self.check_discard(seat, a)
        if kind == "lay":
            self.check_turn(seat, DISCARD, False)
            if self.must_win:
                raise Illegal("must_declare", "seat %d claimed the discard to win" % seat)
            if any(a["cards"].count(c) > p.hand[c] for c in a["cards"]):
                raise Illegal("not_in_hand", "seat %d does not hold those cards" % seat)
            if not group_ok("square", a["cards"]):
                raise Illegal("not_a_square", "only four identical cards are laid")
            return
        if kind == "claim":
            if seat == self.turn:
                raise Illegal("use_take", "on your turn, take the discard with \"take\"")
            if self.declarer >= 0:
                raise Illegal("round_ending", "the round is ending: no more claims")
            if self.phase != DRAW:
                raise Illegal("too_late", "the discard is no longer available")
            self.check_available(seat)
            return self.check_meld(seat, a)
        self.check_turn(seat, GIFT, False)   # a drawn gift
        if p.hand[GIFT_MINUS]:
            if not 0 <= a["to"] < self.seats or a["to"] == seat:
                raise Illegal("bad_target", "give the -5 gift to another seat")
        elif a["to"] >= 0 and a["to"] != seat:
            raise Illegal("bad_target", "a +5 gift is placed in front of you")

    def check_discard(self, seat, a):
        if seat != self.turn:
            raise Illegal("not_your_turn", "it is seat %d's turn" % self.turn)
        h, c = self.p[seat].hand, a["card"]
        if self.phase == GIFT and not a["declare"]:
            raise Illegal("must_place_gift", "place the gift you drew first")
        if self.phase not in (DISCARD, GIFT):
            raise Illegal("must_draw", "draw a card first")
        if not h[c]:
            raise Illegal("not_in_hand", "seat %d holds no %s" % (seat, NAMES[c]))
        if is_gift(c):
            raise Illegal("cannot_discard_gift", "a gift is placed face up, not discarded")
        if self.must_win and not a["declare"]:
            raise Illegal("must_declare", "seat %d claimed the discard to win" % seat)
        if any(h[k] >= 4 for k in range(REVERSE)) and not self.must_win:
            raise Illegal("must_lay_square", "four identical cards must be laid first")
        wins = self.discard_wins(seat, c)
        # declare "must": when some discard leaves a winning combination, only such a discard.
        must = self.declare_must and self.phase == DISCARD
        if must and not wins and any(h[k] and not is_gift(k) and self.discard_wins(seat, k)
                                     for k in range(KINDS)):
            raise Illegal("must_declare", "another discard leaves a winning combination")
        if h[STOP] and c != STOP and not a["declare"] and not (must and wins):
            raise Illegal("must_discard_stop", "a stop cannot be kept: discard it")
        if a["declare"] and not wins:
            raise Illegal("no_combination", "those cards are not a winning combination")

    # --- running ------------------------------------------------------------

    def apply(self, seat, action, now):
        a = parse(action)
        self.tick(now)
        self.check(seat, a)
        kind = a["type"]
        if kind == "draw":
            self.run_draw(seat)
        elif kind in ("take", "claim"):
            self.add_claim(seat, a, now)
        elif kind == "declare":
            self.seen["declare before drawing"] += 1
            self.start_last_draws(seat, self.combo_of(seat))
        elif kind == "discard":
            self.run_discard(seat, a["card"], a["declare"])
        elif kind == "lay":
            p = self.p[seat]
            p.melds.append(("square", tuple(a["cards"])))
            for c in a["cards"]:
                p.hand[c] -= 1
            self.phase = DRAW                # a square takes the place of the discard
            self.seen["square laid" + (" with a joker" if JOKER in a["cards"] else "")] += 1
        else:
            self.run_gift(seat, a["to"])
        self.declare_if_must()

    def tick(self, now):
        """Claims received up to window_end make a dispute; after it, settle it."""
        if not self.claims or now <= self.window_end:
            return False
        self.resolve_claims()
        self.declare_if_must()
        return True

    def next_turn(self, seat):
        self.turn, self.phase, self.must_win = seat, DRAW, False

    def refill(self):
        """An empty draw pile is rebuilt from the discards but the top one,
        shuffled; after max_rebuilds (or with nothing to rebuild) the round ends."""
        if self.draw:
            return True
        if self.rebuilds >= self.max_rebuilds or len(self.discard) <= 1:
            self.end_round()
            return False
        self.draw = self.stream.shuffle(self.discard[:-1])
        self.discard = self.discard[-1:]
        self.rebuilds += 1
        self.seen["rebuilt draw pile"] += 1
        return True

    def run_draw(self, seat):
        p = self.p[seat]
        if not self.refill():
            return
        c = self.draw.pop()
        self.open = False
        p.last_drawn = c
        if is_gift(c):
            # A drawn +5 is placed at once (and the player draws again), unless
            # it makes a rainbow's special card; a -5 waits to be given.
            if c == GIFT_PLUS and not self.combo_after_discard(seat, c, c, True):
                p.gifts_plus += 1
                p.score += 5
                self.seen["+5 drawn"] += 1
                return
            p.hand[c] += 1
            self.phase = GIFT
            return
        p.hand[c] += 1
        self.phase = DISCARD

    def run_gift(self, seat, to):
        p = self.p[seat]
        if p.to_place:                       # dealt: the turn does not move
            p.to_place -= 1
            p.hand[GIFT_MINUS] -= 1
            self.p[to].gifts_minus += 1
            self.p[to].score -= 5
            return
        if p.hand[GIFT_MINUS]:
            p.hand[GIFT_MINUS] -= 1
            self.p[to].gifts_minus += 1
            self.p[to].score -= 5
            self.seen["-5 drawn and given"] += 1
        else:
            p.hand[GIFT_PLUS] -= 1
            p.gifts_plus += 1
            p.score += 5
        self.phase = DRAW

    def run_discard(self, seat, c, declare):
        p = self.p[seat]
        p.hand[c] -= 1
        self.discard.append(c)
        self.discarder = seat
        if self.declarer >= 0:               # a last draw: no effects, no claims
            p.last_done, self.open = True, True
            return self.next_last_draw()
        found = self.combo_of(seat) if declare or self.declare_must else None
        if found is not None:
            self.open = False
            return self.start_last_draws(seat, found)
        self.open = True
        if c == REVERSE:
            self.dir = -self.dir
            nxt = seat if self.seats == 2 else self.next(seat, 1)
            self.seen["reverse"] += 1
        elif c == STOP:
            nxt = seat if self.seats == 2 else self.next(seat, 2)
            self.seen["stop"] += 1
        else:
            nxt = self.next(seat, 1)
        self.next_turn(nxt)

    def add_claim(self, seat, a, now):
        claim = {"seat": seat, "take": a["type"] == "take"}
        if claim["take"] and not a["cards"] and not a["final"]:
            claim["kind"] = "take"
        elif a["final"]:
            claim["kind"] = "final"
        else:
            cards = tuple(a["cards"] + [self.top()])
            kind = "square" if len(cards) == 4 else \
                "triple" if group_ok("triple", list(cards)) else "sequence"
            claim["kind"], claim["meld"] = "meld", (kind, cards)
        self.claims.append(claim)
        if len(self.claims) == 1:
            self.window_end = now + self.dispute_ms
        if self.declarer >= 0 or self.dispute_ms <= 0:
            self.resolve_claims()

    def resolve_claims(self):
        """The race for the discard: the lowest score wins, ties to the earliest."""
        win = self.claims[0]
        for c in self.claims[1:]:
            if self.p[c["seat"]].score < self.p[win["seat"]].score:
                win = c
        self.seen["claim out of turn" if not win["take"] else "take"] += 1
        if len(self.claims) > 1:
            self.seen["disputed claim"] += 1
        self.claims = []
        t = self.discard.pop()
        p = self.p[win["seat"]]
        self.open = False
        if not win["take"]:
            self.next_turn(win["seat"])
        p.last_drawn = -1
        if win["kind"] == "meld":
            kind, cards = win["meld"]
            p.melds.append(win["meld"])
            for c in cards[:-1]:
                p.hand[c] -= 1
            self.seen["meld: " + kind + (" with a joker" if JOKER in cards else "")] += 1
            self.phase = DRAW if kind == "square" else DISCARD
            return
        p.hand[t] += 1
        self.phase = DISCARD
        self.must_win = win["kind"] == "final"
        if self.must_win:
            self.seen["discard taken to win"] += 1

    def start_last_draws(self, seat, found):
        """A declaration: each other player in turn draws one last card."""
        self.declarer, self.declared = seat, found
        self.seen["declared: " + found] += 1
        for s, p in enumerate(self.p):
            p.last_done = s == seat
        self.turn = seat
        self.next_last_draw()

    def next_last_draw(self):
        for k in range(1, self.seats + 1):
            s = self.next(self.turn, k)
            if not self.p[s].last_done:
                return self.next_turn(s)
        self.end_round()

    def declare_if_must(self):
        """Option declare "must": a player whose cards win as their turn comes declares."""
        if not self.declare_must or self.phase != DRAW or self.declarer >= 0 or self.claims \
                or self.placing():
            return
        found = self.combo_of(self.turn)
        if found is not None:
            self.start_last_draws(self.turn, found)

    def end_round(self):
        """Score the round; one total alone over the target ends the game, else
        the declarer (or the next seat) deals the next round."""
        self.seen["round declared" if self.declarer >= 0 else "round with the pile run out"] += 1
        for s, p in enumerate(self.p):
            found = self.declared if s == self.declarer else None
            if found is None and self.combo_of(s) == "rainbow":
                found = "rainbow"
                self.seen["rainbow not declared"] += 1
            p.score += round_points(tuple(p.hand), tuple(p.melds), found)
        best = max(p.score for p in self.p)
        top = [s for s, p in enumerate(self.p) if p.score == best]
        if best > self.target and len(top) == 1:
            self.phase, self.winners, self.claims = OVER, 1 << top[0], []
            return
        self.start_round(self.declarer if self.declarer >= 0 else (self.dealer + 1) % self.seats)

    # --- the end ------------------------------------------------------------

    def over(self):
        return self.phase == OVER

    def result(self):
        return {"winners": winners(self.winners, self.seats),
                "scores": [p.score for p in self.p], "rounds": self.round}
