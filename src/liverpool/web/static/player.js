// A player's page (/p/{player}) and the leaderboard (/leaderboard), from the players' API
// (docs/web-protocol.md, "Players, ratings and rematch"). A player's page shows what the server
// returns: the name, since when, the rating with its chart (an SVG drawn here from the
// rating's history: no chart library), the statistics of each preset and the finished games a
// page at a time; what the player keeps private comes back null and is said so. On one's own
// page (the key this browser holds is theirs): the name, being listed, showing the games, a
// recovery code, and "Forget me". /p/me is this browser's own page, or, with no player yet, the
// place to use a recovery code.
// Domain words: player, key (this browser's secret for its player; sent only in a header),
// recovery code (gives another device a key of its own), listed (on the leaderboard), public
// (games and statistics shown), provisional (a rating from few games: shown with "?"), preset,
// figures (one preset's statistics), standings (a finished game's places), bot rating.

import { contractText } from "./cards.js";
import {
  api, changeText, copyText, errorText, forgetEverything, getPlayer, h, ordinal, ratingText,
  ratingValue, renamePlayer, savePlayer, svg,
} from "./util.js";

const GAMES_PAGE = 10; // games per page of a player's list
const BOARD_PAGE = 25; // players per page of the leaderboard

const enc = encodeURIComponent;

function dateText(when) {
  const d = typeof when === "number" ? new Date(when * 1000) : new Date(when);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

function dateTimeText(when) {
  const d = new Date(when);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

function percent(x) {
  return typeof x === "number" && Number.isFinite(x) ? `${Math.round(x * 100)}%` : "—";
}

function num(x, digits = 1) {
  return typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits).replace(/\.0+$/, "") : "—";
}

function changesText(overrides) {
  const n = Object.keys(overrides || {}).length;
  return n ? ` with ${n} change${n === 1 ? "" : "s"}` : "";
}

/** A contract as the figures name it: its words ("2 sets"), whatever form the server sends. */
function contractLabel(c) {
  if (c && typeof c === "object") return contractText(c) || JSON.stringify(c);
  return String(c);
}

/** A seat's name in a list: a person's links to their page, a bot says its level. */
function seatName(s) {
  const name = s.name || (s.kind === "bot" ? "a bot" : "a former player");
  const text = s.kind === "bot" && s.level ? `${name} (${s.level})` : name;
  return s.player ? h("a", { href: `/p/${enc(s.player)}`, text }) : h("span", { text });
}

// ---- the rating chart ------------------------------------------------------------------------

/**
 * The rating over time as an SVG ``width`` pixels wide (drawn at the box's own width, so that
 * the labels keep their size on a phone): the line of the shown rating, a dot per game, the
 * axes, the lowest and highest rating on the left, the first and last date below.
 */
export function ratingChart(history, width) {
  const W = Math.max(240, Math.round(width));
  const H = W < 480 ? 170 : 210;
  const pad = { l: 46, r: 14, t: 12, b: 30 };
  const pts = history.filter((p) => Array.isArray(p) && typeof p[0] === "number" && typeof p[1] === "number");
  const ts = pts.map((p) => p[0]);
  const rs = pts.map((p) => p[1]);
  let t0 = Math.min(...ts);
  let t1 = Math.max(...ts);
  if (t1 - t0 < 1) { t0 -= 43200; t1 += 43200; }
  const lo = Math.min(...rs);
  const hi = Math.max(...rs);
  const span = Math.max(hi - lo, 20);
  const y0 = lo - span * 0.08;
  const y1 = hi + span * 0.08;
  // a point by its place in the list when the times bunch up (several games in an hour)
  const byIndex = pts.length > 1 && new Set(ts).size < pts.length;
  const x = (p, i) => pad.l + (W - pad.l - pad.r) * (byIndex ? i / (pts.length - 1) : (p[0] - t0) / (t1 - t0));
  const y = (r) => pad.t + (H - pad.t - pad.b) * (1 - (r - y0) / (y1 - y0));
  const line = pts.map((p, i) => `${i ? "L" : "M"}${x(p, i).toFixed(1)},${y(p[1]).toFixed(1)}`).join(" ");
  const last = pts[pts.length - 1];
  const first = pts[0];
  const chart = svg("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
    "aria-label": `Rating over ${pts.length} rated game${pts.length === 1 ? "" : "s"}: from ${Math.round(first[1])} to ${Math.round(last[1])}, lowest ${Math.round(lo)}, highest ${Math.round(hi)}` },
  svg("line", { class: "grid", x1: pad.l, x2: W - pad.r, y1: y(hi), y2: y(hi) }),
  svg("line", { class: "grid", x1: pad.l, x2: W - pad.r, y1: y(lo), y2: y(lo) }),
  svg("line", { class: "axis", x1: pad.l, x2: pad.l, y1: pad.t, y2: H - pad.b }),
  svg("line", { class: "axis", x1: pad.l, x2: W - pad.r, y1: H - pad.b, y2: H - pad.b }),
  svg("text", { class: "label max", x: pad.l - 6, y: y(hi) + 4, "text-anchor": "end", text: String(Math.round(hi)) }),
  hi !== lo ? svg("text", { class: "label min", x: pad.l - 6, y: y(lo) + 4, "text-anchor": "end", text: String(Math.round(lo)) }) : null,
  svg("text", { class: "label", x: pad.l, y: H - 10, "text-anchor": "start", text: dateText(first[0]) }),
  pts.length > 1 ? svg("text", { class: "label", x: W - pad.r, y: H - 10, "text-anchor": "end", text: dateText(last[0]) }) : null,
  svg("path", { class: "line", d: line }));
  if (pts.length <= 80) {
    pts.forEach((p, i) => chart.append(svg("circle", { class: "dot", cx: x(p, i).toFixed(1), cy: y(p[1]).toFixed(1), r: 3 },
      svg("title", { text: `${dateText(p[0])}: ${Math.round(p[1])}` }))));
  }
  chart.append(svg("circle", { class: "dot last", cx: x(last, pts.length - 1).toFixed(1), cy: y(last[1]).toFixed(1), r: 4.5 }));
  return chart;
}

