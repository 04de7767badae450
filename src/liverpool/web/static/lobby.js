// The lobby: create a table (preset, rule overrides, seats and bot levels, timers, listed in the
// lobby or private), the list of public open and playing tables page by page (join or watch),
// and opening a shared link (a private table's link carries its join secret after "#join=").
// Domain words: preset, knob (a rule option, docs/rules.md (Knobs)), control (how the form sets
// a knob, by the type the server gives: a yes/no, a number, a choice, a list of numbers, named
// fields, rows such as a hand's contract), override, clock (a table's timer), seat, level, host,
// public table (listed here; anybody may join), private table (joined only by its share link),
// player (remembered by the server: made when the person first creates or joins a table), guest
// (plays without a player), bot rating (each level's fixed rating, from GET /api/ratings).

import {
  api, describeSeats, errorText, h, playerFor, ratingText, saveSecret, saveSeat, secretInHash,
  sentence, setNickname, siteNotice, whoFields,
} from "./util.js";

let config = null;
let botRatings = {}; // level -> its fixed rating (GET /api/ratings's "bots"), when the server says

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
  botRatings = await loadBotRatings();
  const lister = new TableList();
  root.replaceChildren(h("div.lobby", {},
    h("section.panel.create", {}, h("h2", { text: "New table" }), createForm()),
    h("section.panel.open", {},
      h("h2", {}, "Public tables ", h("button#tables-refresh.small", { type: "button", onclick: () => lister.refresh(), text: "Refresh" })),
      h("p.muted", { text: "Tables their hosts listed here; a private table is joined by its link only." }),
      lister.el, joinByLink()),
    h("footer.version", { text: `liverpool ${config.version || ""}` }),
  ));
  lister.refresh();
  const timer = setInterval(() => {
    if (!document.body.contains(lister.el)) clearInterval(timer);
    else lister.refresh();
  }, 5000);
}

/** Each bot level's fixed rating ({level: rating}); none from a server without ratings. */
export async function loadBotRatings() {
  try {
    const data = await api("GET", "/api/ratings?offset=0&limit=1");
    const out = {};
    for (const b of data.bots || []) {
      out[b.level] = b.rating;
      if (b.alias) out[b.alias] = b.rating;
    }
    return out;
  } catch (e) {
    return {};
  }
}

/** The words for a bot level in a chooser: "computer: level 5, Solid (rated 1500)"; a level of
 * the host's own: "computer: NAME". */
