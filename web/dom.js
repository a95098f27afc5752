// dom.js — building elements. Text given to h() always becomes a text node
// (textContent): nothing received from the server is ever parsed as HTML.

// h("button.act#go", {onclick, title, ...}, child...) — a child is a string,
// a number, an element, null/false (skipped) or an array of those.
export function h(spec, attrs, ...children) {
  const m = /^([a-z0-9]+)?((?:[.#][\w-]+)*)$/i.exec(spec);
  const el = document.createElement((m && m[1]) || "div");
  if (m && m[2]) {
    for (const part of m[2].match(/[.#][\w-]+/g)) {
      if (part[0] === ".") el.classList.add(part.slice(1));
      else el.id = part.slice(1);
    }
  }
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (k === "text") el.textContent = String(v);
      else if (k in el && typeof v !== "string") el[k] = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// A stable text for an action object (keys sorted), to compare actions.
export function actionKey(a) {
  return JSON.stringify(sortKeys(a));
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v).sort()) o[k] = sortKeys(v[k]);
    return o;
  }
  return v;
}

// "1.2 s", "59 s" for a count-down in ms.
export function seconds(ms) {
  if (ms < 0) ms = 0;
  return ms < 10000 ? (ms / 1000).toFixed(1) + " s" : Math.ceil(ms / 1000) + " s";
}

// An error as the page shows it: "code: message", or the message alone.
export function errorText(e) {
  return (e.code ? e.code + ": " : "") + e.message;
}
