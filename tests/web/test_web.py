#!/usr/bin/python3
"""test_web.py — the web client (web/) in a real browser: Debian's chromium,
driven by chromedriver through python3-selenium, headless, the page served
by tapisd itself (--web-root pointing at the source web/ folder).

Usage: /usr/bin/python3 tests/web/test_web.py build/server/tapisd [test-name...]
(TAPIS_WEB_SCREENS=DIR keeps the screenshots there; meson sets
build/tests/web/screens/TEST). Exits 77 (skipped) only when chromium,
chromedriver or selenium is not installed: deploy/dev installs them.

Length: over 800 lines on purpose: every test drives the one Page (the
browser and the log of the frames it received), and the hidden-information
check of every frame applies to all of them.

For each game a person plays a whole game against server bots by clicking
(or pressing the key of) an action the page offers, one taken from the DOM
each time, until the page shows the result, which must name the winners
the server announced. Meanwhile:
- every WebSocket frame the page receives (Chrome's performance log,
  Network.webSocketFrameReceived) is checked against the server's
  hidden-information rule: a state the page gets is the spectator's view of
  the same seq (a watcher on the line protocol records them) plus only the
  seat's own keys (seat, hand, legal, ...), its hand as long as the public
  count of its cards says; every card the DOM ever shows came in a frame;
- at As.point3, whose 52 cards are all different, the other seat is a
  person on the line protocol whose hidden cards (hand, swapped_out) are
  known at every seq: none of them is in any frame of the page or any DOM
  node at that seq unless the public view shows it too;
- the page offers every legal action of its view as a button;
- every request the page makes goes to tapisd's origin, and the page comes
  with the Content-Security-Policy header.
A reload in mid-game puts the player back in the seat with the same hand.
A finished seqnum and a finished slap game are found in the history and
their replays stepped through (buttons, arrow keys, End): each step is
drawn by the game's table drawing from the spectator's view the server
replays (`replay ID step=N`), compared with that view fetched on the line
protocol; 233's dispute countdown runs the view's dispute_ms. A rated
table watched by the page shows each seat's rating beside its name, as the
room's summary gives it. The page answers the server's pings: its seat
shows the round trip measured (lag_ms), to itself and to a watching page.
In each game the page shows the deal's commitment before the deal, gives
a seed typed in its seed box (seat 0 then seeded in the room event), and
at the result shows the server seed revealed, which hashes to the
commitment, and its own seed as text.
Screenshots at desktop and phone width go to the screens folder.
Length: over 800 lines on purpose: one browser session and its frame
checks serve every test, and they are read together.
"""
import hashlib
import json
import os
import random
import shutil
import socket
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "server"))

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
except ImportError:
    print("skipped: python3-selenium is not installed (deploy/dev installs it)")
    sys.exit(77)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
    print("skipped: chromium or chromium-driver is not installed (deploy/dev installs them)")
    sys.exit(77)

from harness import Server, test, run_tests, wait_for, Player, play  # noqa: E402

WEB = os.path.join(ROOT, "web")
SCREENS = os.environ.get("TAPIS_WEB_SCREENS") or os.path.join(os.getcwd(), "screens")
SEED = int(os.environ.get("TAPIS_WEB_SEED") or random.randrange(1, 1 << 30))
GAME_TIMEOUT = 120
# The keys of a seated player's view that a spectator's lacks (core/*/view.c's
# view_seat and game_write_own, server/room/room_play.c's at_once).
OWN_KEYS = {"seat", "hand", "legal", "at_once", "must_win", "last_drawn", "swapped_out",
            "team"}
# Short games (core/<game>/RULES.md, "Options").
# "timers": count-downs the table must have drawn at least once in a game
# (every state is drawn as it comes, so a state that has one shows it).
GAMES = {
    "233": {"players": 4, "options": {"target": "30", "max_rebuilds": "0", "dispute_ms": "100"},
            "timers": ["Turn timer"]},
    "aspoint3": {"players": 2, "options": {"rounds": "1", "target": "120"}, "timers": ["Turn timer"]},
    "seqnum": {"players": 2, "options": {"max_turns": "80"}, "timers": ["Turn timer", "must draw"]},
    "slap": {"players": 3, "options": {"max_rounds": "1", "go_ms": "300", "stall_ms": "300"},
             "timers": ["Turn timer", "Go in"]},
}


def server(*extra):
    return Server(sys.argv[1], "--web-root", WEB, "--bot-delay", "30-60", "--seed", str(SEED),
                  "--dispute-window", "50", *extra)


def strings(v, out):
    """Every string value in a JSON value."""
    if isinstance(v, str):
        out.add(v)
    elif isinstance(v, list):
        for x in v:
            strings(x, out)
    elif isinstance(v, dict):
        for x in v.values():
            strings(x, out)
    return out


# -- a watcher: the spectator's views, by seq, on the line protocol --