export function levelText(level) {
  const r = botRatings[level];
  const rung = (config && config.ladder || []).find((l) => l.level === level || l.alias === level);
  const name = rung ? `level ${rung.level.split(":")[1]}, ${rung.title}` : level;
  return `computer: ${name}` + (r === undefined || r === null ? "" : ` (rated ${ratingText(r)})`);
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

/** " with 2 changes" for a table whose rules differ from its preset; "" otherwise. */
function changesText(overrides) {
  const n = Object.keys(overrides || {}).length;
  return n ? ` with ${n} change${n === 1 ? "" : "s"}` : "";
}

function tableRow(t) {
  const free = t.seats.some((s) => s.kind === "human" && !s.name);
  const link = `/t/${encodeURIComponent(t.id)}`;
  return h("div.table-row", { dataset: { table: t.id } },
    h("span.tid", { text: t.id }),
    h("span.rules", { title: (config.preset_lines || {})[t.rules] || "", text: t.rules + changesText(t.overrides) }),
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

// ---- rule options: each knob's control is built from the type the server gives it (its
// "control": bool, number, choice, numbers, fields, rows), never from the knob's name, and
// yields the knob's JSON value (docs/rules.md, Knobs and Formats) for the create request

/** A box left without a number (or with one the browser cannot read): caught before sending,
 * at the box. */
class MissingNumber extends Error {
  constructor(input) {
    super("Give a whole number in each box.");
    this.input = input;
  }
}

function numberBox(attrs, value, c, empty) {
  return h("input", { type: "number", step: "1", inputmode: "numeric", min: c.min ?? null, max: c.max ?? null,
    value: value === null || value === undefined ? "" : String(value), placeholder: empty || null, ...attrs });
}

/** A number box's value: a number, or null where the control allows none ("empty"). */
function readNumber(input, empty) {
  if (input.value.trim() === "" || !input.validity.valid && input.validity.badInput) {
    if (empty && input.value.trim() === "") return null;
    throw new MissingNumber(input);
  }
  return Number(input.value);
}

/** The bounds of one number in a compound control: its field's own, else the control's. */
const boundsOf = (control, field) => ({ min: field.min ?? control.min, max: field.max ?? control.max });

/** A yes/no, a number or a choice: one input, with the knob's id. */
function simpleControl(knob, control, value, id) {
  const data = { knob, kind: control.type };
  if (control.type === "bool") {
    const el = h("input", { id, type: "checkbox", name: knob, dataset: data });
    el.checked = !!value;
    return { el, get: () => el.checked, focus: () => el };
  }
  if (control.type === "choice") {
    const options = control.options || [{ value, text: String(value) }];
    const el = h("select", { id, name: knob, dataset: data },
      options.map((o) => h("option", { value: o.value, text: o.text })));
    el.value = value;
    return { el, get: () => el.value, focus: () => el };
  }
  const el = numberBox({ id, name: knob, dataset: data }, value, control, control.empty);
  return { el, get: () => readNumber(el, control.empty), focus: () => el };
}

/** A list: of numbers ("numbers", one an item) or of records ("rows", one a row), with a
 * button to add one and one to remove each, within min_items..max_items. */
function listControl(knob, control, value, id, label) {
  const fields = control.type === "rows" ? control.fields : [{ label: control.unit || "" }];
  const list = h("ol.rows");
  const add = h("button.small.secondary.add-row", { type: "button", text: control.add || "Add" });
  const rowName = control.row || control.item || "Row";
  const renumber = () => {
    const rows = [...list.children];
    rows.forEach((row, i) => {
      row.querySelector(".row-name").textContent = `${rowName} ${i + 1}`;
      for (const input of row.querySelectorAll("input")) input.setAttribute("aria-label", `${label}: ${rowName} ${i + 1}, ${input.dataset.field}`);
      row.querySelector(".remove-row").disabled = rows.length <= (control.min_items || 0);
    });
    add.disabled = control.max_items !== undefined && rows.length >= control.max_items;
  };
  const addRow = (item) => {
    const cells = fields.map((f, k) => {
      const v = control.type === "rows" ? (control.shape === "object" ? item?.[f.key] : item?.[k]) : item;
      const input = numberBox({ dataset: { field: f.label || rowName } }, v, boundsOf(control, f), f.empty);
      return h("label.cell", {}, input, f.label ? h("span", { text: f.label }) : null);
    });
    const remove = h("button.small.secondary.remove-row", { type: "button", text: "Remove", onclick: () => { row.remove(); renumber(); list.dispatchEvent(new Event("input", { bubbles: true })); } });
    const row = h("li.row", {}, h("span.row-name"), cells, remove);
    list.append(row);
  };
  add.addEventListener("click", () => {
    const last = list.lastElementChild;
    addRow(last ? readRow(last, true) : null);
    renumber();
    list.lastElementChild.querySelector("input").focus();
    list.dispatchEvent(new Event("input", { bubbles: true }));
  });
  const readRow = (row, loose = false) => {
    const inputs = [...row.querySelectorAll("input")];
    const read = (input, f) => { try { return readNumber(input, f.empty); } catch (e) { if (loose) return null; throw e; } };
    if (control.type !== "rows") return read(inputs[0], fields[0]);
    if (control.shape === "object") {
      const out = {};
      fields.forEach((f, k) => { const v = read(inputs[k], f); if (v !== null) out[f.key] = v; });
      return out;
    }
    return fields.map((f, k) => read(inputs[k], f));
  };
  const box = h("div.list-control", { id, role: "group", "aria-labelledby": id + "-label", dataset: { knob, kind: control.type } }, list, add);
  for (const item of value || []) addRow(item);
  renumber();
  const noneBox = emptyChoice(control, value, box, () => { if (!list.children.length) { addRow(null); renumber(); } });
  return {
    el: h("div.compound", {}, noneBox && noneBox.el, box),
    get: () => (noneBox && noneBox.none() ? null : [...list.children].map((row) => readRow(row))),
    focus: () => (noneBox && noneBox.none() ? noneBox.input : box.querySelector("input") || add),
  };
}

/** Fixed named numbers ("fields"): an object by key, or a list in field order. */
function fieldsControl(knob, control, value, id, label) {
  const inputs = control.fields.map((f, k) => {
    const v = value === null || value === undefined ? null : control.shape === "object" ? value[f.key] : value[k];
    return numberBox({ "aria-label": `${label}: ${f.label}`, dataset: { field: f.key ?? String(k) } }, v, boundsOf(control, f));
  });
  const box = h("div.fields-control", { id, role: "group", "aria-labelledby": id + "-label", dataset: { knob, kind: control.type } },
    control.fields.map((f, k) => h("label.cell", {}, h("span", { text: f.label }), inputs[k])));
  const noneBox = emptyChoice(control, value, box, () => inputs.forEach((input, k) => {
    if (input.value === "") input.value = String(boundsOf(control, control.fields[k]).min ?? 1);
  }));
  const read = () => {
    const nums = inputs.map((input) => readNumber(input));
    if (control.shape !== "object") return nums;
    const out = {};
    control.fields.forEach((f, k) => { out[f.key] = nums[k]; });
    return out;
  };
  return {
    el: h("div.compound", {}, noneBox && noneBox.el, box),
    get: () => (noneBox && noneBox.none() ? null : read()),
    focus: () => (noneBox && noneBox.none() ? noneBox.input : inputs[0]),
  };
}

/** For a control whose knob may be none (its "empty" says what none means): a tick box that
 * sets none and hides the control; unticked, ``fill`` makes the control hold something. */
function emptyChoice(control, value, box, fill) {
  if (!control.empty) return null;
  const input = h("input", { type: "checkbox" });
  input.checked = value === null || value === undefined;
  const show = () => { box.hidden = input.checked; if (!input.checked) fill(); };
  input.addEventListener("change", show);
  show();
  return { el: h("label.check.none-choice", {}, input, control.empty), input, none: () => input.checked };
}

/** A knob's control by its type: {el, get() (its JSON value; throws MissingNumber), focus()}. */
function knobControl(knob, control, value, id, label) {
  if (control.type === "numbers" || control.type === "rows") return listControl(knob, control, value, id, label);
  if (control.type === "fields") return fieldsControl(knob, control, value, id, label);
  return simpleControl(knob, control, value, id);
}

/** A knob's control from an older server that sends none: by its value alone. */
function controlFor(k, value) {
  if (k.control) return k.control;
  if (typeof value === "boolean") return { type: "bool" };
  if (typeof value === "string") return { type: "choice" };
  return { type: "number", min: 0 };
}

/** The knobs as the server words them, in topic order ({knob, topic, label}); an older server
 * without them: every knob of the preset under one heading, by its name. */
function knobList(values) {
  if (Array.isArray(config.knobs) && config.knobs.length) return config.knobs.filter((k) => k.knob in values);
  return Object.keys(values).map((k) => ({ knob: k, topic: "Rule options", label: k }));
}

function createForm() {
  const presets = Object.keys(config.presets);
  const lines = config.preset_lines || {};
  const levels = config.levels || ["random", "basic", "expert"];
  const lim = config.limits;
  const who = whoFields("nickname", lim.nickname_max);
  const nickname = who.nickname;
  // the presets, each with its line in words; standard first
  const ordered = presets.includes("standard") ? ["standard", ...presets.filter((p) => p !== "standard")] : presets;
  const preset = h("fieldset#preset.presets", {}, h("legend", { text: "Rules" }), ordered.map((p) =>
    h("label.preset-card", { dataset: { preset: p } },
      h("input", { type: "radio", name: "preset", value: p, checked: p === ordered[0] }),
      h("span.preset-text", {}, h("strong", { text: p }), lines[p] ? h("span.preset-line", { text: lines[p] }) : null))));
  const presetValue = () => (preset.querySelector("input[name=preset]:checked") || {}).value || ordered[0];
  const count = h("select#seat-count", {}, [2, 3, 4, 5, 6, 7, 8].map((n) => h("option", { value: String(n), text: String(n) })));
  count.value = "3";
  const seatRows = h("div.seat-rows");
  // the server refuses timers outside min_timer..max_timer seconds
  const timerInput = (id) => h("input#" + id, { type: "number", min: String(lim.min_timer), max: String(lim.max_timer), step: "any", placeholder: "no limit", inputmode: "numeric" });
  const turnTimer = timerInput("turn-timer");
  const buyTimer = timerInput("buy-timer");
  // how long bots wait for a person's "May I?", and the end-of-hand pause (empty: the server's)
  const secondsInput = (id, max, hint) => h("input#" + id, { type: "number", min: "0", max: String(max), step: "any", placeholder: hint, inputmode: "numeric" });
  const buyWindow = secondsInput("buy-window", 60, "5");
  const handPause = secondsInput("hand-pause", 300, "30");
  const listed = h("input#public", { type: "checkbox" }); // private unless the host lists it
  const knobs = h("div.knobs");
  const controls = new Map(); // knob -> its control ({el, get, focus}) for the preset shown
  const changedCount = h("span#knobs-changed.muted");
  const msg = h("p#create-error.error", { role: "alert" });

  const seatChoice = (i, old) => {
    const sel = h("select", { dataset: { seat: String(i) }, "aria-label": `seat ${i + 1}` },
      h("option", { value: "human", text: "a friend (invite)" }),
      levels.map((l) => h("option", { value: "bot:" + l, text: levelText(l) })));
    const basic = levels.includes("level:5") ? "bot:level:5" : levels.includes("basic") ? "bot:basic" : "bot:" + levels[0];
    sel.value = old && [...sel.options].some((o) => o.value === old) ? old : (i === 1 ? "human" : basic);
    return h("label.seat-row", {}, `Seat ${i + 1}`, sel);
  };
  const drawSeats = () => {
    const old = [...seatRows.querySelectorAll("select")].map((s) => s.value);
    const n = Number(count.value);
    seatRows.replaceChildren(h("label.seat-row", {}, "Seat 1", h("span.muted", { text: "you (host)" })));
    for (let i = 1; i < n; i++) seatRows.append(seatChoice(i, old[i - 1]));
  };
  // which knobs differ from the preset: marked, and counted on the summary
  const markChanged = () => {
    const base = config.presets[presetValue()] || {};
    let n = 0;
    for (const [knob, c] of controls) {
      let same = true;
      try { same = JSON.stringify(c.get()) === JSON.stringify(base[knob]); } catch (e) { same = false; }
      c.box.classList.toggle("changed", !same);
      if (!same) n++;
    }
    changedCount.textContent = n ? ` (${n} changed)` : "";
  };
  const drawKnobs = () => {
    const values = config.presets[presetValue()] || {};
    // offer only the player counts the preset allows
    const lo = values.min_players || 2;
    const hi = values.max_players || 8;
    for (const opt of count.options) opt.disabled = Number(opt.value) < lo || Number(opt.value) > hi;
    if (Number(count.value) < lo) { count.value = String(lo); drawSeats(); }
    if (Number(count.value) > hi) { count.value = String(hi); drawSeats(); }
    const list = knobList(values);
    const topics = [...new Set([...(config.topics || []), ...list.map((k) => k.topic)])];
    controls.clear();
    knobs.replaceChildren(...topics.map((topic) => {
      const mine = list.filter((k) => k.topic === topic);
      if (!mine.length) return null;
      return h("fieldset.knob-topic", {}, h("legend", { text: topic }), mine.map((k) => {
        const { knob, label } = k;
        const id = "knob-" + knob;
        const control = controlFor(k, values[knob]);
        const c = knobControl(knob, control, values[knob], id, label);
        const simple = !["numbers", "rows", "fields"].includes(control.type);
        // a single input is labelled for it; a group of inputs by its heading
        const name = simple ? h("label.knob-label", { for: id, text: label })
          : h("span.knob-label", { id: id + "-label", text: label });
        c.box = h("div.knob." + control.type, { dataset: { for: knob } }, name, c.el,
          h("span.knob-error.error", { id: id + "-error", role: "alert" }));
        controls.set(knob, c);
        return c.box;
      }));
    }).filter(Boolean));
    markChanged();
  };
  knobs.addEventListener("input", (e) => {
    const box = e.target.closest(".knob");
    if (box) { box.classList.remove("invalid"); box.querySelector(".knob-error").textContent = ""; }
    markChanged();
  });
  knobs.addEventListener("change", markChanged);
  count.addEventListener("change", drawSeats);
  preset.addEventListener("change", drawKnobs);
  drawSeats();
  drawKnobs();

  /** A refusal shown at the rule option it names, in the server's words (which name the
   * option by its label), brought into view; the input to fix (``at``, else the control's
   * first) is returned to be focused. */
  const knobError = (knob, text, at = null) => {
    const c = knob ? controls.get(knob) : null;
    if (!c) return null;
    c.box.classList.add("invalid");
    c.box.querySelector(".knob-error").textContent = text;
    c.box.closest("details").open = true;
    c.box.scrollIntoView({ block: "center" });
    return at || c.focus();
  };
  const clearKnobErrors = () => {
    for (const box of knobs.querySelectorAll(".knob.invalid")) {
      box.classList.remove("invalid");
      box.querySelector(".knob-error").textContent = "";
    }
  };

  const submit = async (ev) => {
    ev.preventDefault();
    msg.textContent = "";
    clearKnobErrors();
    const name = nickname.value.trim();
    if (!name) { msg.textContent = "Choose a nickname."; nickname.focus(); return; }
    const overrides = {};
    const base = config.presets[presetValue()] || {};
    // only what the person changed goes as overrides
    for (const [k, c] of controls) {
      let v;
      try { v = c.get(); } catch (e) {
        if (!(e instanceof MissingNumber)) throw e;
        const label = c.box.querySelector(".knob-label").textContent;
        msg.textContent = `${label}: a number is missing.`;
        const at = knobError(k, `${label}: ${e.message}`, e.input);
        if (at) at.focus();
        return;
      }
      if (JSON.stringify(v) !== JSON.stringify(base[k])) overrides[k] = v;
    }
    const seats = [{ kind: "human" }];
    for (const sel of seatRows.querySelectorAll("select")) {
      seats.push(sel.value === "human" ? { kind: "human" } : { kind: "bot", level: sel.value.slice(4) });
    }
    const timer = (el) => el.value === "" ? null : Number(el.value);
    const body = { nickname: name, rules: presetValue(), overrides, seats, turn_timer: timer(turnTimer),
      buy_timer: timer(buyTimer), buy_window: timer(buyWindow), hand_pause: timer(handPause),
      public: listed.checked };
    setNickname(name);
    try {
      const me = await playerFor(name, who.guest.checked, (note) => siteNotice(note));
      const res = await api("POST", "/api/tables", body, { auth: !!me });
      saveSeat(res.table.id, res.seat, res.token, me && me.id);
      saveSecret(res.table.id, res.join_secret);
      // this server's own address (the share link may name another the host gave): the seat
      // token is kept for this one; the table page shows the share link
      location.href = `/t/${encodeURIComponent(res.table.id)}`;
    } catch (e) {
      const knob = typeof e.field === "string" && e.field.startsWith("overrides.") ? e.field.slice(10) : null;
      // a rule option's refusal names it by its label: said again here, shown at the option
      msg.textContent = knob && controls.has(knob) ? `Not created: ${sentence(e.message)}` : errorText(e);
      const at = fieldInput(e.field, e.message);
      if (at) at.focus();
    }
  };
  // a table clock under the server's label, with its line of help
  const clock = (key, input) => {
    const words = (config.clocks || {})[key] || { label: key, help: "" };
    const help = h("span.clock-help.muted.small-text", { id: input.id + "-help", text: words.help });
    input.setAttribute("aria-describedby", help.id);
    return h("label.clock", { dataset: { clock: key } }, h("span.clock-label", { text: words.label }), input, help);
  };
  // the input a refusal's field names ("nickname", "turn_timer", "seats[2].level", a knob)
  const fieldInput = (field, message) => {
    if (!field) return null;
    if (field === "nickname") return nickname;
    if (field === "turn_timer") return turnTimer;
    if (field === "buy_timer") return buyTimer;
    if (field === "buy_window") return buyWindow;
    if (field === "hand_pause") return handPause;
    if (field === "rules") return preset.querySelector("input[name=preset]:checked");
    const seat = field.match(/^seats\[(\d+)\]/);
    if (seat) return seatRows.querySelector(`select[data-seat="${Number(seat[1])}"]`);
    return knobError(field.replace(/^overrides\.?/, ""), sentence(message || ""));
  };

  // the server's refusals, in the rules' words at the option, rather than the browser's
  // bubbles for the boxes' min and max (which are hints for the steppers)
  return h("form#create-form", { onsubmit: submit, novalidate: true },
    h("label", {}, "Nickname", nickname),
    who.label,
    preset,
    h("label", {}, "Players", count),
    seatRows,
    h("div.timers", {}, clock("turn_timer", turnTimer), clock("buy_timer", buyTimer),
      clock("buy_window", buyWindow), clock("hand_pause", handPause)),
    h("label.check", {}, listed, "List this table in the lobby (anyone may join)"),
    h("p.muted.small-text", { text: "Otherwise the table is private: only people you send its link to can join." }),
    h("details.rule-options", {}, h("summary", {}, "Rule options", changedCount),
      h("p.muted.small-text", { text: "Every option of the chosen rules, by topic. Change any: only what you change is sent." }), knobs),
    h("div.create-bar", {}, msg, h("button#create", { type: "submit", text: "Create table" })));
}
