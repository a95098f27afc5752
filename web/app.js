// app.js — the page: the connection (proto.js), your name, and which screen
// shows: the lobby, a table, the history or a replay. The table in view is
// kept in the address (#room=ID), so that a reload comes back to it; an
// invitation is a link #join=ROOM (or #watch=ROOM).

import { Proto } from "./proto.js";
import { h, clear, errorText } from "./dom.js";
import { Table } from "./table.js";
import { Lobby } from "./lobby.js";
import { History } from "./history.js";
import * as g233 from "./games/233.js";
import * as aspoint3 from "./games/aspoint3.js";
import * as seqnum from "./games/seqnum.js";
import * as slap from "./games/slap.js";

const MODULES = { 233: g233, aspoint3, seqnum, slap };

class App {
  constructor() {
    this.proto = new Proto();
    this.main = document.getElementById("main");
    this.connEl = document.getElementById("conn");
    this.whoEl = document.getElementById("who");
    this.bannerEl = document.getElementById("banner");
    this.games = [];
    this.tables = new Map(); // room -> Table
    this.current = null; // the Table on screen
    this.name = null;
    this.lobby = null;
  }

  start() {
    const p = this.proto;
    p.on("open", () => this.onOpen());
    p.on("close", () => this.setConn(p.stopped ? "disconnected" : "reconnecting…"));
    p.on("room", (e) => this.table(e.room).onRoom(e));
    p.on("state", (e) => this.table(e.room).onState(e));
    p.on("game_over", (e) => this.table(e.room).onGameOver(e));
    p.on("chat", (e) => this.table(e.room).onChat(e));
    p.on("disconnect", (e) => this.note(e.room, e.name + " lost the connection; the seat is held " + Math.round(e.hold_ms / 1000) + " s."));
    p.on("reconnect", (e) => this.note(e.room, e.name + " is back."));
    p.on("timeout", (e) => this.note(e.room, "Time ran out for " + this.nameIn(e.room, e.seat) + ": the default move was played."));
    p.on("closed", (e) => { this.note(e.room, "The room was closed (" + e.reason + ")."); });
    p.on("replaced", (e) => this.banner(e.message + " ", h("button", { type: "button", onclick: () => this.takeBack() }, "Play here")));
    p.on("kicked", (e) => this.banner(e.message));
    p.on("shutdown", (e) => this.banner(e.restart ? "The server is restarting: you will be put back in your seat." : "The server stopped."));
    p.on("announce", (e) => this.banner("Announcement: " + e.text));
    p.on("error", (e) => this.banner(errorText(e.error || e)));
    document.getElementById("nav-lobby").addEventListener("click", () => this.showLobby());
    document.getElementById("nav-history").addEventListener("click", () => this.showHistory());
    document.addEventListener("keydown", (e) => this.onKey(e));
    setInterval(() => this.current && this.current.tick(), 100);
    this.setConn("connecting…");
    p.connect();
  }

  setConn(text) {
    this.connEl.textContent = text;
    this.connEl.dataset.state = text;
  }

  banner(...parts) {
    clear(this.bannerEl);
    this.bannerEl.hidden = false;
    this.bannerEl.append(...parts.map((x) => (typeof x === "string" ? document.createTextNode(x) : x)),
      h("button.close", { type: "button", "aria-label": "dismiss", onclick: () => { this.bannerEl.hidden = true; } }, "×"));
  }

  // --- the session
  async onOpen() {
    this.setConn("connected");
    const saved = Proto.saved();
    const name = this.name || saved.name;
    if (saved.token && name) {
      try {
        await this.afterHello(await this.proto.hello(name, saved.token));
        return;
      } catch (e) {
        if (e.code !== "not_found") {
          this.showLogin(name, e);
          return;
        }
        Proto.forget(); // expired: a new session
      }
    }
    this.showLogin(name);
  }

  async takeBack() {
    this.bannerEl.hidden = true;
    this.proto.connect();
  }

