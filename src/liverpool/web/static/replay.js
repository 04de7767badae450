// The replay page of a finished game. The server replays the record with the engine and sends
// every step (GET /api/tables/{table}/replay, docs/web-protocol.md); this page only shows them:
// forwards, back, by hand, or on its own, cards in the page's one notation ("10♥"). A step's
// words are its events, each drawn from its own fields as the table's log draws them
// (events.js). Domain words: step (the deal of a hand or one action, with the table after it),
// hand end (the board a hand was scored on), score sheet.

import { cardElement, meldElement } from "./cards.js";
import { replayChat } from "./chat.js";
import { entriesNodes } from "./events.js";
import { api, errorText, h } from "./util.js";

export async function showReplay(root, tableId) {
  document.title = `Liverpool Rummy: replay ${tableId}`;
  root.replaceChildren(h("p.loading", { text: "Loading the replay…" }));
  let replay;
  try {
    replay = await api("GET", `/api/tables/${encodeURIComponent(tableId)}/replay`);
  } catch (e) {
    root.replaceChildren(h("section.panel", {}, h("h2", { text: `Replay of table ${tableId}` }),
      h("p.error", { text: e.status === 403 ? "This game is not over yet: its replay opens when it ends." : errorText(e) }),
      h("a.button", { href: `/t/${encodeURIComponent(tableId)}`, text: "Go to the table" })));
    return;
  }
  new ReplayView(root, tableId, replay).start();
}

class ReplayView {
  constructor(root, tableId, replay) {
    this.root = root;
    this.id = tableId;
    this.replay = replay;
    this.steps = replay.steps;
    this.at = 0;
    this.timer = null;
    this.lines = []; // each step's words in the list of every step, drawn once
  }

  /** A step's words: its events drawn (cards and melds from their fields), one after the
   * other; a step from a server that sent no events shows its line as it is. */
  words(step) {
    if (!Array.isArray(step.events)) return [String(step.event || "")];
    return entriesNodes(step.events, this.replay.players, null);
  }

  start() {
    this.render();
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight") this.go(this.at + 1);
      if (e.key === "ArrowLeft") this.go(this.at - 1);
      if (e.key === "PageDown") this.nextHand();
      if (e.key === "PageUp") this.prevHand();
    });
  }

  go(i) {
    this.at = Math.max(0, Math.min(this.steps.length - 1, i));
    this.render();
  }

  // by hand: to the next deal, or back to this hand's deal (from a deal: the one before)
  nextHand() {
    const k = this.steps.findIndex((s, i) => i > this.at && s.kind === "deal");
    this.go(k < 0 ? this.steps.length - 1 : k);
  }

  prevHand() {
    for (let i = this.at - 1; i >= 0; i--) if (this.steps[i].kind === "deal") return this.go(i);
    return this.go(0);
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
    const r = this.replay;
    const s = this.steps[this.at];
    const last = this.steps.length - 1;
    const name = (i) => r.players[i];
    const slider = h("input#replay-slider", { type: "range", min: "0", max: String(last), value: String(this.at), "aria-label": "step" });
    slider.addEventListener("input", () => this.go(Number(slider.value)));
    const button = (id, text, title, onclick, secondary = true) =>
      h(`button#${id}.small${secondary ? ".secondary" : ""}`, { type: "button", text, title, onclick });
    const controls = h("div.replay-controls", {},
      button("replay-first", "|◀", "first", () => this.go(0)),
      button("replay-prev-hand", "◀◀", "previous hand", () => this.prevHand()),
      button("replay-prev", "◀", "previous", () => this.go(this.at - 1)),
      button("replay-play", this.timer ? "Pause" : "Play", "play", () => this.play(), false),
      button("replay-next", "▶", "next", () => this.go(this.at + 1)),
      button("replay-next-hand", "▶▶", "next hand", () => this.nextHand()),
      button("replay-last", "▶|", "last", () => this.go(last)),
      slider, h("span#replay-pos", { text: `${this.at} / ${last}` }));
    const players = h("div.players", {}, r.players.map((p, i) => h("div.player" + (s.seat === i ? ".to-act" : ""), { dataset: { seat: String(i) } },
      h("div.pname", { text: p }),
      h("div.pstats", {},
        h("span.cards-count", { text: `${s.sizes[i]} card${s.sizes[i] === 1 ? "" : "s"}` }),
        h("span", { text: s.down[i] ? "down" : "not down" }),
        h("span", { text: `buys ${s.buys[i]}` }),
        h("span", { text: `score ${s.totals[i]}` }),
        s.points ? h("span.points", { text: `+${s.points[i]} this hand` }) : null),
      h("div.replay-hand", { dataset: { seat: String(i) } }, s.hands[i].map((c) => {
        const e = cardElement(c);
        e.classList.add("small");
        return e;
      })))));
    const owners = [...new Set(s.melds.map((m) => m.owner))].sort((a, b) => a - b);
    const melds = h("div#replay-melds.melds", {}, owners.length ? owners.map((o) => h("div.meld-owner", { dataset: { owner: String(o) } },
      h("div.owner-name", { text: `${name(o)}'s melds` }),
      s.melds.map((m, i) => m.owner !== o ? null : meldElement(m, i, null, r.players))))
      : [h("p.muted", { text: "No melds on the table." })]);
    const list = h("ol.replay-actions", { start: "0" }, this.steps.map((st, i) =>
      h("li" + (i === this.at ? ".current" : "") + (st.kind === "deal" ? ".deal" : ""), { onclick: () => this.go(i) }, this.lines[i] || (this.lines[i] = this.words(st)))));
    const panel = h("section.panel.replay", {},
      h("h2", { text: `Replay of table ${this.id}` }),
      h("p.muted", { text: `${r.rules.preset} rules · ${r.players.join(", ")} · ${r.actions} actions` },
        " · ", h("a#replay-review", { href: `/review/${encodeURIComponent(this.id)}`, text: "Review" })),
      controls,
      h("div#replay-step.replay-step", { dataset: { kind: s.kind, hand: String(s.hand) } }, `Hand ${s.hand}: `, this.words(s)),
      h("div.center", {},
        h("span", { text: "discard: " }), s.discard ? cardElement(s.discard) : h("span", { text: "-" }),
        h("span#replay-stock", { text: `stock: ${s.stock} card${s.stock === 1 ? "" : "s"}` })),
      players, melds);
    const y = window.scrollY;
    const chat = (r.chat || []).length ? replayChat(r.chat, this.at) : null; // each line at its step
    this.root.replaceChildren(panel, chat || "", this.scoreSheet(), h("section.panel", {}, h("h3", { text: "Every step" }), list));
    window.scrollTo(0, y);
    // keep the current step in view inside the list, without scrolling the page
    const box = this.root.querySelector(".replay-actions");
    const cur = box && box.querySelector(".current");
    if (cur) box.scrollTop = cur.offsetTop - box.clientHeight / 2;
  }

  scoreSheet() {
    const r = this.replay;
    return h("section#replay-scores.panel", {}, h("h3", { text: "Final scores" }),
      h("table.scores", {},
        h("thead", {}, h("tr", {}, h("th", { text: "Hand" }), r.players.map((p) => h("th", { text: p })))),
        h("tbody", {}, r.scores.map((row, k) => h("tr", {}, h("td", { text: String(k + 1) }), row.map((x) => h("td", { text: String(x) }))))),
        h("tfoot", {}, h("tr", {}, h("th", { text: "Total" }), r.totals.map((x, i) => h("th", { class: r.winners.includes(i) ? "winner" : "", text: String(x) }))))));
  }
}