class Recorder:
    """A line-protocol client whose messages a thread records (the
    spectator's views by seq, or a player's). With a Player, it also plays
    at random (harness.play)."""

    def __init__(self, srv, name, room, watch=True, seat=None):
        self.c = srv.connect(name)
        self.room = room
        self.states = {}  # seq -> view
        self.over = None
        if watch:
            self.c.ok("watch", room=room)
            self.thread = threading.Thread(target=self.watch, daemon=True)
        else:
            self.c.ok("join", room=room, **({} if seat is None else {"seat": seat}))
            self.player = Player(self.c, room)
            self.thread = threading.Thread(target=self.play, daemon=True)
        self.error = None
        self.thread.start()

    def record(self, m):
        if m.get("ev") == "state" and m.get("room") == self.room:
            self.states[m["seq"]] = m["view"]
        elif m.get("ev") == "game_over" and m.get("room") == self.room:
            self.over = m

    def watch(self):
        try:
            while not self.over:
                self.record(self.c.event(timeout=GAME_TIMEOUT))
        except Exception as e:  # noqa: BLE001 — reported by join()
            if not self.over:
                self.error = e

    def play(self):
        try:
            play([self.player], random.Random(SEED), timeout=GAME_TIMEOUT,
                 check=lambda p, m: self.record(m))
        except Exception as e:  # noqa: BLE001
            self.error = e

    def stop(self):
        """Stop recording before the end of the game."""
        self.over = self.over or {"stopped": True}
        try:
            self.c.sock.shutdown(socket.SHUT_RDWR)  # wakes the thread's recv
        except OSError:
            pass
        self.c.close()
        self.thread.join(GAME_TIMEOUT)

    def join(self):
        self.thread.join(GAME_TIMEOUT)
        assert not self.thread.is_alive(), "%s never saw game_over" % self.c.name
        assert self.error is None, "%s: %r" % (self.c.name, self.error)
        self.c.close()


# -- the browser --

