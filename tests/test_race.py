"""The race hand (bots/race.py): the distance against a brute-force oracle, which hands are
races under each preset, and the expert's discard in one."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from conftest import C, stacked_game
from scenario import draw_and_all_pass

from liverpool.bots import ExpertBot
from liverpool.bots.race import distance, race_discard, race_size, run_lengths
from liverpool.cards import JOKER, Card, wild_cards
from liverpool.engine import Game
from liverpool.rules import Contract, RuleSet


def oracle_distance(hand: Sequence[Card], contract: Contract, rules: RuleSet, size: int) -> int:
    """Every placement of every run (suit, first rank, length) tried; a plan holds, of each
    card, as many copies as its places ask for and the hand has (an ace is one card whether
    it opens a run or closes one)."""
    wilds = wild_cards(rules.deuces_wild)
    free = sum(1 for c in hand if c == JOKER or c in wilds)
    have = Counter(c for c in hand if c != JOKER and c not in wilds)
    best = 0
    places = 0
    for lengths in run_lengths(contract, rules, size):
        places = sum(lengths)
        spots = [[(suit, lo, n) for suit in range(4) for lo in range(1, 16 - n)]
                 for n in lengths]
        # runs of one length are alike: each unordered choice of their places once
        plans = itertools.combinations_with_replacement(spots[0], len(lengths)) \
            if len(set(lengths)) == 1 else itertools.product(*spots)
        for plan in plans:
            asked: Counter[Card] = Counter()
            for suit, lo, n in plan:
                for rank in range(lo, lo + n):
                    asked[suit * 13 + (rank - 1) % 13] += 1
            held = sum(min(k, have[c]) for c, k in asked.items())
            best = max(best, min(places, held + free))
    return places - best


def _pack(rules: RuleSet, decks: int) -> list[Card]:
    return [c for c in range(52) for _ in range(decks)] + [JOKER] * (rules.jokers_per_deck * decks)


@pytest.mark.parametrize(("preset", "runs", "run_size", "decks", "size", "hands"), [
    ("arena", 3, None, 2, 12, 16),
    ("arena", 3, None, 3, 12, 16),  # three copies of a card
    ("arena", 2, None, 3, 11, 16),  # runs of different lengths
    ("house", 3, None, 2, 9, 16),  # deuces wild, runs of three
    ("arena", 2, 5, 2, 10, 16),  # runs of exactly five
    ("classic", 3, None, 2, 13, 5),  # three runs of different lengths (slow to enumerate)
])
def test_distance_matches_the_brute_force_oracle(preset: str, runs: int, run_size: int | None,
                                                 decks: int, size: int, hands: int) -> None:
    rules = RuleSet.preset(preset)
    contract = Contract(sets=0, runs=runs, run_size=run_size)
    rng = random.Random(f"{preset}{runs}{run_size}{decks}")
    pack = _pack(rules, decks)
    by_suit = [[c for c in pack if c != JOKER and c // 13 == s] for s in range(4)]
    for i in range(hands):
        if i % 2:  # crowded into two suits, so that runs share a suit and its aces
            pool = by_suit[rng.randrange(4)] + by_suit[rng.randrange(4)] + [JOKER]
            hand = rng.sample(pool, min(size, len(pool)))
        else:
            hand = rng.sample(pack, size)
        assert distance(hand, contract, rules, size) == \
            oracle_distance(hand, contract, rules, size), hand


def test_distance_of_made_and_nearly_made_hands() -> None:
    rules = RuleSet.preset("arena")
    three_runs = Contract(sets=0, runs=3)
    made = C("AS 2S 3S 4S 5H 6H 7H 8H JD QD KD AD")
    assert distance(made, three_runs, rules, 12) == 0
    assert distance(C("AS 2S 3S 4S 5H 6H 7H 8H JD QD KD 9C"), three_runs, rules, 12) == 1
    # one ace cannot both open a run and close another in the same suit
    one_ace = C("AS 2S 3S 4S JS QS KS 5H 6H 7H 8H 9C")
    assert distance(one_ace, three_runs, rules, 12) == 1
    assert distance([*one_ace[:-1], C("AS")[0]], three_runs, rules, 12) == 0
    assert distance([*one_ace[:-1], JOKER], three_runs, rules, 12) == 0


@pytest.mark.parametrize(("preset", "contract_no", "players", "race"), [
    ("arena", 7, 2, 12),  # three runs of four from twelve cards: going down is going out
    ("arena", 3, 2, 0),  # two runs from eleven: it goes down and lays off
    ("classic", 7, 2, 12),  # every card melded, no discard to go out: eleven and the draw
    ("standard", 7, 3, 12),  # every card melded; ten cards, so two must still be bought
    ("house", 7, 2, 0),  # runs of three: nine cards go down, the rest are laid off
    ("hoyle", 7, 2, 0),  # sets and a run
])
def test_which_hands_are_races(preset: str, contract_no: int, players: int, race: int) -> None:
    rules = RuleSet.preset(preset, {"hands": [contract_no]})
    size = rules.deal_sizes[contract_no - 1]
    rng = random.Random(contract_no)
    pack = _pack(rules, rules.decks_for(players))
    rng.shuffle(pack)
    hands = [" ".join(_text(pack[i * size:(i + 1) * size])) for i in range(players)]
    game = stacked_game(preset, hands, _text(pack[-1:])[0], overrides={"hands": [contract_no]},
                        contract_no=contract_no)
    seat = game.to_act()[0]
    draw_and_all_pass(game, seat)
    assert race_size(game.view_for(seat)) == race


def _text(cards: Sequence[Card]) -> list[str]:
    from liverpool.cards import card_str
    return [card_str(c) for c in cards]


def _diamonds_to_choose() -> Game:
    """Arena's last hand, two players; seat 1 plays first and draws 10D: two runs made (4-7S,
    8-JH) and, in diamonds, 3D 4D 6D with 9D 10D. Seat 1 to discard."""
    hand1 = "4S 5S 6S 7S 8H 9H 10H JH 3D 4D 6D 9D"
    hand0 = "2C 3C 5C 8C 10C QC KC 2H 3H 5H KH QS"
    game = stacked_game("arena", [hand0, hand1], "AC", stock="10D",
                        overrides={"hands": [7]}, contract_no=7)
    assert game.to_act() == (1,)
    draw_and_all_pass(game, 1)
    return game


def test_the_expert_keeps_the_hand_nearest_to_going_out_without_a_search() -> None:
    # only 3-6D can be the third run (5D to come), so 9D or 10D goes; the basic judgement
    # keeps the pair 9D 10D and breaks the 3-6D that the race needs
    game = _diamonds_to_choose()
    view, legal = game.view_for(1), game.legal_actions(1)
    choice = race_discard(view, [a for a in legal if a.type == "discard"])
    assert choice is not None and choice.card in C("9D 10D")
    basic = ExpertBot(learned=False).basic.decide(view, legal)[0]
    assert basic.card not in C("9D 10D")
    bot = ExpertBot()
    assert bot.choose(view, legal, random.Random(3)) == choice
    assert bot.worlds_sampled == 0, "the race discard is not searched"


def test_the_hint_and_the_review_know_the_race_discard() -> None:
    from liverpool.bots.hints import searched_hint
    from liverpool.bots.race import RACE_REASON
    from liverpool.review import candidates, reason

    game = _diamonds_to_choose()
    view, legal = game.view_for(1), game.legal_actions(1)
    race = race_discard(view, legal)
    assert race is not None
    assert searched_hint(view, legal) == (race, RACE_REASON)
    basic = ExpertBot(learned=False).basic.decide(view, legal)[0]
    assert race in candidates(view, basic, legal)
    why = reason(view, basic, race, 12.0)
    assert why.startswith("In this race to go out") and "2 cards from going out" in why, why
