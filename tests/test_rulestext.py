"""The rules in words (liverpool.rulestext): every knob and preset has its words, and a table's
rules sheet says what its rule set says."""

from __future__ import annotations

import pytest

from liverpool.rules import KNOBS, PRESET_NAMES, RuleSet
from liverpool.rulestext import KNOB_INFO, PRESET_LINES, TOPICS, changes, knob_form, rules_sheet


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
        "2s are wild: true", "Buys per hand (empty: no limit): 3"]
    assert changes(RuleSet.preset("standard")) == []
    assert dict(rules_sheet(RuleSet.preset("standard", {"buying": False})))[
        'Buying ("May I?")'] == ["No buying."]
