"""Out-of-turn moves in the browser, on stacked decks: a playable-discard call announced as an
intent (hoyle's give_cards) and the give round it starts, naming the player the cards go to; the
buy window closing on its timer, told by the server; the cut that opens a hand (cut_bonus).

Domain words: call window (after a discard that fits a meld, other players may call it), give
round (everyone but the discarder gives the discarder a card), buy window (while the next player
decides, others may ask "May I?"), turn clock, cut.
"""

from __future__ import annotations

from typing import Any

from .conftest import Player, Server, join_by_link, open_table_as_host, stacked_pack


def _status(p: Player) -> str:
    return p.page.inner_text("#status")


def test_a_call_by_intent_then_a_give_round(server: Server, make_player: Any) -> None:
    ann, bea, cy = make_player("Ann"), make_player("Bea"), make_player("Cy")
    overrides = {"hands": [1]}  # hoyle hand 1: two sets, 7 cards
    deals = stacked_pack("hoyle", overrides, ["KH QS 4D 3C 5S 6D AH", "7S 7D 7C 8S 8D 8C 9H",
                                       "9S 9D 9C TS TD TC 2H"], "KD", "QH 4S JC 3H")
    open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "hoyle", "overrides": overrides, "seed": 3,
        "seats": [{"kind": "human"}] * 3, "turn_timer": None, "buy_timer": None,
        "deals": [deals]})
    link = ann.share_link
    join_by_link(bea, link)
    join_by_link(cy, link)
    ann.page.wait_for_selector("#seats li:has-text('Cy')")
    ann.page.click("#start")
    for p in (ann, bea, cy):
        p.page.wait_for_selector("#hand .card")

    # Bea and Cy go down; Ann draws and discards
    bea.page.wait_for_selector(".table-page[data-legal~='draw']")
    bea.perform({"type": "draw"})
    bea.page.wait_for_selector("#go-down-accept")
    bea.perform({"type": "go_down"})
    bea.perform({"type": "discard", "card": "QH"})
    cy.page.wait_for_selector(".table-page[data-legal~='draw']")
    cy.perform({"type": "draw"})
    cy.page.wait_for_selector("#go-down-accept")
    cy.perform({"type": "go_down"})
    cy.perform({"type": "discard", "card": "2H"})
    ann.page.wait_for_selector(".table-page[data-legal~='draw']")
    ann.perform({"type": "draw"})
    ann.perform({"type": "discard", "card": "JC"})
    # Bea, who is down, discards the 9H: it fits Cy's set of nines, so a call window opens
    bea.page.wait_for_selector(".table-page[data-legal~='draw']")
    bea.perform({"type": "draw"})
    bea.perform({"type": "discard", "card": "9H"})

    # Ann calls it out of turn: an intent, shown to the others, while Cy (next) decides
    ann.page.wait_for_selector("#call-intent:has-text('Call it (9♥)')")
    ann.page.click("#call-intent")
    ann.page.wait_for_selector("#call-intent.on:has-text('Calling 9♥')")
    cy.page.wait_for_selector(".requests:has-text('Calling: Ann')")
    bea.page.wait_for_selector(".requests:has-text('Calling: Ann')")
    # Cy draws: the window closes first; Ann's call wins, so Cy's draw is not played
    cy.page.wait_for_selector(".table-page[data-legal~='draw']")
    cy.perform({"type": "draw"})
    cy.page.wait_for_selector("#notice.error:has-text('a call was made first')")
    nines = ".meld-owner[data-owner='2'] .meld[data-kind='set']:has(.card[data-card='9S'])"
    for p in (ann, bea, cy):
        p.page.wait_for_selector(f"{nines} .card[data-card='9H']")
        # the caller reads "You call", the others "Ann calls"; the meld the card went on is
        # drawn from the event's result
        call = "You call" if p is ann else "Ann calls"
        assert any(line.startswith(f"{call} rummy: everyone gives a card on 9♥")
                   for line in p.log()), p.log()
        p.page.wait_for_selector(
            "#log li[data-type='called'] .log-meld[data-kind='set'] .glyph[data-card='9H']")

    # the give round: the page names whom the card goes to (the discarder, Bea)
    ann.page.wait_for_selector(".table-page[data-phase='give']")
    assert _status(ann) == "Pick a card to give to Bea."
    assert _status(cy) == "Waiting: Ann to give Bea a card"
    assert _status(bea) == "Waiting: Ann to give you a card"
    ann.select("KH")
    give = ann.page.locator("button[data-action='give']")
    assert give.inner_text() == "Give K♥ to Bea"
    bea_cards = len(bea.hand())
    ann.perform({"type": "give", "card": "KH"})
    bea.page.wait_for_selector("#hand .card[data-card='KH']")
    assert len(bea.hand()) == bea_cards + 1 and "KH" not in ann.hand()
    assert "Ann gives K♥ to you" in bea.log(), bea.log()
    assert "You give K♥ to Bea" in ann.log(), ann.log()
    # the give round over, Cy's turn comes round again
    cy.page.wait_for_selector(".table-page[data-legal~='draw']")
    for p in (ann, bea, cy):
        assert not p.errors, p.errors


