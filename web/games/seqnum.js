// games/seqnum.js — the sequence numbers table (core/seqnum/RULES.md): the
// 10 × 10 board with its numbers, the teams' chips (a letter and a shape
// besides the colour), the four free corners (★) and the finished sequences
// (framed); your hand, where a card is chosen (a click, or keys 1–9) and
// the board then offers its cells. d draws (before the next player has
// played and drawn: the draw lapses then), p passes, and a dead card is
// traded with the button under it.

import { h } from "../dom.js";
import { cardSeqnum, seqnumAnswer, back } from "../cards.js";

export const title = "Sequence numbers";

const TEAM_MARK = ["●", "■", "▲"];
const AUTO_DRAW = "tapis.seqnum.autodraw"; // "0": draw by hand
const TEAM_LETTER = ["A", "B", "C"];

export function teamLabel(team) {
  return "team " + TEAM_LETTER[team] + " " + TEAM_MARK[team];
}

function chip(team, locked) {
  return h("span.chip.team-" + team + (locked ? ".locked" : ""), { title: teamLabel(team) + (locked ? ", locked" : "") },
    TEAM_MARK[team] + TEAM_LETTER[team]);
}

// The board alone: `cellFor(i)` may return a button for cell i, else the
// cell is drawn as a plain element.
export function board(v, cellFor) {
  const inSeq = new Set();
  for (const s of v.sequences || []) for (const c of s.cells) inSeq.add(c);
  const grid = h("div.sqboard", { role: "grid", "aria-label": "board" });
  for (let r = 0; r < v.side; r++) {
    const tr = h("div.sqrow", { role: "row" });
    for (let c = 0; c < v.side; c++) {
      const i = r * v.side + c;
      const n = v.layout[i];
      const owner = v.chips[i];
      const parts = [n === 0 ? h("span.num.corner", { title: "free corner" }, "★") : h("span.num", null, String(n)),
        owner >= 0 ? chip(owner, inSeq.has(i)) : null];
      const cls = "sqcell" + (n === 0 ? ".corner" : "") + (inSeq.has(i) ? ".inseq" : "");
      const btn = cellFor ? cellFor(i, parts, cls) : null;
      tr.appendChild(btn || h("span." + cls, { role: "gridcell", dataset: { cell: i }, title: "cell " + i + (n ? ", number " + n : ", free corner") }, parts));
    }
    grid.appendChild(tr);
  }
  return grid;
}

export function render(v, t) {
  const legal = t.legal();
  const me = t.seat;
  const plays = legal.filter((a) => a.type === "play");
  const hand = v.hand || [];
  // The chosen card: kept across updates while it can still be played.
  const playable = [...new Set(plays.map((a) => a.card))];
  if (!playable.includes(t.seqSel)) t.seqSel = playable[0];
  t.covered(plays);

  const targets = new Map(plays.filter((a) => a.card === t.seqSel).map((a) => [a.cell, a]));
  const grid = board(v, (i, parts, cls) => {
    const a = targets.get(i);
    if (!a) return null;
    return t.offer(a, { content: parts, cls: cls.replace(/^sqcell/, "sqcell.target"), label: describeAction(a, t) });
  });

  const el = h("div.tseq");
  el.appendChild(h("div.others", null, v.players.filter((p) => p.seat !== me).map((p) => playerBox(v, p, t))));
  el.appendChild(h("div.centre", null, grid,
    h("p.phase", { role: "status" }, phaseText(v, t)),
    h("p.status", null, [v.teams + " teams", v.goal + " sequence" + (v.goal > 1 ? "s" : "") + " to win",
      "turn " + v.turns + " of at most " + v.max_turns, v.draw_pile + " in the draw pile",
      v.reshuffles ? "reshuffled " + v.reshuffles + "×" : ""].filter(Boolean).join(" · ")),
    v.sequences.length ? h("p.seqs", null, "Sequences: " + v.sequences.map((s) => teamLabel(s.team) + " (" + s.cells.join(", ") + ")").join("; ")) : null));

  if (me !== null && v.players[me]) {
    const p = v.players[me];
    const handEl = h("div.hand", { "aria-label": "your hand" });
    hand.forEach((c, i) => {
      const can = playable.includes(c);
      const sel = c === t.seqSel;
      handEl.appendChild(h("button.pick" + (sel ? ".selected" : ""), {
        type: "button",
        disabled: !can,
        "aria-pressed": sel ? "true" : "false",
        title: can ? "Choose " + c + " (key " + (i + 1) + ")" : c + ": no free cell for it",
        dataset: { focus: "pick:" + c },
        onclick: () => { t.seqSel = c; t.render(); },
      }, cardSeqnum(c), h("kbd", null, String(i + 1))));
      if (can) t.bindKey(String(i + 1), () => { t.seqSel = c; t.render(); });
    });
    const more = [];
    const auto = localStorage.getItem(AUTO_DRAW) !== "0";
    for (const a of legal.filter((x) => x.type === "draw")) {
      more.push(t.offer(a, { key: "d", label: "Draw now", cls: "race" }));
      if (auto) t.autoAct(a);
    }
    const autoBox = h("input#seq-autodraw", { type: "checkbox", checked: auto,
      onchange: (e) => localStorage.setItem(AUTO_DRAW, e.target.checked ? "1" : "0") });
    for (const a of legal.filter((x) => x.type === "trade")) more.push(t.offer(a, { label: "Trade the dead " + a.card }));
    for (const a of legal.filter((x) => x.type === "pass")) more.push(t.offer(a, { key: "p", label: "Pass" }));
    el.appendChild(h("div.me" + (v.turn === me && !v.over ? ".turn" : ""), null,
      h("div.pname", null, "You (seat " + me + ", ", chip(v.team), ")", " · " + p.cards + " of " + p.max_cards + " cards",
        p.lapsed ? " · " + p.lapsed + " draw" + (p.lapsed > 1 ? "s" : "") + " lost" : ""),
      handEl,
      t.seqSel ? h("p.note", null, "Chosen: " + t.seqSel + (seqnumAnswer(t.seqSel) !== null ? " → cells showing " + seqnumAnswer(t.seqSel)
        : t.seqSel === "plus" ? " → any free cell" : " → an opponent's chip to remove") + ".") : null,
      more.length ? h("div.more", null, more) : null,
      h("label.autodraw", null, autoBox, " draw at once after each play (a late draw is lost)"),
      p.discards.length ? h("p.disc", null, "Your discard pile: ", cardSeqnum(p.discards[p.discards.length - 1]), " (" + p.discards.length + ")") : null));
  }
  return el;
}

