"""The table as a person meets it, on a 1280x800 desktop and a 390x844 phone: the hand and the
action bar stay on screen on every screen (lobby, waiting room, a table with two players' melds
and an error shown, the end of a hand); a person buys against three bots through the "May I?"
window and says "no thanks" with a key; the end-of-hand screen shows every seat's cards and
holds the next hand until the person is ready (a reload included); the lobby describes each
preset and offers every rule option as a labelled control; the rules sheet and the log.

Domain words: viewport (the part of the page the window shows), dock (the hand and the action
bar, fixed at the bottom of the game screen), window ("May I?" while a bot waits for the
people), hand end (the update that ends a hand, with everyone's cards left), pause (the table
holding the next hand), stacked deck (a test-only ``deals`` entry).

The docs' screenshots come from here and from test_browser_game (replay.png): run these two
files with LIVERPOOL_SHOTS=DIR and copy lobby, table, phone, may-i, end-of-hand and replay
into docs/img.
"""

from __future__ import annotations

import itertools
import random
import re
import time
from collections import Counter
from typing import Any

import pytest

from liverpool.cards import card_str, new_deck, parse_card
from liverpool.engine import stacked_deck
from liverpool.rules import RuleSet

from .cardtext import symbolize
from .conftest import Player, Server, join_by_link, open_table_as_host
from .test_browser_table import build_go_down

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]
RAW_CARD = re.compile(r"\b(?:10|[2-9AJQK])[SHDC]\b")


def deal(preset: str, overrides: dict[str, Any], hands: list[list[str] | None], upcard: str,
         seed: int = 5) -> list[str]:
    """A whole pack, top first: ``hands[s]`` to seat s (dealer: seat 0), None for cards from
    the rest of the pack in a seeded order; ``upcard`` turned up."""
    rules = RuleSet.preset(preset, overrides)
    contract = (rules.hands or (1,))[0]
    size = rules.deal_sizes[min(contract, len(rules.deal_sizes)) - 1]
    n = len(hands)
    pack = Counter(new_deck(rules.decks_for(n), rules.jokers_per_deck))
    fixed = [c for h in hands if h for c in h] + [upcard]
    pack.subtract(Counter(parse_card(c) for c in fixed))
    rest = sorted(pack.elements())
    random.Random(seed).shuffle(rest)
    dealt = []
    for h in hands:
        if h is None:
            dealt.append(rest[:size])
            rest = rest[size:]
        else:
            dealt.append([parse_card(c) for c in h])
    deck = stacked_deck(rules, n, 0, dealt, upcard=parse_card(upcard), contract_no=contract)
    return [card_str(c) for c in deck]


def people_table(server: Server, ann: Player, overrides: dict[str, Any],
                 hands: list[list[str] | None], upcard: str, **table: Any) -> str:
    """Ann (seat 0, the dealer) and three basic bots on a stacked deck of standard rules."""
    return open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": overrides,
        "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 3,
        "turn_timer": None, "buy_timer": None, "seed": 3,
        "deals": [deal("standard", overrides, hands, upcard)], **table})


def in_view(p: Player, selector: str) -> None:
    """The element is wholly inside the window (nothing to scroll to reach it). Measured in the
    page in one step: the page redraws as messages come, so a handle may go stale."""
    p.page.wait_for_selector(selector)
    got = p.page.evaluate("""sel => {
        const el = document.querySelector(sel);
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return {x: r.left, y: r.top, width: r.width, height: r.height,
                vw: window.innerWidth, vh: window.innerHeight};
    }""", selector)
    assert got is not None, selector
    assert got["width"] > 0 and got["height"] > 0, (selector, got)
    assert got["x"] >= -0.5 and got["y"] >= -0.5, (selector, got)
    assert got["x"] + got["width"] <= got["vw"] + 0.5, (selector, got)
    assert got["y"] + got["height"] <= got["vh"] + 0.5, (selector, got)


def no_sideways_scroll(p: Player) -> None:
    width = p.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= p.page.viewport_size["width"], f"the page scrolls sideways ({width} px)"


def dock_in_view(p: Player) -> None:
    for sel in ("#hand-area", "#hand", "#prompt", "#status"):
        in_view(p, sel)
    no_sideways_scroll(p)


def log_lines(p: Player) -> list[str]:
    return [line.strip() for line in p.log()]


# ---- on every screen, at both sizes --------------------------------------------------------

