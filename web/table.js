// table.js — one room on screen: its seats, whose turn it is and every
// count-down, the board (drawn by the game's module, web/games/GAME.js), the
// legal actions as buttons and keys, the result, the events as a log, and
// the chat; the deal's commitment, the seed box before the game and the
// seeds revealed at its end (docs/FAIRNESS.md). The game module draws and
// offers; this file sends and keeps time.
//
// A game module exports: title, render(view, t) -> Element (it calls
// t.offer(action, {...}) for what the player may do), describeEvent(e, t),
// describeAction(a, t), resultLines(result, t) and, optionally,
// countdowns(view, t) -> [{label, at}] (local times in ms).

import { h, clear, actionKey, seconds, errorText } from "./dom.js";

export class Table {
  constructor(app, room) {
    this.app = app;
    this.proto = app.proto;
    this.room = room;
    this.summary = null;
    this.view = null;
    this.seq = 0;
    this.waiting = [];
    this.turnDeadline = null; // local ms when the turn timer runs out
    this.received = 0; // local ms of the last state
    this.result = null;
    this.deal = null; // the deal revealed by game_over: {commit, server_seed, seeds}
    this.keys = new Map();
    this.offered = new Set();
    this.countdowns = [];
    this.prevEvents = [];
    this.mySeat = null;
    this.timersShown = new Set(); // every count-down label drawn (for the tests)
    this.build();
  }

  get game() {
    return this.app.gameModule(this.summary ? this.summary.game : null);
  }

  // The seat this page plays, or null for a spectator.
  get seat() {
    if (this.view && typeof this.view.seat === "number") return this.view.seat;
    return this.mySeat;
  }

  // --- the skeleton (built once: the chat input and the log survive updates)
  build() {
    this.titleEl = h("h2", null, "Room " + this.room);
    this.infoEl = h("span.info");
    this.linkEl = h("span.invite");
    this.seatsEl = h("ol.seats", { "aria-label": "seats" });
    this.timersEl = h("div.timers", { "aria-live": "off" });
    this.boardEl = h("div.board", { tabindex: "-1" });
    this.actionsEl = h("div.actions", { "aria-label": "your actions" });
    this.msgEl = h("p.message", { role: "status", "aria-live": "polite" });
    this.resultEl = h("div.result", { hidden: true, role: "region", "aria-label": "result" });
    this.logEl = h("ol.log", { "aria-label": "game log" });
    this.chatListEl = h("ol.chatlist", { "aria-label": "chat" });
    this.chatInput = h("input#chat-text", { type: "text", maxlength: "500", placeholder: "Say something", "aria-label": "chat message", autocomplete: "off" });
    const chatForm = h("form.chat", { onsubmit: (e) => this.say(e) }, this.chatInput, h("button", { type: "submit" }, "Send"));
    this.dealEl = h("p.deal");
    // Built once, like the chat's: a room event redraws the waiting box, not what is typed.
    this.seedInput = h("input#seed-text", { type: "text", maxlength: "64", placeholder: "any text", "aria-label": "your seed for the deal", autocomplete: "off" });
    this.seedForm = h("form.seed", { onsubmit: (e) => this.giveSeed(e) },
      h("label", { for: "seed-text" }, "Your seed for the deal: "), this.seedInput, " ",
      h("button#seed-go", { type: "submit" }, "Give seed"));
    this.el = h("section.table", { "aria-label": "table" },
      h("div.tbar", null, this.titleEl, this.infoEl, this.linkEl,
        h("span.grow"),
        h("button.leave", { type: "button", onclick: () => this.leave() }, "Leave"),
        h("button.lobby", { type: "button", onclick: () => this.app.showLobby() }, "Lobby")),
      this.seatsEl, this.dealEl, this.timersEl, this.resultEl, this.boardEl, this.msgEl, this.actionsEl,
      h("div.side", null,
        h("section.logbox", null, h("h3", null, "Game log"), this.logEl),
        h("section.chatbox", null, h("h3", null, "Chat"), this.chatListEl, chatForm)));
  }

  // --- from the server
  onRoom(summary) {
    this.summary = summary;
    const me = this.app.name;
    if (this.mySeat === null || (this.view && typeof this.view.seat !== "number")) {
      const s = (summary.seats || []).find((x) => x && !x.bot && x.name === me);
      if (s) this.mySeat = s.seat;
    }
    this.render();
  }

  onState(ev) {
    if (ev.seq <= this.seq) return;
    this.seq = ev.seq;
    const prev = this.view;
    this.view = ev.view;
    this.waiting = ev.waiting || [];
    this.received = performance.now();
    this.turnDeadline = typeof ev.deadline_ms === "number" ? this.received + ev.deadline_ms : null;
    this.mergeEvents(ev.view.events || []);
    if (this.game && this.game.logState) for (const line of this.game.logState(ev.view, prev, this)) this.note(line);
    if (ev.view.result && !this.result) this.result = ev.view.result;
    this.render();
  }