  showLogin(name, err) {
    this.current = null;
    clear(this.main);
    const input = h("input#name", { type: "text", maxlength: "32", value: name || "", autocomplete: "nickname", "aria-label": "your name", required: true });
    const msg = h("p.message", { role: "status" }, err ? errorText(err) : "");
    const form = h("form.login", {
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          await this.afterHello(await this.proto.hello(input.value.trim()));
        } catch (x) {
          msg.textContent = errorText(x);
        }
      },
    }, h("h2", null, "Welcome to tapis"), h("label", { for: "name" }, "Your name "), input, " ",
    h("button#hello", { type: "submit" }, "Enter"), msg);
    this.main.appendChild(form);
    input.focus();
  }

  async afterHello(r) {
    const again = this.name !== null && r.resumed; // the connection came back
    this.name = r.name;
    this.whoEl.textContent = r.name;
    if (!this.games.length) this.games = (await this.proto.request("games")).games;
    if (again && !this.current && this.main.firstChild) {
      // Back after a drop, away from any table: stay on this screen.
      if (this.lobby && this.lobby.el.isConnected) this.lobby.refresh();
      return;
    }
    const hash = new URLSearchParams(location.hash.slice(1));
    const room = hash.get("room");
    if (room && r.rooms.includes(room)) return this.showTable(room);
    if (hash.get("join") || hash.get("watch")) {
      try {
        return await this.enter(hash.get("join") || hash.get("watch"), !hash.get("join"));
      } catch (e) {
        this.showLobby();
        this.lobby.fail(e);
        return;
      }
    }
    if (this.current && r.rooms.includes(this.current.room)) return this.showTable(this.current.room);
    if (r.rooms.length) return this.showTable(r.rooms[r.rooms.length - 1]);
    this.showLobby();
  }

  // Join ROOM (or watch it: `watch`, or when it is full or playing).
  async enter(room, watch) {
    if (!watch) {
      try {
        const r = await this.proto.request("join", { room });
        const t = this.showTable(r.room);
        t.mySeat = r.seat;
        return t;
      } catch (e) {
        if (e.code !== "room_full") throw e;
      }
    }
    const r = await this.proto.request("watch", { room });
    return this.showTable(r.room);
  }

  // --- screens
  table(room) {
    let t = this.tables.get(room);
    if (!t) {
      t = new Table(this, room);
      this.tables.set(room, t);
    }
    return t;
  }

  dropTable(room) {
    this.tables.delete(room);
    if (this.current && this.current.room === room) this.current = null;
  }

  showTable(room) {
    const t = this.table(room);
    this.current = t;
    clear(this.main);
    this.main.appendChild(t.el);
    t.render();
    history.replaceState(null, "", "#room=" + encodeURIComponent(room));
    return t;
  }

  showLobby() {
    if (!this.name) return;
    this.current = null;
    history.replaceState(null, "", location.pathname);
    clear(this.main);
    if (!this.lobby) this.lobby = new Lobby(this);
    this.lobby.show(this.main);
  }

  showHistory() {
    if (!this.name) return;
    this.current = null;
    history.replaceState(null, "", location.pathname);
    new History(this).show(this.main);
  }

  note(room, text) {
    const t = this.tables.get(room);
    if (t) t.note(text);
  }

  nameIn(room, seat) {
    const t = this.tables.get(room);
    return t ? t.name(seat) : "seat " + seat;
  }

  onKey(e) {
    if (!this.current || e.ctrlKey || e.altKey || e.metaKey) return;
    const tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    if (this.current.onKey(e)) e.preventDefault();
  }

  // --- for the tables
  gameModule(id) {
    return MODULES[id] || null;
  }

  botLevels(game) {
    const g = this.games.find((x) => x.id === game);
    return g ? g.bots || [] : [];
  }
}

const app = new App();
window.tapisApp = app; // for a person's console and the browser tests
app.start();
