// The review page of a finished game (/review/{table}?seat=N): asks the server for the seat's
// review (POST /api/tables/{table}/review), shows its progress while the server's review
// processes weigh it, then what the server says of every decision: accuracy, mean loss, labels,
// by kind, a chart of the points given away over the game, the decisions with their badges, any
// decision's position (from the replay's steps) with the move played and the better one marked
// on the cards, and "Learn from your mistakes": each mistake or blunder as a position to answer
// before the verdict. The page judges nothing itself: every value, label and reason is the
// server's. Domain words: decision (one action of the seat, by its index in the record), label
// (inaccuracy ?!, mistake ?, blunder ??), loss (expected points given away against the best
// candidate), candidate (an action the server weighed at a decision), position (the table just
// before a decision: the step before the one after its action), puzzle (a labelled decision
// asked as a question).

import { cardElement, meldElement, richText } from "./cards.js";
import { actionLabel, api, errorText, h, savedSeat, sentence, svg } from "./util.js";

export const BADGES = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const LABEL_WORDS = { inaccuracy: "inaccuracy", mistake: "mistake", blunder: "blunder" };
const POLL_MS = 1000;
const enc = encodeURIComponent;
const points = (x) => `${Number(x).toFixed(1)} point${Number(x) === 1 ? "" : "s"}`;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/** The seat the address asks for, else this browser's seat at the table, else the first. */
function seatOf(tableId, text) {
  if (text !== null && /^\d{1,2}$/.test(text)) return Number(text);
  const mine = savedSeat(tableId);
  return mine && Number.isInteger(mine.seat) ? mine.seat : 0;
}

export async function showReview(root, tableId, seatText) {
  const seat = seatOf(tableId, seatText);
  document.title = `Liverpool Rummy: review of ${tableId}`;
  const bar = h("progress#review-progress", { max: "1", value: "0", "aria-label": "review progress" });
  const words = h("p#review-status", { role: "status", text: "Asking the server for the review…" });
  const head = h("h2", { text: `Review of table ${tableId}` });
  const panel = h("section#review-wait.panel.review-wait", {}, head, words, bar);
  root.replaceChildren(panel);
  const failed = (text, retry = false) => {
    words.textContent = text;
    words.className = "error";
    bar.remove();
    panel.append(h("div.review-links", {},
      retry ? h("button#review-retry", { type: "button", text: "Ask again", onclick: () => showReview(root, tableId, String(seat)) }) : null,
      h("a.button.secondary", { href: `/replay/${enc(tableId)}`, text: "Watch the replay" }),
      h("a.button.secondary", { href: `/t/${enc(tableId)}`, text: "Go to the table" })));
  };
  const path = `/api/tables/${enc(tableId)}/review`;
  let state;
  try {
    state = await api("POST", path, { seat });
  } catch (e) {
    if (e.status === 403) return failed("This game is not over yet: it can be reviewed once it ends.");
    if (e.code === "busy" || e.code === "rate_limited") return failed(sentence(e.message), true);
    return failed(errorText(e), e.status === 0);
  }
  let misses = 0;
  while (state.status === "queued" || state.status === "running") {
    const [done, total] = state.progress || [0, 0];
    if (state.status === "queued") {
      words.textContent = state.ahead ? `Waiting for the server: ${state.ahead} review${state.ahead === 1 ? "" : "s"} ahead of this one.` : "Waiting for the server to start the review…";
    } else {
      words.textContent = total ? `Weighing decision ${done} of ${total}…` : "Finding the decisions…";
    }
    bar.max = String(Math.max(1, total));
    bar.value = String(done);
    await sleep(POLL_MS);
    try {
      state = await api("GET", `${path}?seat=${seat}`);
      misses = 0;
    } catch (e) {
      if (++misses >= 5) return failed(errorText(e), true);
    }
  }
  if (state.status !== "done") return failed(sentence(state.message || "the review could not be made"), true);
  words.textContent = "Loading the game…";
  let replay;
  try {
    replay = await api("GET", `/api/tables/${enc(tableId)}/replay`);
  } catch (e) {
    return failed(errorText(e), true);
  }
  new ReviewView(root, tableId, seat, state.review, replay).render();
}

