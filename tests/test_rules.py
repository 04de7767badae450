"""The rule set: presets as data with the values of docs/rules.md (Presets), overrides by knob name
(Knobs), and the errors that name the knob (unknown knob, impossible value, contradiction,
a deal too large for the decks)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from liverpool.cards import JOKER, parse_card
from liverpool.engine import Game
from liverpool.rules import KNOBS, PRESETS, Contract, RulesError, RuleSet

# ---- presets ---------------------------------------------------------------------------------

CLASSIC_CONTRACTS = [(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3)]


def contracts(rules: RuleSet) -> list[tuple[int | None, ...]]:
    """(sets, runs), with (set_size, run_size) added where the contract gives exact sizes."""
    out: list[tuple[int | None, ...]] = []
    for c in rules.contracts:
        sized = c.set_size is not None or c.run_size is not None
        out.append((c.sets, c.runs, c.set_size, c.run_size) if sized else (c.sets, c.runs))
    return out


def points(rules: RuleSet, text: str) -> list[int]:
    return [rules.points(parse_card(t)) for t in text.split()]


# docs/rules.md (Presets), one entry per row of the table
SECTION_4: dict[str, dict[str, Any]] = {
    "hoyle": dict(
        players=(2, 8), decks={2: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4}, deuces_wild=False,
        deal_sizes=(7, 10, 10, 10, 12, 12, 12),
        contracts=[(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (2, 1, 3, 7)],
        min_run=4, naturals=None, final_all_out=True, deep_pickup=True,
        down_may_take_discard=True, joker_swap="none", swap_at_go_down=0,
        swapped_joker_must_be_played=False, going_out="empty", playable_discard="give_cards",
        points=(25, 50, 5, 5, 10, 10), no_discard_of_taken_card=False, fits_own_melds=False,
        layoff_same_turn=True),
    "classic": dict(
        players=(2, 8), decks={2: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4}, deuces_wild=False,
        deal_sizes=(11,) * 7, contracts=CLASSIC_CONTRACTS, min_run=4, naturals=None,
        final_all_out=True, deep_pickup=False, down_may_take_discard=False,
        joker_swap="runs", swap_at_go_down=0, swapped_joker_must_be_played=True,
        going_out="empty", playable_discard="none",
        points=(15, 15, 2, 9, 10, 10),  # A, JK, 2, 9 (face value), 10, K
        no_discard_of_taken_card=False, fits_own_melds=True, layoff_same_turn=True),
    "arena": dict(
        players=(2, 8), decks={2: 2, 4: 2, 5: 3, 6: 3, 7: 3, 8: 3}, deuces_wild=False,
        deal_sizes=(10, 11, 11, 12, 12, 12, 12), contracts=CLASSIC_CONTRACTS, min_run=4,
        naturals=None, final_all_out=False, deep_pickup=False, down_may_take_discard=True,
        joker_swap="runs_and_sets", swap_at_go_down=1, swapped_joker_must_be_played=False,
        going_out="discard", playable_discard="bonus", points=(15, 20, 5, 5, 10, 10),
        no_discard_of_taken_card=False, fits_own_melds=True, layoff_same_turn=True),
    "standard": dict(
        players=(3, 8), decks={3: 2, 5: 2, 6: 3, 8: 3}, deuces_wild=False,
        deal_sizes=(10,) * 7, contracts=CLASSIC_CONTRACTS, min_run=4, naturals=(2, 3),
        final_all_out=True, deep_pickup=False, down_may_take_discard=True, joker_swap="runs",
        swap_at_go_down=0, swapped_joker_must_be_played=True, going_out="float",
        playable_discard="standard", points=(15, 20, 5, 5, 10, 10),
        no_discard_of_taken_card=True, fits_own_melds=True, layoff_same_turn=True),
    "house": dict(
        players=(2, 8), decks={2: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4}, deuces_wild=True,
        deal_sizes=(9, 9, 9, 9, 12, 12, 12), contracts=CLASSIC_CONTRACTS, min_run=3,
        naturals=None, final_all_out=False, deep_pickup=False, down_may_take_discard=True,
        joker_swap="runs_and_sets", swap_at_go_down=0, swapped_joker_must_be_played=True,
        going_out="discard", playable_discard="points",
        points=(20, 50, 20, 5, 10, 10),  # 2s: 20
        no_discard_of_taken_card=False, fits_own_melds=False, layoff_same_turn=True),
}


@pytest.mark.parametrize("name", list(SECTION_4))
def test_preset_values_of_section_4(name: str) -> None:
    want = SECTION_4[name]
    r = RuleSet.preset(name)
    assert r == PRESETS[name] and r.name == name
    assert (r.min_players, r.max_players) == want["players"]
    assert {n: r.decks_for(n) for n in want["decks"]} == want["decks"]
    assert r.jokers_per_deck == 2 and r.deuces_wild is want["deuces_wild"]
    assert r.deal_sizes == want["deal_sizes"]
    assert contracts(r) == want["contracts"]
    assert r.min_set == 3 and r.min_run == want["min_run"]
    assert r.naturals == want["naturals"]
    assert r.final_all_out is want["final_all_out"]
    # buying: every preset buys with one penalty card, no limit
    assert r.buying is True and r.penalty_cards == 1 and r.max_buys is None
    assert r.buy_priority == "seat" and r.deep_pickup is want["deep_pickup"]
    assert r.down_may_take_discard is want["down_may_take_discard"]
    assert r.joker_swap == want["joker_swap"] and r.swap_at_go_down == want["swap_at_go_down"]
    assert r.swapped_joker_must_be_played is want["swapped_joker_must_be_played"]
    assert r.going_out == want["going_out"] and r.playable_discard == want["playable_discard"]
    assert tuple(points(r, "AS JK 2H 9D 10C KS")) == want["points"]
    assert r.no_discard_of_taken_card is want["no_discard_of_taken_card"]
    assert r.fits_own_melds is want["fits_own_melds"]
    assert r.layoff_same_turn is want["layoff_same_turn"]
    # the knob defaults no preset changes
    assert r.extra_melds_at_go_down is False and r.swap_needs_down is True
    assert r.stock_reshuffles == 2 and r.turn_limit == 300
    assert r.progression == "all" and r.own_max_hands == 20 and r.hands is None
    assert r.cut_bonus == 0  # an option of standard, off in every preset
    house = name == "house"
    assert (r.layoff_needs_second_down, r.final_turns, r.borrow,
            r.layoff_instead_of_draw) == (house,) * 4
    assert r.rummy_points == (25 if house else 0)


def test_every_card_point_of_classic_is_face_value_from_2_to_9() -> None:
    r = RuleSet.preset("classic")
    assert points(r, "2C 3C 4C 5C 6C 7C 8C 9C") == [2, 3, 4, 5, 6, 7, 8, 9]
    assert points(r, "10C JC QC KC") == [10] * 4


def test_hoyle_and_standard_card_points_between() -> None:
    assert points(RuleSet.preset("hoyle"), "3D 8D JD QD") == [5, 5, 10, 10]
    assert points(RuleSet.preset("house"), "2C 3C 9C JC") == [20, 5, 5, 10]


def test_default_preset_is_standard() -> None:
    assert RuleSet.preset() == PRESETS["standard"]


def test_presets_are_data() -> None:
    r = RuleSet.preset("house")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.min_run = 4  # type: ignore[misc]
    assert RuleSet.preset("house") == r  # nothing shared was changed
    for name, preset in PRESETS.items():
        data = preset.to_json()
        json.dumps(data)  # plain JSON values
        assert set(data) == set(KNOBS)
        assert preset.overrides_from(preset) == {}
        other = PRESETS["standard" if name != "standard" else "hoyle"]
        # a preset is another preset plus overrides of its differing knobs
        diff = preset.overrides_from(other)
        rebuilt = other.with_overrides(diff)
        assert dataclasses.replace(rebuilt, name=name) == preset


SECTION_3_KNOBS = (
    "decks", "jokers_per_deck", "deuces_wild", "deal_sizes", "contracts", "min_set", "min_run",
    "naturals", "final_all_out", "extra_melds_at_go_down", "layoff_same_turn",
    "layoff_needs_second_down", "down_may_take_discard", "buying", "penalty_cards", "max_buys",
    "buy_priority", "deep_pickup", "joker_swap", "swap_needs_down", "swap_at_go_down",
    "swapped_joker_must_be_played", "going_out", "no_discard_of_taken_card", "playable_discard",
    "stock_reshuffles", "turn_limit", "fits_own_melds", "final_turns", "layoff_instead_of_draw",
    "card_points", "rummy_points", "cut_bonus", "progression", "own_max_hands", "hands",
    "borrow",
)


def test_every_section_3_knob_is_a_field() -> None:
    assert set(SECTION_3_KNOBS) <= set(KNOBS)


# ---- overrides -------------------------------------------------------------------------------

def test_overrides_by_knob_name_as_in_section_5() -> None:
    r = RuleSet.preset("standard", {
        "max_buys": 3, "naturals": [2, 3], "decks": 3,
        "deal_sizes": [10, 10, 10, 10, 12, 12, 12],
        "contracts": [{"sets": 2, "runs": 0}, {"sets": 1, "runs": 1}, {"sets": 0, "runs": 2},
                      {"sets": 3, "runs": 0}, {"sets": 2, "runs": 1}, {"sets": 1, "runs": 2},
                      {"sets": 2, "runs": 1, "set_size": 3, "run_size": 7}]})
    assert r.max_buys == 3 and r.naturals == (2, 3)
    assert r.decks_for(3) == 3 and r.decks_for(8) == 3
    assert r.deal_sizes == (10, 10, 10, 10, 12, 12, 12)
    assert r.contracts[6] == Contract(2, 1, set_size=3, run_size=7)
    assert r.contracts[0] == Contract(2, 0)
    # knobs not named keep the preset's values
    assert r.going_out == "float" and r.playable_discard == "standard"


@pytest.mark.parametrize(("knob", "value", "read"), [
    ("buy_priority", "first_call", "first_call"),
    ("cut_bonus", 50, 50),
    ("hands", [2, 3], (2, 3)),
    ("naturals", None, None),
    ("max_buys", None, None),
    ("deuces_wild", True, True),
    ("stock_reshuffles", 0, 0),
    ("turn_limit", 5, 5),
    ("card_points", {"A": 1, "JK": 2}, None),
])
def test_override_values(knob: str, value: Any, read: Any) -> None:
    r = RuleSet.preset("standard", {knob: value})
    if knob == "card_points":
        assert r.points(parse_card("AS")) == 1 and r.points(JOKER) == 2
        assert r.points(parse_card("KS")) == 10  # the rest stays
    else:
        assert getattr(r, knob) == read


def test_overrides_do_not_change_the_preset() -> None:
    RuleSet.preset("arena", {"going_out": "float"})
    assert RuleSet.preset("arena").going_out == "discard"


# ---- errors name the knob --------------------------------------------------------------------

@pytest.mark.parametrize(("over", "knob"), [
    ({"max_buy": 3}, "max_buy"),  # unknown knob
    ({"wild_jokers": True}, "wild_jokers"),
    ({"min_run": 2}, "min_run"),  # impossible values
    ({"min_run": 14}, "min_run"),
    ({"min_set": 1}, "min_set"),
    ({"decks": 0}, "decks"),
    ({"jokers_per_deck": -1}, "jokers_per_deck"),
    ({"going_out": "fly"}, "going_out"),
    ({"playable_discard": "maybe"}, "playable_discard"),
    ({"joker_swap": "all"}, "joker_swap"),
    ({"buy_priority": "loudest"}, "buy_priority"),
    ({"progression": "random"}, "progression"),
    ({"penalty_cards": -1}, "penalty_cards"),
    ({"max_buys": -1}, "max_buys"),
    ({"stock_reshuffles": -1}, "stock_reshuffles"),
    ({"turn_limit": 0}, "turn_limit"),
    ({"deal_sizes": [10, 10, 10]}, "deal_sizes"),  # one size per contract
    ({"deal_sizes": [0, 10, 10, 10, 10, 10, 10]}, "deal_sizes"),
    ({"contracts": [{"sets": 0, "runs": 0}] * 7}, "contracts"),
    ({"contracts": [{"sets": 0, "runs": 1, "run_size": 14}] * 7}, "contracts"),
    ({"contracts": [{"sets": True, "runs": 1}] * 7}, "contracts"),
    ({"contracts": [{"sets": 2, "run": 1}] * 7}, "contracts"),
    ({"contracts": [[2, 0]] * 7}, "contracts"),
    ({"naturals": [4, 3]}, "naturals"),  # more naturals than a set of 3 holds
    ({"hands": [0]}, "hands"),
    ({"hands": [8]}, "hands"),
    ({"buying": "yes"}, "buying"),  # wrong types
    ({"turn_limit": "ten"}, "turn_limit"),
    ({"card_points": {"Z": 1}}, "card_points"),
    ({"own_max_hands": 0}, "own_max_hands"),
    ({"swap_at_go_down": -1}, "swap_at_go_down"),
])
def test_bad_override_names_the_knob(over: dict[str, Any], knob: str) -> None:
    with pytest.raises(RulesError) as info:
        RuleSet.preset("standard", over)
    assert knob in str(info.value)


@pytest.mark.parametrize(("preset", "over"), [
    ("arena", {"down_may_take_discard": False}),  # arena plays bonus
    ("classic", {"playable_discard": "bonus"}),  # classic: down players may not take
    ("standard", {"down_may_take_discard": False}),  # standard's mode uses bonus
    ("hoyle", {"playable_discard": "bonus", "down_may_take_discard": False}),
])
def test_bonus_without_down_may_take_discard_is_a_contradiction(preset: str,
                                                                over: dict[str, Any]) -> None:
    with pytest.raises(RulesError) as info:
        RuleSet.preset(preset, over)
    msg = str(info.value)
    assert "playable_discard" in msg or "down_may_take_discard" in msg


def test_bonus_contradiction_is_not_raised_for_other_modes() -> None:
    r = RuleSet.preset("arena", {"down_may_take_discard": False, "playable_discard": "take_back"})
    assert r.playable_discard == "take_back"


def test_hands_does_not_apply_with_own_progression() -> None:
    with pytest.raises(RulesError, match="hands"):
        RuleSet.preset("standard", {"progression": "own", "hands": [1, 2]})


@pytest.mark.parametrize(("preset", "over", "players"), [
    ("standard", {"deal_sizes": [21] * 7}, 8),  # 8 x 21 + 1 = 169 > 3 decks (162)
    ("standard", {"decks": 1, "deal_sizes": [18] * 7}, 3),  # 3 x 18 + 1 = 55 > 54
    ("hoyle", {"deal_sizes": [7, 10, 10, 10, 12, 12, 27]}, 4),  # 4 x 27 + 1 = 109 > 108
])
def test_deal_too_large_for_the_decks(preset: str, over: dict[str, Any], players: int) -> None:
    rules = RuleSet.preset(preset, over)
    with pytest.raises(RulesError, match="deal_sizes"):
        Game(rules, players)


def test_deal_that_just_fits() -> None:
    # 3 x 17 + 1 = 52 of the 54 cards of one deck with its jokers
    g = Game(RuleSet.preset("standard", {"decks": 1, "deal_sizes": [17] * 7}), 3)
    assert [len(h) for h in g.hands] == [17, 17, 17] and len(g.stock) == 54 - 52


def test_player_count_outside_the_preset() -> None:
    with pytest.raises(RulesError, match="players"):
        Game(RuleSet.preset("standard"), 2)  # standard is for 3-8
    with pytest.raises(RulesError, match="players"):
        Game(RuleSet.preset("arena"), 9)
    assert Game(RuleSet.preset("arena"), 2).n == 2
