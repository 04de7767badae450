"""The five presets side by side, as tables.

``KNOB_TABLE`` is transcribed from docs/rules.md: the side-by-side table of the presets
(Presets), with the knob tables (Knobs) for the few knobs that table leaves implicit
(``swap_needs_down``, ``own_max_hands``, ``hands``, ``cut_bonus``). It is a literal, not read from
``RuleSet``, and every preset must have exactly these values.

The behaviour tests then play the rows where the presets differ, each parametrized over the five
presets with the outcome docs/rules.md gives for each in a table: the deal and the contract of
every hand, the pack for every player count, taking and buying the discard once down, buying
(one penalty card, no limit, deep pick-up), discarding the card just taken, laying off in the
turn one goes down, the naturals and wild 2s of a new meld, runs of three, going down with every
card, the points of a hand left over, final turns, ties, playable discards, joker swaps and
borrowing. Every scenario runs on a stacked deck, so each outcome is worked out by hand; a
refusal is asserted with its reason and leaves the state unchanged.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from conftest import C, act, stacked_game
from conservation import counted_cards
from scenario import draw_and_all_pass, go_down, holds, phase_of, table

from liverpool.cards import JOKER, Card, make_card
from liverpool.engine import Game, IllegalActionError, Phase
from liverpool.rules import KNOBS, PRESET_NAMES, Contract, RulesError, RuleSet

PRESETS = ("hoyle", "classic", "arena", "standard", "house")  # the table's column order


def face_points(joker: int, ace: int, two: int, low: int | None, high: int) -> tuple[int, ...]:
    """A card-points row as docs/rules.md writes it: joker / A / 2 / 3-9 / 10-K, in the knob's
    order JK, A, 2, 3 .. 9, 10, J, Q, K; ``low`` None means face value."""
    return (joker, ace, two, *(rank if low is None else low for rank in range(3, 10)),
            high, high, high, high)


TWO_THREE_FOUR = ((4, 2), (6, 3), (8, 4))  # 2 decks up to 4 players, 3 for 5-6, 4 for 7-8
CONTRACTS = (Contract(2, 0), Contract(1, 1), Contract(0, 2), Contract(3, 0), Contract(2, 1),
             Contract(1, 2), Contract(0, 3))
HOYLE_CONTRACTS = (*CONTRACTS[:6], Contract(2, 1, set_size=3, run_size=7))

# docs/rules.md, Presets (side by side), column by column: hoyle, classic, arena, standard, house
KNOB_TABLE: dict[str, tuple[Any, ...]] = {
    # players
    "min_players": (2, 2, 2, 3, 2),
    "max_players": (8, 8, 8, 8, 8),
    # decks; jokers
    "decks": (TWO_THREE_FOUR, TWO_THREE_FOUR, ((4, 2), (8, 3)), ((5, 2), (8, 3)),
              TWO_THREE_FOUR),
    "jokers_per_deck": (2, 2, 2, 2, 2),
    # wild cards
    "deuces_wild": (False, False, False, False, True),
    # hand 1 .. hand 7: the number after the dot
    "deal_sizes": ((7, 10, 10, 10, 12, 12, 12), (11,) * 7, (10, 11, 11, 12, 12, 12, 12),
                   (10,) * 7, (9, 9, 9, 9, 12, 12, 12)),
    # hand 1 .. hand 7: the contract
    "contracts": (HOYLE_CONTRACTS, CONTRACTS, CONTRACTS, CONTRACTS, CONTRACTS),
    # smallest set / run
    "min_set": (3, 3, 3, 3, 3),
    "min_run": (4, 4, 4, 4, 3),
    # naturals in a new meld
    "naturals": (None, None, None, (2, 3), None),
    # hand 7: "all out"
    "final_all_out": (True, True, False, True, False),
    # extra melds when going down
    "extra_melds_at_go_down": (False, False, False, False, False),
    # lay-offs
    "layoff_same_turn": (True, True, True, True, True),
    "layoff_needs_second_down": (False, False, False, False, True),
    "layoff_instead_of_draw": (False, False, False, False, True),
    "borrow": (False, False, False, False, True),
    # take the discard once down
    "down_may_take_discard": (True, False, True, True, True),
    # buying: yes, 1 penalty card, no limit
    "buying": (True, True, True, True, True),
    "penalty_cards": (1, 1, 1, 1, 1),
    "max_buys": (None, None, None, None, None),
    # buying priority: nearest the drawer's left
    "buy_priority": ("seat", "seat", "seat", "seat", "seat"),
    # deep pick-up
    "deep_pickup": (True, False, False, False, False),
    # joker swap
    "joker_swap": ("none", "runs", "runs_and_sets", "runs", "runs_and_sets"),
    "swap_needs_down": (True, True, True, True, True),  # Knobs: "all true"
    "swap_at_go_down": (0, 0, 1, 0, 0),
    "swapped_joker_must_be_played": (False, True, False, True, True),
    # going out
    "going_out": ("empty", "empty", "discard", "float", "discard"),
    # discard the card just taken
    "no_discard_of_taken_card": (False, False, False, True, False),
    # playable discard
    "playable_discard": ("give_cards", "none", "bonus", "standard", "points"),
    # discarder's own melds count as "fits"
    "fits_own_melds": (False, True, True, True, False),
    # after someone goes out
    "final_turns": (False, False, False, False, True),
    # card points: joker / A / 2 / 3-9 / 10-K
    "card_points": (face_points(50, 25, 5, 5, 10), face_points(15, 15, 2, None, 10),
                    face_points(20, 15, 5, 5, 10), face_points(20, 15, 5, 5, 10),
                    face_points(50, 20, 20, 5, 10)),
    # bonuses and penalties
    "rummy_points": (0, 0, 0, 0, 25),
    "cut_bonus": (0, 0, 0, 0, 0),
    # progression: everyone plays all 7 contracts in order
    "progression": ("all", "all", "all", "all", "all"),
    "hands": (None, None, None, None, None),
    "own_max_hands": (20, 20, 20, 20, 20),  # Knobs: "all 20"
    # stock reshuffles / turn limit
    "stock_reshuffles": (2, 2, 2, 2, 2),
    "turn_limit": (300, 300, 300, 300, 300),
}


def doc(preset: str, knob: str) -> Any:
    return KNOB_TABLE[knob][PRESETS.index(preset)]


# ================================================================ the knob table ===============

def test_the_table_has_every_preset_and_every_knob() -> None:
    assert set(PRESETS) == set(PRESET_NAMES)
    assert set(KNOB_TABLE) == set(KNOBS)
    assert all(len(row) == len(PRESETS) for row in KNOB_TABLE.values())


@pytest.mark.parametrize("knob", sorted(KNOB_TABLE))
@pytest.mark.parametrize("preset", PRESETS)
def test_preset_has_the_documented_value(preset: str, knob: str) -> None:
    assert getattr(RuleSet.preset(preset), knob) == doc(preset, knob)


# ================================================================ helpers ======================

def refused(game: Game, reason: str, **fields: Any) -> None:
    """The action is refused with exactly this reason and the state is left as it was."""
    before = game.snapshot()
    with pytest.raises(IllegalActionError) as caught:
        act(game, **fields)
    assert str(caught.value) == reason
    assert game.snapshot() == before


def dealt(preset: str, contract_no: int, cards: str) -> str:
    """The first cards of ``cards``, as many as the preset deals in that hand."""
    size = doc(preset, "deal_sizes")[contract_no - 1]
    words = cards.split()
    assert len(words) >= size
    return " ".join(words[:size])


def three_seats(preset: str, seat0: str, seat1: str, seat2: str, upcard: str, stock: str,
                contract_no: int = 1, overrides: dict[str, Any] | None = None) -> Game:
    """Three players, seat 0 deals, seat 1 plays first; each seat's cards are cut to the
    preset's deal size for that hand."""
    over = dict(overrides or {})
    if contract_no != 1:
        over["hands"] = [contract_no]
    return stacked_game(preset, [dealt(preset, contract_no, h) for h in (seat0, seat1, seat2)],
                        upcard=upcard, stock=stock, overrides=over, contract_no=contract_no)


