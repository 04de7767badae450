// The table's chat (docs/web-protocol.md, "Chat"): the lines the server broadcasts, the quick
// reactions, the host's settings, who is watching, and this viewer's mutes.
// The panel is one element kept for the page's life: the table page puts it in its side panel
// (a drawer on a phone) or its waiting room at each redraw, so a line being typed survives the
// redraws. Everything said is drawn with textContent, never as HTML.
// Domain words: line (one thing said: text or a reaction, numbered by the server), speaker (who
// said it, as the server says: "from" with its id, seat and name), players' chat and
// spectators' chat (the lines of seats, and of spectators, shown apart: a viewer may hide the
// spectators'), mute (a viewer's own list of speaker ids, per table, in localStorage: their
// lines and reactions are not shown), unread (lines come while the panel is out of sight),
// watchers (the spectators present, as the server counts them).

import { h } from "./util.js";

// each reaction the server takes, as the page shows it
export const REACTIONS = {
  nice: ["👍", "Nice"], oops: ["😬", "Oops"], thanks: ["🙏", "Thanks"],
  hurry: ["⏳", "Hurry up"], gg: ["🤝", "Good game"], wow: ["😮", "Wow"],
};
const KEPT = 200; // lines of each chat the page keeps
const FLOAT_MS = 2600; // how long a reaction floats by its speaker
const HIDE_SPECTATORS = "liverpool:chat:hide-spectators";

function reactionText(id) {
  const r = REACTIONS[id];
  return r ? `${r[0]} ${r[1]}` : String(id);
}

export class Chat {
  /** ``send(msg)``: to the server (false when not connected); ``seat()``: this page's seat
   * (null: watching). */
  constructor(tableId, { send, seat }) {
    this.id = tableId;
    this.sendMsg = send;
    this.seat = seat;
    this.on = true;
    this.spectators = false;
    this.me = null; // the speaker id this page speaks as
    this.players = []; // the players' lines, oldest first
    this.watching = []; // the spectators' lines
    this.seen = 0; // the number of the last line this page has
    this.unread = 0;
    this.tab = "players";
    this.watchers = { count: 0, names: [] };
    this.watchersOpen = false;
    this.error = "";
    this.hideSpectators = localStorage.getItem(HIDE_SPECTATORS) === "1";
    this.muted = this.loadMuted(); // speaker id -> the name they had
    this.badges = new Set(); // the unread badges drawn (updated in place)
    this.shownBadges = new WeakSet(); // those seen in the page
    this.el = null;
  }

  // ---- messages from the server -------------------------------------------------------------

  /** A message of the table's websocket; true when it is the chat's alone (the table page
   * need not redraw). */
  receive(msg) {
    switch (msg.type) {
      case "welcome":
        if (msg.chat) this.welcome(msg.chat);
        return false;
      case "chat":
        this.add(msg, true);
        return true;
      case "chat_settings":
        this.on = msg.chat !== false;
        this.spectators = msg.spectators === true;
        this.error = "";
        this.draw();
        return true;
      case "watchers":
        this.watchers = { count: msg.count || 0, names: msg.names || [] };
        this.drawWatchers();
        return true;
      case "error":
        if (!["bad_chat", "chat_off", "chat_spectators", "chat_rate", "not_host"].includes(msg.code)) return false;
        this.error = msg.message || msg.code;
        this.draw();
        return true;
      default:
        return false;
    }
  }

  welcome(chat) {
    this.on = chat.on !== false;
    this.spectators = chat.spectators === true;
    this.me = chat.me || null;
    if (chat.watchers) this.watchers = chat.watchers;
    // a reconnect: the lines this page has not seen yet, and none twice
    for (const line of chat.lines || []) this.add(line, false);
    this.draw();
  }