# contract 2 (one set and one run of four): bots 1 and 2 are dealt their contract and go down
# on their first turn; Ann holds a 7S for bot 1's run of spades and a 3D that fits nothing
MELDS_DEAL = [
    ["KD", "KC", "KH", "5H", "6H", "7H", "8H", "7S", "3D", "QC"],
    ["3S", "4S", "5S", "6S", "QD", "QS", "QH", "9D", "10D", "4C"],
    ["JS", "JD", "JH", "9C", "10C", "JC", "QC", "2H", "5D", "8S"],
    ["2C", "3C", "4D", "5C", "6D", "8D", "9H", "10H", "AS", "AD"],
]


@pytest.mark.parametrize("size", SIZES)
def test_the_hand_and_the_action_bar_stay_on_screen(server: Server, make_player: Any,
                                                    size: dict[str, int]) -> None:
    phone = size is PHONE
    ann = make_player("Ann", viewport=size, **({"has_touch": True, "is_mobile": True}
                                              if phone else {}))
    page = ann.page

    # the lobby: the create button stays at hand (a sticky bar), no sideways scroll
    page.goto(server.base + "/")
    page.wait_for_selector("#create-form")
    in_view(ann, "#create")
    no_sideways_scroll(ann)
    if not phone:
        ann.shot("lobby", full_page=False)
    page.click(".rule-options summary")
    in_view(ann, "#create")
    no_sideways_scroll(ann)

    # the waiting room
    people_table(server, ann, {"hands": [2]}, MELDS_DEAL, "2D")
    in_view(ann, "#start")
    in_view(ann, "#share-url")
    no_sideways_scroll(ann)

    page.click("#start")
    page.wait_for_selector("#hand .card")
    dock_in_view(ann)
    # two bots go down before Ann's turn
    page.wait_for_selector(".table-page[data-legal~='draw']", timeout=30_000)
    page.wait_for_function("() => document.querySelectorAll('.meld-owner').length >= 2")
    ann.perform({"type": "draw", "player": 0})
    page.wait_for_selector("#go-down")
    dock_in_view(ann)
    in_view(ann, "#go-down-accept")
    ann.perform({"type": "go_down", "player": 0})
    page.wait_for_selector(".meld-owner[data-owner='0']")
    assert page.locator(".meld-owner").count() == 3

    # a selected card outlines only the melds the server lets it go on: the 7S, bot 1's run
    ann.select("7S")
    targets = page.eval_on_selector_all(".meld.target", "ms => ms.map(m => m.title)")
    assert targets == ["Bot 2's run of spades"], targets
    assert page.locator(".meld.pickable").count() == page.locator("#melds .meld").count()
    if not phone:
        ann.shot("table", full_page=False)
    # the 3D fits nothing: nothing is outlined; a click on a meld brings the engine's reason
    ann.select("3D")
    assert page.locator(".meld.target").count() == 0
    page.click(".meld[data-kind='set'] >> nth=0")
    notice = page.wait_for_selector("#notice.error")
    assert notice is not None and notice.inner_text().startswith("Not allowed:")
    assert not RAW_CARD.search(notice.inner_text()), notice.inner_text()
    dock_in_view(ann)
    in_view(ann, "#notice")
    in_view(ann, "#discard")
    if phone:
        ann.shot("phone", full_page=False)
    # the log is a drawer on the phone, a side panel on the desktop; newest first
    if phone:
        assert not page.is_visible("#log")
        page.click("#log-button")
    page.wait_for_selector("#log li")
    in_view(ann, "#log")
    lines = log_lines(ann)
    # a person reads their own moves in the second person
    assert lines[0].startswith("You go down:"), lines
    assert not any(RAW_CARD.search(line) for line in lines), lines
    if phone:
        page.keyboard.press("Escape")
        page.wait_for_selector("#side:not(.open)", state="attached")
    dock_in_view(ann)
    assert not ann.errors, ann.errors


# ---- May I? against three bots -------------------------------------------------------------

# contract 1 (two sets): the upcard, KC, is of no use to any bot; Ann may buy it while bot 1
# (seat 1) decides, and the bot waits for her through the table's buy window
BUY_DEAL = [
    ["2S", "3S", "4S", "5H", "6H", "7D", "8D", "9S", "10H", "JD"],
    ["3H", "4D", "5S", "6D", "7S", "8H", "9D", "10S", "JH", "QD"],
    ["3D", "4H", "5D", "6S", "7H", "8S", "9H", "10D", "JS", "QH"],
    ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "2D", "2H", "QS"],
]


