"""The table's signals in the browser: the sounds (your turn, a May I? window you may answer,
someone else went down), read off the page's test hook (window.__liverpoolSounds: the name of
every sound played), silenced by the settings menu's switch, quiet under reduced motion unless
switched on, and never played while the page is hidden; the title's "● Your turn" while the page
is hidden, and the opt-in notification, once per turn, through a stand-in window.Notification.

Domain words: sound, switch, quiet (reduced motion), hidden (document.visibilityState, emulated
here by redefining it and sending visibilitychange), title mark, notification, permission.
"""

from __future__ import annotations

from typing import Any

from .conftest import Player, Server
from .test_browser_theme import two_at_a_table

# before any script of the page: the sounds' hook, and a Notification that records what it shows
HOOKS = r"""
window.__liverpoolSounds = [];
window.__notes = [];
window.__asked = 0;
class StandInNotification {
  constructor(title, options) {
    this.title = title;
    this.closed = false;
    window.__notes.push(this);
  }
  close() { this.closed = true; }
  static requestPermission() {
    window.__asked++;
    StandInNotification.permission = "granted";
    return Promise.resolve("granted");
  }
}
StandInNotification.permission = "default";
window.Notification = StandInNotification;
"""

HIDE_JS = """(hidden) => {
  Object.defineProperty(document, "visibilityState", {configurable: true,
    get: () => hidden ? "hidden" : "visible"});
  Object.defineProperty(document, "hidden", {configurable: true, get: () => hidden});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def _hooked(make_player: Any, name: str, **context: Any) -> Player:
    pl: Player = make_player(name, **context)
    pl.context.add_init_script(HOOKS)
    return pl


def _sounds(pl: Player) -> list[str]:
    return list(pl.page.evaluate("() => [...window.__liverpoolSounds]"))


def _wait_sound(pl: Player, name: str) -> None:
    pl.page.wait_for_function("n => window.__liverpoolSounds.includes(n)", arg=name)


def _bea_goes_down_and_discards(bea: Player) -> None:
    """Bea's first turn on two_at_a_table's deck: she draws the QH, goes down with two sets
    and discards the QH."""
    bea.page.wait_for_selector(".table-page[data-legal~='draw']")
    bea.perform({"type": "draw"})
    bea.page.wait_for_selector("#go-down-accept")
    bea.perform({"type": "go_down"})
    bea.perform({"type": "discard", "card": "QH"})


def _round(ann: Player, bea: Player, ann_discards: str, bea_discards: str) -> None:
    """From Ann's turn to her next: each draws from the stock and discards."""
    ann.perform({"type": "draw"})
    ann.perform({"type": "discard", "card": ann_discards})
    bea.page.wait_for_selector(".table-page[data-legal~='draw']")
    bea.perform({"type": "draw"})
    bea.perform({"type": "discard", "card": bea_discards})
    ann.page.wait_for_selector(".table-page[data-legal~='draw']")


def _menu(pl: Player) -> None:
    if not pl.page.locator("#prefs[open]").count():
        pl.page.click("#prefs > summary")


def test_sounds_for_your_turn_may_i_and_someone_going_down_and_the_switch(
        server: Server, make_player: Any) -> None:
    ann, bea = _hooked(make_player, "Ann"), _hooked(make_player, "Bea")
    two_at_a_table(server, ann, bea, buy_timer=60)
    # Bea decides on the upcard first: Ann may say May I?
    ann.page.wait_for_selector("#may-i")
    _wait_sound(ann, "mayi")
    # Bea's own going down is no news to her; Ann hears it, then her turn
    _bea_goes_down_and_discards(bea)
    ann.page.wait_for_selector(".table-page[data-legal~='draw']")
    _wait_sound(ann, "turn")
    assert _sounds(ann) == ["mayi", "down", "turn"]
    assert _sounds(bea) == ["turn"]

    # each turn once: Ann's next turn sounds again
    _round(ann, bea, "KH", "JC")
    assert _sounds(ann) == ["mayi", "down", "turn", "turn"]

    # the switch, on by default, turns it all off, and is remembered
    _menu(ann)
    assert ann.page.is_checked("#sound-on")
    ann.page.uncheck("#sound-on")
    assert ann.page.evaluate("() => localStorage.getItem('liverpool:sound')") == "off"
    ann.page.keyboard.press("Escape")
    _round(ann, bea, "QS", "5C")
    assert _sounds(ann) == ["mayi", "down", "turn", "turn"]  # Ann's third turn: silent
    ann.page.reload()
    ann.page.wait_for_selector("#hand .card")
    _menu(ann)
    assert not ann.page.is_checked("#sound-on")
    assert _sounds(ann) == []
    assert not ann.errors and not bea.errors