def pack(decks: int, jokers_per_deck: int) -> Counter[Card]:
    out: Counter[Card] = Counter()
    for suit in range(4):
        for rank in range(1, 14):
            out[make_card(rank, suit)] = decks
    out[JOKER] = decks * jokers_per_deck
    return out


def by_rank(cards: str) -> list[list[str]]:
    """Cards grouped into sets by rank, in order of first appearance."""
    groups: dict[str, list[str]] = {}
    for c in cards.split():
        groups.setdefault(c[:-1], []).append(c)
    return list(groups.values())


# ================================================================ players, pack, deal ==========

PLAYERS = {"hoyle": (2, 8), "classic": (2, 8), "arena": (2, 8), "standard": (3, 8),
           "house": (2, 8)}

# decks by number of players (row "decks"); each deck is 52 cards and 2 jokers (row "jokers")
DECKS = {
    "hoyle": {2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4},
    "classic": {2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4},
    "arena": {2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 7: 3, 8: 3},
    "standard": {3: 2, 4: 2, 5: 2, 6: 3, 7: 3, 8: 3},
    "house": {2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4},
}


@pytest.mark.parametrize("players", range(1, 10))
@pytest.mark.parametrize("preset", PRESETS)
def test_player_count(preset: str, players: int) -> None:
    lo, hi = PLAYERS[preset]
    rules = RuleSet.preset(preset)
    if lo <= players <= hi:
        g = Game(rules, players, seed=players)
        assert g.n == players and len(g.hands) == players and phase_of(g) is Phase.DRAW
    else:
        with pytest.raises(RulesError) as caught:
            Game(rules, players, seed=players)
        assert str(caught.value) == f"players: {preset} is for {lo}-{hi} players, not {players}"


@pytest.mark.parametrize(("preset", "players"),
                         [(p, n) for p in PRESETS for n in sorted(DECKS[p])])
