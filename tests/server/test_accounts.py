"""test_accounts.py — accounts, ratings and the leaderboard over real sockets.

Accounts: register (JSON and inline), hello with a password or the key,
guests kept off registered names, bad_password, not_found, rate_limited per
name and per address, the order of replies while a hash runs on a thread, a
register whose connection closes, passwords and keys in neither the log nor
the database, and everything kept across a restart. Ratings: a rated game
played to game_over moves both players' ratings (the event, profile, the
room's seats), a seat that abandons loses, guests play casual only, nothing
another client sends moves a rating it does not play for, the leaderboard
lists the provisional apart. tapisd runs with --pwhash min (Argon2id at its
least cost: the interactive cost takes seconds under a sanitizer).

Usage: python3 tests/server/test_accounts.py build/server/tapisd [test...]
"""
import contextlib
import os
import random
import socket
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (Client, Player, Server, is_ev, play, run_tests,  # noqa: E402
                     test, wait_for)

PASSWORD = "Pa55-w0rd-of-alice"  # distinctive: searched for in the log and the database


def server(exe, *args, db=None):
    extra = ["--db", db] if db else []
    return Server(exe, "--pwhash", "min", "--log-level", "debug", "--bot-delay", "0",
                  *(extra + list(args)))


def client_from(s, source):
    """A client of s whose connection comes from address `source` (127.0.0.0/8)."""
    c = Client.__new__(Client)
    c.sock = socket.socket()
    c.sock.settimeout(10)
    c.sock.bind((source, 0))
    c.sock.connect(("127.0.0.1", s.port))
    c.buf, c.events, c.all, c.closed, c.token, c.name = b"", [], [], False, None, None
    return c


@contextlib.contextmanager
def database():
    """The path of a database in a temporary folder, for servers that restart on it."""
    with tempfile.TemporaryDirectory() as tmp:
        yield os.path.join(tmp, "t.db")


def same(a, b):
    """Two replies equal but for their ids."""
    return {k: v for k, v in a.items() if k != "id"} == {k: v for k, v in b.items() if k != "id"}


def err(reply):
    assert reply.get("ok") is False, "expected an error: %r" % reply
    return reply["error"]["code"]


def account(s, name, password=PASSWORD):
    """A new client registered as `name` and logged in; returns (client, key)."""
    c = s.connect()
    key = c.ok("register", name=name, password=password)["key"]
    r = c.ok("hello", name=name, password=password)
    assert r["account"] is True and r["name"] == name, r
    c.name = name
    return c, key


def rating_of(c, name, game):
    for r in c.ok("profile", name=name)["ratings"]:
        if r["game"] == game:
            return r
    return None


def play_rated(s, a, b, game="aspoint3", seed=1):
    """a and b (logged in) play one rated game of `game` to game_over; returns b's game_over."""
    room = a.ok("create", game=game, players=2, rated=True)["room"]
    b.ok("join", room=room)
    pa, pb = Player(a, room), Player(b, room)
    play([pa, pb], random.Random(seed), timeout=120)
    return room, pa.over, pb.over


# ------------------------------------------------------------------ accounts ---

@test
def register_then_hello_with_the_password_or_the_key(exe):
    with server(exe) as s:
        c = s.connect()
        r = c.ok("register", name="Alice", password=PASSWORD)
        assert r["name"] == "Alice" and len(r["key"]) == 32 and r["logged_in"] is False, r
        key = r["key"]
        c.ok("hello", name="alice", password=PASSWORD)  # the name as registered comes back
        assert c.ok("profile")["name"] == "Alice"
        d = s.connect()
        r = d.ok("hello", name="ALICE", key=key)  # takes the account's session over
        assert r["account"] is True and r["name"] == "Alice" and r["resumed"] is True, r
        assert "key" not in d.ok("profile", name="Alice"), "the key is shown once only"
        # The inline forms.
        e = s.connect()
        e.send_raw("register bob b0b-secret-pass\n")
        m = e.recv()
        assert m["ok"] and m["name"] == "bob", m
        e.send_raw("hello bob password=b0b-secret-pass\n")
        m = e.recv()
        assert m["ok"] and m["account"] is True, m
        e.send_raw("hello bob key=%s\n" % m["token"])  # a token is no key
        assert e.recv()["error"]["code"] == "bad_password"


@test
def a_guest_who_registers_its_own_name_is_logged_in(exe):
    with server(exe) as s:
        c = s.connect()
        c.hello("carol")
        r = c.ok("register", name="carol", password=PASSWORD)
        assert r["logged_in"] is True, r
        assert c.ok("create", game="aspoint3", players=2, rated=True)["rated"] is True


