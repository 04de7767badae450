// The game's events as the page shows them: one entry of the log (the table's side panel, the
// replay's steps) per event the server sends (docs/web-protocol.md, "Events"). The words are
// the server's `text`, written for this reader; every card and meld comes from the event's own
// fields (`card`, `cards`, `wild`, `penalty_cards`, `penalty_card`, `melds`, `result`,
// `new_meld`), each meld named by its JSON `kind`. Nothing is read out of the text: where its
// words are exactly one of the event's own cards (or a meld's cards in order) they are drawn as
// that card (or meld); a meld the words do not list is drawn after them; other words stay as
// the server wrote them. No pattern is matched against the text.
// Domain words: event (`{"type", ...fields, "text"}`), entry (an event drawn), glyph (a card in
// the page's notation, coloured by suit), meld glyph (a meld's cards as glyphs, named by owner
// and kind), pass (an event of type "passed": a run of them folds into one line), notice (a
// line of the log that is no move: `{"type": "notice", "text"}`).

import { cardText, cardsText, meldKindText, meldName, parse } from "./cards.js";

// the punctuation the server's words may carry around a card: "(QS", "5D)", "down:", "7H,"
const OPEN = "([";
const CLOSE = ")].,:;!?";

/** A word as [lead, core, trail]: the core without the punctuation around it. */
function trim(word) {
  let a = 0;
  let b = word.length;
  while (a < b && OPEN.includes(word[a])) a++;
  while (b > a && CLOSE.includes(word[b - 1])) b--;
  return [word.slice(0, a), word.slice(a, b), word.slice(b)];
}

/** The single cards an event names, from its fields. */
export function eventCards(ev) {
  const out = [];
  for (const k of ["card", "wild", "penalty_card", "upcard"]) {
    if (typeof ev[k] === "string") out.push(ev[k]);
  }
  for (const k of ["cards", "penalty_cards"]) {
    if (Array.isArray(ev[k])) out.push(...ev[k]);
  }
  return out;
}

/** The melds an event shows, from its fields: a go-down's melds, the meld a card went on (a
 * lay-off, a swap, a call that gives the card to a meld), a borrow's new meld. */
export function eventMelds(ev) {
  switch (ev.type) {
    case "went_down": return ev.melds || [];
    case "laid_off":
    case "swapped": return ev.result ? [ev.result] : [];
    case "called": return ev.result ? [ev.result] : [];
    case "borrowed": return ev.new_meld ? [ev.new_meld] : [];
    default: return [];
  }
}

/** A card as a glyph: its notation ("10♥"), coloured by suit. */
export function cardGlyph(code) {
  const span = document.createElement("span");
  const c = parse(code);
  span.className = "ct " + (c.joker ? "joker" : "suit-" + c.suit);
  span.dataset.card = code;
  span.textContent = cardText(code);
  return span;
}

/** A meld as glyphs: its cards in order (a wild marked with what the meld's `stands_for` says
 * it stands for), named by owner and kind for screen readers and on hover. */
export function meldGlyphs(meld, players, mySeat) {
  const el = document.createElement("span");
  el.className = "log-meld";
  el.dataset.kind = meld.kind;
  const name = players ? meldName(meld, players, mySeat) : meldKindText(meld);
  el.title = name;
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", `${name}: ${cardsText(meld.cards)}`);
  const stands = meld.stands_for || [];
  meld.cards.forEach((code, k) => {
    if (k) el.append(document.createTextNode(" "));
    const g = cardGlyph(code);
    g.classList.add("glyph");
    const means = stands[k];
    if (means) {
      g.classList.add("wild");
      // a run's wild stands for a card ("6C"), a set's for a rank ("7")
      g.dataset.stands = means.length > 1 && "SHDC".includes(means[means.length - 1]) && parse(means).rank > 0 ?
        cardText(means) : means;
    }
    el.append(g);
  });
  return el;
}

/** Whether the words from `i` on are exactly the meld's cards (punctuation only before the
 * first and after the last). */
function listsMeld(words, i, meld) {
  const n = meld.cards.length;
  if (!n || i + n > words.length) return false;
  for (let j = 0; j < n; j++) {
    const [lead, core, trail] = trim(words[i + j]);
    if (core !== meld.cards[j] || (j > 0 && lead) || (j < n - 1 && trail)) return false;
  }
  return true;
}

/**
 * An event's entry as nodes: the words of its `text` (none: an empty list), the event's own
 * cards drawn as glyphs where the words are those cards, each of its melds drawn as a meld
 * glyph where the words list its cards (the word before it, the meld's kind, then names the
 * kind: "run of hearts"), or after the words where they do not.
 */
export function entryNodes(ev, players, mySeat) {
  if (!ev || typeof ev.text !== "string") return [];
  const melds = eventMelds(ev);
  const cards = new Set([...eventCards(ev), ...melds.flatMap((m) => m.cards)]);
  const placed = new Set();
  const words = ev.text.split(" ");
  const tokens = []; // strings (words) and nodes, a space between each two
  for (let i = 0; i < words.length; i++) {
    const k = melds.findIndex((m, x) => !placed.has(x) && listsMeld(words, i, m));
    if (k >= 0) {
      const m = melds[k];
      placed.add(k);
      const last = i + m.cards.length - 1;
      const prev = tokens.length - 1;
      if (prev >= 0 && tokens[prev] === m.kind) tokens[prev] = meldKindText(m);
      const lead = trim(words[i])[0];
      const trail = trim(words[last])[2];
      tokens.push([lead, meldGlyphs(m, players, mySeat), trail]);
      i = last;
      continue;
    }
    const [lead, core, trail] = trim(words[i]);
    tokens.push(cards.has(core) ? [lead, cardGlyph(core), trail] : words[i]);
  }
  melds.forEach((m, k) => { if (!placed.has(k)) tokens.push(["", meldGlyphs(m, players, mySeat), ""]); });
  const out = [];
  let text = "";
  tokens.forEach((t, k) => {
    if (k) text += " ";
    if (typeof t === "string") { text += t; return; }
    const [lead, node, trail] = t;
    text += lead;
    if (text) out.push(document.createTextNode(text));
    out.push(node);
    text = trail;
  });
  if (text) out.push(document.createTextNode(text));
  return out;
}

/** An event's entry as an element (`tag`: "li", "span", ...), its type in data-type. */
export function entryElement(ev, players, mySeat, tag = "span") {
  const el = document.createElement(tag);
  el.className = "entry";
  el.dataset.type = ev.type || "";
  el.append(...entryNodes(ev, players, mySeat));
  return el;
}

/** The entry's words as plain text, cards in the page's notation (for screen readers). */
export function entryWords(ev, players, mySeat) {
  const el = document.createElement("span");
  el.append(...entryNodes(ev, players, mySeat));
  return el.textContent;
}

/** The events that have something to say (a `text`), each drawn, joined by `sep`. */
export function entriesNodes(events, players, mySeat, sep = ". ") {
  const out = [];
  for (const ev of events || []) {
    if (typeof ev.text !== "string" || !ev.text) continue;
    if (out.length) out.push(document.createTextNode(sep));
    out.push(entryElement(ev, players, mySeat));
  }
  return out;
}
