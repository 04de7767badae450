"""The first-game guide in real browsers: on a person's first table, one callout at a time walks
through a turn on the live table (draw, going down, laying off, discard, May I?), each beside
the element it talks about, moving on when the person does the thing; skipped or done, it is
never shown again unasked, and the game menu or the keys dialog brings it back.

Domain words: step (a callout of the guide: its ``data-step`` is draw, godown, layoff, discard,
mayi, or wait before the person's first turn), target (the element a callout points at: marked
``guide-target``), guide state (localStorage "liverpool:guide"), stacked deal (a deck given to
the table, so that the host's hand is known), new person (a browser context made with
``guide=True``: the other browser tests are people who have seen the guide).
"""

from __future__ import annotations

import json
from typing import Any

from liverpool.cards import card_str, parse_card
from liverpool.engine import stacked_deck
from liverpool.rules import RuleSet

from .conftest import Player, Server, finished_game, open_table_as_host

GUIDE = "#guide:not([hidden])"
# the host can go down at once (two sets); nothing of the hand fits them afterwards
ANN = "7S 7D 7C 9S 9D 9C KH 4C 5D JS"
BOTS = ["2S 3D 4H 6C 8S TD QH AS 5C JD", "2H 3S 4D 6S 8C TC QC AH 5S JH"]
UPCARD = "QD"
STOCK = "KS 2C 3H"  # drawn by the first bot, the second, then the host


def _deck(host: str, bots: list[str]) -> list[str]:
    rules = RuleSet.preset("standard", {"hands": [1]})
    hands = [[parse_card(c) for c in h.split()] for h in [host, *bots]]
    deck = stacked_deck(rules, len(hands), 0, hands, upcard=parse_card(UPCARD),
                        stock_top=[parse_card(c) for c in STOCK.split()], contract_no=1)
    return [card_str(c) for c in deck]


def _table(server: Server, host: Player, bots: int = 2, buy_window: float | None = None,
           stacked: bool = True, start: bool = True) -> str:
    """A standard table of the host and ``bots`` basic bots, its first hand only, no clocks;
    ``stacked``: the host's hand is ANN (two bots), else a seeded deal."""
    body: dict[str, Any] = {
        "nickname": host.name, "rules": "standard", "overrides": {"hands": [1]}, "seed": 5,
        "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * bots,
        "turn_timer": None, "buy_timer": None}
    if buy_window is not None:
        body["buy_window"] = buy_window
    if stacked:
        body["deals"] = [_deck(ANN, BOTS[:bots])]
    table = open_table_as_host(server, host, body)
    if start:
        host.page.click("#start")
        host.page.wait_for_selector("#hand .card")
    return table


def _answer_windows_until_my_draw(p: Player) -> None:
    """"No thanks" to every May I? panel until the person's own draw (the bots wait for it)."""
    p.page.wait_for_selector(".table-page[data-legal~='draw'], #no-thanks")
    while not p.page.locator(".table-page[data-legal~='draw']").count():
        if p.page.locator("#no-thanks").count():
            p.page.click("#no-thanks")
        p.page.wait_for_selector(".table-page[data-legal~='draw'], #no-thanks")


def _step(p: Player, step: str) -> None:
    p.page.wait_for_selector(f"{GUIDE}[data-step='{step}']")


def _callout(p: Player) -> dict[str, Any]:
    """The callout's box and its target's, the window's size, and what the callout says."""
    got = p.page.evaluate("""() => {
        const box = document.querySelector('#guide');
        const t = document.querySelector('.guide-target');
        const r = (el) => { const b = el.getBoundingClientRect();
            return {left: b.left, top: b.top, right: b.right, bottom: b.bottom}; };
        return {box: r(box), target: t ? r(t) : null, targetId: t ? t.id : null,
            vw: document.documentElement.clientWidth, vh: document.documentElement.clientHeight,
            text: box.innerText};
    }""")
    return dict(got)


def _beside_and_inside(c: dict[str, Any]) -> None:
    """The callout is inside the window and does not cover its target."""
    b, t = c["box"], c["target"]
    assert t is not None, "no element is marked as the callout's target"
    assert b["left"] >= 0 and b["top"] >= 0, c
    assert b["right"] <= c["vw"] and b["bottom"] <= c["vh"], c
    overlap = not (b["right"] <= t["left"] or t["right"] <= b["left"]
                   or b["bottom"] <= t["top"] or t["bottom"] <= b["top"])
    assert not overlap, c