@test
def registered_names_are_kept_from_guests(exe):
    with server(exe) as s:
        account(s, "Alice")
        g = s.connect()
        for name in ("Alice", "alice", "ALICE"):
            assert err(g.request("hello", name=name)) == "name_taken"
        assert err(g.request("register", name="alice", password="another-pass")) == "name_taken"
        g.hello("dave")
        h = s.connect()
        assert err(h.request("register", name="Dave", password=PASSWORD)) == "name_taken"
        assert err(h.request("register", name="bot", password=PASSWORD)) == "bad_name"
        assert err(h.request("register", name="bot:normal", password=PASSWORD)) == "bad_name"


@test
def wrong_credentials_are_refused(exe):
    with server(exe) as s:
        _, key = account(s, "alice")
        c = s.connect()
        assert err(c.request("hello", name="alice", password="not-the-password")) == "bad_password"
        assert err(c.request("hello", name="alice", key="0" * 32)) == "bad_password"
        assert err(c.request("hello", name="alice", key=key[:-1] + "x")) == "bad_password"
        assert err(c.request("hello", name="alice", password=PASSWORD, key=key)) == "bad_request"
        assert err(c.request("hello", name="nobody", password=PASSWORD)) == "not_found"
        assert err(c.request("hello", name="bot:normal", password=PASSWORD)) == "not_found"
        assert err(c.request("register", name="erin", password="short")) == "bad_password"
        assert err(c.request("register", name="erin")) == "bad_request"
        assert err(c.request("register", name="erin", password=12345678)) == "bad_request"
        assert err(c.request("profile", name="nobody")) == "hello_first"
        c.hello("frank")
        assert err(c.request("profile", name="nobody")) == "not_found"
        assert err(c.request("profile")) == "not_found"  # a guest has no profile
        assert err(c.request("leaderboard", game="chess")) == "not_found"
        assert err(c.request("leaderboard", game="233", limit=0)) == "bad_request"


@test
def logins_are_rate_limited_per_name_and_per_address(exe):
    with server(exe, "--login-rate", "4") as s:
        account(s, "alice")  # a register: one of the address's 4
        c = s.connect()
        for _ in range(2):
            assert err(c.request("hello", name="alice", password="wrong-one")) == "bad_password"
        # The address has spent its 4: even the right password waits now.
        assert err(c.request("hello", name="alice", password=PASSWORD)) == "rate_limited"
        assert err(c.request("register", name="zed", password=PASSWORD)) == "rate_limited"
        assert err(c.request("hello", name="alice", key="0" * 32)) == "rate_limited"
    # Per name, from addresses that each have budget left: the name's own 4 run out.
    with server(exe, "--login-rate", "4") as s:
        c = s.connect()
        c.ok("register", name="alice", password=PASSWORD)
        codes = []
        for host in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
            d = client_from(s, host)
            for _ in range(2):
                codes.append(err(d.request("hello", name="alice", password="wrong-one")))
        assert codes == ["bad_password"] * 4 + ["rate_limited"] * 2, codes


@test
def replies_keep_their_order_while_a_password_hashes(exe):
    with server(exe) as s:
        c = s.connect()
        c.send_raw('{"cmd":"register","id":1,"name":"alice","password":"%s"}\n'
                   '{"cmd":"ping","id":2}\n{"cmd":"hello","id":3,"name":"alice",'
                   '"password":"%s"}\n{"cmd":"profile","id":4}\n' % (PASSWORD, PASSWORD))
        got = [c.recv() for _ in range(4)]
        assert [m["id"] for m in got] == [1, 2, 3, 4], got
        assert all(m["ok"] for m in got), got


@test
def a_register_whose_connection_closes_is_forgotten(exe):
    with server(exe, "--login-rate", "0") as s:
        c = s.connect()
        c.send_raw('{"cmd":"register","name":"gone","password":"%s"}\n' % PASSWORD)
        c.close()
        d = s.connect()

        def registered():
            r = d.request("register", name="gone", password=PASSWORD)
            assert r["ok"] or r["error"]["code"] == "name_taken", r
            return r["ok"]
        # Either the first register ended before the close was seen (then it
        # holds the name and the second is name_taken for ever) or it is dropped.
        wait_for(lambda: registered() or s.log_has(r"account gone registered"),
                 "the register to end")


