// The top bar's settings menu, on every page: the theme (system, light, dark: theme.js), the
// sound switch (sound.js) and "Notify me when it's my turn" (notify.js). Each choice is kept in
// this browser (localStorage) and applies at once.
// Domain words: settings menu, theme, sound switch, quiet (the browser asks for reduced motion:
// sound stays off until switched on), notification.

import { THEME_CHOICES, applyTheme, setTheme, themeChoice } from "./theme.js";
import { armSound, quietAsked, setSound, soundChoice, soundOn } from "./sound.js";
import { notifyOn, notifySupported, setNotify } from "./notify.js";
import { h } from "./util.js";

const THEME_WORDS = { system: "System", light: "Light", dark: "Dark" };

/** The menu's sound line: what the switch does, and why it is off when the person never chose. */
function soundNote() {
  if (soundChoice() === null && quietAsked()) return "Off: this device asks for reduced motion.";
  return "";
}

function buildPanel() {
  const themes = THEME_CHOICES.map((c) => {
    const input = h(`input#theme-${c}`, { type: "radio", name: "theme", value: c });
    input.checked = themeChoice() === c;
    input.addEventListener("change", () => { if (input.checked) setTheme(c); });
    return h("label.check", {}, input, THEME_WORDS[c]);
  });

  const sound = h("input#sound-on", { type: "checkbox" });
  sound.checked = soundOn();
  const soundLine = h("span#sound-note.prefs-note", { text: soundNote() });
  sound.addEventListener("change", () => {
    setSound(sound.checked);
    soundLine.textContent = soundNote();
  });

  const notify = h("input#notify-turn", { type: "checkbox" });
  notify.checked = notifyOn();
  const notifyLine = h("span#notify-note.prefs-note", { role: "status" });
  if (!notifySupported()) {
    notify.disabled = true;
    notifyLine.textContent = "This browser cannot show notifications.";
  }
  notify.addEventListener("change", async () => {
    const why = await setNotify(notify.checked);
    notify.checked = notifyOn();
    notifyLine.textContent = why || "";
  });

  return h("div#prefs-panel.prefs-panel", {},
    h("fieldset", {}, h("legend", { text: "Theme" }), themes),
    h("label.check", { title: "Short tones: your turn, May I?, someone went down, a player went out" },
      sound, "Sound"),
    soundLine,
    h("label.check", { title: "Only while the game's tab is in the background; once per turn" },
      notify, "Notify me when it's my turn"),
    notifyLine);
}

/** Put the settings menu in the top bar (its switches act at once). */
export function mountSettings() {
  applyTheme();
  armSound();
  const bar = document.querySelector(".topbar");
  if (!bar || document.getElementById("prefs")) return;
  const menu = h("details#prefs.prefs", {},
    h("summary", { title: "Theme, sound and notifications", "aria-label": "Settings: theme, sound and notifications" },
      h("span", { "aria-hidden": "true", text: "⚙" })),
    buildPanel());
  // Escape or a click elsewhere closes it (the table's keys never see that Escape)
  menu.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || !menu.open) return;
    e.preventDefault();
    menu.open = false;
    menu.querySelector("summary").focus();
  });
  document.addEventListener("click", (e) => {
    if (menu.open && !menu.contains(e.target)) menu.open = false;
  });
  const conn = document.getElementById("conn");
  bar.insertBefore(menu, conn && conn.parentNode === bar ? conn : null);
}
