// The table page: the join form, the waiting room (share link, host's start, removing a player
// or leaving), then the game itself over the websocket /ws/{table} (docs/web-protocol.md).
// The game screen: the players across the top, the pile and the melds in the middle, the
// person's hand and what they may do in a dock that always stays on screen, the moves and the
// rules in a side panel (a drawer on a phone), notices as toasts over the table, the "May I?"
// window with its countdown, and the end-of-hand screen while the table pauses.
// The page knows no rule of the game: it shows what the server says (the view, the legal
// actions, the intents and the clocks, the rules sheet) and asks the server.
// Domain words: seat, token, join secret (a private table's "#join=..." in its share link),
// share link (the server's, with the secret; shown to everyone seated), version (the table's
// event counter), view (what this seat may know), legal (this seat's legal actions now), intent
// (asking to buy or call out of turn), window (while intents are taken), deadline (a running
// turn or buy clock), pause (the table waiting at the end of a hand), hand end (the hand as it
// was scored: its hand_ended event), log (the server's events for this seat, each drawn from its
// own fields by events.js, and notices), go-down helper, lay-off, swap, borrow, dock (hand and
// action bar), drawer, player (the person the server remembers: their key goes in the hello),
// standings (a finished game's places, points and rating changes), rematch (the same table
// again: the first to ask makes it, the others are seated in their reserved seats), leave (a
// seat given up during the game: a bot plays it to the end, and it is placed last).

import {
  cardBack, cardElement, cardText, cardsText, contractText, isWild, meldElement, meldName,
  meldOrder, richText, sortCards, symbolize,
} from "./cards.js";
import { Chat } from "./chat.js";
import { cardGlyph, entryNodes, entryWords } from "./events.js";
import { guide, guideButton } from "./guide.js";
import { resetSignals, signalEvents, signalTurn, signalWindow } from "./notify.js";
import {
  PRIVATE_TABLE, absoluteUrl, actionLabel, api, changeText, copyText, errorText, forgetKey,
  forgetSecret, forgetSeat, getPlayer, h, markSeatLeft, ordinal, playerFor, ratingText, ratingValue, savedSecret,
  savedSeat, saveSecret, saveSeat, secretInHash, setNickname, siteNotice, whoFields,
} from "./util.js";

