// Small shared helpers of the page: DOM building, the HTTP API and its refusals in words, the
// seat tokens kept in localStorage (key "liverpool:{table}" holds {seat, token}), the join
// secrets of private tables (key "liverpool:{table}:join"), share links, and action wording.
// Domain words: seat, token, join secret (the "#join=..." part of a private table's share
// link), share link, table summary, action (docs/rules.md (Records) form), player (a person the
// server remembers: localStorage "liverpool:player" holds {id, key, name}; the key goes only in
// an Authorization header or the websocket hello, never in an address), guest (plays without a
// player: nothing sent, nothing rated).

import { cardText, cardsText, meldName } from "./cards.js";

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
    // never a style attribute (the Content-Security-Policy refuses inline styles): properties
    else if (k === "style") Object.assign(el.style, v);
    else if (k === "class") { if (v) el.classList.add(...v.split(" ").filter(Boolean)); }
    else el.setAttribute(k, v === true ? "" : v);
  }
  // children may come as arrays of arrays (a list of [term, definition] pairs): all flattened
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export class ApiError extends Error {
  constructor(status, code, message, field = null, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field; // the request field at fault (a 400 names it)
    this.retryAfter = retryAfter; // seconds, from a 429's Retry-After
  }
}

/** "the host removed you" -> "The host removed you." */
export function sentence(text) {
  const t = String(text).trim();
  if (!t) return t;
  return t[0].toUpperCase() + t.slice(1) + (/[.!?…]$/.test(t) ? "" : ".");
}

export const PRIVATE_TABLE = "This table is private: ask the host for the link.";

/** A refusal of the server (an ApiError, or a websocket error message) in words for a person. */
export function errorText(e) {
  const code = e && (e.code || e.error);
  const wait = e && e.retryAfter ? ` (about ${Math.ceil(e.retryAfter)} s)` : "";
  switch (code) {
    case "network": return "The server cannot be reached: check the connection and try again.";
    case "rate_limited": return `Too many requests from this address: wait a moment${wait} and try again.`;
    case "too_many_tables": return "You already have too many tables waiting to start: start one (or wait for one to expire) before creating another.";
    case "busy": return "The server is busy (too many tables are waiting to start): try again later.";
    case "bad_content_type": return "The server refused the request's format (bad_content_type): reload the page and try again.";
    case "bad_origin": return "The server refused a request from this page's address (bad_origin): open the game at the address the host gave.";
    case "expired": return "This table has expired: it was not started in time.";
    case "bad_secret": return PRIVATE_TABLE;
    case "removed": return e.message ? sentence(e.message) : "You are no longer seated at this table.";
    default: break;
  }
  const text = (e && e.message) || String(code || "refused");
  // a 400 names the field at fault; say it when the message does not
  if (e && e.field && !text.includes(e.field)) return `${text} (${e.field})`;
  return text;
}

/**
 * A call of the HTTP API. The player's key, when this browser holds one, goes along as
 * "Authorization: Bearer KEY" (``opts.auth === false``: not this time, a guest's request). A key
 * the server does not know (401 bad_key: forgotten, or from another server) is dropped: the
 * page says so and the request is made again as a guest's.
 */
export async function api(method, path, body, opts = {}) {
  const req = { method, headers: {} };
  // a write is always JSON, even with nothing to say (the server refuses any other type)
  if (body === undefined && method !== "GET") body = {};
  if (body !== undefined) {
    req.headers["content-type"] = "application/json";
    req.body = JSON.stringify(body);
  }
  const me = opts.auth === false ? null : getPlayer();
  if (me) req.headers.authorization = "Bearer " + me.key;
  let res;
  try {
    res = await fetch(path, req);
  } catch (e) {
    throw new ApiError(0, "network", "the server cannot be reached");
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const code = (data && data.error) || "http_" + res.status;
    if (me && res.status === 401 && code === "bad_key") {
      dropPlayer(me);
      if (opts.retry !== false) return api(method, path, body, { ...opts, auth: false });
    }
    const detail = data && (data.message || (typeof data.detail === "string" ? data.detail : null));
    const retry = Number(res.headers.get("retry-after"));
    throw new ApiError(res.status, code,
      detail || `the server answered ${res.status}`, (data && data.field) || null,
      Number.isFinite(retry) && retry > 0 ? retry : null);
  }
  return data;
}

// ---- the player this browser is (localStorage "liverpool:player": {id, key, name}) ---------

const PLAYER = "liverpool:player";
const GUEST = "liverpool:guest";

/** The player this browser holds, or null (a guest). */
export function getPlayer() {
  try {
    const v = JSON.parse(localStorage.getItem(PLAYER) || "null");
    return v && typeof v.id === "string" && typeof v.key === "string" ? v : null;
  } catch (e) {
    return null;
  }
}

export function savePlayer(p) {
  localStorage.setItem(PLAYER, JSON.stringify({ id: p.id, key: p.key, name: p.name }));
  if (p.name) localStorage.setItem("liverpool:nickname", p.name);
  localStorage.removeItem(GUEST);
  playerChanged();
}

