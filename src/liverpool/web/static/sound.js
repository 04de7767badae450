// The table's sounds: short tones made with the Web Audio API (no sound files, nothing fetched),
// one per moment a player should hear about: "turn" (your turn), "mayi" (a May I? window you
// may answer opened), "down" (another player went down), "out" (a player went out, the hand is
// over). On by default at a low volume; one switch, kept in localStorage ("liverpool:sound":
// "on" or "off"). A browser asking for reduced motion is taken as asking for quiet: no sound
// unless the person turned it on themselves. Nothing sounds while the page is hidden (the title
// and the notification say it is your turn instead: notify.js).
// Browsers refuse audio until the person does something on the page: the audio context is made
// (or resumed) on the first press of a key or pointer.
// Test hook: where window.__liverpoolSounds is an array, the name of every sound played is
// pushed on it (whether or not the browser lets audio out yet).
// Domain words: sound (one of the names above), tune (its notes), switch, quiet (reduced
// motion), gesture (a key or pointer press that lets audio start).

const KEY = "liverpool:sound";
const VOLUME = 0.07; // the loudest a note gets (of 1): low, a cue and not an alarm
const QUIET_QUERY = "(prefers-reduced-motion: reduce)";

// [frequency in Hz, start in s, length in s] per note
const TUNES = {
  turn: [[660, 0, 0.12], [880, 0.13, 0.2]],
  mayi: [[988, 0, 0.07], [988, 0.1, 0.07], [1319, 0.2, 0.12]],
  down: [[392, 0, 0.12], [523, 0.11, 0.22]],
  out: [[523, 0, 0.1], [659, 0.1, 0.1], [784, 0.2, 0.1], [1047, 0.3, 0.32]],
};
export const SOUND_NAMES = Object.keys(TUNES);

let ctx = null;

/** The person's own choice: "on", "off", or null (never chosen). */
export function soundChoice() {
  let v = null;
  try { v = localStorage.getItem(KEY); } catch (e) { v = null; }
  return v === "on" || v === "off" ? v : null;
}

/** Whether the browser asks for reduced motion (taken as "quiet"). */
export function quietAsked() {
  return Boolean(window.matchMedia && window.matchMedia(QUIET_QUERY).matches);
}

/** Whether sounds play: the person's choice, else on unless the browser asks for quiet. */
export function soundOn() {
  const c = soundChoice();
  return c ? c === "on" : !quietAsked();
}

export function setSound(on) {
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch (e) { /* lasts for this page */ }
  if (on) wake(); // the switch is pressed by hand: audio may start now
}

function pageHidden() {
  return document.visibilityState === "hidden";
}

/** Make or resume the audio context (only from a gesture: browsers refuse it otherwise). */
function wake() {
  if (!soundOn()) return;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try {
    if (!ctx) ctx = new Ctx();
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
  } catch (e) {
    ctx = null;
  }
}

/** Listen for the gestures that let audio start (once per page). */
export function armSound() {
  for (const type of ["pointerdown", "keydown"]) {
    window.addEventListener(type, wake, { capture: true, passive: true });
  }
}

function tone(freq, start, length) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = "triangle";
  osc.frequency.value = freq;
  // a quick rise and an exponential fall: no click at either end
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.linearRampToValueAtTime(VOLUME, start + 0.012);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

/** Play a sound by name, unless sound is off or the page is hidden; true when it was played. */
export function playSound(name) {
  const tune = TUNES[name];
  if (!tune || !soundOn() || pageHidden()) return false;
  if (Array.isArray(window.__liverpoolSounds)) window.__liverpoolSounds.push(name);
  if (!ctx || ctx.state !== "running") return true; // no gesture yet: the browser keeps it silent
  const now = ctx.currentTime + 0.01;
  try {
    for (const [freq, at, length] of tune) tone(freq, now + at, length);
  } catch (e) { /* an audio failure is no reason to stop the game */ }
  return true;
}
