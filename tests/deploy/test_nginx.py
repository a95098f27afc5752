#!/usr/bin/env python3
"""test_nginx.py — deploy/nginx/ in front of a real tapisd, with TLS.

Debian's own nginx (and its stream module, libnginx-mod-stream) runs as this
test's process (no daemon, no master process, no system service), from a
prefix in a temporary folder, on free loopback ports, with a self-signed
certificate openssl makes now. Its configuration is the tree's
deploy/nginx/tapis-site.conf and tapis-stream.conf with their ports,
upstream address and certificate paths rewritten, nothing else. tapisd
runs with --trusted-proxy 127.0.0.1, as the recipe says. Through nginx:

- the page over https:// (200, its CSP kept), and http:// sends to https://;
- a whole game over wss:// (Python's ssl and harness.py's WebSocket frames),
  the handshake carrying the Origin a browser would send;
- a whole game over the line protocol with TLS (the stream module), which
  reaches tapisd after a PROXY protocol line;
- tapisd's log names the client for both (X-Forwarded-For, PROXY).

A missing tool (nginx, its stream module, openssl) fails the test: deploy/dev
installs them.

    SOURCE_ROOT=. python3 tests/deploy/test_nginx.py build/server/tapisd
"""
import os
import random
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile

SRC = os.environ.get("SOURCE_ROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "tests", "server"))
from harness import (TIMEOUT, Client, Player, Server, WsClient, end_process,  # noqa: E402
                     free_port, play, read_http_head, wait_for)

STREAM_MODULE = "/usr/lib/nginx/modules/ngx_stream_module.so"
HOSTNAME = "tapis.test"


def need(path, package):
    if not path or not os.path.exists(path):
        print("FAIL: %s not found (apt install %s; deploy/dev does)" % (path, package))
        sys.exit(1)


def make_certificate(d):
    cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                    "/CN=" + HOSTNAME, "-addext", "subjectAltName=DNS:%s,IP:127.0.0.1" % HOSTNAME,
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


def rewrite(text, ports, upstream, cert, key):
    """The recipe with this test's ports, upstream and certificate; IPv6 listens left out."""
    out = []
    for line in text.splitlines():
        if re.match(r"\s*listen \[::\]", line):
            continue
        line = re.sub(r"^(\s*)listen (\d+)\b", lambda m: "%slisten 127.0.0.1:%d" % (
            m.group(1), ports[m.group(2)]), line)
        line = line.replace("127.0.0.1:7233", upstream)
        line = re.sub(r"ssl_certificate\s+\S+;", "ssl_certificate %s;" % cert, line)
        line = re.sub(r"ssl_certificate_key\s+\S+;", "ssl_certificate_key %s;" % key, line)
        line = line.replace("tapis.example.org", HOSTNAME)
        out.append(line)
    return "\n".join(out) + "\n"


def start_nginx(d, upstream):
    """nginx in the foreground with the recipe; returns (process, {recipe port: ours})."""
    cert, key = make_certificate(d)
    ports = {"443": free_port(), "80": free_port(), "7234": free_port()}
    for name in ("tapis-site.conf", "tapis-stream.conf"):
        with open(os.path.join(SRC, "deploy", "nginx", name)) as f:
            text = rewrite(f.read(), ports, upstream, cert, key)
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    temps = "\n".join("    %s_temp_path %s;" % (t, os.path.join(d, t))
                      for t in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf = """load_module %(module)s;
daemon off;
master_process off;
pid %(d)s/nginx.pid;
error_log %(d)s/error.log info;
events { worker_connections 256; }
http {
    access_log %(d)s/access.log;
%(temps)s
    include %(d)s/tapis-site.conf;
}
include %(d)s/tapis-stream.conf;
""" % {"module": STREAM_MODULE, "d": d, "temps": temps}
    path = os.path.join(d, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    need(nginx, "nginx")
    t = subprocess.run([nginx, "-t", "-p", d, "-e", os.path.join(d, "error.log"), "-c", path],
                       capture_output=True, text=True)
    assert t.returncode == 0, "nginx -t refused the recipe:\n" + t.stderr
    proc = subprocess.Popen([nginx, "-p", d, "-e", os.path.join(d, "error.log"), "-c", path],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)

    def listening():
        assert proc.poll() is None, "nginx exited: " + open(os.path.join(d, "error.log")).read()
        try:
            socket.create_connection(("127.0.0.1", ports["7234"]), timeout=1).close()
            return True
        except OSError:
            return False
    wait_for(listening, "nginx listening")
    return proc, ports, cert


def tls(cert):
    ctx = ssl.create_default_context(cafile=cert)
    return lambda s: ctx.wrap_socket(s, server_hostname=HOSTNAME)


def https(port, cert, req):
    s = tls(cert)(socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT))
    s.sendall(req)
    return read_http_head(s)


def game_against_a_bot(c, seed):
    room = c.ok("create", game="aspoint3", players=2, options={"target": 150, "rounds": 2})["room"]
    assert c.ok("addbot", room=room)["seat"] == 1
    me = Player(c, room)
    play([me], random.Random(seed), timeout=60)
    assert me.over and me.over["result"]["winners"], me.over
    assert me.acts > 0
    return me


def main(exe):
    need(STREAM_MODULE, "libnginx-mod-stream")
    need(shutil.which("openssl"), "openssl")
    d = tempfile.mkdtemp(prefix="tapis-nginx-")
    srv = Server(exe, "--trusted-proxy", "127.0.0.1", "--web-root", os.path.join(SRC, "web"),
                 "--bot-delay", "1-5", "--seed", "55")
    nginx = None
    try:
        nginx, ports, cert = start_nginx(d, "127.0.0.1:%d" % srv.port)
        origin = "https://%s:%d" % (HOSTNAME, ports["443"])

        status, h, _ = https(ports["443"], cert, b"GET / HTTP/1.1\r\nHost: %s\r\n\r\n"
                             % origin[8:].encode())
        assert status == 200 and "default-src 'self'" in h["content-security-policy"], (status, h)
        s = socket.create_connection(("127.0.0.1", ports["80"]))
        s.sendall(b"GET /x HTTP/1.1\r\nHost: %s\r\n\r\n" % HOSTNAME.encode())
        status, h, _ = read_http_head(s)
        assert status == 301 and h["location"].startswith("https://"), (status, h)
        s.close()
        print("ok   the page over https://, http:// sends to https://")

        ws = WsClient(ports["443"], wrap=tls(cert), http_host=origin[8:], origin=origin)
        ws.hello("ann")
        me = game_against_a_bot(ws, 55)
        print("ok   a game over wss:// to its end (%d actions, %d messages)" % (me.acts, len(ws.all)))
        other = "https://elsewhere.example"
        s = tls(cert)(socket.create_connection(("127.0.0.1", ports["443"])))
        from harness import ws_handshake
        assert ws_handshake(s, host=origin[8:], origin=other)[0] == 403
        s.close()
        print("ok   a page of another site is refused through the proxy too")

        line = Client(ports["7234"], wrap=tls(cert))
        line.hello("bob")
        me = game_against_a_bot(line, 56)
        print("ok   a game over the line protocol with TLS (%d actions)" % me.acts)

        assert srv.log_has(r"is 127\.0\.0\.1 via 127\.0\.0\.1"), "tapisd never learnt a client"
        named = [l for l in srv.log if re.search(r"conn \d+ is 127\.0\.0\.1 via", l)]
        assert len(named) >= 3, named  # the page, the WebSocket, the line client
        print("ok   tapisd counted the clients nginx named (%d connections)" % len(named))
    finally:
        if nginx:
            end_process(nginx)
        srv.finish()
        shutil.rmtree(d, ignore_errors=True)
    print("1 passed, 0 failed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1])
