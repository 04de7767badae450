"""The lobby in a person's words: presets said in plain sentences, rule options set with
controls (a row per hand for the contracts, a number for the decks, a small table for the card
points) instead of JSON, a refused value shown at its option under its label, the two "May I?"
clocks named apart, and the Rules panel opening with how a turn goes.

Domain words: preset line, control (how the form sets a knob: by its type), contract row (one
hand's sets and runs), refusal (the server's words for a value the rules refuse), clock (a
table's timer), rules sheet.
"""

from __future__ import annotations

from typing import Any

from .conftest import Server

DESKTOP = {"width": 1280, "height": 800}


def _open_options(page: Any, server: Server) -> None:
    page.goto(server.base + "/")
    page.wait_for_selector("#create-form")
    page.fill("#nickname", "Ann")
    page.click(".rule-options summary")


def _row(n: int) -> str:
    return f"#knob-contracts li.row:nth-child({n})"


def test_contract_rows_decks_and_card_points_build_the_tables_rules(
        server: Server, make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    page = ann.page
    config = server.api("GET", "/api/config")
    _open_options(page, server)
    # no JSON text anywhere in the rule options
    assert page.locator(".knobs input[type='text']").count() == 0
    standard = config["presets"]["standard"]
    rows = page.locator("#knob-contracts li.row")
    assert rows.count() == len(standard["contracts"])
    assert page.inner_text(f"{_row(1)} .row-name") == "Hand 1"
    assert page.input_value(f"{_row(2)} input[data-field='sets']") == "1"
    assert page.input_value(f"{_row(2)} input[data-field='runs']") == "1"

    # three hands: remove hands 4 to 7, change hand 3 to a set and two runs, add a fourth
    for _ in range(4):
        page.click(f"{_row(4)} .remove-row")
    assert rows.count() == 3
    page.fill(f"{_row(3)} input[data-field='sets']", "1")
    page.fill(f"{_row(3)} input[data-field='runs']", "2")
    page.click("#knob-contracts .add-row")
    assert rows.count() == 4 and page.inner_text(f"{_row(4)} .row-name") == "Hand 4"
    # the new hand starts as a copy of the last, focused, ready to change
    assert page.evaluate("() => document.activeElement.dataset.field") == "sets"
    page.fill(f"{_row(4)} input[data-field='sets']", "3")
    page.fill(f"{_row(4)} input[data-field='runs']", "0")
    # one card dealt per hand, as a list of numbers
    dealt = page.locator("#knob-deal_sizes li.row")
    while dealt.count() > 4:
        page.click("#knob-deal_sizes li.row:last-child .remove-row")
    # the decks: one step, for up to 8 players, of 2 decks
    page.click("#knob-decks li.row:nth-child(2) .remove-row")
    page.fill("#knob-decks li.row:nth-child(1) input >> nth=0", "8")
    page.fill("#knob-decks li.row:nth-child(1) input >> nth=1", "2")
    # the card points: a number per card
    assert page.locator("#knob-card_points input").count() == 14
    page.fill("#knob-card_points input[data-field='JK']", "30")
    page.fill("#knob-card_points input[data-field='A']", "25")
    page.wait_for_selector("#knobs-changed:has-text('4 changed')")

    page.click("#create")
    page.wait_for_url("**/t/*")
    table = page.url.rsplit("/", 1)[-1]
    summary = server.api("GET", f"/api/tables/{table}")
    overrides = summary["overrides"]
    assert overrides["contracts"] == [{"sets": 2, "runs": 0}, {"sets": 1, "runs": 1},
                                      {"sets": 1, "runs": 2}, {"sets": 3, "runs": 0}]
    assert overrides["deal_sizes"] == [10, 10, 10, 10]
    assert overrides["decks"] == [[8, 2]]
    assert overrides["card_points"]["JK"] == 30 and overrides["card_points"]["A"] == 25
    assert summary["knobs"]["card_points"]["K"] == standard["card_points"]["K"]
    assert not ann.errors, ann.errors


def test_a_refused_value_shows_at_its_option_under_its_label(server: Server,
                                                             make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    page = ann.page
    config = server.api("GET", "/api/config")
    labels = {k["knob"]: k["label"] for k in config["knobs"]}
    _open_options(page, server)
    # a hand that asks for nothing: the rules refuse it (hand 2 of 7)
    page.fill(f"{_row(2)} input[data-field='sets']", "0")
    page.fill(f"{_row(2)} input[data-field='runs']", "0")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.click("#create")
    error = page.wait_for_selector("#knob-contracts-error:not(:empty)")
    assert error is not None
    words = error.inner_text()
    assert words.startswith(labels["contracts"] + ":") and "contract 2" in words
    assert "contracts:" not in words and "_" not in words
    # the option is in view and holds the cursor; the bar by Create says it too
    assert page.evaluate("() => document.activeElement.closest('.knob').dataset.for") == \
        "contracts"
    box = page.eval_on_selector(".knob[data-for='contracts']",
                                "e => { const r = e.getBoundingClientRect(); "
                                "return [r.top, r.bottom, innerHeight]; }")
    assert box[0] >= 0 and box[1] <= box[2], box
    assert labels["contracts"] in page.inner_text("#create-error")
    assert "overrides" not in page.inner_text("#create-error")
    assert "/t/" not in page.url

    # a bound of this server, on another option: said under that option's label
    page.fill(f"{_row(2)} input[data-field='sets']", "1")
    page.fill("#knob-jokers_per_deck", "")
    page.fill("#knob-jokers_per_deck", "6")
    page.click("#create")
    page.wait_for_selector("#knob-jokers_per_deck-error:not(:empty)")
    assert page.inner_text("#knob-jokers_per_deck-error").startswith(
        labels["jokers_per_deck"] + ": on this server")
    assert page.inner_text("#knob-contracts-error") == ""
    assert page.evaluate("() => document.activeElement.id") == "knob-jokers_per_deck"

    # a box left empty is caught before anything is sent, at that box
    page.fill("#knob-jokers_per_deck", "2")
    page.fill("#knob-card_points input[data-field='Q']", "")
    page.click("#create")
    page.wait_for_selector("#knob-card_points-error:not(:empty)")
    assert page.evaluate("() => document.activeElement.dataset.field") == "Q"
    assert not ann.errors, ann.errors


def test_presets_and_clocks_in_words_and_the_rules_panel_opens_with_a_turn(
        server: Server, make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    page = ann.page
    config = server.api("GET", "/api/config")
    page.goto(server.base + "/")
    page.wait_for_selector("#create-form")
    for name in config["presets"]:
        line = page.inner_text(f".preset-card[data-preset='{name}'] .preset-line")
        assert line == config["preset_lines"][name]
        for jargon in ("strict", "natural", "float", "meld", "lay off", "once you are down"):
            assert jargon not in line.lower(), (name, jargon)
    # the two "May I?" clocks: told apart by their names, each with a line of help
    clocks = {key: (page.inner_text(f"label[data-clock='{key}'] .clock-label"),
                    page.inner_text(f"label[data-clock='{key}'] .clock-help"))
              for key in ("buy_timer", "buy_window")}
    assert clocks == {key: (config["clocks"][key]["label"], config["clocks"][key]["help"])
                      for key in clocks}
    assert clocks["buy_timer"][0] != clocks["buy_window"][0]
    assert "Buy timer" not in page.inner_text("#create-form")
    assert "window" not in page.inner_text("#create-form").lower()
    assert page.get_attribute("#buy-timer", "aria-describedby") == "buy-timer-help"

    page.fill("#nickname", "Ann")
    page.fill("#buy-timer", "20")
    page.click("#create")
    page.wait_for_url("**/t/*")
    table = page.url.rsplit("/", 1)[-1]
    summary = server.api("GET", f"/api/tables/{table}")
    # the rules sheet before the start: how a turn goes, first; its clocks, under the same names
    page.click(".rules-preview summary")
    headings = page.eval_on_selector_all(".rules-preview h4", "hs => hs.map(h => h.textContent)")
    assert headings[:4] == ["How a turn goes", "Words", "The cards", "When the game ends"]
    turn = page.eval_on_selector_all(".rules-preview ul:first-of-type li",
                                     "ls => ls.map(l => l.textContent)")
    assert [t.split(":")[0] for t in turn[:4]] == [
        "1. Draw", "2. Go down, once a hand", "3. Lay off", "4. Discard"]
    cards = dict(summary["rules_sheet"])["The cards"][0]
    assert cards.startswith("This table of 3 players uses 2 decks of 52 cards and 4 jokers")
    clock_lines = dict(summary["rules_sheet"])["This table's clocks"]
    assert "May I? time limit: 20 s." in clock_lines
    assert any(line.startswith("Computer players wait for May I?: ") for line in clock_lines)

    # at the table, the Rules panel: the turn first, this hand's contract still marked
    page.click("#start")
    page.wait_for_selector("#hand .card")
    page.evaluate("() => document.querySelector('#preset-label').click()")
    page.wait_for_selector("#rules-panel")
    first = page.eval_on_selector_all("#rules-panel h4", "hs => hs.map(h => h.textContent)")
    assert first[0] == "How a turn goes"
    current = page.eval_on_selector_all("#rules-panel li.current",
                                        "ls => ls.map(l => l.textContent)")
    assert len(current) == 1 and current[0].startswith("1. 2 sets"), current
    assert not ann.errors, ann.errors