def test_a_person_buys_through_the_window_and_says_no_thanks(server: Server,
                                                            make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    page = ann.page
    people_table(server, ann, {"hands": [1], "max_buys": 3}, BUY_DEAL, "KC", buy_window=30)
    page.click("#start")
    page.wait_for_selector("#hand .card")
    # the window: a big May I? with the card, "No thanks", and the server's clock as a bar
    page.wait_for_selector("#window #may-i:has-text('May I? (buy K♣)')", timeout=20_000)
    page.wait_for_selector("#window #no-thanks")
    page.wait_for_selector("#window-bar:not(.open-ended)")
    clock = page.inner_text("#buy-clock")
    assert re.fullmatch(r"closes in \d+ s", clock) and int(clock.split()[2]) <= 30, clock
    assert "Bot 2 is deciding on the K♣" in page.inner_text("#window")
    in_view(ann, "#may-i")
    ann.shot("may-i", full_page=False)

    page.click("#may-i")
    # the bot draws; the buy round gives Ann the KC and one penalty card
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length === 12",
                           timeout=20_000)
    assert page.locator("#hand .card[data-card='KC']").count() == 1
    page.wait_for_selector(".player[data-seat='0'] .buys:has-text('buys 1/3')")
    # she reads her own buy with the penalty card only she sees, drawn from the event's fields
    [penalty] = list((Counter(ann.hand()) - Counter([*BUY_DEAL[0], "KC"])).elements())
    assert f"You buy K♣ (+1 penalty card: {symbolize(penalty)})" in log_lines(ann), log_lines(ann)
    assert page.locator(f"#log li[data-type='bought'] .ct[data-card='{penalty}']").count() == 1
    page.click("#tab-rules")
    assert page.inner_text("#my-buys") == "Your buys: 1 of 3 this hand."
    # passes in a row read as one line
    lines = log_lines(ann)
    passes = [line.endswith(" pass") or line.endswith(" passes") for line in lines]
    assert not any(a and b for a, b in itertools.pairwise(passes)), lines

    # the next discard opens the window again; "n" says no thanks and the bot goes on at once
    # (long before the 30 s window)
    page.wait_for_selector("#window #may-i:not(.on)", timeout=20_000)
    before = ann.version()
    page.keyboard.press("n")
    page.wait_for_selector("#window", state="detached")
    # the bot went on within 20 s of the 30 s window (what the window shows after that is the
    # next discard's: the bot may already have discarded again)
    ann.wait_version_after(before, timeout=20)
    assert not ann.errors, ann.errors


# ---- the end of a hand ---------------------------------------------------------------------

# Ann holds three sets (four 7s, three 8s, three 9s): she draws, lays all ten down and
# discards the card she drew, and is out in her first turn; Bea (seat 1) and two bots get the
# rest of the pack
OUT_DEAL = [["7S", "7D", "7C", "7H", "8S", "8D", "8C", "9S", "9D", "9C"], None, None, None]


