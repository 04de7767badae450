// The page's colour theme: the person's choice, kept in localStorage ("liverpool:theme": "system",
// "light" or "dark"; none is "system"), put on the root element as data-theme. The stylesheet
// does the rest: it follows the system setting (prefers-color-scheme) unless data-theme names a
// theme, so a person who keeps "system" sees the right colours before any script has run.
// Domain words: theme (light or dark colours), choice (system, light, dark), system setting
// (the browser's prefers-color-scheme).

const KEY = "liverpool:theme";
export const THEME_CHOICES = ["system", "light", "dark"];
const DARK_QUERY = "(prefers-color-scheme: dark)";

/** The person's choice: "system" unless they chose a theme. */
export function themeChoice() {
  let v = null;
  try { v = localStorage.getItem(KEY); } catch (e) { v = null; }
  return THEME_CHOICES.includes(v) ? v : "system";
}

/** The theme shown now: the choice, or the system's setting under "system". */
export function activeTheme() {
  const c = themeChoice();
  if (c !== "system") return c;
  return window.matchMedia && window.matchMedia(DARK_QUERY).matches ? "dark" : "light";
}

/** Put the choice on the page (data-theme on the root element; none under "system"). */
export function applyTheme(c = themeChoice()) {
  const root = document.documentElement;
  if (c === "system") delete root.dataset.theme;
  else root.dataset.theme = c;
}

export function setTheme(choice) {
  const c = THEME_CHOICES.includes(choice) ? choice : "system";
  try {
    if (c === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, c);
  } catch (e) { /* storage refused (private mode): the choice lasts for this page */ }
  applyTheme(c);
}

// a choice made in another tab of the game applies here too
window.addEventListener("storage", (e) => { if (e.key === KEY) applyTheme(); });