class Page:
    def __init__(self, srv, width=1200, height=900):
        o = webdriver.ChromeOptions()
        o.binary_location = CHROMIUM
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=%d,%d" % (width, height), "--no-first-run", "--disable-extensions",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"):
            o.add_argument(a)
        o.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        self.d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=o)
        self.d.set_script_timeout(10)
        self.srv = srv
        self.origin = "http://127.0.0.1:%d" % srv.port
        self.frames = []  # every WebSocket message received, parsed
        self.urls = []  # every request and WebSocket the page opened
        self.responses = []  # (url, headers)
        self.transferred = 0  # bytes of the HTTP responses, headers included
        self.dom_cards = []  # (seq, [data-card values]) sampled during play
        self.name = None
        self.resize(width, height)
        self.d.get(self.origin + "/")

    def resize(self, width, height):
        """The page's width in CSS pixels, a phone's too (a headless window
        is at least 500 px wide: the device metrics are set instead)."""
        self.width = width
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500})

    def fits(self):
        """Nothing sticks out sideways: no horizontal scrolling at this width."""
        sw, w = self.js("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert sw <= self.width and w <= self.width, "the page is %d px wide (viewport %d) at %d px" % (sw, w, self.width)

    def quit(self):
        try:
            self.collect()
            errors = [l for l in self.d.get_log("browser") if l.get("level") == "SEVERE"
                      and "favicon" not in l.get("message", "")]
            assert not errors, "the page logged errors: %r" % errors
        finally:
            self.d.quit()

    def collect(self):
        for e in self.d.get_log("performance"):
            m = json.loads(e["message"])["message"]
            p = m.get("params", {})
            if m["method"] == "Network.webSocketFrameReceived":
                self.frames.append(json.loads(p["response"]["payloadData"]))
            elif m["method"] == "Network.requestWillBeSent":
                self.urls.append(p["request"]["url"])
            elif m["method"] == "Network.webSocketCreated":
                self.urls.append(p["url"])
            elif m["method"] == "Network.loadingFinished":
                self.transferred += int(p.get("encodedDataLength", 0))
            elif m["method"] == "Network.responseReceived":
                self.responses.append((p["response"]["url"], p["response"].get("headers", {})))

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def table(self):
        """The table on screen, as the page holds it."""
        return self.js("""const t = window.tapisApp && window.tapisApp.current;
            return t && t.summary ? {room: t.room, seq: t.seq, status: t.summary.status, seat: t.seat,
              over: !!t.result, legal: (t.view && t.view.legal) || [], game: t.summary.game} : null;""")

    def screenshot(self, name):
        os.makedirs(SCREENS, exist_ok=True)
        self.js("window.scrollTo(0, 0)")
        self.d.save_screenshot(os.path.join(SCREENS, name + ".png"))

    def wait(self, cond, what, timeout=20):
        return wait_for(cond, what, timeout=timeout, every=0.05)

    def hello(self, name, lobby=True):
        """Give the name; the page then shows the lobby (or, opened on an
        invitation, lobby=False, the table)."""
        self.name = name
        box = self.wait(lambda: self.d.find_elements(By.ID, "name"), "the name form")[0]
        box.clear()
        box.send_keys(name)
        self.d.find_element(By.ID, "hello").click()
        if lobby:
            self.wait(lambda: self.d.find_elements(By.ID, "create-go"), "the lobby")

    def create(self, game, players, options, private=False):
        """Create a table through the lobby's form (no bot yet) and return its room."""
        Select(self.d.find_element(By.ID, "create-game")).select_by_value(game)
        Select(self.d.find_element(By.ID, "create-players")).select_by_value(str(players))
        Select(self.d.find_element(By.ID, "create-bots")).select_by_value("0")
        self.d.find_element(By.CSS_SELECTOR, "form.create details summary").click()
        for k, v in options.items():
            box = self.d.find_element(By.ID, "opt-%s-%s" % (game, k))
            box.clear()
            box.send_keys(v)
        if private:
            self.d.find_element(By.ID, "create-private").click()
        self.d.find_element(By.ID, "create-go").click()
        t = self.wait(lambda: self.table(), "the new table")
        return t["room"]

    def click(self, by, selector, what=None):
        """Click the element, again if the page redrew it meanwhile."""
        def once():
            try:
                self.d.find_element(by, selector).click()
                return True
            except (StaleElementReferenceException, WebDriverException):
                return False
        self.wait(once, what or selector)

    def add_bots(self, n, level="greedy"):
        def add():  # a room event (a watcher came) may redraw the form under us
            try:
                Select(self.d.find_element(By.ID, "bot-level")).select_by_value(level)
                self.d.find_element(By.CSS_SELECTOR, "button.addbot").click()
                return True
            except (StaleElementReferenceException, WebDriverException):
                return False
        seated = lambda: self.js("return window.tapisApp.current.summary.seats.filter(Boolean).length")
        for _ in range(n):
            before = seated()
            self.wait(add, "the Add a bot button")
            self.wait(lambda: seated() > before, "the bot seated")

    # One look at the page (one round trip): the table as the page holds it,
    # the cards its DOM shows, the legal actions it does not offer, and the
    # enabled action buttons with their actions and keys.
    LOOK = """const game = arguments[0];
        const t = window.tapisApp && window.tapisApp.current;
        if (!t || !t.summary) return null;
        const key = (a) => JSON.stringify(Object.keys(a).sort().reduce((o, k) => (o[k] = a[k], o), {}));
        const buttons = [...document.querySelectorAll('section.table button.act')].filter((b) => !b.disabled);
        const shown = new Set(buttons.map((b) => key(JSON.parse(b.dataset.action))));
        const picks = new Set([...document.querySelectorAll('section.table button.pick:not([disabled]) [data-card]')].map(
            (c) => c.dataset.card));
        const legal = (t.view && t.view.legal) || [];
        return {room: t.room, seq: t.seq, status: t.summary.status, seat: t.seat, over: !!t.result,
            shown: !document.querySelector('.result').hidden,
            cards: [...document.querySelectorAll('[data-card]')].map((e) => e.dataset.card),
            missing: t.summary.status === 'playing' ? legal.filter((a) => !shown.has(key(a)) &&
                !(game === 'seqnum' && a.type === 'play' && picks.has(a.card))) : [],
            offers: buttons.map((b) => [b, b.dataset.action, (b.querySelector('kbd') || {}).textContent || null])};"""

    def look(self, game):
        return self.js(self.LOOK, game)

    def play_to_end(self, rng, game, shots=None, on_step=None, timeout=GAME_TIMEOUT, until=None):
        """Click (or press the key of) an offered action, one at a time, until
        the page shows the result (or until(sent) is true). Returns the
        number of actions sent."""
        deadline = time.monotonic() + timeout
        sent = 0
        shot_at = rng.randint(0, 2)  # early: a short game may end soon
        while True:
            assert time.monotonic() < deadline, "%s: no result on the page after %d s" % (game, timeout)
            t = self.look(game)
            if t:
                self.dom_cards.append((t["seq"], t["cards"]))
            if (t and t["over"] and t["shown"]) or (until and until(sent)):
                self.collect()
                return sent
            if on_step and on_step(self, sent):
                continue
            if t and t["missing"]:
                # A state may come between the reads: judge only a still view.
                again = self.look(game)
                assert not again["missing"] or again["seq"] != t["seq"], "legal actions not offered: %r" % again["missing"]
            offers = (t or {}).get("offers") or []
            if not offers:
                time.sleep(0.02)  # nothing to do until the next state
                continue
            if shots and sent >= shot_at and t["status"] == "playing":
                for name, size in shots.items():
                    self.resize(*size)
                    self.fits()
                    self.screenshot("%s-%s-play" % (game, name))
                self.resize(*shots["desktop"])
                shots = None
                continue  # the page may have moved on meanwhile
            el, action, key = rng.choice(offers)
            try:
                if key and rng.random() < 0.4:
                    ActionChains(self.d).send_keys(key).perform()
                else:
                    el.click()
                sent += 1
            except (StaleElementReferenceException, WebDriverException):
                continue  # the table changed under the mouse: choose again
            # The next choice is made on the state this action made (or any later one).
            try:
                self.wait(lambda: (self.table() or {}).get("seq", 0) > t["seq"] or (self.table() or {}).get("over"),
                          "a new state", timeout=3)
            except AssertionError:
                pass  # refused (the state had moved on): the page says why; choose again
            if sent % 20 == 0:
                self.collect()

    def keyboard_move(self, tabs=60):
        """Play one offered action with the keyboard alone: Tab until an
        action button has the focus (which must show), then Enter."""
        seq = self.table()["seq"]
        body = self.d.find_element(By.TAG_NAME, "body")
        self.js("document.activeElement && document.activeElement.blur()")
        for _ in range(tabs):
            ActionChains(self.d).send_keys(Keys.TAB).perform()
            focus = self.js("""const e = document.activeElement; const s = getComputedStyle(e);
                return [e.classList.contains('act'), s.outlineStyle, s.boxShadow];""")
            if focus[0]:
                assert focus[1] != "none" or focus[2] != "none", "the focused action does not show its focus: %r" % focus
                ActionChains(self.d).send_keys(Keys.ENTER).perform()
                self.wait(lambda: self.table()["seq"] > seq, "the state after Enter")
                return
        raise AssertionError("no action button reached with %d tabs (body %r)" % (tabs, body.text[:200]))

    def result_text(self):
        return self.d.find_element(By.CSS_SELECTOR, ".result").text


# -- the checks on what the page received --

def check_frames(page, room, watcher, others=()):
    """Every state of `room` in the page's frames is the spectator's view of
    that seq plus the seat's own keys only; its hand holds as many cards as
    the public view gives the seat. `others`: Recorders of other seated
    people, whose hidden cards (hand, swapped_out) at each seq must be in no
    frame of the page unless the public view holds them too."""
    checked = 0
    for m in page.frames:
        if m.get("room") != room or "view" not in m:
            continue
        view = m["view"]
        seq = m["seq"]
        assert seq in watcher.states, "the watcher has no state %d" % seq
        public = watcher.states[seq]
        mine = {k: v for k, v in view.items() if k not in OWN_KEYS}
        assert mine == public, "state %d: the page's view differs from the spectator's beyond its own keys:\n%s\n%s" % (
            seq, json.dumps(mine, sort_keys=True)[:2000], json.dumps(public, sort_keys=True)[:2000])
        seat = view.get("seat")
        assert isinstance(seat, int), "state %d: no seat in a player's view" % seq
        hand = view.get("hand")
        count = [p for p in public["players"] if p["seat"] == seat][0].get("cards")
        if public["game"] == "slap":
            assert hand == [], "slap: a hand is always empty, got %r" % hand
        elif public["game"] == "233":
            assert len(hand) == count, "233 state %d: hand of %d cards, the table says %d" % (seq, len(hand), count)
        else:
            assert len(hand) == count, "state %d: hand of %d cards, the table says %d" % (seq, len(hand), count)
        pub = strings(public, set())
        for o in others:
            ov = o.states.get(seq)
            if ov is None:
                continue
            hidden = set(ov.get("hand") or []) | ({ov["swapped_out"]} if ov.get("swapped_out") else set())
            leaked = (strings(view, set()) & hidden) - pub
            assert not leaked, "state %d: the page received seat %s's hidden %r" % (seq, ov.get("seat"), leaked)
        checked += 1
    return checked


def check_dom(page, others=(), watcher=None):
    """Every card the DOM showed came in a frame of the page; with `others`,
    none was another seat's hidden card at that seq (unless public)."""
    received = set()
    for m in page.frames:
        strings(m, received)
    for seq, cards in page.dom_cards:
        unknown = set(cards) - received
        assert not unknown, "the DOM shows cards no frame brought: %r" % unknown
        for o in others:
            ov = o.states.get(seq)
            if ov is None or watcher is None or seq not in watcher.states:
                continue
            hidden = set(ov.get("hand") or []) | ({ov["swapped_out"]} if ov.get("swapped_out") else set())
            leaked = (set(cards) & hidden) - strings(watcher.states[seq], set())
            assert not leaked, "seq %d: the DOM shows seat %s's hidden %r" % (seq, ov.get("seat"), leaked)


def check_csp(csp):
    """default-src 'self', and no directive that lets anything else in."""
    assert csp, "no Content-Security-Policy header"
    rules = {}
    for directive in csp.split(";"):
        words = directive.split()
        if words:
            rules[words[0]] = words[1:]
    assert rules.get("default-src") == ["'self'"], csp
    for name, sources in rules.items():
        assert set(sources) <= {"'self'", "'none'"}, "%s lets in %r" % (name, sources)


def check_origin(page):
    bad = [u for u in page.urls if not (u.startswith(page.origin + "/") or
                                        u.startswith(page.origin.replace("http:", "ws:") + "/"))]
    assert not bad, "the page asked outside tapisd: %r" % bad
    assert any(u.startswith("ws://") for u in page.urls), "no WebSocket seen in the log: %r" % page.urls


def shots_sizes():
    return {"desktop": (1200, 900), "phone": (375, 812)}


DEAL_SHOWN = """const p = document.querySelector('p.deal');
    return [p.querySelector('code.commit').textContent, p.textContent];"""


def give_a_seed(page, room, players, text):
    """Before the game (docs/FAIRNESS.md): the page shows the commitment its
    room summary gives; a seed typed in the page's seed box makes seat 0
    seeded in the room event that follows. Returns the commitment."""
    d = page.wait(lambda: page.js("return window.tapisApp.current.summary.deal"), "the deal in the summary")
    assert d["seeded"] == [False] * players and len(d["commit"]) == 64, d
    shown = page.js(DEAL_SHOWN)  # read at once: a room event draws it again
    assert shown[0] == d["commit"], (shown, d)
    box = page.d.find_element(By.ID, "seed-text")
    box.send_keys(text)
    page.click(By.ID, "seed-go")
    page.wait(lambda: page.js("return window.tapisApp.current.summary.deal.seeded[0]"), "seat 0 seeded")
    page.collect()
    ev = [m for m in page.frames if m.get("ev") == "room" and m.get("room") == room][-1]
    assert ev["deal"]["seeded"] == [True] + [False] * (players - 1), ev
    assert ev["deal"]["commit"] == d["commit"], ev  # the commitment never changes
    shown = page.wait(lambda: (lambda x: x if "1 of" in x[1] else None)(page.js(DEAL_SHOWN)), "seeded shown")
    assert shown == [d["commit"], "Deal commitment %s · 1 of %d seats gave a seed" % (d["commit"], players)], shown
    return d["commit"]


def check_reveal(page, room, commit, text):
    """At the result the page shows the server seed game_over revealed (it
    hashes to the commitment shown before the deal) and the seed it gave,
    as text."""
    page.collect()
    over = [m for m in page.frames if m.get("ev") == "game_over" and m.get("room") == room][-1]
    deal = over["deal"]
    assert hashlib.blake2b(bytes.fromhex(deal["server_seed"]), digest_size=32).hexdigest() == commit, deal
    assert deal["commit"] == commit and deal["seeds"][0] == text, deal
    # read at once: the result is drawn again as events come
    shown = page.wait(lambda: page.js("""const p = document.querySelector('.result p.reveal');
        return p && [p.querySelector('code.server-seed').textContent, p.querySelector('.seeds').textContent,
                     p.querySelectorAll('.seeds *').length];"""), "the seeds revealed")
    assert shown[0] == deal["server_seed"], shown
    assert json.dumps(text) in shown[1], shown
    assert shown[2] == 0, "a seed became HTML: %r" % shown


def play_game(srv, game, rng, name):
    spec = GAMES[game]
    page = Page(srv)
    try:
        page.hello(name)
        room = page.create(game, spec["players"], spec["options"])
        watcher = Recorder(srv, "w-" + name, room)
        seed = '%s\'s <b>seed</b> & "more"' % name
        commit = give_a_seed(page, room, spec["players"], seed)
        page.add_bots(spec["players"] - 1)
        if game == "aspoint3":  # seat 0 starts: a first move by the keyboard alone
            page.wait(lambda: page.table()["legal"], "the first legal actions")
            page.keyboard_move()
        page.play_to_end(rng, game, shots=shots_sizes())
        watcher.join()
        text = page.result_text()
        winners = watcher.over["result"]["winners"]
        seats = page.js("return window.tapisApp.current.summary.seats")
        for w in winners:
            who = seats[w]["name"] if not seats[w].get("bot") else ("bot " + str(w))
            assert who in text, "%s: the result on the page does not name %s: %r" % (game, who, text)
        check_reveal(page, room, commit, seed)
        shown = page.js("return [...window.tapisApp.current.timersShown]")
        for want in spec["timers"]:
            assert any(want in x for x in shown), "%s: no %r count-down was drawn: %r" % (game, want, shown)
        for label, size in shots_sizes().items():
            page.resize(*size)
            page.fits()
            page.screenshot("%s-%s-result" % (game, label))
        page.collect()
        n = check_frames(page, room, watcher)
        assert n > 3, "%s: only %d states checked" % (game, n)
        check_dom(page)
        check_origin(page)
        print("  %s: %d states checked, result %r" % (game, n, watcher.over["result"]))
    finally:
        page.quit()


@test
def page_is_served_with_its_csp_and_nothing_from_outside(exe):
    with server() as srv:
        with urllib.request.urlopen("http://127.0.0.1:%d/" % srv.port, timeout=10) as r:
            body = r.read()
            assert r.status == 200 and b'<script type="module" src="app.js">' in body
            check_csp(r.headers.get("Content-Security-Policy"))
        total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(WEB) for f in fs)
        # Received text never becomes HTML or code: no API in web/ that would.
        for d, _, fs in os.walk(WEB):
            for f in fs:
                if f.endswith(".js"):
                    src = open(os.path.join(d, f), encoding="utf-8").read()
                    for bad in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
                        assert bad not in src, "%s uses %s" % (f, bad)
        assert total < 300 * 1024, "web/ weighs %d bytes" % total
        page = Page(srv)
        try:
            page.hello("cora")
            page.collect()
            doc = [h for u, h in page.responses if u == page.origin + "/"]
            assert doc, "no response for the page in the log"
            check_csp({k.lower(): v for k, v in doc[0].items()}.get("content-security-policy"))
            check_origin(page)
            assert page.transferred < 300 * 1024, "the page took %d bytes" % page.transferred
            print("  web/: %d bytes; the page loaded %d resources, %d bytes transferred" % (
                total, len(page.urls), page.transferred))
        finally:
            page.quit()