/** A box holding the chart, drawn again at its own width when the window changes size. */
function chartBox(history) {
  const box = h("div#rating-chart.chart-box");
  const draw = () => {
    if (!box.isConnected) return;
    box.replaceChildren(ratingChart(history, box.clientWidth || 320));
  };
  let timer = null;
  const onResize = () => {
    if (!box.isConnected) { window.removeEventListener("resize", onResize); return; }
    clearTimeout(timer);
    timer = setTimeout(draw, 120);
  };
  window.addEventListener("resize", onResize);
  box.draw = draw;
  return box;
}

// ---- a player's page ---------------------------------------------------------------------------

export async function showPlayer(root, playerId) {
  let id = playerId;
  const me = getPlayer();
  if (id === "me") {
    if (!me) { showNoPlayer(root); return; }
    id = me.id;
    history.replaceState(null, "", `/p/${enc(id)}`);
  }
  document.title = "Liverpool Rummy: player";
  root.replaceChildren(h("p.loading", { text: "Loading…" }));
  const own = !!(me && me.id === id);
  let profile;
  let mine = null;
  try {
    profile = await api("GET", `/api/players/${enc(id)}`);
    if (own && getPlayer()) mine = await api("GET", "/api/players/me", undefined, { retry: false }).catch(() => null);
  } catch (e) {
    root.replaceChildren(h("section.panel.player-page", {}, h("h2", { text: "Player" }),
      h("p#player-error.error", { role: "alert", text: e.status === 404 ? "There is no such player (or they asked to be forgotten)." : errorText(e) }),
      h("a.button", { href: "/", text: "Back to the lobby" })));
    return;
  }
  const isMe = !!(mine || (profile.me && getPlayer()));
  new PlayerPage(root, id, profile, isMe ? (mine || profile) : null).render();
}

/** /p/me on a browser with no player: what a player is, and a recovery code to use. */
function showNoPlayer(root) {
  document.title = "Liverpool Rummy: my page";
  root.replaceChildren(h("div.player-page", {},
    h("section.panel", {}, h("h2", { text: "My page" }),
      h("p", { text: "This browser plays as a guest: no player is kept here yet. The first time you create or join a table with a nickname, the server remembers you as a player (no password: this browser keeps a key), with a rating and your games." }),
      h("a.button", { href: "/", text: "To the lobby" })),
    recoverPanel(false)));
}

