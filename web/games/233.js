// games/233.js — the 233 table (core/233/RULES.md): the other players with
// their card counts, locked melds, gifts and scores; the draw pile and the
// discard with its claims; your hand, where a click (or keys 1–9, 0)
// discards a card. The race for the discard is one key each: t takes it on
// your turn, c/v/b claim it with the meld shown, f claims it to win.

import { h } from "../dom.js";
import { card233, back, slot, row } from "../cards.js";

export const title = "233";

const HAND_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"];
const CLAIM_KEYS = ["c", "v", "b", "n"];
const GIFT_KEYS = ["g", "h", "j", "k", "l"];

function gifts(p) {
  const out = [];
  if (p.gifts_plus) out.push(h("span.gift.plus", { title: p.gifts_plus + " gift +5" }, "+5 ×" + p.gifts_plus));
  if (p.gifts_minus) out.push(h("span.gift.minus", { title: p.gifts_minus + " gift −5" }, "−5 ×" + p.gifts_minus));
  return out;
}

function melds(p) {
  if (!p.melds.length) return null;
  return h("span.melds", { "aria-label": "locked melds" }, p.melds.map((m) => row(m, card233, "meld")));
}

function playerBox(v, p, t) {
  const turn = v.turn === p.seat && v.phase !== "over";
  return h("div.player" + (turn ? ".turn" : "") + (t.isMine(p.seat) ? ".mine" : ""), { dataset: { seat: p.seat } },
    h("div.pname", null, t.name(p.seat), turn ? " ◀" : "", v.dealer === p.seat ? " (dealer)" : "",
      v.declarer === p.seat ? " — declared " + (v.combo || "") : ""),
    h("div.pline", null,
      t.isMine(p.seat) ? null : h("span.backs", { "aria-label": p.cards + " cards in hand" },
        [...Array(Math.min(p.cards, 10))].map(() => back()), h("span.count", null, p.cards + " cards")),
      melds(p), gifts(p)),
    h("div.score", null, "Score " + p.score, v.claims.includes(p.seat) ? " · claiming!" : ""));
}

export function render(v, t) {
  const legal = t.legal();
  const by = (type) => legal.filter((a) => a.type === type);
  const me = t.seat;

  const others = v.players.filter((p) => p.seat !== me);
  const table = h("div.t233");
  table.appendChild(h("div.others", null, others.map((p) => playerBox(v, p, t))));

  // The centre: the draw pile, the discard and what can be done with it.
  const draw = by("draw")[0];
  const drawEl = draw
    ? t.offer(draw, { content: [back("draw pile"), h("span.count", null, v.draw_pile + " left")], key: "d", label: "Draw", cls: "pile" })
    : h("span.pile", null, back("draw pile"), h("span.count", null, v.draw_pile + " left"));
  const take = by("take")[0];
  const top = v.discard ? card233(v.discard) : slot("no discard");
  const discEl = take ? t.offer(take, { content: [top], key: "t", label: "Take the " + v.discard, cls: "pile" }) : h("span.pile", null, top);
  const race = [];
  by("claim").forEach((a, i) => {
    if (a.final) race.push(t.offer(a, { key: "f", label: "Claim to win", cls: "race" }));
    else race.push(t.offer(a, { key: CLAIM_KEYS[i], cls: "race", content: ["Claim with ", row(a.cards, card233)], title: "Claim with " + a.cards.join(" ") }));
  });
  const status = [
    "Round " + v.round + " · to " + v.target,
    v.direction === 1 ? "play goes ↻" : "play goes ↺",
    v.discard_pile + " in the discard",
    v.rebuilds ? "pile rebuilt " + v.rebuilds + "×" : "",
  ].filter(Boolean).join(" · ");
  let phase = "";
  if (v.phase === "over") phase = "The game is over.";
  else if (v.last_draws) phase = t.name(v.declarer) + " declared " + (v.combo || "") + ": last draws.";
  else if (v.claims.length) phase = "Dispute: " + v.claims.map((s) => t.name(s)).join(", ") + " claimed the discard.";
  else if (v.pending_gift) phase = t.name(v.turn) + " drew a " + (v.pending_gift === "gift-5" ? "−5" : "+5") + " gift.";
  else phase = (t.isMine(v.turn) ? "Your turn" : t.name(v.turn) + "'s turn") + " to " + v.phase + ".";
  table.appendChild(h("div.centre", null,
    h("div.piles", null, drawEl, discEl, v.claim_open && !race.length && /^([YBG][1-8]|red|pink|purple|orange|reverse|joker)$/.test(v.discard || "") ? h("span.hint", null, "open to claims") : null),
    race.length ? h("div.race", null, race) : null,
    h("p.phase", { role: "status" }, phase), h("p.status", null, status)));

  // You: your hand (a click discards), your melds, gifts and other actions.
  if (me !== null) {
    const mine = v.players[me];
    const discards = new Map(by("discard").filter((a) => !a.declare).map((a) => [a.card, a]));
    const hand = h("div.hand", { "aria-label": "your hand" });
    let k = 0;
    for (const c of v.hand || []) {
      const a = discards.get(c);
      if (a) {
        hand.appendChild(t.offer(a, { content: [card233(c)], key: HAND_KEYS[k++], label: "Discard " + c, cls: "cardbtn" }));
      } else {
        hand.appendChild(h("span.cardwrap", null, card233(c)));
      }
    }
    const more = [];
    for (const a of by("discard").filter((x) => x.declare)) more.push(t.offer(a, { label: "Discard " + a.card + " and declare" }));
    for (const a of by("declare")) more.push(t.offer(a, { key: "x", label: "Declare" }));
    for (const a of by("lay")) more.push(t.offer(a, { key: "s", content: ["Lay ", row(a.cards, card233)], title: "Lay the square " + a.cards.join(" ") }));
    by("gift").forEach((a, i) => more.push(t.offer(a, {
      key: GIFT_KEYS[i],
      label: a.to === undefined ? "Place the gift" : "Give the −5 to " + t.name(a.to),
    })));
    table.appendChild(h("div.me" + (v.turn === me && v.phase !== "over" ? ".turn" : ""), null,
      h("div.pname", null, "You (seat " + me + ")", v.dealer === me ? " · dealer" : "", " · score " + mine.score,
        v.must_win ? " · you must declare" : ""),
      hand, h("div.pline", null, melds(mine), gifts(mine)),
      more.length ? h("div.more", null, more) : null));
  }

  if (v.last_round) table.appendChild(lastRound(v, t));
  return table;
}