def test_pack_deal_and_contract_of_every_hand(preset: str, players: int) -> None:
    decks = DECKS[preset][players]
    for hand in range(1, 8):
        g = Game(RuleSet.preset(preset, {"hands": [hand]}), players, seed=hand)
        size = doc(preset, "deal_sizes")[hand - 1]
        contract = doc(preset, "contracts")[hand - 1]
        # the pack: decks x 52 cards, 2 jokers a deck, counted from the views and the stock
        assert counted_cards(g) == pack(decks, 2)
        # the deal: every seat the hand's deal size, one upcard, the rest is the stock
        assert [len(h) for h in g.hands] == [size] * players
        assert len(g.discard) == 1
        assert len(g.stock) == decks * 54 - players * size - 1
        assert g.hand_number() == 1
        assert g.contract_for(0) == contract
        assert g.view_for(players - 1).contract == (contract,) * players


# ================================================================ buying and the discard =======
# three players, dealer 0; seat 1 is dealt two sets (sevens and kings) and something over,
# the others cards that fit nothing on the table
SEAT0 = "3S 4H 5D 6C 8S 9H 10D JC QS 3H 4D 5C"
SEAT1 = "7S 7H 7D KS KH KD 6S 8H 9D 10C JS QH"
SEAT2 = "3D 4C 5S 6H 8D 9C 10S JH QD 3C 4S 5H"

# row "take the discard once down", and "buying: ... not once down" (classic)
DOWN_MAY_TAKE = {"hoyle": True, "classic": False, "arena": True, "standard": True,
                 "house": True}


@pytest.mark.parametrize(("preset", "may"), DOWN_MAY_TAKE.items())
def test_a_player_who_is_down_buying_and_taking_the_discard(preset: str, may: bool) -> None:
    g = three_seats(preset, SEAT0, SEAT1, SEAT2, upcard="AC", stock="8C 9S 10H")
    draw_and_all_pass(g, 1)  # 8C
    go_down(g, 1, "7S 7H 7D", "KS KH KD")
    act(g, player=1, type="discard", card="8C")
    draw_and_all_pass(g, 2)  # seat 0 passes on 8C; seat 2 draws 9S
    act(g, player=2, type="discard", card="9S")
    act(g, player=0, type="draw")
    if may:  # seat 1, down, is asked to buy 9S
        assert phase_of(g) is Phase.BUY and g.to_act() == (1,)
        act(g, player=1, type="pass")
    else:  # nobody may buy: seat 1 is down and seat 2 threw the card
        assert phase_of(g) is Phase.PLAY and g.to_act() == (0,)
    assert holds(g, 0, dealt(preset, 1, SEAT0) + " 10H")
    act(g, player=0, type="discard", card="10H")
    # seat 1 may not lay off instead of drawing: only house has it, and there only once two
    # players are down
    refused(g, "no one lays off until at least two players are down" if preset == "house"
            else "these rules have no lay-off instead of drawing", player=1, type="no_draw")
    pads = dealt(preset, 1, SEAT1).split()[6:]
    if may:
        act(g, player=1, type="take_discard")
        assert phase_of(g) is Phase.PLAY and holds(g, 1, " ".join([*pads, "10H"]))
        assert g.discard == C("AC 8C 9S")
    else:
        refused(g, "you are down: in these rules you may not take the discard",
                player=1, type="take_discard")
        assert {a.type for a in g.legal_actions(1)} == {"draw"}


# row "buying": yes, 1 penalty card, no limit (penalty cards, buys a player may make in a hand);
# the max_buys knob sets a limit
BUYING: dict[str, tuple[int, int | None]] = {p: (1, None) for p in PRESETS}


def buy_three_times(preset: str, overrides: dict[str, Any] | None = None) -> Game:
    """Seat 0 buys the upcard AC, then seat 1's discard 9S; its third chance is seat 1's 6D."""
    g = three_seats(preset, SEAT0, SEAT1, SEAT2, upcard="AC",
                    stock="8C 9S 10H JD QC 6D AS AH", overrides=overrides)
    zero = dealt(preset, 1, SEAT0)
    stock = len(g.stock)
    act(g, player=1, type="draw")
    act(g, player=2, type="pass")
    act(g, player=0, type="buy")  # AC and the penalty card 8C; then seat 1 draws 9S
    assert holds(g, 0, zero + " AC 8C") and g.view_for(2).buys == (1, 0, 0)
    assert len(g.stock) == stock - 2 and g.discard == []
    act(g, player=1, type="discard", card="9S")
    act(g, player=2, type="draw")
    assert g.to_act() == (0,)  # seat 1 threw 9S
    act(g, player=0, type="buy")  # 9S and the penalty card 10H; then seat 2 draws JD
    assert holds(g, 0, zero + " AC 8C 9S 10H") and g.view_for(1).buys == (2, 0, 0)
    assert len(g.stock) == stock - 4 and holds(g, 2, dealt(preset, 1, SEAT2) + " JD")
    act(g, player=2, type="discard", card="JD")
    draw_and_all_pass(g, 0)  # seat 1 passes on JD; seat 0 draws QC
    act(g, player=0, type="discard", card="QC")
    draw_and_all_pass(g, 1)  # seat 2 passes on QC (seat 0 threw it); seat 1 draws 6D
    act(g, player=1, type="discard", card="6D")
    act(g, player=2, type="draw")
    return g


