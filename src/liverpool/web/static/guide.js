// The first-game guide: on a person's first table, a short walk through one turn on the live
// table, one callout at a time, each anchored to the element it talks about and moving on when
// the person does the thing (or presses "Next"). It never blocks the game: no modal, no focus
// taken, the callout placed beside its element (never over it) and kept on screen.
// The guide knows no rule of the game: what may be done now comes from the server's legal
// actions and intents, the words about rules from the table's rules sheet and the view.
// Domain words: step (draw, go down, lay off, discard, May I?), live (the step's situation is
// on the table now: shown), seen (shown and moved past, done by the person, or explained and
// skipped: never shown again on this run), note (a step that cannot happen on this turn, said
// in a line of the next callout), callout, target (the element a callout points at), guide
// state (localStorage "liverpool:guide": {done: true}, or {table, seen: [steps]} while it
// runs: the table is the person's first, and only that table shows it), experienced (a kept
// player with finished games: never shown the guide unasked).

import { cardText, contractText } from "./cards.js";
import { api, getPlayer, h } from "./util.js";

const KEY = "liverpool:guide";
const STEPS = ["draw", "godown", "layoff", "discard", "mayi"];
const TITLES = { draw: "Draw a card", godown: "Going down", layoff: "Laying off", discard: "Discard to end your turn", mayi: "May I?" };
const MARGIN = 8; // the callout keeps this far from the window's edges (px)
const GAP = 12; // and this far from its target

function load() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "null");
    return v && typeof v === "object" ? v : null;
  } catch (e) {
    return null;
  }
}

function save(v) {
  try { localStorage.setItem(KEY, JSON.stringify(v)); } catch (e) { /* private mode: this page only */ }
}

/** The lines of the first section of the table's rules sheet whose heading matches ``re``
 * (the server's words; none when the sheet has no such section). */
function sheetLines(client, re) {
  const sheet = (client.table && client.table.rules_sheet) || [];
  const found = sheet.find(([heading]) => re.test(heading));
  return found ? found[1].filter((line) => typeof line === "string" && line.trim()) : [];
}

class Guide {
  constructor() {
    this.box = null; // the callout (kept in the body: the table page redraws its own root)
    this.client = null;
    this.shownKey = null; // what the callout says now (its text changes only when this does)
    this.live = new Set(); // the steps live at the last update
    this.notes = []; // steps that cannot happen on this turn, said in the next callout
    this.inTurn = false; // the person's own turn (after the draw) was seen while the guide ran
    this.handSize = null; // the person's cards at the last update (a lay-off makes it smaller)
    this.buyTurn = false; // the person was asked to buy in turn at the last update
    this.experienced = new Map(); // player id -> true/false/"asking"
    this.scrolled = null; // the step whose target was last brought into view
    this.onMove = () => this.place();
  }

  // ---- state -------------------------------------------------------------------------------

  /** Whether this table shows the guide now (and its state); claims a first table. */
  state(client) {
    const s = load();
    if (s && s.done) return null;
    if (client.seat === null || client.seat === undefined || client.leftSeat !== null) return null; // spectators
    if (s && s.table !== client.id) return null; // the person's first table was another
    if (!s) {
      const me = getPlayer();
      if (me && !this.knownNew(me, client)) return null;
      const fresh = { table: client.id, seen: [] };
      save(fresh);
      return fresh;
    }
    return s;
  }

  /** A kept player is new here unless they have finished games (asked once per page). */
  knownNew(me, client) {
    const known = this.experienced.get(me.id);
    if (known === true) { save({ done: true }); return false; }
    if (known === false) return true;
    if (known === "asking") return false;
    this.experienced.set(me.id, "asking");
    api("GET", `/api/players/${encodeURIComponent(me.id)}/games?limit=1`)
      .then((r) => { this.experienced.set(me.id, !!(r && r.total > 0)); })
      .catch(() => { this.experienced.set(me.id, false); }) // no answer: treat them as new
      .then(() => { if (this.client === client) this.update(client); });
    return false;
  }

  markSeen(...steps) {
    const s = load();
    if (!s || s.done) return;
    const seen = new Set(s.seen || []);
    for (const st of steps) seen.add(st);
    if (STEPS.every((st) => seen.has(st))) { this.finish(); return; }
    save({ ...s, seen: [...seen] });
  }

  /** Done or skipped: never shown again unasked. */
  finish() {
    save({ done: true });
    this.notes = [];
    // a keyboard user who pressed Skip or Done goes on from the hand, not from the page's top
    const had = this.box && this.box.contains(document.activeElement);
    this.hide();
    if (had) {
      const back = document.querySelector('#app #hand .card[tabindex="0"]') || document.querySelector("#app #dock button");
      if (back) back.focus({ preventScroll: true });
    }
  }

