// The replay page of a finished game: steps through its record (RULES.md section 6) action by
// action with a readable line for each, the melds on the table and every seat's card count as
// far as the record shows them, and the final score sheet (from the finished table's public
// view). Domain words: record, step, hand (one deal), meld, lay-off, swap, borrow.

import { cardElement, standsFor, parse, isWild, sortCards, readsAsRun, readsAsSet } from "./cards.js";
import { api, h } from "./util.js";

export async function showReplay(root, tableId) {
  document.title = `Liverpool Rummy: replay ${tableId}`;
  root.replaceChildren(h("p.loading", { text: "Loading the record…" }));
  let record;
  let config;
  try {
    [record, config] = await Promise.all([
      api("GET", `/api/tables/${encodeURIComponent(tableId)}/record`),
      api("GET", "/api/config"),
    ]);
  } catch (e) {
    root.replaceChildren(h("section.panel", {}, h("h2", { text: `Replay of table ${tableId}` }),
      h("p.error", { text: e.status === 403 ? "This game is not over yet: its replay opens when it ends." : e.message }),
      h("a.button", { href: `/t/${encodeURIComponent(tableId)}`, text: "Go to the table" })));
    return;
  }
  const preset = (config.presets || {})[record.rules.preset] || {};
  const rules = { ...preset, ...(record.rules.overrides || {}) };
  const steps = buildSteps(record, rules);
  new ReplayView(root, tableId, record, rules, steps).start();
}

/**
 * Every state the record passes through, public parts only: the record holds the actions but
 * not the deal, so this follows card counts, the stock and pile sizes, melds, who is down, buys
 * and where each hand ends (someone out, final turns, the stock run dry, the turn limit).
 */