@pytest.mark.parametrize(("preset", "terms"), BUYING.items())
def test_buying_costs_one_penalty_card_and_has_no_limit(preset: str,
                                                        terms: tuple[int, int | None]) -> None:
    penalty, limit = terms
    g = buy_three_times(preset)
    zero = dealt(preset, 1, SEAT0)
    # each of the two buys so far brought the card and `penalty` cards from the stock
    assert len(g.hands[0]) == len(zero.split()) + 2 * (1 + penalty)
    if limit is None or limit > 2:  # a third buy, again with a penalty card (AS); then seat 2
        # draws AH
        assert phase_of(g) is Phase.BUY and g.to_act() == (0,)
        act(g, player=0, type="buy")
        assert holds(g, 0, zero + " AC 8C 9S 10H 6D AS") and g.view_for(0).buys == (3, 0, 0)
        assert holds(g, 2, dealt(preset, 1, SEAT2) + " AH") and phase_of(g) is Phase.PLAY
    else:  # seat 0 is not asked: no one else may buy 6D, and seat 2 draws AS
        assert phase_of(g) is Phase.PLAY and holds(g, 2, dealt(preset, 1, SEAT2) + " AS")
        assert g.view_for(0).buys == (2, 0, 0)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_buy_limit_from_the_max_buys_knob_refuses_the_next_buy(preset: str) -> None:
    g = buy_three_times(preset, {"max_buys": 2})
    # seat 0 has bought twice: it is not asked, no one else may buy 6D, seat 2 draws AS
    assert phase_of(g) is Phase.PLAY and holds(g, 2, dealt(preset, 1, SEAT2) + " AS")
    refused(g, "it is not P0's decision now: waiting for P2 (the turn's play and discard)",
            player=0, type="buy")
    assert g.view_for(0).buys == (2, 0, 0)


# row "deep pick-up"
DEEP_PICKUP = {"hoyle": True, "classic": False, "arena": False, "standard": False,
               "house": False}


@pytest.mark.parametrize(("preset", "deep"), DEEP_PICKUP.items())
def test_deep_pickup(preset: str, deep: bool) -> None:
    g = three_seats(preset, SEAT0, SEAT1, SEAT2, upcard="AC", stock="8C 9S 10H")
    draw_and_all_pass(g, 1)  # 8C
    act(g, player=1, type="discard", card="8C")
    act(g, player=2, type="draw")
    assert g.to_act() == (0,) and g.discard == C("AC 8C")
    if deep:  # AC with the 8C above it, and one penalty card (9S); then seat 2 draws 10H
        refused(g, "the discard pile has 2 cards", player=0, type="buy", depth=3)
        act(g, player=0, type="buy", depth=2)
        assert holds(g, 0, dealt(preset, 1, SEAT0) + " AC 8C 9S") and g.discard == []
        assert holds(g, 2, dealt(preset, 1, SEAT2) + " 10H")
    else:
        refused(g, "only the top discard can be bought in these rules",
                player=0, type="buy", depth=2)


# row "discard the card just taken"
DISCARD_TAKEN = {"hoyle": True, "classic": True, "arena": True, "standard": False,
                 "house": True}


@pytest.mark.parametrize(("preset", "allowed"), DISCARD_TAKEN.items())
def test_discarding_the_card_just_taken(preset: str, allowed: bool) -> None:
    g = three_seats(preset, SEAT0, SEAT1, SEAT2, upcard="AC", stock="8C")
    act(g, player=1, type="take_discard")
    if allowed:
        act(g, player=1, type="discard", card="AC")
        assert g.discard == C("AC") and phase_of(g) is Phase.DRAW and g.to_act() == (2,)
        assert holds(g, 1, dealt(preset, 1, SEAT1))
    else:
        refused(g, "you may not discard the AC you took this turn",
                player=1, type="discard", card="AC")
        act(g, player=1, type="discard", card="7S")
        assert g.discard == C("7S") and g.to_act() == (2,)


# ================================================================ going down ===================

# row "lay-offs": once down, same turn allowed; house only when two or more players are down
SAME_TURN_LAYOFF = {"hoyle": None, "classic": None, "arena": None, "standard": None,
                    "house": "no one lays off until at least two players are down"}


@pytest.mark.parametrize(("preset", "refusal"), SAME_TURN_LAYOFF.items())
def test_laying_off_in_the_turn_of_going_down(preset: str, refusal: str | None) -> None:
    g = three_seats(preset, SEAT0, "7S 7H 7D KS KH KD 7C 8H 9D 10C JS QH", SEAT2,
                    upcard="AC", stock="JH")
    draw_and_all_pass(g, 1)  # JH
    go_down(g, 1, "7S 7H 7D", "KS KH KD")
    if refusal is None:
        act(g, player=1, type="lay_off", card="7C", meld=0)
        assert table(g) == ["7S 7H 7D 7C", "KS KH KD"]
    else:
        refused(g, refusal, player=1, type="lay_off", card="7C", meld=0)