/** The player as it is now named (after a rename), the key kept. */
export function renamePlayer(name) {
  const me = getPlayer();
  if (!me) return;
  savePlayer({ ...me, name });
}

// how the page looks and sounds: no trace of the person, so "Forget me" keeps them
const KEPT = new Set(["liverpool:sort", "liverpool:four-color", "liverpool:theme", "liverpool:sound", "liverpool:notify"]);

/** Forget everything this browser keeps of the person: the player, the nickname, the seats. */
export function forgetEverything() {
  for (const k of Object.keys(localStorage)) {
    if (k.startsWith("liverpool:") && !KEPT.has(k)) localStorage.removeItem(k);
  }
  playerChanged();
}

/** The server does not know this browser's key (any more): it is dropped, and the page says so. */
function dropPlayer(me) {
  const now = getPlayer();
  if (!now || now.key !== me.key) return; // dropped already (another request saw it first)
  localStorage.removeItem(PLAYER);
  playerChanged();
  siteNotice("The server no longer knows this browser's player (it was forgotten, or belongs to another server): you go on as a guest. A recovery code brings a player back.");
}

/** The server refused this browser's key elsewhere (the websocket hello): drop it likewise. */
export function forgetKey() {
  const me = getPlayer();
  if (me) dropPlayer(me);
}

/** The person chose to play as a guest (kept for the next forms). */
export function guestChosen() {
  return localStorage.getItem(GUEST) === "1";
}

export function chooseGuest(on) {
  if (on) localStorage.setItem(GUEST, "1");
  else localStorage.removeItem(GUEST);
}

/**
 * The player to seat for a person who typed ``name`` (creating or joining a table): made on
 * the first need (POST /api/players), renamed when the person typed another name; null for a
 * guest. A server that makes no player (an older one, a limit reached) leaves the person a
 * guest, and ``onNote`` is told why. A name the server refuses is thrown (field "nickname").
 */
export async function playerFor(name, guest, onNote = () => {}) {
  if (guest) { chooseGuest(true); return null; }
  chooseGuest(false);
  const me = getPlayer();
  if (me) {
    if (name && name !== me.name) {
      try {
        const p = await api("PATCH", "/api/players/me", { name }, { retry: false });
        if (getPlayer()) renamePlayer(p.name || name);
      } catch (e) {
        if (e.status === 400) throw new ApiError(400, e.code, e.message, "nickname");
        // the table takes the name as a nickname anyway
      }
    }
    return getPlayer();
  }
  try {
    const p = await api("POST", "/api/players", { name }, { auth: false });
    savePlayer(p);
    return getPlayer();
  } catch (e) {
    if (e.status === 400) throw new ApiError(400, e.code, e.message, "nickname");
    onNote(e.status === 404 || e.status === 405 ? "This server does not remember players: you play as a guest." :
      `You play as a guest this time: the server made no player for you (${errorText(e)})`);
    return null;
  }
}

/** The nickname box and the guest choice of a form that seats the person (create or join):
 * the remembered name prefilled; "Play as a guest" makes no player and sends no key. */
export function whoFields(id, maxlength, required = true) {
  const nickname = h("input#" + id, { type: "text", maxlength: String(maxlength), required, value: getNickname(), placeholder: "your name", autocomplete: "nickname" });
  const guest = h("input#" + id + "-guest", { type: "checkbox" });
  guest.checked = guestChosen();
  const label = h("label.check.guest", { title: "No rating, no games list, nothing remembered about you" }, guest, "Play as a guest (not remembered)");
  return { nickname, guest, label };
}

const listeners = new Set();

/** Call ``f`` whenever the player this browser holds changes (made, renamed, dropped). */
export function onPlayerChange(f) {
  listeners.add(f);
}

function playerChanged() {
  for (const f of listeners) {
    try { f(getPlayer()); } catch (e) { /* a listener's fault is its own */ }
  }
}

/** A line at the top of the page (the key was dropped, say), until dismissed; it is shown again
 * on the next page opened in this tab when the page moves on at once (a table just created). */
export function siteNotice(text, carry = true) {
  if (carry) sessionStorage.setItem("liverpool:notice", text);
  const box = document.getElementById("site-notice");
  if (!box) return;
  box.replaceChildren(h("span", { text }),
    h("button.toast-close", { type: "button", "aria-label": "dismiss", text: "✕", onclick: () => { box.hidden = true; } }));
  box.hidden = false;
}

/** The line a page left for the next (siteNotice), shown once. */
export function carriedNotice() {
  const text = sessionStorage.getItem("liverpool:notice");
  sessionStorage.removeItem("liverpool:notice");
  if (text) siteNotice(text, false);
}

/** A shown rating: a rating object ({rating, provisional}) or a number; "1234?" while
 * provisional; "—" for none. */
export function ratingText(r) {
  if (r === null || r === undefined) return "—";
  if (typeof r === "number") return String(Math.round(r));
  if (typeof r.rating !== "number") return "—";
  return String(Math.round(r.rating)) + (r.provisional ? "?" : "");
}

/** The number of a rating (object or number), or null. */
export function ratingValue(r) {
  if (typeof r === "number") return r;
  return r && typeof r.rating === "number" ? r.rating : null;
}

