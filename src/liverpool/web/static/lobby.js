// The lobby: create a table (preset, rule overrides, seats and bot levels, timers, listed in the
// lobby or private), the list of public open and playing tables page by page (join or watch),
// and opening a shared link (a private table's link carries its join secret after "#join=").
// Domain words: preset, knob (a rule option, docs/rules.md (Knobs)), override, seat, level, host,
// public table (listed here; anybody may join), private table (joined only by its share link).

import {
  api, describeSeats, errorText, getNickname, h, saveSecret, saveSeat, secretInHash, setNickname,
} from "./util.js";

let config = null;

// what the server allows when its /api/config names no limits (an older server)
const DEFAULT_LIMITS = { nickname_max: 24, min_timer: 5, max_timer: 3600 };
const PAGE = 20; // tables per page of the list (the server's most)

export async function showLobby(root) {
  document.title = "Liverpool Rummy: lobby";
  root.replaceChildren(h("p.loading", { text: "Loading…" }));
  try {
    config = await api("GET", "/api/config");
  } catch (e) {
    root.replaceChildren(h("p.error", { text: "Cannot load the lobby: " + errorText(e) }));
    return;
  }
  config.limits = { ...DEFAULT_LIMITS, ...(config.limits || {}) };
  const lister = new TableList();
  root.replaceChildren(
    h("section.panel.create", {}, h("h2", { text: "New table" }), createForm()),
    h("section.panel.open", {},
      h("h2", {}, "Public tables ", h("button#tables-refresh.small", { type: "button", onclick: () => lister.refresh(), text: "Refresh" })),
      h("p.muted", { text: "Tables their hosts listed here; a private table is joined by its link only." }),
      lister.el, joinByLink()),
    h("footer.version", { text: `liverpool ${config.version || ""}` }),
  );
  lister.refresh();
  const timer = setInterval(() => {
    if (!document.body.contains(lister.el)) clearInterval(timer);
    else lister.refresh();
  }, 5000);
}

/** The public tables, a page at a time (Previous / Next), refreshed on the page shown. */
class TableList {
  constructor() {
    this.offset = 0;
    this.rows = h("div#tables.tables");
    this.msg = h("p#tables-error.error", { role: "status" });
    this.range = h("span#tables-range");
    this.prev = h("button#tables-prev.small.secondary", { type: "button", text: "Previous", onclick: () => this.go(this.offset - this.limit) });
    this.next = h("button#tables-next.small.secondary", { type: "button", text: "Next", onclick: () => this.go(this.offset + this.limit) });
    this.pager = h("div#tables-pager.pager", {}, this.prev, this.range, this.next);
    this.pager.hidden = true;
    this.el = h("div.table-list", {}, this.msg, this.rows, this.pager);
    this.limit = PAGE;
    this.asked = 0; // answers older than the last question are dropped
  }

  go(offset) {
    this.offset = Math.max(0, offset);
    this.refresh();
  }

  async refresh() {
    const n = ++this.asked;
    let data;
    try {
      data = await api("GET", `/api/tables?offset=${this.offset}&limit=${PAGE}`);
    } catch (e) {
      // keep the rows shown: a refusal (too many requests, say) is passing
      if (n === this.asked) this.msg.textContent = errorText(e);
      return;
    }
    if (n !== this.asked) return;
    this.msg.textContent = "";
    const tables = data.tables || [];
    const total = typeof data.total === "number" ? data.total : tables.length;
    this.limit = data.limit > 0 ? data.limit : PAGE;
    const offset = typeof data.offset === "number" ? data.offset : this.offset;
    if (!tables.length && total > 0 && offset > 0) {
      // the page emptied (tables started or ended): show the last page there is
      this.go(Math.floor((total - 1) / this.limit) * this.limit);
      return;
    }
    this.pager.hidden = total === 0;
    this.range.textContent = tables.length ? `${offset + 1}–${offset + tables.length} of ${total}` : `0 of ${total}`;
    this.prev.disabled = offset <= 0;
    this.next.disabled = offset + tables.length >= total;
    if (!tables.length) {
      this.rows.replaceChildren(h("p.muted", { text: "No public tables now: create one, or open a link a friend sent." }));
      return;
    }
    this.rows.replaceChildren(...tables.map(tableRow));
  }
}

function tableRow(t) {
  const free = t.seats.some((s) => s.kind === "human" && !s.name);
  const link = `/t/${encodeURIComponent(t.id)}`;
  return h("div.table-row", { dataset: { table: t.id } },
    h("span.tid", { text: t.id }),
    h("span.rules", { text: t.rules + (Object.keys(t.overrides || {}).length ? " (+options)" : "") }),
    h("span.status." + t.status, { text: t.status }),
    h("span.seats", { text: describeSeats(t) }),
    h("span.go", {},
      t.status === "open" && free ? h("a.button", { href: link, text: "Join" }) : null,
      t.status === "expired" ? null : h("a.button.secondary", { href: `${link}?watch=1`, text: "Watch" })));
}

