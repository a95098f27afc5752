// history.js — finished games (`history`, yours or every public one, a page
// at a time) and the replay viewer of one (`replay`). A record holds the
// options, the seed, the seats and the journal, not the cards dealt (they
// follow from the seed in the game's core), and the page has no rules: the
// viewer lists the moves (the journal's act and tick entries) in words and,
// for each step, asks the server for what a spectator saw then (`replay ID
// step=N`, replayed by the server's core), drawn by the game's own table
// drawing (web/games/GAME.js) as the live table draws it. Buttons, the
// slider, the list and the keys ← → Home End step through it.

import { h, clear, errorText } from "./dom.js";

const PAGE = 10;

export class History {
  constructor(app) {
    this.app = app;
    this.all = false;
    this.offset = 0;
    this.el = h("section.history", { "aria-label": "history" });
    this.listEl = h("div.hlist");
    this.msgEl = h("p.message", { role: "status" });
  }

  show(container) {
    clear(this.el);
    const mine = h("button", { type: "button", "aria-pressed": String(!this.all), onclick: () => { this.all = false; this.offset = 0; this.show(container); } }, "My games");
    const all = h("button", { type: "button", "aria-pressed": String(this.all), onclick: () => { this.all = true; this.offset = 0; this.show(container); } }, "All public games");
    this.el.appendChild(h("h2", null, "Finished games"));
    this.el.appendChild(h("div.row", null, mine, " ", all));
    this.el.appendChild(this.msgEl);
    this.el.appendChild(this.listEl);
    clear(container);
    container.appendChild(this.el);
    this.refresh();
  }

  async refresh() {
    let r;
    try {
      r = await this.app.proto.request("history", { all: this.all, limit: PAGE, offset: this.offset });
    } catch (e) {
      this.msgEl.textContent = errorText(e);
      return;
    }
    clear(this.listEl);
    if (!r.games.length) this.listEl.appendChild(h("p", null, "No finished game yet."));
    const ul = h("ul.games");
    for (const g of r.games) {
      const mod = this.app.gameModule(g.game);
      const winners = (g.result.winners || []).map((s) => g.players[s]).join(", ") || "nobody";
      ul.appendChild(h("li", { dataset: { game: g.id } },
        h("b", null, (mod ? mod.title : g.game) + " #" + g.id), " · " + g.players.join(", ") + " · won by " + winners +
          " · " + new Date(g.ended).toLocaleString() + " ",
        h("button.replay", { type: "button", onclick: () => this.replay(g.id) }, "Replay")));
    }
    this.listEl.appendChild(ul);
    this.listEl.appendChild(h("p.pager", null,
      h("button", { type: "button", disabled: this.offset === 0, onclick: () => { this.offset = Math.max(0, this.offset - PAGE); this.refresh(); } }, "◀ Newer"),
      " " + (r.total ? r.offset + 1 + "–" + (r.offset + r.games.length) + " of " + r.total : "") + " ",
      h("button", { type: "button", disabled: r.offset + PAGE >= r.total, onclick: () => { this.offset += PAGE; this.refresh(); } }, "Older ▶")));
  }

  async replay(id) {
    let r;
    try {
      r = await this.app.proto.request("replay", { game_id: String(id) });
    } catch (e) {
      this.msgEl.textContent = errorText(e);
      return;
    }
    const viewer = new Replay(this.app, r.record, () => this.show(this.app.main));
    clear(this.app.main);
    this.app.main.appendChild(viewer.el);
    viewer.draw();
  }
}