  onGameOver(ev) {
    this.result = ev.result;
    if (ev.deal && ev.deal.server_seed) this.deal = ev.deal;
    this.note("Game over. " + this.winnersText(ev.result));
    if (Array.isArray(ev.ratings) && ev.ratings.length) // a rated table's new ratings
      this.note("Ratings: " + ev.ratings.map((r) => r.name + " " + r.before.toFixed(1) + " → " + r.after.toFixed(1) +
        (r.abandoned ? " (left)" : "")).join(", ") + ".");
    this.render();
  }

  onChat(ev) {
    const who = ev.seat === null || ev.seat === undefined ? ev.from + " (watching)" : ev.from;
    const li = h("li", null, h("b", null, who + ": "), h("span", null, ev.text));
    this.chatListEl.appendChild(li);
    while (this.chatListEl.childNodes.length > 200) this.chatListEl.removeChild(this.chatListEl.firstChild);
    this.chatListEl.scrollTop = this.chatListEl.scrollHeight;
  }

  note(text) {
    const li = h("li.note", null, text);
    this.logEl.appendChild(li);
    while (this.logEl.childNodes.length > 300) this.logEl.removeChild(this.logEl.firstChild);
    this.logEl.scrollTop = this.logEl.scrollHeight;
  }

  // The view's events are its last few: add those not seen yet.
  mergeEvents(events) {
    const prev = this.prevEvents.map((e) => JSON.stringify(e));
    const next = events.map((e) => JSON.stringify(e));
    let overlap = 0;
    for (let k = Math.min(prev.length, next.length); k > 0; k--) {
      let same = true;
      for (let i = 0; i < k && same; i++) same = prev[prev.length - k + i] === next[i];
      if (same) {
        overlap = k;
        break;
      }
    }
    this.prevEvents = events;
    for (const e of events.slice(overlap)) {
      const text = this.game && this.game.describeEvent ? this.game.describeEvent(e, this) : null;
      this.note(text || JSON.stringify(e));
    }
  }

  // --- for the game modules
  name(seat) {
    if (seat === null || seat === undefined || seat < 0) return "nobody";
    const s = this.summary && this.summary.seats ? this.summary.seats[seat] : null;
    const name = !s ? "seat " + seat : s.bot ? "bot " + seat : s.name;
    return seat === this.seat ? name + " (you)" : name;
  }

  isMine(seat) {
    return seat !== null && seat === this.seat;
  }

  legal() {
    return (this.view && this.view.legal) || [];
  }

  // A button that plays `action` (one of the view's legal ones): a click, or
  // its key. opts: {label, content (elements), key, cls, title}.
  offer(action, opts) {
    opts = opts || {};
    const key = actionKey(action);
    this.offered.add(key);
    const label = opts.title || opts.label || this.describe(action);
    const b = h("button.act" + (opts.cls ? "." + opts.cls : ""), {
      type: "button",
      title: label + (opts.key ? " (key " + opts.key + ")" : ""),
      "aria-label": label + (opts.key ? ", key " + opts.key : ""),
      dataset: { action: JSON.stringify(action), focus: key },
      onclick: () => this.act(action),
    }, opts.content || opts.label || label, opts.key ? h("kbd", null, opts.key) : null);
    if (opts.key && !this.keys.has(opts.key)) this.keys.set(opts.key, action);
    return b;
  }

  describe(action) {
    const d = this.game && this.game.describeAction ? this.game.describeAction(action, this) : null;
    return d || JSON.stringify(action);
  }

  // Send `action` once for this state, without a click (seqnum's auto-draw).
  autoAct(action) {
    if (this.autoSeq === this.seq) return;
    this.autoSeq = this.seq;
    setTimeout(() => this.act(action), 0);
  }

  // Send the request `cmd` for this room; its error is shown under the table.
  // True when the server took it.
  async send(cmd, args) {
    try {
      await this.proto.request(cmd, { room: this.room, ...args });
      return true;
    } catch (e) {
      this.msgEl.textContent = errorText(e);
      return false;
    }
  }

  async act(action) {
    // seq: the state it answers, from which the server counts the reaction.
    if (await this.send("act", { action, seq: this.seq })) this.msgEl.textContent = "";
  }

  // Legal actions the drawing reaches another way (seqnum's cells of the
  // cards not chosen): no plain button for them.
  covered(actions) {
    for (const a of actions) this.offered.add(actionKey(a));
  }

  // A key that does something other than an action (choosing a card).
  bindKey(key, fn) {
    if (!this.keys.has(key)) this.keys.set(key, fn);
  }