function lastRound(v, t) {
  const r = v.last_round;
  return h("details.lastround", { open: v.phase === "over" || undefined },
    h("summary", null, "Round " + r.round + ": " + (r.winner === null || r.winner === undefined ? "no winner" : t.name(r.winner) + " won") + " (" + r.reason + ")"),
    h("table", null, h("tbody", null, r.hands.map((x) => h("tr", null,
      h("th", null, t.name(x.seat)),
      h("td", null, row(x.cards, card233), melds(x)),
      h("td", null, x.combo === "none" ? "" : x.combo),
      h("td", null, x.points + " pts, gifts " + x.gifts + ", total " + x.score))))));
}

export function countdowns(v, t) {
  if (!v.claims || !v.claims.length) return [];
  // The window runs the room's dispute_ms (in the view: the option, or the
  // server's --dispute-window) from the first claim, seen when it arrived here.
  const ms = v.dispute_ms;
  if (typeof ms !== "number") return [{ label: "Dispute", text: "the lowest score wins when the window closes" }];
  const key = v.claims[0] + ":" + v.discard_pile + ":" + v.round;
  if (t.disputeKey !== key) {
    t.disputeKey = key;
    t.disputeSince = t.received;
  }
  return [{ label: "Dispute window", at: t.disputeSince + ms }];
}

export function describeAction(a, t) {
  switch (a.type) {
    case "draw": return "Draw";
    case "take": return "Take the discard";
    case "declare": return "Declare";
    case "discard": return "Discard " + a.card + (a.declare ? " and declare" : "");
    case "lay": return "Lay " + a.cards.join(" ");
    case "claim": return a.final ? "Claim the discard to win" : "Claim with " + (a.cards || []).join(" ");
    case "gift": return a.to === undefined ? "Place the gift" : "Give the −5 to " + t.name(a.to);
  }
  return null;
}

export function describeEvent(e, t) {
  const who = t.name(e.seat);
  switch (e.did) {
    case "deal": return "Round " + e.round + " dealt by " + who + ".";
    case "draw": return who + " drew" + (e.card ? " a " + e.card : "") + ".";
    case "discard": return who + " discarded " + e.card + ".";
    case "take": return who + " took the " + e.card + (e.contenders > 1 ? " (" + e.contenders + " in the race)" : "") + ".";
    case "claim": return who + " claimed the " + e.card + (e.meld ? " for " + e.meld.join(" ") : " to win") +
      (e.contenders > 1 ? " (" + e.contenders + " in the race)" : "") + ".";
    case "lay": return who + " laid " + (e.cards || []).join(" ") + ".";
    case "gift": return e.card === "gift+5" ? who + " placed a +5 gift." : who + " gave a −5 gift to " + t.name(e.to) + ".";
    case "declare": return who + " declared " + e.combo + "!";
    case "rebuild": return "The draw pile was rebuilt (" + e.rebuilds + ").";
    case "round_over": return "Round " + e.round + " is over.";
  }
  return null;
}

export function resultLines(r, t) {
  return (r.scores || []).map((s, i) => t.name(i) + ": " + s + " points").concat(r.rounds ? ["Rounds played: " + r.rounds] : []);
}