@pytest.mark.parametrize("size", SIZES)
def test_the_end_of_a_hand_shows_every_seats_cards_until_ready(server: Server, make_player: Any,
                                                               size: dict[str, int]) -> None:
    phone = size is PHONE
    ann, bea = make_player("Ann", viewport=size), make_player("Bea", viewport=size)
    page = ann.page
    overrides = {"hands": [1, 2], "extra_melds_at_go_down": True}
    open_table_as_host(server, ann, {
        "nickname": "Ann", "rules": "standard", "overrides": overrides,
        "seats": [{"kind": "human"}, {"kind": "human"}] + [{"kind": "bot", "level": "basic"}] * 2,
        "turn_timer": None, "buy_timer": None, "seed": 3, "hand_pause": 120,
        "deals": [deal("standard", overrides, OUT_DEAL, "2D")]})
    join_by_link(bea, ann.share_link)
    page.wait_for_selector("#seats li:has-text('Bea')")
    page.click("#start")
    page.wait_for_selector("#hand .card")
    # Bea plays her turn as the hints say; then the bots; then Ann
    end = time.monotonic() + 60
    while "draw" not in ann.legal():
        assert time.monotonic() < end, "Ann's turn did not come"
        if bea.legal():
            bea.perform(bea.hint())
        time.sleep(0.05)
    ann.perform({"type": "draw", "player": 0})
    page.wait_for_selector("#go-down")
    build_go_down(ann, [["7S", "7D", "7C", "7H"], ["8S", "8D", "8C"], ["9S", "9D", "9C"]])
    [last] = ann.hand()
    sizes = page.eval_on_selector_all(".player .cards-count",
                                      "es => es.map(e => parseInt(e.textContent))")
    ann.perform({"type": "discard", "player": 0, "card": last})

    # the screen: who went out, every seat's cards left with the points, the totals
    for p in (ann, bea):
        p.page.wait_for_selector("#hand-end .end-table")
        assert p.page.locator("#hand-end tbody tr").count() == 4
    assert page.inner_text("#hand-end .end-who") == "You went out."
    assert bea.page.inner_text("#hand-end .end-who") == "Ann went out."
    held = page.eval_on_selector_all(
        "#hand-end tbody tr", "rs => rs.map(r => r.querySelectorAll('.end-hand .card').length)")
    assert held[0] == 0 and held[1:] == sizes[1:], (held, sizes)
    points = page.eval_on_selector_all("#hand-end .end-points",
                                       "es => es.map(e => Number(e.textContent))")
    assert points[0] == 0 and all(p > 0 for p in points[1:]), points
    page.wait_for_selector("#pause-clock:has-text('Next hand in')")
    in_view(ann, "#hand-end .sheet")
    in_view(ann, "#next-hand")
    dock_in_view(ann)
    if not phone:
        ann.shot("end-of-hand", full_page=False)

    # a reload while the table waits for Bea: the screen is back, with the cards
    page.reload()
    page.wait_for_selector("#hand-end .end-hand .card")
    assert page.locator("#hand-end tbody tr").count() == 4
    # Ann is ready: she waits for Bea; Bea is ready: the next hand is there for both
    page.click("#next-hand")
    page.wait_for_selector("#ready-wait:has-text('Waiting for Bea')")
    bea.page.click("#next-hand")
    for p in (ann, bea):
        p.page.wait_for_selector("#hand-end", state="detached")
        p.page.wait_for_selector("#hand-number:has-text('Hand 2')")
    assert len(ann.hand()) == 10
    assert not ann.errors and not bea.errors, ann.errors + bea.errors


# ---- the lobby and the rules ---------------------------------------------------------------

def test_the_lobby_describes_presets_and_labels_every_option(server: Server,
                                                             make_player: Any) -> None:
    ann = make_player("Ann", viewport=DESKTOP)
    page = ann.page
    config = server.api("GET", "/api/config")
    page.goto(server.base + "/")
    page.wait_for_selector("#create-form")
    for name, line in config["preset_lines"].items():
        assert page.inner_text(f".preset-card[data-preset='{name}'] .preset-line") == line
    assert page.is_checked("input[name='preset'][value='standard']")

    page.click(".rule-options summary")
    # grouped by topic, in the server's order, each knob under its label
    legends = page.eval_on_selector_all(".knob-topic legend", "ls => ls.map(l => l.textContent)")
    assert legends == [t for t in config["topics"]
                       if any(k["topic"] == t for k in config["knobs"])]
    standard = config["presets"]["standard"]
    for k in config["knobs"]:
        knob, value, kind = k["knob"], standard[k["knob"]], k["control"]["type"]
        assert page.inner_text(f".knob[data-for='{knob}'] .knob-label") == k["label"]
        tag, typ = page.eval_on_selector(f"#knob-{knob}", "e => [e.tagName, e.type]")
        # each control by its type: never a JSON text
        if kind == "choice":
            assert tag == "SELECT", knob
        elif kind in ("numbers", "rows", "fields"):
            assert tag == "DIV" and page.locator(f"#knob-{knob} input[type='number']").count() \
                >= (len(value) if isinstance(value, list | dict) else 0), knob
        elif isinstance(value, bool):
            assert typ == "checkbox", knob
        else:
            assert typ == "number", knob
    choices = page.eval_on_selector_all("#knob-going_out option", "os => os.map(o => o.value)")
    assert choices == ["discard", "empty", "float"]

    # another preset shows its own values
    page.check("input[name='preset'][value='hoyle']")
    assert page.input_value("#knob-going_out") == config["presets"]["hoyle"]["going_out"]
    page.check("input[name='preset'][value='standard']")

    # a value the rules refuse: the server's words beside the option
    page.fill("#nickname", "Ann")
    page.fill("#knob-max_buys", "-1")
    page.wait_for_selector("#knobs-changed:has-text('1 changed')")
    page.click("#create")
    page.wait_for_selector("#knob-max_buys-error:has-text('Buys per hand')")
    assert page.evaluate("() => document.activeElement.id") == "knob-max_buys"
    assert "/t/" not in page.url
    # the contracts played: ticked off "every contract", two hands, a number left out is
    # caught before it is sent, beside its field
    page.fill("#knob-max_buys", "2")
    page.uncheck(".knob[data-for='hands'] .none-choice input")
    page.fill("#knob-hands li.row:nth-child(1) input", "1")
    page.click("#knob-hands .add-row")
    page.fill("#knob-hands li.row:nth-child(2) input", "")
    page.click("#create")
    page.wait_for_selector("#knob-hands-error:has-text('number')")
    page.fill("#knob-hands li.row:nth-child(2) input", "2")
    page.uncheck("#knob-no_discard_of_taken_card") if standard["no_discard_of_taken_card"] \
        else page.check("#knob-no_discard_of_taken_card")
    page.click("#create")
    page.wait_for_url("**/t/*")
    table = page.url.rsplit("/", 1)[-1]
    summary = server.api("GET", f"/api/tables/{table}")
    # only what was changed is sent
    assert summary["overrides"] == {"max_buys": 2, "hands": [1, 2],
                                    "no_discard_of_taken_card":
                                        not standard["no_discard_of_taken_card"]}
    assert page.inner_text("#preset-label") == "standard with 3 changes"

    # the rules sheet at the table: the current contract marked, the table's changes listed
    page.click("#start")
    page.wait_for_selector("#hand .card")
    assert page.inner_text("#preset-label") == "standard with 3 changes"
    # clicked inside the page in one step: the bots' moves redraw the header meanwhile, and a
    # mouse click can land on a button that has just been replaced
    page.evaluate("() => document.querySelector('#preset-label').click()")
    page.wait_for_selector("#rules-panel")
    sheet = summary["rules_sheet"]
    headings = page.eval_on_selector_all("#rules-panel h4", "hs => hs.map(h => h.textContent)")
    assert headings == [s[0] for s in sheet]
    current = page.eval_on_selector_all("#rules-panel li.current",
                                        "ls => ls.map(l => l.textContent)")
    assert len(current) == 1 and current[0].startswith("1.") and "(this hand)" in current[0]
    assert page.inner_text("#my-buys") == "Your buys: 0 of 2 this hand."
    changes = page.eval_on_selector_all("#rules-panel ul:last-of-type li",
                                        "ls => ls.map(l => l.textContent)")
    assert len(changes) == 3, changes
    assert not ann.errors, ann.errors


