// The table page: the join form, the waiting room (share link, host's start, removing a player
// or leaving), then the game itself over the websocket /ws/{table} (docs/web-protocol.md): hand,
// melds, stock and discard, buying ("May I?"), going down, laying off, swaps, borrows, calls,
// gives, hints, scores, log.
// Domain words: seat, token, join secret (a private table's "#join=..." in its share link),
// share link (the server's, with the secret; shown to everyone seated), version (the table's
// event counter), view (what this seat may know), legal (this seat's legal actions now), intent
// (asking to buy or call out of turn), deadline (a running turn or buy timer), go-down helper,
// lay-off, swap, borrow.

import {
  cardBack, cardElement, contractText, isWild, meldElement, meldOrder, sortCards,
} from "./cards.js";
import {
  PRIVATE_TABLE, absoluteUrl, actionLabel, api, copyText, errorText, forgetSecret, forgetSeat,
  getNickname, h, savedSecret, savedSeat, saveSecret, saveSeat, secretInHash, setNickname,
} from "./util.js";

let configPromise = null;
function loadConfig() {
  if (!configPromise) configPromise = api("GET", "/api/config").catch(() => ({ presets: {} }));
  return configPromise;
}

// the page's one table client (or null while the join form shows)
let current = null;

export async function showTable(root, tableId) {
  document.title = `Liverpool Rummy: table ${tableId}`;
  // a private table's link carries its join secret after "#join=": kept for this table
  saveSecret(tableId, secretInHash());
  window.addEventListener("hashchange", () => {
    // the link pasted into the address bar of this same page: no reload happens
    const secret = secretInHash();
    if (!secret || secret === savedSecret(tableId)) return;
    saveSecret(tableId, secret);
    // the private-table notice gives way to the join form (a form shown already reads the
    // secret when it is sent)
    if (!current && !root.querySelector("#join-form")) showJoin(root, tableId);
  });
  const saved = savedSeat(tableId);
  const watch = new URLSearchParams(location.search).has("watch");
  if (saved || watch) {
    openTable(root, tableId, saved ? saved.token : null);
    return;
  }
  showJoin(root, tableId);
}

function openTable(root, tableId, token) {
  current = new TableClient(root, tableId, token);
  current.start();
}