  /** "Show the guide again" (the game menu, the keys dialog): from now, on this table. */
  reopen(client) {
    save({ table: client.id, seen: [] });
    this.notes = [];
    this.inTurn = false;
    this.shownKey = null;
    this.scrolled = null;
    this.update(client);
  }

  stop() {
    this.client = null;
    this.hide();
  }

  // ---- which step is live ------------------------------------------------------------------

  /** After each render of the table: the step to show now, if any, pointed at its element. */
  update(client) {
    this.client = client;
    const v = client.view;
    const s = v && v.phase !== "over" ? this.state(client) : null;
    if (!s) { this.live = new Set(); this.hide(); return; }
    const seen = new Set(s.seen || []);
    const seat = client.seat;
    const types = new Set(client.legal.map((a) => a.type));
    const mine = v.to_act.includes(seat) && client.legal.length > 0;
    const drawing = mine && (types.has("draw") || types.has("take_discard") || types.has("no_draw"));
    const playing = mine && ["play", "bonus"].includes(v.phase) && !drawing;
    const down = !!v.down[seat];
    const hand = v.hand.length;
    const buyOn = client.rules.buying !== false;
    // the May I? panel while this seat may still answer it (asking or "no thanks" is the answer)
    const windowOpen = client.intents.includes("buy") && !client.asking.buy && !client.declined.buy;
    const buyTurn = mine && v.phase === "buy" && types.has("buy");

    const live = new Set();
    if (drawing) live.add("draw");
    if (playing && !down) live.add("godown");
    if (playing && down) live.add("layoff");
    if (playing && types.has("discard")) live.add("discard");
    if (buyOn && (windowOpen || buyTurn)) live.add("mayi");

    // a step that was live and is no longer: the person did it (or the turn moved on); a May I?
    // panel that closed by itself (nobody waits for this seat) comes back with the next one
    const gone = [...this.live].filter((st) => !live.has(st) &&
      (st !== "mayi" || this.buyTurn || client.asking.buy || client.declined.buy));
    // a card laid off (the hand got smaller while the person stays down and on turn)
    if (this.live.has("layoff") && live.has("layoff") && this.handSize !== null && hand < this.handSize) gone.push("layoff");
    if (playing) {
      this.inTurn = true;
      gone.push("draw");
    } else if (this.inTurn && !drawing) {
      // the turn ended (a discard, or the clock played it): its steps are behind the person
      this.inTurn = false;
      gone.push("draw", "godown", "layoff", "discard");
    }
    this.live = live;
    this.buyTurn = buyTurn;
    this.handSize = hand;
    if (!buyOn && !seen.has("mayi")) {
      // no May I? at this table: said in the last callout of the turn (the sheet's words)
      const words = sheetLines(client, /buy|may i/i)[0] || "This table has no buying.";
      this.note("mayi", seen, `May I?: ${words}`, "discard");
    }
    const fresh = gone.filter((st) => !seen.has(st));
    if (fresh.length) {
      this.markSeen(...fresh);
      const after = load();
      if (!after || after.done) return;
      fresh.forEach((st) => seen.add(st));
    }

    // a lay-off that cannot happen on this turn: said in the discard callout, and skipped
    if (playing && !seen.has("layoff")) {
      if (!down && seen.has("godown")) {
        this.note("layoff", seen, "Laying off comes once you are down: then you may add cards of your hand to the melds on the table.", "discard");
      } else if (down && !client.legal.some((a) => ["lay_off", "swap_joker"].includes(a.type))) {
        this.note("layoff", seen, "Laying off: no card of yours fits a meld on the table now. On a later turn, select a card: the melds it fits are outlined.", "discard");
      }
    }

    let step = null;
    if (live.has("mayi") && !seen.has("mayi")) step = "mayi";
    else step = ["draw", "godown", "layoff", "discard"].find((st) => live.has(st) && !seen.has(st)) || null;
    if (!step) {
      // nothing to show: before anything was seen, a word that the guide waits for the turn
      if (!["draw", "godown", "layoff", "discard"].some((st) => seen.has(st)) && !mine) { this.show(client, "wait", seen); return; }
      this.hide();
      return;
    }
    this.show(client, step, seen);
  }

  /** A step that cannot happen now: marked seen, and said in the callout of ``at``. */
  note(step, seen, text, at) {
    this.markSeen(step);
    seen.add(step);
    if (!this.notes.some((n) => n.step === step)) this.notes.push({ step, text, at });
  }

  // ---- what a step says --------------------------------------------------------------------

