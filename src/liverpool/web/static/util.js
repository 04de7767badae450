// Small shared helpers of the page: DOM building, the HTTP API, the seat tokens kept in
// localStorage (key "liverpool:{table}" holds {seat, token}), and action wording.
// Domain words: seat, token, table summary, action (RULES.md section 6 form).

/** h("div#id.cls", {attr}, ...children): a tiny element builder. */
export function h(tag, attrs, ...children) {
  const name = tag.match(/^[a-z0-9]*/i)[0] || "div";
  const el = document.createElement(name);
  const id = tag.match(/#([\w-]+)/);
  if (id) el.id = id[1];
  const classes = [...tag.matchAll(/\.([\w-]+)/g)].map((m) => m[1]);
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "class") { if (v) el.classList.add(...v.split(" ").filter(Boolean)); }
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["content-type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ApiError(0, "network", "the server cannot be reached");
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const detail = data && (data.message || (typeof data.detail === "string" ? data.detail : null));
    throw new ApiError(res.status, (data && data.error) || "http_" + res.status,
      detail || `the server answered ${res.status}`);
  }
  return data;
}

export function savedSeat(table) {
  try {
    const raw = localStorage.getItem("liverpool:" + table);
    const v = raw ? JSON.parse(raw) : null;
    return v && typeof v.token === "string" ? v : null;
  } catch (e) {
    return null;
  }
}

export function saveSeat(table, seat, token) {
  localStorage.setItem("liverpool:" + table, JSON.stringify({ seat, token }));
}

export function forgetSeat(table) {
  localStorage.removeItem("liverpool:" + table);
}

export function getNickname() {
  return localStorage.getItem("liverpool:nickname") || "";
}

export function setNickname(name) {
  localStorage.setItem("liverpool:nickname", name);
}

export function shareUrl(table) {
  return `${location.origin}/t/${encodeURIComponent(table)}`;
}

/** Copy text; falls back to a selected input where the clipboard API is refused (plain http). */
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (e) {
    if (input) {
      input.select();
      try { return document.execCommand("copy"); } catch (e2) { return false; }
    }
    return false;
  }
}

const END_WORDS = { low: "low end", high: "high end" };

/** The words on a button for an action of this seat. */
export function actionLabel(a, view) {
  const top = view && view.discard.length ? view.discard[view.discard.length - 1] : "";
  const meldName = (i) => {
    const m = view && view.melds[i];
    return m ? `${view.players[m.owner]}'s ${m.kind} ${m.cards.join(" ")}` : `meld ${i}`;
  };
  switch (a.type) {
    case "draw": return "Draw from the stock";
    case "take_discard": return `Take ${top}`;
    case "no_draw": return "Lay off instead of drawing";
    case "buy": return a.depth && a.depth > 1 ? `Buy ${a.depth} cards deep` : `Buy ${top}`;
    case "pass": return "Pass";
    case "go_down": return "Go down: " + a.melds.map((m) => m.join(" ")).join(" | ");
    case "lay_off": return `Lay ${a.card} on ${meldName(a.meld)}` + (a.end ? ` (${END_WORDS[a.end]})` : "");
    case "swap_joker": return `Swap ${a.card} for the wild in ${meldName(a.meld)}` + (a.wild ? ` (${a.wild})` : "");
    case "borrow": return `Borrow ${a.card} from ${meldName(a.meld)} to lay ${a.new_meld.join(" ")}`;
    case "discard": return `Discard ${a.card}`;
    case "call":
      return a.meld === undefined ? `Call ${top}` :
        `Call: lay ${top} on ${meldName(a.meld)}` + (a.end ? ` (${END_WORDS[a.end]})` : "");
    case "give": return view && view.discarder !== null && view.discarder !== undefined ?
      `Give ${a.card} to ${view.players[view.discarder]}` : `Give ${a.card}`;
    case "cut": return `Cut ${a.count}`;
    default: return a.type;
  }
}

export function describeSeats(summary) {
  return summary.seats.map((s) => s.kind === "bot" ? `${s.name || "bot"} (${s.level})` :
    (s.name || "open seat")).join(", ");
}