export class ReviewView {
  constructor(root, tableId, seat, review, replay) {
    this.root = root;
    this.id = tableId;
    this.seat = seat;
    this.review = review;
    this.mine = review.seats[0];
    this.replay = replay;
    this.players = replay.players;
    // each action's step: the deals are steps of their own, so an action's step is not its
    // index plus one past the first hand
    this.stepOf = [];
    replay.steps.forEach((s, i) => { if (s.kind !== "deal") this.stepOf.push(i); });
    this.at = null; // the decision shown (its index), or null
    this.onlyLabelled = false;
    this.learning = null; // {k: the puzzle asked, picked: the candidate chosen, right: how many}
  }

  /** The table just before the decision of the record's ``index``. */
  before(index) {
    const after = this.stepOf[index];
    return this.replay.steps[Math.max(0, (after === undefined ? 0 : after) - 1)];
  }

  /** What ``actionLabel`` needs of a view, from a replay step. */
  viewAt(step) {
    return { discard: step.discard ? [step.discard] : [], melds: step.melds, players: this.players, seat: this.seat, discarder: null };
  }

  words(action, step) {
    return actionLabel(action, this.viewAt(step), this.seat);
  }

  decisions() {
    return this.mine.decisions;
  }

  puzzles() {
    return this.decisions().filter((d) => d.label === "mistake" || d.label === "blunder");
  }

  render() {
    const y = window.scrollY;
    const chartBox = h("div#review-chart.chart-box.review-chart-box");
    this.root.replaceChildren(h("div.review-page", {},
      this.renderHead(), this.renderSummary(),
      h("section.panel", {}, h("h3", { text: "Points given away over the game" }), chartBox,
        h("p.muted.small-text", { text: "The line adds up the points each decision gave away against the best one the server found; a mark is a labelled decision: click it to see the position." })),
      this.renderPosition(), this.renderList(), this.renderLearn()));
    chartBox.replaceChildren(this.chart(chartBox.clientWidth || 360));
    window.scrollTo(0, y);
  }

  renderHead() {
    const name = this.mine.name;
    const r = this.replay;
    const seats = h("div#review-seats.review-seats", {}, h("span.muted", { text: "Review of: " }),
      this.players.map((p, i) => i === this.seat ? h("strong", { text: p }) :
        h("a", { href: `/review/${enc(this.id)}?seat=${i}`, text: p })));
    return h("section#review-head.panel", {},
      h("h2", { text: `Review: ${name}` }),
      h("p.muted", { text: `Table ${this.id} · ${(r.rules && r.rules.preset) || ""} rules · ${this.players.join(", ")} · each decision weighed in ${this.review.worlds} deals of the unseen cards` }),
      seats,
      h("div.review-links", {},
        h("a.button.secondary#review-replay", { href: `/replay/${enc(this.id)}`, text: "Watch the replay" }),
        h("a.button.secondary", { href: `/t/${enc(this.id)}`, text: "Go to the table" })));
  }

  renderSummary() {
    const s = this.mine;
    const labels = Object.keys(BADGES).map((l) => h(`span.review-count.${l}`, { dataset: { label: l } },
      h(`span.badge.review-badge.${l}`, { text: BADGES[l] }), ` ${s.labels[l] || 0} ${LABEL_WORDS[l]}${(s.labels[l] || 0) === 1 ? "" : "s"}`));
    const kinds = Object.entries(s.by_kind || {});
    return h("section#review-summary.panel", {},
      h("div.review-facts", {},
        h("div.review-fact", {}, h("strong#review-accuracy", { text: `${s.accuracy}` }), h("span.muted", { text: " accuracy (0–100)" })),
        h("div.review-fact", {}, h("strong#review-mean-loss", { text: `${s.mean_loss}` }), h("span.muted", { text: " points lost a decision" })),
        h("div.review-fact", {}, h("strong", { text: String(s.decisions.length) }), h("span.muted", { text: " decisions" }))),
      h("div#review-labels.review-labels", {}, labels),
      kinds.length ? h("div.scroll-x", {}, h("table#review-kinds.stats", {},
        h("thead", {}, h("tr", {}, h("th", { text: "Decisions about" }), h("th", { text: "How many" }), h("th", { text: "Points lost, mean" }), h("th", { text: "Accuracy" }))),
        h("tbody", {}, kinds.map(([k, v]) => h("tr", { dataset: { kind: k } },
          h("td", { text: k.replace("_", " ") }), h("td", { text: String(v.decisions) }), h("td", { text: String(v.mean_loss) }), h("td", { text: String(v.accuracy) })))))) : null);
  }