@test
def passwords_and_keys_are_kept_out_of_the_log_and_the_database(exe):
    with database() as db:
        with server(exe, db=db) as s:
            c, key = account(s, "alice")
            d = s.connect()
            err(d.request("hello", name="alice", password=PASSWORD + "x"))
            d.send_raw("hello alice password=%s\n" % PASSWORD)
            assert d.recv()["ok"]
            d.send_raw("hello alice key=%s\n" % key)
            assert d.recv()["ok"]
            s.stop()
            log = "".join(s.log)
        assert "alice" in log
        assert PASSWORD not in log and key not in log, "a secret reached the log"
        data = b""
        folder = os.path.dirname(db)
        for f in os.listdir(folder):
            with open(os.path.join(folder, f), "rb") as fh:
                data += fh.read()
        assert PASSWORD.encode() not in data and key.encode() not in data
        row = sqlite3.connect(db).execute(
            "SELECT pwhash, key_hash FROM accounts WHERE name_key = 'alice'").fetchone()
        assert row[0].startswith("$argon2id$") and len(row[1]) == 64, row


# ------------------------------------------------------------------- ratings ---

@test
def a_rated_game_moves_both_ratings(exe):
    with server(exe) as s:
        a, _ = account(s, "alice")
        b, _ = account(s, "bob")
        room, over_a, over_b = play_rated(s, a, b)
        ch = {r["name"]: r for r in over_b["ratings"]}
        assert set(ch) == {"alice", "bob"} and over_a["ratings"] == over_b["ratings"], over_b
        winners = over_b["result"]["winners"]
        for r in ch.values():
            assert r["before"] == 0.0 and r["abandoned"] is False, r
            if len(winners) == 1:
                assert r["place"] == (1 if r["seat"] in winners else 2), (r, winners)
                assert (r["after"] > 0) == (r["seat"] in winners), (r, winners)
        for name in ("alice", "bob"):
            r = rating_of(a, name, "aspoint3")
            assert r["games"] == 1 and r["provisional"] is True, r
            assert abs(r["rating"] - ch[name]["after"]) < 0.051, (r, ch[name])
            rec = a.ok("profile", name=name)["recent"]
            assert len(rec) == 1 and rec[0]["room"] == room, rec
        # The room's seats show the ratings, and that it is rated.
        c = s.connect()
        c.hello("watcher")
        summary = [x for x in c.ok("rooms")["rooms"] if x["room"] == room][0]
        assert summary["rated"] is True, summary
        for seat in summary["seats"]:
            assert abs(seat["rating"] - ch[seat["name"]]["after"]) < 0.051, seat


@test
def guests_play_casual_only(exe):
    with server(exe) as s:
        a, _ = account(s, "alice")
        room = a.ok("create", game="aspoint3", players=2, rated=True)["room"]
        g = s.connect()
        g.hello("guest")
        assert err(g.request("join", room=room)) == "account_required"
        assert err(g.request("create", game="aspoint3", rated=True)) == "account_required"
        g.send_raw("create aspoint3 2 rated\n")
        assert g.recv()["error"]["code"] == "account_required"
        casual = g.ok("create", game="aspoint3", players=2)
        assert casual["rated"] is False
        a.ok("join", room=casual["room"])
        ev = a.event(lambda e: e.get("ev") == "room" and e.get("room") == casual["room"])
        assert "rated" not in ev, ev
        seats = {x["name"]: x for x in ev["seats"] if x}
        assert "rating" in seats["alice"] and "rating" not in seats["guest"], seats


@test
def a_seat_that_abandons_loses(exe):
    with server(exe) as s:
        a, _ = account(s, "alice")
        a.ok("create", game="aspoint3", players=2, rated=True)
        a.ok("addbot", strategy="normal")
        a.event(is_ev("state"))
        a.ok("leave")
        wait_for(lambda: rating_of(a, "alice", "aspoint3"), "alice's rating")
        me = rating_of(a, "alice", "aspoint3")
        bot = rating_of(a, "bot:normal", "aspoint3")
        assert me["games"] == 1 and me["rating"] < 0 < bot["rating"], (me, bot)
        rec = a.ok("profile")["recent"][0]
        assert rec["abandoned"] is True and rec["place"] == 2 and rec["sides"] == 2, rec
        board = a.ok("leaderboard", game="aspoint3")
        names = [p["name"] for p in board["provisional"]]
        assert names == ["bot:normal", "alice"] and board["players"] == [], board


