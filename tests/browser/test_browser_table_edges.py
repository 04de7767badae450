"""Rough edges of the table page a person meets in their first hands: a lay-off clicked onto a
meld can be undone before it is sent; a new hand is dealt sorted (not in the order dragged for
the hand before) and its first "May I?" counts down; a selected card that fits a meld out of
view is pointed to, and a player's melds fold; a person back at a seat a bot covered is told
what the bot did.

Domain words: staged lay-off (clicked onto a meld, shown there, sent after a moment unless
undone), target chip (the board's note of where a selected card fits), fold (a player's melds
hidden under their name), away sheet (what the covering bot did).
"""

from __future__ import annotations

import contextlib
from typing import Any

from .conftest import Player, Server, join_by_link, open_table_as_host
from .test_browser_table import build_go_down, my_melds, stacked_table, start_and_wait_turn


def _down_with_a_lay_off_left(ann: Player) -> None:
    start_and_wait_turn(ann)
    ann.perform({"type": "draw", "player": 0})
    ann.page.wait_for_selector("#go-down")
    build_go_down(ann, [["7S", "7D", "7C"], ["5H", "6H", "7H", "8H"]])


def test_a_lay_off_clicked_onto_a_meld_waits_for_an_undo(server: Server,
                                                        make_player: Any) -> None:
    ann = make_player("Ann")
    stacked_table(server, ann)
    _down_with_a_lay_off_left(ann)
    run = ".meld-owner[data-owner='0'] .meld[data-kind='run']"
    before = ann.version()
    ann.select("9H")
    ann.page.click(run)
    # staged: shown on the run, the card lifted from the hand, nothing sent
    ann.page.wait_for_selector("#staged:has-text('9♥')")
    assert ann.page.locator(f"{run} .card.ghost[data-card='9H']").count() == 1
    assert ann.page.locator("#hand .card.staged[data-card='9H']").count() == 1
    assert ann.version() == before
    # another move waits for the person's word on the staged one
    ann.page.keyboard.press("d")
    ann.page.wait_for_selector("#notice:has-text('undo it first')")
    ann.page.keyboard.press("u")
    ann.page.wait_for_selector("#staged", state="detached")
    assert ann.page.locator("#hand .card.selected[data-card='9H']").count() == 1
    # undone means never sent: the staging's moment passes and the table has not moved
    ann.page.wait_for_timeout(5000)
    assert ann.version() == before and my_melds(ann)[1] == ["5H", "6H", "7H", "8H"]
    # staged again, and played at once
    ann.page.click(run)
    ann.page.click("#staged-send")
    ann.wait_version_after(before)
    ann.page.wait_for_function(
        "() => document.querySelectorAll(\".meld-owner[data-owner='0'] .meld[data-kind='run'] "
        ".card:not(.ghost)\").length === 5")
    assert my_melds(ann)[1] == ["5H", "6H", "7H", "8H", "9H"]
    # left alone, a staged lay-off goes by itself: the joker at the low end
    before = ann.version()
    ann.select("JK")
    ann.page.click(run)
    ann.page.locator("#choice button", has_text="low end").click()
    ann.wait_version_after(before)
    assert my_melds(ann)[1][0] == "JK"
    assert not ann.errors, ann.errors


