// Cards in the notation of docs/rules.md (Notation) ("10H", "AS", "JK"): parsing, sorting, drawing
// faces, the one notation people read ("10♥", in card faces, labels and log lines alike), a
// table meld drawn with what the server says each wild stands for and named by owner and kind
// ("Bea's run of hearts", the kind from the meld's JSON), and arranging picked cards as a meld
// where the server lists no arrangement of them.
// Domain words: rank (1 = ace .. 13 = king; 14 = a high ace in a run), suit (S H D C), wild
// (a joker, or a 2 where 2s are wild), natural (a card standing for itself), set, run,
// stands for (the meld JSON's stands_for: a wild's card in a run, the rank in a set).

export const SUITS = ["S", "H", "D", "C"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANKS = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

/** {rank, suit, joker} of a card code; rank 0 for a joker. */
export function parse(code) {
  if (code === "JK") return { rank: 0, suit: null, joker: true };
  const suit = code.slice(-1);
  const r = code.slice(0, -1);
  return { rank: RANKS.indexOf(r, 1), suit, joker: false };
}

export function rankName(rank) {
  return RANKS[rank] || "?";
}

/** "10H" -> "10♥", "AS" -> "A♠", "JK" -> "JK": the notation people read. */
export function cardText(code) {
  if (code === "JK") return "JK";
  const c = parse(code);
  const symbol = SUIT_SYMBOL[c.suit];
  return symbol && c.rank > 0 ? rankName(c.rank) + symbol : String(code);
}

/** Cards as people read them: "5♥ 6♥ 7♥". */
export function cardsText(codes) {
  return codes.map(cardText).join(" ");
}

// a card token in the server's words that are no event (the engine's reasons for a refused move,
// a hint's reason): a rank and a suit letter, or JK, as a whole word; nothing else is touched
// ("Bot 2", "AS" in a name only when it stands alone). The log's events are never read so: their
// cards come from their own fields (events.js).
const CARD_TOKEN = /\b(?:(10|[2-9AJQK])([SHDC])|JK)\b/g;

/** Text from the server with its card tokens in the page's notation ("buys 10H" -> "buys 10♥"). */
export function symbolize(text) {
  return String(text).replace(CARD_TOKEN, (tok) => cardText(tok));
}

/**
 * Text from the server as nodes: card tokens become spans coloured by suit (`.ct.suit-H`),
 * everything else stays text (never parsed as markup).
 */
export function richText(text) {
  const out = [];
  const s = String(text);
  let at = 0;
  for (const m of s.matchAll(CARD_TOKEN)) {
    if (m.index > at) out.push(document.createTextNode(s.slice(at, m.index)));
    const span = document.createElement("span");
    span.className = "ct " + (m[0] === "JK" ? "joker" : "suit-" + m[2]);
    span.textContent = cardText(m[0]);
    out.push(span);
    at = m.index + m[0].length;
  }
  if (at < s.length) out.push(document.createTextNode(s.slice(at)));
  return out;
}

const RANK_WORDS = { A: "aces", J: "jacks", Q: "queens", K: "kings" };

/** "set of 7s", "set of queens", "run of hearts": a meld's kind from its JSON (the server's). */
export function meldKindText(meld) {
  if (meld.kind === "run") return "run" + (SUIT_NAME[meld.suit] ? " of " + SUIT_NAME[meld.suit] : "");
  const stands = meld.stands_for || [];
  let rank = null;
  meld.cards.forEach((code, k) => {
    if (rank !== null) return;
    if (!stands[k] && code !== "JK") rank = rankName(parse(code).rank);
    else if (stands[k] && !/[SHDC]$/.test(stands[k])) rank = stands[k];
  });
  if (rank === null) return "set";
  return "set of " + (RANK_WORDS[rank] || rank + "s");
}

/** "Bea's run of hearts", "your set of 7s": a table meld named by owner and kind. */
export function meldName(meld, players, mySeat) {
  if (!meld) return "a meld";
  const owner = meld.owner === mySeat ? "your" : `${(players && players[meld.owner]) || "someone"}'s`;
  return `${owner} ${meldKindText(meld)}`;
}

export function isWild(code, wilds) {
  return wilds.has(code);
}

export function isRed(code) {
  const s = parse(code).suit;
  return s === "H" || s === "D";
}

/** Sort keys: by suit (S H D C) then rank, or by rank then suit; wilds last either way. */
export function sortKey(code, mode, wilds) {
  const c = parse(code);
  if (c.joker) return 1000;
  const wild = wilds.has(code) ? 500 : 0;
  const s = SUITS.indexOf(c.suit);
  return wild + (mode === "rank" ? c.rank * 4 + s : s * 20 + c.rank);
}

export function sortCards(codes, mode, wilds) {
  return [...codes].sort((a, b) => sortKey(a, mode, wilds) - sortKey(b, mode, wilds));
}

/** A card face as a DOM element (CSS draws it; the suit symbol is text). */
export function cardElement(code, opts = {}) {
  const el = document.createElement(opts.tag || "div");
  el.className = "card";
  el.dataset.card = code;
  const c = parse(code);
  // built node by node, never from markup: nothing the server sends is read as HTML
  const span = (cls, ...parts) => {
    const s = document.createElement("span");
    s.className = cls;
    s.append(...parts);
    return s;
  };
  if (c.joker) {
    el.classList.add("joker");
    el.append(span("corner", "JK"), span("pip", "★"));
    el.setAttribute("aria-label", "joker");
  } else {
    if (isRed(code)) el.classList.add("red");
    el.classList.add("suit-" + c.suit); // the four-colour deck colours by suit
    const r = rankName(c.rank);
    const symbol = SUIT_SYMBOL[c.suit] || "?";
    el.append(span("corner", r, document.createElement("br"), symbol), span("pip", symbol));
    el.setAttribute("aria-label", `${r} of ${SUIT_NAME[c.suit] || "?"}`);
  }
  if (opts.standsFor) {
    el.classList.add("wild");
    const tag = document.createElement("span");
    tag.className = "stands";
    const means = /[SHDC]$/.test(opts.standsFor) ? cardText(opts.standsFor) : opts.standsFor;
    tag.textContent = "=" + means;
    tag.title = "this wild stands for " + means;
    el.appendChild(tag);
  }
  return el;
}

export function cardBack(label) {
  const el = document.createElement("div");
  el.className = "card back";
  if (label !== undefined) {
    const s = document.createElement("span");
    s.className = "count";
    s.textContent = label;
    el.appendChild(s);
  }
  return el;
}

/**
 * A table meld (its JSON from the server) as an element: a `.meld` holding its cards in order,
 * each wild tagged with what the meld's `stands_for` says it stands for (the page works none of
 * it out), labelled by owner and kind when `players` are given. `decorate(cardEl, code, place)`
 * may add classes or handlers.
 */
export function meldElement(meld, index, decorate, players = null, mySeat = null) {
  const el = document.createElement("div");
  el.className = "meld";
  el.dataset.meld = String(index);
  el.dataset.kind = meld.kind;
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", players ? meldName(meld, players, mySeat) + ": " + cardsText(meld.cards) : meldKindText(meld));
  const stands = meld.stands_for || [];
  meld.cards.forEach((code, k) => {
    const ce = cardElement(code, { standsFor: stands[k] || null });
    ce.classList.add("small");
    if (decorate) decorate(ce, code, k);
    el.append(ce);
  });
  return el;
}

/** Whether two lists hold the same cards, in any order. */
export function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((c, i) => c === y[i]);
}

/**
 * The order to send picked cards in as one meld: the server's own where its legal actions list
 * these cards as a meld (`listed`: card lists from the legal go-down or borrows), else as picked.
 * The page knows no rule of melds: the server puts picked cards in an order the rules accept
 * (or says why they make no meld).
 */
export function meldOrder(codes, listed) {
  const found = (listed || []).find((m) => sameCards(m, codes));
  return found ? [...found] : [...codes];
}

/** "2 sets", "1 set + 1 run", "2 sets of 3 + 1 run of 7". */
export function contractText(c) {
  if (!c) return "";
  const part = (n, word, size) => n ? `${n} ${word}${n > 1 ? "s" : ""}${size ? " of " + size : ""}` : "";
  return [part(c.sets, "set", c.set_size), part(c.runs, "run", c.run_size)].filter(Boolean).join(" + ");
}
