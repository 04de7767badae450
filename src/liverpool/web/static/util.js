// Small shared helpers of the page: DOM building, the HTTP API and its refusals in words, the
// seat tokens kept in localStorage (key "liverpool:{table}" holds {seat, token}), the join
// secrets of private tables (key "liverpool:{table}:join"), share links, and action wording.
// Domain words: seat, token, join secret (the "#join=..." part of a private table's share
// link), share link, table summary, action (docs/rules.md (Records) form).

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
  for (const c of children.flat()) {
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
    const retry = Number(res.headers.get("retry-after"));
    throw new ApiError(res.status, (data && data.error) || "http_" + res.status,
      detail || `the server answered ${res.status}`, (data && data.field) || null,
      Number.isFinite(retry) && retry > 0 ? retry : null);
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
