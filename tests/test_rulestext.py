"""The rules in words (liverpool.rulestext): every knob and preset has its words, and a table's
rules sheet says what its rule set says.

Domain words: preset line, jargon (a game word a newcomer does not know), rules sheet, control
(how a form sets a knob), refusal (a rule set the core refused, in words).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import rule_sets

from liverpool.rules import KNOBS, PRESET_NAMES, RulesError, RuleSet
from liverpool.rulestext import (
    CHOICE_WORDS,
    KNOB_INFO,
    PRESET_LINES,
    TOPICS,
    changes,
    knob_form,
    refusal_words,
    rules_sheet,
)
from liverpool.soak import RandomRules

DOCS = Path(__file__).resolve().parent.parent / "docs"

# words a newcomer does not know: each may be used in a preset line only with its explanation
# (None: never; say it in other words)
JARGON: dict[str, str | None] = {
    "natural": None, "strict": None, "float": None, "floating": None, "meld": None,
    "contract": None, "lay off": None, "laying off": None, "go down": None, "going down": None,
    "are down": None, "is down": None, "swap": None, "buy": None, "deep pick": None,
    "rummy": None, "liverpool": None, "knob": None, "override": None,
    "wild": "like jokers", "may i?": "out of turn",
}


def test_every_knob_has_a_label_and_a_topic_and_every_preset_a_line() -> None:
    assert set(KNOB_INFO) == set(KNOBS)
    assert {i.topic for i in KNOB_INFO.values()} == set(TOPICS)
    assert set(PRESET_LINES) == set(PRESET_NAMES)
    assert [row["knob"] for row in knob_form(RuleSet.preset("house"))
            if row["knob"] == "deuces_wild"] == ["deuces_wild"]
    topics = [row["topic"] for row in knob_form(RuleSet())]
    assert topics == sorted(topics, key=TOPICS.index)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_contract_list_marks_the_current_hand(preset: str) -> None:
    rules = RuleSet.preset(preset)
    sheet = dict(rules_sheet(rules, contract_no=3))
    lines = sheet["Contracts"]
    assert len(lines) == len(rules.hand_list())
    assert [line.startswith("▶") for line in lines] == [i == 2 for i in range(len(lines))]
    assert rules.contracts[2].describe() in lines[2]


def test_house_in_words() -> None:
    sheet = dict(rules_sheet(RuleSet.preset("house")))
    assert "Jokers and 2s are wild." in sheet["Melds and wild cards"]
    assert sheet["Scoring"][0] == ("Cards left in hand count: joker 50, ace 20, 2s 20, 3 to 9 5 "
                                   "each, 10 to K 10 each. Lowest total wins.")
    assert "After someone goes out, everyone else plays one more turn." in sheet["Going out"]
    assert sheet["This table's changes to house"] == ["none"]


def test_classic_scores_low_cards_at_face_value_and_forbids_buying_once_down() -> None:
    sheet = dict(rules_sheet(RuleSet.preset("classic")))
    assert "2 to 9 their face value" in sheet["Scoring"][0]
    assert "Once you are down you may not take or buy the discard." in sheet['Buying ("May I?")']


def test_buys_used_of_the_limit_and_the_tables_changes() -> None:
    rules = RuleSet.preset("standard", {"max_buys": 3, "deuces_wild": True})
    sheet = dict(rules_sheet(rules, contract_no=1, buys_used=2))
    buying = sheet['Buying ("May I?")']
    assert "3 a hand" in buying[0] and "You have used 2 of 3 buys this hand." in buying
    assert sorted(sheet["This table's changes to standard"]) == [
        "2s are wild: yes", "Buys per hand (empty: no limit): 3"]
    assert changes(RuleSet.preset("standard")) == []
    assert dict(rules_sheet(RuleSet.preset("standard", {"buying": False})))[
        'Buying ("May I?")'] == ["No buying."]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_each_preset_line_is_in_words_a_newcomer_knows(preset: str) -> None:
    line = PRESET_LINES[preset].lower()
    for word, explained_by in JARGON.items():
        if re.search(rf"\b{re.escape(word)}", line):
            assert explained_by is not None and explained_by in line, (preset, word)
    # one or two sentences, not a page
    assert line.count(". ") <= 1 and len(line) <= 320


def test_the_rules_reference_shows_the_lobbys_preset_lines() -> None:
    text = (DOCS / "rules.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", text.split("## Presets", 1)[1]
                           .split("###", 1)[0], re.M))
    assert rows == PRESET_LINES


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_sheet_opens_with_the_turn_the_words_the_cards_and_the_end(preset: str) -> None:
    rules = RuleSet.preset(preset)
    sheet = rules_sheet(rules)
    assert [heading for heading, _ in sheet[:4]] == [
        "How a turn goes", "Words", "The cards", "When the game ends"]
    turn = sheet[0][1]
    assert [line.split(":")[0] for line in turn] == [
        "1. Draw", "2. Go down, once a hand", "3. Lay off", "4. Discard", '"May I?"']
    words = [line.split(":")[0] for line in sheet[1][1]]
    assert words == ["Meld", "Set", "Run", "Contract", "Going down", "Laying off", "Going out",
                     "Wild", "May I?"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_sets())
def test_the_sheet_counts_decks_jokers_and_hands_as_the_rule_set_does(rr: RandomRules) -> None:
    rules = rr.rules()
    sheet = dict(rules_sheet(rules, players=rr.players))
    decks = rules.decks_for(rr.players)
    jokers = decks * rules.jokers_per_deck
    cards = sheet["The cards"][0]
    assert re.search(rf"\b{decks} decks?\b", cards) and re.search(rf"\b{jokers} jokers?\b", cards)
    assert f"{decks * (52 + rules.jokers_per_deck)} cards" in cards
    end = " ".join(sheet["When the game ends"])
    if rules.progression == "all":
        n = len(rules.hand_list())
        assert re.search(rf"\bThe game is {n} hands?\b", end)
        assert len(sheet["Contracts"]) == n
    else:
        assert f"contract {len(rules.contracts)}" in end and str(rules.own_max_hands) in end
    assert "lowest total" in end
    # the sheet without a player count says the decks for every count the rules allow
    steps = dict(rules_sheet(rules))["The cards"][0]
    assert f"{rules.jokers_per_deck} joker" in steps
    assert re.search(rf"\b{decks} decks? for ", steps)
    turn = dict(rules_sheet(rules))["How a turn goes"]
    assert (f"{rules.penalty_cards} penalty card" in turn[-1]) == rules.buying


def test_no_wild_cards_and_no_buying_are_said_so() -> None:
    rules = RuleSet.preset("standard", {"jokers_per_deck": 0, "naturals": None,
                                        "buying": False})
    sheet = dict(rules_sheet(rules, players=3))
    assert "No card is wild." in sheet["Melds and wild cards"]
    assert "Wild: a card that stands in for any card; this table has none." in sheet["Words"]
    assert sheet["How a turn goes"][-1].startswith('No "May I?"')
    assert "and 0 jokers" in sheet["The cards"][0]


def test_every_worded_knob_has_words_for_each_value_and_a_control() -> None:
    form = {row["knob"]: row for row in knob_form(RuleSet.preset("standard"))}
    for knob, words in CHOICE_WORDS.items():
        options = form[knob]["control"]["options"]
        assert [o["text"] for o in options] == [words[o["value"]] for o in options]
    # the lists and tables get controls of their own, never a JSON text
    assert form["contracts"]["control"]["type"] == "rows"
    assert form["decks"]["control"]["type"] == "rows"
    assert [f["key"] for f in form["card_points"]["control"]["fields"]] == list(
        form["card_points"]["value"])
    assert form["max_buys"]["control"]["empty"] == "no limit"
    assert {row["control"]["type"] for row in form.values()} <= {
        "bool", "number", "choice", "numbers", "fields", "rows"}


def test_a_refusal_names_knobs_by_their_labels() -> None:
    with pytest.raises(RulesError) as bad:
        RuleSet.preset("standard", {"max_buys": -1})
    assert refusal_words(bad.value) == "Buys per hand (empty: no limit): must be 0 or more"
    with pytest.raises(RulesError) as bad:
        RuleSet.preset("hoyle", {"swap_at_go_down": 1})
    words = refusal_words(bad.value)
    assert words.startswith("Swaps allowed just before going down: needs "
                            "\u201cJokers may be swapped out of\u201d")
    assert "_" not in words