def game_test(n, game, name):
    """person_plays_GAME_to_the_result: `name` against the server's bots."""
    def fn(exe):
        with server() as srv:
            play_game(srv, game, random.Random(SEED + n), name)
    fn.__name__ = "person_plays_%s_to_the_result" % game
    return test(fn)


for _n, (_game, _name) in enumerate([("233", "ann"), ("aspoint3", "ben"), ("seqnum", "cyd"), ("slap", "dee")]):
    game_test(_n, _game, _name)


@test
def reload_or_lost_network_mid_game_resumes_the_seat(exe):
    with server() as srv:
        page = Page(srv)
        try:
            page.hello("eve")
            room = page.create("233", 4, {"target": "60", "max_rebuilds": "0"})
            watcher = Recorder(srv, "w-eve", room)
            page.add_bots(3)
            rng = random.Random(SEED + 4)
            reloaded = []

            def same_seat_and_hand(p, before):
                """The page is back at the table, in seat 0, its hand drawn."""
                back = p.wait(lambda: (lambda t: t if t and t["room"] == room and t["seq"] > 0 and
                                       p.js("return window.tapisApp.proto.connected") else None)(p.table()),
                              "the table after coming back")
                assert back["seat"] == 0, "eve is not back in seat 0: %r" % back
                assert not p.d.find_elements(By.ID, "name"), "the page asked the name again"
                # The same hand, unless the game moved on meanwhile (then the seq says so).
                after = p.js("return [window.tapisApp.current.seq, window.tapisApp.current.view.hand]")
                if after[0] == before[0]:
                    assert sorted(after[1]) == sorted(before[1]), "another hand: %r %r" % (before, after)
                shown = p.js("return [...document.querySelectorAll('.hand [data-card]')].map((e) => e.dataset.card)")
                assert sorted(shown) == sorted(after[1]), "the hand drawn is not the hand held: %r %r" % (shown, after)

            def snapshot(p):
                return p.js("return [window.tapisApp.current.seq, window.tapisApp.current.view.hand]")

            def come_back(p, sent):
                """After 2 moves a reload; after 4 the network drops (the
                page's WebSocket closes under it, as a lost connection does)."""
                t = p.table()
                if t["over"] or len(reloaded) >= 2 or sent < 2 * (len(reloaded) + 1):
                    return False
                before = snapshot(p)
                if not reloaded:
                    p.d.refresh()
                else:
                    p.js("window.tapisApp.proto.ws.close()")
                    p.wait(lambda: not p.js("return window.tapisApp.proto.connected"), "the dropped socket")
                same_seat_and_hand(p, before)
                reloaded.append(before[0])
                return True

            # Two moves more after coming back the second time are enough.
            page.play_to_end(rng, "233", on_step=come_back, until=lambda sent: sent >= 8)
            assert reloaded, "the game ended before the reload"
            print("  came back %d time(s), at seq %r" % (len(reloaded), reloaded))
            page.collect()
            last = max(m["seq"] for m in page.frames if m.get("room") == room and "seq" in m)
            wait_for(lambda: last in watcher.states, "the watcher at seq %d" % last)
            watcher.stop()
            check_frames(page, room, watcher)
        finally:
            page.quit()


