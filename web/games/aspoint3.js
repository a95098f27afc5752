// games/aspoint3.js — the As.point3 table (core/aspoint3/RULES.md): the
// other player's two hidden cards, the centre pair (one face down, one face
// up), your two cards. The starter keeps (k) or swaps a card for the
// face-down one (a click on the card, or 1/2); the other player takes the
// face-down card (d) or challenges with the face-up one (u).

import { h } from "../dom.js";
import { cardFrench, back, slot, row } from "../cards.js";

export const title = "As.point3";

function scoreLine(v, p) {
  if (v.mode === "packs") {
    return v.pack_scoring === "total" ? "deals won " + p.score : "deals won this pack " + p.score + " · packs won " + p.total;
  }
  return "round score " + p.score + " · game total " + p.total;
}

export function render(v, t) {
  const legal = t.legal();
  const me = t.seat;
  const el = h("div.tap3");
  const other = v.players.filter((p) => p.seat !== me);
  for (const p of other) {
    el.appendChild(h("div.player" + (v.turn === p.seat ? ".turn" : ""), { dataset: { seat: p.seat } },
      h("div.pname", null, t.name(p.seat), v.starter === p.seat ? " (starts this deal)" : "", v.turn === p.seat ? " ◀" : ""),
      h("div.pline", null, [...Array(p.cards)].map(() => back("hidden card")),
        h("span.count", null, scoreLine(v, p)))));
  }

  // The centre pair.
  const down = legal.find((a) => a.type === "pick" && a.card === "down");
  const up = legal.find((a) => a.type === "pick" && a.card === "up");
  const downEl = v.down ? back("face-down centre card") : slot("none");
  const upEl = v.up ? cardFrench(v.up) : slot("none");
  el.appendChild(h("div.centre", null,
    h("div.pair", null,
      h("figure", null, down ? t.offer(down, { content: [downEl], key: "d", label: "Take the face-down card", cls: "pile" }) : downEl,
        h("figcaption", null, "face down")),
      h("figure", null, up ? t.offer(up, { content: [upEl], key: "u", label: "Take the face-up card: challenge!", cls: "pile.race" }) : upEl,
        h("figcaption", null, "face up"))),
    h("p.phase", { role: "status" }, phaseText(v, t)),
    h("p.status", null, [
      v.mode === "packs" ? "Pack " + v.round + (v.packs ? " · " + v.packs + " to " + (v.pack_scoring === "total" ? "play" : "win") : "")
        : "Round " + v.round + " of " + v.rounds + " · first over " + v.target,
      "deal " + v.deal, v.stock + " in the stock",
      v.bonus_by !== null && v.bonus_by !== undefined ? t.name(v.bonus_by) + " reached 210" : "",
    ].filter(Boolean).join(" · "))));

  if (me !== null && v.players[me]) {
    const keep = legal.find((a) => a.type === "keep");
    const swaps = new Map(legal.filter((a) => a.type === "swap").map((a) => [a.card, a]));
    const hand = h("div.hand", { "aria-label": "your two cards" });
    (v.hand || []).forEach((c, i) => {
      const a = swaps.get(c);
      hand.appendChild(a ? t.offer(a, { content: [cardFrench(c)], key: String(i + 1), label: "Swap " + c + " for the face-down card", cls: "cardbtn" })
        : h("span.cardwrap", null, cardFrench(c)));
    });
    el.appendChild(h("div.me" + (v.turn === me ? ".turn" : ""), null,
      h("div.pname", null, "You (seat " + me + ")", v.starter === me ? " · you start this deal" : "", " · " + scoreLine(v, v.players[me])),
      hand,
      v.swapped_out ? h("p.note", null, "You put ", cardFrench(v.swapped_out), " face down.") : null,
      keep ? h("div.more", null, t.offer(keep, { key: "k", label: "Keep my cards" })) : null));
  }

  if (v.last_deal) el.appendChild(lastDeal(v.last_deal, t));
  if (v.history && v.history.length) {
    el.appendChild(h("details.history", null, h("summary", null, "Rounds played"),
      h("ul", null, v.history.map((r) => h("li", null, (v.mode === "packs" ? "Pack " : "Round ") + r.round + ": " +
        (r.winner === null ? "drawn" : t.name(r.winner) + " won") + " (" + r.scores.join(" – ") + ")")))));
  }
  return el;
}

function phaseText(v, t) {
  if (v.phase === "over") return "The game is over.";
  const who = t.isMine(v.turn) ? "You" : t.name(v.turn);
  if (v.phase === "swap") return who + (t.isMine(v.turn) ? " start" : " starts") + ": keep, or swap a card for the face-down one.";
  return (v.swapped ? t.name(v.starter) + " swapped. " : t.name(v.starter) + " kept. ") + who +
    (t.isMine(v.turn) ? " take" : " takes") + " the face-down card, or the face-up one to challenge.";
}

function lastDeal(d, t) {
  return h("div.lastdeal", null,
    h("h4", null, "Deal " + d.deal + ": " + (d.challenge ? t.name(d.picker) + " challenged" : t.name(d.picker) + " took the face-down card") +
      (d.winner === null || d.winner === undefined ? " · no winner" : " · " + t.name(d.winner) + " won")),
    h("ul", null, d.cards.map((cs, s) => h("li", null, h("span.who", null, t.name(s) + ": "), row(cs, cardFrench),
      " " + d.values[s] + " → +" + d.points[s] + " (" + d.scores[s] + ")"))),
    d.bonus ? h("p", null, "210 rule: " + t.name(d.bonus.from) + " gives " + d.bonus.points + " to " + t.name(d.bonus.to) + ".") : null,
    d.round_over ? h("p.roundover", null, "Round " + d.round_over.round + ": " + (d.round_over.winner === null ? "drawn" : t.name(d.round_over.winner) + " won it, +" + d.round_over.points)) : null);
}

// As.point3's view has no event list: its log is made of the reveals.
export function logState(v, prev, t) {
  const d = v.last_deal;
  if (!d || (prev && prev.last_deal && prev.last_deal.deal === d.deal)) return [];
  const out = ["Deal " + d.deal + ": " + d.cards.map((cs, s) => t.name(s) + " " + cs.join(" ") + " = " + d.values[s]).join("; ") +
    (d.challenge ? " (challenge)" : "") + ". " + (d.winner === null ? "No winner." : t.name(d.winner) + " wins the deal.")];
  if (d.round_over) out.push("Round " + d.round_over.round + " over: " + (d.round_over.winner === null ? "drawn." : "won by " + t.name(d.round_over.winner) + "."));
  return out;
}

export function describeAction(a, t) {
  switch (a.type) {
    case "keep": return "Keep my cards";
    case "swap": return "Swap " + a.card + " for the face-down card";
    case "pick": return a.card === "up" ? "Take the face-up card (challenge)" : "Take the face-down card";
  }
  return null;
}

export function describeEvent() {
  return null;
}

export function resultLines(r, t) {
  const lines = (r.scores || []).map((s, i) => t.name(i) + ": " + s + (r.mode === "packs" ? "" : " points"));
  for (const x of r.history || []) lines.push("Round " + x.round + ": " + (x.winner === null ? "drawn" : t.name(x.winner) + " +" + x.points));
  return lines;
}