/** "Use a recovery code": a code shown on another device gives this one a key of its own. */
function recoverPanel(switching) {
  const input = h("input#recover-code", { type: "text", autocomplete: "off", spellcheck: "false", placeholder: "recovery code", "aria-label": "recovery code" });
  const msg = h("p#recover-error.error", { role: "alert" });
  const go = async (ev) => {
    ev.preventDefault();
    msg.textContent = "";
    const code = input.value.trim();
    if (!code) { msg.textContent = "Type or paste the code."; return; }
    try {
      const p = await api("POST", "/api/players/recover", { code }, { auth: false });
      savePlayer(p);
      location.href = `/p/${enc(p.id)}`;
    } catch (e) {
      msg.textContent = [400, 403, 404].includes(e.status) ?
        "That code does not work: check it, or show a new one on a device that still knows you (only the latest code works)." : errorText(e);
    }
  };
  return h("section#recover-panel.panel", {}, h("h3", { text: "Use a recovery code" }),
    h("p.muted", { text: switching ?
      "A code shown on another device makes this browser that player (this browser's own player is left as it is on the server)." :
      "Shown on a device where you play (your page, \"Show a recovery code\"): it gives this browser a key of its own for the same player." }),
    h("form#recover-form.inline-form", { onsubmit: go }, input, h("button#recover", { type: "submit", text: "Use the code" })), msg);
}

class PlayerPage {
  constructor(root, id, profile, mine) {
    this.root = root;
    this.id = id;
    this.profile = profile;
    this.mine = mine; // the own profile (listed, public, recovery), or null: someone else's page
  }

  render() {
    const p = this.profile;
    document.title = `Liverpool Rummy: ${p.name}`;
    const chart = Array.isArray(p.rating_history) && p.rating_history.length ? chartBox(p.rating_history) : null;
    const hidden = p.games === null && p.stats === null && !this.mine;
    const parts = [this.head(), chart ? h("section.panel", {}, h("h3", { text: "Rating" }), chart) : null];
    if (hidden) {
      parts.push(h("section.panel", {}, h("p#private.muted", { text: "This player keeps their games private." })));
    } else {
      parts.push(this.statsPanel(), new GamesList(this.id).el);
    }
    if (this.mine) parts.push(this.settings(), recoverPanel(true));
    this.root.replaceChildren(h("div.player-page", { dataset: { player: this.id } }, ...parts));
    if (chart) chart.draw();
  }

  head() {
    const p = this.profile;
    const r = p.rating;
    return h("section.panel.player-head", {},
      h("h2#player-name", { text: p.name || "a former player" }, this.mine ? h("span.badge", { text: "you" }) : null),
      h("div.player-facts", {},
        p.since ? h("span#player-since", { text: `Playing since ${dateText(p.since)}` }) : null,
        typeof p.games === "number" ? h("span#player-games", { text: `${p.games} game${p.games === 1 ? "" : "s"}` }) : null,
        h("span#player-rating.rating-big", { title: r && r.provisional ? "provisional: a few more rated games settle it" : "" },
          "Rating ", h("strong", { text: r ? ratingText(r) : "—" })),
        r && r.provisional ? h("span.muted.small-text", { text: "(? : provisional, from few games)" }) : null,
        !r && !this.mine ? h("span.muted.small-text", { text: "(not shown)" }) : null));
  }