@test
def no_hidden_card_reaches_the_page_over_random_games(exe):
    """As.point3 against a person on the line protocol, whose hidden cards
    are known at every seq, over several games of the server's seeds."""
    with server() as srv:
        page = Page(srv)
        try:
            page.hello("fay")
            for g in range(3):
                if g:
                    page.click(By.ID, "nav-lobby")
                    page.wait(lambda: page.d.find_elements(By.ID, "create-go"), "the lobby")
                room = page.create("aspoint3", 2, {"rounds": "1", "target": "120"})
                watcher = Recorder(srv, "w%d-fay" % g, room)
                other = Recorder(srv, "o%d-fay" % g, room, watch=False)
                page.collect()
                page.frames = []
                page.dom_cards = []
                page.play_to_end(random.Random(SEED + 10 + g), "aspoint3")
                watcher.join()
                other.join()
                page.collect()
                n = check_frames(page, room, watcher, others=[other])
                check_dom(page, others=[other], watcher=watcher)
                print("  game %d (room %s): %d states checked" % (g, room, n))
        finally:
            page.quit()


@test
def lobby_lists_rooms_a_page_at_a_time_with_filters(exe):
    with server() as srv:
        host = srv.connect("host")
        made = {}
        for i in range(13):
            game = ["233", "aspoint3", "seqnum", "slap"][i % 4]
            made[host.ok("create", game=game, players=2)["room"]] = game
        page = Page(srv)
        try:
            page.hello("kim")
            shown = lambda: page.js("return [...document.querySelectorAll('li.room')].map((e) => e.dataset.room)")
            first = page.wait(lambda: shown() if len(shown()) == 10 else None, "a first page of 10 rooms")
            assert "1–10 of 13" in page.d.find_element(By.CSS_SELECTOR, ".pager").text
            page.click(By.XPATH, "//button[contains(., 'Older')]")
            second = page.wait(lambda: shown() if len(shown()) == 3 else None, "a second page of 3 rooms")
            assert set(first) | set(second) == set(made), (first, second, made)
            page.screenshot("lobby-desktop")
            Select(page.d.find_element(By.ID, "rooms-game")).select_by_value("slap")
            slaps = page.wait(lambda: (lambda r: r if r and all(made[x] == "slap" for x in r) else None)(shown()),
                              "the slap rooms only")
            assert sorted(slaps) == sorted(r for r, g in made.items() if g == "slap"), slaps
            page.resize(375, 812)
            page.fits()
            page.screenshot("lobby-phone")
        finally:
            page.quit()