def _sheet(server: Server, table: str, heading: str) -> list[str]:
    sheet = server.api("GET", f"/api/tables/{table}")["rules_sheet"]
    return next(lines for head, lines in sheet if heading in head)


def _guide_state(p: Player) -> Any:
    return json.loads(p.page.evaluate("() => localStorage.getItem('liverpool:guide')") or "null")


def test_the_guide_walks_a_new_person_through_their_first_turn(server: Server,
                                                               make_player: Any) -> None:
    ann = make_player("Ann", viewport={"width": 1280, "height": 800}, guide=True)
    # the callout is placed by style properties, never a style attribute (the page's CSP)
    refused: list[str] = []
    ann.page.on("console", lambda m: refused.append(m.text)
                if "Content Security Policy" in m.text else None)
    # the bots wait for Ann's answer to the May I? window (up to a minute)
    table = _table(server, ann, buy_window=60)

    # the first bot discards before Ann's first turn: the May I? panel, and what it means
    _step(ann, "mayi")
    c = _callout(ann)
    ann.shot("guide-may-i", full_page=False)
    assert c["targetId"] == "window"
    assert _sheet(server, table, "Buying")[0] in c["text"]  # the server's words
    _beside_and_inside(c)
    ann.page.click("#no-thanks")  # answering the panel moves the guide on
    ann.page.wait_for_selector(f"{GUIDE}[data-step='mayi']", state="detached")

    # a spectator never gets the guide
    watcher = make_player("Cy", guide=True)
    watcher.page.goto(server.base + f"/t/{table}?watch")
    watcher.page.wait_for_selector(".table-page[data-phase]")

    # Ann's turn: step 1 on the stock, beside it
    _answer_windows_until_my_draw(ann)
    _step(ann, "draw")
    c = _callout(ann)
    ann.shot("guide-draw", full_page=False)
    assert c["targetId"] == "stock" and "step 1 of 5" in c["text"]
    _beside_and_inside(c)
    assert watcher.page.locator(GUIDE).count() == 0
    assert _guide_state(watcher) is None
    watcher.close()

    # drawing (a click on the stock, which the callout leaves free) moves on to going down:
    # this hand's contract from the view, the melds' words from the rules sheet
    ann.perform({"type": "draw"})
    _step(ann, "godown")
    c = _callout(ann)
    ann.shot("guide-go-down", full_page=False)
    assert c["targetId"] == "go-down"
    assert "This hand's contract: 2 sets" in c["text"]
    assert _sheet(server, table, "Melds")[1] in c["text"]
    _beside_and_inside(c)

    # a reload keeps the guide where it was
    ann.page.reload()
    _step(ann, "godown")
    assert _guide_state(ann)["seen"] == ["mayi", "draw"]

    # going down: nothing fits the melds now, so laying off is said and skipped; the discard
    # is the last step
    ann.perform({"type": "go_down"})
    _step(ann, "discard")
    c = _callout(ann)
    ann.shot("guide-discard", full_page=False)
    assert "Laying off: no card of yours fits" in c["text"]
    assert ann.page.inner_text("#guide-next") == "Done"
    ann.perform({"type": "discard", "card": "KH"})
    ann.page.wait_for_selector("#guide", state="hidden")
    assert _guide_state(ann) == {"done": True}
    assert not ann.errors and not refused, ann.errors + refused


def test_skipped_it_is_gone_for_good_and_the_menu_brings_it_back(server: Server,
                                                                make_player: Any) -> None:
    ann = make_player("Ann", guide=True)
    _table(server, ann, stacked=False)
    ann.page.wait_for_selector(".table-page[data-legal~='draw']")
    _step(ann, "draw")
    # keyboard: the callout's buttons are reached and pressed like any other, and the focus
    # goes back to the hand
    ann.page.focus("#guide-skip")
    ann.page.keyboard.press("Enter")
    ann.page.wait_for_selector("#guide", state="hidden")
    assert _guide_state(ann) == {"done": True}
    assert ann.page.evaluate("() => document.activeElement.matches('#hand .card')")

    ann.page.reload()
    ann.page.wait_for_selector(".table-page[data-legal~='draw'] #stock.clickable")
    assert ann.page.locator(GUIDE).count() == 0

    # the game menu's "Show the guide again": the step of the moment, at once
    ann.page.click("#menu-button")
    ann.page.click("#guide-again")
    _step(ann, "draw")
    assert ann.page.locator("#game-menu").count() == 0
    ann.page.click("#guide-next")
    ann.page.wait_for_selector("#guide", state="hidden")
    assert _guide_state(ann)["seen"] == ["draw"]
    assert not ann.errors, ann.errors