def test_the_buy_window_closes_when_the_server_says(server: Server, make_player: Any) -> None:
    ann, bea = make_player("Ann"), make_player("Bea")
    open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": {"hands": [1]}, "seed": 8,
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "basic"}],
        "turn_timer": 60, "buy_timer": 2.5})
    join_by_link(bea, ann.share_link)
    ann.page.wait_for_selector("#seats li:has-text('Bea')")
    ann.page.click("#start")
    # the upcard: Bea decides first; Ann may ask to buy while the buy clock runs
    ann.page.wait_for_selector("#may-i")
    ann.page.wait_for_selector("#buy-clock:has-text('closes in')")
    bea_clock = ".player[data-seat='1'] .clock"
    assert ann.page.inner_text(bea_clock) == ""  # one clock at a time: the buy window's
    ann.page.click("#may-i")
    ann.page.wait_for_selector("#may-i.on")
    bea.page.wait_for_selector("#buy-requests:has-text('May I? Ann')")
    # the window closes: the server says so, and sends the clock that runs now, Bea's turn
    for p in (ann, bea):
        p.page.wait_for_selector(f"{bea_clock}:has-text('⏱')", timeout=6000)
        assert p.page.locator("#buy-clock").count() == 0
        secs = int(p.page.inner_text(bea_clock).split()[1])
        assert 50 <= secs <= 60
    # Ann's request stands (it is resolved when Bea draws); nobody new may ask
    assert ann.page.locator("#may-i.on").count() == 1
    assert bea.page.locator("#buy-requests").count() == 1
    assert not ann.errors and not bea.errors


def test_the_cut_opens_the_hand(server: Server, make_player: Any) -> None:
    ann, bea = make_player("Ann"), make_player("Bea")
    open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": {"hands": [1], "cut_bonus": 10},
        "seed": 9, "seats": [{"kind": "human"}, {"kind": "bot", "level": "basic"},
                             {"kind": "human"}], "turn_timer": None, "buy_timer": None})
    join_by_link(bea, ann.share_link)  # seat 2: right of the dealer (seat 0)
    ann.page.wait_for_selector("#seats li:has-text('Bea')")
    ann.page.click("#start")
    ann.page.wait_for_selector(".table-page[data-phase='cut']")
    assert _status(ann) == "Waiting: Bea to cut the deck"
    bea.page.wait_for_selector("#cut-count")
    assert "Cut the deck" in _status(bea)
    # lifting exactly players x deal size + 1 cards earns the bonus
    before = bea.version()
    bea.page.fill("#cut-count", str(3 * 10 + 1))
    bea.page.click("#cut")
    bea.wait_version_after(before)
    for p in (ann, bea):
        p.page.wait_for_selector(".player[data-seat='2'] .penalty:has-text('-10 this hand')")
        # the count stays with the cutter: only Bea reads it
        assert (("You cut the deck at 31 cards exactly (-10 points)" if p is bea else
                 "Bea cuts the deck exactly (-10 points)") in p.log()), p.log()
        p.page.wait_for_selector(".table-page:not([data-phase='cut'])")
    assert not ann.errors and not bea.errors