@test
def private_table_by_its_link_and_its_code(exe):
    """A private table: its code is shown to its creator, a second person
    opens the invitation link (#join=CODE) and takes the seat, a third
    types the code and watches."""
    with server() as srv:
        pages = [Page(srv), Page(srv, 375, 812), Page(srv)]
        try:
            a, b, c = pages
            a.hello("lea")
            room = a.create("aspoint3", 2, {}, private=True)
            assert room.startswith("p") and len(room) == 14, room
            invite = a.d.find_element(By.CSS_SELECTOR, "a.invite-link")
            assert invite.text == room, invite.text
            b.d.get(invite.get_attribute("href"))
            b.hello("max", lobby=False)
            t = b.wait(lambda: (lambda t: t if t and t["status"] == "playing" and t["seq"] else None)(b.table()),
                       "the private game started on the invited page")
            assert t["room"] == room and t["seat"] == 1, t
            c.hello("ned")
            c.d.find_element(By.ID, "join-code").send_keys(room)
            c.click(By.XPATH, "//form[contains(@class,'join')]//button[.='Watch']")
            t = c.wait(lambda: (lambda t: t if t and t["seq"] else None)(c.table()), "the watched private table")
            assert t["room"] == room and t["seat"] is None, t
            b.fits()
            b.screenshot("aspoint3-phone-invited")
            for p in pages:
                p.collect()
                check_origin(p)
        finally:
            for p in pages:
                p.quit()


REPLAY_CARDS = """return [...document.querySelectorAll('.rboard [data-card]')].map((e) => e.dataset.card);"""