export class Replay {
  constructor(app, record, back) {
    this.app = app;
    this.rec = record;
    this.mod = app.gameModule(record.game);
    // The steps the server counts: each act or tick entry made a new state.
    this.steps = record.actions.filter((x) => x.kind === "act" || x.kind === "tick");
    this.n = 0; // moves shown
    this.asked = 0; // the latest step asked for: older answers are dropped
    this.view = null;
    this.boardEl = h("div.rboard.board", { "aria-label": "the table at this step" });
    this.stepEl = h("p.step", { role: "status", "aria-live": "polite" });
    this.listEl = h("ol.rsteps");
    this.range = h("input#replay-range", { type: "range", min: 0, max: this.steps.length, value: 0, "aria-label": "step" });
    this.range.addEventListener("input", () => this.go(Number(this.range.value)));
    const names = record.seats.map((s) => (s.bot ? "bot " + s.seat + " (" + s.strategy + ")" : s.name));
    this.names = names;
    const t = this.ctx();
    this.el = h("section.replay", { "aria-label": "replay", tabindex: "-1", onkeydown: (e) => this.key(e) },
      h("h2", null, "Replay: " + (this.mod ? this.mod.title : record.game) + " #" + record.id),
      h("p", null, "Players: " + names.map((n, i) => i + " " + n).join(", ") + " · options " + Object.entries(record.options).map(([k, v]) => k + " " + JSON.stringify(v)).join(", ") + " · seed " + record.seed),
      h("p", null, "Result: " + (record.result.winners || []).map((s) => names[s]).join(", ") + " won. ",
        this.mod && this.mod.resultLines ? this.mod.resultLines(record.result, t).join(" · ") : ""),
      h("div.rctl", null,
        h("button#replay-first", { type: "button", onclick: () => this.go(0) }, "« Start"),
        h("button#replay-prev", { type: "button", onclick: () => this.go(this.n - 1) }, "◀ Back"),
        this.range,
        h("button#replay-next", { type: "button", onclick: () => this.go(this.n + 1) }, "Next ▶"),
        h("button#replay-last", { type: "button", onclick: () => this.go(this.steps.length) }, "End »"),
        h("button", { type: "button", onclick: back }, "Back to the list")),
      this.stepEl, this.boardEl, this.listEl);
  }

  // What a game module's drawing asks of a table (table.js), for a watcher
  // of a finished game: no seat, nothing legal, nothing to click or time.
  ctx() {
    return {
      app: this.app,
      room: null,
      seat: null,
      view: this.view,
      received: 0,
      keys: new Map(),
      name: (s) => (s === null || s === undefined || s < 0 ? "nobody" : this.names[s] || "seat " + s),
      isMine: () => false,
      legal: () => [],
      offer: (a, opts) => h("span", null, (opts && (opts.content || opts.label)) || ""),
      covered: () => {},
      bindKey: () => {},
      autoAct: () => {},
      render: () => this.drawBoard(),
      localTime: () => null,
    };
  }

  key(e) {
    if (e.key === "ArrowRight") this.go(this.n + 1);
    else if (e.key === "ArrowLeft") this.go(this.n - 1);
    else if (e.key === "Home") this.go(0);
    else if (e.key === "End") this.go(this.steps.length);
    else return;
    e.preventDefault();
  }

  go(n) {
    this.n = Math.max(0, Math.min(this.steps.length, n));
    this.draw();
  }

  describe(x, t) {
    const what = x.kind === "tick" ? "the game's timer"
      : t.name(x.seat) + ": " + ((this.mod && this.mod.describeAction(x.data, t)) || JSON.stringify(x.data));
    return what + " (at " + (x.at / 1000).toFixed(1) + " s)";
  }

  draw() {
    const t = this.ctx();
    this.range.value = String(this.n);
    this.stepEl.textContent = this.n === 0 ? "Before the first move (" + this.steps.length + " moves)."
      : "Move " + this.n + " of " + this.steps.length + ": " + this.describe(this.steps[this.n - 1], t);
    clear(this.listEl);
    this.steps.forEach((x, i) => {
      this.listEl.appendChild(h("li" + (i === this.n - 1 ? ".current" : ""), null,
        h("button.link", { type: "button", onclick: () => this.go(i + 1) }, this.describe(x, t))));
    });
    const cur = this.listEl.querySelector(".current");
    if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: "nearest" });
    this.fetchView(this.n);
  }

  async fetchView(n) {
    this.asked = n;
    let r;
    try {
      r = await this.app.proto.request("replay", { game_id: String(this.rec.id), step: n });
    } catch (e) {
      if (this.asked === n) this.stepEl.textContent = errorText(e);
      return;
    }
    if (this.asked !== n) return; // a later step was asked for meanwhile
    this.view = r.view;
    this.el.dataset.step = String(r.step);
    this.drawBoard();
  }

  drawBoard() {
    clear(this.boardEl);
    if (!this.view) return;
    this.boardEl.appendChild(this.mod ? this.mod.render(this.view, this.ctx()) : h("pre", null, JSON.stringify(this.view, null, 1)));
  }
}