  /** The points given away, added up decision by decision, over the game's actions. */
  chart(width) {
    const W = Math.max(280, Math.round(width));
    const H = W < 480 ? 170 : 210;
    const pad = { l: 40, r: 12, t: 16, b: 26 };
    const n = Math.max(1, this.replay.actions);
    const ds = this.decisions();
    let sum = 0;
    const pts = ds.map((d) => { sum += d.loss; return [d.index, sum, d]; });
    const hi = Math.max(1, sum);
    const x = (i) => pad.l + (W - pad.l - pad.r) * (i / Math.max(1, n - 1));
    const y = (v) => pad.t + (H - pad.t - pad.b) * (1 - v / hi);
    let line = `M${x(0).toFixed(1)},${y(0).toFixed(1)}`;
    let prev = 0;
    for (const [i, v] of pts) {
      line += ` L${x(i).toFixed(1)},${y(prev).toFixed(1)} L${x(i).toFixed(1)},${y(v).toFixed(1)}`;
      prev = v;
    }
    line += ` L${x(n - 1).toFixed(1)},${y(prev).toFixed(1)}`;
    const chart = svg("svg", { id: "review-svg", class: "chart review-chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
      "aria-label": `points given away over the game: ${sum.toFixed(1)} in all` });
    // a hand's first action: a line and its number
    let hand = 0;
    this.replay.steps.forEach((s, k) => {
      if (s.kind !== "deal") return;
      hand = s.hand;
      const next = this.stepOf.findIndex((step) => step > k);
      if (next < 0) return;
      chart.append(svg("line", { class: "grid hand", x1: x(next), x2: x(next), y1: pad.t - 10, y2: H - pad.b }),
        svg("text", { class: "label", x: x(next) + 3, y: pad.t - 3, text: `hand ${hand}` }));
    });
    chart.append(
      svg("line", { class: "axis", x1: pad.l, x2: pad.l, y1: pad.t, y2: H - pad.b }),
      svg("line", { class: "axis", x1: pad.l, x2: W - pad.r, y1: H - pad.b, y2: H - pad.b }),
      svg("text", { class: "label", x: pad.l - 6, y: y(hi) + 4, "text-anchor": "end", text: String(Math.round(hi)) }),
      svg("text", { class: "label", x: pad.l - 6, y: y(0) + 4, "text-anchor": "end", text: "0" }),
      svg("text", { class: "label", x: W - pad.r, y: H - 8, "text-anchor": "end", text: `action ${n - 1}` }),
      svg("text", { class: "label", x: pad.l, y: H - 8, text: "action 0" }),
      svg("path", { class: "line", d: line }));
    for (const [i, v, d] of pts) {
      const cls = d.label ? `mark ${d.label}` : "tick";
      const dot = svg("circle", { class: cls + (d.index === this.at ? " on" : ""), cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: d.label ? 5.5 : 2.2,
        "data-index": String(d.index), tabindex: d.label ? "0" : null, role: d.label ? "button" : null,
        "aria-label": d.label ? `${LABEL_WORDS[d.label]} at action ${d.index}` : null,
        onclick: () => this.select(d.index),
        onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); this.select(d.index); } } },
      svg("title", { text: `action ${d.index}: ${points(d.loss)} lost${d.label ? ` (${LABEL_WORDS[d.label]})` : ""}` }));
      chart.append(dot);
    }
    return chart;
  }

  select(index) {
    this.at = index;
    this.render();
    const el = document.getElementById("review-position");
    if (el) el.scrollIntoView({ block: "nearest" });
  }

  badge(label) {
    return label ? h(`span.badge.review-badge.${label}`, { title: LABEL_WORDS[label], text: BADGES[label] }) : null;
  }

  renderList() {
    const ds = this.decisions().filter((d) => !this.onlyLabelled || d.label);
    const only = h("input#review-only", { type: "checkbox" });
    only.checked = this.onlyLabelled;
    only.addEventListener("change", () => { this.onlyLabelled = only.checked; this.render(); });
    return h("section.panel", {},
      h("h3", { text: "Every decision" }),
      h("label.check", {}, only, "Only inaccuracies, mistakes and blunders"),
      ds.length ? h("ol#review-decisions.review-decisions", {}, ds.map((d) => {
        const step = this.before(d.index);
        const better = !same(d.action, d.best);
        return h("li.decision" + (d.index === this.at ? ".current" : "") + (d.label ? "." + d.label : ""),
          { dataset: { index: String(d.index), label: d.label || "" } },
          h("button.decision-go.linkish", { type: "button", onclick: () => this.select(d.index) },
            h("span.d-where.muted", { text: `#${d.index} · hand ${d.hand} · ${d.kind.replace("_", " ")}` }),
            h("span.d-played", { text: this.words(d.action, step) }),
            better ? h("span.d-better", { text: `→ ${this.words(d.best, step)}` }) : null,
            h("span.d-loss", { text: d.loss > 0 ? `−${Number(d.loss).toFixed(1)}` : "0" }),
            this.badge(d.label)));
      })) : h("p.muted", { text: "No decision to show." }));
  }

  /** Cards of an action, and where they are: the hand's, or the discard pile's top. */
  static cards(action, step) {
    switch (action.type) {
      case "discard": case "lay_off": case "swap_joker": case "borrow":
        return { hand: action.card ? [action.card] : [], pile: false };
      case "go_down":
        return { hand: (action.melds || []).flat(), pile: false };
      case "take_discard": case "buy": case "call":
        return { hand: [], pile: Boolean(step.discard) };
      default:
        return { hand: [], pile: false };
    }
  }

  /** The hand with ``marks`` ([[cards, class]]): each card marked once, left to right. */
  handOf(cards, marks) {
    const left = marks.map(([codes, cls]) => [[...codes], cls]);
    return h("div#review-hand.review-hand", {}, cards.map((c) => {
      const e = cardElement(c);
      e.classList.add("small");
      for (const [codes, cls] of left) {
        const k = codes.indexOf(c);
        if (k >= 0) { codes.splice(k, 1); e.classList.add(cls); }
      }
      return e;
    }));
  }

  /** The table at a position: the top discard, the stock, the melds, the others' hands' sizes. */
  tableAt(step, pileMarks = []) {
    const pile = step.discard ? cardElement(step.discard) : h("span", { text: "—" });
    if (step.discard) pile.classList.add("small", ...pileMarks);
    const owners = [...new Set(step.melds.map((m) => m.owner))].sort((a, b) => a - b);
    return h("div.review-table", {},
      h("div.review-center", {}, h("span", { text: "Discard: " }), pile,
        h("span.muted", { text: [`stock: ${step.stock}`, ...this.players.map((p, i) => i === this.seat ? null : `${p}: ${step.sizes[i]} cards`)].filter(Boolean).join(" · ") })),
      h("div.melds.review-melds", {}, owners.length ? owners.map((o) => h("div.meld-owner", {},
        h("div.owner-name", { text: `${this.players[o]}'s melds` }),
        step.melds.map((m, i) => m.owner !== o ? null : meldElement(m, i, null, this.players, this.seat))))
        : h("p.muted", { text: "No melds on the table." })));
  }

  renderPosition() {
    if (this.at === null) return null;
    const ds = this.decisions();
    const k = ds.findIndex((d) => d.index === this.at);
    if (k < 0) return null;
    const d = ds[k];
    const step = this.before(d.index);
    const played = ReviewView.cards(d.action, step);
    const best = ReviewView.cards(d.best, step);
    const better = !same(d.action, d.best);
    const marks = [[played.hand, "played"]];
    if (better) marks.push([best.hand, "better"]);
    const pileMarks = [played.pile ? "played" : null, better && best.pile ? "better" : null].filter(Boolean);
    const nav = (to, id, text) => h(`button#${id}.small.secondary`, { type: "button", text, disabled: to < 0 || to >= ds.length, onclick: () => this.select(ds[to].index) });
    return h("section#review-position.panel.review-position", { dataset: { index: String(d.index) } },
      h("div.review-pos-head", {},
        h("h3", {}, `Decision #${d.index} · hand ${d.hand} · ${d.kind.replace("_", " ")} `, this.badge(d.label)),
        h("div.review-nav", {}, nav(k - 1, "review-prev", "◀ Previous"), nav(k + 1, "review-next", "Next ▶"),
          h("button.small.secondary", { type: "button", text: "Close", onclick: () => { this.at = null; this.render(); } }))),
      h("p.review-played", {}, h("span.key.played", { text: "Played" }), ` ${this.words(d.action, step)}`),
      better ? h("p.review-better", {}, h("span.key.better", { text: "Better" }), ` ${this.words(d.best, step)} (about ${points(d.loss)} better, ± ${Number(d.se).toFixed(1)})`) :
        h("p.review-better", { text: "The best move the server found." }),
      d.why ? h("p#review-why.review-why", {}, richText(d.why)) : null,
      this.tableAt(step, pileMarks),
      h("div.owner-name", { text: `${this.players[this.seat]}'s hand` }),
      this.handOf(step.hands[this.seat] || [], marks));
  }

  renderLearn() {
    const puzzles = this.puzzles();
    const intro = h("p.muted", { text: "Each mistake and blunder of this game as a position: choose what you would play, then see what the server thinks." });
    if (!puzzles.length) {
      return h("section#review-learn.panel", {}, h("h3", { text: "Learn from your mistakes" }),
        h("p.muted", { text: "No mistake or blunder in this game: nothing to practise." }));
    }
    const l = this.learning;
    if (l === null) {
      return h("section#review-learn.panel", {}, h("h3", { text: "Learn from your mistakes" }), intro,
        h("button#learn-start", { type: "button", text: `Start (${puzzles.length} position${puzzles.length === 1 ? "" : "s"})`,
          onclick: () => { this.learning = { k: 0, picked: null, right: 0 }; this.render(); } }));
    }
    if (l.k >= puzzles.length) {
      return h("section#review-learn.panel", {}, h("h3", { text: "Learn from your mistakes" }),
        h("p#learn-score", { text: `You found the best move in ${l.right} of ${puzzles.length} position${puzzles.length === 1 ? "" : "s"}.` }),
        h("button#learn-start", { type: "button", text: "Again", onclick: () => { this.learning = { k: 0, picked: null, right: 0 }; this.render(); } }));
    }
    const d = puzzles[l.k];
    const step = this.before(d.index);
    // the server lists the candidates best first: asked in the order of their words instead
    const choices = [...(d.candidates || [])].sort((a, b) => this.words(a.action, step).localeCompare(this.words(b.action, step)));
    const picked = l.picked;
    const buttons = h("div#learn-choices.learn-choices", {}, choices.map((c) => {
      const cls = picked === null ? "" : c.loss <= 0 ? ".best" : same(c.action, picked.action) ? ".wrong" : "";
      return h(`button.learn-choice.secondary${cls}`, { type: "button", disabled: picked !== null, "aria-pressed": picked !== null && same(c.action, picked.action) ? "true" : "false",
        dataset: { action: JSON.stringify(c.action) },
        text: this.words(c.action, step),
        onclick: () => {
          this.learning = { ...l, picked: c, right: l.right + (c.loss <= 0 ? 1 : 0) };
          this.render();
          const v = document.getElementById("learn-verdict");
          if (v) v.focus({ preventScroll: true });
        } });
    }));
    let verdict = null;
    if (picked !== null) {
      const mine = same(picked.action, d.action);
      const lines = [];
      if (picked.loss <= 0) {
        lines.push(h("p.learn-right", { text: `Right: ${this.words(picked.action, step)} is the best move here.` }));
        lines.push(h("p", { text: `In the game, ${this.words(d.action, step)} gave away about ${points(d.loss)}.` }));
      } else {
        lines.push(h("p.learn-wrong", { text: `Not the best: ${this.words(picked.action, step)} gives away about ${points(picked.loss)}.` }));
        lines.push(h("p", { text: `Better: ${this.words(d.best, step)}.` }));
        if (!mine) lines.push(h("p.muted", { text: `In the game: ${this.words(d.action, step)} (about ${points(d.loss)} given away).` }));
      }
      if (d.why) lines.push(h("p.review-why", {}, h("span", { text: "Why: " }), richText(d.why)));
      verdict = h("div#learn-verdict.learn-verdict", { tabindex: "-1", role: "status", dataset: { right: picked.loss <= 0 ? "yes" : "no" } }, lines,
        h("button#learn-next", { type: "button", text: l.k + 1 < puzzles.length ? "Next position" : "Finish",
          onclick: () => { this.learning = { k: l.k + 1, picked: null, right: this.learning.right }; this.render(); } }));
    }
    return h("section#review-learn.panel", { dataset: { index: String(d.index) } },
      h("h3", { text: "Learn from your mistakes" }),
      h("p.muted", { text: `Position ${l.k + 1} of ${puzzles.length} · hand ${d.hand} · ${d.kind.replace("_", " ")}` }),
      this.tableAt(step),
      h("div.owner-name", { text: `${this.players[this.seat]}'s hand` }),
      this.handOf(step.hands[this.seat] || [], []),
      h("p.learn-ask", { text: "What would you play?" }),
      buttons, verdict);
  }
}
