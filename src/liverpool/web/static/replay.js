// The replay page of a finished game: steps through its record (RULES.md section 6) action by
// action with a readable line for each, the melds on the table and every seat's card count as
// far as the record shows them, and the final score sheet (from the finished table's public
// view). Domain words: record, step, hand (one deal), meld, lay-off, swap, borrow.

import { cardElement, standsFor, parse, isWild, sortCards } from "./cards.js";
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

/** Every state the record passes through, public parts only (the deal is not in the record). */
export function buildSteps(record, rules) {
  const n = record.players.length;
  const deuces = !!rules.deuces_wild;
  const penalty = rules.penalty_cards ?? 1;
  const dealSizes = rules.deal_sizes || [10];
  const order = rules.hands || (rules.contracts || [{}]).map((_, i) => i + 1);
  const mode = rules.playable_discard || "none";
  let handIndex = 0;
  let dealer = record.first_dealer || 0;
  const dealSize = () => dealSizes[Math.min(order[Math.min(handIndex, order.length - 1)] || 1, dealSizes.length) - 1];
  let state = {
    hand: 1, sizes: Array(n).fill(dealSize()), down: Array(n).fill(false), buys: Array(n).fill(0),
    melds: [], top: null, text: "The cards are dealt.", actor: null,
  };
  let lastDiscarder = null;
  let windowOpen = false;
  const steps = [structuredClone(state)];
  const name = (s) => record.players[s];
  const meldText = (i) => state.melds[i] ? `${name(state.melds[i].owner)}'s ${state.melds[i].cards.join(" ")}` : `meld ${i}`;
  const addToMeld = (i, card, end) => {
    const m = state.melds[i];
    if (!m) return;
    if (m.kind === "set") { m.cards = sortCards([...m.cards, card], "suit", deuces); return; }
    const first = standsFor(m, deuces)[0] || m.cards[0];
    const lo = parse(first).rank;
    const low = end ? end === "low" : !isWild(card, deuces) && parse(card).rank === lo - 1;
    if (low) m.cards.unshift(card); else m.cards.push(card);
  };
  const removeCard = (cards, card) => {
    const k = cards.indexOf(card);
    if (k >= 0) cards.splice(k, 1);
  };
  const kindOf = (cards) => {
    const nats = cards.filter((c) => !isWild(c, deuces));
    const ranks = new Set(nats.map((c) => parse(c).rank));
    return ranks.size <= 1 && !(cards.length >= 4 && nats.length === 1) ? "set" : "run";
  };
  for (const a of record.actions) {
    const p = a.player;
    const who = name(p);
    let text = "";
    // a new hand starts with the seat left of the next dealer once someone went out
    if (state.sizes.some((k) => k === 0) && ["draw", "take_discard", "cut"].includes(a.type) &&
        p === (a.type === "cut" ? dealer : (dealer + 2) % n)) {
      handIndex += 1;
      dealer = (dealer + 1) % n;
      state = { ...state, hand: state.hand + 1, sizes: Array(n).fill(dealSize()), down: Array(n).fill(false), buys: Array(n).fill(0), melds: [], top: null };
      lastDiscarder = null;
    }
    switch (a.type) {
      case "draw": state.sizes[p] += 1; text = `${who} draws from the stock`; windowOpen = false; break;
      case "no_draw": text = `${who} lays off instead of drawing`; break;
      case "take_discard": state.sizes[p] += 1; text = `${who} takes ${state.top || "the discard"}`; state.top = null; break;
      case "buy": {
        const d = a.depth || 1;
        state.sizes[p] += d + penalty; state.buys[p] += 1;
        text = `${who} buys ${d > 1 ? d + " cards" : state.top || "the discard"} (+${penalty} penalty card${penalty === 1 ? "" : "s"})`;
        state.top = null;
        break;
      }
      case "pass": text = windowOpen ? `${who} does not call` : `${who} passes`; break;
      case "go_down":
        state.down[p] = true;
        for (const m of a.melds) {
          state.sizes[p] -= m.length;
          const kind = kindOf(m);
          state.melds.push({ owner: p, kind, cards: kind === "set" ? sortCards(m, "suit", deuces) : [...m] });
        }
        text = `${who} goes down: ` + a.melds.map((m) => m.join(" ")).join(" | ");
        break;
      case "lay_off":
        text = `${who} lays ${a.card} on ${meldText(a.meld)}`;
        state.sizes[p] -= 1;
        addToMeld(a.meld, a.card, a.end);
        break;
      case "swap_joker": {
        const m = state.melds[a.meld];
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
        const m = state.melds[a.meld];
        if (m) removeCard(m.cards, a.card);
        state.sizes[p] -= a.new_meld.length - 1;
        state.melds.push({ owner: p, kind: kindOf(a.new_meld), cards: [...a.new_meld] });
        text = `${who} borrows ${a.card} to lay ${a.new_meld.join(" ")}`;
        break;
      }
      case "discard":
        state.sizes[p] -= 1;
        text = `${who} discards ${a.card}` + (state.sizes[p] === 0 ? " and goes out" : "");
        state.top = a.card;
        lastDiscarder = p;
        windowOpen = true;
        break;
      case "call": {
        const top = state.top || "the discard";
        if (mode === "bonus" || (mode === "standard" && !state.down[lastDiscarder])) {
          state.sizes[p] += 1; state.top = null; text = `${who} calls Liverpool on ${top}`;
        } else if (mode === "take_back" || mode === "standard") {
          if (lastDiscarder !== null) state.sizes[lastDiscarder] += 1 + penalty;
          state.top = null; text = `${who} calls rummy: ${top} goes back`;
        } else if (mode === "give_cards") {
          if (a.meld !== undefined) addToMeld(a.meld, top, a.end);
          state.top = null; text = `${who} calls rummy: lays ${top}, everyone gives a card`;
        } else {
          text = `${who} calls RUMMY on ${top}`;
        }
        break;
      }
      case "give":
        state.sizes[p] -= 1;
        if (lastDiscarder !== null) state.sizes[lastDiscarder] += 1;
        text = `${who} gives ${a.card}`;
        break;
      case "cut": text = `${who} cuts the deck`; break;
      default: text = `${who}: ${a.type}`;
    }
    state.text = text;
    state.actor = p;
    steps.push(structuredClone(state));
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
    this.root.replaceChildren(...out);
    const cur = this.root.querySelector(".replay-actions .current");
    if (cur) cur.scrollIntoView({ block: "nearest" });
  }

  scoreSheet(v) {
    return h("section#replay-scores.panel", {}, h("h3", { text: "Final scores" }),
      h("table.scores", {},
        h("thead", {}, h("tr", {}, h("th", { text: "Hand" }), v.players.map((p) => h("th", { text: p })))),
        h("tbody", {}, v.scores.map((row, k) => h("tr", {}, h("td", { text: String(k + 1) }), row.map((x) => h("td", { text: String(x) }))))),
        h("tfoot", {}, h("tr", {}, h("th", { text: "Total" }), v.totals.map((x, i) => h("th", { class: v.winners.includes(i) ? "winner" : "", text: String(x) }))))));
  }
}