  onKey(e) {
    const what = this.keys.get(e.key);
    if (!what) return false;
    if (typeof what === "function") what();
    else this.act(what);
    return true;
  }

  async say(e) {
    e.preventDefault();
    const text = this.chatInput.value.trim();
    if (text && (await this.send("say", { text }))) this.chatInput.value = "";
  }

  // The player's seed, mixed into the deal (PROTOCOL.md, "seed"), until the game starts.
  async giveSeed(e) {
    e.preventDefault();
    const text = this.seedInput.value;
    if (text && (await this.send("seed", { text })))
      this.msgEl.textContent = "Your seed is in: the deal will use it.";
  }

  async leave() {
    try {
      await this.proto.request("leave", { room: this.room });
    } catch (e) {
      /* not in the room any more: nothing to leave */
    }
    this.app.dropTable(this.room);
    this.app.showLobby();
  }

  async addBot(level) {
    try {
      await this.proto.request("addbot", { room: this.room, strategy: level || undefined });
    } catch (e) {
      this.msgEl.textContent = errorText(e);
    }
  }

  // --- drawing
  render() {
    if (!this.summary) return;
    const s = this.summary;
    const game = this.game;
    this.titleEl.textContent = (game ? game.title : s.title || s.game) + " · room " + s.room;
    const mine = this.seat;
    this.infoEl.textContent = [s.status, s.private ? "private" : "public",
      mine === null ? "you are watching" : "you sit at seat " + mine,
      s.spectators ? s.spectators + " watching" : ""].filter(Boolean).join(" · ");
    this.renderInvite();
    this.renderSeats();
    this.renderDeal();

    const focus = this.el.contains(document.activeElement) && this.boardOrActions(document.activeElement)
      ? document.activeElement.dataset.focus || "board" : null;
    this.keys = new Map();
    this.offered = new Set();
    this.countdowns = [];
    clear(this.boardEl);
    clear(this.actionsEl);
    if (s.status === "waiting" || !this.view) {
      this.boardEl.appendChild(this.renderWaiting());
    } else if (game) {
      this.boardEl.appendChild(game.render(this.view, this));
    } else {
      this.boardEl.appendChild(h("pre", null, JSON.stringify(this.view, null, 1)));
    }
    this.renderRest();
    this.renderTimers();
    this.renderResult();
    if (focus) this.restoreFocus(focus);
  }

  boardOrActions(el) {
    return this.boardEl.contains(el) || this.actionsEl.contains(el);
  }

  restoreFocus(focus) {
    const same = [...this.el.querySelectorAll("[data-focus]")].find((x) => x.dataset.focus === focus);
    const first = this.boardEl.querySelector("button.act") || this.actionsEl.querySelector("button.act");
    (same || first || this.boardEl).focus();
  }

  // Legal actions the game's drawing did not offer get a plain button.
  renderRest() {
    const rest = this.legal().filter((a) => !this.offered.has(actionKey(a)));
    if (rest.length) {
      this.actionsEl.appendChild(h("span.lbl", null, "Also:"));
      for (const a of rest) this.actionsEl.appendChild(this.offer(a));
    }
    const keyed = [...this.keys.entries()].filter(([, a]) => typeof a !== "function");
    if (keyed.length) {
      const keys = keyed.slice(0, 12).map(([k, a]) => k + " " + this.describe(a));
      this.actionsEl.appendChild(h("p.keys", null, "Keys: " + keys.join(" · ")));
    }
  }

  renderInvite() {
    clear(this.linkEl);
    const s = this.summary;
    if (s.status !== "waiting") return;
    const url = location.origin + location.pathname + "#join=" + encodeURIComponent(s.room);
    this.linkEl.appendChild(h("span", null, s.private ? "Join code " : "Invite: "));
    this.linkEl.appendChild(h("a.invite-link", { href: url }, s.private ? s.room : url));
  }

  renderSeats() {
    clear(this.seatsEl);
    const s = this.summary;
    (s.seats || []).forEach((x, i) => {
      const waited = this.waiting.includes(i) && s.status === "playing";
      const li = h("li.seat" + (waited ? ".waited" : "") + (i === this.seat ? ".mine" : ""), null,
        h("span.sn", null, "Seat " + i + " "),
        h("b", null, x ? (x.bot ? "bot (" + x.strategy + ")" : x.name) : "free"),
        x && typeof x.rating === "number" ? h("span.rating", { title: "rating (μ − 3σ)" }, " " + x.rating.toFixed(1)) : null,
        x && !x.bot && x.connected === false ? h("span.off", null, " (away)") : null,
        x && typeof x.lag_ms === "number" ? h("span.lag", { title: "round trip the server measured: its races credit it" }, " " + x.lag_ms + " ms") : null,
        i === this.seat ? h("span.you", null, " (you)") : null,
        waited ? h("span.turnmark", null, " ◀ to play") : null);
      this.seatsEl.appendChild(li);
    });
  }