def check_replay_step(page, obs, room, n, game):
    """The replay viewer shows step n, drawn from the view the server gives
    (obs asks for it over the line protocol): nothing to play, no hand, only
    cards of that view, and the game's own marks of it."""
    page.wait(lambda: page.js("return document.querySelector('section.replay').dataset.step") == str(n),
              "step %d drawn" % n)
    view = obs.ok("replay", game_id=room, step=n)["view"]
    assert not page.d.find_elements(By.CSS_SELECTOR, ".rboard .hand, .rboard button.act"), \
        "the replay offers actions or shows a hand"
    cards = page.js(REPLAY_CARDS)
    assert set(cards) <= strings(view, set()), (game, n, cards)
    if game == "seqnum":
        chips = page.js("return document.querySelectorAll('.rboard .chip').length")
        assert chips == sum(c >= 0 for c in view["chips"]) + len(view["players"]), (n, chips)
    elif game == "slap":
        for p in view["piles"]:
            fig = page.d.find_element(By.CSS_SELECTOR, '.rboard figure.slappile[data-pile="%d"]' % p["pile"])
            assert (" %d card" % p["cards"]) in fig.find_element(By.TAG_NAME, "figcaption").text, (n, p)
            top = [c.get_attribute("data-card") for c in fig.find_elements(By.CSS_SELECTOR, "[data-card]")]
            assert top == ([p["top"]] if p["top"] else []), (n, p, top)
    return view


