// The table's signals to a player: a sound when it becomes their turn, when a May I? window they
// may answer opens, when another player goes down and when a player goes out (sound.js); while
// the page is hidden (another tab in front), the title says so instead ("● Your turn — ...",
// "● May I? — ...") until the page is seen again, and, for a person who asked for it, a
// notification once per turn. The table page tells this module what the server said (its legal
// moves, its intents, the engine's events); nothing here reads the log's words.
// The notification is opt-in ("liverpool:notify": "on"): the browser's permission is asked only
// when the person turns it on.
// Domain words: signal (a sound, the title's mark or a notification), turn (this seat has legal
// moves), window (a May I? or call window this seat may answer: the server's intents), hidden
// (document.visibilityState), mark (the "● ..." the title starts with while hidden).

import { playSound } from "./sound.js";

const KEY = "liverpool:notify";
const MARKS = { turn: "● Your turn — ", window: "● May I? — " };

let turn = false; // this seat has a decision to make now
let signalled = null; // the turn the sound and the notification were for
let windowOpen = false; // a window this seat may answer is open
let plainTitle = null; // the title without the mark, while a mark is on
let note = null; // the notification shown for this turn

function pageHidden() {
  return document.visibilityState === "hidden";
}

/** The mark the title should carry now: only while hidden, the turn before a window. */
function wantedMark() {
  if (!pageHidden()) return null;
  if (turn) return MARKS.turn;
  if (windowOpen) return MARKS.window;
  return null;
}

function showTitle() {
  const mark = wantedMark();
  if (plainTitle === null && !mark) return;
  if (plainTitle === null) plainTitle = document.title;
  if (mark) {
    document.title = mark + plainTitle;
  } else {
    document.title = plainTitle;
    plainTitle = null;
  }
}

document.addEventListener("visibilitychange", () => {
  showTitle();
  // seen: the notification has done its work
  if (!pageHidden() && note) { note.close(); note = null; }
});

// ---- the notification switch -------------------------------------------------------------

/** Whether this browser can show notifications at all. */
export function notifySupported() {
  return typeof window.Notification === "function";
}

/** Whether the person turned notifications on (and the browser still allows them). */
export function notifyOn() {
  let v = null;
  try { v = localStorage.getItem(KEY); } catch (e) { v = null; }
  return v === "on" && notifySupported() && window.Notification.permission === "granted";
}

/**
 * Turn the notification on (asking the browser's permission now, and only now) or off. Resolves
 * to null when done, or to the reason it stays off, in words.
 */
export async function setNotify(on) {
  const keep = (v) => { try { localStorage.setItem(KEY, v); } catch (e) { /* this page only */ } };
  if (!on) { keep("off"); return null; }
  if (!notifySupported()) return "This browser cannot show notifications.";
  let permission = window.Notification.permission;
  if (permission === "default") {
    try { permission = await window.Notification.requestPermission(); } catch (e) { permission = "denied"; }
  }
  if (permission !== "granted") {
    keep("off");
    return "The browser refused notifications for this site (its site settings can allow them).";
  }
  keep("on");
  return null;
}

function notifyTurn() {
  if (!notifyOn() || !pageHidden()) return;
  try {
    note = new window.Notification("Your turn", { body: plainTitle || document.title, tag: "liverpool-turn" });
    note.onclick = () => { window.focus(); if (note) note.close(); };
  } catch (e) {
    note = null; // some browsers allow notifications only from a service worker
  }
}

// ---- what the table page tells ---------------------------------------------------------------

/**
 * Whether this seat has a decision to make now (called on every state the server sends), and
 * which turn of the game it is in (``turnKey``, from the view: a buy round that pauses a turn
 * and gives it back is still that turn, and is signalled once).
 */
export function signalTurn(mine, turnKey = null) {
  const began = mine && !turn && (turnKey === null || turnKey !== signalled);
  turn = Boolean(mine);
  if (began) {
    signalled = turnKey;
    playSound("turn");
    notifyTurn();
  }
  if (!turn && note) { note.close(); note = null; }
  showTitle();
}

/** Whether a window this seat may answer is open (the server's intents for this seat). */
export function signalWindow(open) {
  const opened = open && !windowOpen;
  windowOpen = Boolean(open);
  if (opened) playSound("mayi");
  showTitle();
}

/** The engine's events of one update: another seat went down, a player went out. */
export function signalEvents(events, mySeat) {
  const ended = events.find((ev) => ev.type === "hand_ended");
  if (ended && (ended.went_out || []).length) {
    playSound("out"); // going out by going down is one sound: the hand's end
    return;
  }
  if (events.some((ev) => ev.type === "went_down" && ev.seat !== mySeat)) playSound("down");
}

/** The table page stops (left, removed): no more signals, the plain title back. */
export function resetSignals() {
  turn = false;
  windowOpen = false;
  signalled = null;
  if (note) { note.close(); note = null; }
  showTitle();
}
