"""The rules of tapis's games in plain Python, for clients/examples/verify.py.

One module a game, each a port of its core/<game>/RULES.md written apart from
the server's C code: it deals from the stream verify.py gives it, applies the
journal's moves checking each is legal for the seat that made it, settles the
game's deadlines (`tick` entries), and gives the result.

Every game module has one class, `Game(seats, options, stream)`:

    game.tick(now)                 settle what is due at `now`; True if anything was
    game.apply(seat, action, now)  settle what is due, then play `action`, or raise
                                   Illegal (nothing changed) saying why
    game.over()                    is the game over?
    game.result()                  the result, as the record shows it

`stream` is verify.py's Stream: `shuffle(list)` and `below(n)` read the deal's
ChaCha20 stream in the order the game's core does.
"""


class Illegal(Exception):
    """A move the rules refuse: str() is `code: why`."""

    def __init__(self, code, why):
        super().__init__("%s: %s" % (code, why))
        self.code = code


def fields(action, names, kinds):
    """The named fields of `action` (a dict), in order, or its inline "args"
    (the protocol's `play 2 1`). Every other key is refused. `kinds` gives each
    field's check: a function of the value that returns it or raises Illegal."""
    if not isinstance(action, dict):
        raise Illegal("bad_action", "an action is a JSON object with a \"type\"")
    args = action.get("args")
    allowed = {"type", "args"} | set(names)
    extra = [k for k in action if k not in allowed]
    if extra:
        raise Illegal("bad_action", "%s takes %s (or \"args\"), not %r"
                      % (action.get("type"), list(names), extra))
    if args is not None:
        if not isinstance(args, list) or len(args) != len(names):
            raise Illegal("bad_action", "inline: %s takes %d values" % (action["type"], len(names)))
        values = args
    else:
        missing = [n for n in names if n not in action]
        if missing:
            raise Illegal("bad_action", "%s needs %r" % (action["type"], missing[0]))
        values = [action[n] for n in names]
    return [check(v) for check, v in zip(kinds, values)]


def integer(lo, hi, code):
    """A field's check: an integer in [lo, hi], else `code`."""
    def check(v):
        if not isinstance(v, int) or isinstance(v, bool):
            raise Illegal("bad_action", "%r is not an integer" % (v,))
        if not lo <= v <= hi:
            raise Illegal(code, "%d is not in %d..%d" % (v, lo, hi))
        return v
    return check


def action_type(action, names, title):
    """The action's "type", one of names, else Illegal."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise Illegal("bad_action", "an action needs a \"type\" string")
    if action["type"] not in names:
        raise Illegal("unknown_action", "%s has no action %r" % (title, action["type"]))
    return action["type"]


def winners(mask, seats):
    """The seats of a bit mask, lowest first (a result's "winners")."""
    return [s for s in range(seats) if mask >> s & 1]


def load(game):
    """The module of `game` (its protocol id), or None if there is none here."""
    import importlib
    name = {"233": "g233"}.get(game, game)
    try:
        return importlib.import_module("tapis_rules." + name)
    except ImportError:
        return None