def test_keys_play_a_turn(server: Server, make_player: Any) -> None:
    """The keyboard alone: s draws, the arrows move along the hand, Space selects, d discards;
    ? shows the keys; the four-colour deck is kept for next time. The system asks for reduced
    motion: the drawn card is marked but does not move."""
    ann = make_player("Ann", viewport=DESKTOP, reduced_motion="reduce")
    page = ann.page
    people_table(server, ann, {"hands": [1]}, BUY_DEAL, "KC")
    page.click("#start")
    page.wait_for_selector(".table-page[data-legal~='draw']", timeout=30_000)
    page.locator("body").click(position={"x": 5, "y": 5})
    before = ann.version()
    page.keyboard.press("s")
    ann.wait_version_after(before)
    page.wait_for_selector(".table-page[data-legal~='discard']")
    moving = page.eval_on_selector_all(
        "#hand .card.new", "es => es.map(e => getComputedStyle(e).animationName)")
    assert moving and all(name == "none" for name in moving), moving
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("() => document.activeElement.dataset.index")
    assert focused is not None
    page.keyboard.press(" ")
    card = page.get_attribute("#hand .card.selected", "data-card")
    assert card is not None
    label = page.get_attribute("#hand .card.selected", "aria-label")
    assert label and " of " in label
    held = page.locator(f"#hand .card[data-card='{card}']").count()
    before = ann.version()
    page.keyboard.press("d")
    ann.wait_version_after(before)
    # the card left the hand (the pile's top may already be a bot's card: they play on)
    page.wait_for_function(
        f"() => document.querySelectorAll(\"#hand .card[data-card='{card}']\").length"
        f" === {held - 1}")
    page.keyboard.press("?")
    page.wait_for_selector("#keys-help")
    page.keyboard.press("Escape")
    page.wait_for_selector("#keys-help", state="detached")
    page.click("#four-color")
    page.wait_for_selector("body.four-color")
    page.reload()
    page.wait_for_selector("#hand .card")
    assert page.evaluate("() => document.body.classList.contains('four-color')")
    assert not ann.errors, ann.errors
