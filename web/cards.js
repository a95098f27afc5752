// cards.js — drawing the cards of the four games with CSS and Unicode only.
// A colour is never shown by colour alone: every card also carries its
// colour's letter or its suit's symbol, and its full name for screen readers
// (aria-label). Every face-up card element has data-card="NAME" (the name the
// protocol uses), a face-down one the class "back" and no name.

import { h } from "./dom.js";

function face(cls, name, label, ...parts) {
  return h("span.card." + cls, { dataset: { card: name }, role: "img", "aria-label": label, title: label }, ...parts);
}

export function back(label) {
  return h("span.card.back", { role: "img", "aria-label": label || "face-down card", title: label || "face-down card" });
}

// An empty place where a card may lie (a pile with nothing on it).
export function slot(label) {
  return h("span.card.slot", { "aria-label": label, title: label }, label);
}

// --- 233: Y1..Y8, B1..B8, G1..G8, red, pink, purple, orange, reverse, joker,
// gift+5, gift-5, stop.
const COLOURS_233 = { Y: "yellow", B: "blue", G: "green" };
const SYMBOLS_233 = { red: "▲", pink: "♥", purple: "♣", orange: "●" };

export function card233(name) {
  const m = /^([YBG])([1-8])$/.exec(name);
  if (m) {
    const colour = COLOURS_233[m[1]];
    return face("c233.col-" + m[1], name, colour + " " + m[2], h("span.idx", null, m[1]), h("span.big", null, m[2]));
  }
  if (SYMBOLS_233[name]) {
    return face("c233.sym.sym-" + name, name, name + " symbol", h("span.idx", null, name), h("span.big", null, SYMBOLS_233[name]));
  }
  const special = {
    reverse: ["⇄", "reverse"],
    joker: ["★", "joker"],
    "gift+5": ["+5", "gift +5"],
    "gift-5": ["−5", "gift −5"],
    stop: ["⊘", "stop"],
  }[name];
  if (special) {
    return face("c233.special.sp-" + name.replace(/[+]/, "p").replace(/-/, "m"), name, special[1],
      h("span.idx", null, special[1]), h("span.big", null, special[0]));
  }
  return face("c233", name, name, h("span.big", null, name));
}

// --- As.point3: AS, 10H, QD, 2C ... (rank, then suit letter).
const SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };
const RANKS = { A: "ace", J: "jack", Q: "queen", K: "king" };

export function cardFrench(name) {
  const m = /^(A|[2-9]|10|J|Q|K)([SHDC])$/.exec(name);
  if (!m) return face("fr", name, name, h("span.big", null, name));
  const [sym, suit] = SUITS[m[2]];
  const red = m[2] === "H" || m[2] === "D";
  const label = (RANKS[m[1]] || m[1]) + " of " + suit;
  return face("fr" + (red ? ".red" : ".black"), name, label,
    h("span.idx", null, m[1] + sym), h("span.big", null, sym), h("span.idx.rot", null, m[1] + sym));
}

// --- slap: R1..R11, G1..G11, B1..B11, Y1..Y11.
const COLOURS_SLAP = { R: "red", G: "green", B: "blue", Y: "yellow" };
const MARKS_SLAP = { R: "◆", G: "♣", B: "●", Y: "▲" };

export function cardSlap(name) {
  const m = /^([RGBY])(1[01]|[1-9])$/.exec(name);
  if (!m) return face("slap", name, name, h("span.big", null, name));
  const label = COLOURS_SLAP[m[1]] + " " + m[2] + (Number(m[2]) % 2 ? ", odd" : ", even");
  return face("cslap.col-" + m[1], name, label, h("span.idx", null, m[1] + MARKS_SLAP[m[1]]), h("span.big", null, m[2]));
}

// --- seqnum: equations "12+6", "36-12", and plus / minus.
export function cardSeqnum(name) {
  if (name === "plus" || name === "minus") {
    return face("seq.wild.seq-" + name, name, name, h("span.idx", null, name), h("span.big", null, name === "plus" ? "+" : "−"));
  }
  const m = /^(\d+)([+-])(\d+)$/.exec(name);
  const answer = m ? (m[2] === "+" ? Number(m[1]) + Number(m[3]) : Number(m[1]) - Number(m[3])) : "?";
  return face("seq", name, name.replace("-", " minus ").replace("+", " plus ") + " = " + answer,
    h("span.eq", null, name.replace("-", "−")), h("span.ans", null, "= " + answer));
}

export function seqnumAnswer(name) {
  const m = /^(\d+)([+-])(\d+)$/.exec(name);
  return m ? (m[2] === "+" ? Number(m[1]) + Number(m[3]) : Number(m[1]) - Number(m[3])) : null;
}

// A row of cards.
export function row(names, draw, cls) {
  return h("span.cards" + (cls ? "." + cls : ""), null, (names || []).map((n) => draw(n)));
}