# rows "naturals in a new meld" and "wild cards": None = allowed, else the reason
NEW_MELDS: dict[str, tuple[str | None, str | None]] = {
    # (a set of 7S 7H JK JK: two naturals, two wilds; a set 7S 7H 2C)
    "hoyle": ("7S 7H JK JK: a new set needs at least 3 natural cards",
              "7S 7H 2C is neither a set (one rank) nor a run (one suit in order, written low "
              "to high, wilds in the places they stand for)"),
    "classic": ("7S 7H JK JK: a new set needs at least 3 natural cards",
                "7S 7H 2C is neither a set (one rank) nor a run (one suit in order, written "
                "low to high, wilds in the places they stand for)"),
    "arena": ("7S 7H JK JK: a new set needs at least 3 natural cards",
              "7S 7H 2C is neither a set (one rank) nor a run (one suit in order, written low "
              "to high, wilds in the places they stand for)"),
    "standard": (None,
                 "7S 7H 2C is neither a set (one rank) nor a run (one suit in order, written "
                 "low to high, wilds in the places they stand for)"),
    "house": ("7S 7H JK JK: a new set needs at least 3 natural cards", None),
}


@pytest.mark.parametrize(("preset", "outcomes"), NEW_MELDS.items())
def test_naturals_and_wild_twos_in_a_new_set(preset: str,
                                             outcomes: tuple[str | None, str | None]) -> None:
    g = three_seats(preset, SEAT0, "7S 7H JK JK KS KH KD 6S 8H 9D 10C JS", SEAT2,
                    upcard="AC", stock="2C")
    draw_and_all_pass(g, 1)  # 2C
    kings = ["KS", "KH", "KD"]
    for melds, outcome in (([["7S", "7H", "JK", "JK"], kings], outcomes[0]),
                           ([["7S", "7H", "2C"], kings], outcomes[1])):
        if outcome is None:
            copy = g.clone()
            act(copy, player=1, type="go_down", melds=melds)
            assert table(copy) == [" ".join(m) for m in melds] and copy.down[1]
        else:
            refused(g, outcome, player=1, type="go_down", melds=melds)
    # one natural and two wilds is too few everywhere
    refused(g, "7S JK JK: a new set needs at least 2 natural cards", player=1, type="go_down",
            melds=[["7S", "JK", "JK"], kings])


# row "smallest set / run"
TOO_SHORT = "3C 4C 5C: too short (sets need 3+ cards, runs 4+)"
RUN_OF_THREE: dict[str, str | None] = {p: TOO_SHORT for p in PRESETS}
RUN_OF_THREE["house"] = None


@pytest.mark.parametrize(("preset", "refusal"), RUN_OF_THREE.items())
def test_a_run_of_three(preset: str, refusal: str | None) -> None:
    g = three_seats(preset, SEAT0, "7S 7H 7D 3C 4C 5C 8H 9D 10C JS QH 6S", SEAT2,
                    upcard="AC", stock="KD", contract_no=2)
    draw_and_all_pass(g, 1)  # KD
    melds = [["7S", "7H", "7D"], ["3C", "4C", "5C"]]
    if refusal is None:
        act(g, player=1, type="go_down", melds=melds)
        assert table(g) == ["7S 7H 7D", "3C 4C 5C"]
    else:
        refused(g, refusal, player=1, type="go_down", melds=melds)


# row "going out": what going down with every card in hand does
SEVENS_AND_KINGS = "7S 7H 7D KS KH KD 7C KC 7S 7H KS KH"
GOING_DOWN_WITH_EVERY_CARD = {"hoyle": "out", "classic": "out", "arena": "refused",
                              "standard": "float", "house": "refused"}


@pytest.mark.parametrize(("preset", "outcome"), GOING_DOWN_WITH_EVERY_CARD.items())
def test_going_down_with_every_card(preset: str, outcome: str) -> None:
    # seat 1 draws the second KH: every card it holds is a seven or a king
    g = three_seats(preset, SEAT0, SEVENS_AND_KINGS[:-3], SEAT2, upcard="AC", stock="KH")
    draw_and_all_pass(g, 1)
    every = by_rank(dealt(preset, 1, SEVENS_AND_KINGS[:-3]) + " KH")
    if outcome == "refused":  # going out takes a discard: a card must be kept back
        refused(g, "you must keep a card you may discard", player=1, type="go_down",
                melds=every)
        return
    act(g, player=1, type="go_down", melds=every)
    if outcome == "out":  # out at once: the hand is scored and the next one dealt
        assert len(g.scores) == 1 and g.scores[0][1] == 0
        assert g.hand_number() == 2 and g.dealer == 1 and g.melds == []
    else:  # floating: the turn ends with no discard and the hand goes on
        assert g.floating[1] and not g.out[1] and g.hands[1] == []
        assert g.scores == [] and phase_of(g) is Phase.DRAW and g.to_act() == (2,)