/** The join form (with ``notice``: why it shows again, say after the host removed us). */
async function showJoin(root, tableId, notice = "") {
  current = null;
  root.replaceChildren(h("p.loading", { text: "Loading…" }));
  let summary;
  try {
    summary = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
  } catch (e) {
    root.replaceChildren(h("section.panel", {}, h("h2", { text: "Table " + tableId }),
      h("p.error", { role: "alert", text: e.status === 404 ? "There is no such table." : errorText(e) }),
      h("a.button", { href: "/", text: "Back to the lobby" })));
    return;
  }
  const secret = savedSecret(tableId);
  const limits = ((await loadConfig()).limits) || {};
  const nickname = h("input#join-nickname", { type: "text", maxlength: String(limits.nickname_max || 24), value: getNickname(), placeholder: "your name", autocomplete: "nickname" });
  const msg = h("p#join-error.error", { role: "alert" });
  let form = null; // the join form, once drawn
  const join = async (ev) => {
    ev.preventDefault();
    const name = nickname.value.trim();
    if (!name) { msg.textContent = "Choose a nickname."; return; }
    setNickname(name);
    const body = { nickname: name };
    const known = secretInHash() || savedSecret(tableId);
    if (known) body.secret = known;
    try {
      const res = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/join`, body);
      saveSeat(tableId, res.seat, res.token);
      openTable(root, tableId, res.token);
    } catch (e) {
      if (e.code === "bad_secret") {
        forgetSecret(tableId); // a wrong (or old) secret is no use
        msg.textContent = PRIVATE_TABLE;
      } else if (e.code === "expired") {
        msg.textContent = errorText(e);
        for (const el of form.querySelectorAll("label, button")) el.hidden = true; // no join now
      } else {
        msg.textContent = e.status === 409 ? "No seat is free at this table (or the game has started): you can watch." : errorText(e);
      }
    }
  };
  const watch = () => openTable(root, tableId, null);
  const seats = h("ul.seat-list", {}, summary.seats.map((s) =>
    h("li", { text: `Seat ${s.seat + 1}: ` + (s.kind === "bot" ? `computer (${s.level})` : (s.name || "free")) })));
  let body;
  if (summary.status === "expired") {
    body = h("p#join-closed.notice.error", { role: "alert", text: "This table has expired: it was not started in time." });
  } else if (summary.status !== "open") {
    body = h("p#join-closed", { text: summary.status === "over" ? "The game is over." : "The game has started." });
  } else if (summary.public === false && !secret) {
    // a private table and no secret: joining would be refused, so no form
    body = h("p#join-private.notice.error", { role: "alert", text: PRIVATE_TABLE });
  } else {
    form = h("form#join-form", { onsubmit: join },
      h("label", {}, "Nickname", nickname), msg,
      h("button#join", { type: "submit", text: "Join the table" }));
    body = form;
  }
  root.replaceChildren(h("section.panel.join", {},
    h("h2", { text: `Table ${tableId}` }),
    notice ? h("p#join-notice.notice.error", { role: "alert", text: notice }) : null,
    h("p", { text: `Rules: ${summary.rules} · ${summary.status}` + (summary.public === false ? " · private" : "") }), seats,
    body,
    summary.status === "expired" ? null : h("button#watch.secondary", { type: "button", onclick: watch, text: "Watch" })));
}

/** A button playing one action; data-act holds the action as JSON with sorted keys. */
function actionButton(a, view, cls, onclick) {
  return h("button" + cls, { type: "button", text: actionLabel(a, view), onclick,
    dataset: { action: a.type, act: JSON.stringify(a, Object.keys(a).sort()) } });
}

const PHASE_WAIT = {
  draw: (n) => `${n} to draw`, buy: (n) => `buy round (${n})`,
  play: (n) => `${n} is playing`, call: (n) => `call window: ${n}`,
  bonus: (n) => `${n} plays the called card`, give: (n, to) => `${n} to give ${to} a card`,
  cut: (n) => `${n} to cut the deck`,
};

class TableClient {
  constructor(root, tableId, token) {
    this.root = root;
    this.id = tableId;
    this.token = token;
    this.seat = null;
    this.version = -1;
    this.table = null;
    this.view = null;
    this.legal = [];
    this.intents = [];
    this.deadline = null; // {seat, kind, end: ms timestamp}
    this.requests = { buy: [], call: [] };
    this.asking = { buy: false, call: false };
    this.log = [];
    this.handOrder = [];
    this.newCards = new Set();
    this.sortMode = localStorage.getItem("liverpool:sort") || "suit";
    this.selected = new Set();
    this.editing = null; // go-down editor: [[codes]...]
    this.borrowing = null; // {meld, card}
    this.choice = null; // several actions for one click: [actions]
    this.notice = null; // {kind: "error"|"hint"|"info", text}
    this.hintAction = null;
    this.ws = null;
    this.retry = 0;
    this.closed = false;
    this.dragging = null;
    this.pendingRender = false;
    this.wilds = new Set(["JK"]);
    this.rules = {};
    this.awaitingSync = false;
    this.shareLink = null; // the server's share link (with the join secret), made whole
    this.shareKnown = false; // the welcome said (a spectator's says null)
  }

  async start() {
    this.config = await loadConfig();
    try {
      const saved = JSON.parse(localStorage.getItem(`liverpool:${this.id}:order`) || "null");
      if (saved && Array.isArray(saved.order)) {
        this.handOrder = saved.order;
        this.sortMode = saved.mode || this.sortMode;
      }
    } catch (e) { this.handOrder = []; }
    this.root.replaceChildren(h("p.loading", { text: "Connecting…" }));
    this.connect();
    this.tick = setInterval(() => this.updateClocks(), 250);
    window.addEventListener("pagehide", () => { this.closed = true; if (this.ws) this.ws.close(); });
  }

  /** Stop for good: this page no longer sits at the table (removed, left). */
  stop() {
    this.closed = true;
    clearInterval(this.tick);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
    if (current === this) current = null;
    this.setConn("closed");
  }

  /** The host removed us, or we left: the seat token is void; the join form shows again. */
  unseat(text) {
    if (this.closed) return;
    this.stop();
    forgetSeat(this.id);
    localStorage.removeItem(`liverpool:${this.id}:order`);
    showJoin(this.root, this.id, text);
  }

  /** The link to invite someone: the server's (a private table's carries its secret). */
  link() {
    if (this.shareLink) return this.shareLink;
    // an older server's welcome names no link; a public table's address needs no secret
    if (!this.shareKnown || (this.table && this.table.public)) {
      return new URL(`/t/${encodeURIComponent(this.id)}`, location.href).href;
    }
    return null;
  }

  // ---- connection --------------------------------------------------------------------------

  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(this.id)}`);
    this.ws = ws;
    this.setConn("connecting");
    ws.onopen = () => {
      this.retry = 0;
      this.setConn("online");
      this.send({ type: "hello", token: this.token, version: this.version });
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 20000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      this.receive(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pinger);
      if (this.ws !== ws || this.closed) return;
      if (ev.code === 4001) { // removed from the table (the error message may come first)
        this.unseat("You were removed from this table.");
        return;
      }
      if (ev.code === 4410) { // the table expired (nobody started it in time)
        this.stop();
        if (this.table) {
          this.table = { ...this.table, status: "expired" };
          this.view = null;
          this.render();
        } else {
          showJoin(this.root, this.id);
        }
        return;
      }
      if (ev.code === 4404 || ev.code === 4403) {
        this.stop();
        this.root.replaceChildren(h("section.panel", {}, h("h2", { text: "Table " + this.id }),
          h("p.error", { role: "alert", text: ev.code === 4404 ? "There is no such table." :
            "The server refused this page's address (bad_origin): open the game at the address the host gave." }),
          h("a.button", { href: "/", text: "Back to the lobby" })));
        return;
      }
      this.setConn("offline");
      let wait = Math.min(2000, 500 * 2 ** this.retry++);
      if (ev.code === 4429) {
        // too many connections from this address: say so and try again more slowly
        this.notice = { kind: "error", text: "Too many connections from this address: reconnecting in a few seconds…" };
        this.render();
        wait = 5000;
      }
      // back off up to 2 s: a restarting server is back within seconds, and the seat is
      // covered by a bot after the server's grace period (15 s)
      setTimeout(() => { if (!this.closed) this.connect(); }, wait);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  setConn(state) {
    const el = document.getElementById("conn");
    if (!el) return;
    el.dataset.state = state;
    el.textContent = { online: "connected", offline: "reconnecting…", connecting: "connecting…", closed: "" }[state];
  }

  act(action) {
    this.notice = null;
    this.choice = null;
    if (!this.send({ type: "action", version: this.version, action })) {
      this.notice = { kind: "error", text: "Not connected: the move was not sent; reconnecting…" };
    }
    this.render();
  }

  receive(msg) {
    if (typeof msg.version === "number") this.version = msg.version;
    switch (msg.type) {
      case "welcome":
        if (this.closed) return;
        this.seat = msg.seat;
        this.setTable(msg.table);
        if ("share_url" in msg) {
          this.shareKnown = true;
          this.shareLink = absoluteUrl(msg.share_url);
        }
        if (msg.join_secret) saveSecret(this.id, msg.join_secret);
        if (this.token && msg.seat === null) {
          // the server no longer knows our token (the seat was freed): join again, or watch
          forgetSeat(this.id);
          this.token = null;
          if (msg.table && msg.table.status === "open") {
            this.unseat("This browser's seat at the table is no longer valid: join again.");
            return;
          }
        }
        break;
      case "sync":
        this.setTable(msg.table);
        this.log = (msg.log || []).slice();
        if (msg.view) this.setState(msg);
        else this.view = null; // a table not started yet
        break;
      case "update":
        if (msg.event && msg.event.text) this.log.push(msg.event.text);
        if (msg.event) this.afterEvent(msg.event);
        if (msg.view) this.setState(msg);
        break;
      case "lobby":
        this.setTable(msg.table);
        if (msg.table && msg.table.status !== "open" && !this.view) this.askSync();
        break;
      case "requests":
        this.requests = { buy: msg.buy || [], call: msg.call || [] };
        if (this.seat !== null) {
          this.asking.buy = this.requests.buy.includes(this.seat);
          this.asking.call = this.requests.call.includes(this.seat);
        }
        // what this seat may ask for now and the clock that runs: the server says when a
        // window closes (an intent already announced stands, so asking is left as it is)
        if (msg.intents) this.intents = msg.intents;
        if (msg.deadline !== undefined) this.setDeadline(msg.deadline);
        break;
      case "hint":
        this.hintAction = msg.action;
        this.notice = { kind: "hint", text: `Hint: ${actionLabel(msg.action, this.view)}` + (msg.reason ? ` (${msg.reason})` : "") };
        break;
      case "error":
        this.onError(msg);
        if (this.closed) return;
        break;
      case "notice":
        // something the table should know that is not a move (a bot failed and was replaced)
        if (msg.text) this.log.push(msg.text);
        break;
      case "pong":
        return;
      default:
        return;
    }
    this.render();
  }

  askSync() {
    // the game started (or we missed it): ask for the whole state once the lobby event is in
    if (this.awaitingSync) return;
    this.awaitingSync = true;
    setTimeout(() => {
      this.awaitingSync = false;
      if (!this.view) this.send({ type: "hello", token: this.token, version: -1 });
    }, 400);
  }

  onError(msg) {
    const text = msg.message || msg.code;
    if (msg.code === "removed") {
      this.unseat(this.leaving ? "You left the table." : errorText(msg));
      return;
    }
    if (msg.code === "rate_limited") {
      // the message was ignored; the page goes on
      this.notice = { kind: "error", text: "Too many messages: slow down a little (the last one was ignored)." };
      return;
    }
    if (msg.code === "bad_token") {
      forgetSeat(this.id);
      this.token = null;
      this.notice = { kind: "error", text: "This browser's seat token was refused; you are watching. " + text };
      return;
    }
    if (msg.code === "stale_version") {
      // we missed something: catch up, then the player can try again
      this.send({ type: "hello", token: this.token, version: this.version });
      this.notice = { kind: "error", text: "The table moved on before your move arrived; try again." };
      return;
    }
    this.notice = { kind: "error", text: msg.code === "illegal" ? `Not allowed: ${text}` : text };
  }

  setTable(summary) {
    if (!summary) return;
    this.table = summary;
    const preset = (this.config.presets || {})[summary.rules] || {};
    // the server says what the table's rules are and which cards are wild
    this.rules = summary.knobs || { ...preset, ...(summary.overrides || {}) };
    this.wilds = new Set(summary.wild_cards || ["JK"]);
  }

  afterEvent(ev) {
    const t = ev.action && ev.action.type;
    if (["discard", "take_discard", "draw", "no_draw", "buy"].includes(t)) {
      this.requests = { buy: [], call: [] };
      this.asking = { buy: false, call: false };
    }
  }

  setState(msg) {
    const before = this.view;
    this.view = msg.view;
    this.legal = msg.legal || [];
    this.intents = msg.intents || [];
    this.setDeadline(msg.deadline);
    if (!this.intents.includes("buy")) this.asking.buy = false;
    if (!this.intents.includes("call")) this.asking.call = false;
    this.reconcileHand(msg.view.hand, before);
    if (!this.legal.some((a) => a.type === "go_down")) this.editing = null;
    if (!this.legal.some((a) => a.type === "borrow")) this.borrowing = null;
    this.choice = null;
    this.hintAction = null;
    if (this.notice && this.notice.kind === "hint") this.notice = null;
  }

  reconcileHand(hand, before) {
    const pool = new Map();
    for (const c of hand) pool.set(c, (pool.get(c) || 0) + 1);
    const kept = [];
    for (const c of this.handOrder) {
      if (pool.get(c) > 0) { kept.push(c); pool.set(c, pool.get(c) - 1); }
    }
    const added = [];
    for (const c of hand) {
      if (pool.get(c) > 0) { added.push(c); pool.set(c, pool.get(c) - 1); }
    }
    const changed = added.length > 0 || kept.length !== this.handOrder.length;
    this.handOrder = this.sortMode === "manual" ? [...kept, ...added]
      : sortCards([...kept, ...added], this.sortMode, this.wilds);
    // highlight what just arrived (not the whole first deal)
    this.newCards = new Set(before && before.hand.length ? added : []);
    if (changed) this.selected.clear();
    this.saveOrder();
  }

  saveOrder() {
    // the player's own order (and sort mode) survives a reload
    localStorage.setItem(`liverpool:${this.id}:order`, JSON.stringify({ mode: this.sortMode, order: this.handOrder }));
  }

  // ---- helpers -----------------------------------------------------------------------------

  name(seat) {
    if (this.view) return this.view.players[seat];
    const s = this.table && this.table.seats[seat];
    return (s && s.name) || `Seat ${seat + 1}`;
  }

  legalOf(...types) {
    return this.legal.filter((a) => types.includes(a.type));
  }

  selectedCards() {
    return [...this.selected].sort((a, b) => a - b).map((i) => this.handOrder[i]);
  }

  myTurnPlay() {
    return this.view && this.seat !== null && ["play", "bonus"].includes(this.view.phase) &&
      this.view.to_act.includes(this.seat);
  }

  // ---- rendering ---------------------------------------------------------------------------

  render() {
    if (this.dragging) { this.pendingRender = true; return; }
    const t = this.table;
    if (!t) return;
    // data-* mirror the client's state for scripts and tests driving the page
    const page = h("div.table-page", { dataset: {
      phase: this.view ? this.view.phase : t.status, version: String(this.version),
      seat: this.seat === null ? "" : String(this.seat), legal: [...new Set(this.legal.map((a) => a.type))].join(" "),
      intents: this.intents.join(" "),
    } });
    page.append(this.renderInfo());
    if (!this.view) {
      page.append(this.renderWaiting());
    } else {
      page.append(this.renderPlayers(), this.renderCenter(), this.renderMelds(),
        this.renderPrompt(), this.renderGoDown(), this.renderHand(), this.renderScores(false),
        this.renderLog());
    }
    const scrollY = window.scrollY;
    this.root.replaceChildren(page);
    window.scrollTo(0, scrollY);
    const log = this.root.querySelector(".log-lines");
    if (log) log.scrollTop = log.scrollHeight;
    this.updateClocks();
  }

  renderInfo() {
    const t = this.table;
    const v = this.view;
    const bits = [h("span.tid", { text: `Table ${t.id}` }), h("span", { text: t.rules })];
    if (v) {
      const total = (this.rules.hands && this.rules.hands.length) || (this.rules.contracts || []).length;
      bits.push(h("span#hand-number", { text: `Hand ${v.hand_number}` + (total && this.rules.progression !== "own" ? ` of ${total}` : "") }));
      const c = v.contract[this.seat ?? 0];
      bits.push(h("span#contract.contract", { text: `Contract: ${contractText(c)}` }));
    }
    if (this.seat === null) bits.push(h("span.badge", { text: "watching" }));
    const url = this.link();
    const share = url ? h("button#share.small", { type: "button", text: "Copy link", dataset: { link: url }, onclick: async (e) => {
      const ok = await copyText(url);
      e.target.textContent = ok ? "Link copied" : url;
    } }) : null;
    const scores = v ? h("button#scores-button.small", { type: "button", text: "Scores", onclick: () => {
      const d = this.root.querySelector("#score-dialog");
      if (d) d.open ? d.close() : d.showModal();
    } }) : null;
    return h("div.info-bar", {}, ...bits, h("span.spacer"), share, scores);
  }

  renderWaiting() {
    const t = this.table;
    const url = this.link();
    const open = t.status === "open";
    const host = open && this.seat === 0 && !!this.token;
    const msg = h("p#waiting-error.error", { role: "alert", text: this.waitingError || "" });
    const fail = (e) => { this.waitingError = errorText(e); msg.textContent = this.waitingError; };
    // the host removes a player (before the start); a seated player may leave
    const remove = (seat, label, cls) => h("button.small.secondary" + cls, { type: "button", text: label, dataset: { seat: String(seat) }, onclick: async (ev) => {
      ev.target.disabled = true;
      this.waitingError = "";
      if (seat === this.seat) this.leaving = true;
      try {
        const summary = await api("POST", `/api/tables/${encodeURIComponent(t.id)}/remove`, { token: this.token, seat });
        if (seat === this.seat) { this.unseat("You left the table."); return; }
        if (summary && summary.seats) { this.setTable(summary); this.render(); }
      } catch (e) {
        this.leaving = false;
        ev.target.disabled = false;
        fail(e);
      }
    } });
    const seats = h("ul#seats.seat-list", {}, t.seats.map((s) => h("li", {
      class: s.kind === "human" && !s.name ? "free" : "", dataset: { seat: String(s.seat) },
    }, `Seat ${s.seat + 1}: `, s.kind === "bot" ? `computer (${s.level})` : (s.name || "waiting for a friend…"),
    s.seat === this.seat ? h("span.badge", { text: "you" }) : null,
    s.kind === "human" && s.name ? h("span.dot" + (s.connected ? ".on" : ""), { title: s.connected ? "connected" : "not connected" }) : null,
    host && s.kind === "human" && s.name && s.seat !== 0 ? remove(s.seat, "Remove", ".remove") : null)));
    const parts = [h("h2", { text: t.status === "expired" ? "This table has expired" : "Waiting to start" })];
    if (t.status === "expired") {
      parts.push(h("p#expired.notice.error", { role: "alert", text: "It was not started in time: nobody can join or start it now. Create a new table in the lobby." }),
        h("a.button", { href: "/", text: "Back to the lobby" }));
    } else if (url) {
      const input = h("input#share-url", { type: "text", readonly: true, value: url, "aria-label": "share link" });
      const copy = h("button#copy-link", { type: "button", text: "Copy", onclick: async () => {
        copy.textContent = (await copyText(url, input)) ? "Copied" : "Select and copy";
      } });
      parts.push(h("p", { text: t.public === false ?
        "This table is private: send this link to your friends (it holds the key to join); a nickname is all they need." :
        "Send this link to your friends; a nickname is all they need." }),
      h("div.share", {}, input, copy));
    } else {
      parts.push(h("p.muted", { text: "This table is private: the players at the table have its link." }));
    }
    parts.push(seats);
    if (this.notice) parts.push(h(`div#notice.notice.${this.notice.kind}`, { role: "status", text: this.notice.text }));
    if (host) {
      parts.push(h("p.muted", { text: "Seats nobody takes are played by the computer (basic)." }),
        msg, h("button#start", { type: "button", text: "Start the game", onclick: async () => {
          this.waitingError = "";
          try {
            await api("POST", `/api/tables/${encodeURIComponent(t.id)}/start`, { token: this.token });
            this.askSync();
          } catch (e) { fail(e); }
        } }));
    } else if (open) {
      parts.push(h("p.muted", { text: "The host starts the game." }));
      if (this.seat !== null && this.token) parts.push(msg, remove(this.seat, "Leave table", "#leave-table"));
    } else if (t.status !== "expired") {
      parts.push(h("p.muted", { text: "Loading the game…" }));
    }
    return h("section.panel.waiting", {}, ...parts);
  }

  renderPlayers() {
    const v = this.view;
    const seats = (this.table && this.table.seats) || [];
    return h("div#players.players", {}, v.players.map((name, i) => {
      const s = seats[i] || {};
      const box = h("div.player", { dataset: { seat: String(i) } });
      if (v.to_act.includes(i)) box.classList.add("to-act");
      if (i === this.seat) box.classList.add("me");
      if (v.down[i]) box.classList.add("down");
      if (v.hand_sizes[i] === 1) box.classList.add("one-card");
      const flags = [];
      if (i === v.dealer) flags.push(h("span.badge", { title: "dealer", text: "D" }));
      if (s.kind === "bot") flags.push(h("span.badge.bot", { text: s.level || "bot" }));
      if (s.covered) flags.push(h("span.badge.warn", { text: "bot covering" }));
      else if (s.kind === "human" && !s.connected && i !== this.seat) flags.push(h("span.badge.off", { text: "away" }));
      if (v.out[i]) flags.push(h("span.badge", { text: "out" }));
      if (v.floating[i]) flags.push(h("span.badge", { text: "floating" }));
      box.append(...[
        h("div.pname", {}, h("span.nm", { text: name + (i === this.seat ? " (you)" : "") }), ...flags),
        h("div.pstats", {},
          h("span.cards-count", { text: `${v.hand_sizes[i]} card${v.hand_sizes[i] === 1 ? "" : "s"}` }),
          h("span.down-flag", { text: v.down[i] ? "down" : "not down" }),
          h("span.buys", { text: `buys ${v.buys[i]}${this.rules.max_buys ? "/" + this.rules.max_buys : ""}` }),
          h("span.total", { text: `${v.totals[i]} pts` }),
          // points already settled this hand: a cut bonus (negative) or rummy points owed
          v.penalties && v.penalties[i] ? h("span.penalty", { text: `${v.penalties[i] > 0 ? "+" : ""}${v.penalties[i]} this hand` }) : null),
        v.known[i] && v.known[i].length && i !== this.seat ? h("div.known", { text: "holds " + v.known[i].join(" ") }) : null,
        h("div.clock", { dataset: { clockSeat: String(i) } })].filter(Boolean));
      return box;
    }));
  }

  renderCenter() {
    const v = this.view;
    const stock = cardBack(String(v.stock_size));
    stock.id = "stock";
    stock.title = `stock: ${v.stock_size} cards`;
    const draw = this.legal.find((a) => a.type === "draw");
    if (draw) {
      stock.classList.add("clickable");
      stock.addEventListener("click", () => this.act(draw));
    }
    const top = v.discard.length ? v.discard[v.discard.length - 1] : null;
    const pile = top ? cardElement(top) : h("div.card.empty", { text: "empty" });
    pile.id = "discard-top";
    const take = this.legal.find((a) => a.type === "take_discard");
    if (take) {
      pile.classList.add("clickable");
      pile.addEventListener("click", () => this.act(take));
    } else if (this.myTurnPlay() && this.selected.size === 1) {
      pile.classList.add("clickable");
      pile.addEventListener("click", () => this.discardSelected());
    }
    if (this.hintAction && this.hintAction.type === "draw") stock.classList.add("hinted");
    if (this.hintAction && this.hintAction.type === "take_discard") pile.classList.add("hinted");
    const parts = [
      h("div.pile", {}, stock, h("span.label", { text: "stock" })),
      h("div.pile", {}, pile, h("span.label", { text: `discard (${v.discard.length})${v.fresh ? "" : " · not fresh"}` })),
    ];
    const side = h("div.buying");
    if (this.intents.includes("buy") || this.asking.buy) {
      const b = h("button#may-i.buy" + (this.asking.buy ? ".on" : ""), { type: "button",
        text: this.asking.buy ? `Asking to buy ${top} (cancel)` : `May I? (buy ${top})`,
        onclick: () => {
          this.asking.buy = !this.asking.buy;
          this.send({ type: "intent", kind: "buy", on: this.asking.buy });
          this.render();
        } });
      side.append(b);
    }
    if (this.intents.includes("call") || this.asking.call) {
      side.append(h("button#call-intent.buy" + (this.asking.call ? ".on" : ""), { type: "button",
        text: this.asking.call ? `Calling ${top} (cancel)` : `Call ${top}!`,
        onclick: () => {
          this.asking.call = !this.asking.call;
          this.send({ type: "intent", kind: "call", on: this.asking.call });
          this.render();
        } }));
    }
    if (this.deadline && this.deadline.kind === "buy") side.append(h("span#buy-clock.clock", { dataset: { clockBuy: "1" } }));
    const asked = [];
    if (this.requests.buy.length) asked.push(h("div#buy-requests.requests", { text: "May I? " + this.requests.buy.map((s) => this.name(s)).join(", ") }));
    if (this.requests.call.length) asked.push(h("div.requests", { text: "Calling: " + this.requests.call.map((s) => this.name(s)).join(", ") }));
    side.append(...asked);
    const warnings = v.hand_sizes.map((n, i) => (n === 1 && !v.out[i] && v.phase !== "over") ? i : -1).filter((i) => i >= 0);
    const warn = warnings.length ? h("div#one-card.warning", { role: "status", text: "⚠ " + warnings.map((i) => i === this.seat ? "You have" : `${this.name(i)} has`).join(", ") + " one card left" }) : null;
    return h("div.center", {}, ...parts, side, warn);
  }

  renderMelds() {
    const v = this.view;
    const wrap = h("div#melds.melds");
    if (!v.melds.length) {
      wrap.append(h("p.muted", { text: "No melds on the table yet." }));
      return wrap;
    }
    const owners = [];
    v.melds.forEach((m, i) => { if (!owners.includes(m.owner)) owners.push(m.owner); });
    owners.sort((a, b) => a - b);
    const selOne = this.myTurnPlay() && this.selected.size === 1;
    const canBorrow = this.legal.some((a) => a.type === "borrow");
    for (const owner of owners) {
      const group = h("div.meld-owner", { dataset: { owner: String(owner) } },
        h("div.owner-name", { text: owner === this.seat ? "Your melds" : `${this.name(owner)}'s melds` }));
      v.melds.forEach((m, i) => {
        if (m.owner !== owner) return;
        // the wilds' tags come from the server's stands_for
        const el = meldElement(m, i, (ce, c) => {
          if (canBorrow && !selOne && this.myTurnPlay()) {
            ce.classList.add("clickable");
            ce.addEventListener("click", (e) => { e.stopPropagation(); this.startBorrow(i, c); });
          }
          if (this.borrowing && this.borrowing.meld === i && this.borrowing.card === c) ce.classList.add("selected");
        });
        el.title = `meld ${i}: ${m.kind}`;
        if (this.hintAction && this.hintAction.meld === i) el.classList.add("hinted");
        if (selOne) {
          el.classList.add("target");
          el.addEventListener("click", () => this.playOnMeld(i));
        }
        group.append(el);
      });
      wrap.append(group);
    }
    return wrap;
  }

  renderPrompt() {
    const v = this.view;
    const box = h("div#prompt.prompt");
    const status = h("div#status.status");
    const buttons = h("div.actions");
    const mine = this.seat !== null && v.to_act.includes(this.seat) && this.legal.length;
    if (v.phase === "over") {
      const w = v.winners.map((s) => this.name(s)).join(" and ");
      status.textContent = `Game over: ${w} win${v.winners.length === 1 ? "s" : ""}.`;
      buttons.append(h("a.button#replay-link", { href: `/replay/${encodeURIComponent(this.id)}`, text: "Watch the replay" }),
        h("a.button.secondary", { href: "/", text: "Back to the lobby" }));
    } else if (!mine) {
      const names = v.to_act.map((s) => s === this.seat ? "you" : this.name(s)).join(", ");
      // a give round: the cards go to the player who discarded (the view's discarder)
      const to = v.discarder === null || v.discarder === undefined ? "the discarder" :
        v.discarder === this.seat ? "you" : this.name(v.discarder);
      status.textContent = "Waiting: " + (PHASE_WAIT[v.phase] || ((n) => n))(names, to);
    } else {
      this.renderMyTurn(status, buttons);
    }
    box.append(status, buttons);
    if (this.choice) {
      box.append(h("div#choice.choice", {}, h("span", { text: "Which one?" }),
        this.choice.map((a) => actionButton(a, v, "", () => this.act(a))),
        h("button.secondary", { type: "button", text: "Cancel", onclick: () => { this.choice = null; this.render(); } })));
    }
    if (this.notice) {
      box.append(h(`div#notice.notice.${this.notice.kind}`, {
        role: this.notice.kind === "error" ? "alert" : "status", text: this.notice.text,
        dataset: this.notice.kind === "hint" && this.hintAction ? { action: JSON.stringify(this.hintAction) } : {},
      }));
    }
    const tools = h("div.tools");
    if (mine) tools.append(h("button#hint.small.secondary", { type: "button", text: "Hint", onclick: () => this.send({ type: "hint" }) }));
    box.append(tools);
    return box;
  }

  renderMyTurn(status, buttons) {
    const v = this.view;
    const types = new Set(this.legal.map((a) => a.type));
    const top = v.discard.length ? v.discard[v.discard.length - 1] : "";
    const add = (a, cls = "") => buttons.append(actionButton(a, v, cls, () => this.act(a)));
    const handled = new Set();
    if (types.has("draw") || types.has("take_discard") || types.has("no_draw")) {
      status.textContent = "Your turn: " + (types.has("take_discard") ? `take the ${top} or draw from the stock.` : "draw from the stock.");
      for (const a of this.legalOf("take_discard", "draw", "no_draw")) add(a);
      ["draw", "take_discard", "no_draw"].forEach((t) => handled.add(t));
    } else if (v.phase === "buy") {
      status.textContent = `Do you want to buy the ${top}?`;
      for (const a of this.legalOf("buy", "pass")) add(a);
      handled.add("buy"); handled.add("pass");
    } else if (v.phase === "call") {
      status.textContent = `The ${top} fits a meld: call it or pass.`;
      for (const a of this.legalOf("call", "pass")) add(a);
      handled.add("call"); handled.add("pass");
    } else if (v.phase === "give") {
      const sel = this.selectedCards();
      const to = v.discarder !== undefined && v.discarder !== null ? this.name(v.discarder) : "the discarder";
      status.textContent = `Pick a card to give to ${to}.`;
      if (sel.length === 1) {
        const a = this.legal.find((x) => x.type === "give" && x.card === sel[0]) || { type: "give", player: this.seat, card: sel[0] };
        add(a);
      }
      handled.add("give");
    } else if (v.phase === "cut") {
      const counts = this.legalOf("cut").map((a) => a.count);
      const input = h("input#cut-count", { type: "number", min: String(Math.min(...counts)), max: String(Math.max(...counts)), value: String(Math.floor((Math.min(...counts) + Math.max(...counts)) / 2)) });
      status.textContent = "Cut the deck: how many cards do you lift?";
      buttons.append(input, h("button#cut", { type: "button", text: "Cut", onclick: () => this.act({ type: "cut", player: this.seat, count: Number(input.value) }) }));
      handled.add("cut");
    } else {
      this.renderPlay(status, buttons);
      ["discard", "lay_off", "swap_joker", "borrow", "go_down"].forEach((t) => handled.add(t));
    }
    const rest = this.legal.filter((a) => !handled.has(a.type));
    for (const a of rest) add(a, ".secondary");
  }

  renderPlay(status, buttons) {
    const v = this.view;
    const sel = this.selectedCards();
    const words = [];
    if (v.must_play && v.must_play.length) words.push(`You must still play ${v.must_play.join(" ")} on the table.`);
    if (this.borrowing) {
      words.push(`Borrowing ${this.borrowing.card}: pick cards from your hand to make a new meld with it.`);
      const cards = [this.borrowing.card, ...sel];
      buttons.append(h("button#borrow", { type: "button", text: `Lay new meld ${cards.join(" ")}`, disabled: sel.length < 2, onclick: () => {
        const { meld, card } = this.borrowing;
        const listed = this.legal.filter((a) => a.type === "borrow" && a.meld === meld && a.card === card).map((a) => a.new_meld);
        const arranged = meldOrder(cards, listed);
        this.act({ type: "borrow", player: this.seat, meld, card, new_meld: arranged });
      } }), h("button.secondary", { type: "button", text: "Cancel borrow", onclick: () => { this.borrowing = null; this.render(); } }));
    } else if (sel.length === 1) {
      words.push(`${sel[0]} selected: click a meld to lay it off, or discard it.`);
    } else if (sel.length === 0) {
      words.push(v.phase === "bonus" ? "Lay off one card if you like, then discard." :
        "Your turn: select a card to discard (or to lay off on a meld).");
    } else {
      words.push(`${sel.length} cards selected.`);
    }
    status.textContent = words.join(" ");
    if (sel.length === 1 && !this.borrowing) {
      const legal = this.legal.find((a) => a.type === "discard" && a.card === sel[0]);
      buttons.append(h("button#discard", { type: "button", class: legal ? "" : "maybe", text: `Discard ${sel[0]}`, onclick: () => this.discardSelected() }));
    }
    const plays = this.legalOf("lay_off", "swap_joker", "borrow");
    if (plays.length) {
      buttons.append(h("details#plays.plays", {}, h("summary", { text: `Possible plays (${plays.length})` }),
        plays.map((a) => actionButton(a, v, ".small.secondary", () => this.act(a)))));
    }
  }

  renderGoDown() {
    const suggestion = this.legal.find((a) => a.type === "go_down");
    if (!suggestion) return h("div");
    const box = h("section#go-down.panel.godown");
    const meldRow = (cards, onCard) => h("div.meld", {}, cards.map((c, k) => {
      const ce = cardElement(c);
      ce.classList.add("small");
      if (onCard) { ce.classList.add("clickable"); ce.addEventListener("click", () => onCard(k)); }
      return ce;
    }));
    if (!this.editing) {
      box.append(h("h3", { text: "You can go down" }),
        h("div.melds-row", {}, suggestion.melds.map((m) => meldRow(m))),
        h("div.actions", {},
          h("button#go-down-accept", { type: "button", text: "Go down like this", onclick: () => this.act(suggestion) }),
          h("button#go-down-edit.secondary", { type: "button", text: "Change it", onclick: () => {
            this.editing = suggestion.melds.map((m) => [...m]);
            this.selected.clear();
            this.render();
          } })));
      return box;
    }
    const sel = this.selectedCards();
    box.append(h("h3", { text: "Your go-down" }),
      h("p.muted", { text: "Click a card in a meld to take it back; select cards in your hand and add them to a meld." }));
    // each group in the server's order where the suggested go-down has these cards as a meld
    const order = (group) => meldOrder(group, suggestion.melds);
    this.editing.forEach((group, gi) => {
      box.append(h("div.edit-meld", { dataset: { group: String(gi) } },
        meldRow(group, (k) => { group.splice(k, 1); if (!group.length) this.editing.splice(gi, 1); this.render(); }),
        h("button.small", { type: "button", text: "Add selected", disabled: !sel.length, onclick: () => {
          group.push(...sel); this.selected.clear(); this.render();
        } })));
    });
    box.append(h("div.actions", {},
      h("button#new-meld.small.secondary", { type: "button", text: "New meld from selected", disabled: sel.length === 0, onclick: () => {
        this.editing.push(sel); this.selected.clear(); this.render();
      } }),
      h("button#go-down-send", { type: "button", text: "Go down", disabled: !this.editing.length, onclick: () => {
        const melds = this.editing.filter((g) => g.length).map(order);
        this.act({ type: "go_down", player: this.seat, melds });
      } }),
      h("button.secondary", { type: "button", text: "Back to the suggestion", onclick: () => { this.editing = null; this.render(); } })));
    return box;
  }

  renderHand() {
    const area = h("section#hand-area.hand-area");
    if (this.seat === null) {
      area.append(h("p.muted", { text: "You are watching: hands are hidden." }));
      return area;
    }
    const used = this.usedByEditor();
    const hand = h("div#hand.hand", { role: "list", "aria-label": "your hand" });
    this.handOrder.forEach((c, i) => {
      const el = cardElement(c, { tag: "button" });
      el.type = "button";
      el.setAttribute("role", "listitem");
      el.dataset.index = String(i);
      if (this.selected.has(i)) el.classList.add("selected");
      if (used.has(i)) el.classList.add("used");
      if (this.newCards.has(c)) el.classList.add("new");
      if (this.hintAction && this.hintAction.card === c && (this.hintAction.type !== "go_down")) {
        if (!hand.querySelector(".hinted")) el.classList.add("hinted");
      }
      if (isWild(c, this.wilds)) el.classList.add("wild-card");
      this.attachDrag(el, i, used);
      hand.append(el);
    });
    const sorter = (mode, label) => h("button.small.secondary" + (this.sortMode === mode ? ".on" : ""), {
      type: "button", id: `sort-${mode}`, text: label, onclick: () => {
        this.sortMode = mode;
        localStorage.setItem("liverpool:sort", mode);
        this.handOrder = sortCards(this.handOrder, mode, this.wilds);
        this.selected.clear();
        this.saveOrder();
        this.render();
      } });
    area.append(h("div.hand-tools", {}, h("span", { text: `Your hand (${this.handOrder.length})` }),
      sorter("rank", "By rank"), sorter("suit", "By suit"),
      h("span.muted.small-text", { text: this.sortMode === "manual" ? "your order" : "drag to reorder" })), hand);
    return area;
  }

  usedByEditor() {
    const used = new Set();
    if (!this.editing) return used;
    const need = new Map();
    for (const g of this.editing) for (const c of g) need.set(c, (need.get(c) || 0) + 1);
    this.handOrder.forEach((c, i) => {
      if (need.get(c) > 0) { used.add(i); need.set(c, need.get(c) - 1); }
    });
    return used;
  }

  // drag to reorder with pointer events (mouse and touch alike); a press without movement
  // is a click that selects the card
  attachDrag(el, index, used) {
    // the keyboard (Enter or Space on a focused card) selects too; a pointer's click is
    // handled by the pointer events below (a keyboard click has detail 0)
    el.addEventListener("click", (e) => {
      if (e.detail !== 0 || used.has(index)) return;
      this.toggleSelected(index);
      this.render();
      const again = this.root.querySelector(`#hand .card[data-index="${index}"]`);
      if (again) again.focus();
    });
    el.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      e.preventDefault();
      const start = { x: e.clientX, y: e.clientY };
      let moved = false;
      el.setPointerCapture(e.pointerId);
      const move = (ev) => {
        const dx = ev.clientX - start.x;
        const dy = ev.clientY - start.y;
        if (!moved && Math.hypot(dx, dy) < 8) return;
        moved = true;
        this.dragging = { index };
        el.classList.add("dragging");
        el.style.transform = `translate(${dx}px, ${dy}px)`;
      };
      const up = (ev) => {
        el.removeEventListener("pointermove", move);
        el.removeEventListener("pointerup", up);
        el.removeEventListener("pointercancel", up);
        this.dragging = null;
        if (moved) {
          const target = this.dropIndex(ev.clientX, ev.clientY, index);
          if (target !== index) {
            const [card] = this.handOrder.splice(index, 1);
            this.handOrder.splice(target, 0, card);
            this.sortMode = "manual";
            this.selected.clear();
            this.saveOrder();
          }
          this.render();
        } else if (ev.type === "pointerup") {
          if (used.has(index)) return;
          this.toggleSelected(index);
          this.render();
        } else if (this.pendingRender) {
          this.render();
        }
        this.pendingRender = false;
      };
      el.addEventListener("pointermove", move);
      el.addEventListener("pointerup", up);
      el.addEventListener("pointercancel", up);
    });
  }

  toggleSelected(index) {
    if (this.selected.has(index)) this.selected.delete(index);
    else {
      if (!this.multiSelect()) this.selected.clear();
      this.selected.add(index);
    }
    if (this.notice && this.notice.kind === "error") this.notice = null;
  }

  multiSelect() {
    // several cards are picked only to build melds (go-down editor, borrow); otherwise a click
    // picks one card
    return !!(this.editing || this.borrowing);
  }

  dropIndex(x, y, from) {
    const cards = [...this.root.querySelectorAll("#hand .card")];
    let best = from;
    let bestDist = Infinity;
    cards.forEach((c, i) => {
      if (i === from) return;
      const r = c.getBoundingClientRect();
      const cx = r.left + r.width / 2;
      const cy = r.top + r.height / 2;
      const d = Math.hypot(x - cx, (y - cy) * 2);
      if (d < bestDist) { bestDist = d; best = x > cx ? (i < from ? i + 1 : i) : (i < from ? i : i - 1); }
    });
    return Math.max(0, Math.min(this.handOrder.length - 1, best));
  }

  // ---- moves -------------------------------------------------------------------------------

  discardSelected() {
    const [card] = this.selectedCards();
    if (!card) return;
    this.act({ type: "discard", player: this.seat, card });
  }

  playOnMeld(i) {
    const [card] = this.selectedCards();
    if (!card) return;
    const options = this.legal.filter((a) => ["lay_off", "swap_joker"].includes(a.type) && a.card === card && a.meld === i);
    if (options.length === 1) this.act(options[0]);
    else if (options.length > 1) { this.choice = options; this.render(); }
    else this.act({ type: "lay_off", player: this.seat, card, meld: i }); // the server says why not
  }

  startBorrow(meld, card) {
    this.borrowing = this.borrowing && this.borrowing.meld === meld && this.borrowing.card === card ? null : { meld, card };
    this.selected.clear();
    this.render();
  }

  // ---- scores, log, clocks -----------------------------------------------------------------

  renderScores(inline) {
    const v = this.view;
    const table = h("table#score-sheet.scores", {},
      h("thead", {}, h("tr", {}, h("th", { text: "Hand" }), v.players.map((p) => h("th", { text: p })))),
      h("tbody", {}, v.scores.map((row, k) => h("tr", {}, h("td", { text: String(k + 1) }), row.map((x) => h("td", { text: String(x) }))))),
      h("tfoot", {}, h("tr", {}, h("th", { text: "Total" }), v.totals.map((x, i) => h("th", { class: v.winners.includes(i) ? "winner" : "", text: String(x) })))));
    if (v.phase === "over" || inline) {
      return h("section#final-scores.panel", {}, h("h3", { text: "Score sheet" }), table);
    }
    const dialog = h("dialog#score-dialog", {}, h("h3", { text: "Score sheet" }),
      v.scores.length ? table : h("p.muted", { text: "No hand has ended yet." }),
      h("form", { method: "dialog" }, h("button", { text: "Close" })));
    return dialog;
  }

  setDeadline(d) {
    this.deadline = d ? { ...d, end: Date.now() + d.ms_left } : null;
  }

  renderLog() {
    return h("section#log.panel.log", {}, h("h3", { text: "Moves" }),
      h("ol.log-lines", {}, this.log.slice(-100).map((t) => h("li", { text: t }))));
  }

  updateClocks() {
    const d = this.deadline;
    for (const el of this.root.querySelectorAll("[data-clock-seat]")) {
      const on = d && d.kind === "turn" && String(d.seat) === el.dataset.clockSeat;
      el.textContent = on ? `⏱ ${Math.max(0, Math.ceil((d.end - Date.now()) / 1000))} s` : "";
    }
    const b = this.root.querySelector("[data-clock-buy]");
    if (b && d && d.kind === "buy") b.textContent = `buying closes in ${Math.max(0, Math.ceil((d.end - Date.now()) / 1000))} s`;
  }
}