  /** {targets: [selectors, first present wins], lines: [text], variant} of a step now. */
  content(client, step) {
    const v = client.view;
    const seat = client.seat;
    const types = new Set(client.legal.map((a) => a.type));
    const top = client.topCard ? client.topCard() : null;
    const contract = contractText(v.contract[seat]);
    switch (step) {
      case "wait":
        return { targets: [".player.me", "#players"], variant: "wait", lines: [
          "A short guide walks you through your first turn: it starts when it is your move (your seat shows \"your move\")."] };
      case "draw": {
        const lines = ["Your turn starts with a card: click the stock (the face-down pile, key s)" +
          (types.has("take_discard") && top ? `, or take the ${cardText(top)} from the discard pile beside it (key t).` : ".")];
        if (types.has("no_draw")) lines.push("You may also lay off instead of drawing (the button below).");
        return { targets: ["#stock.clickable", "#discard-top.clickable", "#stock"], lines };
      }
      case "godown": {
        const melds = sheetLines(client, /meld/i).slice(0, 2);
        if (types.has("go_down")) {
          return { targets: ["#go-down", "#hand"], variant: "can", lines: [
            `This hand's contract: ${contract}. Your hand makes it: the helper shows the melds; "Go down like this" lays them on the table (Enter), "Change it" lets you pick the cards.`,
            ...melds] };
        }
        return { targets: ["#contract", "#hand"], variant: "cannot", lines: [
          `This hand's contract: ${contract}. You cannot go down yet: your hand does not make ${contract} so far. Keep the cards that build toward it; when it does, a helper appears above your hand.`,
          ...melds] };
      }
      case "layoff":
        return { targets: ["#melds .meld.target", "#melds", "#hand"], lines: [
          "You are down: now you may add cards to any meld on the table. Select a card in your hand; the melds it fits are outlined: click one to lay the card off.",
          // the sheet's lines about laying off, where the table has any (a call is another matter)
          ...sheetLines(client, /playing on the table/i).filter((line) => /\blays? off|\blaying off/i.test(line))] };
      case "discard":
        return { targets: ["#discard", "#hand"], lines: [
          "End your turn by discarding one card: select it in your hand, then press Discard (or click the discard pile, or key d).",
          ...sheetLines(client, /going out/i).slice(0, 1)] };
      case "mayi": {
        const lines = [`${top ? `The ${cardText(top)}` : "The discard"} is up for grabs: the next player may take it; before they decide you may ask for it out of turn. "May I?" asks (key b), "No thanks" lets it go (key n); the bar shows the time left.`,
          ...sheetLines(client, /buy|may i/i).slice(0, 1)];
        return { targets: ["#window", "#prompt"], lines };
      }
      default:
        return { targets: [], lines: [] };
    }
  }

  // ---- the callout -------------------------------------------------------------------------

  show(client, step, seen) {
    const c = this.content(client, step);
    const target = this.findTarget(c.targets);
    if (!target || client.overlay || client.pauseShown() || client.drawer) { this.hideBox(); return; }
    const box = this.ensureBox();
    const key = `${step}:${c.variant || ""}:${c.lines.join("|")}`;
    if (key !== this.shownKey) {
      const notes = this.notes.filter((n) => n.at === step);
      this.notes = this.notes.filter((n) => n.at !== step);
      const left = STEPS.filter((st) => !seen.has(st) && st !== step);
      const last = step !== "wait" && !left.length;
      const number = STEPS.indexOf(step) + 1;
      const focusWasIn = box.contains(document.activeElement);
      box.dataset.step = step;
      box.dataset.variant = c.variant || "";
      box.replaceChildren(
        h("p.guide-head", {}, h("span.guide-title", { text: step === "wait" ? "Your first game" : TITLES[step] }),
          step === "wait" ? null : h("span.guide-count", { text: `step ${number} of ${STEPS.length}` })),
        h("div.guide-text", { role: "status", "aria-live": "polite" },
          notes.map((n) => h("p.guide-note", { text: n.text })),
          c.lines.map((line) => h("p", { text: line }))),
        h("div.guide-buttons", {},
          step === "wait" ? null : h("button#guide-next.small", { type: "button", text: last ? "Done" : "Next",
            onclick: () => this.next(step, last) }),
          h("button#guide-skip.small.secondary", { type: "button", text: "Skip guide", onclick: () => this.finish() })),
        h("span.guide-arrow", { "aria-hidden": "true" }));
      this.shownKey = key;
      if (focusWasIn) { const b = box.querySelector("button"); if (b) b.focus({ preventScroll: true }); }
    }
    box.hidden = false;
    for (const el of document.querySelectorAll(".guide-target")) if (el !== target) el.classList.remove("guide-target");
    target.classList.add("guide-target");
    if (this.scrolled !== step) {
      // brought into view once per step (later renders keep where the person scrolled)
      this.scrolled = step;
      target.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
    this.target = target;
    this.place();
  }

  next(step, last) {
    if (last) { this.finish(); return; }
    this.markSeen(step);
    this.shownKey = null;
    if (this.client) this.update(this.client);
  }

  findTarget(selectors) {
    for (const sel of selectors) {
      const el = document.querySelector(`#app ${sel}`);
      if (!el) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) return el;
    }
    return null;
  }