# ================================================================ scoring ======================
# seat 1 goes down with every dealt card and goes out by discarding the card it drew (8C);
# seats 0 and 2 are left with these cards, cut to the deal size
LEFT0 = "AS JK 2H 9C 10S JH QD 3D 5S KD 6H 4C"
LEFT2 = "AH 2D 8S KC 3H 4S 5D 6C 9H 10D 7D JK"
# scores of hand 1, worked out from the card points of docs/rules.md (Scoring); house plays
# its final turns first (row "after someone goes out")
LEFT_OVER: dict[str, tuple[list[int], bool]] = {
    # AS 25 JK 50 2H 5 9C 5 10S 10 JH 10 QD 10 | AH 25 2D 5 8S 5 KC 10 3H 5 4S 5 5D 5
    "hoyle": ([115, 0, 60], False),
    # AS 15 JK 15 2H 2 9C 9 10S 10 JH 10 QD 10 3D 3 5S 5 KD 10 6H 6
    # | AH 15 2D 2 8S 8 KC 10 3H 3 4S 4 5D 5 6C 6 9H 9 10D 10 7D 7
    "classic": ([95, 0, 79], False),
    # AS 15 JK 20 2H 5 9C 5 10S 10 JH 10 QD 10 3D 5 5S 5 KD 10
    # | AH 15 2D 5 8S 5 KC 10 3H 5 4S 5 5D 5 6C 5 9H 5 10D 10
    "arena": ([95, 0, 70], False),
    "standard": ([95, 0, 70], False),
    # AS 20 JK 50 2H 20 9C 5 10S 10 JH 10 QD 10 3D 5 5S 5
    # | AH 20 2D 20 8S 5 KC 10 3H 5 4S 5 5D 5 6C 5 9H 5
    "house": ([135, 0, 80], True),
}


@pytest.mark.parametrize(("preset", "expected"), LEFT_OVER.items())
def test_points_of_the_cards_left_over_and_final_turns(preset: str,
                                                      expected: tuple[list[int], bool]) -> None:
    row, final_turns = expected
    seat1 = dealt(preset, 1, SEVENS_AND_KINGS)
    g = three_seats(preset, LEFT0, SEVENS_AND_KINGS, LEFT2, upcard="AC", stock="8C 8D 8H")
    draw_and_all_pass(g, 1)  # 8C
    go_down(g, 1, *(" ".join(m) for m in by_rank(seat1)))
    act(g, player=1, type="discard", card="8C")
    if final_turns:  # seats 2 and 0 each play one more turn before the hand is scored
        assert g.scores == [] and g.to_act() == (2,)
        draw_and_all_pass(g, 2)  # seat 0 passes on 8C; seat 2 draws 8D
        act(g, player=2, type="discard", card="8D")
        act(g, player=0, type="draw")  # nobody may buy: seat 1 is out, seat 2 threw 8D
        act(g, player=0, type="discard", card="8H")
    assert g.scores == [row] and g.totals == row
    assert g.hand_number() == 2  # the next hand is dealt


# "After the last hand the lowest total wins; tied players share the win." A one-hand game that
# the turn limit ends after seat 1's turn: seats 0 and 2 hold the same ranks
TIE_WINNERS = {p: (0, 2) for p in PRESETS}
TIE0 = "3S 4H 5D 6C 8S 9H 10D JC QS 3H 4D"
TIE1 = "AS AH AD AC JK JK KS KH KD KC QH"
TIE2 = "3D 4C 5S 6H 8D 9C 10S JH QD 3C 4S"


@pytest.mark.parametrize(("preset", "winners"), TIE_WINNERS.items())
def test_tied_players_share_the_win(preset: str, winners: tuple[int, ...]) -> None:
    g = three_seats(preset, TIE0, TIE1, TIE2, upcard="8C", stock="QC",
                    overrides={"hands": [1], "turn_limit": 1})
    draw_and_all_pass(g, 1)  # QC
    act(g, player=1, type="discard", card="QC")
    assert g.over and g.out == [False, False, False]
    (row,) = g.scores
    assert row[0] == row[2] < row[1]
    assert g.winners == winners


# ================================================================ playable discards ============
# seat 1 goes down with sevens and kings, seat 2 with fives and nines; seat 0 never goes down
PD0 = "3S 4H 6C 8S 10D JC QS 3H 4D 6D JD QC"
PD1 = "7S 7H 7D KS KH KD 6S 8H 10C JS QH AD"
PD2 = "5S 5H 5D 9S 9H 9D 3D 4C 6H 8D 10S AS"