export function buildSteps(record, rules) {
  const n = record.players.length;
  const deuces = !!rules.deuces_wild;
  const penalty = rules.penalty_cards ?? 1;
  const dealSizes = rules.deal_sizes || [10];
  const order = rules.hands || (rules.contracts || [{}]).map((_, i) => i + 1);
  const mode = rules.playable_discard || "none";
  const goingOut = rules.going_out || "discard";
  const maxRenewals = rules.stock_reshuffles ?? 2;
  const turnLimit = rules.turn_limit ?? 300;
  let decks = 2;
  for (const [most, d] of [...(rules.decks || [[8, 2]])].reverse()) if (n <= most) decks = d;
  const packSize = decks * (52 + (rules.jokers_per_deck ?? 2));
  const own = rules.progression === "own";
  const progress = Array(n).fill(0);
  const name = (s) => record.players[s];

  let handIndex = 0;
  let dealer = record.first_dealer || 0;
  let st = null; // the public state of the hand in play
  let hidden = null; // what the page tracks but does not show
  const dealSize = () => dealSizes[Math.min(own ? handIndex + 1 : order[Math.min(handIndex, order.length - 1)], dealSizes.length) - 1];
  const contractNo = (p) => own ? progress[p] + 1 : order[Math.min(handIndex, order.length - 1)];
  const newHand = () => {
    const size = dealSize();
    st = {
      hand: handIndex + 1, sizes: Array(n).fill(size), down: Array(n).fill(false),
      buys: Array(n).fill(0), melds: [], top: null, text: "The cards are dealt.", actor: null,
    };
    hidden = {
      stock: packSize - n * size - 1, pile: 1, renewals: 0, out: Array(n).fill(false),
      floating: Array(n).fill(false), finalQueue: null, turn: (dealer + 1) % n, turns: 1,
      pendingDraw: null, discarder: null, over: false, wentDown: Array(n).fill(false),
    };
  };
  newHand();
  const steps = [structuredClone(st)];

  const takeStock = () => {
    if (hidden.stock === 0) {
      if (hidden.renewals >= maxRenewals || hidden.pile < 2) return false;
      hidden.stock = hidden.pile - 1;
      hidden.pile = 1;
      hidden.renewals += 1;
    }
    hidden.stock -= 1;
    return true;
  };
  const endHand = () => { hidden.over = true; };
  const nextTurn = () => {
    if (hidden.finalQueue) {
      while (hidden.finalQueue.length) {
        const q = hidden.finalQueue.shift();
        if (!hidden.out[q]) { hidden.turn = q; return; }
      }
      endHand();
      return;
    }
    if (hidden.turns >= turnLimit) { endHand(); return; }
    hidden.turns += 1;
    hidden.turn = (hidden.turn + 1) % n;
  };
  const playerOut = (p) => {
    hidden.out[p] = true;
    hidden.floating[p] = false;
    if (rules.final_turns) {
      if (!hidden.finalQueue) hidden.finalQueue = Array.from({ length: n - 1 }, (_, k) => (p + k + 1) % n);
      nextTurn();
    } else {
      endHand();
    }
  };
  // a hand emptied without a discard: out, floating, or (discard mode) impossible
  const emptied = (p, byGoDown) => {
    if (byGoDown && rules.final_all_out && contractNo(p) === 7) { playerOut(p); return; }
    if (st.sizes[p] !== 0) return;
    if (goingOut === "empty") playerOut(p);
    else { hidden.floating[p] = true; nextTurn(); } // floats: the turn ends with no discard
  };
  const settleDraw = () => {
    // the drawer gets the stock card only once the buy round is over
    const p = hidden.pendingDraw;
    if (p === null) return;
    hidden.pendingDraw = null;
    if (p === -1) return; // no_draw: nothing to receive
    if (takeStock()) st.sizes[p] += 1;
    else endHand();
  };
  const meldText = (i) => st.melds[i] ? `${name(st.melds[i].owner)}'s ${st.melds[i].cards.join(" ")}` : `meld ${i}`;
  const addToMeld = (i, card, end) => {
    const m = st.melds[i];
    if (!m) return;
    if (m.kind === "set") { m.cards = sortCards([...m.cards, card], "suit", deuces); return; }
    const first = standsFor(m, deuces)[0] || m.cards[0];
    const lo = parse(first).rank;
    const hi = lo + m.cards.length - 1;
    // without "end" the card fits one end only: a natural its rank's end, a wild the open end
    const low = end ? end === "low" : isWild(card, deuces) ? hi >= 14 : parse(card).rank === lo - 1;
    if (low) m.cards.unshift(card); else m.cards.push(card);
  };
  const kindOf = (cards) => {
    const run = readsAsRun(cards, deuces);
    const set = readsAsSet(cards, deuces);
    return run && set ? "both" : run ? "run" : "set";
  };
  // melds that read both ways take the kind the contract still needs (as the engine does)
  const goDownKinds = (p, melds) => {
    const kinds = melds.map(kindOf);
    const contract = (rules.contracts || [])[contractNo(p) - 1] || { runs: 0 };
    let runs = contract.runs - kinds.filter((k) => k === "run").length;
    return kinds.map((k) => (k !== "both" ? k : runs-- > 0 ? "run" : "set"));
  };

  for (const a of record.actions) {
    // a pending draw is settled by the first action after the buy round (a buy settles it)
    if (a.type !== "buy" && a.type !== "pass") settleDraw();
    if (hidden.over) {
      // the hand ended: the next one is dealt at once, the dealer one seat to the left
      if (own) hidden.wentDown.forEach((d, s) => { if (d) progress[s] += 1; });
      handIndex += 1;
      dealer = (dealer + 1) % n;
      newHand();
    }
    const p = a.player;
    const who = name(p);
    let text = "";
    switch (a.type) {
      case "draw": hidden.pendingDraw = p; text = `${who} draws from the stock`; break;
      case "no_draw": hidden.pendingDraw = -1; text = `${who} lays off instead of drawing`; break;
      case "take_discard":
        st.sizes[p] += 1; hidden.pile -= 1;
        text = `${who} takes ${st.top || "the discard"}`; st.top = null;
        break;
      case "buy": {
        const d = a.depth || 1;
        st.sizes[p] += d; hidden.pile -= d; st.buys[p] += 1;
        for (let k = 0; k < penalty; k++) if (takeStock()) st.sizes[p] += 1;
        text = `${who} buys ${d > 1 ? d + " cards" : st.top || "the discard"} (+${penalty} penalty card${penalty === 1 ? "" : "s"})`;
        st.top = null;
        settleDraw();
        break;
      }
      case "pass": text = `${who} passes`; break;
      case "go_down":
        st.down[p] = true;
        hidden.wentDown[p] = true;
        goDownKinds(p, a.melds).forEach((kind, k) => {
          const m = a.melds[k];
          st.sizes[p] -= m.length;
          st.melds.push({ owner: p, kind, cards: kind === "set" ? sortCards(m, "suit", deuces) : [...m] });
        });
        text = `${who} goes down: ` + a.melds.map((m) => m.join(" ")).join(" | ");
        emptied(p, true);
        break;
      case "lay_off":
        text = `${who} lays ${a.card} on ${meldText(a.meld)}`;
        st.sizes[p] -= 1;
        addToMeld(a.meld, a.card, a.end);
        emptied(p, false);
        break;
      case "swap_joker": {
        const m = st.melds[a.meld];
        text = `${who} swaps ${a.card} for the wild in ${meldText(a.meld)}`;
        if (m) {
          const stands = standsFor(m, deuces);
          let k = m.cards.findIndex((c, i) => stands[i] && (a.wild ? c === a.wild : true) &&
            (m.kind === "set" || stands[i] === a.card));
          if (k < 0) k = m.cards.findIndex((c) => isWild(c, deuces));
          if (k >= 0) m.cards[k] = a.card;
          if (m.kind === "set") m.cards = sortCards(m.cards, "suit", deuces);
        }
        break;
      }
      case "borrow": {
        const m = st.melds[a.meld];
        if (m) {
          const k = m.cards.indexOf(a.card);
          if (k >= 0) m.cards.splice(k, 1);
        }
        st.sizes[p] -= a.new_meld.length - 1;
        const kind = kindOf(a.new_meld) === "set" ? "set" : "run";
        st.melds.push({ owner: p, kind, cards: kind === "set" ? sortCards(a.new_meld, "suit", deuces) : [...a.new_meld] });
        text = `${who} borrows ${a.card} to lay ${a.new_meld.join(" ")}`;
        emptied(p, false);
        break;
      }
      case "discard": {
        st.sizes[p] -= 1;
        hidden.pile += 1;
        st.top = a.card;
        hidden.discarder = p;
        const out = st.sizes[p] === 0;
        text = `${who} discards ${a.card}` + (out ? " and goes out" : "");
        if (out) playerOut(p);
        else if (p === hidden.turn) nextTurn();
        break;
      }
      case "call": {
        const top = st.top || "the discard";
        const dis = hidden.discarder;
        if (mode === "bonus" || (mode === "standard" && !st.down[dis])) {
          st.sizes[p] += 1; hidden.pile -= 1; st.top = null; text = `${who} calls Liverpool on ${top}`;
        } else if (mode === "take_back" || mode === "standard") {
          if (dis !== null) {
            st.sizes[dis] += 1;
            for (let k = 0; k < penalty; k++) if (takeStock()) st.sizes[dis] += 1;
          }
          hidden.pile -= 1; st.top = null; text = `${who} calls rummy: ${top} goes back`;
        } else if (mode === "give_cards") {
          if (a.meld !== undefined) addToMeld(a.meld, top, a.end);
          hidden.pile -= 1; st.top = null; text = `${who} calls rummy: lays ${top}, everyone gives a card`;
        } else {
          text = `${who} calls RUMMY on ${top}`;
        }
        break;
      }
      case "give":
        st.sizes[p] -= 1;
        if (hidden.discarder !== null) st.sizes[hidden.discarder] += 1;
        text = `${who} gives ${a.card}`;
        break;
      case "cut": text = `${who} cuts the deck`; break;
      default: text = `${who}: ${a.type}`;
    }
    st.text = text;
    st.actor = p;
    steps.push(structuredClone(st));
  }
  return steps;
}

