"""The dark theme in the browser: it follows the system setting (Playwright's color_scheme
emulation) unless the settings menu's switch names a theme, on every page, and text keeps WCAG AA
contrast (4.5:1) in both themes, measured from the computed styles of the real elements: the
cards of each suit in the two- and four-colour decks, body text, buttons, muted text, links, and
every other line of text the page shows.

Domain words: theme (light or dark), system setting (prefers-color-scheme), switch (the top bar's
settings menu: system, light, dark), contrast ratio (WCAG: (L1 + 0.05) / (L2 + 0.05) of the
relative luminances), effective background (the element's and its ancestors' background colours
laid over each other), four-colour deck.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Player, Server, finished_game, join_by_link, open_table_as_host, stacked_pack
from .test_browser_players import new_player

AA = 4.5  # WCAG AA for text; 3:1 for large text (24 px, or 18.7 px bold)

# The contrast of a text element against what is painted behind it, from computed styles only:
# its colour, its opacity and its ancestors' (an element at under 60% is disabled or a used card,
# which WCAG leaves out), and the background colours from it up to the first opaque one, laid
# over each other. Text over a background image (a card back, the joker's gradient) is left out:
# no colour can be computed for it.
_CONTRAST_FN = r"""
function __contrast(el) {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const style = getComputedStyle(el);
  let opacity = 1;
  const layers = [];
  let image = false;
  let base = null;
  for (let e = el; e; e = e.parentElement) {
    const s = getComputedStyle(e);
    opacity *= Number(s.opacity);
    if (base) continue;
    if (s.backgroundImage !== "none") { image = true; break; }
    const bg = parse(s.backgroundColor);
    if (bg && bg.a > 0) {
      if (bg.a >= 1) base = bg; else layers.push(bg);
    }
  }
  if (image) return { skip: "image" };
  if (!base) base = { r: 255, g: 255, b: 255, a: 1 };
  let bg = base;
  for (const l of layers.reverse()) bg = over(l, bg);
  let fg = parse(style.color);
  if (!fg) return { skip: "color" };
  fg = over({ ...fg, a: fg.a * opacity }, bg);
  const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  const size = parseFloat(style.fontSize);
  const bold = Number(style.fontWeight) >= 700;
  return { ratio: (hi + 0.05) / (lo + 0.05), opacity, large: size >= 24 || (size >= 18.66 && bold),
           bgLum: lum(bg), fg: style.color };
}
"""

# every visible element with text of its own, measured; the ones under AA returned
SWEEP_JS = "() => {" + _CONTRAST_FN + r"""
  const out = [];
  let seen = 0;
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg, .sr-only, script, style, noscript")) continue;
    if (el.closest(":disabled")) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const box = el.getBoundingClientRect();
    if (box.width < 2 || box.height < 2) continue;
    const c = __contrast(el);
    if (c.skip || c.opacity < 0.6) continue;
    seen++;
    if (c.ratio < (c.large ? 3 : 4.5)) {
      const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
        (typeof el.className === "string" && el.className.trim() ?
          "." + el.className.trim().split(/\s+/).join(".") : "");
      out.push(`${name} "${el.textContent.trim().slice(0, 30)}" ${c.ratio.toFixed(2)} (${c.fg})`);
    }
  }
  return { seen, failing: out };
}"""

# the contrast of the first visible element a selector finds
RATIO_JS = "(sel) => {" + _CONTRAST_FN + r"""
  const el = [...document.querySelectorAll(sel)].find((e) => e.checkVisibility());
  if (!el) return null;
  return __contrast(el);
}"""

# (the system setting, the switch): the switch wins over the system unless it says "system"
MODES = [("dark", "system"), ("light", "system"), ("light", "dark"), ("dark", "light")]


def _expected(system: str, choice: str) -> str:
    return system if choice == "system" else choice


def _set_mode(pl: Player, system: str, choice: str) -> None:
    """The system setting emulated, the theme chosen in the top bar's settings menu."""
    page = pl.page
    page.emulate_media(color_scheme=system)
    page.click("#prefs > summary")
    page.check(f"#theme-{choice}")
    page.keyboard.press("Escape")
    page.wait_for_selector("#prefs:not([open])")