# row "playable discard" and "discarder's own melds count as fits": the seats asked, in order,
# (None: no window) when
#   A: seat 2, not down, throws 7C, which fits seat 1's sevens;
#   B: seat 1, down, throws 5C, which fits seat 2's fives;
#   C: seat 1, down, throws 7C, which fits only its own sevens
WINDOWS: dict[str, tuple[tuple[int, ...] | None, ...]] = {
    "hoyle": (None, (2, 0), None),  # give_cards: discarder down, others' melds only
    "classic": (None, None, None),  # none
    "arena": ((1,), (2,), (2,)),  # bonus: always; only players who are down are asked
    "standard": ((1,), (2, 0), (2, 0)),  # bonus when not down, take_back when down
    "house": (None, (2, 0), None),  # points: discarder down, others' melds only
}


def two_down(preset: str, card: str) -> Game:
    """Seats 1 and 2 down; seat 1 has drawn ``card`` and throws it."""
    g = three_seats(preset, PD0, PD1, PD2, upcard="AC", stock=f"JH 8C 10H {card} 9C")
    draw_and_all_pass(g, 1)  # JH
    go_down(g, 1, "7S 7H 7D", "KS KH KD")
    act(g, player=1, type="discard", card="JH")
    draw_and_all_pass(g, 2)  # 8C
    go_down(g, 2, "5S 5H 5D", "9S 9H 9D")
    act(g, player=2, type="discard", card="8C")
    draw_and_all_pass(g, 0)  # 10H
    act(g, player=0, type="discard", card="10H")
    draw_and_all_pass(g, 1)  # card
    act(g, player=1, type="discard", card=card)
    return g


def asked(g: Game) -> tuple[int, ...] | None:
    if phase_of(g) is Phase.CALL:
        seats: tuple[int, ...] = g.view_for(0).asked
        return seats
    assert phase_of(g) is Phase.DRAW  # no window: the next player is to draw
    return None


@pytest.mark.parametrize(("preset", "windows"), WINDOWS.items())
def test_which_discards_open_a_playable_discard_window(
        preset: str, windows: tuple[tuple[int, ...] | None, ...]) -> None:
    # A: the discarder is not down
    g = three_seats(preset, PD0, PD1, PD2, upcard="AC", stock="JH 7C")
    draw_and_all_pass(g, 1)  # JH
    go_down(g, 1, "7S 7H 7D", "KS KH KD")
    act(g, player=1, type="discard", card="JH")
    draw_and_all_pass(g, 2)  # 7C
    act(g, player=2, type="discard", card="7C")
    assert asked(g) == windows[0]
    # B and C: the discarder is down, the card fits another player's meld, or its own only
    assert asked(two_down(preset, "5C")) == windows[1]
    assert asked(two_down(preset, "7C")) == windows[2]


# what seat 2's call does in case B (seat 1, down, threw 5C onto the pile 10H)
CALLS = {"hoyle": "give_cards", "arena": "bonus", "standard": "take_back", "house": "points"}


@pytest.mark.parametrize(("preset", "mode"), CALLS.items())
def test_what_a_call_on_a_playable_discard_does(preset: str, mode: str) -> None:
    g = two_down(preset, "5C")
    one = Counter(g.hands[1])
    assert g.discard[-2:] == C("10H 5C")
    if mode == "give_cards":  # the caller lays the card off, then each other player with two
        # cards or more gives the discarder one: seat 2 holds one card, seat 0 gives
        refused(g, "say on which meld the card goes", player=2, type="call")
        act(g, player=2, type="call", meld=2)
        assert table(g)[2] == "5S 5H 5D 5C"
        assert phase_of(g) is Phase.GIVE and g.to_act() == (0,)
        act(g, player=0, type="give", card="3S")
        assert Counter(g.hands[1]) == one + Counter(C("3S"))
        assert g.discard[-1:] == C("10H") and g.to_act() == (2,) and not g.view_for(2).fresh
    elif mode == "bonus":  # the caller takes the card, may lay off one card, and discards
        act(g, player=2, type="call")
        assert phase_of(g) is Phase.BONUS and g.to_act() == (2,) and C("5C")[0] in g.hands[2]
        act(g, player=2, type="lay_off", card="5C", meld=2)
        refused(g, "a bonus caller lays off one card at most", player=2, type="lay_off",
                card="4C", meld=3)
        act(g, player=2, type="discard", card="4C")
        # the player who was about to move (seat 2) takes its turn
        assert phase_of(g) is Phase.DRAW and g.to_act() == (2,) and g.discard[-1:] == C("4C")
    elif mode == "take_back":  # the card goes back with one penalty card (9C), turn over
        act(g, player=2, type="call")
        assert Counter(g.hands[1]) == one + Counter(C("5C 9C"))
        assert g.discard[-1:] == C("10H") and g.to_act() == (2,) and not g.view_for(2).fresh
    else:  # points: 25 on the discarder's score for the hand; the card stays, still fresh
        act(g, player=2, type="call")
        assert g.view_for(0).penalties == (0, 25, 0) and Counter(g.hands[1]) == one
        assert g.discard[-1:] == C("5C") and g.to_act() == (2,) and g.view_for(2).fresh
    assert phase_of(g) is Phase.DRAW