class ReplayView {
  constructor(root, tableId, record, rules, steps) {
    this.root = root;
    this.id = tableId;
    this.record = record;
    this.rules = rules;
    this.steps = steps;
    this.at = 0;
    this.timer = null;
    this.final = null;
  }

  start() {
    this.render();
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight") this.go(this.at + 1);
      if (e.key === "ArrowLeft") this.go(this.at - 1);
    });
    this.loadFinal();
  }

  loadFinal() {
    // the finished table's public view carries the score sheet
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(this.id)}`);
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", token: null, version: -1 }));
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if ((msg.type === "sync" || msg.type === "update") && msg.view) {
        this.final = msg.view;
        ws.close();
        this.render();
      }
    };
    setTimeout(() => ws.close(), 5000);
  }

  go(i) {
    this.at = Math.max(0, Math.min(this.steps.length - 1, i));
    this.render();
  }

  play() {
    if (this.timer) { clearInterval(this.timer); this.timer = null; this.render(); return; }
    this.timer = setInterval(() => {
      if (this.at >= this.steps.length - 1) { clearInterval(this.timer); this.timer = null; }
      this.go(this.at + 1);
    }, 700);
    this.render();
  }

  render() {
    const s = this.steps[this.at];
    const last = this.steps.length - 1;
    const deuces = !!this.rules.deuces_wild;
    const slider = h("input#replay-slider", { type: "range", min: "0", max: String(last), value: String(this.at), "aria-label": "step" });
    slider.addEventListener("input", () => this.go(Number(slider.value)));
    const controls = h("div.replay-controls", {},
      h("button#replay-first.small.secondary", { type: "button", text: "|◀", title: "first", onclick: () => this.go(0) }),
      h("button#replay-prev.small.secondary", { type: "button", text: "◀", title: "previous", onclick: () => this.go(this.at - 1) }),
      h("button#replay-play.small", { type: "button", text: this.timer ? "Pause" : "Play", onclick: () => this.play() }),
      h("button#replay-next.small.secondary", { type: "button", text: "▶", title: "next", onclick: () => this.go(this.at + 1) }),
      h("button#replay-last.small.secondary", { type: "button", text: "▶|", title: "last", onclick: () => this.go(last) }),
      slider, h("span#replay-pos", { text: `${this.at} / ${last}` }));
    const players = h("div.players", {}, this.record.players.map((p, i) => h("div.player" + (s.actor === i ? ".to-act" : ""), {},
      h("div.pname", { text: p }),
      h("div.pstats", {}, h("span", { text: `${s.sizes[i]} card${s.sizes[i] === 1 ? "" : "s"}` }), h("span", { text: s.down[i] ? "down" : "not down" }),
        h("span", { text: `buys ${s.buys[i]}` })))));
    const melds = h("div.melds", {}, s.melds.length ? s.melds.map((m, i) => h("div.meld", {},
      h("span.meld-no", { text: `${i} ${this.record.players[m.owner]}` }),
      m.cards.map((c, k) => { const e = cardElement(c, { standsFor: standsFor(m, deuces)[k] }); e.classList.add("small"); return e; })))
      : [h("p.muted", { text: "No melds on the table." })]);
    const list = h("ol.replay-actions", { start: "1" }, this.steps.slice(1).map((st, i) =>
      h("li" + (i + 1 === this.at ? ".current" : ""), { text: `hand ${st.hand}: ${st.text}`, onclick: () => this.go(i + 1) })));
    const parts = [
      h("h2", { text: `Replay of table ${this.id}` }),
      h("p.muted", { text: `${this.record.rules.preset} rules · ${this.record.players.join(", ")} · ${this.record.actions.length} actions` }),
      controls,
      h("div#replay-step.replay-step", { text: `Hand ${s.hand}: ${s.text}` }),
      h("div.center", {}, h("span", { text: "discard top: " }), s.top ? cardElement(s.top) : h("span", { text: "-" })),
      players, melds,
    ];
    const panel = h("section.panel.replay", {}, ...parts);
    const out = [panel];
    if (this.final) out.push(this.scoreSheet(this.final));
    out.push(h("section.panel", {}, h("h3", { text: "Every action" }), list));
    const y = window.scrollY;
    this.root.replaceChildren(...out);
    window.scrollTo(0, y);
    // keep the current action in view inside the list, without scrolling the page
    const box = this.root.querySelector(".replay-actions");
    const cur = box && box.querySelector(".current");
    if (cur) box.scrollTop = cur.offsetTop - box.clientHeight / 2;
  }

  scoreSheet(v) {
    return h("section#replay-scores.panel", {}, h("h3", { text: "Final scores" }),
      h("table.scores", {},
        h("thead", {}, h("tr", {}, h("th", { text: "Hand" }), v.players.map((p) => h("th", { text: p })))),
        h("tbody", {}, v.scores.map((row, k) => h("tr", {}, h("td", { text: String(k + 1) }), row.map((x) => h("td", { text: String(x) }))))),
        h("tfoot", {}, h("tr", {}, h("th", { text: "Total" }), v.totals.map((x, i) => h("th", { class: v.winners.includes(i) ? "winner" : "", text: String(x) }))))));
  }
}