def test_a_selected_card_that_fits_a_meld_out_of_view_is_pointed_to(
        server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    ann.page.set_viewport_size({"width": 1280, "height": 520})
    stacked_table(server, ann)
    _down_with_a_lay_off_left(ann)
    board = ann.page.locator("#board")
    # the melds scrolled out of view (the board scrolled to its top, the window short)
    board.evaluate("b => { b.scrollTop = 0; }")
    ann.select("9H")
    hint = ann.page.wait_for_selector("#target-hint")
    assert hint is not None and "9♥ fits" in hint.inner_text() and "below" in hint.inner_text()
    ann.page.click("#target-show")
    ann.page.wait_for_selector("#target-hint", state="detached")
    # the run is in view now, inside the board
    inside = ann.page.evaluate(
        "() => { const b = document.querySelector('#board').getBoundingClientRect();"
        " const m = document.querySelector(\".meld-owner[data-owner='0'] .meld[data-kind='run']\")"
        ".getBoundingClientRect(); return m.top >= b.top && m.bottom <= b.bottom + 1; }")
    assert inside
    # where there is room, the players' strip stays in sight at the top of the board as it
    # scrolls
    ann.page.set_viewport_size({"width": 1280, "height": 660})
    board.evaluate("b => { b.scrollTop = b.scrollHeight; }")
    strip = ann.page.evaluate(
        "() => { const b = document.querySelector('#board');"
        " const p = document.querySelector('#players');"
        " return [b.scrollTop, p.getBoundingClientRect().top - b.getBoundingClientRect().top]; }")
    assert strip[0] > 0 and abs(strip[1]) <= 1, strip
    # fold Ann's melds: the card still fits there, and the page says so
    ann.page.click(".meld-owner[data-owner='0'] .owner-name.fold")
    assert ann.page.locator(".meld-owner[data-owner='0'] .meld").count() == 0
    assert "fits here" in ann.page.inner_text(".meld-owner[data-owner='0']")
    ann.page.wait_for_selector("#target-hint:has-text('folded')")
    # the fold is kept across a reload; "Show it" unfolds
    ann.page.reload()
    ann.page.wait_for_selector(".meld-owner.folded[data-owner='0']")
    ann.select("9H")
    ann.page.click("#target-show")
    ann.page.wait_for_selector(".meld-owner[data-owner='0'] .meld[data-kind='run']")
    assert not ann.errors, ann.errors


def test_the_next_hand_is_dealt_sorted_and_its_first_may_i_counts_down(
        server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    # two short hands; the bots wait for Ann's word on each discard, and each hand's end waits
    stacked_table(server, ann, overrides={"hands": [2, 1], "turn_limit": 2}, buy_window=30,
                  hand_pause=120)
    ann.page.click("#start")
    ann.page.wait_for_selector("#hand .card")
    # Ann drags a card into her own order
    ann.drag(0, 3)
    ann.page.wait_for_selector(".hand-tools:has-text('your order')")
    for _ in range(200):  # hand 1: Ann plays the hints and says no thanks to every discard
        if ann.page.locator("#hand-end").count():
            ann.page.wait_for_selector("#next-hand")
            break
        if ann.page.locator("#no-thanks").count():
            # (the window may close, or the hand end, as it is clicked)
            with contextlib.suppress(Exception):  # (Playwright's Error)
                ann.page.click("#no-thanks", timeout=2000)
        elif ann.legal() and ann.page.locator("#hint").count():
            ann.perform(ann.hint())
        else:
            ann.page.wait_for_timeout(100)
    else:
        raise AssertionError("hand 1 did not end")
    ann.page.click("#next-hand")
    # hand 2: a bot opens on the upcard and Ann may buy it; the bar counts down
    ann.page.wait_for_selector("#hand-number:has-text('Hand 2')")
    ann.page.wait_for_selector("#window-bar", timeout=30_000)
    ann.page.wait_for_selector("#window-bar:not(.open-ended)", timeout=5_000)
    ann.page.wait_for_selector("#buy-clock:has-text('closes in')")
    # dealt in Ann's usual order (by suit), not in the order dragged for hand 1
    assert "your order" not in ann.page.inner_text(".hand-tools")
    order = ann.hand()
    ann.page.click("#sort-suit")
    assert ann.hand() == order
    assert not ann.errors, ann.errors


def test_a_person_back_at_a_covered_seat_sees_what_the_bot_did(
        server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    bea = make_player("Bea")
    table = open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": {"hands": [1]},
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "basic"}],
        "turn_timer": None, "buy_timer": None, "seed": 4})
    join_by_link(bea, ann.share_link or "")
    ann.page.wait_for_selector("#seats li:has-text('Bea')")
    ann.page.click("#start")
    bea.page.wait_for_selector("#hand .card")
    bea.page.goto("about:blank")  # Bea's tab goes; after the grace time a bot covers her seat
    ann.page.wait_for_selector(".player[data-seat='1'] .badge:has-text('bot covering')",
                               timeout=30_000)
    covered_at = len(ann.log())
    for _ in range(300):  # Ann plays on until the bot has discarded for Bea
        log = ann.log()  # (newest first)
        if any(line.startswith("Bea discards") for line in log[: len(log) - covered_at]):
            break
        if ann.phase() == "over":
            break
        if ann.legal() and ann.page.locator("#hint").count():
            ann.perform(ann.hint())
        else:
            ann.page.wait_for_timeout(100)
    else:
        raise AssertionError("the bot never played Bea's seat")
    bea.page.goto(server.base + f"/t/{table}")
    sheet = bea.page.wait_for_selector("#away")
    assert sheet is not None and "computer player played your seat" in sheet.inner_text()
    lines = bea.page.eval_on_selector_all("#away-moves li", "ls => ls.map(l => l.textContent)")
    assert any(line.startswith("You discard") for line in lines), lines
    assert not any(line.startswith("Ann") for line in lines), lines
    bea.page.click("#away-ok")
    bea.page.wait_for_selector("#away", state="detached")
    assert not ann.errors and not bea.errors, (ann.errors, bea.errors)