  statsPanel() {
    const stats = this.profile.stats;
    const box = h("section#stats.panel", {}, h("h3", { text: "Statistics" }));
    if (stats === null || stats === undefined) {
      box.append(h("p.muted", { text: "This player keeps their statistics private." }));
      return box;
    }
    const presets = Object.keys(stats);
    if (!presets.length) {
      box.append(h("p.muted", { text: "No finished game yet." }));
      return box;
    }
    const rows = [
      ["Games", (f) => String(f.games ?? "—")],
      ["Wins", (f) => `${f.wins ?? "—"}` + (typeof f.win_rate === "number" ? ` (${percent(f.win_rate)})` : "")],
      ["Mean place", (f) => num(f.mean_place) + (typeof f.mean_players === "number" ? ` of ${num(f.mean_players)}` : "")],
      ["Hands", (f) => String(f.hands ?? "—")],
      ["Points per hand", (f) => num(f.points_per_hand)],
      ["Going-out rate", (f) => percent(f.going_out_rate)],
      ["Buys per hand", (f) => num(f.buys_per_hand, 2)],
      ["Games left", (f) => String(f.left ?? 0)],
    ];
    // each contract's made rate: the contracts of every preset, in the order first met
    const contracts = [];
    for (const p of presets) {
      for (const c of stats[p].contracts || []) {
        const label = contractLabel(c.contract);
        if (!contracts.includes(label)) contracts.push(label);
      }
    }
    const made = (f, label) => {
      const c = (f.contracts || []).find((x) => contractLabel(x.contract) === label);
      return c ? `${percent(c.rate)} (${c.made} of ${c.hands})` : "—";
    };
    const table = h("table#stats-table.stats", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "" }), presets.map((p) => h("th", { scope: "col", text: p })))),
      h("tbody", {},
        rows.map(([label, f]) => h("tr", {}, h("th", { scope: "row", text: label }), presets.map((p) => h("td", { text: f(stats[p]) })))),
        contracts.length ? h("tr.sub", {}, h("th", { scope: "rowgroup", colspan: String(presets.length + 1), text: "Contracts made" })) : null,
        contracts.map((label) => h("tr", {}, h("th", { scope: "row", text: label }), presets.map((p) => h("td", { text: made(stats[p], label) }))))));
    box.append(h("div.scroll-x", {}, table));
    return box;
  }

  settings() {
    const m = this.mine;
    const msg = h("p#settings-msg.muted", { role: "status" });
    const fail = (e) => { msg.className = "error"; msg.textContent = errorText(e); };
    const ok = (text) => { msg.className = "muted"; msg.textContent = text; };
    const patch = async (body) => {
      const p = await api("PATCH", "/api/players/me", body, { retry: false });
      if (p) { this.mine = { ...this.mine, ...p }; this.profile = { ...this.profile, name: p.name ?? this.profile.name }; }
      return p;
    };
    const name = h("input#me-name", { type: "text", value: m.name || this.profile.name || "", maxlength: "24", autocomplete: "nickname", "aria-label": "name" });
    const saveName = async (ev) => {
      ev.preventDefault();
      const v = name.value.trim();
      if (!v) { msg.className = "error"; msg.textContent = "Choose a name."; return; }
      try {
        const p = await patch({ name: v });
        renamePlayer((p && p.name) || v);
        this.root.querySelector("#player-name").firstChild.textContent = (p && p.name) || v;
        ok("Your name is changed.");
      } catch (e) { fail(e); }
    };
    const box = (id, key, label, hint) => {
      const el = h("input#" + id, { type: "checkbox" });
      el.checked = !!m[key];
      el.addEventListener("change", async () => {
        el.disabled = true;
        try {
          await patch({ [key]: el.checked });
          ok("Saved.");
        } catch (e) { el.checked = !el.checked; fail(e); }
        el.disabled = false;
      });
      return h("label.check", {}, el, h("span", {}, label, h("span.muted.small-text.block", { text: hint })));
    };
    // a recovery code: asked for, shown once, with how to use it
    const codeBox = h("div#recovery-box");
    const showCode = h("button#recovery-show.secondary", { type: "button", text: "Show a recovery code", onclick: async () => {
      showCode.disabled = true;
      try {
        const { code } = await api("POST", "/api/players/me/recovery", undefined, { retry: false });
        const input = h("input#recovery-code", { type: "text", readonly: true, value: code, "aria-label": "recovery code", spellcheck: "false" });
        const copy = h("button#recovery-copy.secondary", { type: "button", text: "Copy", onclick: async () => {
          copy.textContent = (await copyText(code, input)) ? "Copied" : "Select and copy";
        } });
        codeBox.replaceChildren(h("div.share", {}, input, copy),
          h("p.small-text", { text: "Keep it somewhere safe: it is shown only this once. On another device (or here, after clearing the browser), open \"My page\" and choose \"Use a recovery code\": that device gets its own key for you. Showing a new code makes this one stop working." }));
        showCode.textContent = "Show a new recovery code";
      } catch (e) { fail(e); }
      showCode.disabled = false;
    } });
    // forget me, after a confirmation
    const forgetBox = h("div#forget-box");
    const forget = h("button#forget.danger", { type: "button", text: "Forget me", onclick: () => {
      forget.hidden = true;
      forgetBox.replaceChildren(h("div.confirm", { role: "alertdialog", "aria-label": "forget me" },
        h("p", { text: "The server deletes your name, keys, recovery code, rating and statistics; your games stay, your seats shown as \"a former player\". This browser forgets you too. This cannot be undone." }),
        h("div.row", {},
          h("button#forget-confirm.danger", { type: "button", text: "Yes, forget me", onclick: async () => {
            try {
              await api("DELETE", "/api/players/me", undefined, { retry: false });
            } catch (e) {
              if (e.status !== 401) { fail(e); return; } // a key already unknown: forgotten
            }
            forgetEverything();
            this.root.replaceChildren(h("section.panel", {}, h("h2", { text: "You are forgotten" }),
              h("p#forgotten", { text: "The server and this browser no longer know you. You can go on playing as a guest, or be a new player next time you sit at a table." }),
              h("a.button", { href: "/", text: "To the lobby" })));
          } }),
          h("button#forget-cancel.secondary", { type: "button", text: "Cancel", onclick: () => { forgetBox.replaceChildren(); forget.hidden = false; } }))));
    } });
    return h("section#settings.panel.settings", {}, h("h3", { text: "Settings" }),
      h("form#me-name-form.inline-form", { onsubmit: saveName }, h("label", { for: "me-name", text: "Name" }), name,
        h("button#me-name-save", { type: "submit", text: "Save" })),
      box("me-listed", "listed", "List me on the leaderboard", "your name and rating, for everyone to see"),
      box("me-public", "public", "Show my games and statistics", "on this page, for everyone to see"),
      msg,
      h("h4", { text: "Other devices" }),
      h("p.muted.small-text", { text: m.recovery ? "A recovery code is set. Showing a new one makes it stop working." :
        "No password: this browser keeps a key. A recovery code lets another device (or this one, after its storage is cleared) be you." }),
      showCode, codeBox,
      h("h4", { text: "Forget me" }), forget, forgetBox);
  }
}

