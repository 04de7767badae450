"""The table page's gestures on a stacked deck: the go-down helper edited card by card, a lay-off
that asks for an end, a joker swap, wilds marked as what they stand for, the engine's reason for
an illegal choice; sorting and dragging the hand; a spectator; a phone-sized screen.

Domain words: stacked deck (a test-only ``deals`` entry: the whole pack, top first), gesture.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from liverpool.cards import card_str, new_deck, parse_card
from liverpool.engine import stacked_deck
from liverpool.rules import RuleSet

from .conftest import Player, Server, open_table_as_host

ANN = ["7S", "7D", "7C", "5H", "6H", "7H", "8H", "JK", "9H", "3D"]
OVERRIDES = {"hands": [2]}  # one hand, contract 2: one set and one run


def stacked_table(server: Server, host: Player, bots: str = "basic", preset: str = "standard",
                  overrides: dict[str, Any] | None = None, ann: list[str] | None = None,
                  **more: Any) -> str:
    """A table whose one hand deals ``ann`` to the host (seat 0) and the rest at random."""
    overrides = OVERRIDES if overrides is None else overrides
    ann = ANN if ann is None else ann
    rules = RuleSet.preset(preset, overrides)
    contract = (rules.hands or (1,))[0]
    pack = Counter(new_deck(rules.decks_for(3), rules.jokers_per_deck))
    pack.subtract(Counter(parse_card(c) for c in ann))
    rest = sorted(pack.elements())
    random.Random(5).shuffle(rest)
    n = len(ann)
    hands = [[parse_card(c) for c in ann], rest[:n], rest[n:2 * n]]
    deck = stacked_deck(rules, 3, 0, hands, upcard=rest[2 * n], contract_no=contract)
    return open_table_as_host(server, host, {
        "nickname": "Ann", "rules": preset, "overrides": overrides,
        "seats": [{"kind": "human"}, {"kind": "bot", "level": bots},
                  {"kind": "bot", "level": bots}],
        "turn_timer": None, "buy_timer": None, "seed": 3,
        "deals": [[card_str(c) for c in deck]], **more})


def start_and_wait_turn(ann: Player) -> None:
    ann.page.click("#start")
    ann.page.wait_for_selector("#hand .card")
    ann.page.wait_for_selector(".table-page[data-legal~='draw']", timeout=30_000)


def my_melds(ann: Player) -> list[list[str]]:
    return list(ann.page.eval_on_selector_all(
        ".meld-owner[data-owner='0'] .meld",
        "ms => ms.map(m => [...m.querySelectorAll('.card')].map(c => c.dataset.card))"))


def test_go_down_editor_lay_off_swap_and_illegal_reason(server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    stacked_table(server, ann)
    start_and_wait_turn(ann)
    assert Counter(ann.hand()) == Counter(ANN)
    ann.perform({"type": "draw", "player": 0})
    ann.page.wait_for_selector("#go-down")

    # edit the suggestion: take every card back, then build the two melds by picking cards
    # (the run's cards picked out of order)
    build_go_down(ann, [["7S", "7D", "7C"], ["8H", "6H", "5H", "7H"]])
    # runs are sent low to high whatever the order the cards were picked in
    assert my_melds(ann) == [["7S", "7D", "7C"], ["5H", "6H", "7H", "8H"]]
    assert sorted(ann.hand()) == sorted(["JK", "9H", "3D", *[c for c in ann.hand()
                                                            if c not in ("JK", "9H", "3D")]])

    # the engine's reason for an illegal choice, and nothing changes
    hand = sorted(ann.hand())
    before = ann.version()
    ann.select("3D")
    ann.page.click(".meld-owner[data-owner='0'] .meld[data-kind='set']")
    notice = ann.page.wait_for_selector("#notice.error")
    assert notice is not None and notice.inner_text().startswith("Not allowed:")
    assert len(notice.inner_text()) > len("Not allowed: ") + 5
    assert sorted(ann.hand()) == hand and ann.version() == before

    # a joker fits both ends of the run: the page asks which end
    run = ".meld-owner[data-owner='0'] .meld[data-kind='run']"
    ann.select("JK")
    ann.page.click(run)
    ann.page.wait_for_selector("#choice")
    labels = ann.page.eval_on_selector_all("#choice button[data-act]",
                                           "bs => bs.map(b => b.textContent)")
    assert any("low end" in t for t in labels) and any("high end" in t for t in labels)
    before = ann.version()
    ann.page.locator("#choice button", has_text="high end").click()
    ann.wait_version_after(before)
    assert my_melds(ann)[1] == ["5H", "6H", "7H", "8H", "JK"]
    assert ann.page.inner_text(f"{run} .card.wild .stands") == "=9♥"

    # swap the 9H for the joker; the joker must then be played: lay it at the low end
    before = ann.version()
    ann.select("9H")
    ann.page.click(run)
    ann.wait_version_after(before)
    assert my_melds(ann)[1] == ["5H", "6H", "7H", "8H", "9H"]
    assert "must still play JK" in ann.page.inner_text("#status")
    ann.select("JK")
    ann.page.click(run)
    ann.page.locator("#choice button", has_text="low end").click()
    ann.page.wait_for_function(
        "() => document.querySelectorAll(\".meld-owner[data-owner='0'] .meld[data-kind='run'] "
        ".card\").length === 6")
    assert ann.page.inner_text(f"{run} .card.wild .stands") == "=4♥"
    ann.shot("lay-off-and-swap")

    before = ann.version()
    ann.select("3D")
    ann.page.click("#discard")
    ann.wait_version_after(before)
    assert "3D" not in ann.hand()
    assert not ann.errors, ann.errors


def build_go_down(ann: Player, melds: list[list[str]]) -> None:
    """Through the go-down editor: take every suggested card back, pick ``melds``, go down."""
    ann.page.click("#go-down-edit")
    while ann.page.locator("#go-down .edit-meld .card").count():
        ann.page.locator("#go-down .edit-meld .card").first.click()
    for meld in melds:
        for c in meld:
            free = f"#hand .card[data-card='{c}']:not(.selected):not(.used)"
            ann.page.locator(free).first.click()
        ann.page.click("#new-meld")
    assert ann.page.locator("#hand .card.used").count() == sum(map(len, melds))
    before = ann.version()
    ann.page.click("#go-down-send")
    ann.wait_version_after(before)


def test_borrow_a_card_from_a_meld_into_a_new_one(server: Server, make_player: Any) -> None:
    # house rules have borrow; its lay-off gate (two players down) is lifted to keep this short
    ann = make_player("Ann")
    stacked_table(server, ann, preset="house",
                  overrides={"hands": [1], "layoff_needs_second_down": False},
                  ann=["7S", "7D", "7C", "7H", "QS", "QD", "QC", "8H", "9H"])
    start_and_wait_turn(ann)
    ann.perform({"type": "draw", "player": 0})
    ann.page.wait_for_selector("#go-down")
    build_go_down(ann, [["7S", "7D", "7C", "7H"], ["QS", "QD", "QC"]])
    assert len(my_melds(ann)) == 2

    sevens = ".meld-owner[data-owner='0'] .meld[data-meld='0']"
    ann.page.click(f"{sevens} .card[data-card='7H']")
    assert "Borrowing 7♥" in ann.page.inner_text("#status")
    for c in ("9H", "8H"):
        ann.page.locator(f"#hand .card[data-card='{c}']").click()
    before = ann.version()
    ann.page.click("#borrow")
    ann.wait_version_after(before)
    assert sorted(my_melds(ann)) == sorted([["7S", "7D", "7C"], ["QS", "QD", "QC"],
                                            ["7H", "8H", "9H"]])
    assert "8H" not in ann.hand() and "9H" not in ann.hand()
    ann.shot("borrow")
    assert not ann.errors, ann.errors


def test_sort_and_drag_to_reorder_survive_a_reload(server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    stacked_table(server, ann)
    start_and_wait_turn(ann)
    ann.page.click("#sort-rank")
    by_rank = ann.hand()
    assert by_rank[-1] == "JK" and by_rank.index("3D") < by_rank.index("5H") < by_rank.index("9H")
    ann.page.click("#sort-suit")
    assert ann.hand()[:3] == ["7S", "5H", "6H"]  # spades, then hearts ... wilds last

    # drag the first card past the fourth with the mouse (pointer events, as a finger would)
    ann.drag(0, 3)
    order = ann.hand()
    assert order[:4] == ["5H", "6H", "7H", "7S"], order
    assert ann.page.locator("#hand .card.selected").count() == 0  # a drag is not a click
    # the keyboard selects a card too
    ann.page.locator("#hand .card").nth(2).focus()
    ann.page.keyboard.press("Enter")
    picked = ann.page.eval_on_selector_all("#hand .card.selected",
                                           "es => es.map(e => e.dataset.index)")
    assert picked == ["2"]

    ann.page.reload()
    ann.page.wait_for_selector("#hand .card")
    assert ann.hand() == order


def test_spectator_sees_the_table_but_no_hand(server: Server, make_player: Any) -> None:
    ann = make_player("Ann")
    table = stacked_table(server, ann)
    start_and_wait_turn(ann)
    cy = make_player("Cy")
    cy.page.goto(server.base + f"/t/{table}?watch=1")
    cy.page.wait_for_selector("#players .player")
    assert cy.page.locator("#hand .card").count() == 0
    assert "watching" in cy.page.inner_text(".info-bar")
    assert cy.state()["seat"] == "" and cy.legal() == []
    # (the random table id is left out: it may happen to read "9H")
    text = cy.page.inner_text("body").replace(table, "")
    # none of the host's cards that are not on the table shows up for the spectator
    assert "9♥" not in text.replace("\n", " ")
    assert cy.page.locator(".card[data-card='9H']").count() == 0
    assert not cy.errors


def test_phone_sized_screen(server: Server, make_player: Any) -> None:
    ann = make_player("Ann", viewport={"width": 390, "height": 844}, has_touch=True,
                      is_mobile=True, device_scale_factor=2)
    stacked_table(server, ann)
    start_and_wait_turn(ann)
    ann.perform({"type": "draw", "player": 0})
    ann.page.wait_for_selector("#go-down")
    ann.shot("phone-table")
    width = ann.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways ({width} px)"
    for sel in ("#hand .card", "#stock", "#discard-top", "#go-down-accept", "#hint"):
        box = ann.page.locator(sel).last.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, sel
    # the whole turn works with taps on the small screen
    ann.page.locator("#go-down-accept").tap()
    ann.page.wait_for_selector(".meld-owner[data-owner='0']")
    ann.shot("phone-down")
    assert not ann.errors
