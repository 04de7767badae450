"""The engine's events tell the truth, and each seat only what it may see.

Random legal games over every preset and over random rule sets. For every seat (and for a
spectator) a *follower* keeps that seat's hand and the table's melds from the events alone, as
that seat receives them (``for_seat``), starting from the view at the deal; after every action
its hand and the melds must equal the engine's view. Also: a card drawn from the stock, a
buyer's penalty cards and a cut's count reach nobody but their owner; the JSON form of every
event names its kind; a hand's end is told exactly when the score sheet grows.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import rule_sets

from liverpool.actions import Action
from liverpool.cards import Card, parse_card
from liverpool.engine import Game
from liverpool.engine.events import (
    EVENT_KINDS,
    Borrowed,
    Bought,
    Called,
    Cut,
    Discarded,
    Drew,
    Event,
    GameEnded,
    Gave,
    HandEnded,
    HandStarted,
    LaidOff,
    Swapped,
    Took,
    WentDown,
    event_from_json,
)
from liverpool.randomplay import random_action
from liverpool.rules import PRESET_NAMES, RuleSet


class Follower:
    """One seat's knowledge of its own hand and of the table, kept from events only."""

    def __init__(self, game: Game, seat: int | None) -> None:
        self.seat = seat
        self.deal(game)

    def deal(self, game: Game) -> None:
        v = game.view_for(self.seat)
        self.hand: Counter[Card] = Counter(v.hand)
        self.melds = list(v.melds)

    def mine(self, s: int) -> bool:
        return self.seat is not None and s == self.seat

    def see(self, e: Event, game: Game) -> None:
        if isinstance(e, Drew) and e.card is not None:
            assert self.mine(e.seat), "another seat's stock card was shown"
            self.hand[e.card] += 1
        elif isinstance(e, Took) and self.mine(e.seat):
            self.hand[e.card] += 1
        elif isinstance(e, Bought):
            if self.mine(e.seat):
                assert e.penalty_cards is not None and len(e.penalty_cards) == e.penalty
                self.hand.update(e.cards)
                self.hand.update(e.penalty_cards)
            else:
                assert e.penalty_cards is None
        elif isinstance(e, WentDown):
            assert e.first == len(self.melds)
            self.melds.extend(e.melds)
            if self.mine(e.seat):
                self.hand.subtract(c for m in e.melds for c in m.cards)
        elif isinstance(e, LaidOff):
            self.melds[e.meld] = e.result
            if self.mine(e.seat):
                self.hand[e.card] -= 1
        elif isinstance(e, Swapped):
            self.melds[e.meld] = e.result
            if self.mine(e.seat):
                self.hand[e.card] -= 1
                self.hand[e.wild] += 1
        elif isinstance(e, Borrowed):
            self.melds[e.meld] = e.result
            assert e.new_index == len(self.melds)
            self.melds.append(e.new_meld)
            if self.mine(e.seat):
                used = Counter(e.new_meld.cards)
                used[e.card] -= 1
                self.hand.subtract(used)
        elif isinstance(e, Discarded) and self.mine(e.seat):
            self.hand[e.card] -= 1
        elif isinstance(e, Called):
            if e.mode == "bonus" and self.mine(e.seat):
                self.hand[e.card] += 1
            if e.mode == "take_back" and self.mine(e.to):
                self.hand[e.card] += 1
                if e.penalty_card is not None:
                    self.hand[e.penalty_card] += 1
            if e.mode != "take_back" or not self.mine(e.to):
                assert e.penalty_card is None
            if e.mode == "give_cards" and e.meld is not None and e.result is not None:
                self.melds[e.meld] = e.result
        elif isinstance(e, Gave):
            if self.mine(e.seat):
                self.hand[e.card] -= 1
            if self.mine(e.to):
                self.hand[e.card] += 1
        elif isinstance(e, Cut):
            assert (e.count is not None) == self.mine(e.seat)
        elif isinstance(e, HandStarted):
            self.deal(game)
        self.hand = +self.hand

    def check(self, game: Game, where: str) -> None:
        v = game.view_for(self.seat)
        assert self.hand == Counter(v.hand), f"{where}: seat {self.seat}'s hand"
        assert self.melds == list(v.melds), f"{where}: the melds seen by seat {self.seat}"


def reads_back(e: Event, rules: RuleSet) -> None:
    """The event read back from its JSON (as a protocol bot reads it) is the same event: the
    same value, or for a hand's end (whose JSON shows each hand sorted) the same JSON."""
    obj = json.loads(json.dumps(e.to_json()))
    back = event_from_json(obj, rules)
    assert back.to_json() == obj
    if not isinstance(e, HandEnded):
        assert back == e