/** A table's id and join secret from what a person pasted: a whole link (with or without
 * "#join=SECRET"), a path, or a bare id. */
export function parseTableLink(text) {
  const v = text.trim();
  if (!v) return null;
  let url = null;
  try { url = new URL(v, location.href); } catch (e) { url = null; }
  const m = url && url.pathname.match(/^\/t\/([^/]+)\/?$/);
  if (m && (v.includes("/t/") || v.startsWith("t/"))) {
    return { id: decodeURIComponent(m[1]), secret: secretInHash(url.hash) };
  }
  // a bare id, perhaps with its fragment: "ID#join=SECRET"
  const [id, frag] = v.split("#", 2);
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return null;
  return { id, secret: frag ? secretInHash(frag) : null };
}

function joinByLink() {
  const input = h("input#join-link", { type: "text", placeholder: "paste a table link (or its id)", "aria-label": "table link", spellcheck: "false" });
  const msg = h("p.error", { role: "alert" });
  const go = () => {
    msg.textContent = "";
    const v = input.value.trim();
    if (!v) return;
    const got = parseTableLink(v);
    if (!got) { msg.textContent = "That is not a table link."; return; }
    // kept for the table page, and kept in the address too, as the link had it
    if (got.secret) saveSecret(got.id, got.secret);
    location.href = `/t/${encodeURIComponent(got.id)}` + (got.secret ? `#join=${encodeURIComponent(got.secret)}` : "");
  };
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
  return h("div.joinlink-box", {}, h("div.joinlink", {}, input, h("button#join-link-open", { type: "button", onclick: go, text: "Open" })), msg);
}

// the knobs whose values are words (docs/rules.md, Knobs): offered as a choice
const CHOICES = {
  buy_priority: ["seat", "first_call"],
  joker_swap: ["none", "runs", "runs_and_sets"],
  going_out: ["discard", "empty", "float"],
  playable_discard: ["none", "bonus", "take_back", "give_cards", "points", "standard"],
  progression: ["all", "own"],
};

function knobInput(name, value) {
  if (CHOICES[name] && typeof value === "string") {
    const sel = h("select", { name, dataset: { knob: name, kind: "choice" } },
      CHOICES[name].map((c) => h("option", { value: c, text: c })));
    sel.value = value;
    return sel;
  }
  if (typeof value === "boolean") {
    const el = h("input", { type: "checkbox", name, dataset: { knob: name } });
    el.checked = value;
    return el;
  }
  if (typeof value === "number") {
    return h("input", { type: "number", name, value: String(value), dataset: { knob: name } });
  }
  return h("input", { type: "text", name, value: JSON.stringify(value), dataset: { knob: name }, spellcheck: "false" });
}

function knobValue(el) {
  if (el.dataset.kind === "choice") return el.value;
  if (el.type === "checkbox") return el.checked;
  if (el.type === "number") return el.value === "" ? null : Number(el.value);
  return JSON.parse(el.value);
}

