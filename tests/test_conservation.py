"""No card is ever lost or made: after every action of random legal play, under every preset and
under random rule sets, the cards the players can see (their own hands, the melds, the discard
pile) plus the stock are exactly the pack the rules describe (tests/conservation.py, which counts
without the engine's own helpers). And the check can fail: a card taken out of a live game, or
one added to it, is caught wherever it was taken from.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from conftest import C, act, stacked_game
from conservation import assert_cards_conserved, expected_pack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import rule_sets

from liverpool.cards import JOKER, make_card
from liverpool.engine import Game
from liverpool.randomplay import random_action
from liverpool.rules import PRESET_NAMES, RuleSet
from liverpool.soak import RandomRules

# random play ends a whole preset game in a few thousand actions (well under a second); every
# action is followed by the check, so keep the number of games modest
PRESET_GAMES = 5  # per preset
RANDOM_RULE_GAMES = 30


def play_checking_every_action(game: Game, rng: random.Random, where: str) -> int:
    """Random legal play to the end of the game, checking the cards after every action."""
    assert_cards_conserved(game, f"{where}, the deal")
    while not game.over:
        action = random_action(game, rng)
        game.apply(action)
        assert_cards_conserved(game, f"{where}, action {len(game.actions)} {action.to_json()}")
    return len(game.actions)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=PRESET_GAMES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**31 - 1))
def test_presets_conserve_the_cards_after_every_action(preset: str, data: st.DataObject,
                                                       seed: int) -> None:
    rules = RuleSet.preset(preset)
    players = data.draw(st.integers(rules.min_players, rules.max_players), label="players")
    game = Game(rules, players, seed=seed)
    actions = play_checking_every_action(game, random.Random(seed),
                                         f"{preset} {players} players seed {seed}")
    assert game.over and actions > 0


@settings(max_examples=RANDOM_RULE_GAMES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(rr=rule_sets(), seed=st.integers(0, 2**31 - 1))
def test_random_rule_sets_conserve_the_cards_after_every_action(rr: RandomRules,
                                                                seed: int) -> None:
    game = Game(rr.rules(), rr.players, seed=seed)
    play_checking_every_action(game, random.Random(seed), f"{rr.describe()} seed {seed}")
    assert game.over


# ---- the expected pack, worked out by hand from docs/rules.md ---------------------------------

@pytest.mark.parametrize(("preset", "overrides", "players", "size", "jokers", "each"), [
    ("standard", {}, 5, 108, 4, 2),  # 2 decks up to 5 players
    ("standard", {}, 6, 162, 6, 3),  # 3 decks from 6
    ("hoyle", {}, 8, 216, 8, 4),  # 4 decks for 7-8
    ("arena", {"jokers_per_deck": 0}, 4, 104, 0, 2),
    ("classic", {"decks": 1, "jokers_per_deck": 3}, 2, 55, 3, 1),
])
def test_expected_pack(preset: str, overrides: dict[str, object], players: int, size: int,
                       jokers: int, each: int) -> None:
    pack = expected_pack(RuleSet.preset(preset, overrides), players)
    assert sum(pack.values()) == size and pack[JOKER] == jokers
    suited = [make_card(rank, suit) for rank in range(1, 14) for suit in range(4)]
    assert len(set(suited)) == 52 and all(pack[c] == each for c in suited)
    assert +pack == Counter({**{c: each for c in suited}, **({JOKER: jokers} if jokers else {})})


# ---- the check fails when a card goes missing or appears -------------------------------------

def live_game() -> Game:
    """A standard game in play: seat 1 has drawn, gone down (a table meld exists) and
    discarded; the pile holds two cards; seat 2 is to draw."""
    g = stacked_game("standard", ["KD KC QD QC JD JC 10D 10C 9D 9C",
                                  "7H 7C 7D 5S 5H 5D 3S 4S 6S 8H",
                                  "KS KH QS QH JS JH 10S 10H 9S 9H"],
                     upcard="2H", stock="AS 4C")
    act(g, player=1, type="draw")
    act(g, player=2, type="pass")
    act(g, player=0, type="pass")
    act(g, player=1, type="go_down", melds=[["7H", "7C", "7D"], ["5S", "5H", "5D"]])
    act(g, player=1, type="discard", card="8H")
    assert g.melds and len(g.discard) == 2 and not g.over
    return g


def test_a_live_game_passes_the_check() -> None:
    assert_cards_conserved(live_game(), "live game")


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_card_removed_from_a_hand_fails_the_check(seat: int) -> None:
    g = live_game()
    card = g.hands[seat].pop()
    with pytest.raises(AssertionError, match="cards lost: 1 x ") as caught:
        assert_cards_conserved(g, "after removing a card")
    assert "cards made: none" in str(caught.value)
    g.hands[seat].append(card)  # put back, the check passes again
    assert_cards_conserved(g)


def test_a_card_removed_from_the_stock_the_pile_or_a_meld_fails_the_check() -> None:
    g = live_game()
    g.stock.pop()
    with pytest.raises(AssertionError, match="cards lost"):
        assert_cards_conserved(g)
    g = live_game()
    g.discard.pop(0)
    with pytest.raises(AssertionError, match="cards lost: 1 x 2H"):
        assert_cards_conserved(g)
    g = live_game()
    g.melds.pop()
    with pytest.raises(AssertionError, match="cards lost: 1 x 5S, 1 x 5H, 1 x 5D"):
        assert_cards_conserved(g)


def test_a_card_made_or_duplicated_fails_the_check() -> None:
    g = live_game()
    g.hands[0].append(C("AS")[0])  # a third AS in a two-deck pack
    with pytest.raises(AssertionError, match="cards lost: none; cards made: 1 x AS"):
        assert_cards_conserved(g)


def test_a_card_moved_between_places_passes() -> None:
    # the check counts places, not who should hold what: a card moved is still conserved
    g = live_game()
    g.hands[0].append(g.stock.pop())
    g.stock.append(g.hands[2].pop())
    assert_cards_conserved(g)