def _check_page(pl: Player, system: str, choice: str, where: str) -> None:
    """The page shows the theme wanted, and every line of its text reads at AA."""
    page = pl.page
    want = _expected(system, choice)
    body = page.evaluate(RATIO_JS, "main")
    assert body is not None, where
    # the page's background is dark in the dark theme (luminance under 0.05), light otherwise
    dark = page.evaluate("() => { const c = getComputedStyle(document.body).backgroundColor;"
                         " const [r, g, b] = c.match(/[\\d.]+/g).map(Number);"
                         " return (r + g + b) / 3 < 80; }")
    assert dark == (want == "dark"), f"{where}: wanted {want} ({system} system, switch {choice})"
    sweep = page.evaluate(SWEEP_JS)
    assert sweep["seen"] > 5, where
    mode = f"{want} ({system} system, switch {choice})"
    assert not sweep["failing"], f"{where} in {mode}: {sweep['failing']}"


def _ratio(pl: Player, selector: str) -> float:
    got = pl.page.evaluate(RATIO_JS, selector)
    assert got is not None and "ratio" in got, f"no visible {selector}: {got}"
    return float(got["ratio"])


def two_at_a_table(server: Server, ann: Player, bea: Player, buy_timer: float | None = None,
                   stock_top: str = "QH 4S JC 3H 5C 6C") -> str:
    """Ann (host, seat 0: every suit in her hand) and Bea (seat 1: two sets, she goes down on her
    first turn, and plays first) at a started hoyle table of one hand; no turn clock; the stock
    starts with ``stock_top``."""
    overrides = {"hands": [1]}  # hoyle hand 1: two sets, 7 cards
    deals = stacked_pack("hoyle", overrides, ["KH QS 4D 3C 5S 6D AH", "7S 7D 7C 8S 8D 8C 9H"], "KD",
                  stock_top)
    table = open_table_as_host(server, ann, {
        "nickname": ann.name, "rules": "hoyle", "overrides": overrides, "seed": 3,
        "seats": [{"kind": "human"}] * 2, "turn_timer": None, "buy_timer": buy_timer,
        "deals": [deals]})
    join_by_link(bea, ann.share_link)
    ann.page.wait_for_selector(f"#seats li:has-text('{bea.name}')")
    ann.page.click("#start")
    for p in (ann, bea):
        p.page.wait_for_selector("#hand .card")
    return table


@pytest.fixture(scope="module")
def finished(server: Server) -> str:
    table, _replay = finished_game(server)
    return table