@test
def nothing_a_client_sends_moves_another_players_rating(exe):
    with server(exe, "--login-rate", "0") as s:
        a, key = account(s, "alice")
        b, _ = account(s, "bob")
        play_rated(s, a, b)
        before = a.ok("profile", name="alice")
        m, _ = account(s, "mallory")
        # Every way in a client has: the name, the credentials, rated tables.
        assert err(m.request("register", name="alice", password="mallory-pass")) == "name_taken"
        assert err(m.request("hello", name="alice", password="guess-guess")) == "bad_password"
        assert err(m.request("hello", name="alice", key="f" * 32)) == "bad_password"
        assert err(m.request("hello", name="alice")) == "name_taken"
        room = m.ok("create", game="aspoint3", players=2, rated=True)["room"]
        m.ok("addbot")
        m.event(is_ev("state"))
        m.ok("leave", room=room)
        wait_for(lambda: rating_of(m, "mallory", "aspoint3"), "mallory's own game rated")
        for cmd, args in (("profile", {"name": "alice", "mu": 99}),
                          ("leaderboard", {"game": "aspoint3", "name": "alice"}),
                          ("register", {"name": "mallory", "password": "reset-reset"})):
            m.request(cmd, **args)
        after = m.ok("profile", name="alice")
        for k in ("ratings", "recent"):
            assert after[k] == before[k], (k, before[k], after[k])


def abandoned_game(winner, loser, seed=0):
    """A rated game of aspoint3 that `loser` leaves as soon as it starts and `winner` plays
    to its end against the bot that took the seat: winner's win, whatever the bot does."""
    room = loser.ok("create", game="aspoint3", players=2, rated=True)["room"]
    winner.ok("join", room=room)
    loser.event(is_ev("state", room))
    loser.ok("leave", room=room)
    p = Player(winner, room)
    play([p], random.Random(seed), timeout=120)
    winner.ok("leave", room=room)
    mine = [r for r in p.over["ratings"] if r["name"] == winner.name][0]
    assert mine["place"] == 1 and not mine["abandoned"], p.over
    return room


@test
def the_leaderboard_pages_and_lists_the_provisional_apart(exe):
    with server(exe, "--login-rate", "0") as s:
        a, _ = account(s, "alice")
        b, _ = account(s, "bob")
        c, _ = account(s, "carol")
        # Alternate wins: 12 games take σ from 8.33 under the bound of 6 (5.92).
        for k in range(12):
            abandoned_game(*((a, b) if k % 2 else (b, a)))
        abandoned_game(c, a)  # carol: one game, provisional
        board = a.ok("leaderboard", game="aspoint3")
        assert board["provisional_sigma"] == 6.0
        players = board["players"]
        assert [p["name"] for p in players] == ["alice", "bob"], board
        assert [p["place"] for p in players] == [1, 2] and board["total"] == 2, board
        assert players[0]["rating"] >= players[1]["rating"], players
        assert [p["games"] for p in players] == [13, 12], players
        assert all(p["sigma"] <= 6.0 and not p["provisional"] for p in players), players
        assert [p["name"] for p in board["provisional"]] == ["carol"], board
        assert board["provisional_total"] == 1 and board["provisional"][0]["provisional"]
        page = a.ok("leaderboard", game="aspoint3", limit=1, offset=1)
        assert [(p["name"], p["place"]) for p in page["players"]] == [("bob", 2)], page
        assert a.ok("leaderboard", game="aspoint3", offset=5)["players"] == []
        assert a.ok("leaderboard", game="233")["players"] == []


@test
def accounts_and_ratings_survive_a_restart(exe):
    with database() as db:
        with server(exe, db=db) as s:
            a, key = account(s, "alice")
            a.ok("create", game="aspoint3", players=2, rated=True)
            a.ok("addbot")
            a.event(is_ev("state"))
            a.ok("leave")
            wait_for(lambda: rating_of(a, "alice", "aspoint3"), "alice's rating")
            before = a.ok("profile")
            bot = a.ok("profile", name="bot:normal")
            s.stop()
        with server(exe, db=db) as s:
            c = s.connect()
            assert err(c.request("hello", name="alice")) == "name_taken"
            c.ok("hello", name="alice", password=PASSWORD)
            assert same(c.ok("profile"), before)
            assert same(c.ok("profile", name="bot:normal"), bot)
            d = s.connect()
            d.ok("hello", name="alice", key=key)


@test
def a_rated_table_stays_rated_across_a_restart(exe):
    with database() as db:
        with server(exe, db=db) as s:
            a, _ = account(s, "alice")
            room = a.ok("create", game="aspoint3", players=2, rated=True)["room"]
            a.ok("addbot", strategy="normal:60000")  # slow: the game is under way at the stop
            a.event(is_ev("state", room))
            s.stop()
        with server(exe, db=db) as s:
            assert s.log_has(r"room %s: rated again" % room)
            c = s.connect()
            r = c.ok("hello", name="alice", password=PASSWORD)  # takes the held seat back
            assert r["resumed"] is True and r["rooms"] == [room], r
            assert c.ok("state", room=room)["rated"] is True
            c.ok("leave", room=room)
            wait_for(lambda: rating_of(c, "alice", "aspoint3"), "alice's abandoned game rated")
            rec = c.ok("profile")["recent"]
            assert len(rec) == 1 and rec[0]["abandoned"] and rec[0]["room"] == room, rec
            s.stop()
        rows = sqlite3.connect(db).execute("SELECT count(*) FROM rated_rooms").fetchone()
        assert rows == (0,), rows  # forgotten once rated