/** A player's finished games, newest first, a page at a time (Newer / Older). */
class GamesList {
  constructor(playerId) {
    this.id = playerId;
    this.offset = 0;
    this.list = h("ol#games.games");
    this.msg = h("p#games-msg.muted");
    this.range = h("span#games-range");
    this.newer = h("button#games-newer.small.secondary", { type: "button", text: "Newer", onclick: () => this.go(this.offset - GAMES_PAGE) });
    this.older = h("button#games-older.small.secondary", { type: "button", text: "Older", onclick: () => this.go(this.offset + GAMES_PAGE) });
    this.pager = h("div.pager", {}, this.newer, this.range, this.older);
    this.pager.hidden = true;
    this.el = h("section#games-panel.panel", {}, h("h3", { text: "Games" }), this.msg, this.list, this.pager);
    this.go(0);
  }

  async go(offset) {
    this.offset = Math.max(0, offset);
    let data;
    try {
      data = await api("GET", `/api/players/${enc(this.id)}/games?offset=${this.offset}&limit=${GAMES_PAGE}`);
    } catch (e) {
      this.msg.textContent = e.code === "private" || e.status === 403 ? "This player keeps their games private." : errorText(e);
      this.list.replaceChildren();
      this.pager.hidden = true;
      return;
    }
    const games = data.games || [];
    const total = typeof data.total === "number" ? data.total : games.length;
    this.msg.textContent = total ? "" : "No finished game yet.";
    this.pager.hidden = total <= GAMES_PAGE;
    this.range.textContent = games.length ? `${this.offset + 1}–${this.offset + games.length} of ${total}` : `0 of ${total}`;
    this.newer.disabled = this.offset <= 0;
    this.older.disabled = this.offset + games.length >= total;
    this.list.replaceChildren(...games.map(gameRow));
  }
}

function gameRow(g) {
  const before = ratingValue(g.rating_before);
  const after = ratingValue(g.rating_after);
  const change = before !== null && after !== null ? after - before : null;
  const cls = change === null ? "" : change > 0 ? "up" : change < 0 ? "down" : "";
  const seats = [...(g.seats || [])].sort((a, b) => (a.place ?? 99) - (b.place ?? 99) || a.seat - b.seat);
  return h("li.game-row", { dataset: { table: g.table, place: String(g.place ?? ""), points: String(g.points ?? "") } },
    h("div.game-top", {},
      h("span.g-place" + (g.place === 1 ? ".first" : ""), { text: g.place ? `${ordinal(g.place)} of ${g.players || seats.length}` : "—" }),
      g.left ? h("span.badge.off", { text: "left" }) : null,
      h("span.g-points", { text: `${g.points ?? "—"} pts` }),
      change !== null ? h("span.g-change." + (cls || "same"), { title: `rating ${Math.round(before)} → ${Math.round(after)}`, text: changeText(change) }) : null,
      h("span.g-rules", { text: `${g.preset}${changesText(g.overrides)}` }),
      h("span.g-date.muted", { text: dateTimeText(g.finished) }),
      h("a.g-replay", { href: `/replay/${enc(g.table)}`, text: "Replay" }),
      h("a.g-review", { href: `/review/${enc(g.table)}?seat=${g.seat}`, text: "Review" })),
    h("div.g-seats", {}, seats.flatMap((s, i) => [i ? " · " : "", h("span.g-seat", {},
      s.place ? `${ordinal(s.place)} ` : "", seatName(s), ` ${s.points ?? ""}`)])));
}