def test_a_hidden_page_is_silent_its_title_says_your_turn_and_one_notification(
        server: Server, make_player: Any) -> None:
    ann, bea = _hooked(make_player, "Ann"), _hooked(make_player, "Bea")
    table = two_at_a_table(server, ann, bea, buy_timer=60)
    plain = f"Liverpool Rummy: table {table}"
    assert ann.page.title() == plain
    # the browser's permission is asked when the person turns notifications on, not before
    assert ann.page.evaluate("() => window.__asked") == 0
    _menu(ann)
    ann.page.check("#notify-turn")
    ann.page.wait_for_function("() => localStorage.getItem('liverpool:notify') === 'on'")
    assert ann.page.evaluate("() => window.__asked") == 1
    ann.page.keyboard.press("Escape")

    ann.page.wait_for_selector("#may-i")
    ann.page.evaluate("() => { window.__liverpoolSounds.length = 0; }")
    ann.page.evaluate(HIDE_JS, True)
    # hidden while a May I? window is open for Ann: the title says so
    assert ann.page.title() == f"● May I? — {plain}"
    _bea_goes_down_and_discards(bea)
    ann.page.wait_for_selector(".table-page[data-legal~='draw']")
    ann.page.wait_for_function("t => document.title === t", arg=f"● Your turn — {plain}")
    assert _sounds(ann) == []  # Bea went down and it became Ann's turn: no sound while hidden
    notes = ann.page.evaluate("() => window.__notes.map((n) => n.title)")
    assert notes == ["Your turn"]
    # another update in the same turn (Ann draws): no second notification
    ann.perform({"type": "draw"})
    assert ann.page.evaluate("() => window.__notes.length") == 1
    assert ann.page.title() == f"● Your turn — {plain}"
    # seen again: the plain title, the notification closed, nothing played after the fact
    ann.page.evaluate(HIDE_JS, False)
    assert ann.page.title() == plain
    assert ann.page.evaluate("() => window.__notes.every((n) => n.closed)")
    assert _sounds(ann) == []
    # Bea, who turned nothing on, was never asked and shown nothing
    assert bea.page.evaluate("() => [window.__asked, window.__notes.length]") == [0, 0]
    assert not ann.errors and not bea.errors


def test_reduced_motion_is_quiet_until_sound_is_switched_on(
        server: Server, make_player: Any) -> None:
    ann, bea = _hooked(make_player, "Ann", reduced_motion="reduce"), _hooked(make_player, "Bea")
    two_at_a_table(server, ann, bea, buy_timer=60)
    ann.page.wait_for_selector("#may-i")
    _wait_sound(bea, "turn")
    assert _sounds(ann) == []  # the May I? window opened in quiet
    _menu(ann)
    assert not ann.page.is_checked("#sound-on")
    assert "reduced motion" in ann.page.inner_text("#sound-note")
    ann.page.check("#sound-on")
    assert ann.page.inner_text("#sound-note") == ""
    ann.page.keyboard.press("Escape")
    _bea_goes_down_and_discards(bea)
    _wait_sound(ann, "turn")
    assert _sounds(ann) == ["down", "turn"]
    assert not ann.errors and not bea.errors


def test_a_player_going_out_is_heard_by_everyone(server: Server, make_player: Any) -> None:
    ann, bea = _hooked(make_player, "Ann"), _hooked(make_player, "Bea")
    # Bea's second draw is the 8H: she lays it off on her eights and goes out on the 9H
    two_at_a_table(server, ann, bea, stock_top="QH 4S 8H 3H")
    _bea_goes_down_and_discards(bea)
    ann.page.wait_for_selector(".table-page[data-legal~='draw']")
    ann.perform({"type": "draw"})
    ann.perform({"type": "discard", "card": "KH"})
    bea.page.wait_for_selector(".table-page[data-legal~='draw']")
    bea.perform({"type": "draw"})
    lay = bea.hint()
    assert lay["type"] == "lay_off" and lay["card"] == "8H", lay
    bea.perform(lay)
    bea.perform({"type": "discard", "card": "9H"})
    for p in (ann, bea):
        _wait_sound(p, "out")
    # going out sounds once; Bea's own going down was silent for her
    assert _sounds(ann)[-1:] == ["out"] and _sounds(ann).count("down") == 1
    assert _sounds(bea) == ["turn", "turn", "out"]
    assert not ann.errors and not bea.errors