# ================================================================ joker swaps and borrowing ====
# hand 2 (a set and a run): seat 1 goes down with a joker in each; seat 2 holds 6H (the card
# the run's joker stands for) and 8C, and draws a second 8C
SW0 = "3S 5S 6S 9D 10D JC QC KC AD 6D 9C"
SW1 = "8S 8H 8D JK 4H 5H JK 7H QD 3C 6C"
SW2 = "4S 4D 4C 10S JS QS KS 6H 8C 3D 5D"


def seat2_to_play(preset: str) -> Game:
    g = three_seats(preset, SW0, SW1, SW2, upcard="AC", stock="JD 8C", contract_no=2)
    draw_and_all_pass(g, 1)  # JD
    go_down(g, 1, "8S 8H 8D JK", "4H 5H JK 7H")
    act(g, player=1, type="discard", card="JD")
    draw_and_all_pass(g, 2)  # 8C
    return g


def seat2_down(preset: str) -> Game:
    g = seat2_to_play(preset)
    go_down(g, 2, "4S 4D 4C", "10S JS QS KS")
    return g


NO_SWAPS = "these rules have no joker swaps"
RUNS_ONLY = "in these rules a joker can only be taken from a run"
MUST_BE_DOWN = "you must be down to swap a joker"
MUST_PLAY = "play the JK you took from the table first"
NO_BORROW = "these rules have no borrowing from the table"

# row "joker swap": (from a set, from a run, before going down, then discarding with the joker
# still in hand); None = allowed
SWAPS: dict[str, tuple[str | None, str | None, str | None, str | None]] = {
    "hoyle": (NO_SWAPS, NO_SWAPS, NO_SWAPS, None),
    "classic": (RUNS_ONLY, None, MUST_BE_DOWN, MUST_PLAY),
    "arena": (None, None, None, None),
    "standard": (RUNS_ONLY, None, MUST_BE_DOWN, MUST_PLAY),
    "house": (None, None, MUST_BE_DOWN, MUST_PLAY),
}


@pytest.mark.parametrize(("preset", "outcomes"), SWAPS.items())
def test_joker_swaps(preset: str, outcomes: tuple[str | None, ...]) -> None:
    from_set, from_run, before_down, discard_holding = outcomes
    # from a set: any eight replaces the set's joker
    g = seat2_down(preset)
    if from_set is None:
        act(g, player=2, type="swap_joker", card="8C", meld=0)
        assert table(g)[0] == "8S 8H 8D 8C" and C("JK")[0] in g.hands[2]
    else:
        refused(g, from_set, player=2, type="swap_joker", card="8C", meld=0)
    # from a run: only the card the joker stands for (6H)
    g = seat2_down(preset)
    if from_run is None:
        act(g, player=2, type="swap_joker", card="6H", meld=1)
        assert table(g)[1] == "4H 5H 6H 7H" and C("JK")[0] in g.hands[2]
        # the joker must go back on the table before the discard, or may be kept
        if discard_holding is None:
            act(g, player=2, type="discard", card="8C")
            assert C("JK")[0] in g.hands[2] and g.discard[-1:] == C("8C")
        else:
            refused(g, discard_holding, player=2, type="discard", card="8C")
            act(g, player=2, type="lay_off", card="JK", meld=2)  # onto seat 2's fours
            act(g, player=2, type="discard", card="8C")
            assert table(g)[2] == "4S 4D 4C JK" and C("JK")[0] not in g.hands[2]
    else:
        refused(g, from_run, player=2, type="swap_joker", card="6H", meld=1)
        assert not any(a.type == "swap_joker" for a in g.legal_actions(2))
    # before going down: arena allows one swap as the start of the go-down, which must use it
    g = seat2_to_play(preset)
    if before_down is None:
        act(g, player=2, type="swap_joker", card="6H", meld=1)
        refused(g, "after swapping a joker to go down, go down next",
                player=2, type="discard", card="8C")
        go_down(g, 2, "4S 4D 4C JK", "10S JS QS KS")
        assert table(g)[1:] == ["4H 5H 6H 7H", "4S 4D 4C JK", "10S JS QS KS"]
    else:
        refused(g, before_down, player=2, type="swap_joker", card="6H", meld=1)


# row "lay-offs": borrowing (house)
BORROW: dict[str, str | None] = {p: NO_BORROW for p in PRESETS}
BORROW["house"] = None


@pytest.mark.parametrize(("preset", "refusal"), BORROW.items())
def test_borrowing_a_card_from_the_table(preset: str, refusal: str | None) -> None:
    g = seat2_down(preset)
    borrow: dict[str, Any] = {"player": 2, "type": "borrow", "meld": 0, "card": "8S",
                              "new_meld": ["8S", "8C", "8C"]}
    if refusal is None:  # the set keeps three cards, one of them natural
        act(g, **borrow)
        assert table(g) == ["8H 8D JK", "4H 5H JK 7H", "4S 4D 4C", "10S JS QS KS", "8S 8C 8C"]
        assert g.melds[4].owner == 2 and holds(g, 2, "6H")
    else:
        refused(g, refusal, **borrow)