@test
def history_lists_the_game_and_the_replay_steps_through_it(exe):
    """For seqnum and slap, a game played through the page is in its history,
    and its replay, stepped with the buttons and the arrow keys, draws every
    step with the game's table drawing from the view the server replays."""
    db = os.path.join(SCREENS, "..", "web-history.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    os.makedirs(os.path.dirname(db), exist_ok=True)
    with Server(sys.argv[1], "--web-root", WEB, "--bot-delay", "30-60", "--seed", str(SEED), "--db", db,
                "--line-rate", "100000") as srv:
        page = Page(srv)
        obs = srv.connect("obs")
        try:
            # 233's dispute countdown runs the window the view gives (the room's dispute_ms)
            for ms in (750, 0):
                got = page.d.execute_async_script("""const done = arguments[arguments.length - 1];
                    import("/games/233.js").then((m) => done(m.countdowns(
                        {claims: [1], dispute_ms: arguments[0], discard_pile: 3, round: 1}, {received: 1000})));""", ms)
                assert got == [{"label": "Dispute window", "at": 1000 + ms}], got
            page.hello("ida")
            for k, game in enumerate(("seqnum", "slap")):
                if k:
                    page.js("window.tapisApp.showLobby()")
                    page.wait(lambda: page.d.find_elements(By.ID, "create-go"), "the lobby")
                room = page.create(game, 2, GAMES[game]["options"])
                page.add_bots(1)
                page.play_to_end(random.Random(SEED + 5 + k), game)
                page.click(By.XPATH, "//div[contains(@class,'result')]//button[contains(., 'History')]")
                row = page.wait(lambda: page.d.find_elements(By.CSS_SELECTOR, 'ul.games li[data-game="%s"]' % room),
                                "the game in the history")[0]
                assert "ida" in row.text and "won by" in row.text, row.text
                page.click(By.CSS_SELECTOR, 'ul.games li[data-game="%s"] button.replay' % room)
                page.wait(lambda: page.d.find_elements(By.ID, "replay-next"), "the replay viewer")
                assert "Before the first move" in page.d.find_element(By.CSS_SELECTOR, ".replay .step").text
                steps = int(page.js("return document.querySelector('#replay-range').max"))
                rec = obs.ok("replay", game_id=room)["record"]
                assert steps == sum(a["kind"] in ("act", "tick") for a in rec["actions"]) > 2, steps
                first = check_replay_step(page, obs, room, 0, game)
                page.click(By.ID, "replay-next")
                assert "Move 1 of %d" % steps in page.d.find_element(By.CSS_SELECTOR, ".replay .step").text
                check_replay_step(page, obs, room, 1, game)
                box = page.d.find_element(By.CSS_SELECTOR, "section.replay")
                box.send_keys(Keys.ARROW_RIGHT)
                check_replay_step(page, obs, room, 2, game)
                box.send_keys(Keys.ARROW_LEFT)
                check_replay_step(page, obs, room, 1, game)
                # the first moves one key at a time, then the end key and the buttons
                for n in range(2, min(steps, 30) + 1):
                    box.send_keys(Keys.ARROW_RIGHT)
                    check_replay_step(page, obs, room, n, game)
                box.send_keys(Keys.END)
                last = check_replay_step(page, obs, room, steps, game)
                assert last != first, game
                assert page.js("return document.querySelector('#replay-range').value") == str(steps)
                page.click(By.ID, "replay-first")
                check_replay_step(page, obs, room, 0, game)
                page.click(By.ID, "replay-last")
                check_replay_step(page, obs, room, steps, game)
                if game == "seqnum" and last["sequences"]:
                    # the board at the end frames the winning sequence, as the table did
                    assert page.js("return document.querySelectorAll('.rboard .sqcell.inseq').length") >= 5, \
                        "no sequence framed at the end of the replay"
                page.resize(1200, 900)
                page.screenshot("%s-desktop-replay" % game)
                page.resize(375, 812)
                page.wait(lambda: page.js("return window.innerWidth") <= 375, "the phone's width")
                page.fits()
                page.screenshot("%s-phone-replay" % game)
                page.resize(1200, 900)
        finally:
            page.quit()
        srv.finish()


def answered_a_ping(page):
    """The page answered one of the server's pings: a pong's reply, with the
    server's estimate (lag_ms), came back in a frame."""
    page.collect()
    return any(m.get("ok") and isinstance(m.get("lag_ms"), int) and "ev" not in m
               for m in page.frames)


LAG_SHOWN = """return [...document.querySelectorAll('li.seat')].map((li) =>
    (li.querySelector('.lag') || {}).textContent || null);"""


@test
def spectator_sees_the_table_and_chat_is_text(exe):
    """Also: the page answers the server's pings (--ping-interval here), so
    its seat shows the round trip the server measured (lag_ms in the room's
    summary), to itself and to a page that watches; a bot's seat shows none."""
    with server("--ping-interval", "200") as srv:
        player, watcher = Page(srv), Page(srv, 375, 812)
        try:
            player.hello("gus")
            player.wait(lambda: answered_a_ping(player), "a pong of the page answered")
            room = player.create("seqnum", 2, {})
            player.add_bots(1, level="easy")  # slow: the game is still on below
            lag = player.wait(lambda: player.js("return window.tapisApp.current.summary.seats[0].lag_ms"),
                              "lag_ms beside the page's seat")
            assert isinstance(lag, int) and lag >= 1, lag
            shown = player.wait(lambda: (lambda l: l if l[0] else None)(player.js(LAG_SHOWN)), "the lag drawn")
            assert shown == [" %d ms" % lag, None], shown
            watcher.hello("hal")
            watcher.click(By.CSS_SELECTOR, 'li.room[data-room="%s"] button.watch' % room, "the room's Watch button")
            t = watcher.wait(lambda: (lambda t: t if t and t["seq"] > 0 else None)(watcher.table()), "the watched table")
            assert t["room"] == room and t["seat"] is None, t
            assert not watcher.d.find_elements(By.CSS_SELECTOR, "section.table button.act, .hand"), \
                "a spectator is offered actions or shown a hand"
            assert watcher.d.find_elements(By.CSS_SELECTOR, ".sqboard .sqcell"), "no board for the spectator"
            seen = watcher.js("return window.tapisApp.current.summary.seats.map((x) => x && x.lag_ms)")
            assert isinstance(seen[0], int) and seen[0] >= 1 and seen[1] is None, seen
            assert watcher.js(LAG_SHOWN) == [" %d ms" % seen[0], None], watcher.js(LAG_SHOWN)
            text = '<img src=x onerror="window.pwned=1"><b>gg</b> & "quotes"'
            box = player.d.find_element(By.ID, "chat-text")
            box.send_keys(text)
            box.send_keys(Keys.ENTER)
            for p in (player, watcher):
                li = p.wait(lambda: p.d.find_elements(By.CSS_SELECTOR, ".chatlist li"), "the chat line")[-1]
                assert li.text == "gus: " + text, li.text
                assert not li.find_elements(By.CSS_SELECTOR, "img, b > b"), "chat text became HTML"
                assert not p.js("return window.pwned"), "chat text ran a script"
            watcher.fits()
            watcher.screenshot("seqnum-phone-spectator")
            player.collect()
            watcher.collect()
            check_origin(watcher)
        finally:
            player.quit()
            watcher.quit()


@test
def a_rated_table_shows_ratings_beside_the_seats_names(exe):
    """A rated table (an account and a bot level, opened on the line
    protocol): the page that watches it shows each seat's rating (μ − 3σ,
    one decimal) beside its name, as the room's summary gives it."""
    with Server(sys.argv[1], "--web-root", WEB, "--bot-delay", "30-60", "--seed", str(SEED),
                "--pwhash", "min") as srv:
        alice = srv.connect()
        alice.ok("register", name="alice", password="alice-password")
        alice.ok("hello", name="alice", password="alice-password")
        lost = alice.ok("create", game="aspoint3", players=2, rated=True)["room"]
        alice.ok("addbot", room=lost, strategy="normal")
        alice.ok("leave", room=lost)  # a loss: alice and the bot level leave 0.0
        room = alice.ok("create", game="aspoint3", players=2, rated=True)["room"]
        alice.ok("addbot", room=room, strategy="normal:60000")  # slow: the game stays on
        seats = alice.ok("state", room=room)["seats"]
        assert all(isinstance(x.get("rating"), (int, float)) for x in seats), seats
        assert seats[0]["rating"] < 0 < seats[1]["rating"], seats
        page = Page(srv)
        try:
            page.hello("ivy")
            page.click(By.CSS_SELECTOR, 'li.room[data-room="%s"] button.watch' % room, "the room's Watch button")
            page.wait(lambda: (lambda t: t if t and t["room"] == room and t["seq"] else None)(page.table()),
                      "the watched rated table")
            shown = page.wait(lambda: page.js("""return [...document.querySelectorAll('li.seat')].map((li) =>
                [li.querySelector('b').textContent, (li.querySelector('.rating') || {}).textContent || null]);"""),
                "the seats")
            want = [[x["name"] if not x.get("bot") else "bot (%s)" % x["strategy"], " %.1f" % x["rating"]]
                    for x in seats]
            assert shown == want, (shown, want)
            page.screenshot("aspoint3-rated-spectator")
            page.collect()
            check_origin(page)
        finally:
            page.quit()


if __name__ == "__main__":
    if os.path.isdir(SCREENS):  # this run's screenshots only
        for f in os.listdir(SCREENS):
            if f.endswith(".png"):
                os.unlink(os.path.join(SCREENS, f))
    print("seed %d (TAPIS_WEB_SEED=%d to repeat)" % (SEED, SEED), flush=True)
    run_tests(sys.argv)