def follow_game(rules: RuleSet, players: int, seed: int, max_actions: int = 3000) -> int:
    game = Game(rules, players, seed=seed)
    rng = random.Random(seed)
    followers = [Follower(game, s) for s in [*range(players), None]]
    steps = 0
    while not game.over and steps < max_actions:
        a = random_action(game, rng)
        hands = len(game.scores)
        events = game.apply(a)
        steps += 1
        assert events and events[0].actor == a.player, f"{a}: the action's own event first"
        ends = [e for e in events if isinstance(e, HandEnded)]
        assert len(ends) == len(game.scores) - hands, "a hand's end is told when it happens"
        assert any(isinstance(e, GameEnded) for e in events) == game.over
        for e in events:
            obj = json.loads(json.dumps(e.to_json()))
            assert EVENT_KINDS[obj["type"]] is type(e)
        for f in followers:
            for e in events:
                seen = e.for_seat(f.seat)
                reads_back(seen, rules)
                f.see(seen, game)
            if not game.over:
                f.check(game, f"action {steps} ({a})")
    return steps


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_events_follow_every_preset(preset: str, seed: int, players: int) -> None:
    rules = RuleSet.preset(preset)
    players = min(max(players, rules.min_players), rules.max_players)
    follow_game(rules, players, seed)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rr=rule_sets(), seed=st.integers(0, 2**32 - 1))
def test_events_follow_random_rule_sets(rr: object, seed: int) -> None:
    follow_game(rr.rules(), rr.players, seed)  # type: ignore[attr-defined]


def test_a_stock_card_is_hidden_from_others() -> None:
    game = Game(RuleSet.preset("standard"), 3, seed=5)
    seat = game.to_act()[0]
    events = game.apply(Action("draw", seat))
    drew = [e for e in events if isinstance(e, Drew)]
    assert drew, "drawing tells a draw"
    for e in drew:
        assert e.for_seat((seat + 1) % 3).to_json()["card"] is None
        assert e.for_seat(None).to_json()["card"] is None
    own = [e.for_seat(seat) for e in events]
    cards = [parse_card(e.to_json()["card"]) for e in own
             if isinstance(e, Drew) and e.card is not None]
    # the buy round, if any, ends before the card comes; otherwise the draw carries it
    if game.phase.value != "buy":
        assert cards and cards[0] in game.hands[seat]


def test_every_kind_of_event_reads_back() -> None:
    """The games above meet every kind; a cut (only some rule sets deal with one) and a call
    of each mode read back too."""
    rules = RuleSet.preset("standard")
    seen = [Cut(1, 3, 0), Cut(1, None, 20), Called(0, parse_card("5H"), "take_back", 2,
                                                   penalty_card=parse_card("KS")),
            Called(0, parse_card("5H"), "points", 2, points=10), Gave(1, parse_card("JK"), 0)]
    for e in seen:
        reads_back(e, rules)


@pytest.mark.parametrize("obj,words", [
    ([], "a JSON object"),
    ({"seat": 0}, "unknown event None"),
    ({"type": "shuffled"}, "unknown event 'shuffled'"),
    ({"type": "took", "seat": 0}, "a card must be written as text"),
    ({"type": "took", "seat": "0", "card": "5H"}, "\"seat\" must be a whole number"),
    ({"type": "took", "seat": True, "card": "5H"}, "\"seat\" must be a whole number"),
    ({"type": "took", "seat": 0, "card": "5X"}, "5X"),
    ({"type": "discarded", "seat": 0, "card": "5H", "out": 1}, "\"out\" must be true or false"),
    ({"type": "drew", "seat": 0, "card": None, "buy_round": [1, "2"], "after_buys": False},
     "a list of whole numbers"),
    ({"type": "passed", "seat": 0, "on": "sale", "card": None}, "\"buy\" or \"call\""),
    ({"type": "went_down", "seat": 0, "melds": {"a": 1}, "first": 0}, "a list of melds"),
    ({"type": "went_down", "seat": 0, "melds": [{"owner": 0}], "first": 0}, "meld"),
    ({"type": "hand_started", "hand_number": 1, "dealer": 0, "contract": [[2, 0]],
      "upcard": None, "stock_size": 50}, "a contract is an object"),
    ({"type": "hand_ended", "hands": "AS"}, "a list of lists"),
])
def test_an_event_that_is_not_one_is_refused(obj: object, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        event_from_json(obj, RuleSet.preset("standard"))


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=4)
                     | st.sampled_from(["5H", "JK", "buy", "call"]),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_damaged_event_reads_or_is_refused_with_a_reason(data: st.DataObject) -> None:
    """Any field of a real event's JSON replaced by any JSON value, or dropped: it reads back
    as an event or is refused with a ``ValueError``, nothing else."""
    rules = RuleSet.preset("house")
    game = Game(rules, 3, seed=data.draw(st.integers(0, 50)))
    rng = random.Random(0)
    events: list[Event] = [game.hand_started()]
    while len(events) < 40 and not game.over:
        events += game.apply(random_action(game, rng))
    obj = data.draw(st.sampled_from(events)).to_json()
    key = data.draw(st.sampled_from(sorted(obj)))
    if data.draw(st.booleans()):
        del obj[key]
    else:
        obj[key] = data.draw(_JSON)
    with contextlib.suppress(ValueError):
        event_from_json(obj, rules)