/** A rating change as people read it: "+12", "−8", "±0"; "" for none. */
export function changeText(d) {
  if (typeof d !== "number" || !Number.isFinite(d)) return "";
  const n = Math.round(d);
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

/** 1 -> "1st", 2 -> "2nd", 11 -> "11th". */
export function ordinal(n) {
  const t = n % 100;
  if (t >= 11 && t <= 13) return `${n}th`;
  return n + ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
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

/** Keep a seat's token (``player``: the id of the player seated, so that the table's hello
 * sends that player's key; none for a guest's seat). */
export function saveSeat(table, seat, token, player = null) {
  const v = { seat, token };
  if (player) v.player = player;
  localStorage.setItem("liverpool:" + table, JSON.stringify(v));
}

/** The seat's person left the game for good: the page watches from now on (a hello with the
 * token would take the seat back), keeping the token for a rematch. */
export function markSeatLeft(table) {
  const v = savedSeat(table);
  if (v) localStorage.setItem("liverpool:" + table, JSON.stringify({ ...v, left: true }));
}

export function forgetSeat(table) {
  localStorage.removeItem("liverpool:" + table);
}

/** The name to prefill: the player's, else the last nickname typed. */
export function getNickname() {
  const me = getPlayer();
  return (me && me.name) || localStorage.getItem("liverpool:nickname") || "";
}

export function setNickname(name) {
  localStorage.setItem("liverpool:nickname", name);
}

/** The join secret kept for a table (from its share link), or null. */
export function savedSecret(table) {
  try {
    return localStorage.getItem(`liverpool:${table}:join`) || null;
  } catch (e) {
    return null;
  }
}

export function saveSecret(table, secret) {
  if (typeof secret === "string" && secret) localStorage.setItem(`liverpool:${table}:join`, secret);
}

export function forgetSecret(table) {
  localStorage.removeItem(`liverpool:${table}:join`);
}

/** The join secret in this page's address ("#join=SECRET"), or null. */
export function secretInHash(hash = location.hash) {
  // read by hand: URLSearchParams would turn a "+" into a space
  const m = (hash || "").replace(/^#/, "").match(/(?:^|&)join=([^&]*)/);
  if (!m || !m[1]) return null;
  try { return decodeURIComponent(m[1]); } catch (e) { return m[1]; }
}

/**
 * A share link as the server gave it, made whole: the server sends an absolute link, or a path
 * ("/t/ID#join=SECRET") that is completed with the address this browser used.
 */
export function absoluteUrl(link) {
  if (typeof link !== "string" || !link) return null;
  try {
    return new URL(link, location.href).href;
  } catch (e) {
    return null;
  }
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

/** The words on a button for an action of this seat (cards as "10♥", melds by owner and kind). */
export function actionLabel(a, view, mySeat = null) {
  const top = view && view.discard.length ? cardText(view.discard[view.discard.length - 1]) : "";
  const seat = mySeat === null || mySeat === undefined ? (view ? view.seat : null) : mySeat;
  const name = (i) => meldName(view && view.melds[i], view && view.players, seat);
  const c = (code) => cardText(code);
  switch (a.type) {
    case "draw": return "Draw from the stock";
    case "take_discard": return `Take ${top}`;
    case "no_draw": return "Lay off instead of drawing";
    case "buy": return a.depth && a.depth > 1 ? `Buy ${a.depth} cards deep` : `Buy ${top}`;
    case "pass": return "Pass";
    case "go_down": return "Go down: " + a.melds.map((m) => cardsText(m)).join(" | ");
    case "lay_off": return `Lay ${c(a.card)} on ${name(a.meld)}` + (a.end ? ` (${END_WORDS[a.end]})` : "");
    case "swap_joker": return `Swap ${c(a.card)} for the wild in ${name(a.meld)}` + (a.wild ? ` (${c(a.wild)})` : "");
    case "borrow": return `Borrow ${c(a.card)} from ${name(a.meld)} to lay ${cardsText(a.new_meld)}`;
    case "discard": return `Discard ${c(a.card)}`;
    case "call":
      return a.meld === undefined ? `Call ${top}` :
        `Call: lay ${top} on ${name(a.meld)}` + (a.end ? ` (${END_WORDS[a.end]})` : "");
    case "give": return view && view.discarder !== null && view.discarder !== undefined ?
      `Give ${c(a.card)} to ${view.players[view.discarder]}` : `Give ${c(a.card)}`;
    case "cut": return `Cut ${a.count}`;
    default: return a.type;
  }
}

export function describeSeats(summary) {
  return summary.seats.map((s) => s.kind === "bot" ? `${s.name || "bot"} (${s.level})` :
    (s.name || "open seat")).join(", ");
}

/** An SVG element (charts: the player's rating, a review's losses): attributes as ``h`` takes
 * them (``class``, ``text``, ``on...`` listeners), then its children. */
const SVG_NS = "http://www.w3.org/2000/svg";
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined) continue;
    if (k === "class") el.setAttribute("class", v);
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children) if (c) el.append(c);
  return el;
}