function createForm() {
  const presets = Object.keys(config.presets);
  const levels = config.levels || ["random", "basic", "expert"];
  const lim = config.limits;
  const nickname = h("input#nickname", { type: "text", maxlength: String(lim.nickname_max), required: true, value: getNickname(), placeholder: "your name", autocomplete: "nickname" });
  const preset = h("select#preset", {}, presets.map((p) => h("option", { value: p, text: p })));
  preset.value = presets.includes("standard") ? "standard" : presets[0];
  const count = h("select#seat-count", {}, [2, 3, 4, 5, 6, 7, 8].map((n) => h("option", { value: String(n), text: String(n) })));
  count.value = "3";
  const seatRows = h("div.seat-rows");
  // the server refuses timers outside min_timer..max_timer seconds
  const timerInput = (id) => h("input#" + id, { type: "number", min: String(lim.min_timer), max: String(lim.max_timer), step: "any", placeholder: "none", inputmode: "numeric" });
  const turnTimer = timerInput("turn-timer");
  const buyTimer = timerInput("buy-timer");
  const listed = h("input#public", { type: "checkbox" }); // private unless the host lists it
  const knobs = h("div.knobs");
  const msg = h("p.error", { role: "alert" });

  const seatChoice = (i, old) => {
    const sel = h("select", { dataset: { seat: String(i) }, "aria-label": `seat ${i + 1}` },
      h("option", { value: "human", text: "a friend (invite)" }),
      levels.map((l) => h("option", { value: "bot:" + l, text: "computer: " + l })));
    const basic = levels.includes("basic") ? "bot:basic" : "bot:" + levels[0];
    sel.value = old && [...sel.options].some((o) => o.value === old) ? old : (i === 1 ? "human" : basic);
    return h("label.seat-row", {}, `Seat ${i + 1}`, sel);
  };
  const drawSeats = () => {
    const old = [...seatRows.querySelectorAll("select")].map((s) => s.value);
    const n = Number(count.value);
    seatRows.replaceChildren(h("label.seat-row", {}, "Seat 1", h("span.muted", { text: "you (host)" })));
    for (let i = 1; i < n; i++) seatRows.append(seatChoice(i, old[i - 1]));
  };
  const drawKnobs = () => {
    const values = config.presets[preset.value] || {};
    // offer only the player counts the preset allows
    const lo = values.min_players || 2;
    const hi = values.max_players || 8;
    for (const opt of count.options) opt.disabled = Number(opt.value) < lo || Number(opt.value) > hi;
    if (Number(count.value) < lo) { count.value = String(lo); drawSeats(); }
    knobs.replaceChildren(...Object.entries(values).map(([k, v]) =>
      h("label.knob", {}, h("span", { text: k }), knobInput(k, v))));
  };
  count.addEventListener("change", drawSeats);
  preset.addEventListener("change", drawKnobs);
  drawSeats();
  drawKnobs();

  const submit = async (ev) => {
    ev.preventDefault();
    msg.textContent = "";
    const name = nickname.value.trim();
    if (!name) { msg.textContent = "Choose a nickname."; return; }
    const overrides = {};
    const base = config.presets[preset.value] || {};
    for (const el of knobs.querySelectorAll("[data-knob]")) {
      const k = el.dataset.knob;
      let v;
      try { v = knobValue(el); } catch (e) {
        msg.textContent = `The option ${k} is not valid JSON.`;
        el.focus();
        return;
      }
      if (JSON.stringify(v) !== JSON.stringify(base[k])) overrides[k] = v;
    }
    const seats = [{ kind: "human" }];
    for (const sel of seatRows.querySelectorAll("select")) {
      seats.push(sel.value === "human" ? { kind: "human" } : { kind: "bot", level: sel.value.slice(4) });
    }
    const timer = (el) => el.value === "" ? null : Number(el.value);
    const body = { nickname: name, rules: preset.value, overrides, seats, turn_timer: timer(turnTimer),
      buy_timer: timer(buyTimer), public: listed.checked };
    setNickname(name);
    try {
      const res = await api("POST", "/api/tables", body);
      saveSeat(res.table.id, res.seat, res.token);
      saveSecret(res.table.id, res.join_secret);
      // this server's own address (the share link may name another the host gave): the seat
      // token is kept for this one; the table page shows the share link
      location.href = `/t/${encodeURIComponent(res.table.id)}`;
    } catch (e) {
      msg.textContent = errorText(e);
      const at = fieldInput(e.field);
      if (at) at.focus();
    }
  };
  // the input a refusal's field names ("nickname", "turn_timer", "seats[2].level", a knob)
  const fieldInput = (field) => {
    if (!field) return null;
    if (field === "nickname") return nickname;
    if (field === "turn_timer") return turnTimer;
    if (field === "buy_timer") return buyTimer;
    if (field === "rules") return preset;
    const seat = field.match(/^seats\[(\d+)\]/);
    if (seat) return seatRows.querySelector(`select[data-seat="${Number(seat[1])}"]`);
    const knob = knobs.querySelector(`[data-knob="${CSS.escape(field.replace(/^overrides\./, ""))}"]`);
    if (knob) knob.closest("details").open = true;
    return knob;
  };

  return h("form#create-form", { onsubmit: submit },
    h("label", {}, "Nickname", nickname),
    h("label", {}, "Rules", preset),
    h("label", {}, "Players", count),
    seatRows,
    h("div.timers", {},
      h("label", {}, "Turn timer (s)", turnTimer),
      h("label", {}, "Buy timer (s)", buyTimer)),
    h("label.check", {}, listed, "List this table in the lobby (anyone may join)"),
    h("p.muted.small-text", { text: "Otherwise the table is private: only people you send its link to can join." }),
    h("details.rule-options", {}, h("summary", { text: "Rule options" }),
      h("p.muted", { text: "Change any option of the preset; lists and objects are JSON." }), knobs),
    msg,
    h("button#create", { type: "submit", text: "Create table" }));
}