function playerBox(v, p, t) {
  const turn = v.turn === p.seat && !v.over;
  return h("div.player" + (turn ? ".turn" : ""), { dataset: { seat: p.seat } },
    h("div.pname", null, t.name(p.seat), " ", chip(p.team), turn ? " ◀" : ""),
    h("div.pline", null, h("span.backs", { "aria-label": p.cards + " cards in hand" }, [...Array(Math.min(p.cards, 8))].map(() => back()),
      h("span.count", null, p.cards + "/" + p.max_cards + " cards" + (p.owes_draw ? " · owes a draw" : "") + (p.lapsed ? " · lost " + p.lapsed : ""))),
      p.discards.length ? cardSeqnum(p.discards[p.discards.length - 1]) : null));
}

function phaseText(v, t) {
  if (v.over) return "The game is over.";
  const mine = t.isMine(v.turn);
  const owes = t.seat !== null && v.players[t.seat] && v.players[t.seat].owes_draw;
  return (mine ? "Your turn to play." : t.name(v.turn) + "'s turn.") + (owes ? " Draw now, before " + t.name(v.turn) + " has played and drawn!" : "");
}

// The draw's deadline is not a time: it lapses when the next player has
// played and drawn. Shown beside the timers.
export function countdowns(v, t) {
  const out = [];
  for (const p of v.players) {
    if (p.owes_draw) out.push({ label: t.name(p.seat) + " must draw", text: "before " + t.name(v.turn) + " plays and draws" });
  }
  return out;
}

export function describeAction(a, t) {
  switch (a.type) {
    case "play": return a.card === "minus" ? "Minus: remove the chip on cell " + a.cell : "Play " + a.card + " on cell " + a.cell;
    case "trade": return "Trade the dead " + a.card;
    case "draw": return "Draw";
    case "pass": return "Pass";
  }
  return null;
}

export function describeEvent(e, t) {
  const who = t.name(e.seat);
  switch (e.did) {
    case "play": return who + " played " + e.card + " on cell " + e.cell + ".";
    case "remove": return who + " played a minus: the chip on cell " + e.cell + " is removed.";
    case "trade": return who + " traded the dead " + e.card + ".";
    case "draw": return who + " drew.";
    case "lapse": return who + " did not draw in time: a card lost for the game.";
    case "pass": return who + " passed.";
    case "sequence": return "Sequence for " + teamLabel(e.team) + ": cells " + e.cells.join(", ") + "!";
    case "reshuffle": return "The discard piles were shuffled into a new draw pile.";
    case "game_over": return "Game over (" + e.reason + ").";
  }
  return null;
}

export function resultLines(r, t) {
  const lines = [];
  if (r.team !== null && r.team !== undefined) lines.push(teamLabel(r.team) + " wins.");
  lines.push("Reason: " + ({ sequences: "sequences made", max_turns: "turn limit reached", no_cards: "no cards left" }[r.reason] || r.reason));
  (r.sequences || []).forEach((n, i) => lines.push(teamLabel(i) + ": " + n + " sequence" + (n === 1 ? "" : "s")));
  lines.push("Turns: " + r.turns);
  return lines;
}