  ensureBox() {
    if (this.box && this.box.isConnected) return this.box;
    this.box = h("section#guide.guide", { "aria-label": "first-game guide", hidden: true });
    document.body.append(this.box);
    window.addEventListener("resize", this.onMove);
    // the board, the dock and the hand scroll on their own: any scroll moves the target
    document.addEventListener("scroll", this.onMove, true);
    return this.box;
  }

  hideBox() {
    if (this.box) this.box.hidden = true;
    for (const el of document.querySelectorAll(".guide-target")) el.classList.remove("guide-target");
    this.target = null;
  }

  hide() {
    this.hideBox();
    this.shownKey = null;
  }

  /** Beside the target (below, above, right or left: the first side with room), inside the
   * window; never over the target. With no side that fits, the side with most room, the
   * callout made shorter (it scrolls). A target in the dock is placed against the whole dock
   * (the person's hand and buttons stay free), the stock against its pile with its label. */
  place() {
    const box = this.box;
    const target = this.target;
    if (!box || box.hidden || !target || !target.isConnected) return;
    const t = target.closest("#dock") || target.closest(".pile") || target;
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    box.style.maxHeight = "";
    box.style.left = "0px";
    box.style.top = "0px";
    const r = t.getBoundingClientRect();
    const w = box.offsetWidth;
    const hgt = box.offsetHeight;
    const clampX = (x) => Math.max(MARGIN, Math.min(vw - MARGIN - w, x));
    const clampY = (y) => Math.max(MARGIN, Math.min(vh - MARGIN - hgt, y));
    const room = { bottom: vh - MARGIN - r.bottom - GAP, top: r.top - GAP - MARGIN, right: vw - MARGIN - r.right - GAP, left: r.left - GAP - MARGIN };
    const order = r.top + r.height / 2 > vh / 2 ? ["top", "bottom", "right", "left"] : ["bottom", "top", "right", "left"];
    const at = (side) => {
      if (side === "bottom") return { left: clampX(r.left + r.width / 2 - w / 2), top: r.bottom + GAP };
      if (side === "top") return { left: clampX(r.left + r.width / 2 - w / 2), top: r.top - GAP - hgt };
      if (side === "right") return { left: r.right + GAP, top: clampY(r.top + r.height / 2 - hgt / 2) };
      return { left: r.left - GAP - w, top: clampY(r.top + r.height / 2 - hgt / 2) };
    };
    let side = order.find((s) => (s === "top" || s === "bottom" ? room[s] >= hgt && w <= vw - 2 * MARGIN : room[s] >= w && hgt <= vh - 2 * MARGIN));
    let pos;
    if (side) {
      pos = at(side);
    } else {
      side = room.top > room.bottom ? "top" : "bottom";
      const space = Math.max(80, room[side]);
      box.style.maxHeight = `${space}px`;
      const hh = Math.min(hgt, space);
      pos = { left: clampX(r.left + r.width / 2 - w / 2), top: side === "top" ? Math.max(MARGIN, r.top - GAP - hh) : Math.min(vh - MARGIN - hh, r.bottom + GAP) };
    }
    box.dataset.side = side;
    box.style.left = `${Math.round(pos.left)}px`;
    box.style.top = `${Math.round(pos.top)}px`;
    // the arrow points at the target's middle, along the callout's edge
    const along = side === "top" || side === "bottom" ? r.left + r.width / 2 - pos.left : r.top + r.height / 2 - pos.top;
    const size = side === "top" || side === "bottom" ? w : box.offsetHeight;
    box.style.setProperty("--arrow", `${Math.round(Math.max(14, Math.min(size - 14, along)))}px`);
  }
}

/** The page's one guide: table.js calls guide.update(client) after each render. */
export const guide = new Guide();

/** The "Show the guide again" button of the game menu and the keys dialog (seated players). */
export function guideButton(client) {
  if (client.seat === null || client.seat === undefined) return null;
  return h("button#guide-again.secondary", { type: "button", text: "Show the guide again", onclick: () => {
    client.overlay = null;
    client.render();
    guide.reopen(client);
  } });
}