def test_only_the_first_table_shows_it_and_the_keys_dialog_brings_it_back(
        server: Server, make_player: Any) -> None:
    ann = make_player("Ann", guide=True)
    first = _table(server, ann, stacked=False)
    ann.page.wait_for_selector(".table-page[data-legal~='draw']")
    _step(ann, "draw")
    assert _guide_state(ann) == {"table": first, "seen": []}

    # a second table: not the person's first, no guide (the first's is left as it was)
    second = _table(server, ann, stacked=False)
    ann.page.wait_for_selector(".table-page[data-legal~='draw'] #stock.clickable")
    assert ann.page.locator(GUIDE).count() == 0
    assert _guide_state(ann)["table"] == first

    # asked for in the keys dialog, it runs on this table
    ann.page.click("#keys-button")
    ann.page.click("#keys-help #guide-again")
    _step(ann, "draw")
    assert _guide_state(ann) == {"table": second, "seen": []}
    assert not ann.errors, ann.errors


def test_on_a_phone_the_callout_stays_on_screen_beside_its_target(server: Server,
                                                                  make_player: Any) -> None:
    ann = make_player("Ann", viewport={"width": 390, "height": 844}, guide=True,
                      is_mobile=True, has_touch=True)
    _table(server, ann)
    _step(ann, "draw")
    ann.shot("guide-phone-draw", full_page=False)
    _beside_and_inside(_callout(ann))
    ann.page.tap("#stock")
    # the go-down helper sits in the dock at the bottom of the screen
    _step(ann, "godown")
    c = _callout(ann)
    ann.shot("guide-phone-go-down", full_page=False)
    assert c["targetId"] == "go-down"
    _beside_and_inside(c)
    ann.page.tap("#go-down-accept")
    _step(ann, "discard")
    ann.shot("guide-phone-discard", full_page=False)
    _beside_and_inside(_callout(ann))
    assert not ann.errors, ann.errors


def test_a_player_with_finished_games_is_not_shown_the_guide(server: Server,
                                                           make_player: Any) -> None:
    old = server.api("POST", "/api/players", {"name": "Olga"})
    done, _ = finished_game(server, key=old["key"])
    games = server.api("GET", f"/api/players/{old['id']}/games", key=old["key"])
    assert games["total"] == 1, (done, games)
    new = server.api("POST", "/api/players", {"name": "Nina"})
    seen = {}
    for person in (old, new):
        p = make_player(person["name"], guide=True)
        res = server.api("POST", "/api/tables", {
            "nickname": person["name"], "rules": "standard", "overrides": {"hands": [1]},
            "seed": 5, "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 2,
            "turn_timer": None, "buy_timer": None}, key=person["key"])
        table = res["table"]["id"]
        p.page.goto(server.base + "/")
        p.page.evaluate("([t, seat, token, me]) => {"
                        " localStorage.setItem('liverpool:player', JSON.stringify(me));"
                        " localStorage.setItem('liverpool:' + t,"
                        " JSON.stringify({seat, token, player: me.id})); }",
                        [table, res["seat"], res["token"],
                         {"id": person["id"], "key": person["key"], "name": person["name"]}])
        p.page.goto(server.base + f"/t/{table}")
        p.page.click("#start")
        p.page.wait_for_selector(".table-page[data-legal~='draw'] #stock.clickable")
        if person is new:
            _step(p, "draw")
        else:
            # the answer about the games is in once the state says so
            p.page.wait_for_function("() => localStorage.getItem('liverpool:guide') !== null")
            assert p.page.locator(GUIDE).count() == 0
        seen[person["name"]] = _guide_state(p)
        assert not p.errors, p.errors
    assert seen["Olga"] == {"done": True}
    assert seen["Nina"]["seen"] == []