def test_the_theme_follows_the_system_and_the_switch_on_every_page(
        server: Server, make_player: Any, finished: str) -> None:
    ann, bea = make_player("Ann"), make_player("Bea")
    # the lobby: body text, the buttons, muted text, a link
    ann.page.goto(server.base + "/")
    ann.page.wait_for_selector("#create-form")
    for system, choice in MODES:
        _set_mode(ann, system, choice)
        _check_page(ann, system, choice, "the lobby")
        for sel in ("#create-form label", "#create", "main .muted"):
            assert _ratio(ann, sel) >= AA, (sel, system, choice)
    # the menu itself, open
    ann.page.click("#prefs > summary")
    _check_page(ann, "dark", "light", "the settings menu")
    ann.page.keyboard.press("Escape")

    # a table in play: Ann's May I? window while Bea decides, every suit in Ann's hand
    two_at_a_table(server, ann, bea, buy_timer=60)
    ann.page.wait_for_selector("#may-i")
    suits = [f"#hand .card.suit-{s}" for s in "SHDC"]
    for system, choice in MODES:
        _set_mode(ann, system, choice)
        for four in (False, True):
            if ann.page.locator("body.four-color").count() != four:
                ann.page.click("#four-color")
            deck = "four-colour" if four else "two-colour"
            _check_page(ann, system, choice, f"the table ({deck} deck)")
            for sel in (*suits, "#four-color", "#may-i"):
                assert _ratio(ann, sel) >= AA, (sel, deck, system, choice)
        # the keys sheet over the table
        ann.page.keyboard.press("?")
        ann.page.wait_for_selector(".overlay .keys")
        _check_page(ann, system, choice, "the keys sheet")
        ann.page.keyboard.press("Escape")
        ann.page.wait_for_selector(".overlay", state="detached")
    # Bea's turn: the prompt, a hint toast
    bea.page.wait_for_selector(".table-page[data-legal~='draw']")
    bea.page.click("#hint")
    bea.page.wait_for_selector("#notice.hint")
    for system, choice in MODES:
        _set_mode(bea, system, choice)
        _check_page(bea, system, choice, "the table on turn, with a toast")
    # the chat: its tabs (the players' one on), a line said, the reactions, the host's switches
    for p in (ann, bea):
        p.page.click("#tab-chat")
    ann.page.fill("#chat-input", "hello there")
    ann.page.keyboard.press("Enter")
    for p in (ann, bea):
        p.page.wait_for_selector("#chat-lines li:has-text('hello there')")
    for p in (ann, bea):
        for system, choice in MODES:
            _set_mode(p, system, choice)
            _check_page(p, system, choice, "the chat")
            assert _ratio(p, "#chat-tab-players") >= AA, (system, choice)

    # a finished table (its page for a passer-by, with a link; the standings), its replay, a
    # player's page
    bea.page.goto(server.base + f"/t/{finished}")
    bea.page.wait_for_selector(f"main a[href='/replay/{finished}']")
    for system, choice in MODES:
        _set_mode(bea, system, choice)
        _check_page(bea, system, choice, "a finished table's page")
        assert _ratio(bea, f"main a[href='/replay/{finished}']") >= AA, (system, choice)
    for where, path, ready in (
            ("the standings", f"/t/{finished}?watch", ".standings"),
            ("the replay", f"/replay/{finished}", ".replay-controls"),
            ("a player's page", "/p/me", "main h2")):
        bea.page.goto(server.base + path)
        bea.page.wait_for_selector(ready)
        for system, choice in MODES:
            _set_mode(bea, system, choice)
            _check_page(bea, system, choice, where)
    assert not ann.errors and not bea.errors


def test_the_choice_is_kept_and_system_follows_the_setting(
        server: Server, make_player: Any) -> None:
    ann = make_player("Ann", color_scheme="dark")
    ann.page.goto(server.base + "/")
    ann.page.wait_for_selector("#prefs")
    # nothing chosen: the system's dark, and the menu says "System"
    assert ann.page.evaluate("() => document.documentElement.dataset.theme") is None
    ann.page.click("#prefs > summary")
    assert ann.page.is_checked("#theme-system")
    ann.page.check("#theme-light")
    assert ann.page.evaluate("() => localStorage.getItem('liverpool:theme')") == "light"
    # another page, another visit: still light, in a dark system
    ann.page.goto(server.base + "/leaderboard")
    ann.page.wait_for_selector("#prefs")
    assert ann.page.evaluate("() => document.documentElement.dataset.theme") == "light"
    scheme = "() => getComputedStyle(document.documentElement).colorScheme"
    assert ann.page.evaluate(scheme) == "light"
    ann.page.click("#prefs > summary")
    assert ann.page.is_checked("#theme-light")
    ann.page.check("#theme-system")
    assert ann.page.evaluate("() => localStorage.getItem('liverpool:theme')") is None
    assert ann.page.evaluate("() => document.documentElement.dataset.theme") is None
    assert not ann.errors


def test_forget_me_keeps_how_the_page_looks_and_sounds(server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    new_player(server, ann, "Ann")
    page = ann.page
    page.goto(server.base + "/p/me")
    page.wait_for_selector("#settings")
    page.click("#prefs > summary")
    page.check("#theme-dark")
    page.uncheck("#sound-on")
    page.keyboard.press("Escape")
    page.click("#forget")
    page.click("#forget-confirm")
    page.wait_for_selector("#forgotten")
    kept = page.evaluate("() => ['theme', 'sound', 'player']"
                         ".map((k) => localStorage.getItem('liverpool:' + k))")
    assert kept == ["dark", "off", None]
    assert not ann.errors
