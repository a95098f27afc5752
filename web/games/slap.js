// games/slap.js — the slap table (core/slap/RULES.md): the discard piles in
// the middle (pile K is seat K's), every player's draw pile and four columns
// (face-down cards as backs, the face-up top drawn), the go and the stall
// count-downs. Every race action is one click or one key: a play of column
// C on pile K is the button under the card, key PILE_KEYS[K][C] (pile 0:
// 1 2 3 4, pile 1: q w e r, pile 2: a s d f, ...); a slap of pile K is any key
// of that pile's row; h j k l turn up columns 0–3.

import { h } from "../dom.js";
import { cardSlap, back, slot } from "../cards.js";

export const title = "Slap";

const PILE_KEYS = ["1234", "qwer", "asdf", "zxcv", "5678", "tyui"];
const TURN_KEYS = "hjkl";

export function render(v, t) {
  const legal = t.legal();
  const me = t.seat;
  const el = h("div.tslap");

  // The piles.
  const piles = h("div.piles", { "aria-label": "discard piles" });
  for (const p of v.piles) {
    const slap = legal.find((a) => a.type === "slap" && a.pile === p.pile);
    const face = p.top ? cardSlap(p.top) : slot(p.boxed ? "boxed" : "empty");
    const owner = t.isMine(p.pile) ? "yours" : t.name(p.pile) + "'s";
    const cap = h("figcaption", null, "Pile " + p.pile + " (" + owner + ") · " + p.cards + " card" + (p.cards === 1 ? "" : "s"),
      p.boxed ? " · boxed" : p.taken_by !== null && p.taken_by !== undefined ? " · taken by " + t.name(p.taken_by) : "");
    let body = face;
    if (slap) {
      const keys = PILE_KEYS[p.pile] || "";
      for (const k of keys) if (!t.keys.has(k)) t.keys.set(k, slap);
      body = t.offer(slap, { content: [face, h("span.slapword", null, "SLAP!")], key: keys[0], label: "Slap pile " + p.pile, cls: "pile.race.slap" });
    }
    piles.appendChild(h("figure.slappile" + (p.boxed ? ".boxed" : ""), { dataset: { pile: p.pile } }, body, cap));
  }
  // The others above the piles, you below them.
  for (const p of v.players) if (p.seat !== me) el.appendChild(playerArea(v, p, t, []));
  el.appendChild(h("div.centre", null, piles,
    h("p.phase", { role: "status" }, phaseText(v, t)),
    h("p.status", null, "Round " + v.round + " of at most " + v.max_rounds + " · stalls " + v.stalls + "/" + v.max_stalls +
      " · boxed " + v.box + (v.out ? " · out of play " + v.out : ""))));

  if (me !== null && v.players[me]) el.appendChild(playerArea(v, v.players[me], t, legal));
  return el;
}

function playerArea(v, p, t, legal) {
  const mine = t.isMine(p.seat);
  const cols = h("div.columns", { "aria-label": (mine ? "your" : t.name(p.seat) + "'s") + " columns" });
  for (let c = 0; c < 4; c++) {
    const size = p.sizes[c];
    const top = p.tops[c];
    const stack = h("div.stack");
    for (let i = 0; i < size - 1; i++) stack.appendChild(back());
    const turn = legal.find((a) => a.type === "turn" && a.column === c);
    if (size === 0) stack.appendChild(slot("empty"));
    else if (top) stack.appendChild(cardSlap(top));
    else if (turn) stack.appendChild(t.offer(turn, { content: [back()], key: TURN_KEYS[c], label: "Turn up column " + c, cls: "cardbtn" }));
    else stack.appendChild(back());
    const btns = [];
    for (const a of legal.filter((x) => x.type === "play" && x.column === c)) {
      btns.push(t.offer(a, { key: (PILE_KEYS[a.pile] || "")[c], label: "→ pile " + a.pile, title: "Play column " + c + " on pile " + a.pile, cls: "race" }));
    }
    for (const a of legal.filter((x) => x.type === "move" && x.column === c)) {
      btns.push(t.offer(a, { label: "→ column " + a.to, title: "Move column " + c + " to the empty column " + a.to }));
    }
    cols.appendChild(h("div.column", { dataset: { column: c } }, h("span.clabel", null, "col " + c + " (" + size + ")"), stack,
      btns.length ? h("div.colacts", null, btns) : null));
  }
  return h("div.slapper" + (mine ? ".me" : ".player"), { dataset: { seat: p.seat } },
    h("div.pname", null, mine ? "You (seat " + p.seat + ")" : t.name(p.seat),
      " · " + p.cards + " cards", p.slapped !== null && p.slapped !== undefined ? " · slapped pile " + p.slapped : ""),
    h("div.pline", null, h("span.pile", null, p.draw ? back("draw pile") : slot("empty"), h("span.count", null, p.draw + " in the draw pile")), cols));
}

function phaseText(v, t) {
  switch (v.phase) {
    case "setup": return "Laid out: wait for the go!";
    case "play": return v.stall_at !== null && v.stall_at !== undefined ? "Nobody can play: new cards are coming." : "Go! Play your face-up cards on the piles.";
    case "race": return t.name(v.first) + " boxed a pile: slap a pile, quick!";
    case "over": return "The game is over.";
  }
  return v.phase;
}

export function countdowns(v, t) {
  const out = [];
  if (v.go_at !== null && v.go_at !== undefined) out.push({ label: "Go in", at: t.localTime(v.go_at, v.now) });
  if (v.stall_at !== null && v.stall_at !== undefined) out.push({ label: "New cards in", at: t.localTime(v.stall_at, v.now) });
  return out;
}

export function describeAction(a) {
  switch (a.type) {
    case "play": return "Play column " + a.column + " on pile " + a.pile;
    case "turn": return "Turn up column " + a.column;
    case "move": return "Move column " + a.column + " to column " + a.to;
    case "slap": return "Slap pile " + a.pile;
  }
  return null;
}

export function describeEvent(e, t) {
  const who = t.name(e.seat);
  switch (e.did) {
    case "deal": return "Round " + e.round + " laid out.";
    case "go": return "Go! (round " + e.round + ")";
    case "play": return who + " played " + e.card + " on pile " + e.pile + ".";
    case "turn": return who + " turned up " + e.card + ".";
    case "move": return who + " moved " + e.card + " to column " + e.to + ".";
    case "stall": return "Nobody could play: new cards turned up (" + e.cards.filter(Boolean).join(" ") + ").";
    case "slap": return who + " slapped pile " + e.pile + " (" + e.cards + " cards)" + (e.boxed ? ", into the box!" : ".");
    case "last_pile": return who + " gets the last pile, " + e.pile + " (" + e.cards + " cards).";
    case "round_end": return "Round " + e.round + " over" + (e.blocked ? " (blocked)" : "") + ": " + e.cards.map((n, s) => t.name(s) + " " + n).join(", ") + ".";
  }
  return null;
}

export function resultLines(r, t) {
  return (r.cards || []).map((n, s) => t.name(s) + ": " + n + " cards left").concat(["Rounds: " + r.rounds]);
}