const enc = encodeURIComponent;

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
  const me = getPlayer();
  if (!notice && me && summary.status !== "expired" && (summary.seats || []).some((s) => s.player === me.id)) {
    // this player sits here (joined from another device, or this browser lost the seat's
    // token): the key finds the seat
    openTable(root, tableId, null);
    return;
  }
  const secret = savedSecret(tableId);
  const limits = ((await loadConfig()).limits) || {};
  const who = whoFields("join-nickname", limits.nickname_max || 24, false);
  const nickname = who.nickname;
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
      const player = await playerFor(name, who.guest.checked, (note) => siteNotice(note, false));
      const res = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/join`, body, { auth: !!player });
      saveSeat(tableId, res.seat, res.token, player && player.id);
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
    body = h("p#join-closed", { text: summary.status === "over" ? "The game is over." : "The game has started." },
      summary.status === "over" ? [" ", h("a", { href: `/replay/${enc(tableId)}`, text: "Watch the replay" })] : null);
  } else if (summary.public === false && !secret) {
    // a private table and no secret: joining would be refused, so no form
    body = h("p#join-private.notice.error", { role: "alert", text: PRIVATE_TABLE });
  } else {
    form = h("form#join-form", { onsubmit: join },
      h("label", {}, "Nickname", nickname), who.label, msg,
      h("button#join", { type: "submit", text: "Join the table" }));
    body = form;
  }
  root.replaceChildren(summary.rematch ? rematchBanner(summary.rematch, null) : "", h("section.panel.join", {},
    h("h2", { text: `Table ${tableId}` }),
    notice ? h("p#join-notice.notice.error", { role: "alert", text: notice }) : null,
    h("p", { text: `Rules: ${summary.rules} · ${summary.status}` + (summary.public === false ? " · private" : "") }), seats,
    body,
    summary.status === "expired" ? null : h("button#watch.secondary", { type: "button", onclick: watch, text: "Watch" })));
}


/** The line at the top of a finished table that has a rematch: a link to it, or for a seated
 * player not there yet, who asked and the button to join (``join``: its click). */
function rematchBanner(tableId, join, host = null) {
  const link = `/t/${enc(tableId)}`;
  if (join) {
    return h("div#rematch-banner.notice.info.rematch-banner", { role: "status", dataset: { table: tableId } },
      h("span", { text: `${host || "Someone"} wants a rematch` }), " — ",
      h("button#rematch-join.small", { type: "button", text: "Join", onclick: join }));
  }
  return h("div#rematch-banner.notice.info.rematch-banner", { role: "status", dataset: { table: tableId } },
    h("span", { text: "This game has a rematch: " }), h("a#rematch-go", { href: link, text: `go to table ${tableId}` }));
}

/** A button playing one action; data-act holds the action as JSON with sorted keys. */
function actionButton(a, view, cls, onclick) {
  return h("button" + cls, { type: "button", onclick,
    dataset: { action: a.type, act: JSON.stringify(a, Object.keys(a).sort()) } },
  richText(actionLabel(a, view)));
}

const PHASE_WAIT = {
  draw: (n) => `${n} to draw`, buy: (n) => `buy round (${n})`,
  play: (n) => `${n} is playing`, call: (n) => `call window: ${n}`,
  bonus: (n) => `${n} plays the called card`, give: (n, to) => `${n} to give ${to} a card`,
  cut: (n) => `${n} to cut the deck`,
};

// the keys of the game screen (shown by "?")
const KEYS = [
  ["← →", "move along your hand"], ["Space", "select the card (or unselect it)"],
  ["d", "discard the selected card"], ["Enter", "go down as suggested"],
  ["s", "draw from the stock"], ["t", "take the discard"],
  ["b", "May I? / call it, while you may"], ["n", "no thanks"],
  ["u", "undo the lay-off about to be sent"],
  ["?", "show these keys"], ["Esc", "close a panel"],
];

const LOG_MAX = 100;
const STAGE_MS = 4000; // a lay-off clicked onto a meld waits this long for an undo, then is sent
const REMATCH_WATCH_EVERY_MS = 8000; // how often a finished table looks for a rematch
const REMATCH_WATCH_MS = 15 * 60 * 1000; // and for how long

/** A person's name list: "Cy", "Cy and Dee", "Cy, Dee and Eve". */
function names(list) {
  if (list.length <= 1) return list.join("");
  return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function secs(ms) {
  return Math.max(0, Math.ceil(ms / 1000));
}

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
    this.deadline = null; // {seat, kind, end: ms timestamp, total: ms}
    this.requests = { buy: [], call: [] };
    this.asking = { buy: false, call: false };
    this.declined = { buy: false, call: false }; // "no thanks" said for this discard
    this.log = []; // the log's entries, oldest first: the server's events (with their text) and notices
    this.handOrder = [];
    this.orderHand = null; // the hand number the hand order is for
    this.newCards = new Set();
    this.sortMode = localStorage.getItem("liverpool:sort") || "suit";
    this.selected = new Set();
    this.cursor = 0; // the hand card the arrow keys are on
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
    this.side = "log"; // the side panel's tab: "log" or "rules"
    this.drawer = false; // the side panel open as a drawer (phones)
    this.overlay = null; // "scores" | "keys" | null
    this.pause = null; // the table's end-of-hand pause: {kind, ready, waiting, end}
    this.handEnd = null; // the last hand as it was scored (its hand_ended event)
    this.lastHandEnd = null; // the last hand_ended event the log holds
    this.handEndOpen = false; // the end-of-hand screen of the game's last hand is up
    this.readySent = false;
    this.fx = {}; // what the next render animates: {discard, buyer, hand}
    this.wasMine = false;
    this.fourColor = localStorage.getItem("liverpool:four-color") === "1";
    const saved = savedSeat(tableId);
    // the seat this page's person left for good (a bot plays it to the end): the page watches
    this.leftSeat = saved && saved.left && token === saved.token ? saved.seat : null;
    this.standingsAsked = 0; // how many times the finished table's summary was asked for
    this.rematchWatch = null; // the timer that looks for a rematch made through another server
    this.rematchHost = null; // {table, name}: who made the rematch table
    this.rematching = false; // a rematch request is under way
    this.staged = null; // {action, end, timer}: a lay-off clicked onto a meld, not sent yet
    this.away = null; // back at a covered seat: {since, version, events} the server sent
    // the players whose melds this person folded (kept for the table)
    try {
      this.folded = new Set(JSON.parse(localStorage.getItem(`liverpool:${tableId}:folded`) || "[]"));
    } catch (e) { this.folded = new Set(); }
    this.chat = new Chat(tableId, { send: (m) => this.send(m), seat: () => this.seat }); // chat.js
  }

  /** The player's key for the hello: when the seat was taken as that player (or there is no
   * token: the key finds the player's seat, if any); never for a guest's seat. */
  playerKey() {
    const me = getPlayer();
    if (!me) return null;
    if (!this.token) return me.key;
    const saved = savedSeat(this.id);
    return saved && saved.player === me.id ? me.key : null;
  }

  /** The token the hello sends: none once the person left the game (it would sit them again). */
  helloToken() {
    return this.leftSeat === null ? this.token : null;
  }

  hello(version) {
    const left = this.leftSeat !== null;
    return this.send({ type: "hello", token: this.helloToken(), player_key: left ? null : this.playerKey(), version });
  }

  /** This page's person's seat: the one they sit in, or the one they left. */
  mySeat() {
    return this.seat !== null ? this.seat : this.leftSeat;
  }

  async start() {
    this.config = await loadConfig();
    try {
      const saved = JSON.parse(localStorage.getItem(`liverpool:${this.id}:order`) || "null");
      if (saved && Array.isArray(saved.order)) {
        this.handOrder = saved.order;
        this.sortMode = saved.mode || this.sortMode;
        // (an order saved before orders kept their hand's number counts as this hand's)
        if (typeof saved.hand === "number") this.orderHand = saved.hand;
      }
    } catch (e) { this.handOrder = []; }
    document.body.classList.toggle("four-color", this.fourColor);
    this.root.replaceChildren(h("p.loading", { text: "Connecting…" }));
    this.connect();
    this.tick = setInterval(() => this.updateClocks(), 200);
    this.onKeyDown = (e) => this.onKey(e);
    document.addEventListener("keydown", this.onKeyDown);
    window.addEventListener("pagehide", () => { this.closed = true; if (this.ws) this.ws.close(); });
  }

  /** Stop for good: this page no longer sits at the table (removed, left). */
  stop() {
    this.closed = true;
    clearInterval(this.tick);
    clearInterval(this.pinger);
    document.removeEventListener("keydown", this.onKeyDown);
    document.body.classList.remove("in-game");
    guide.stop();
    if (this.ws) this.ws.close();
    if (current === this) current = null;
    resetSignals();
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
      this.hello(this.version);
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
    if (this.chat.receive(msg)) return; // the chat's own messages redraw the chat alone
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
        // back at a seat a bot covered: what it did meanwhile, until the person closes it
        if (msg.away && msg.seat !== null) { this.away = msg.away; this.overlay = "away"; }
        if (this.helloToken() && msg.seat === null) {
          // the server no longer knows our token (the seat was freed): join again, or watch
          forgetSeat(this.id);
          this.token = null;
          if (msg.table && msg.table.status === "open") {
            this.unseat("This browser's seat at the table is no longer valid: join again.");
            return;
          }
        }
        break;
      case "share":
        // the host removed a player: the table's link changed, and the old one opens nothing
        this.shareKnown = true;
        this.shareLink = absoluteUrl(msg.share_url);
        if (msg.join_secret) saveSecret(this.id, msg.join_secret);
        break;
      case "sync":
        this.setTable(msg.table);
        this.log = [];
        this.lastHandEnd = null;
        for (const entry of msg.log || []) this.addLog(entry);
        // a table holding the next hand: the screen shows the hand the log says ended last
        if (msg.pause && this.lastHandEnd) this.handEnd = this.lastHandEnd;
        if (msg.view) this.setState(msg);
        else this.view = null; // a table not started yet
        break;
      case "update": {
        const events = msg.events || [];
        for (const ev of events) this.addLog(ev);
        // the moves in words for screen readers (a pass says nothing)
        const said = events.filter((ev) => ev.type !== "passed" && ev.text)
          .map((ev) => entryWords(ev, this.players(), this.seat));
        if (said.length) this.announce(said.join(". "));
        signalEvents(events, this.seat);
        if (msg.action) this.afterAction(msg.action);
        // the action that ended a hand: its hand_ended event is the hand as it was scored
        const end = events.find((ev) => ev.type === "hand_ended");
        if (end) {
          this.setHandEnd(end);
          this.fx = {}; // a new deal follows: nothing flies in
        }
        if (msg.view) this.setState(msg);
        else if ("pause" in msg && msg.pause) this.setPause(msg.pause);
        break;
      }
      case "pause":
        this.setPause(msg.pause);
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
        if (msg.intents) this.setIntents(msg.intents);
        if (msg.deadline !== undefined) this.setDeadline(msg.deadline);
        break;
      case "hint":
        this.hintAction = msg.action;
        this.notice = { kind: "hint", text: `Hint: ${actionLabel(msg.action, this.view, this.seat)}` + (msg.reason ? ` (${this.tableWords(msg.reason)})` : "") };
        break;
      case "error":
        this.onError(msg);
        if (this.closed) return;
        break;
      case "notice":
        // something the table should know that is not a move (a bot failed and was replaced)
        if (msg.text) this.addLog({ type: "notice", text: msg.text });
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
      if (!this.view) this.hello(-1);
    }, 400);
  }

  /** The server's words with each "meld 3 (7S 7D 7C)" named as people say it ("your set of
   * 7s") and cards in the page's notation. */
  tableWords(text) {
    const v = this.view;
    let out = String(text);
    if (v) {
      out = out.replace(/\bmeld (\d+)(?: \((?:(?:10|[2-9AJQK])[SHDC]|JK)(?: (?:(?:10|[2-9AJQK])[SHDC]|JK))*\))?/g, (all, i) => {
        const m = v.melds[Number(i)];
        return m ? meldName(m, v.players, this.seat) : all;
      });
    }
    return symbolize(out);
  }

  onError(msg) {
    const text = this.tableWords(msg.message || msg.code);
    if (msg.code === "removed") {
      this.unseat(this.leaving ? "You left the table." : errorText(msg));
      return;
    }
    if (msg.code === "rate_limited") {
      // the message was ignored; the page goes on
      this.notice = { kind: "error", text: "Too many messages: slow down a little (the last one was ignored)." };
      return;
    }
    if (msg.code === "bad_key") {
      // the server no longer knows this browser's player: a guest from now on
      forgetKey();
      this.hello(this.version);
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
      this.hello(this.version);
      this.notice = { kind: "error", text: "The table moved on before your move arrived; try again." };
      return;
    }
    if (msg.code === "paused") {
      this.notice = { kind: "info", text: "The table is waiting for everyone to be ready for the next hand." };
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
    if (summary.rematch) this.findRematchHost(summary.rematch);
  }

  /** The finished table's summary with its standings (the server works them out as the game
   * ends: a summary sent just before may not have them yet). */
  askStandings() {
    if (this.closed || !this.table || this.table.standings || this.standingsAsked >= 5) return;
    const n = ++this.standingsAsked;
    setTimeout(async () => {
      if (this.closed || (this.table && this.table.standings)) return;
      try {
        const summary = await api("GET", `/api/tables/${enc(this.id)}`);
        if (summary && summary.standings) { this.setTable(summary); this.render(); return; }
      } catch (e) { /* asked again below */ }
      this.askStandings();
    }, 300 * n);
  }

  /** While the standings are shown, look for a rematch now and then: where several servers
   * share the tables, one made through another server is not pushed to this page. */
  watchRematch() {
    if (this.rematchWatch || this.mySeat() === null) return;
    const until = Date.now() + REMATCH_WATCH_MS;
    this.rematchWatch = setInterval(async () => {
      if (this.closed || Date.now() > until || (this.table && this.table.rematch)) {
        clearInterval(this.rematchWatch);
        return;
      }
      try {
        const summary = await api("GET", `/api/tables/${enc(this.id)}`);
        if (summary && summary.rematch && !(this.table && this.table.rematch)) {
          this.setTable(summary);
          this.render();
        }
      } catch (e) { /* the next look */ }
    }, REMATCH_WATCH_EVERY_MS);
  }

  /** Who made the rematch table (its host): "Bea wants a rematch". */
  async findRematchHost(tableId) {
    if (this.rematchHost && this.rematchHost.table === tableId) return;
    this.rematchHost = { table: tableId, name: null };
    try {
      const summary = await api("GET", `/api/tables/${enc(tableId)}`);
      const host = (summary.seats || [])[0];
      this.rematchHost = { table: tableId, name: host ? host.name : null };
      this.render();
    } catch (e) { /* the banner says "Someone" */ }
  }

  /** Play again: the first to ask makes the rematch table, the others get their reserved
   * seat; the new seat's token is kept as a join keeps it, and the page moves there. */
  async rematch() {
    if (this.rematching) return;
    this.rematching = true;
    this.render();
    const asPlayer = !!this.playerKey();
    try {
      const res = await api("POST", `/api/tables/${enc(this.id)}/rematch`, this.token ? { token: this.token } : {}, { auth: asPlayer });
      const me = getPlayer();
      const id = res.table.id;
      saveSeat(id, res.seat, res.token, asPlayer && me ? me.id : null);
      saveSecret(id, res.join_secret);
      this.stop();
      location.href = `/t/${enc(id)}`;
    } catch (e) {
      this.rematching = false;
      this.notice = { kind: "error", text: "No rematch: " + errorText(e) };
      this.render();
    }
  }

  /** Leave the game for good: a bot plays the seat to the end; it is placed last. */
  leaveGame() {
    this.overlay = null;
    if (!this.send({ type: "leave" })) {
      this.notice = { kind: "error", text: "Not connected: you did not leave; try again." };
    } else {
      // from now on this page watches: a hello with the seat's token would sit it again
      this.leftSeat = this.seat;
      markSeatLeft(this.id);
      this.notice = { kind: "info", text: "You left the game: a computer player plays your seat to the end." };
      this.hello(this.version);
    }
    this.render();
  }

  /** This seat has left the game (the server's seat says so, or this page's person left it). */
  seatLeft(i) {
    if (i === null || i === undefined) return false;
    const s = ((this.table && this.table.seats) || [])[i] || {};
    return !!(s.left || i === this.leftSeat);
  }

  /** What the page does after an action was applied (the update's `action`). */
  afterAction(action) {
    const t = action.type;
    if (["discard", "take_discard", "draw", "no_draw", "buy"].includes(t)) {
      this.requests = { buy: [], call: [] };
      this.asking = { buy: false, call: false };
      this.declined = { buy: false, call: false };
    }
    // the next render animates what just happened (CSS, none under reduced motion)
    if (t === "discard") this.fx.discard = true;
    if (t === "buy") this.fx.buyer = action.player;
    if (["draw", "take_discard", "buy", "give"].includes(t)) this.fx.hand = true;
  }

  /** An entry of the log: an event as the server sent it for this seat (its `text`, its cards
   * and melds in its own fields) or a notice; drawn when the log is shown (events.js). */
  addLog(entry) {
    const ev = typeof entry === "string" ? { type: "notice", text: entry } : entry;
    if (!ev) return;
    if (ev.type === "hand_ended") this.lastHandEnd = ev;
    // an event with no text has nothing to say here (another seat's card drawn after a buy round)
    if (typeof ev.text !== "string" || !ev.text) return;
    this.log.push(ev);
    if (this.log.length > 4 * LOG_MAX) this.log.splice(0, this.log.length - 2 * LOG_MAX);
  }

  /** The names of the seats (the view's, or the lobby's before the game). */
  players() {
    if (this.view) return this.view.players;
    return this.table ? this.table.seats.map((s) => s.name || "") : [];
  }

  /** A line for screen readers (a live region outside the redrawn page). */
  announce(text) {
    let live = document.getElementById("live");
    if (!live) {
      live = h("div#live.sr-only", { "aria-live": "polite", role: "status" });
      document.body.append(live);
    }
    live.textContent = text;
  }

  setState(msg) {
    const before = this.view;
    this.view = msg.view;
    this.legal = msg.legal || [];
    this.setIntents(msg.intents || []);
    this.setDeadline(msg.deadline);
    if ("pause" in msg) this.setPause(msg.pause);
    this.reconcileHand(msg.view.hand, before);
    if (!this.legal.some((a) => a.type === "go_down")) this.editing = null;
    if (!this.legal.some((a) => a.type === "borrow")) this.borrowing = null;
    this.choice = null;
    this.hintAction = null;
    if (this.staged && !this.legal.some((a) => JSON.stringify(a) === JSON.stringify(this.staged.action))) this.unstage();
    if (this.notice && this.notice.kind === "hint") this.notice = null;
    const mine = this.seat !== null && this.legal.length > 0 && this.view.to_act.includes(this.seat);
    if (mine && !this.wasMine) this.announce("Your turn. " + this.promptWords());
    this.wasMine = mine;
    signalTurn(mine, `${this.view.hand_number}:${this.view.turns_played}:${this.view.turn}`);
    if (this.view.phase === "over") { this.askStandings(); this.watchRematch(); }
  }

  setIntents(intents) {
    const opened = intents.length && !this.intents.length;
    this.intents = intents;
    signalWindow(intents.length > 0);
    if (!intents.includes("buy")) this.asking.buy = this.asking.buy && this.requests.buy.includes(this.seat);
    if (!intents.includes("call")) this.asking.call = this.asking.call && this.requests.call.includes(this.seat);
    if (opened && this.view) {
      const top = this.topCard();
      this.announce(intents.includes("call") ? `You may call the ${cardText(top)}: press b, or n for no thanks.` :
        `May I? You may buy the ${cardText(top)}: press b, or n for no thanks.`);
    }
  }

  setDeadline(d) {
    if (!d) { this.deadline = null; return; }
    const prev = this.deadline;
    const same = prev && prev.kind === d.kind && prev.seat === d.seat && prev.version === this.version;
    const total = same ? Math.max(prev.total, d.ms_left) : d.ms_left;
    this.deadline = { ...d, end: Date.now() + d.ms_left, total, version: this.version };
  }

  /** The end-of-hand pause: the screen shows while it lasts (and goes when it ends). */
  setPause(p) {
    if (p) {
      this.pause = { ...p, end: Date.now() + (p.ms_left || 0) };
      if (this.seat !== null && (p.ready || []).includes(this.seat)) this.readySent = true;
      if (!this.handEnd) this.handEnd = this.lastHandEnd;
    } else {
      if (this.pause) this.handEndOpen = false;
      this.pause = null;
      this.readySent = false;
    }
  }

  setHandEnd(end) {
    this.handEnd = end;
    this.handEndOpen = true;
    this.readySent = false;
    const out = (end.went_out || []).map((s) => this.name(s));
    this.announce(`Hand ${end.hand_number} is over.` + (out.length ? ` ${names(out)} went out.` : ""));
  }

  reconcileHand(hand, before) {
    const handNo = this.view.hand_number;
    if (this.orderHand !== null && this.orderHand !== handNo) {
      // a new deal: a dragged order was for the cards of the hand before; sort the new cards
      // the person's usual way
      this.handOrder = [];
      if (this.sortMode === "manual") this.sortMode = localStorage.getItem("liverpool:sort") || "suit";
    }
    this.orderHand = handNo;
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
    this.cursor = Math.min(this.cursor, Math.max(0, this.handOrder.length - 1));
    this.saveOrder();
  }

  saveOrder() {
    // the player's own order (and sort mode) survives a reload
    localStorage.setItem(`liverpool:${this.id}:order`, JSON.stringify({ mode: this.sortMode, order: this.handOrder, hand: this.orderHand }));
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

  topCard() {
    const v = this.view;
    return v && v.discard.length ? v.discard[v.discard.length - 1] : null;
  }

  myTurnPlay() {
    return this.view && this.seat !== null && ["play", "bonus"].includes(this.view.phase) &&
      this.view.to_act.includes(this.seat);
  }

  /** What the page asks of the person now, in words (for the live region). */
  promptWords() {
    const box = h("div");
    const status = h("div");
    if (this.view) this.renderMyTurn(status, box);
    return status.textContent;
  }

  /** The buys used of the limit: "1/3", or "1" where the rules set none. */
  buysText(seat) {
    const used = this.view.buys[seat];
    const max = this.rules.max_buys;
    return max === null || max === undefined ? String(used) : `${used}/${max}`;
  }

  pauseShown() {
    return !!(this.view && (this.pause || (this.handEndOpen && this.handEnd && this.view.phase === "over")));
  }

  // ---- rendering ---------------------------------------------------------------------------

  render() {
    if (this.dragging) { this.pendingRender = true; return; }
    const t = this.table;
    if (!t) return;
    const playing = !!this.view;
    document.body.classList.toggle("in-game", playing);
    // data-* mirror the client's state for scripts and tests driving the page
    const page = h("div.table-page" + (playing ? ".in-game" : ""), { dataset: {
      phase: this.view ? this.view.phase : t.status, version: String(this.version),
      seat: this.seat === null ? "" : String(this.seat), legal: [...new Set(this.legal.map((a) => a.type))].join(" "),
      intents: this.intents.join(" "), pause: this.pause ? this.pause.kind || "hand_end" : "",
    } });
    const banner = this.renderRematchBanner();
    if (banner) page.append(banner);
    page.append(this.renderInfo());
    if (!playing) {
      page.append(this.renderWaiting());
    } else {
      const over = this.view.phase === "over";
      const board = h("section#board.board", { "aria-label": "the table" },
        over ? this.renderStandings() : null,
        over ? this.renderScoreSheet(true) : null,
        this.renderPlayers(), this.renderCenter(), this.renderMelds());
      page.append(h("div.game-grid", {}, board, this.renderSide(), this.renderDock()));
      if (this.drawer) page.append(h("div.drawer-backdrop", { onclick: () => { this.drawer = false; this.render(); } }));
      if (this.overlay === "scores") page.append(this.renderScoresOverlay());
      if (this.overlay === "keys") page.append(this.renderKeys());
      if (this.overlay === "menu") page.append(this.renderMenu());
      if (this.overlay === "leave") page.append(this.renderLeave());
      if (this.overlay === "away" && this.away) page.append(this.renderAway());
      if (this.pauseShown()) page.append(this.renderHandEnd());
    }
    const keep = this.keepPlace();
    this.root.replaceChildren(page);
    this.restorePlace(keep);
    const board = this.root.querySelector("#board");
    if (board) {
      this.pointToTargets();
      let queued = false;
      board.addEventListener("scroll", () => {
        if (queued) return;
        queued = true;
        requestAnimationFrame(() => { queued = false; this.pointToTargets(); });
      }, { passive: true });
    }
    this.fx = {};
    this.updateClocks();
    guide.update(this);
  }

  /** Where the person was (scroll positions inside the screen, the focused control), kept
   * across a redraw. */
  keepPlace() {
    const at = (sel) => { const el = this.root.querySelector(sel); return el ? [el.scrollTop, el.scrollLeft] : null; };
    const a = document.activeElement;
    let focus = null;
    if (a && this.root.contains(a)) {
      if (a.matches("#hand .card")) focus = { hand: Number(a.dataset.index) };
      else if (a.id) focus = { id: a.id };
    }
    return { y: window.scrollY, board: at("#board"), log: at("#side .side-body"), hand: at("#hand"), extra: at(".dock-extra"), end: at("#hand-end .sheet-body"), focus };
  }

  restorePlace(k) {
    const put = (sel, v) => { const el = this.root.querySelector(sel); if (el && v) { el.scrollTop = v[0]; el.scrollLeft = v[1]; } };
    window.scrollTo(0, k.y);
    put("#board", k.board); put("#side .side-body", k.log); put("#hand", k.hand); put(".dock-extra", k.extra);
    put("#hand-end .sheet-body", k.end);
    if (k.focus) {
      const el = k.focus.id ? document.getElementById(k.focus.id) :
        this.root.querySelector(`#hand .card[data-index="${k.focus.hand}"]`);
      if (el) el.focus({ preventScroll: true });
    }
  }

  renderInfo() {
    const t = this.table;
    const v = this.view;
    const changes = Object.keys(t.overrides || {}).length;
    const rulesWords = t.rules + (changes ? ` with ${plural(changes, "change")}` : "");
    const bits = [h("span.tid", { text: `Table ${t.id}` })];
    if (v) {
      bits.push(h("button#preset-label.linkish", { type: "button", title: "the rules of this table", text: rulesWords,
        onclick: () => this.openSide("rules") }));
      const total = (this.rules.hands && this.rules.hands.length) || (this.rules.contracts || []).length;
      bits.push(h("span#hand-number", { text: `Hand ${v.hand_number}` + (total && this.rules.progression !== "own" ? ` of ${total}` : "") }));
      const c = v.contract[this.seat ?? 0];
      bits.push(h("span#contract.contract", { text: `Contract: ${contractText(c)}` }));
    } else {
      bits.push(h("span#preset-label", { text: rulesWords }));
    }
    if (this.seat === null) bits.push(h("span.badge", { text: "watching" }));
    bits.push(this.chat.watchersButton());
    const url = this.link();
    const share = url ? h("button#share.small.secondary", { type: "button", text: "Copy link", dataset: { link: url }, onclick: async (e) => {
      const ok = await copyText(url);
      e.target.textContent = ok ? "Link copied" : url;
    } }) : null;
    const tools = [];
    if (v) {
      tools.push(
        h("button#rules-button.small.secondary", { type: "button", text: "Rules", "aria-expanded": String(this.drawer && this.side === "rules"), "aria-controls": "side", onclick: () => this.openSide("rules") }),
        h("button#log-button.small.secondary", { type: "button", text: "Moves", "aria-expanded": String(this.drawer && this.side === "log"), "aria-controls": "side", onclick: () => this.openSide("log") }),
        h("button#chat-button.small.secondary", { type: "button", text: "Chat", "aria-expanded": String(this.drawer && this.side === "chat"), "aria-controls": "side", onclick: () => this.openSide("chat") }, this.chat.badge()),
        h("button#scores-button.small.secondary", { type: "button", text: "Scores", onclick: () => { this.overlay = this.overlay === "scores" ? null : "scores"; this.render(); } }),
        h("button#four-color.small.secondary", { type: "button", title: "four-colour deck: ♠ black, ♥ red, ♦ blue, ♣ green",
          "aria-pressed": String(this.fourColor), onclick: () => this.toggleFourColor() },
        h("span.suit-S", { text: "♠" }), h("span.suit-H", { text: "♥" }), h("span.suit-D", { text: "♦" }), h("span.suit-C", { text: "♣" })),
        h("button#keys-button.small.secondary", { type: "button", title: "keyboard keys", "aria-label": "keyboard keys", text: "?", onclick: () => { this.overlay = this.overlay === "keys" ? null : "keys"; this.render(); } }));
      if (this.seat !== null && v.phase !== "over") {
        tools.push(h("button#menu-button.small.secondary", { type: "button", title: "more", "aria-label": "game menu", "aria-haspopup": "dialog",
          text: "⋯", onclick: () => { this.overlay = this.overlay === "menu" ? null : "menu"; this.render(); } }));
      }
    }
    return h("div.info-bar", {}, h("div.info-text", {}, ...bits), h("div.info-tools", {}, ...tools, share));
  }

  openSide(tab) {
    // on a wide screen the side panel is always there: the button picks its tab; on a phone
    // it opens the drawer (and closes it when pressed again)
    this.drawer = !(this.drawer && this.side === tab);
    this.side = tab;
    this.render();
  }

  toggleFourColor() {
    this.fourColor = !this.fourColor;
    localStorage.setItem("liverpool:four-color", this.fourColor ? "1" : "0");
    document.body.classList.toggle("four-color", this.fourColor);
    this.render();
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
    const sheet = t.rules_sheet && t.status !== "expired" ?
      h("details.panel.rules-preview", {}, h("summary", { text: `The rules: ${t.rules}` + (Object.keys(t.overrides || {}).length ? ` with ${plural(Object.keys(t.overrides).length, "change")}` : "") }),
        this.renderRulesSheet()) : null;
    return h("div.waiting-wrap", {}, h("section.panel.waiting", {}, ...parts), t.status === "expired" ? null : this.chat.panel(), sheet);
  }

  renderPlayers() {
    const v = this.view;
    const seats = (this.table && this.table.seats) || [];
    const buying = this.rules.buying !== false;
    return h("div#players.players", { role: "list", "aria-label": "players" }, v.players.map((name, i) => {
      const s = seats[i] || {};
      const box = h("div.player", { dataset: { seat: String(i) }, role: "listitem" });
      const acting = v.to_act.includes(i);
      if (acting) box.classList.add("to-act");
      if (i === this.seat) box.classList.add("me");
      if (v.down[i]) box.classList.add("down");
      if (v.hand_sizes[i] === 1) box.classList.add("one-card");
      if (this.fx.buyer === i) box.classList.add("fx-buy");
      const flags = [];
      if (i === v.dealer) flags.push(h("span.badge", { title: "dealer", text: "D" }));
      if (s.kind === "bot") flags.push(h("span.badge.bot", { text: s.level || "bot" }));
      if (this.seatLeft(i)) flags.push(h("span.badge.off.left", { title: "left the game: a bot plays the seat, placed last", text: "left" }));
      else if (s.covered) flags.push(h("span.badge.warn", { text: "bot covering" }));
      else if (s.kind === "human" && !s.connected && i !== this.seat) flags.push(h("span.badge.off", { text: "away" }));
      if (v.out[i]) flags.push(h("span.badge", { text: "out" }));
      if (v.floating[i]) flags.push(h("span.badge", { text: "floating" }));
      if (acting && v.phase !== "over") flags.push(h("span.badge.acting", { text: i === this.seat ? "your move" : "to play" }));
      box.append(...[
        h("div.pname", {}, h("span.nm", { text: name + (i === this.seat ? " (you)" : "") }), ...flags),
        h("div.pstats", {},
          h("span.cards-count", { title: "cards held", text: plural(v.hand_sizes[i], "card") }),
          h("span.down-flag", { text: v.down[i] ? "down" : "not down" }),
          buying ? h("span.buys", { title: "buys used this hand", text: `buys ${this.buysText(i)}` }) : null,
          h("span.total", { title: "total points", text: `${v.totals[i]} pts` }),
          // points already settled this hand: a cut bonus (negative) or rummy points owed
          v.penalties && v.penalties[i] ? h("span.penalty", { text: `${v.penalties[i] > 0 ? "+" : ""}${v.penalties[i]} this hand` }) : null),
        v.known[i] && v.known[i].length && i !== this.seat ? h("div.known", {}, "holds ", v.known[i].flatMap((c, k) => k ? [" ", cardGlyph(c)] : [cardGlyph(c)])) : null,
        h("div.clock", { dataset: { clockSeat: String(i) } })].filter(Boolean));
      return box;
    }));
  }

  renderCenter() {
    const v = this.view;
    const stock = cardBack(String(v.stock_size));
    stock.id = "stock";
    stock.setAttribute("role", "img");
    stock.setAttribute("aria-label", `stock: ${plural(v.stock_size, "card")}`);
    stock.title = `stock: ${plural(v.stock_size, "card")}`;
    const draw = this.legal.find((a) => a.type === "draw");
    if (draw) {
      stock.classList.add("clickable");
      stock.setAttribute("role", "button");
      stock.tabIndex = 0;
      stock.addEventListener("click", () => this.act(draw));
    }
    const top = this.topCard();
    const pile = top ? cardElement(top) : h("div.card.empty", { text: "empty" });
    pile.id = "discard-top";
    if (this.fx.discard) pile.classList.add("fx-drop");
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
    const by = v.discarder === null || v.discarder === undefined ? "the upcard" :
      v.discarder === this.seat ? "you discarded it" : `from ${this.name(v.discarder)}`;
    const parts = [
      h("div.pile", {}, stock, h("span.label", { text: `stock ${v.stock_size}` })),
      h("div.pile", {}, pile, h("span.label", { text: `discard (${v.discard.length})${v.fresh ? "" : " · not fresh"}` }),
        top ? h("span#discarder.label.discarder", { text: by }) : null),
    ];
    const side = h("div.buying");
    if (this.requests.buy.length) side.append(h("div#buy-requests.requests", { text: "May I? " + this.requests.buy.map((s) => this.name(s)).join(", ") }));
    if (this.requests.call.length) side.append(h("div#call-requests.requests", { text: "Calling: " + this.requests.call.map((s) => this.name(s)).join(", ") }));
    const warnings = v.hand_sizes.map((n, i) => (n === 1 && !v.out[i] && v.phase !== "over") ? i : -1).filter((i) => i >= 0);
    const warn = warnings.length ? h("div#one-card.warning", { role: "status", text: "⚠ " + warnings.map((i) => i === this.seat ? "You have" : `${this.name(i)} has`).join(", ") + " one card left" }) : null;
    return h("div.center", {}, ...parts, side, warn);
  }

  renderMelds() {
    const v = this.view;
    const wrap = h("div#melds.melds");
    this.targets = [];
    if (!v.melds.length) {
      wrap.append(h("p.muted.no-melds", { text: "No melds on the table yet." }));
      return wrap;
    }
    const owners = [];
    v.melds.forEach((m) => { if (!owners.includes(m.owner)) owners.push(m.owner); });
    owners.sort((a, b) => a - b);
    const selOne = this.myTurnPlay() && this.selected.size === 1 && !this.borrowing;
    // the melds the selected card may go on: the server's legal lay-offs and swaps say
    const card = selOne ? this.selectedCards()[0] : null;
    const targets = new Set(selOne ? this.legal.filter((a) => ["lay_off", "swap_joker"].includes(a.type) && a.card === card).map((a) => a.meld) : []);
    const canBorrow = this.legal.some((a) => a.type === "borrow");
    this.targets = [...targets];
    for (const owner of owners) {
      const folded = this.folded.has(owner);
      const count = v.melds.filter((m) => m.owner === owner).length;
      const fits = v.melds.some((m, i) => m.owner === owner && targets.has(i));
      const group = h("div.meld-owner" + (folded ? ".folded" : "") + (fits ? ".has-target" : ""), { dataset: { owner: String(owner) } },
        h("button.owner-name.fold", { type: "button", "aria-expanded": String(!folded),
          title: folded ? "show these melds" : "fold these melds", onclick: () => this.toggleFold(owner) },
        h("span.fold-mark", { "aria-hidden": "true", text: folded ? "▸ " : "▾ " }),
        owner === this.seat ? "Your melds" : `${this.name(owner)}'s melds`,
        folded ? h("span.muted", { text: ` (${plural(count, "meld")} folded)` }) : null,
        folded && fits ? h("span.fits-here", { text: " ★ the card fits here" }) : null));
      v.melds.forEach((m, i) => {
        if (m.owner !== owner || folded) return;
        // the wilds' tags come from the server's stands_for
        const el = meldElement(m, i, (ce, c) => {
          if (canBorrow && !selOne && this.myTurnPlay()) {
            ce.classList.add("clickable");
            ce.addEventListener("click", (e) => { e.stopPropagation(); this.startBorrow(i, c); });
          }
          if (this.borrowing && this.borrowing.meld === i && this.borrowing.card === c) ce.classList.add("selected");
        }, v.players, this.seat);
        el.title = meldName(m, v.players, this.seat);
        if (this.hintAction && this.hintAction.meld === i) el.classList.add("hinted");
        if (this.staged && this.staged.action.meld === i) {
          // the staged card, shown where it is going (at the end the server will say)
          const ghost = cardElement(this.staged.action.card);
          ghost.classList.add("small", "ghost");
          ghost.setAttribute("aria-label", `${cardText(this.staged.action.card)}, about to be laid off here`);
          if (this.staged.action.end === "low") el.prepend(ghost); else el.append(ghost);
          el.classList.add("staging");
        }
        if (selOne) {
          // every meld takes the click (the server says why a card does not fit); only the
          // ones the card fits are outlined
          el.classList.add("pickable");
          if (targets.has(i)) el.classList.add("target");
          el.addEventListener("click", () => this.playOnMeld(i));
        }
        group.append(el);
      });
      wrap.append(group);
    }
    return wrap;
  }

  toggleFold(owner, open = null) {
    if (open === null ? this.folded.has(owner) : open) this.folded.delete(owner);
    else this.folded.add(owner);
    localStorage.setItem(`liverpool:${this.id}:folded`, JSON.stringify([...this.folded]));
    this.render();
  }

  /** A selected card fits melds none of which is in view (scrolled off the board, under the
   * players' strip, or folded): a chip at the board's edge says which meld and where, and
   * brings it into view on request. Laid out after the page is drawn, and again as the
   * board scrolls. */
  pointToTargets() {
    const board = this.root.querySelector("#board");
    const old = this.root.querySelector("#target-hint");
    if (old) old.remove();
    if (!board || !this.view || !(this.targets || []).length) return;
    const box = board.getBoundingClientRect();
    const strip = board.querySelector("#players");
    const sticky = strip && getComputedStyle(strip).position === "sticky" ? strip.getBoundingClientRect().bottom : box.top;
    const top = Math.max(box.top, sticky);
    const where = (i) => {
      const el = board.querySelector(`.meld[data-meld="${i}"]`);
      if (!el) return "folded";
      const r = el.getBoundingClientRect();
      if (r.bottom <= top + 4) return "above";
      if (r.top >= box.bottom - 4) return "below";
      return r.top >= top - 1 && r.bottom <= box.bottom + 1 ? "in view" : r.top < top ? "above" : "below";
    };
    const places = this.targets.map((i) => [i, where(i)]);
    if (places.some(([, w]) => w === "in view")) return;
    const [i, w] = places[0];
    const m = this.view.melds[i];
    const card = this.selectedCards()[0];
    if (!m || !card) return;
    const arrow = w === "above" ? "↑" : w === "below" ? "↓" : "▸";
    const more = places.length > 1 ? ` (and ${plural(places.length - 1, "other meld")})` : "";
    const hint = h("div#target-hint.target-hint." + w.replace(" ", "-"), { role: "status" },
      h("span", {}, richText(`${cardText(card)} fits ${meldName(m, this.view.players, this.seat)}${more}, ${w} ${arrow}`)),
      h("button#target-show.small", { type: "button", text: "Show it", onclick: () => this.showMeld(i) }));
    board.append(hint); // (held at the board's bottom edge, above the dock, as it scrolls)
  }

  /** Bring meld ``i`` into view (unfolding its player's melds), flashing it. */
  showMeld(i) {
    const m = this.view && this.view.melds[i];
    if (!m) return;
    if (this.folded.has(m.owner)) this.toggleFold(m.owner, true);
    const el = this.root.querySelector(`#board .meld[data-meld="${i}"]`);
    if (!el) return;
    const calm = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    el.scrollIntoView({ block: "center", behavior: calm ? "auto" : "smooth" });
    el.classList.add("flash");
    setTimeout(() => el.classList.remove("flash"), 1500);
  }

  // ---- the side panel: moves and rules -----------------------------------------------------

  renderSide() {
    const tab = (id, key, label) => h(`button#${id}.tab` + (this.side === key ? ".on" : ""), { type: "button", role: "tab",
      "aria-selected": String(this.side === key), text: label, onclick: () => { this.side = key; this.render(); } });
    const body = this.side === "rules" ? this.renderRules() : this.side === "chat" ? this.chat.panel() : this.renderLog();
    const chatTab = tab("tab-chat", "chat", "Chat");
    chatTab.append(this.chat.badge());
    return h("aside#side.side" + (this.drawer ? ".open" : ""), { "aria-label": this.side === "rules" ? "rules" : "moves" },
      h("div.side-head", {}, h("div.tabs", { role: "tablist" }, tab("tab-log", "log", "Moves"), tab("tab-rules", "rules", "Rules"), chatTab),
        h("button#side-close.small.secondary.close", { type: "button", "aria-label": "close", text: "✕", onclick: () => { this.drawer = false; this.render(); } })),
      h("div.side-body", {}, body));
  }

  /** The log, newest first, each entry drawn from its event (events.js); a run of passes
   * (events of type "passed") folds into one line ("Cy, Dee pass"). */
  renderLog() {
    const lines = [];
    for (const ev of this.log) {
      const last = lines[lines.length - 1];
      if (ev.type === "passed" && last && last.passes) last.passes.push(ev);
      else lines.push(ev.type === "passed" ? { passes: [ev] } : { ev });
    }
    const players = this.players();
    const who = (ev) => ev.seat === this.seat ? "You" : players[ev.seat] || `Seat ${ev.seat + 1}`;
    const shown = lines.slice(-LOG_MAX).reverse();
    return h("section#log.log", {}, h("h3.sr-only", { text: "Moves" }),
      shown.length ? h("ol.log-lines", { reversed: true }, shown.map((l, k) => {
        const ev = l.passes ? l.passes[0] : l.ev;
        return h("li" + (k === 0 ? ".newest" : "") + (l.passes ? ".pass" : ""), { dataset: { type: ev.type || "" } },
          l.passes && l.passes.length > 1 ? `${l.passes.map(who).join(", ")} pass` : entryNodes(ev, players, this.seat));
      }))
        : h("p.muted", { text: "No moves yet." }));
  }

  /** The table's rules sheet (the server's words), the current contract marked, with this
   * person's buys used of the limit. */
  renderRules() {
    const v = this.view;
    const box = h("section#rules-panel.rules");
    if (v && this.seat !== null && this.rules.buying !== false) {
      const max = this.rules.max_buys;
      const used = v.buys[this.seat];
      box.append(h("p#my-buys.my-buys", { text: max === null || max === undefined ?
        `You have bought ${plural(used, "time")} this hand (no limit).` :
        `Your buys: ${used} of ${max} this hand.` }));
    }
    box.append(this.renderRulesSheet());
    return box;
  }

  renderRulesSheet() {
    const sheet = (this.table && this.table.rules_sheet) || [];
    const current = this.view ? this.view.hand_number - 1 : -1;
    const out = h("div.rules-sheet");
    if (!sheet.length) out.append(h("p.muted", { text: `${this.table ? this.table.rules : ""} rules.` }));
    sheet.forEach(([heading, lines]) => {
      // the contracts are found by their heading: the sheet opens with how a turn goes
      const contracts = /^Contracts/.test(heading);
      out.append(h("h4", { text: heading }), h("ul" + (contracts ? ".contracts" : ""), {}, lines.map((line, i) => {
        const here = contracts && i === current;
        return h("li" + (here ? ".current" : ""), here ? { "aria-current": "step" } : {},
          contracts ? line.replace(/^[▶\s]+/, "") : line, here ? h("span.sr-only", { text: " (this hand)" }) : null);
      })));
    });
    return out;
  }

  // ---- the dock: what to do, the window, the hand ------------------------------------------

  renderDock() {
    const extra = h("div.dock-extra", {}, this.renderGoDown(), this.renderPlays());
    const dock = h("section#dock.dock", { "aria-label": "your hand and moves" });
    if (this.notice) dock.append(this.renderNotice());
    if (extra.childElementCount) dock.append(extra);
    const win = this.renderWindow();
    if (win) dock.append(win);
    const staged = this.renderStaged();
    if (staged) dock.append(staged);
    dock.append(this.renderPrompt(), this.renderHand());
    return dock;
  }

  renderNotice() {
    const n = this.notice;
    return h(`div#notice.notice.toast.${n.kind}`, {
      role: n.kind === "error" ? "alert" : "status",
      dataset: n.kind === "hint" && this.hintAction ? { action: JSON.stringify(this.hintAction) } : {},
    }, h("span.toast-text", {}, richText(n.text)),
    h("button.toast-close", { type: "button", "aria-label": "dismiss", text: "✕", onclick: () => { this.notice = null; this.render(); } }));
  }

  /** The "May I?" (or call) window: while this seat may ask, a big button, "No thanks", and a
   * bar counting down the server's clock. */
  renderWindow() {
    const kind = this.intents.includes("call") || this.asking.call ? "call" :
      this.intents.includes("buy") || this.asking.buy ? "buy" : null;
    if (!kind || this.seat === null) return null;
    const open = this.intents.includes(kind);
    const asking = this.asking[kind];
    if (this.declined[kind] && !asking) return null;
    const top = cardText(this.topCard() || "");
    const v = this.view;
    const deciding = v.to_act.filter((s) => s !== this.seat).map((s) => this.name(s));
    const head = kind === "buy" ?
      (deciding.length ? `${names(deciding)} ${deciding.length === 1 ? "is" : "are"} deciding on the ${top}` : `The ${top} is up for grabs`) :
      `The ${top} fits a meld on the table`;
    const send = (on) => {
      this.asking[kind] = on;
      if (!on) this.declined[kind] = true;
      this.send({ type: "intent", kind, on });
      this.render();
    };
    const id = kind === "buy" ? "may-i" : "call-intent";
    const big = h(`button#${id}.buy.big` + (asking ? ".on" : ""), { type: "button", "aria-keyshortcuts": "b",
      onclick: () => send(!asking) },
    asking ? (kind === "buy" ? `Asking to buy ${top} (cancel)` : `Calling ${top} (cancel)`) :
      (kind === "buy" ? `May I? (buy ${top})` : `Call it (${top})`));
    const no = open || asking ? h("button#no-thanks.secondary", { type: "button", "aria-keyshortcuts": "n", text: "No thanks", onclick: () => send(false) }) : null;
    const d = this.deadline;
    const timed = d && (d.kind === "buy" || d.kind === "call");
    const bar = open ? h("div#window-bar.window-bar" + (timed ? "" : ".open-ended"), { role: "progressbar", "aria-label": "time to ask" }, h("div.window-fill")) : null;
    const clock = timed ? h("span#buy-clock.clock", { dataset: { clockBuy: "1" } }) : null;
    const asked = this.requests[kind].filter((s) => s !== this.seat).map((s) => this.name(s));
    return h(`section#window.window.${kind}`, { "aria-label": kind === "buy" ? "May I?" : "Call it" },
      h("div.window-head", {}, h("span", {}, richText(head)), clock,
        asked.length ? h("span.window-asked", { text: (kind === "buy" ? "asked: " : "calling: ") + names(asked) }) : null),
      h("div.window-buttons", {}, big, no), bar);
  }

  renderPrompt() {
    const v = this.view;
    const box = h("div#prompt.prompt");
    const status = h("div#status.status", { role: "status" });
    const buttons = h("div.actions");
    const mine = this.seat !== null && v.to_act.includes(this.seat) && this.legal.length && !this.seatLeft(this.seat);
    if (v.phase === "over") {
      const w = v.winners.map((s) => this.name(s)).join(" and ");
      status.textContent = `Game over: ${w} win${v.winners.length === 1 ? "s" : ""}.`;
      // the standings above say the rest, with what to do next
      buttons.append(h("a.button.secondary#standings-link", { href: "#standings", text: "Standings", onclick: (e) => {
        e.preventDefault();
        const el = document.getElementById("standings");
        if (el) el.scrollIntoView({ block: "start" });
      } }));

    } else if (this.leftSeat !== null) {
      status.textContent = "You left the game: a computer player plays your seat to the end.";
    } else if (!mine) {
      const who = v.to_act.map((s) => s === this.seat ? "you" : this.name(s)).join(", ");
      // a give round: the cards go to the player who discarded (the view's discarder)
      const to = v.discarder === null || v.discarder === undefined ? "the discarder" :
        v.discarder === this.seat ? "you" : this.name(v.discarder);
      status.textContent = "Waiting: " + (PHASE_WAIT[v.phase] || ((n) => n))(who, to);
    } else {
      this.renderMyTurn(status, buttons);
    }
    box.classList.toggle("mine", !!mine);
    box.append(status);
    if (this.choice) {
      box.append(h("div#choice.choice", {}, h("span", { text: "Which one?" }),
        this.choice.map((a) => actionButton(a, v, "", () => this.act(a))),
        h("button.secondary", { type: "button", text: "Cancel", onclick: () => { this.choice = null; this.render(); } })));
    }
    if (mine) buttons.append(h("button#hint.small.secondary", { type: "button", text: "Hint", onclick: () => this.send({ type: "hint" }) }));
    box.append(buttons);
    return box;
  }

  renderMyTurn(status, buttons) {
    const v = this.view;
    const types = new Set(this.legal.map((a) => a.type));
    const top = cardText(this.topCard() || "");
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
      const input = h("input#cut-count", { type: "number", "aria-label": "cards to lift", min: String(Math.min(...counts)), max: String(Math.max(...counts)), value: String(Math.floor((Math.min(...counts) + Math.max(...counts)) / 2)) });
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
    if (v.must_play && v.must_play.length) words.push(`You must still play ${cardsText(v.must_play)} on the table.`);
    if (this.borrowing) {
      words.push(`Borrowing ${cardText(this.borrowing.card)}: pick cards from your hand to make a new meld with it.`);
      const cards = [this.borrowing.card, ...sel];
      buttons.append(h("button#borrow", { type: "button", text: `Lay new meld ${cardsText(cards)}`, disabled: sel.length < 2, onclick: () => {
        const { meld, card } = this.borrowing;
        const listed = this.legal.filter((a) => a.type === "borrow" && a.meld === meld && a.card === card).map((a) => a.new_meld);
        const arranged = meldOrder(cards, listed);
        this.act({ type: "borrow", player: this.seat, meld, card, new_meld: arranged });
      } }), h("button.secondary", { type: "button", text: "Cancel borrow", onclick: () => { this.borrowing = null; this.render(); } }));
    } else if (sel.length === 1) {
      const n = this.legal.filter((a) => ["lay_off", "swap_joker"].includes(a.type) && a.card === sel[0]).length;
      words.push(`${cardText(sel[0])} selected: ` + (n ? "click an outlined meld to play it there, or discard it." : "discard it, or pick another card."));
    } else if (sel.length === 0) {
      words.push(v.phase === "bonus" ? "Lay off one card if you like, then discard." :
        "Your turn: select a card to discard (or to lay off on a meld).");
    } else {
      words.push(`${sel.length} cards selected.`);
    }
    status.textContent = words.join(" ");
    if (sel.length === 1 && !this.borrowing) {
      const legal = this.legal.find((a) => a.type === "discard" && a.card === sel[0]);
      buttons.append(h("button#discard", { type: "button", class: legal ? "" : "maybe", "aria-keyshortcuts": "d", text: `Discard ${cardText(sel[0])}`, onclick: () => this.discardSelected() }));
    }
  }

  renderPlays() {
    if (!this.myTurnPlay() || this.borrowing) return null;
    const plays = this.legalOf("lay_off", "swap_joker", "borrow");
    if (!plays.length) return null;
    return h("details#plays.plays", { open: this.playsOpen || null, ontoggle: (e) => { this.playsOpen = e.target.open; } },
      h("summary", { text: `Possible plays (${plays.length})` }),
      plays.map((a) => actionButton(a, this.view, ".small.secondary", () => this.act(a))));
  }

  renderGoDown() {
    const suggestion = this.legal.find((a) => a.type === "go_down");
    if (!suggestion) return null;
    const box = h("section#go-down.godown");
    const meldRow = (cards, onCard) => h("div.meld", {}, cards.map((c, k) => {
      const ce = cardElement(c);
      ce.classList.add("small");
      if (onCard) { ce.classList.add("clickable"); ce.addEventListener("click", () => onCard(k)); }
      return ce;
    }));
    if (!this.editing) {
      box.append(h("div.godown-row", {}, h("h3", { text: "You can go down" }),
        h("div.melds-row", {}, suggestion.melds.map((m) => meldRow(m))),
        h("div.actions", {},
          h("button#go-down-accept", { type: "button", "aria-keyshortcuts": "Enter", text: "Go down like this", onclick: () => this.act(suggestion) }),
          h("button#go-down-edit.secondary", { type: "button", text: "Change it", onclick: () => {
            this.editing = suggestion.melds.map((m) => [...m]);
            this.selected.clear();
            this.render();
          } }))));
      return box;
    }
    const sel = this.selectedCards();
    box.append(h("h3", { text: "Your go-down" }),
      h("p.muted.small-text", { text: "Click a card in a meld to take it back; select cards in your hand and add them to a meld." }));
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
    const hand = h("div#hand.hand", { role: "list", "aria-label": `your hand, ${plural(this.handOrder.length, "card")}` });
    this.handOrder.forEach((c, i) => {
      const el = cardElement(c, { tag: "button" });
      el.type = "button";
      el.setAttribute("role", "listitem");
      el.dataset.index = String(i);
      if (this.selected.has(i)) { el.classList.add("selected"); el.setAttribute("aria-pressed", "true"); }
      if (used.has(i)) el.classList.add("used");
      if (this.staged && this.staged.action.card === c && !hand.querySelector(".staged")) el.classList.add("staged");
      if (this.newCards.has(c)) {
        el.classList.add("new");
        if (this.fx.hand) el.classList.add("fx-in");
      }
      // one card of the hand is in the tab order (the arrow keys move along the rest)
      el.tabIndex = i === this.cursor ? 0 : -1;
      if (this.hintAction && this.hintAction.card === c && (this.hintAction.type !== "go_down")) {
        if (!hand.querySelector(".hinted")) el.classList.add("hinted");
      }
      if (isWild(c, this.wilds)) el.classList.add("wild-card");
      el.addEventListener("focus", () => { this.cursor = i; });
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
    area.append(h("div.hand-tools", {}, h("span.hand-title", { text: `Your hand (${this.handOrder.length})` }),
      sorter("rank", "By rank"), sorter("suit", "By suit"),
      h("span.muted.small-text.hide-narrow", { text: this.sortMode === "manual" ? "your order" : "drag to reorder" })), hand);
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
    // the keyboard (Space, or Enter with no go-down to confirm) selects too; a pointer's click
    // is handled by the pointer events below (a keyboard click has detail 0)
    el.addEventListener("click", (e) => {
      if (e.detail !== 0 || used.has(index)) return;
      this.toggleSelected(index);
      this.cursor = index;
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
          this.cursor = index;
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

  /** While a lay-off waits to be sent, another move would race it: the person is told. */
  stagedFirst() {
    if (!this.staged) return false;
    this.notice = { kind: "info", text: "Play the lay-off now or undo it first." };
    this.render();
    return true;
  }

  discardSelected() {
    if (this.stagedFirst()) return;
    const [card] = this.selectedCards();
    if (!card) return;
    this.act({ type: "discard", player: this.seat, card });
  }

  playOnMeld(i) {
    if (this.stagedFirst()) return;
    const [card] = this.selectedCards();
    if (!card) return;
    const options = this.legal.filter((a) => ["lay_off", "swap_joker"].includes(a.type) && a.card === card && a.meld === i);
    if (options.length === 1) this.stage(options[0]);
    else if (options.length > 1) { this.choice = options; this.render(); }
    else this.act({ type: "lay_off", player: this.seat, card, meld: i }); // the server says why not
  }

  /** A lay-off (or swap) clicked onto a meld waits a moment, shown in place, so that a slip
   * can be undone before it is sent; "Play it now" sends it at once, and so does a turn clock
   * about to run out. */
  stage(action) {
    this.unstage();
    const d = this.deadline;
    const left = d && d.kind === "turn" && d.seat === this.seat ? d.end - Date.now() : Infinity;
    if (left < STAGE_MS + 1500) { this.act(action); return; }
    const timer = setTimeout(() => this.sendStaged(), STAGE_MS);
    this.staged = { action, end: Date.now() + STAGE_MS, timer };
    this.selected.clear();
    this.announce(`${actionLabel(action, this.view, this.seat)}: sent in ${secs(STAGE_MS)} seconds; press u to undo.`);
    this.render();
  }

  sendStaged() {
    const s = this.staged;
    if (!s) return;
    this.unstage();
    this.act(s.action);
  }

  /** Take back the staged lay-off (``undo``: the person asked, the card is selected again). */
  unstage(undo = false) {
    const s = this.staged;
    if (!s) return false;
    clearTimeout(s.timer);
    this.staged = null;
    if (undo) {
      const i = this.handOrder.indexOf(s.action.card);
      if (i >= 0) { this.selected = new Set([i]); this.cursor = i; }
      this.announce("Lay-off undone.");
      this.render();
    }
    return true;
  }

  renderStaged() {
    const s = this.staged;
    if (!s) return null;
    return h("div#staged.staged", { role: "status" },
      h("span", {}, richText(actionLabel(s.action, this.view, this.seat))),
      h("span.clock", { dataset: { clockStaged: "1" } }),
      h("button#staged-send.small", { type: "button", text: "Play it now", onclick: () => this.sendStaged() }),
      h("button#staged-undo.small.secondary", { type: "button", "aria-keyshortcuts": "u", text: "Undo", onclick: () => this.unstage(true) }));
  }

  startBorrow(meld, card) {
    this.borrowing = this.borrowing && this.borrowing.meld === meld && this.borrowing.card === card ? null : { meld, card };
    this.selected.clear();
    this.render();
  }

  /** Ask for the discard in the open window (b), or say no thanks (n). */
  windowKey(on) {
    const kind = this.intents.includes("call") ? "call" : this.intents.includes("buy") ? "buy" : null;
    if (!kind) return false;
    if (on && this.asking[kind]) return true;
    this.asking[kind] = on;
    if (!on) this.declined[kind] = true;
    this.send({ type: "intent", kind, on });
    this.render();
    return true;
  }

  // ---- keys --------------------------------------------------------------------------------

  onKey(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    if (target && (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) || target.isContentEditable)) return;
    if (e.key === "Escape") {
      if (this.overlay || this.drawer || this.choice) {
        this.overlay = null; this.drawer = false; this.choice = null;
        e.preventDefault();
        this.render();
      } else if (this.pauseShown() && !this.pause) {
        this.handEndOpen = false;
        this.render();
      }
      return;
    }
    if (!this.view) return;
    if (e.key === "?") { this.overlay = this.overlay === "keys" ? null : "keys"; e.preventDefault(); this.render(); return; }
    if (this.overlay || this.pauseShown()) return;
    const onCard = target && target.matches && target.matches("#hand .card");
    const onControl = target && target.closest && target.closest("button, a, summary, [role=button]") && !onCard;
    const n = this.handOrder.length;
    switch (e.key) {
      case "ArrowLeft":
      case "ArrowRight": {
        if (!n || (onControl && !target.closest("#dock"))) return;
        const step = e.key === "ArrowLeft" ? -1 : 1;
        this.cursor = onCard ? (Number(target.dataset.index) + step + n) % n : Math.min(this.cursor, n - 1);
        const el = this.root.querySelector(`#hand .card[data-index="${this.cursor}"]`);
        if (el) {
          for (const c of this.root.querySelectorAll("#hand .card")) c.tabIndex = -1;
          el.tabIndex = 0;
          el.focus();
        }
        e.preventDefault();
        return;
      }
      case " ":
        if (onCard || onControl || !n) return; // a focused button takes its own Space
        this.toggleSelected(this.cursor);
        e.preventDefault();
        this.render();
        return;
      case "Enter": {
        if (onControl) return;
        const go = this.legal.find((a) => a.type === "go_down");
        if (go && !this.editing) { e.preventDefault(); this.act(go); }
        return;
      }
      case "u":
        if (this.unstage(true)) e.preventDefault();
        return;
      case "d":
        if (this.staged) { e.preventDefault(); this.stagedFirst(); return; }
        if (this.myTurnPlay() && this.selected.size === 1) { e.preventDefault(); this.discardSelected(); }
        return;
      case "s": {
        const a = this.legal.find((x) => x.type === "draw");
        if (a) { e.preventDefault(); this.act(a); }
        return;
      }
      case "t": {
        const a = this.legal.find((x) => x.type === "take_discard");
        if (a) { e.preventDefault(); this.act(a); }
        return;
      }
      case "b":
        if (this.windowKey(true)) e.preventDefault();
        return;
      case "n":
        if (this.windowKey(false)) e.preventDefault();
        return;
      default:
    }
  }

  // ---- overlays: scores, keys, the end of a hand -------------------------------------------

  renderScoreSheet(inline) {
    const v = this.view;
    const table = h("table#score-sheet.scores", {},
      h("thead", {}, h("tr", {}, h("th", { text: "Hand" }), v.players.map((p) => h("th", { text: p })))),
      h("tbody", {}, v.scores.map((row, k) => h("tr", {}, h("td", { text: String(k + 1) }), row.map((x) => h("td", { text: String(x) }))))),
      h("tfoot", {}, h("tr", {}, h("th", { text: "Total" }), v.totals.map((x, i) => h("th", { class: v.winners.includes(i) ? "winner" : "", text: String(x) })))));
    if (inline) return h("section#final-scores.panel", {}, h("h3", { text: "Score sheet" }), table);
    return v.scores.length ? table : h("p.muted", { text: "No hand has ended yet." });
  }

  sheet(id, title, body, foot) {
    const close = () => { this.overlay = null; this.render(); };
    return h(`div#${id}.overlay`, { role: "dialog", "aria-modal": "true", "aria-label": title, onclick: (e) => { if (e.target.id === id) close(); } },
      h("div.sheet", {}, h("div.sheet-head", {}, h("h3", { text: title }),
        h("button.small.secondary.close", { type: "button", "aria-label": "close", text: "✕", onclick: close })),
      h("div.sheet-body", {}, body), foot ? h("div.sheet-foot", {}, foot) : null));
  }

  /** The end of the game: the places in order, points and rating changes (a seat that left
   * marked), and what to do next: play again, the replay, the score sheet, the lobby. */
  renderStandings() {
    const t = this.table;
    const v = this.view;
    const me = this.mySeat();
    let rows = (t.standings || []).slice();
    if (!rows.length) {
      // not worked out yet (or an older server): the places by the totals, ties sharing
      rows = v.totals.map((pts, i) => ({ seat: i, name: v.players[i], points: pts,
        place: 1 + v.totals.filter((x) => x < pts).length, rating: null, left: false }));
    }
    rows.sort((a, b) => (a.place - b.place) || (a.seat - b.seat));
    const list = h("ol#standings-list.standings-list", {}, rows.map((r) => {
      const rt = r.rating;
      const change = rt ? (typeof rt.change === "number" ? rt.change :
        (ratingValue(rt.after) !== null && ratingValue(rt.before) !== null ? ratingValue(rt.after) - ratingValue(rt.before) : null)) : null;
      const cls = change === null ? "" : change > 0 ? ".up" : change < 0 ? ".down" : ".same";
      const name = r.name || (r.kind === "bot" ? "a bot" : "a former player");
      return h(`li.standing.place-${Math.min(r.place, 4)}` + (r.seat === me ? ".me" : ""), { dataset: { seat: String(r.seat), place: String(r.place) } },
        h("span.st-place", { text: ordinal(r.place) }),
        h("span.st-name", {}, r.player ? h("a", { href: `/p/${enc(r.player)}`, text: name }) : name,
          r.seat === me ? h("span.muted", { text: " (you)" }) : null,
          r.kind === "bot" && r.level ? h("span.badge.bot", { text: r.level }) : null,
          r.left ? h("span.badge.off.left", { text: "left" }) : null),
        h("span.st-points", { text: `${r.points} pts` }),
        h("span.st-rating", {}, rt ? [h("span.st-after", { title: "rating after this game", text: ratingText(rt.after) }),
          change !== null && !(r.kind === "bot" && change === 0) ? h("span.st-change" + cls, { text: changeText(change) }) : null] : null));
    }));
    const actions = [];
    if (this.mySeat() !== null && !t.rematch) {
      actions.push(h("button#rematch", { type: "button", disabled: this.rematching, text: this.rematching ? "Setting the table…" : "Play again", onclick: () => this.rematch() }));
    }
    actions.push(h("a.button#replay-link" + (actions.length ? ".secondary" : ""), { href: `/replay/${enc(this.id)}`, text: "Watch the replay" }),
      h("a.button.secondary#review-link", { href: `/review/${enc(this.id)}?seat=${me ?? 0}`, text: "Review", title: "what the expert thinks of every decision" }),
      h("button#standings-scores.secondary", { type: "button", text: "Score sheet", onclick: () => {
        const el = document.getElementById("final-scores");
        if (el) el.scrollIntoView({ block: "start" });
      } }),
      h("a.button.secondary#lobby-link", { href: "/", text: "Back to the lobby" }));
    const w = v.winners.map((s) => s === me ? "You" : this.name(s));
    return h("section#standings.panel.standings", { "aria-label": "final standings" },
      h("h2", { text: "Game over" }),
      h("p.st-winner", { text: w.length ? `${names(w)} ${w.length === 1 && w[0] !== "You" ? "wins" : "win"}.` : "" }),
      list,
      t.standings ? null : h("p.muted.small-text", { text: "The ratings are being worked out…" }),
      h("div.standings-actions", {}, actions));
  }

  /** At the top of a finished table with a rematch: the offer to join it (a seated player not
   * there yet), or the link to it. */
  renderRematchBanner() {
    const t = this.table;
    if (!t || !t.rematch) return null;
    const mine = savedSeat(t.rematch);
    const host = this.rematchHost && this.rematchHost.table === t.rematch ? this.rematchHost.name : null;
    if (this.mySeat() !== null && !mine) return rematchBanner(t.rematch, () => this.rematch(), host);
    return rematchBanner(t.rematch, null);
  }

  renderMenu() {
    return this.sheet("game-menu", "Game menu", h("div.menu-items", {},
      h("button#leave-game.danger", { type: "button", disabled: this.seatLeft(this.seat), text: this.seatLeft(this.seat) ? "You left the game" : "Leave the game…", onclick: () => { this.overlay = "leave"; this.render(); } }),
      h("a.button.secondary", { href: "/", target: "_blank", rel: "noopener", text: "Open the lobby in a new tab" }), guideButton(this)));
  }

  renderLeave() {
    const stay = () => { this.overlay = null; this.render(); };
    return h("div#leave-dialog.overlay", { role: "alertdialog", "aria-modal": "true", "aria-label": "Leave the game?" },
      h("div.sheet.narrow", {}, h("div.sheet-head", {}, h("h3", { text: "Leave the game?" })),
        h("div.sheet-body", {}, h("p", { text: "A computer player takes your seat for the rest of the game, and you are placed last, whatever the scores (a rated game counts it as a loss)." }),
          h("p.muted", { text: "You can still watch the game from here." })),
        h("div.sheet-foot", {},
          h("button#leave-cancel.secondary", { type: "button", text: "Stay", onclick: stay }),
          h("button#leave-confirm.danger", { type: "button", text: "Leave the game", onclick: () => this.leaveGame() }))));
  }

  renderScoresOverlay() {
    return this.sheet("score-dialog", "Score sheet", this.renderScoreSheet(false));
  }

  /** Back at a seat a bot covered: the bot's moves for this seat and the hands that ended
   * meanwhile (the server's events, as this seat's log reads them). */
  renderAway() {
    const events = this.away.events || [];
    const players = this.players();
    const body = events.length ?
      h("ol#away-moves.log-lines", {}, events.map((ev) => h("li", { dataset: { type: ev.type || "" } }, entryNodes(ev, players, this.seat)))) :
      h("p.muted", { text: "Nothing happened at your seat." });
    const close = () => { this.overlay = null; this.away = null; this.render(); };
    return this.sheet("away", "While you were away, a computer player played your seat",
      body, h("button#away-ok", { type: "button", text: "Back to the game", onclick: close }));
  }

  renderKeys() {
    return this.sheet("keys-help", "Keys", h("dl.keys", {}, KEYS.map(([k, what]) => [h("dt", {}, h("kbd", { text: k })), h("dd", { text: what })])), guideButton(this));
  }

  /** The end of a hand: who went out, everyone's cards left with the points, the totals, and
   * the next hand's countdown with the button to say you are ready. */
  renderHandEnd() {
    const v = this.view;
    const e = this.handEnd;
    const n = v.players.length;
    const lastRow = v.scores.length ? v.scores[v.scores.length - 1] : null;
    const handNo = e ? e.hand_number : Math.max(1, v.scores.length);
    const points = e ? e.points : lastRow || new Array(n).fill(null);
    const totals = e ? e.totals : v.totals;
    const out = e ? e.went_out || [] : [];
    const over = v.phase === "over";
    const rows = v.players.map((p, i) => {
      const cards = e && e.hands ? e.hands[i] || [] : null;
      return h("tr", { dataset: { seat: String(i) }, class: out.includes(i) ? "went-out" : "" },
        h("th", { scope: "row" }, h("span", { text: p + (i === this.seat ? " (you)" : "") }),
          out.includes(i) ? h("span.badge", { text: "out" }) : null,
          e && e.down && !e.down[i] ? h("span.badge.off", { text: "not down" }) : null),
        h("td.end-cards", {}, cards === null ? h("span.muted", { text: "—" }) :
          cards.length ? h("div.end-hand", { dataset: { seat: String(i) }, role: "list", "aria-label": `${p}'s cards left` }, cards.map((c) => {
            const ce = cardElement(c);
            ce.classList.add("small");
            ce.setAttribute("role", "listitem");
            return ce;
          })) : h("span.muted", { text: "no cards" })),
        h("td.end-points", { text: points[i] === null || points[i] === undefined ? "" : String(points[i]) }),
        h("td.end-total", { text: String(totals[i]) }));
    });
    const body = [
      h("p.end-who", { text: out.length ? `${names(out.map((s) => s === this.seat ? "You" : this.name(s)))} went out.` :
        e ? "Nobody went out." : "" }),
      h("table.end-table", {}, h("thead", {}, h("tr", {}, h("th", { text: "Player" }), h("th", { text: "Cards left" }),
        h("th", { text: "Points" }), h("th", { text: "Total" }))), h("tbody", {}, rows)),
    ];
    if (e && e.melds && e.melds.length) {
      body.push(h("details.end-melds", {}, h("summary", { text: `Melds on the table (${e.melds.length})` }),
        h("div.melds", {}, e.melds.map((m, i) => meldElement(m, i, null, v.players, this.seat)))));
    }
    const foot = [];
    if (this.pause) {
      const waiting = (this.pause.waiting || []).filter((s) => s !== this.seat).map((s) => this.name(s));
      foot.push(h("span#pause-clock.clock", { dataset: { clockPause: "1" } }));
      if (this.seat !== null && !this.readySent) {
        foot.push(h("button#next-hand", { type: "button", text: "Next hand", onclick: () => {
          this.readySent = true;
          this.send({ type: "ready" });
          this.render();
        } }));
      } else {
        foot.push(h("span#ready-wait.muted", { text: waiting.length ? `Waiting for ${names(waiting)}…` : "Starting…" }));
      }
    } else {
      foot.push(h("button#hand-end-close", { type: "button", text: over ? "See the final scores" : "Close", onclick: () => { this.handEndOpen = false; this.render(); } }));
    }
    return h("div#hand-end.overlay.hand-end", { role: "dialog", "aria-modal": "true", "aria-label": `Hand ${handNo} over` },
      h("div.sheet", {}, h("div.sheet-head", {}, h("h3", { text: over ? `Hand ${handNo} over: the game is over` : `Hand ${handNo} over` })),
        h("div.sheet-body", {}, ...body), h("div.sheet-foot", {}, ...foot)));
  }

  updateClocks() {
    const d = this.deadline;
    const now = Date.now();
    for (const el of this.root.querySelectorAll("[data-clock-seat]")) {
      const on = d && d.kind === "turn" && String(d.seat) === el.dataset.clockSeat;
      el.textContent = on ? `⏱ ${secs(d.end - now)} s` : "";
    }
    const st = this.root.querySelector("[data-clock-staged]");
    if (st && this.staged) st.textContent = `sent in ${secs(this.staged.end - now)} s`;
    const b = this.root.querySelector("[data-clock-buy]");
    if (b && d && (d.kind === "buy" || d.kind === "call")) b.textContent = `closes in ${secs(d.end - now)} s`;
    const bar = this.root.querySelector("#window-bar:not(.open-ended)");
    if (bar && d && d.total > 0) bar.style.setProperty("--left", String(Math.max(0, Math.min(1, (d.end - now) / d.total))));
    const p = this.root.querySelector("[data-clock-pause]");
    if (p && this.pause) p.textContent = `Next hand in ${secs(this.pause.end - now)} s`;
  }
}
