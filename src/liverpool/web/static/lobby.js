// The lobby: create a table (preset, rule overrides, seats and bot levels, timers), the list of
// open and playing tables (join or watch), and joining by a shared link.
// Domain words: preset, knob (a rule option, RULES.md section 3), override, seat, level, host.

import { api, h, getNickname, setNickname, saveSeat, describeSeats } from "./util.js";

let config = null;

export async function showLobby(root) {
  document.title = "Liverpool Rummy: lobby";
  root.replaceChildren(h("p.loading", { text: "Loading…" }));
  try {
    config = await api("GET", "/api/config");
  } catch (e) {
    root.replaceChildren(h("p.error", { text: "Cannot load the lobby: " + e.message }));
    return;
  }
  const list = h("div#tables.tables");
  root.replaceChildren(
    h("section.panel.create", {}, h("h2", { text: "New table" }), createForm()),
    h("section.panel.open", {},
      h("h2", {}, "Tables ", h("button.small", { type: "button", onclick: () => refresh(list), text: "Refresh" })),
      list, joinByLink()),
    h("footer.version", { text: `liverpool ${config.version || ""}` }),
  );
  refresh(list);
  const timer = setInterval(() => {
    if (!document.body.contains(list)) clearInterval(timer);
    else refresh(list);
  }, 5000);
}

async function refresh(list) {
  let data;
  try {
    data = await api("GET", "/api/tables");
  } catch (e) {
    list.replaceChildren(h("p.error", { text: e.message }));
    return;
  }
  if (!data.tables.length) {
    list.replaceChildren(h("p.muted", { text: "No tables yet: create one." }));
    return;
  }
  list.replaceChildren(...data.tables.map((t) => {
    const free = t.seats.some((s) => s.kind === "human" && !s.name);
    return h("div.table-row", { dataset: { table: t.id } },
      h("span.tid", { text: t.id }),
      h("span.rules", { text: t.rules + (Object.keys(t.overrides || {}).length ? " (+options)" : "") }),
      h("span.status." + t.status, { text: t.status }),
      h("span.seats", { text: describeSeats(t) }),
      h("span.go", {},
        t.status === "open" && free ? h("a.button", { href: `/t/${encodeURIComponent(t.id)}`, text: "Join" }) : null,
        h("a.button.secondary", { href: `/t/${encodeURIComponent(t.id)}?watch=1`, text: "Watch" })));
  }));
}

function joinByLink() {
  const input = h("input", { type: "text", placeholder: "paste a table link or id", "aria-label": "table link" });
  const go = () => {
    const v = input.value.trim();
    if (!v) return;
    const m = v.match(/\/t\/([^/?#]+)/);
    location.href = "/t/" + encodeURIComponent(m ? decodeURIComponent(m[1]) : v);
  };
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
  return h("div.joinlink", {}, input, h("button", { type: "button", onclick: go, text: "Open" }));
}

// the knobs whose values are words (RULES.md section 3): offered as a choice
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
  const nickname = h("input#nickname", { type: "text", maxlength: "24", required: true, value: getNickname(), placeholder: "your name", autocomplete: "nickname" });
  const preset = h("select#preset", {}, presets.map((p) => h("option", { value: p, text: p })));
  preset.value = presets.includes("standard") ? "standard" : presets[0];
  const count = h("select#seat-count", {}, [2, 3, 4, 5, 6, 7, 8].map((n) => h("option", { value: String(n), text: String(n) })));
  count.value = "3";
  const seatRows = h("div.seat-rows");
  const turnTimer = h("input#turn-timer", { type: "number", min: "5", placeholder: "none", inputmode: "numeric" });
  const buyTimer = h("input#buy-timer", { type: "number", min: "1", placeholder: "none", inputmode: "numeric" });
  const knobs = h("div.knobs");
  const msg = h("p.error", { role: "alert" });

  const seatChoice = (i, old) => {
    const sel = h("select", { dataset: { seat: String(i) }, "aria-label": `seat ${i + 1}` },
      h("option", { value: "human", text: "a friend (invite)" }),
      levels.map((l) => h("option", { value: "bot:" + l, text: "computer: " + l })));
    sel.value = old || (i === 1 ? "human" : "bot:basic");
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
    const body = { nickname: name, rules: preset.value, overrides, seats, turn_timer: timer(turnTimer), buy_timer: timer(buyTimer) };
    setNickname(name);
    try {
      const res = await api("POST", "/api/tables", body);
      saveSeat(res.table.id, res.seat, res.token);
      location.href = `/t/${encodeURIComponent(res.table.id)}`;
    } catch (e) {
      msg.textContent = e.message;
    }
  };

  return h("form#create-form", { onsubmit: submit },
    h("label", {}, "Nickname", nickname),
    h("label", {}, "Rules", preset),
    h("label", {}, "Players", count),
    seatRows,
    h("div.timers", {},
      h("label", {}, "Turn timer (s)", turnTimer),
      h("label", {}, "Buy timer (s)", buyTimer)),
    h("details.rule-options", {}, h("summary", { text: "Rule options" }),
      h("p.muted", { text: "Change any option of the preset; lists and objects are JSON." }), knobs),
    msg,
    h("button#create", { type: "submit", text: "Create table" }));
}