  add(line, live) {
    if (typeof line.n !== "number" || line.n <= this.seen) return;
    this.seen = line.n;
    const from = line.from || {};
    const list = from.seat === null || from.seat === undefined ? this.watching : this.players;
    list.push(line);
    if (list.length > KEPT) list.shift();
    const shown = !this.muted.has(from.id) && (list === this.players || !this.hideSpectators);
    if (live && shown) {
      if (line.reaction) this.float(line);
      if (from.id !== this.me) {
        if (!this.inView()) this.unread++;
        // said to screen readers once (the list itself is redrawn whole)
        const region = document.getElementById("live");
        if (region) region.textContent = `${from.name || "?"}: ${line.reaction ? reactionText(line.reaction) : line.text || ""}`;
      }
    }
    this.draw();
    this.markRead();
  }

  // ---- what this page sends -----------------------------------------------------------------

  say(text) {
    if (!text.trim()) return false;
    if (!this.sendMsg({ type: "chat", text })) {
      this.error = "Not connected: the line was not sent.";
      this.draw();
      return false;
    }
    this.error = "";
    return true;
  }

  react(id) {
    if (!this.sendMsg({ type: "react", reaction: id })) {
      this.error = "Not connected: the reaction was not sent.";
      this.draw();
    }
  }

  settings(on, spectators) {
    this.sendMsg({ type: "chat_settings", chat: on, spectators });
  }

  // ---- mutes ----------------------------------------------------------------------------------

  loadMuted() {
    try {
      const saved = JSON.parse(localStorage.getItem(`liverpool:${this.id}:mute`) || "{}");
      return new Map(Object.entries(saved && typeof saved === "object" ? saved : {}));
    } catch (e) {
      return new Map();
    }
  }

  mute(from, on) {
    if (!from || !from.id || from.id === this.me) return;
    if (on) this.muted.set(from.id, String(from.name || from.id));
    else this.muted.delete(from.id);
    localStorage.setItem(`liverpool:${this.id}:mute`, JSON.stringify(Object.fromEntries(this.muted)));
    this.draw();
  }

  // ---- drawing --------------------------------------------------------------------------------

  /** The panel (the same element at every redraw of the table page). */
  panel() {
    if (!this.el) this.build();
    this.draw();
    requestAnimationFrame(() => this.markRead());
    return this.el;
  }

  build() {
    const input = h("input#chat-input", { type: "text", maxlength: "200", autocomplete: "off",
      "aria-label": "chat message", placeholder: "Say something…" });
    const form = h("form#chat-form.chat-form", { onsubmit: (e) => {
      e.preventDefault();
      if (this.say(input.value)) input.value = "";
    } }, input, h("button#chat-send.small", { type: "submit", text: "Send" }));
    const tab = (key, label) => h(`button#chat-tab-${key}.chat-tab`, { type: "button", role: "tab",
      onclick: () => { this.tab = key; this.draw(); this.markRead(); } }, label);
    const spectatorsShown = h("input#chat-show-spectators", { type: "checkbox", onchange: (e) => {
      this.hideSpectators = !e.target.checked;
      localStorage.setItem(HIDE_SPECTATORS, this.hideSpectators ? "1" : "0");
      if (this.hideSpectators) this.tab = "players";
      this.draw();
    } });
    const hostOn = h("input#chat-on", { type: "checkbox", onchange: () => this.settings(hostOn.checked, hostSpectators.checked) });
    const hostSpectators = h("input#chat-spectators", { type: "checkbox", onchange: () => this.settings(hostOn.checked, hostSpectators.checked) });
    this.parts = {
      input, form, spectatorsShown, hostOn, hostSpectators,
      tabs: h("div.chat-tabs", { role: "tablist" }, tab("players", "Players"), tab("spectators", "Spectators")),
      host: h("div#chat-host.chat-host", {},
        h("label", {}, hostOn, " Chat on"), h("label", {}, hostSpectators, " Spectators may chat")),
      state: h("p#chat-state.chat-state.muted"),
      lines: h("ol#chat-lines.chat-lines", { "aria-label": "chat" }),
      reactions: h("div#chat-reactions.chat-reactions", {}, Object.entries(REACTIONS).map(([id, [emoji, words]]) =>
        h("button.small.secondary.chat-react", { type: "button", title: words, "aria-label": words, dataset: { reaction: id },
          // the word too: an emoji may have no font to be drawn with
          onclick: () => this.react(id) }, h("span.react-emoji", { "aria-hidden": "true", text: emoji }), " ", words))),
      error: h("p#chat-error.error", { role: "alert" }),
      mutedList: h("div#chat-muted.chat-muted"),
      options: h("label.chat-option", {}, spectatorsShown, " Show the spectators' chat"),
    };
    const p = this.parts;
    this.el = h("section#chat.chat", { "aria-label": "chat" },
      p.host, p.tabs, p.state, p.lines, p.error, p.reactions, form, p.options, p.mutedList);
  }