  // The commitment to the server seed, published before the deal: the seed
  // revealed at the end must hash to it (BLAKE2b-256; docs/FAIRNESS.md).
  renderDeal() {
    clear(this.dealEl);
    const d = this.summary.deal;
    this.dealEl.hidden = !d;
    if (!d) return;
    const seeded = (d.seeded || []).filter(Boolean).length;
    this.dealEl.append(h("span.lbl", null, "Deal commitment "),
      h("code.commit", { title: "BLAKE2b-256 of the server seed, revealed when the game ends" }, d.commit),
      h("span.seeded", null, " · " + seeded + " of " + (d.seeded || []).length + " seats gave a seed"));
  }

  renderWaiting() {
    const s = this.summary;
    const free = (s.seats || []).filter((x) => !x).length;
    const box = h("div.waiting", null, h("p", null, free ? "Waiting for " + free + " more player" + (free > 1 ? "s" : "") +
      ". The game starts when the last seat is taken." : "Starting..."));
    if (free && this.seat !== null) {
      const bots = this.app.botLevels(s.game);
      const sel = h("select#bot-level", { "aria-label": "bot level" }, bots.map((b) => h("option", { value: b.level }, b.level)));
      box.appendChild(h("p", null, h("button.addbot", { type: "button", onclick: () => this.addBot(sel.value) }, "Add a bot"), " ", sel));
    }
    if (this.seat !== null && s.status === "waiting" && s.deal) box.appendChild(this.seedForm);
    return box;
  }

  winnersText(result) {
    const w = (result && result.winners) || [];
    if (!w.length) return "Nobody won.";
    const names = w.map((x) => this.name(x));
    return (names.length > 1 ? "Winners: " : "Winner: ") + names.join(", ") + ".";
  }

  renderResult() {
    clear(this.resultEl);
    if (!this.result) {
      this.resultEl.hidden = true;
      return;
    }
    this.resultEl.hidden = false;
    const won = this.seat !== null && (this.result.winners || []).includes(this.seat);
    this.resultEl.appendChild(h("h3", null, won ? "You won!" : "Game over"));
    this.resultEl.appendChild(h("p.winners", null, this.winnersText(this.result)));
    const lines = this.game && this.game.resultLines ? this.game.resultLines(this.result, this) : [];
    if (lines.length) this.resultEl.appendChild(h("ul", null, lines.map((l) => h("li", null, l))));
    if (this.deal) { // the reveal: anyone may recompute the decks (tapis verify ID)
      const seeds = (this.deal.seeds || []).map((x, i) => x ? this.name(i) + ": " + JSON.stringify(x) : null).filter(Boolean);
      this.resultEl.appendChild(h("p.reveal", null, "Server seed ", h("code.server-seed", null, this.deal.server_seed),
        " (its BLAKE2b-256 is the commitment ", h("code", null, this.deal.commit), ") · players' seeds: ",
        h("span.seeds", null, seeds.length ? seeds.join(", ") : "none"), " · check: tapis verify " + this.room));
    }
    this.resultEl.appendChild(h("p", null,
      h("button", { type: "button", onclick: () => this.app.showLobby() }, "Back to the lobby"), " ",
      h("button", { type: "button", onclick: () => this.app.showHistory() }, "History and replays")));
  }

  // --- time: the turn timer (deadline_ms) and the game's own count-downs
  renderTimers() {
    clear(this.timersEl);
    this.countdowns = [];
    if (!this.view || this.result) return;
    if (this.turnDeadline !== null && this.waiting.length) {
      const who = this.waiting.map((x) => this.name(x)).join(", ");
      this.addCountdown("Turn timer (" + who + ")", this.turnDeadline);
    }
    const extra = this.game && this.game.countdowns ? this.game.countdowns(this.view, this) : [];
    for (const c of extra) this.addCountdown(c.label, c.at, c.text);
    this.tick();
  }

  // A count-down to local time `at`, or (`text`) a deadline that is not a time.
  addCountdown(label, at, text) {
    this.timersShown.add(label);
    const val = h("span.val", null, text || "");
    this.timersEl.appendChild(h("span.timer" + (text ? ".event" : ""), null, label + ": ", val));
    if (!text) this.countdowns.push({ at, val });
  }

  tick() {
    const now = performance.now();
    for (const c of this.countdowns) c.val.textContent = seconds(c.at - now);
  }

  // Local time of a game time `t` (ms) given in a view whose "now" is `now`.
  localTime(t, now) {
    return this.received + (t - now);
  }
}
