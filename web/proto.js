// proto.js — the protocol client: one WebSocket to tapisd (same host and
// port as the page, path /ws), whose text messages are the protocol's JSON
// lines (protocol/PROTOCOL.md). Requests carry an id and resolve with their
// reply; events go to the listeners of their name ("*" hears every message).
// When the socket drops, it connects again (0.5 s, 1 s, 2 s ... 8 s apart)
// and says hello again with the token kept in localStorage, which puts the
// player back in their seats.

const NAME_KEY = "tapis.name";
const TOKEN_KEY = "tapis.token";

export class Proto {
  constructor(url) {
    this.url = url || Proto.defaultUrl();
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, cmd}
    this.listeners = new Map(); // event name (or "*", "open", "close") -> [fn]
    this.backoff = 500;
    this.stopped = false; // replaced, kicked or quit: no automatic reconnection
    this.session = null; // the last ok hello reply
  }

  static defaultUrl() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return scheme + "//" + location.host + "/ws";
  }

  static saved() {
    return { name: localStorage.getItem(NAME_KEY), token: localStorage.getItem(TOKEN_KEY) };
  }

  static forget() {
    localStorage.removeItem(TOKEN_KEY);
  }

  on(name, fn) {
    if (!this.listeners.has(name)) this.listeners.set(name, []);
    this.listeners.get(name).push(fn);
  }

  emit(name, msg) {
    for (const fn of this.listeners.get(name) || []) {
      try {
        fn(msg);
      } catch (e) {
        console.error(e);
      }
    }
  }

  get connected() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  connect() {
    this.stopped = false;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.backoff = 500;
      this.emit("open", null);
    };
    ws.onmessage = (e) => this.receive(e.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      for (const [, p] of this.pending) p.reject(new ProtoError("disconnected", "the connection dropped"));
      this.pending.clear();
      this.emit("close", null);
      if (!this.stopped) {
        setTimeout(() => this.connect(), this.backoff);
        this.backoff = Math.min(this.backoff * 2, 8000);
      }
    };
  }

  receive(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      console.error("not JSON from the server", text);
      return;
    }
    if (msg === null || typeof msg !== "object") return;
    this.emit("*", msg);
    if ("re" in msg) {
      const p = this.pending.get(msg.id);
      if (p) {
        this.pending.delete(msg.id);
        if (msg.ok) p.resolve(msg);
        else p.reject(new ProtoError(msg.error.code, msg.error.message, msg));
      } else if (!msg.ok) {
        this.emit("error", msg.error);
      }
      return;
    }
    if (msg.ev === "replaced" || msg.ev === "kicked") this.stopped = true;
    // The server's ping, answered at once: it measures our round trip, which
    // its races credit (PROTOCOL.md, "Races").
    if (msg.ev === "ping" && this.connected) {
      this.request("pong", { n: msg.n }).catch(() => {});
      return;
    }
    if (msg.ev) this.emit(msg.ev, msg);
  }

  request(cmd, args) {
    if (!this.connected) return Promise.reject(new ProtoError("disconnected", "not connected"));
    const id = this.nextId++;
    const msg = Object.assign({ cmd, id }, args || {});
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, cmd });
      this.ws.send(JSON.stringify(msg));
    });
  }

  // hello NAME [TOKEN]; keeps the name and the token for the next visit.
  async hello(name, token) {
    const args = { name };
    if (token) args.token = token;
    const r = await this.request("hello", args);
    localStorage.setItem(NAME_KEY, r.name);
    localStorage.setItem(TOKEN_KEY, r.token);
    this.session = r;
    this.emit("session", r);
    return r;
  }

  quit() {
    this.stopped = true;
    if (this.ws) this.ws.close();
  }
}

export class ProtoError extends Error {
  constructor(code, message, reply) {
    super(message);
    this.code = code;
    this.reply = reply;
  }
}
