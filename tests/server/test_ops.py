"""test_ops.py — what an operator uses: --metrics (Prometheus text over HTTP),
the admin commands (admin, announce, drain, close, kick, stats), JSON logs
with no secret in them, --config and SIGHUP.

Usage: python3 tests/server/test_ops.py build/server/tapisd [test-name...]
"""
import contextlib
import json
import os
import re
import signal
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (TIMEOUT, Server, is_ev, pump, read_to_eof, run_tests,  # noqa: E402
                     test, ws_handshake)

def documented_families():
    """{family: type} from the table of docs/METRICS.md: the scrape must match it."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "docs", "METRICS.md")) as f:
        rows = re.findall(r"^\| `([a-z_]+)` \| (gauge|counter|histogram) \|", f.read(), re.M)
    assert len(rows) > 15, "docs/METRICS.md: no table of families"
    return dict(rows)


FAMILIES = documented_families()

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_]+="[^"\\\n]*"'
                    r'(,[a-zA-Z_]+="[^"\\\n]*")*)\})? (-?[0-9.e+-]+|\+Inf|NaN)$')


def token_file(text=None):
    """A file holding an admin token (mode 600); returns (path, token)."""
    tok = text if text is not None else os.urandom(24).hex()
    fd, path = tempfile.mkstemp(prefix="tapis-admin-")
    os.write(fd, (tok + "\n").encode())
    os.close(fd)
    os.chmod(path, 0o600)
    return path, tok


@contextlib.contextmanager
def operated(exe, *args):
    """A tapisd with an admin token file: yields (server, token); stops it
    (exit 0 required) and removes the file."""
    path, tok = token_file()
    srv = Server(exe, "--admin-token-file", path, *args)
    try:
        yield srv, tok
    finally:
        try:
            srv.finish()
        finally:
            os.unlink(path)


def metrics_port(srv):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        for line in list(srv.log):
            m = re.search(r"metrics on (\S+):(\d+)\b", line)
            if m:
                return int(m.group(2))
        time.sleep(0.02)
    raise AssertionError("no 'metrics on' line: %s" % "".join(srv.log[-10:]))


def http(port, request):
    """Send raw bytes, read to EOF; returns (status, headers dict, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    s.sendall(request)
    data = read_to_eof(s)
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    return status, headers, body.decode()


def scrape(port):
    """GET /metrics, checked line by line: {family: {labels tuple: value}}."""
    status, headers, body = http(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200, (status, body)
    assert headers["content-type"].startswith("text/plain; version=0.0.4"), headers
    assert int(headers["content-length"]) == len(body.encode())
    out, types = {}, {}
    for line in body.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            types[name] = kind
            continue
        if line.startswith("# HELP "):
            continue
        m = SAMPLE.match(line)
        assert m, "not an exposition line: %r" % line
        name, labels = m.group(1), m.group(3) or ""
        fam = re.sub(r"_(bucket|sum|count)$", "", name) if name not in types else name
        assert fam in types, "sample before its TYPE: %r" % line
        key = (name,) + tuple(sorted(re.findall(r'([a-zA-Z_]+)="([^"]*)"', labels)))
        out.setdefault(fam, {})[key] = float(m.group(5))
    for fam, kind in FAMILIES.items():
        assert types.get(fam) == kind, "%s: TYPE %r, not %r" % (fam, types.get(fam), kind)
    for fam, kind in types.items():
        assert fam in FAMILIES, "an undocumented family: %s" % fam
        if kind == "histogram":  # cumulative buckets ending at +Inf == _count
            b = sorted(((float(dict(k[1:])["le"]), v) for k, v in out[fam].items()
                        if k[0] == fam + "_bucket"))
            assert all(b[i][1] <= b[i + 1][1] for i in range(len(b) - 1)), b
            assert b[-1][0] == float("inf") and b[-1][1] == out[fam][(fam + "_count",)]
    return out


def wait_log(srv, pattern):
    deadline = time.monotonic() + TIMEOUT
    while not srv.log_has(pattern):
        assert time.monotonic() < deadline, "no log line %r: %s" % (pattern, srv.log[-5:])
        time.sleep(0.02)


def value(m, fam, **labels):
    return m.get(fam, {}).get((fam,) + tuple(sorted(labels.items())), 0.0)


def total(m, fam):
    return sum(v for k, v in m.get(fam, {}).items() if k[0] == fam)


def bot_table(srv, name="ann", watcher="wat", game="seqnum", options=None):
    """An all-bot table of `game` that `watcher` watches. Returns (watcher, room)."""
    a = srv.connect(name)
    room = a.ok("create", game=game, players=2, options=options or {"max_turns": 16})["room"]
    w = srv.connect(watcher)
    w.ok("watch", room=room)
    a.ok("addbot", room=room)
    a.ok("leave", room=room)  # a bot takes the seat
    a.close()
    return w, room


@test
def metrics_of_websockets_and_the_page(exe):
    """WebSockets open, and the game port's HTTP answers by status."""
    srv = Server(exe, "--metrics", "127.0.0.1:0", "--web-root", "none")
    try:
        port = metrics_port(srv)
        ws = srv.connect_ws("ann")
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=TIMEOUT)
        assert ws_handshake(s, origin="http://elsewhere.example")[0] == 403
        s.close()
        assert http(srv.port, b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")[0] == 404
        m = scrape(port)
        assert value(m, "tapis_websockets_open") == 1
        assert value(m, "tapis_http_responses_total", status="101") == 1
        assert value(m, "tapis_http_responses_total", status="403") == 1
        assert value(m, "tapis_http_responses_total", status="404") == 1
        assert value(m, "tapis_connections_closed_total", cause="http") == 2
        ws.ok("quit")
        deadline = time.monotonic() + TIMEOUT  # the close is the server's, in its own time
        while value(scrape(port), "tapis_websockets_open") != 0:
            assert time.monotonic() < deadline, "the WebSocket is still counted"
            time.sleep(0.02)
    finally:
        srv.finish()


@test
def metrics_after_a_bot_game(exe):
    """A scrape after a bot game: every family, the exposition format, and
    counters that moved; other paths and methods refused."""
    srv = Server(exe, "--metrics", "127.0.0.1:0", "--bot-delay", "1-3")
    try:
        port = metrics_port(srv)
        before = scrape(port)
        assert total(before, "tapis_connections_accepted_total") == 0
        w, room = bot_table(srv)
        over = w.event(is_ev("game_over", room), timeout=60)
        # 16 turns unless the deal ends the game sooner: what held, whatever the deal
        turns = over["result"]["turns"]
        assert 1 <= turns <= 16, over
        x = w.request("act", room=room, action={"type": "draw"})
        assert not x["ok"]
        m = scrape(port)
        assert value(m, "tapis_connections_accepted_total") == 2
        assert value(m, "tapis_connections_open") == 1
        assert value(m, "tapis_connections_closed_total", cause="eof") == 1
        assert value(m, "tapis_sessions", state="connected") == 1
        assert value(m, "tapis_rooms", game="seqnum", status="over") == 1
        assert value(m, "tapis_rooms", game="233", status="playing") == 0
        assert value(m, "tapis_actions_applied_total", game="seqnum") >= turns
        assert value(m, "tapis_actions_refused_total", game="seqnum", code="not_seated") == 0
        assert value(m, "tapis_state_events_total") >= turns
        assert value(m, "tapis_sent_bytes_total") > value(m, "tapis_received_bytes_total") > 0
        deadline = time.monotonic() + TIMEOUT  # the loop's lag is probed every 100 ms
        lag = "tapis_loop_lag_seconds"
        while scrape(port)[lag][(lag + "_count",)] == 0:
            assert time.monotonic() < deadline, "no loop lag measured"
            time.sleep(0.05)
        assert len(m["tapis_build_info"]) == 1
        assert value(m, "process_resident_memory_bytes") > 1e6
        assert 3 <= value(m, "process_open_fds") < value(m, "process_max_fds")
        # a player's own action is timed from its line to its state events
        c = srv.connect("cat")
        r2 = c.ok("create", game="233", players=2)["room"]
        c.ok("addbot", room=r2)
        want = {"unknown_action": 1}
        x = c.request("act", room=r2, action={"type": "nonsense"})
        assert x["error"]["code"] == "unknown_action", x
        for _ in range(10):  # a legal action; the bot's move may outdate it, and is counted
            st = c.event(lambda m: m.get("ev") == "state" and m["room"] == r2 and
                         m["view"].get("legal"), timeout=30)
            x = c.request("act", room=r2, action=st["view"]["legal"][0])
            if x["ok"]:
                break
            code = x["error"]["code"]
            want[code] = want.get(code, 0) + 1
        else:
            raise AssertionError("no legal action went through")
        m2 = scrape(port)
        refused = m2["tapis_actions_refused_total"]
        assert refused == {("tapis_actions_refused_total", ("code", k), ("game", "233")): float(n)
                           for k, n in want.items()}, (refused, want)
        lat = "tapis_action_latency_seconds"
        assert m2[lat][(lat + "_count",)] >= 1, m2[lat]
        assert 0 < m2[lat][(lat + "_sum",)] < 1, m2[lat]
        st, h, body = http(port, b"HEAD /metrics HTTP/1.0\r\n\r\n")
        assert st == 200 and body == "" and int(h["content-length"]) > 1000
        assert http(port, b"GET /metrics?x=1 HTTP/1.1\r\n\r\n")[0] == 200
        assert http(port, b"GET / HTTP/1.1\r\n\r\n")[0] == 404
        st, h, _ = http(port, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        assert st == 405 and "GET" in h["allow"]
        assert http(port, b"\x16\x03\x01garbage\r\n\r\n")[0] == 400
        assert srv.connect("dan").ok("ping") is not None  # the game port is unharmed
    finally:
        srv.finish()


@test
def hard_bots_search_off_the_loop_while_everyone_is_answered(exe):
    """Six tables of slap with a hard bot, every bot at no reaction time,
    two searches on the thread pool at once: while they play, another
    client's pings and commands are each answered; every game ends, no bot's
    move was refused, and the searches were made off the loop (nothing of
    it depends on how long they took)."""
    srv = Server(exe, "--metrics", "127.0.0.1:0", "--bot-delay", "0", "--bot-searches", "2",
                 "--log-level", "warn")
    try:
        port = metrics_port(srv)
        host, w = srv.connect("ann"), srv.connect("wat")
        rooms = []
        for _ in range(6):
            room = host.ok("create", game="slap", players=2, options={"max_rounds": 1})["room"]
            w.ok("watch", room=room)
            host.ok("addbot", room=room, strategy="hard")  # the table starts
            host.ok("leave", room=room)  # a bot takes the seat
            rooms.append(room)
        p = srv.connect("pat")
        over, answered = set(), 0
        deadline = time.monotonic() + 120
        while len(over) < len(rooms):
            assert time.monotonic() < deadline, "%d of %d games over" % (len(over), len(rooms))
            assert p.ok("ping")
            assert p.ok("rooms")["total"] >= len(rooms) - len(over)
            answered += 2
            over |= {m["room"] for m in pump(w) if m.get("ev") == "game_over"}
            assert not w.closed, "the watcher was dropped: %s" % srv.log[-5:]
            time.sleep(0.005)  # under --line-rate
        m = scrape(port)
        assert value(m, "tapis_rooms", game="slap", status="over") == len(rooms)
        assert value(m, "tapis_actions_applied_total", game="slap") > 0
        assert total(m, "tapis_actions_refused_total") == 0, m["tapis_actions_refused_total"]
        assert value(m, "tapis_bot_searches_total") >= len(rooms), m["tapis_bot_searches_total"]
        assert value(m, "tapis_bot_searches_running") == 0
        assert value(m, "tapis_bot_searches_waiting") == 0
        assert answered >= 2
    finally:
        srv.finish()


@test
def a_server_stopping_while_hard_bots_search_exits_cleanly(exe):
    """SIGTERM while six tables' hard bots search, one at a time on the pool
    and the others waiting: tapisd still exits 0 (its loop closes, and under
    ASan nothing leaks), whether a search was running at that moment or not."""
    srv = Server(exe, "--metrics", "127.0.0.1:0", "--bot-delay", "0", "--bot-searches", "1",
                 "--log-level", "warn")
    port = metrics_port(srv)
    host, w = srv.connect("ann"), srv.connect("wat")
    for _ in range(6):
        room = host.ok("create", game="seqnum", players=2)["room"]
        w.ok("watch", room=room)
        host.ok("addbot", room=room, strategy="hard")
        host.ok("leave", room=room)
    deadline = time.monotonic() + TIMEOUT
    while value(scrape(port), "tapis_bot_searches_total") < 6:
        assert time.monotonic() < deadline, "no searches"
        pump(w)
        time.sleep(0.02)
    srv.finish()


@test
def admin_needs_the_token(exe):
    """Without `admin TOKEN`, every operator command is forbidden and logged;
    a wrong token too; without --admin-token-file nobody is the operator."""
    path, tok = token_file()
    try:
        srv = Server(exe, "--admin-token-file", path)
        try:
            c = srv.connect("eve")
            room = c.ok("create", game="233", players=2)["room"]
            for cmd, args in (("stats", {}), ("drain", {}), ("announce", {"text": "hi"}),
                              ("kick", {"name": "eve"}), ("close", {"room": room}),
                              ("close", {"room": "999"})):
                r = c.request(cmd, **args)
                assert not r["ok"] and r["error"]["code"] == "forbidden", (cmd, r)
            r = c.request("admin", token=tok[:-1] + ("0" if tok[-1] != "0" else "1"))
            assert r["error"]["code"] == "forbidden", r
            r = c.request("admin", token=tok + "x")
            assert r["error"]["code"] == "forbidden", r
            assert c.request("state", room=room)["ok"]  # still served
            wait_log(srv, r"admin: eve refused")
            r = c.request("create", game="233")
            assert r["ok"], "not drained by a refused drain"
            help_all = c.ok("help")["text"]
            assert "drain" not in help_all and "help admin" in help_all
            assert "kick NAME" in c.ok("help", command="admin")["text"]
        finally:
            srv.finish()
        srv = Server(exe)
        try:
            c = srv.connect("eve")
            r = c.request("admin", token=tok)
            assert r["error"]["code"] == "forbidden" and "admin-token-file" in r["error"]["message"]
        finally:
            srv.finish()
    finally:
        os.unlink(path)


@test
def admin_announce_close_kick_stats(exe):
    with operated(exe) as (srv, tok):
        op = srv.connect("op")
        assert op.ok("admin", token=tok)["admin"] is True
        bob = srv.connect("bob")
        lurker = srv.connect()  # no hello yet: still told
        room = bob.ok("create", game="233", players=2)["room"]
        kim = srv.connect("kim")
        kim.ok("join", room=room)
        op.ok("announce", text="restart at 18:00")
        for c in (bob, kim, lurker, op):
            ev = c.event(is_ev("announce"))
            assert ev["text"] == "restart at 18:00" and ev["from"] == "operator", ev
        assert op.request("announce", text="bad\u202etext")["error"]["code"] == "bad_text"
        # kick: the connection is closed, the token dead, the seat a bot's
        op.ok("kick", name="KIM")  # names are unique whatever their case
        ev = kim.event(is_ev("kicked"))
        assert "operator" in ev["message"], ev
        kim.wait_closed()
        again = srv.connect()
        r = again.request("hello", name="kim2", token=kim.token)
        assert r["error"]["code"] == "not_found", r
        assert srv.connect("kim").name == "kim"  # the name is free again
        seats = bob.ok("state", room=room)["seats"]
        assert seats[1]["bot"] is True, seats
        assert op.request("kick", name="nobody")["error"]["code"] == "not_found"
        # close: everyone in it is told, the room is gone
        w = srv.connect("wat")
        w.ok("watch", room=room)
        op.ok("close", room=room)
        for c in (bob, w):
            ev = c.event(is_ev("closed", room))
            assert ev["reason"] == "closed by the operator", ev
        assert bob.request("state", room=room)["error"]["code"] == "not_found"
        assert op.request("close", room="12345")["error"]["code"] == "not_found"
        stats = op.ok("stats")["stats"]
        assert set(FAMILIES) <= set(stats), set(FAMILIES) - set(stats)
        assert stats["tapis_connections_accepted_total"] >= 6
        kicked = [x for x in stats["tapis_connections_closed_total"] if x["cause"] == "kicked"]
        assert kicked == [{"cause": "kicked", "value": 1}], kicked
        assert stats["tapis_action_latency_seconds"]["count"] >= 0
        for what in ("announces", "kicks kim", "closes room", "reads the stats"):
            wait_log(srv, "admin: op " + what)


@test
def drain_lets_games_end_then_stops(exe):
    """drain: no new rooms, waiting rooms closed, the game in play goes on to
    its end; then tapisd exits 0 by itself."""
    with operated(exe, "--bot-delay", "20-40", "--metrics", "127.0.0.1:0") as (srv, tok):
        w, room = bot_table(srv, options={"max_turns": 30})
        w.event(is_ev("state", room))
        host = srv.connect("host")
        waiting = host.ok("create", game="233", players=3)["room"]
        op = srv.connect("op")
        op.ok("admin", token=tok)
        r = op.ok("drain")
        assert r["draining"] is True and r["playing"] == 1 and r["closed"] == 1, r
        ev = host.event(is_ev("closed", waiting))
        assert ev["reason"] == "draining", ev
        r = host.request("create", game="233")
        assert r["error"]["code"] == "draining", r
        assert value(scrape(metrics_port(srv)), "tapis_draining") == 1
        assert srv.alive()
        w.event(is_ev("game_over", room), timeout=60)
        ev = w.event(is_ev("shutdown"), timeout=5)
        assert srv.proc.wait(TIMEOUT) == 0
        wait_log(srv, r"stopping \(drained")


@test
def drain_with_nothing_in_play_stops_at_once(exe):
    with operated(exe) as (srv, tok):
        op = srv.connect("op")
        op.ok("admin", token=tok)
        assert op.ok("drain")["playing"] == 0
        op.event(is_ev("shutdown"), timeout=5)
        assert srv.proc.wait(TIMEOUT) == 0


@test
def bad_token_files_stop_the_start(exe):
    for text in ("short", ""):
        path, _ = token_file(text)
        try:
            srv = None
            try:
                srv = Server(exe, "--admin-token-file", path, start_timeout=3)
            except RuntimeError as e:
                assert "16 to" in str(e), str(e)
            else:
                raise AssertionError("started with a %r token" % text)
        finally:
            os.unlink(path)
            if srv:
                srv.kill()


def secrets_absent(srv, secrets):
    log = "".join(srv.log)
    for s in secrets:
        assert s not in log, "a secret in the log: %s" % s


@test
def json_logs_name_ids_and_hold_no_secret(exe):
    """--log-format json: one object a line with ts, level, msg, and the id of
    the connection, room or session it is about; no token anywhere."""
    path, tok = token_file()
    srv = Server(exe, "--log-format", "json", "--log-level", "debug", "--admin-token-file", path)
    try:
        a = srv.connect("ann")
        room = a.ok("create", game="233", players=2)["room"]
        a.ok("addbot", room=room)
        a.ok("say", room=room, text="a \"quoted\" line")
        a.request("admin", token="x" * 20)
        a.ok("admin", token=tok)
        a.ok("stats")
        b = srv.connect("bob")
        b.close()
        a2 = srv.connect()
        a2.request("hello", name="ann", token=a.token)  # takes the session over
        time.sleep(0.2)
    finally:
        srv.finish()
        os.unlink(path)
    seen = set()
    for line in srv.log:
        o = json.loads(line)
        assert set(o) >= {"ts", "level", "msg"}, o
        assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", o["ts"]), o
        assert o["level"] in ("debug", "info", "warn", "error", "notice"), o
        for k in ("conn", "room", "session"):
            if o["msg"].startswith(k + " "):
                assert isinstance(o.get(k), (int, str)) and str(o[k]) in o["msg"], o
                seen.add(k)
    assert seen == {"conn", "room", "session"}, seen
    secrets_absent(srv, [tok, a.token, b.token])


@test
def text_logs_hold_no_secret(exe):
    path, tok = token_file()
    srv = Server(exe, "--log-level", "debug", "--admin-token-file", path)
    try:
        a = srv.connect("ann")
        a.ok("admin", token=tok)
        again = srv.connect()
        again.request("hello", name="ann", token=a.token)
    finally:
        srv.finish()
        os.unlink(path)
    secrets_absent(srv, [tok, a.token])


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


@test
def config_file_and_sighup_reload(exe):
    """--config FILE sets options (the command line wins); SIGHUP reads it
    again and applies what may change live; a bad file changes nothing."""
    d = tempfile.mkdtemp(prefix="tapis-conf-")
    conf = os.path.join(d, "tapisd.conf")
    write(conf, "# limits\nchat-rate 100\nmax-chat = 50   # bytes\n")
    srv = Server(exe, "--config", conf, "--max-chat", "60")
    try:
        a = srv.connect("ann")
        room = a.ok("create", game="233", players=2)["room"]
        assert a.request("say", room=room, text="x" * 60)["ok"]  # the command line won
        assert a.request("say", room=room, text="x" * 61)["error"]["code"] == "text_too_long"
        for _ in range(3):
            assert a.request("say", room=room, text="hi")["ok"]
        write(conf, "chat-rate 1\nfsync always\nlog-level debug\n")
        srv.proc.send_signal(signal.SIGHUP)
        wait_log(srv, "reloaded")
        assert srv.log_has("--fsync changed; it takes a restart")
        codes = [a.request("say", room=room, text="hi").get("error", {}).get("code")
                 for _ in range(3)]
        assert "rate_limited" in codes, codes
        a.ok("ping")
        wait_log(srv, r"DEBUG .*conn \d+: ping")  # the log level was reloaded
        write(conf, "chat-rate lots\n")
        srv.proc.send_signal(signal.SIGHUP)
        wait_log(srv, "do not parse")
        assert srv.alive() and a.ok("ping") is not None
    finally:
        srv.finish()
    for text, why in (("no-such-option 1\n", "not an option"), ("config x\n", "not an option"),
                      ("line-rate\n", "needs a value"), ("line-rate -3\n", "bad value")):
        write(conf, text)
        try:
            Server(exe, "--config", conf, start_timeout=3).kill()
        except RuntimeError as e:
            assert why in str(e) and ("tapisd.conf:1" in str(e) or why == "bad value"), str(e)
        else:
            raise AssertionError("started with a config of %r" % text)
    os.unlink(conf)
    os.rmdir(d)


@test
def tells_systemd_ready_reloading_stopping(exe):
    """Type=notify: READY=1 once listening, RELOADING=1 then READY=1 on
    SIGHUP, STOPPING=1 on SIGTERM (through $NOTIFY_SOCKET, as systemd does)."""
    import subprocess
    linked = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    if "libsystemd" not in linked:
        print("  (tapisd built without libsystemd: nothing to check)")
        return
    d = tempfile.mkdtemp(prefix="tapis-notify-")
    path = os.path.join(d, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(TIMEOUT)
    old = os.environ.get("NOTIFY_SOCKET")
    os.environ["NOTIFY_SOCKET"] = path
    try:
        srv = Server(exe)
    finally:
        if old is None:
            del os.environ["NOTIFY_SOCKET"]
        else:
            os.environ["NOTIFY_SOCKET"] = old
    try:
        assert sock.recv(4096) == b"READY=1"
        srv.proc.send_signal(signal.SIGHUP)
        assert sock.recv(4096) == b"RELOADING=1"
        assert sock.recv(4096) == b"READY=1"
    finally:
        srv.finish()
    assert sock.recv(4096) == b"STOPPING=1"
    sock.close()
    os.unlink(path)
    os.rmdir(d)


if __name__ == "__main__":
    run_tests(sys.argv)