# --------------------------------------------------------------- matchmaking ---

def matched(c, timeout=10):
    return c.event(is_ev("matched"), timeout=timeout)


@test
def seekers_of_close_ratings_get_a_table(exe):
    with server(exe) as s:
        a, _ = account(s, "alice")
        b, _ = account(s, "bob")
        r = a.ok("seek", game="aspoint3", rated=True)
        assert (r["game"], r["players"], r["rated"]) == ("aspoint3", 2, True), r
        b.send_raw("seek aspoint3 2 rated\n")
        assert b.recv()["ok"]
        ma, mb = matched(a), matched(b)
        assert ma["room"] == mb["room"] and {ma["seat"], mb["seat"]} == {0, 1}, (ma, mb)
        assert ma["rated"] is True and ma["game"] == "aspoint3" and ma["players"] == 2
        pa, pb = Player(a, ma["room"]), Player(b, mb["room"])
        play([pa, pb], random.Random(3), timeout=120)
        assert len(pb.over["ratings"]) == 2, pb.over
        assert err(a.request("cancel")) == "not_found"  # matched: out of the queue


@test
def seek_refuses_what_it_cannot_do(exe):
    with server(exe) as s:
        g = s.connect()
        assert err(g.request("seek", game="aspoint3")) == "hello_first"
        g.hello("guest")
        assert err(g.request("seek", game="chess")) == "not_found"
        assert err(g.request("seek", game="aspoint3", players=3)) == "bad_players"
        assert err(g.request("seek", game="aspoint3", rated=True)) == "account_required"
        assert err(g.request("seek", game="aspoint3", players=0)) == "bad_request"
        assert err(g.request("cancel")) == "not_found"
        assert g.ok("seek", game="aspoint3")["rated"] is False  # guests seek casual games
        assert g.ok("cancel")["game"] == "aspoint3"


@test
def who_cancels_or_drops_leaves_the_queue(exe):
    with server(exe) as s:
        clients = {}
        for name in ("ann", "bea", "cid", "dan"):
            clients[name] = s.connect()
            clients[name].hello(name)
        clients["ann"].ok("seek", game="aspoint3")
        clients["ann"].ok("cancel")
        clients["bea"].ok("seek", game="aspoint3")
        clients["bea"].close()
        s.wait_log(r"bea.*disconnected|conn \d+ closed|session \d+ \(bea\)", timeout=10)
        clients["cid"].ok("seek", game="aspoint3")
        clients["cid"].ok("ping")
        assert not [e for e in clients["cid"].events if e.get("ev") == "matched"]
        clients["dan"].ok("seek", game="aspoint3")
        m = matched(clients["dan"])
        assert matched(clients["cid"])["room"] == m["room"]
        summary = clients["dan"].ok("state", room=m["room"])
        assert sorted(x["name"] for x in summary["seats"]) == ["cid", "dan"], summary
        # A second seek replaces the first: one entry per session.
        clients["ann"].ok("seek", game="aspoint3")
        clients["ann"].ok("seek", game="slap", players=2)
        e = s.connect()
        e.hello("eve")
        e.ok("seek", game="aspoint3")
        e.ok("ping")
        assert not [x for x in e.events if x.get("ev") == "matched"]


@test
def the_band_widens_with_the_wait(exe):
    with server(exe, "--login-rate", "0") as s:
        a, _ = account(s, "alice")
        c, _ = account(s, "carol")
        for _ in range(5):  # alice about 11.7, carol below 0
            abandoned_game(a, c)
        b, _ = account(s, "bob")  # 0: more than the first band (5) from alice
        gap = rating_of(a, "alice", "aspoint3")["rating"]
        assert gap > 8, gap
        a.ok("seek", game="aspoint3", rated=True)
        b.ok("seek", game="aspoint3", rated=True)
        b.ok("ping")
        assert not [e for e in b.events if e.get("ev") == "matched"], "matched at once"
        # After about gap - 5 seconds the bands cover the gap.
        ma, mb = matched(a, timeout=60), matched(b, timeout=60)
        assert ma["room"] == mb["room"]


if __name__ == "__main__":
    run_tests(sys.argv)