  draw() {
    for (const b of this.badges) {
      // one of a redraw still being built is not in the page yet; one that was is gone
      if (b.isConnected) this.shownBadges.add(b);
      else if (this.shownBadges.has(b)) { this.badges.delete(b); continue; }
      b.textContent = this.unread ? String(this.unread) : "";
      b.hidden = !this.unread;
    }
    if (!this.el) return;
    const p = this.parts;
    const seat = this.seat();
    const spectator = seat === null || seat === undefined;
    p.host.hidden = seat !== 0;
    p.hostOn.checked = this.on;
    p.hostSpectators.checked = this.spectators;
    if (this.hideSpectators && this.tab === "spectators") this.tab = "players";
    const tabs = p.tabs.querySelectorAll(".chat-tab");
    tabs.forEach((t) => {
      const on = t.id === `chat-tab-${this.tab}`;
      t.classList.toggle("on", on);
      t.setAttribute("aria-selected", String(on));
    });
    p.tabs.hidden = this.hideSpectators;
    p.spectatorsShown.checked = !this.hideSpectators;
    const mayTalk = this.on && (!spectator || this.spectators);
    p.state.textContent = !this.on ? "The host has turned the chat off." :
      spectator && !this.spectators ? "Spectators may read the players' chat; the host has not let them speak." :
      this.tab === "spectators" && !this.spectators ? "The host has not let spectators speak." : "";
    p.state.hidden = !p.state.textContent;
    p.input.disabled = !mayTalk;
    p.form.querySelector("button").disabled = !mayTalk;
    for (const b of p.reactions.querySelectorAll("button")) b.disabled = !mayTalk;
    p.error.textContent = this.error;
    this.drawLines();
    p.mutedList.replaceChildren(...(this.muted.size ? [h("span", { text: "Muted: " }),
      ...[...this.muted].map(([id, name]) => h("button.small.secondary.chat-unmute", { type: "button", dataset: { from: id },
        title: `unmute ${name}`, onclick: () => this.mute({ id }, false) }, `${name} ✕`))] : []));
  }

  drawLines() {
    const list = this.tab === "spectators" ? this.watching : this.players;
    const shown = list.filter((l) => !this.muted.has((l.from || {}).id));
    const lines = this.parts.lines;
    const atEnd = lines.scrollHeight - lines.scrollTop - lines.clientHeight < 24;
    lines.replaceChildren(...(shown.length ? shown.map((l) => this.lineElement(l)) :
      [h("li.muted.chat-empty", { text: this.tab === "spectators" ? "No spectator has said anything." : "Nothing said yet." })]));
    if (atEnd) lines.scrollTop = lines.scrollHeight;
  }

  lineElement(line) {
    const from = line.from || {};
    const mine = from.id === this.me;
    return h("li.chat-line" + (mine ? ".mine" : "") + (line.reaction ? ".reaction" : ""),
      { dataset: { n: String(line.n), from: String(from.id || "") } },
      h("span.chat-who", { text: mine ? "You" : String(from.name || "?") }), ": ",
      line.reaction ? h("span.chat-text.chat-reaction", { text: reactionText(line.reaction) }) :
        h("span.chat-text", { text: String(line.text || "") }),
      mine ? null : h("button.linkish.chat-mute", { type: "button", title: `mute ${from.name || ""}`, "aria-label": `mute ${from.name || ""}`,
        text: "mute", onclick: () => this.mute(from, true) }));
  }

