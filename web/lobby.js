// lobby.js — the lobby: create a table (the game's options and bot levels
// from `games`), join by code, and the rooms list one page at a time with
// its filters (game, status), each room to join or watch.

import { h, clear, errorText } from "./dom.js";

const PAGE = 10;

export class Lobby {
  constructor(app) {
    this.app = app;
    this.offset = 0;
    this.filterGame = "";
    this.filterStatus = "";
    this.el = h("section.lobby", { "aria-label": "lobby" });
    this.msgEl = h("p.message", { role: "status", "aria-live": "polite" });
    this.roomsEl = h("div.rooms");
  }

  show(container) {
    clear(this.el);
    this.el.appendChild(this.msgEl);
    this.el.appendChild(this.createForm());
    this.el.appendChild(this.joinForm());
    this.el.appendChild(this.roomsBox());
    container.appendChild(this.el);
    this.refresh();
    // The list follows the server while the lobby is on screen.
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      if (!this.el.isConnected) clearInterval(this.timer);
      else if (this.app.proto.connected) this.refresh();
    }, 5000);
  }

  fail(e) {
    this.msgEl.textContent = errorText(e);
  }

  // --- create
  createForm() {
    const games = this.app.games;
    const gameSel = h("select#create-game", { "aria-label": "game" }, games.map((g) => h("option", { value: g.id }, g.title)));
    const players = h("select#create-players", { "aria-label": "players" });
    const optsBox = h("div.options");
    const priv = h("input#create-private", { type: "checkbox" });
    const bots = h("select#create-bots", { "aria-label": "bots to seat" });
    const level = h("select#create-level", { "aria-label": "bot level" });
    let fields = [];
    const fill = () => {
      const g = games.find((x) => x.id === gameSel.value);
      if (!g) return;
      clear(players);
      for (let n = g.min_players; n <= g.max_players; n++) {
        // seqnum refuses 5; the server says so (bad_players) if another game does.
        if (g.id === "seqnum" && n === 5) continue;
        players.appendChild(h("option", { value: n, selected: n === 2 || undefined }, String(n)));
      }
      clear(level);
      for (const b of g.bots || []) level.appendChild(h("option", { value: b.level, title: b.help }, b.level));
      fields = (g.option_specs || []).map((o) => optionField(g.id, o));
      clear(optsBox);
      for (const f of fields) optsBox.appendChild(f.el);
      fillBots();
    };
    const fillBots = () => {
      const n = Number(players.value || 2);
      clear(bots);
      for (let b = 0; b < n; b++) bots.appendChild(h("option", { value: b, selected: b === n - 1 || undefined }, String(b)));
    };
    gameSel.addEventListener("change", fill);
    players.addEventListener("change", fillBots);
    fill();
    const submit = async (e) => {
      e.preventDefault();
      const options = {};
      for (const f of fields) {
        const v = f.value();
        if (v !== undefined) options[f.name] = v;
      }
      try {
        const r = await this.app.proto.request("create", {
          game: gameSel.value, players: Number(players.value), options, private: priv.checked,
        });
        const table = this.app.showTable(r.room);
        table.mySeat = r.seat;
        for (let i = 0; i < Number(bots.value); i++) {
          await this.app.proto.request("addbot", { room: r.room, strategy: level.value });
        }
      } catch (err) {
        this.fail(err);
      }
    };
    return h("form.create", { onsubmit: submit, "aria-label": "create a table" },
      h("h2", null, "New table"),
      h("div.row", null, h("label", null, "Game ", gameSel), h("label", null, "Players ", players),
        h("label", null, priv, " private (join by code only)")),
      h("div.row", null, h("label", null, "Bots ", bots), h("label", null, "Bot level ", level)),
      h("details", null, h("summary", null, "Options"), optsBox),
      h("button#create-go", { type: "submit" }, "Create"));
  }

  // --- join by code
  joinForm() {
    const code = h("input#join-code", { type: "text", placeholder: "room or code", "aria-label": "room or join code", autocomplete: "off" });
    const go = async (watch) => {
      const room = code.value.trim();
      if (!room) return;
      try {
        await this.app.enter(room, watch);
      } catch (e) {
        this.fail(e);
      }
    };
    return h("form.join", { onsubmit: (e) => { e.preventDefault(); go(false); }, "aria-label": "join by code" },
      h("h2", null, "Join by code"), code, " ",
      h("button", { type: "submit" }, "Join"), " ",
      h("button", { type: "button", onclick: () => go(true) }, "Watch"));
  }

  // --- the rooms list
  roomsBox() {
    const gameSel = h("select#rooms-game", { "aria-label": "filter by game" }, h("option", { value: "" }, "all games"),
      this.app.games.map((g) => h("option", { value: g.id, selected: g.id === this.filterGame || undefined }, g.title)));
    const statusSel = h("select#rooms-status", { "aria-label": "filter by status" },
      ["", "waiting", "playing", "over"].map((s) => h("option", { value: s, selected: s === this.filterStatus || undefined }, s || "any status")));
    const change = () => {
      this.filterGame = gameSel.value;
      this.filterStatus = statusSel.value;
      this.offset = 0;
      this.refresh();
    };
    gameSel.addEventListener("change", change);
    statusSel.addEventListener("change", change);
    return h("section.roomlist", { "aria-label": "rooms" }, h("h2", null, "Rooms"),
      h("div.row", null, gameSel, " ", statusSel, " ", h("button", { type: "button", onclick: () => this.refresh() }, "Refresh")),
      this.roomsEl);
  }

  async refresh() {
    const args = { limit: PAGE, offset: this.offset };
    if (this.filterGame) args.game = this.filterGame;
    if (this.filterStatus) args.status = this.filterStatus;
    let r;
    try {
      r = await this.app.proto.request("rooms", args);
    } catch (e) {
      this.fail(e);
      return;
    }
    clear(this.roomsEl);
    if (!r.rooms.length) {
      this.roomsEl.appendChild(h("p", null, "No room here yet: create one."));
    }
    const list = h("ul.rooms");
    for (const s of r.rooms) {
      const taken = s.seats.filter(Boolean).length;
      const mine = this.app.tables.has(s.room);
      const title = (this.app.gameModule(s.game) || {}).title || s.title || s.game;
      const names = s.seats.map((x) => (x ? (x.bot ? "bot" : x.name) : "free")).join(", ");
      list.appendChild(h("li.room", { dataset: { room: s.room } },
        h("b", null, title), " · room " + s.room + (s.private ? " (private)" : "") + " · " + s.status + " · " + taken + "/" + s.players +
          " · " + names + (s.spectators ? " · " + s.spectators + " watching" : ""), " ",
        mine ? h("button", { type: "button", onclick: () => this.app.showTable(s.room) }, "Open") : null,
        !mine && s.status === "waiting" && taken < s.players ? h("button.join", { type: "button", onclick: () => this.app.enter(s.room, false).catch((e) => this.fail(e)) }, "Join") : null,
        !mine && s.status !== "over" ? h("button.watch", { type: "button", onclick: () => this.app.enter(s.room, true).catch((e) => this.fail(e)) }, "Watch") : null));
    }
    this.roomsEl.appendChild(list);
    const last = Math.min(r.offset + r.rooms.length, r.total);
    this.roomsEl.appendChild(h("p.pager", null,
      h("button", { type: "button", disabled: this.offset === 0, onclick: () => { this.offset = Math.max(0, this.offset - PAGE); this.refresh(); } }, "◀ Newer"),
      " " + (r.total ? r.offset + 1 + "–" + last + " of " + r.total : "0 rooms") + " ",
      h("button", { type: "button", disabled: r.offset + PAGE >= r.total, onclick: () => { this.offset += PAGE; this.refresh(); } }, "Older ▶")));
  }
}

// One input for an option of option_specs: {el, name, value() -> the value
// when it differs from the default (else undefined: the server's default)}.
function optionField(game, o) {
  const id = "opt-" + game + "-" + o.name;
  let input;
  if (o.type === "bool") input = h("input", { type: "checkbox", id, checked: !!o.default });
  else if (o.type === "int") input = h("input", { type: "number", id, min: o.min, max: o.max, value: o.default, step: 1 });
  else if (o.choices) input = h("select", { id }, o.choices.map((c) => h("option", { value: c, selected: c === o.default || undefined }, c)));
  else input = h("input", { type: "text", id, value: o.default });
  const value = () => {
    let v;
    if (o.type === "bool") v = input.checked;
    else if (o.type === "int") v = Number(input.value);
    else v = input.value;
    return v === o.default ? undefined : v;
  };
  return { name: o.name, value, el: h("label.opt", { title: o.help }, o.name + " ", input, h("small", null, " " + o.help)) };
}