// ---- the leaderboard ---------------------------------------------------------------------------

export async function showLeaderboard(root) {
  document.title = "Liverpool Rummy: leaderboard";
  let config = { presets: {} };
  try { config = await api("GET", "/api/config"); } catch (e) { /* the filter offers all rules only */ }
  const preset = h("select#lb-preset", { "aria-label": "rules" }, h("option", { value: "", text: "all rules" }),
    Object.keys(config.presets || {}).map((p) => h("option", { value: p, text: p })));
  const rows = h("tbody");
  const msg = h("p#lb-msg.muted", { role: "status" });
  const bots = h("div#lb-bots.bots");
  const range = h("span#lb-range");
  let offset = 0;
  const prev = h("button#lb-prev.small.secondary", { type: "button", text: "Previous", onclick: () => load(offset - BOARD_PAGE) });
  const next = h("button#lb-next.small.secondary", { type: "button", text: "Next", onclick: () => load(offset + BOARD_PAGE) });
  const pager = h("div.pager", {}, prev, range, next);
  pager.hidden = true;
  const me = getPlayer();
  let asked = 0;
  const load = async (at) => {
    offset = Math.max(0, at);
    const n = ++asked;
    let data;
    try {
      data = await api("GET", `/api/ratings?preset=${enc(preset.value)}&offset=${offset}&limit=${BOARD_PAGE}`);
    } catch (e) {
      if (n === asked) msg.textContent = errorText(e);
      return;
    }
    if (n !== asked) return;
    const players = data.players || [];
    const total = typeof data.total === "number" ? data.total : players.length;
    msg.textContent = players.length ? "" : (preset.value ?
      `Nobody listed has played ${preset.value} yet.` : "Nobody is listed yet: a player chooses to be listed on their own page.");
    rows.replaceChildren(...players.map((p) => h("tr", { class: me && p.id === me.id ? "me" : "", dataset: { player: p.id } },
      h("td.rank", { text: String(p.rank) }),
      h("td.name", {}, h("a", { href: `/p/${enc(p.id)}`, text: p.name })),
      h("td.num", { text: ratingText(p.rating) }),
      h("td.num", { text: String(p.games ?? "") }))));
    pager.hidden = total <= BOARD_PAGE;
    range.textContent = players.length ? `${offset + 1}–${offset + players.length} of ${total}` : `0 of ${total}`;
    prev.disabled = offset <= 0;
    next.disabled = offset + players.length >= total;
    const list = data.bots || [];
    bots.replaceChildren(...(list.length ? [
      h("h3", { text: "The computer players" }),
      h("p.muted.small-text", { text: "Each level has a fixed rating, on the same scale: play them to see where you stand." }),
      h("ul.bot-ratings", {}, list.map((b) => h("li", { dataset: { level: b.level } }, h("span.lvl", { text: b.title ? `${b.level} ${b.title}` : b.level }), h("strong", { text: ratingText(b.rating) }))))] : []));
  };
  preset.addEventListener("change", () => load(0));
  root.replaceChildren(h("div.leaderboard-page", {},
    h("section.panel", {}, h("div.lb-head", {}, h("h2", { text: "Leaderboard" }), h("label.lb-filter", {}, "Rules ", preset)),
      h("p.muted.small-text", { text: "Listed players with a rated game, by rating (a \"?\": provisional, from few games). Being listed is a choice on one's own page." }),
      msg,
      h("div.scroll-x", {}, h("table#leaderboard.board-table", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "#" }), h("th", { scope: "col", text: "Player" }),
          h("th.num", { scope: "col", text: "Rating" }), h("th.num", { scope: "col", text: "Games" }))), rows)),
      pager),
    h("section.panel", {}, bots),
  ));
  load(0);
}