  /** An unread count for a tab or button (kept up to date as lines come). */
  badge() {
    const b = h("span.badge.chat-unread", { "aria-label": "unread chat lines" });
    this.badges.add(b);
    b.textContent = this.unread ? String(this.unread) : "";
    b.hidden = !this.unread;
    return b;
  }

  inView() {
    if (!this.el || !this.el.isConnected || document.hidden) return false;
    return this.el.getClientRects().length > 0 && getComputedStyle(this.el).visibility !== "hidden";
  }

  markRead() {
    if (this.unread && this.inView()) {
      this.unread = 0;
      this.draw();
    }
  }

  // ---- reactions by the speaker's seat; who is watching -------------------------------------

  float(line) {
    const from = line.from || {};
    const seat = from.seat;
    const anchor = (seat !== null && seat !== undefined &&
      (document.querySelector(`#players .player[data-seat="${seat}"]`) || document.querySelector(`#seats li[data-seat="${seat}"]`))) ||
      document.getElementById("watchers-button") || this.el;
    if (!anchor || !anchor.isConnected) return;
    const r = anchor.getBoundingClientRect();
    const el = h("div.reaction-float", { role: "presentation", dataset: { from: String(from.id || ""), seat: seat === null || seat === undefined ? "" : String(seat) } },
      h("span.reaction-emoji", { text: (REACTIONS[line.reaction] || ["?"])[0] }),
      h("span.reaction-who", { text: `${from.id === this.me ? "You" : from.name || ""}: ${(REACTIONS[line.reaction] || ["", line.reaction])[1]}` }));
    el.style.left = `${Math.max(4, r.left + r.width / 2 - 60)}px`;
    el.style.top = `${Math.max(4, r.top + 4)}px`;
    document.body.append(el);
    setTimeout(() => el.remove(), FLOAT_MS);
  }

  /** The eye with the count of spectators; its list opens on click. */
  watchersButton() {
    const n = this.watchers.count || 0;
    const wrap = h("div#watchers.watchers");
    const button = h("button#watchers-button.small.secondary", { type: "button", "aria-expanded": String(this.watchersOpen),
      title: "who is watching", "aria-label": `${n} watching`, onclick: () => { this.watchersOpen = !this.watchersOpen; this.drawWatchers(); } },
    h("span#watchers-count", { text: String(n) }), " watching");
    wrap.append(button);
    this.watchersEl = wrap;
    this.fillWatchers();
    return wrap;
  }

  drawWatchers() {
    if (this.watchersEl && this.watchersEl.isConnected) this.fillWatchers();
  }

  fillWatchers() {
    const w = this.watchersEl;
    const n = this.watchers.count || 0;
    const button = w.querySelector("#watchers-button");
    button.setAttribute("aria-expanded", String(this.watchersOpen));
    button.setAttribute("aria-label", `${n} watching`);
    w.querySelector("#watchers-count").textContent = String(n);
    const old = w.querySelector("#watchers-list");
    if (old) old.remove();
    if (!this.watchersOpen) return;
    const names = this.watchers.names || [];
    w.append(h("ul#watchers-list.watchers-list", { "aria-label": "watching" },
      names.length ? names.map((name) => h("li", { text: String(name) })) : [h("li.muted", { text: "Nobody is watching." })],
      n > names.length ? h("li.muted", { text: `and ${n - names.length} more` }) : null));
  }
}

/** A replay's chat (its "chat": each line with the step it was said at): the lines said up to
 * step ``at``, those of that step marked. */
export function replayChat(lines, at) {
  const said = (lines || []).filter((l) => typeof l.step === "number" && l.step <= at);
  return h("section#replay-chat.panel.replay-chat", { "aria-label": "chat" }, h("h3", { text: "Chat" }),
    said.length ? h("ol.chat-lines", {}, said.map((l) => {
      const from = l.from || {};
      return h("li.chat-line" + (l.step === at ? ".now" : ""), { dataset: { n: String(l.n), step: String(l.step) } },
        h("span.chat-who", { text: String(from.name || "?") }), ": ",
        h("span.chat-text", { text: l.reaction ? reactionText(l.reaction) : String(l.text || "") }));
    })) : h("p.muted", { text: "Nothing said yet." }));
}
