"""Scenario tests on stacked decks, one (or a few) per rule knob of docs/rules.md (Knobs).

Each test takes a preset, switches one knob with ``overrides`` and plays a short stacked position
both ways, showing the play differ as docs/rules.md says. Expected hands, tables and scores are
worked out by hand from docs/rules.md (the arithmetic is in the comments), never copied from
the engine.

Steps are written compactly (see ``step``): ``"1 draw"``, ``"2 pass"``, ``"1 buy 3"``,
``"1 down 7H 7S 7D | 9D 9C 9S"``, ``"1 lay JK 1 low"``, ``"1 swap 6C 1"``, ``"0 call 0"``,
``"2 borrow 0 7C | 5C 6C 7C"``, ``"1 discard KD"``. Seats 0..n-1; the dealer is seat 0, so seat 1
plays first.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import C, hand_of, stacked_game

from liverpool.actions import Action
from liverpool.cards import JOKER, card_str, parse_cards, sorted_cards
from liverpool.engine import Game, IllegalActionError, Phase, stacked_deck
from liverpool.record import game_record
from liverpool.rules import Contract, RuleSet

# ---- helpers ---------------------------------------------------------------------------------

_ALIAS = {"take": "take_discard", "down": "go_down", "lay": "lay_off", "swap": "swap_joker"}


def step(text: str) -> Action:
    """One action from the compact step text (see the module docstring)."""
    words = text.split()
    kind = _ALIAS.get(words[1], words[1])
    args = words[2:]
    obj: dict[str, Any] = {"player": int(words[0]), "type": kind}
    if kind == "go_down":
        obj["melds"] = [m.split() for m in " ".join(args).split("|")]
    elif kind == "borrow":
        head, new = " ".join(args).split("|")
        meld, card = head.split()
        obj.update(meld=int(meld), card=card, new_meld=new.split())
    elif kind in ("discard", "give"):
        obj["card"] = args[0]
    elif kind in ("lay_off", "swap_joker"):
        obj["card"], obj["meld"] = args[0], int(args[1])
        if len(args) > 2:
            obj["end" if kind == "lay_off" else "wild"] = args[2]
    elif kind == "buy" and args:
        obj["depth"] = int(args[0])
    elif kind == "call" and args:
        obj["meld"] = int(args[0])
        if len(args) > 1:
            obj["end"] = args[1]
    elif kind == "cut":
        obj["count"] = int(args[0])
    return Action.from_json(obj)


def do(g: Game, *steps: str) -> None:
    for s in steps:
        g.apply(step(s))


def illegal(g: Game, text: str, *words: str) -> str:
    """Assert the step is refused, leaves the state unchanged, and the reason has ``words``."""
    before = g.snapshot()
    with pytest.raises(IllegalActionError) as info:
        g.apply(step(text))
    assert g.snapshot() == before
    reason = str(info.value).lower()
    for w in words:
        assert w.lower() in reason, reason
    return reason


def srt(text: str, deuces: bool = False) -> list[str]:
    """Cards as ``hand_of`` lists them (suit S H D C, rank A..K, wilds last)."""
    return [card_str(c) for c in sorted_cards(parse_cards(text), deuces)]


def phase(g: Game) -> Phase:
    """The decision point (a call, so that type checkers do not narrow it between steps)."""
    return g.phase


def table(g: Game) -> list[str]:
    return [str(m) for m in g.melds]


def row(g: Game, i: int = -1) -> list[int]:
    return list(g.scores[i])


# A 3-player standard position used by several tests (contract 1: two sets, 10 cards each).
# Seat 1 can go down with 7s and 9s; seats 2 and 0 hold cards that fit nothing on the table.
S1 = "7H 7S 7D 9D 9C 9S 7C 4C 6D KD"
S2 = "AS 3S 5S 6H 8H 10S JH QH KS 4D"
S0 = "AH 3H 4H 5H 6S 8S 10H JS QS 2C"


# hands whose points are easy to add up (standard points), for scoring tests
_PTS_SEAT0 = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H"  # 15 + 8 x 5 + 10 = 65
_PTS_SEAT1 = "JS QS KS JK 3D 4D 5D 6D 7D 8D"  # 30 + 20 + 6 x 5 = 80
_PTS_SEAT2 = "AC AD 3C 4C 5C 6C 7C 8C 9C 10C"  # 30 + 7 x 5 + 10 = 75


def std3(overrides: dict[str, Any] | None = None, preset: str = "standard",
         hands: tuple[str, str, str] = (S0, S1, S2), stock: str = "QC 5D 8D 3C 4S") -> Game:
    return stacked_game(preset, list(hands), upcard="KC", stock=stock, overrides=overrides)


def first_turn_down(g: Game) -> None:
    """Seat 1 draws QC (both others pass on the upcard KC) and goes down with 7s and 9s."""
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S")


# ---- decks, jokers, deuces, deal sizes -------------------------------------------------------

def test_decks_follow_the_player_count_and_the_override() -> None:
    std = RuleSet.preset("standard")
    # standard: 2 decks up to 5 players, 3 for 6-8; a deck is 52 cards + 2 jokers
    assert Game(std, 5).card_total() == 2 * 54
    assert Game(std, 6).card_total() == 3 * 54
    hands = ["AH 3H 4H 5H 6S 8S 10H JS QS 2C", "7H 7H 7H 9D 9C 9S 4C 6D KD 8C", S2]
    with pytest.raises(ValueError, match="7H"):  # two decks hold only two 7H
        stacked_game("standard", hands, upcard="KC", stock="QC")
    g = stacked_game("standard", hands, upcard="KC", stock="QC", overrides={"decks": 3})
    assert g.card_total() == 3 * 54
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7H 7H | 9D 9C 9S")
    assert table(g) == ["7H 7H 7H", "9S 9D 9C"]  # sets listed S H D C


def test_jokers_per_deck() -> None:
    assert Game(RuleSet.preset("standard"), 3).pack.count(JOKER) == 4  # 2 decks x 2 jokers
    g0 = Game(RuleSet.preset("standard", {"jokers_per_deck": 0}), 3)
    assert JOKER not in g0.pack and g0.card_total() == 104
    hands = [S0, "7H 7S JK JK JK 9D 9C JK JK 4C", S2]  # five jokers
    with pytest.raises(ValueError, match="JK"):
        stacked_game("standard", hands, upcard="KC", stock="QC")
    g = stacked_game("standard", hands, upcard="KC", stock="QC",
                     overrides={"jokers_per_deck": 3})  # 2 x 3 = 6 jokers
    assert g.card_total() == 2 * 55
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S JK | 9D 9C JK")
    assert hand_of(g, 1) == srt("4C QC JK JK JK")


def test_deuces_wild() -> None:
    hands = [S0, "7H 7S 2C 9D 9C JK 4S 6D 8C KD", S2]
    g = stacked_game("standard", hands, upcard="KC", stock="QC")
    do(g, "1 draw", "2 pass", "0 pass")
    illegal(g, "1 down 7H 7S 2C | 9D 9C JK", "7H 7S 2C")  # a 2 is a plain card
    g = stacked_game("standard", hands, upcard="KC", stock="QC", overrides={"deuces_wild": True})
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 2C | 9D 9C JK")
    assert table(g) == ["7S 7H 2C", "9D 9C JK"]  # sets listed S H D C, wilds last
    # the 2 is a wild now: it lays off on any set, like a joker
    g2 = stacked_game("standard", [S0, "7H 7S 7D 9D 9C 9S 2H 4S 6D KD", S2], upcard="KC",
                      stock="QC", overrides={"deuces_wild": True})
    first_turn_down(g2)
    do(g2, "1 lay 2H 1")
    assert table(g2)[1] == "9S 9D 9C 2H"


def test_deal_sizes_per_hand() -> None:
    over = {"deal_sizes": [8, 9, 10, 10, 10, 10, 10], "turn_limit": 1}
    hands = ["AH 3H 4H 5H 6S 8S 10H JS", "7H 7S 7D 9D 9C 9S 4C KD", "AS 3S 5S 6H 8H 10S JH QH"]
    g = stacked_game("standard", hands, upcard="KC", stock="QC", overrides=over)
    assert [len(h) for h in g.hands] == [8, 8, 8]
    assert len(g.stock) == 108 - 3 * 8 - 1
    do(g, "1 draw", "2 pass", "0 pass", "1 discard QC")  # turn_limit 1 ends hand 1
    assert g.hand_number() == 2
    assert [len(h) for h in g.hands] == [9, 9, 9]
    assert len(g.stock) == 108 - 3 * 9 - 1
    # default standard deals 10 every hand
    assert [len(h) for h in std3().hands] == [10, 10, 10]


# ---- contracts, sizes, naturals --------------------------------------------------------------

def test_contract_exact_sizes_from_override() -> None:
    hand = "7H 7S 7D 7C 4H 5H 6H 7H 8H 9H"
    sized = {"contracts": [{"sets": 1, "runs": 1, "set_size": 3, "run_size": 5}],
             "deal_sizes": [10]}
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC", overrides=sized)
    do(g, "1 draw", "2 pass", "0 pass")
    illegal(g, "1 down 7H 7S 7D 7C | 4H 5H 6H 7H 8H", "contract")  # a set of 4, not 3
    illegal(g, "1 down 7H 7S 7D | 4H 5H 6H 7H 8H 9H", "contract")  # a run of 6, not 5
    illegal(g, "1 down 7H 7S 7D | 4H 5H 6H 7H", "contract")
    do(g, "1 down 7H 7S 7D | 4H 5H 6H 7H 8H")
    assert hand_of(g, 1) == srt("7C 9H QC")
    # without exact sizes the longer melds meet the same contract
    free = {"contracts": [{"sets": 1, "runs": 1}], "deal_sizes": [10]}
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC", overrides=free)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D 7C | 4H 5H 6H 7H 8H 9H")
    assert hand_of(g, 1) == srt("QC")


def test_hoyle_hand_seven_sets_of_exactly_three_and_run_of_exactly_seven() -> None:
    # hoyle contract 7 deals 12: with the draw, 13 cards = 3 + 3 + 7, melded all at once
    seat1 = "5S 5H 5C 9C 9S 9H 3D 4D 5D 6D 7D 8D"
    seat0 = "AS 2S 3S 4S 6S 7S 8S 10S JS QS KS JK"
    g = stacked_game("hoyle", [seat0, seat1], upcard="KC", stock="9D",
                     overrides={"hands": [7]}, contract_no=7)
    assert [len(h) for h in g.hands] == [12, 12]
    do(g, "1 draw", "0 pass")
    illegal(g, "1 down 5S 5H 5C | 9C 9S 9H 9D | 3D 4D 5D 6D 7D 8D")  # a set of 4
    do(g, "1 down 5S 5H 5C | 9C 9S 9H | 3D 4D 5D 6D 7D 8D 9D")
    # out at once; hoyle points A 25, JK 50, 2-9 5, 10-K 10:
    # seat 0: AS 25 + 2S..8S (6 cards) 30 + 10S..KS 40 + JK 50 = 145
    assert phase(g) is Phase.OVER
    assert g.scores == [[145, 0]] and g.winners == (1,)


def test_min_run() -> None:
    hand = "7H 7S 7D 4C 5C 6C 9H JD 3S KD"  # contract 2: a set and a run
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"hands": [2]}, contract_no=2)
    do(g, "1 draw", "2 pass", "0 pass")
    illegal(g, "1 down 7H 7S 7D | 4C 5C 6C", "4C 5C 6C")  # a run needs 4 cards
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"hands": [2], "min_run": 3}, contract_no=2)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 4C 5C 6C")
    assert table(g) == ["7S 7H 7D", "4C 5C 6C"]


def test_min_set() -> None:
    hand = "7H 7S 7D 7C 9D 9C 9S 9H 3S KD"
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC")
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S")  # sets of 3 do
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"min_set": 4})
    do(g, "1 draw", "2 pass", "0 pass")
    illegal(g, "1 down 7H 7S 7D | 9D 9C 9S")
    do(g, "1 down 7H 7S 7D 7C | 9D 9C 9S 9H")
    assert hand_of(g, 1) == srt("3S KD QC")


@pytest.mark.parametrize(("over", "ok"), [
    ({}, True),  # standard: a set needs 2 naturals, whatever its size
    ({"naturals": None}, False),  # silent sources: naturals must outnumber wilds (2 vs 2)
    ({"naturals": [3, 3]}, False),
])
def test_naturals_when_first_laid_down(over: dict[str, Any], ok: bool) -> None:
    hand = "7H 7S JK JK 9D 9C 9S 4S 6D 8C"
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC", overrides=over)
    do(g, "1 draw", "2 pass", "0 pass")
    if ok:
        do(g, "1 down 7H 7S JK JK | 9D 9C 9S")
        assert table(g)[0] == "7S 7H JK JK"
    else:
        illegal(g, "1 down 7H 7S JK JK | 9D 9C 9S", "natural")


def test_naturals_bind_only_the_first_laying_down() -> None:
    # naturals null: 7H 7S JK (2 naturals > 1 wild) goes down; a second joker then lays off
    hand = "7H 7S JK JK 9D 9C 9S 4S 6D 8C"
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"naturals": None})
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S JK | 9D 9C 9S", "1 lay JK 0")
    assert table(g)[0] == "7S 7H JK JK"


def test_run_naturals() -> None:
    # contract 3 (two runs). standard asks 3 naturals in a run; [2, 2] asks only 2
    hand = "4C 5C JK JK 8D 9D 10D JD 3S KH"
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"hands": [3]}, contract_no=3)
    do(g, "1 draw", "2 pass", "0 pass")
    illegal(g, "1 down 4C 5C JK JK | 8D 9D 10D JD", "natural")
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"hands": [3], "naturals": [2, 2]}, contract_no=3)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 4C 5C JK JK | 8D 9D 10D JD")
    assert table(g) == ["4C 5C JK JK", "8D 9D 10D JD"]


# ---- go-down and lay-off knobs ---------------------------------------------------------------

# arena contract 7 (three runs) deals 12: with the draw, 13 cards
_A7_SEAT1 = "3H 4H 5H 6H 3D 4D 5D 6D 9C 10C JC QC"
_A7_SEAT0 = "AS 2S 4S 6S 8S 10S JS QS KS 7D 8D 9D"  # arena: 15 + 4x5 + 4x10 + 3x5 = 90


def _arena7(over: dict[str, Any]) -> Game:
    g = stacked_game("arena", [_A7_SEAT0, _A7_SEAT1], upcard="KD", stock="KC",
                     overrides={"hands": [7], **over}, contract_no=7)
    do(g, "1 draw", "0 pass")  # the dealer may buy the upcard; passes
    return g


def test_final_all_out_off_keeps_a_card_to_discard() -> None:
    g = _arena7({})
    illegal(g, "1 down 3H 4H 5H 6H | 3D 4D 5D 6D | 9C 10C JC QC KC")  # nothing left to discard
    do(g, "1 down 3H 4H 5H 6H | 3D 4D 5D 6D | 9C 10C JC QC")
    # KC fits the clubs run, but a discard that goes out opens no window
    do(g, "1 discard KC")
    assert phase(g) is Phase.OVER and g.scores == [[90, 0]]


def test_final_all_out_on_melds_every_card_without_discard() -> None:
    g = _arena7({"final_all_out": True})
    illegal(g, "1 down 3H 4H 5H 6H | 3D 4D 5D 6D | 9C 10C JC QC", "every card")
    do(g, "1 down 3H 4H 5H 6H | 3D 4D 5D 6D | 9C 10C JC QC KC")
    assert phase(g) is Phase.OVER and g.scores == [[90, 0]]
    assert [card_str(c) for c in g.discard] == ["KD"]  # no discard was made


def _standard7(over: dict[str, Any]) -> Game:
    # standard hand 7 (three runs) deals 10: seat 2 buys (upcard JC + penalty QC) and draws KC
    seat2 = "3H 4H 5H 6H 3D 4D 5D 6D 9C 10C"
    g = stacked_game("standard", [_PTS_SEAT0, _PTS_SEAT1, seat2], upcard="JC",
                     stock="QC 5S KC", overrides={"hands": [7], **over}, contract_no=7)
    do(g, "1 draw", "2 buy", "1 discard 5S", "2 draw", "0 pass")
    assert len(g.hands[2]) == 13
    return g


def test_final_all_out_goes_out_whatever_going_out_says() -> None:
    g = _standard7({})  # standard: float, but contract 7 goes out at once
    do(g, "2 down 3H 4H 5H 6H | 3D 4D 5D 6D | 9C 10C JC QC KC")
    # seat 0: 15 + 8 x 5 + 10 = 65; seat 1: 10 x 3 + 20 + 6 x 5 = 80
    assert phase(g) is Phase.OVER and g.scores == [[65, 80, 0]]


def test_final_all_out_off_lets_standard_float() -> None:
    g = _standard7({"final_all_out": False})
    do(g, "2 down 3H 4H 5H 6H | 3D 4D 5D 6D | 9C 10C JC QC KC")
    assert g.floating[2] and not g.scores and g.turn == 0


def test_extra_melds_at_go_down() -> None:
    hand = "7H 7S 7D 9D 9C 9S KH KS KD 4C"
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC")
    do(g, "1 draw", "2 pass", "0 pass")
    illegal(g, "1 down 7H 7S 7D | 9D 9C 9S | KH KS KD", "contract")
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"extra_melds_at_go_down": True})
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S | KH KS KD")
    assert len(g.melds) == 3 and hand_of(g, 1) == srt("4C QC")


def test_extra_melds_go_down_is_listed() -> None:
    # iter_legal lists every legal action: the three-set go-down is one of them
    hand = "7H 7S 7D 9D 9C 9S KH KS KD 4C"
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"extra_melds_at_go_down": True})
    do(g, "1 draw", "2 pass", "0 pass")
    assert g.is_legal(step("1 down 7H 7S 7D | 9D 9C 9S | KH KS KD"))
    sizes = {len(a.melds or ()) for a in g.iter_legal(1) if a.type == "go_down"}
    assert sizes == {2, 3}


def test_layoff_same_turn() -> None:
    g = std3()
    first_turn_down(g)
    do(g, "1 lay 7C 0")  # default: lay off in the turn you go down
    assert table(g)[0] == "7S 7H 7D 7C"

    g = std3({"layoff_same_turn": False})
    first_turn_down(g)
    illegal(g, "1 lay 7C 0", "turn you go down")
    do(g, "1 discard KD",
       "2 draw", "0 pass", "2 discard 5D",  # seat 2 drew 5D
       "0 draw", "1 pass", "0 discard 8D",  # seat 0 drew 8D
       "1 draw", "2 pass", "1 lay 7C 0")  # a later turn: allowed
    assert table(g)[0] == "7S 7H 7D 7C"


def test_layoff_needs_second_down() -> None:
    g = std3()
    first_turn_down(g)
    do(g, "1 lay 7C 0")  # default: one player down is enough
    seat2 = "8H 8S 8D 10D 10C 10S 7H 4D 6S JH"
    g = std3({"layoff_needs_second_down": True}, hands=(S0, S1, seat2))
    first_turn_down(g)
    illegal(g, "1 lay 7C 0", "two players")
    do(g, "1 discard KD", "2 draw", "0 pass", "2 down 8H 8S 8D | 10D 10C 10S")
    do(g, "2 lay 7H 0")  # two players down now: seat 2 lays off on seat 1's set
    assert table(g)[0] == "7S 7H 7H 7D"


def test_layoff_of_a_card_fitting_either_end_must_name_it() -> None:
    hand = "7H 7S 7D 4C 5C 6C 7C JK 9H KD"
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"hands": [2]}, contract_no=2)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 4C 5C 6C 7C")
    illegal(g, "1 lay JK 1", "either end")
    do(g, "1 lay JK 1 low")  # the joker stands for 3C
    assert table(g)[1] == "JK 4C 5C 6C 7C"


def test_run_never_turns_the_corner() -> None:
    hand = "JH QH KH AH 2H AD 2D 3D 4D 5S"  # contract 3: two runs
    g = stacked_game("standard", [S0, hand, S2], upcard="KC", stock="QC",
                     overrides={"hands": [3]}, contract_no=3)
    do(g, "1 draw", "2 pass", "0 pass")
    illegal(g, "1 down QH KH AH 2H | AD 2D 3D 4D")  # K-A-2
    do(g, "1 down JH QH KH AH | AD 2D 3D 4D")  # ace high, ace low
    assert table(g) == ["JH QH KH AH", "AD 2D 3D 4D"]
    illegal(g, "1 lay 2H 0")  # nothing goes above a high ace


# ---- taking the discard and buying -----------------------------------------------------------

def _classic3(over: dict[str, Any]) -> Game:
    # classic deals 11; seat 1 goes down with 7s and 9s in turn 1
    hands = ["AH 3H 4H 5H 6S 8S 10H JS QS 2C 3D", "7H 7S 7D 9D 9C 9S 4C 6D 8C KD JH",
             "AS 3S 5S 6H 8H 10S JH QH KS 4D 5C"]
    g = stacked_game("classic", hands, upcard="KC", stock="QC 5D 8D 3C", overrides=over)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S", "1 discard KD",
       "2 draw", "0 pass", "2 discard 5D")  # seat 1 discarded: only seat 0 may buy
    return g


def test_down_may_take_discard_off_classic() -> None:
    g = _classic3({})
    do(g, "0 draw")  # seat 1 is down and seat 2 discarded: no one may buy
    assert phase(g) is Phase.PLAY and g.to_act() == (0,) and "8D" in hand_of(g, 0)
    do(g, "0 discard 8D")
    illegal(g, "1 take", "down")


def test_down_may_take_discard_on() -> None:
    g = _classic3({"down_may_take_discard": True})
    do(g, "0 draw")
    assert phase(g) is Phase.BUY and g.to_act() == (1,)  # the down player is asked
    do(g, "1 pass", "0 discard 8D", "1 take")
    assert "8D" in hand_of(g, 1)


def test_buying_off() -> None:
    g = std3()
    do(g, "1 draw")
    assert phase(g) is Phase.BUY and g.to_act() == (2,)
    g = std3({"buying": False})
    do(g, "1 draw")
    assert phase(g) is Phase.PLAY and "QC" in hand_of(g, 1)
    illegal(g, "2 buy")


@pytest.mark.parametrize(("penalty", "buyer_gets", "drawer_gets"), [
    (1, "KC QC", "5D"),  # the upcard, then one penalty card from the stock top
    (2, "KC QC 5D", "8D"),
])
def test_penalty_cards(penalty: int, buyer_gets: str, drawer_gets: str) -> None:
    g = std3({"penalty_cards": penalty})
    do(g, "1 draw", "2 buy")
    assert hand_of(g, 2) == srt(f"{S2} {buyer_gets}")
    assert hand_of(g, 1) == srt(f"{S1} {drawer_gets}")  # the drawer's card comes after the buy
    assert len(g.hands[2]) == 10 + 1 + penalty and phase(g) is Phase.PLAY


def _buy_then_lap(over: dict[str, Any]) -> Game:
    # seat 2 buys the upcard; one lap later seat 2 could be asked again on seat 0's discard
    g = std3(over, stock="QC 5D 8D 3C 4S 6C")
    do(g, "1 draw", "2 buy", "1 discard 5D",  # seat 2 took KC + QC; seat 1 drew 5D
       "2 draw", "0 pass", "2 discard 8D",
       "0 draw", "1 pass", "0 discard 3C",
       "1 draw")
    return g


def test_max_buys_unlimited_by_default() -> None:
    g = _buy_then_lap({})
    assert phase(g) is Phase.BUY and g.to_act() == (2,)


def test_max_buys_one() -> None:
    g = _buy_then_lap({"max_buys": 1})
    # seat 2 used its one buy and seat 0 made the discard: no buy round
    assert phase(g) is Phase.PLAY and "4S" in hand_of(g, 1)


def test_buy_priority_seat() -> None:
    g = std3()
    do(g, "1 draw")
    assert g.to_act() == (2,)  # nearest to the drawer's left is asked first
    illegal(g, "0 buy", "not")
    do(g, "2 buy")  # seat 2 wins; seat 0 is never asked
    assert phase(g) is Phase.PLAY and "KC" in hand_of(g, 2)
    g = std3()
    do(g, "1 draw", "2 pass")
    assert g.to_act() == (0,)
    do(g, "0 buy")
    assert "KC" in hand_of(g, 0)


def test_buy_priority_first_call() -> None:
    g = std3({"buy_priority": "first_call"})
    do(g, "1 draw")
    assert phase(g) is Phase.BUY and set(g.to_act()) == {2, 0}
    do(g, "0 buy")  # the first to ask wins, wherever it sits
    assert phase(g) is Phase.PLAY and "KC" in hand_of(g, 0) and "KC" not in hand_of(g, 2)
    g = std3({"buy_priority": "first_call"})
    do(g, "1 draw", "0 pass")
    assert g.to_act() == (2,)
    do(g, "2 pass")
    assert phase(g) is Phase.PLAY and "QC" in hand_of(g, 1)


def _hoyle_pile(over: dict[str, Any]) -> Game:
    # hoyle contract 1 deals 7; the pile grows to KC 2C 4C, then seat 0 draws
    hands = ["3D 5D 7D 9D JD KD AC", "3S 5S 7S 9S JS KS AH", "3H 5H 7H 9H JH KH AD"]
    g = stacked_game("hoyle", hands, upcard="QC", stock="2C 4C 6C 8C 10C", overrides=over)
    do(g, "1 draw", "2 pass", "0 pass", "1 discard 2C",
       "2 draw", "0 pass", "2 discard 4C",
       "0 draw")
    assert g.to_act() == (1,)
    return g


def test_deep_pickup() -> None:
    g = _hoyle_pile({})
    illegal(g, "1 buy 4")  # the pile holds three cards
    do(g, "1 buy 3")  # QC and every card above it, then one penalty card
    assert hand_of(g, 1) == srt("3S 5S 7S 9S JS KS AH QC 2C 4C 6C")
    assert g.discard == [] and "8C" in hand_of(g, 0)


def test_deep_pickup_off() -> None:
    g = _hoyle_pile({"deep_pickup": False})
    illegal(g, "1 buy 3", "top")
    do(g, "1 buy")
    assert hand_of(g, 1) == srt("3S 5S 7S 9S JS KS AH 4C 6C")
    assert [card_str(c) for c in g.discard] == ["QC", "2C"]


def test_dealer_may_buy_the_opening_upcard() -> None:
    g = std3()
    do(g, "1 draw", "2 pass")
    assert g.to_act() == (0,)  # no discarder for the upcard: the dealer is asked too
    do(g, "0 buy")
    assert hand_of(g, 0) == srt(f"{S0} KC QC") and hand_of(g, 1) == srt(f"{S1} 5D")
    # two players: the dealer is the only buyer of the upcard
    g2 = stacked_game("arena", [S0, S1], upcard="KC", stock="QC 5D")
    do(g2, "1 draw")
    assert phase(g2) is Phase.BUY and g2.to_act() == (0,)


def test_every_decision_and_each_pass_is_an_action() -> None:
    g = std3()
    do(g, "1 draw", "2 pass", "0 pass", "1 discard QC", "2 draw", "0 pass")
    assert game_record(g)["actions"] == [
        {"player": 1, "type": "draw"}, {"player": 2, "type": "pass"},
        {"player": 0, "type": "pass"}, {"player": 1, "type": "discard", "card": "QC"},
        {"player": 2, "type": "draw"}, {"player": 0, "type": "pass"},
    ]


# one deck without jokers, 16 cards each to 3 players: 48 + upcard 10C + a stock of 3
_TINY = {"decks": 1, "jokers_per_deck": 0, "deal_sizes": [16],
         "contracts": [{"sets": 2, "runs": 0}]}
_TINY_HANDS = ["7D 8D 9D 10D JD QD KD AC 2C 3C 4C 5C 6C 7C 8C 9C",
               "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H",
               "4H 5H 6H 7H 8H 9H 10H JH QH KH AD 2D 3D 4D 5D 6D"]


def _tiny(over: dict[str, Any]) -> Game:
    g = stacked_game("standard", _TINY_HANDS, upcard="10C", stock="JC QC KC",
                     overrides={**_TINY, **over})
    assert len(g.stock) == 3
    do(g, "1 draw", "2 pass", "0 pass", "1 discard AS")  # stock 2; pile 10C AS
    do(g, "2 draw")  # stock 2 = penalty + draw: the buy is offered
    assert phase(g) is Phase.BUY and g.to_act() == (0,)
    do(g, "0 pass", "2 discard QC")  # stock 1; pile 10C AS QC
    do(g, "0 draw")
    return g


def test_buy_offered_when_a_renewal_covers_it() -> None:
    # stock 1 + one renewal (pile less the bought QC and the card left on top: 10C) = 2
    g = _tiny({})
    assert phase(g) is Phase.BUY and g.to_act() == (1,)
    do(g, "1 buy")  # QC + KC (the last stock card); seat 0's draw renews the stock
    assert "QC" in hand_of(g, 1) and "KC" in hand_of(g, 1)
    assert "10C" in hand_of(g, 0) and [card_str(c) for c in g.discard] == ["AS"]


def test_buy_not_offered_when_the_stock_is_too_low() -> None:
    g = _tiny({"stock_reshuffles": 0})  # no renewal: stock 1 < penalty 1 + draw 1
    assert phase(g) is Phase.PLAY and "KC" in hand_of(g, 0)


# ---- joker swaps -----------------------------------------------------------------------------

# contract 2 (a set and a run): seat 1 goes down with 7H 7S JK and 4C 5C JK 7C (JK = 6C)
_SWAP_SEAT1 = "7H 7S JK 4C 5C JK 7C 6C 7D 3S"


def _own_swap(over: dict[str, Any]) -> Game:
    g = stacked_game("standard", [S0, _SWAP_SEAT1, S2], upcard="KC", stock="KD",
                     overrides={"hands": [2], **over}, contract_no=2)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S JK | 4C 5C JK 7C")
    assert hand_of(g, 1) == srt("6C 7D 3S KD")
    return g


def test_joker_swap_runs() -> None:
    g = _own_swap({})  # standard: runs
    illegal(g, "1 swap 7D 0", "run")
    do(g, "1 swap 6C 1")  # one's own meld counts
    assert table(g)[1] == "4C 5C 6C 7C" and hand_of(g, 1) == srt("7D 3S KD JK")


def test_joker_swap_runs_and_sets() -> None:
    g = _own_swap({"joker_swap": "runs_and_sets"})
    do(g, "1 swap 7D 0")  # any card of the set's rank replaces its wild
    assert table(g)[0] == "7S 7H 7D" and hand_of(g, 1) == srt("6C 3S KD JK")


def test_joker_swap_none() -> None:
    g = _own_swap({"joker_swap": "none"})
    illegal(g, "1 swap 6C 1")
    illegal(g, "1 swap 7D 0")


def test_swapped_joker_must_be_played() -> None:
    g = _own_swap({})
    do(g, "1 swap 6C 1")
    illegal(g, "1 discard KD", "JK")
    do(g, "1 lay JK 0", "1 discard KD")  # played on the table this turn: the turn may end
    assert table(g)[0] == "7S 7H JK JK" and g.turn == 2


def test_swapped_joker_may_stay_in_hand() -> None:
    g = _own_swap({"swapped_joker_must_be_played": False})
    do(g, "1 swap 6C 1", "1 discard KD")
    assert "JK" in hand_of(g, 1) and g.turn == 2


# arena contract 2 deals 11; seat 1 goes down with a joker in its run (JK = 6C)
_A2_SEAT1 = "7H 7S JK 4C 5C JK 7C 3S 9H JD KD"
_A2_SEAT0 = "AH 3H 4H 5H 6S 8S 10H JS QS 2C 3D"


def _arena_table(over: dict[str, Any], seat2: str) -> Game:
    g = stacked_game("arena", [_A2_SEAT0, _A2_SEAT1, seat2], upcard="QH", stock="2D 4D 5D",
                     overrides={"hands": [2], **over}, contract_no=2)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S JK | 4C 5C JK 7C", "1 discard 2D",
       "2 draw", "0 pass")  # seat 2 (not down) drew 4D
    return g


def test_swap_needs_down() -> None:
    seat2 = "6C 8H 8S 9D 10D JD QD 3H 4S 5S KS"
    g = _arena_table({"swap_at_go_down": 0}, seat2)
    illegal(g, "2 swap 6C 1", "down")
    g = _arena_table({"swap_at_go_down": 0, "swap_needs_down": False}, seat2)
    do(g, "2 swap 6C 1", "2 discard 4D")  # arena: the joker may stay in hand
    assert table(g)[1] == "4C 5C 6C 7C" and "JK" in hand_of(g, 2) and not g.down[2]


def test_swap_before_down_then_go_down_with_the_joker_plays_it() -> None:
    # swap_needs_down off and the joker must be played: melding it in the go-down plays it
    seat2 = "6C 8H 8S 9D 10D JD QD 3H 4S 5S"
    g = stacked_game("standard", [S0, "7H 7S JK 4C 5C JK 7C 3S 9H KD", seat2], upcard="QH",
                     stock="JD 4D", overrides={"hands": [2], "swap_needs_down": False},
                     contract_no=2)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S JK | 4C 5C JK 7C", "1 discard JD",
       "2 draw", "0 pass", "2 swap 6C 1")
    illegal(g, "2 discard 4D", "JK")
    do(g, "2 down 8H 8S JK | 9D 10D JD QD")
    do(g, "2 discard 4D")
    assert g.turn == 0 and table(g)[2] == "8S 8H JK"


def test_swap_at_go_down() -> None:
    seat2 = "6C 7D 8H 8S 8D 9D 10D JD QD 3H 4S"
    g = _arena_table({}, seat2)  # arena: one swap while going down
    do(g, "2 swap 6C 1")
    illegal(g, "2 discard 4D", "go down")
    illegal(g, "2 swap 7D 0", "1 joker")  # a second swap
    illegal(g, "2 down 8H 8S 8D | 9D 10D JD QD", "JK")  # the swapped joker must be used
    do(g, "2 down 8H 8S JK | 9D 10D JD QD")
    assert g.down[2] and hand_of(g, 2) == srt("7D 8D 3H 4S 4D")
    g = _arena_table({"swap_at_go_down": 0}, seat2)
    illegal(g, "2 swap 6C 1", "down")


# ---- going out -------------------------------------------------------------------------------

# arena contract 1 (deal 10): seat 1 goes down with four 7s and four 9s, lays off 9D,
# discards KD, keeps 7S, and next turn draws 7H: two cards that both fit the 7s.
_GO_SEAT1 = "7H 7S 7D 7C 9D 9C 9S 9H 9D 7S"
_GO_SEAT2 = "AS 3S 4S 5S 6S 8S 10S JS QS KS"  # 15 + 5 x 5 + 4 x 10 = 80
_GO_SEAT0 = "AH AD 3H 4H 5H 6H 10H JH QH KH"  # 30 + 4 x 5 + 4 x 10 = 90


def _going_out(mode: str) -> Game:
    g = stacked_game("arena", [_GO_SEAT0, _GO_SEAT1, _GO_SEAT2], upcard="KC",
                     stock="KD 5D 6D 7H 4D 3D 9H 8D 10D KC", overrides={"going_out": mode})
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D 7C | 9D 9C 9S 9H", "1 lay 9D 1",
       "1 discard KD",
       "2 draw", "0 pass", "2 discard 5D",
       "0 draw", "1 pass", "0 discard 6D",
       "1 draw", "2 pass")
    assert hand_of(g, 1) == srt("7S 7H")
    return g


def test_going_out_discard() -> None:
    g = _going_out("discard")
    do(g, "1 lay 7S 0")
    illegal(g, "1 lay 7H 0")  # the last card must be discarded
    do(g, "1 discard 7H")  # goes out (no playable-discard window on a going-out discard)
    assert row(g, 0) == [90, 0, 80] and g.hand_number() == 2


def test_going_out_empty() -> None:
    g = _going_out("empty")
    do(g, "1 lay 7S 0", "1 lay 7H 0")  # emptying the hand goes out at once
    assert row(g, 0) == [90, 0, 80] and g.hand_number() == 2


def test_going_out_float() -> None:
    g = _going_out("float")
    do(g, "1 lay 7S 0", "1 lay 7H 0")  # no discard: seat 1 floats, the turn ends
    assert g.floating[1] and not g.scores and g.turn == 2 and phase(g) is Phase.DRAW
    do(g, "2 draw")  # the top card (6D) is not fresh: no buy round
    assert phase(g) is Phase.PLAY and "4D" in hand_of(g, 2)
    do(g, "2 discard 4D", "0 draw")  # the floater is never asked to buy
    assert phase(g) is Phase.PLAY
    do(g, "0 discard 3D")
    illegal(g, "1 take", "float")
    do(g, "1 draw", "2 pass")  # draws 9H, which fits the 9s
    illegal(g, "1 discard 9H", "lay it off")
    do(g, "1 lay 9H 1")  # floats on
    assert g.floating[1] and g.turn == 2
    do(g, "2 draw", "2 discard 8D", "0 draw", "0 discard 10D", "1 draw", "2 pass")
    do(g, "1 discard KC")  # KC fits nothing: discarded, seat 1 is out
    assert row(g, 0) == [90, 0, 80]


def test_no_discard_of_taken_card() -> None:
    seat1 = "KC 3S 4H 5D 6C 8S 9H 10D JC QS"
    g = stacked_game("standard", [S0, seat1, S2], upcard="KC", stock="QC")
    do(g, "1 take")
    illegal(g, "1 discard KC", "took")  # nor the identical KC that was already held
    do(g, "1 discard 3S")
    g = stacked_game("standard", [S0, seat1, S2], upcard="KC", stock="QC",
                     overrides={"no_discard_of_taken_card": False})
    do(g, "1 take", "1 discard KC")
    assert hand_of(g, 1) == srt(seat1)


# ---- the playable-discard window -------------------------------------------------------------

# 3 players, contract 1 (deal 10): seat 1 goes down with 7s and 9s in turn 1, seat 2 with 8s
# and 10s in turn 2; in turn 3 seat 0 discards 7C, which fits seat 1's set.
_PD_SEAT1 = "7H 7S 7D 9D 9C 9S 4C 6D 8C KD"
_PD_SEAT2 = "8H 8S 8D 10D 10C 10S 9H 6S JH QS"
_PD_SEAT0 = "7C 3H 4S 5C JC QC KS AH AS 3D"


def _two_down(preset: str, over: dict[str, Any]) -> Game:
    g = stacked_game(preset, [_PD_SEAT0, _PD_SEAT1, _PD_SEAT2], upcard="KC",
                     stock="2H 3C 4D 5S 6H", overrides=over)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S", "1 discard KD",
       "2 draw", "0 pass", "2 down 8H 8S 8D | 10D 10C 10S", "2 discard QS",
       "0 draw", "1 pass", "0 discard 7C")
    return g


def test_playable_discard_none() -> None:
    g = _two_down("arena", {"playable_discard": "none"})
    assert phase(g) is Phase.DRAW and g.turn == 1  # no window: the next turn starts
    do(g, "1 draw")
    assert g.to_act() == (2,)  # the ordinary buy round on 7C


def test_playable_discard_bonus() -> None:
    g = _two_down("arena", {})  # arena: bonus
    # asked: the down players other than the discarder, in seat order from the next player
    assert phase(g) is Phase.CALL and g.to_act() == (1,)
    do(g, "1 pass")
    assert g.to_act() == (2,)
    do(g, "2 call")
    assert phase(g) is Phase.BONUS and "7C" in hand_of(g, 2)
    illegal(g, "2 discard 7C", "7C")  # not the card taken
    do(g, "2 lay 7C 0")
    illegal(g, "2 lay 9H 1", "one card")  # one lay-off at most
    do(g, "2 discard 9H")  # fits the 9s, but a bonus discard opens no new window
    # play resumes with the interrupted player; the caller's discard is fresh, caller = discarder
    assert phase(g) is Phase.DRAW and g.turn == 1 and g.fresh
    do(g, "1 draw")
    assert g.to_act() == (0,)
    assert hand_of(g, 2) == srt("6S JH 3C")
    assert table(g)[0] == "7S 7H 7D 7C"


def test_playable_discard_take_back() -> None:
    seat1 = "7H 7S 7D 9D 9C 9S 4C 6D 8C 7C"
    seat2 = "7C 3S 5S 6H 8H 10S JH QH KS 4D"
    g = stacked_game("arena", [_PD_SEAT0.replace("7C", "2C"), seat1, seat2], upcard="KC",
                     stock="2H 3C 4D 5S", overrides={"playable_discard": "take_back"})
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S", "1 discard 7C")
    assert phase(g) is Phase.CALL and g.to_act() == (2,)  # every other seat, from the next
    do(g, "2 pass", "0 call")
    # the discarder takes 7C back plus one penalty card (3C); the turn ends without a discard
    assert hand_of(g, 1) == srt("4C 6D 8C 2H 7C 3C")
    assert [card_str(c) for c in g.discard] == ["KC"] and not g.fresh
    do(g, "2 draw")  # KC is not fresh: no buy round
    assert phase(g) is Phase.PLAY and "4D" in hand_of(g, 2)
    do(g, "2 discard 7C")  # seat 2 is not down: no take-back window
    assert phase(g) is Phase.DRAW and g.turn == 0


def test_playable_discard_standard_mixes_take_back_and_bonus() -> None:
    seat1 = "7H 7S 7D 9D 9C 9S 4C 6D 8C 7C"
    seat2 = "9H 3S 5S 6H 8H 10S JH QH KS 4D"
    g = stacked_game("standard", [_PD_SEAT0.replace("7C", "2C"), seat1, seat2], upcard="KC",
                     stock="2H 3C 5D 5S")
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S", "1 discard 7C")
    do(g, "2 call")  # seat 1 is down: take_back
    assert hand_of(g, 1) == srt("4C 6D 8C 2H 7C 3C") and g.turn == 2
    do(g, "2 draw", "2 discard 9H")  # seat 2 is not down: bonus, for the down seat 1
    assert phase(g) is Phase.CALL and g.to_act() == (1,)
    do(g, "1 call", "1 lay 9H 1", "1 discard 4C")
    assert g.turn == 0 and phase(g) is Phase.DRAW and table(g)[1] == "9S 9H 9D 9C"


# hoyle contract 1 deals 7; 4 players (dealer 0, play order 1 2 3 0): seat 1 goes down (7s, 9s)
# keeping one card; seat 2 goes down (8s, 10s) and discards 7C, which fits seat 1's set.
def _hoyle_give(over: dict[str, Any], seat2_discard: str = "7C") -> Game:
    hands = ["AS 3S 4S 5H 6H JH QH", "7H 7S 7D 9D 9C 9S KD", "8H 8S 8D 10D 10C 10S 7C",
             "AD 3D 4D 5D 6S JS QS"]
    g = stacked_game("hoyle", hands, upcard="KC", stock="4C 8C 3C", overrides=over)
    do(g, "1 draw", "2 pass", "3 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S", "1 discard KD",
       "2 draw", "3 pass", "0 pass", "2 down 8H 8S 8D | 10D 10C 10S")  # seat 2 drew 8C
    do(g, f"2 discard {seat2_discard}")
    return g


def test_playable_discard_give_cards() -> None:
    g = _hoyle_give({})
    assert phase(g) is Phase.CALL and g.to_act() == (3,)  # every other seat, from the next
    do(g, "3 pass")
    illegal(g, "0 call", "meld")  # the caller names the meld
    do(g, "0 call 0")
    assert table(g)[0] == "7S 7H 7D 7C" and [card_str(c) for c in g.discard] == ["KC", "KD"]
    # every seat but the discarder holding 2+ cards gives one, the caller too, in seat order
    # from the discarder's left: seat 3, then seat 0; seat 1 holds one card and gives nothing
    assert phase(g) is Phase.GIVE and g.to_act() == (3,)
    illegal(g, "0 give AS")
    do(g, "3 give AD")
    assert g.to_act() == (0,)
    do(g, "0 give AS")
    assert hand_of(g, 2) == srt("8C AD AS") and len(g.hands[0]) == 6 and len(g.hands[1]) == 1
    assert phase(g) is Phase.DRAW and g.turn == 3
    do(g, "3 draw")  # the top (KD) is not fresh: no buy round
    assert phase(g) is Phase.PLAY


def test_give_cards_call_names_the_end_where_needed() -> None:
    # hoyle contract 2 (deal 10): seat 2 discards a joker; it fits either end of seat 1's run
    hands = ["AS 3S 4H 5H 6H JH QH 2D 3D 4D", "4C 5C 6C 7C 9D 9C 9S KD QD JD",
             "8H 8S 8D 3S 4S 5S 6S JK 10H QH"]
    g = stacked_game("hoyle", hands, upcard="KC", stock="2H 8C", overrides={"hands": [2]},
                     contract_no=2)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 9D 9C 9S | 4C 5C 6C 7C", "1 discard KD",
       "2 draw", "0 pass", "2 down 8H 8S 8D | 3S 4S 5S 6S", "2 discard JK")
    assert phase(g) is Phase.CALL and g.to_act() == (0,)
    illegal(g, "0 call 1", "low or high")
    do(g, "0 call 1 low")
    assert table(g)[1] == "JK 4C 5C 6C 7C"
    assert phase(g) is Phase.GIVE and g.to_act() == (0,)  # seat 1 holds 2 cards: it gives next
    do(g, "0 give AS")
    assert g.to_act() == (1,)


def test_fits_own_melds_off_hoyle() -> None:
    g = _hoyle_give({}, seat2_discard="8C")  # 8C fits only seat 2's own 8s
    assert phase(g) is Phase.DRAW and g.turn == 3


def test_fits_own_melds_on() -> None:
    g = _hoyle_give({"fits_own_melds": True}, seat2_discard="8C")
    assert phase(g) is Phase.CALL and g.to_act() == (3,)


# house contract 1 deals 9; house points A 20, JK 50, 2 20, 3-9 5, 10-K 10
_H_SEAT1 = "7H 7S 7D 9D 9C 9S 4C 6D KD"
_H_SEAT2 = "8H 8S 8D 10D 10C 10S 7C 5H QS"
_H_SEAT0 = "AS AD 3S 4S 5S JS QD KS KH"  # 20 + 20 + 3 x 5 + 4 x 10 = 95


def _house_points(over: dict[str, Any]) -> Game:
    g = stacked_game("house", [_H_SEAT0, _H_SEAT1, _H_SEAT2], upcard="KC", stock="3H 3C 4D",
                     overrides={"turn_limit": 3, **over})
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S", "1 discard KD",
       "2 draw", "0 pass", "2 down 8H 8S 8D | 10D 10C 10S", "2 discard 7C")
    return g


@pytest.mark.parametrize(("over", "rummy"), [({}, 25), ({"rummy_points": 10}, 10)])
def test_playable_discard_points_and_rummy_points(over: dict[str, Any], rummy: int) -> None:
    g = _house_points(over)
    assert phase(g) is Phase.CALL and g.to_act() == (0,)
    do(g, "0 call")
    # the card stays on the pile, still fresh: seat 0's draw opens the buy round
    assert g.discard[-1] == C("7C")[0] and g.fresh and phase(g) is Phase.DRAW
    do(g, "0 draw")
    assert phase(g) is Phase.BUY and g.to_act() == (1,)
    do(g, "1 pass", "0 discard 4D")  # turn_limit 3 ends the hand
    # seat 1: 4C 6D 3H = 15; seat 2: 5H QS 3C = 20, plus the rummy points
    assert row(g, 0) == [95, 15, 20 + rummy]


def test_playable_discard_points_off() -> None:
    g = _house_points({"playable_discard": "none"})
    assert phase(g) is Phase.DRAW and g.turn == 0
    do(g, "0 draw", "1 pass", "0 discard 4D")
    assert row(g, 0) == [95, 15, 20]


# ---- the stock, turn limit, final turns ------------------------------------------------------

# arena, 2 players, one deck without jokers, 25 cards each: 50 + upcard KH leaves a stock of KC
_RESHUFFLE = {"decks": 1, "jokers_per_deck": 0, "deal_sizes": [25],
              "contracts": [{"sets": 2, "runs": 0}], "buying": False}
_R_SEAT1 = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH"
_R_SEAT0 = "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC"


@pytest.mark.parametrize(("renewals", "expected_row", "winners"), [
    # both hands start at 180 (A-K: 15 + 8 x 5 + 4 x 10 = 95; A-Q: 85)
    # 0: seat 0 cannot draw in turn 2: seat 1 holds 180 - AS 15 + KC 10 = 175
    (0, [180, 175], (1,)),
    # 1: seat 0 draws KH (renewal 1), discards AD: 175; seat 1 cannot draw in turn 3
    (1, [175, 175], (0, 1)),
    # 2: seat 1 draws AS (renewal 2), discards 2S: 175 + 15 - 5 = 185; seat 0 cannot draw
    (2, [175, 185], (0,)),
])
def test_stock_reshuffles(renewals: int, expected_row: list[int], winners: tuple[int, ...]
                          ) -> None:
    g = stacked_game("arena", [_R_SEAT0, _R_SEAT1], upcard="KH", stock="KC",
                     overrides={**_RESHUFFLE, "stock_reshuffles": renewals})
    do(g, "1 draw", "1 discard AS")  # pile KH AS; the stock is empty
    if renewals >= 1:
        do(g, "0 draw")  # renewal: the pile except its top (AS) becomes the stock
        assert [card_str(c) for c in g.discard] == ["AS"] and "KH" in hand_of(g, 0)
        do(g, "0 discard AD")
        if renewals >= 2:
            do(g, "1 draw")
            assert [card_str(c) for c in g.discard] == ["AD"] and "AS" in hand_of(g, 1)
            do(g, "1 discard 2S")
            do(g, "0 draw")
        else:
            do(g, "1 draw")
    else:
        do(g, "0 draw")
    # no renewal left: the hand ends with no one out, everyone scores the hand
    assert phase(g) is Phase.OVER and g.scores == [expected_row] and g.winners == winners
    assert not any(g.out)




def _tl(over: dict[str, Any]) -> Game:
    return stacked_game("standard", [_PTS_SEAT0, _PTS_SEAT1, _PTS_SEAT2], upcard="KC",
                        stock="QC 5D 8S", overrides=over)


def test_turn_limit() -> None:
    g = _tl({"turn_limit": 2})
    do(g, "1 draw", "2 pass", "0 pass", "1 discard QC", "2 draw", "0 pass", "2 discard 5D")
    # two turns played: the hand ends as if the stock ran out; everyone scores the hand
    assert row(g, 0) == [65, 80, 75] and g.hand_number() == 2
    g = _tl({})
    do(g, "1 draw", "2 pass", "0 pass", "1 discard QC", "2 draw", "0 pass", "2 discard 5D")
    assert not g.scores and g.turn == 0 and phase(g) is Phase.DRAW


def test_turn_limit_does_not_count_bonus_calls() -> None:
    g = _two_down("arena", {"turn_limit": 4})  # three turns played, then the bonus window
    do(g, "1 pass", "2 call", "2 lay 7C 0", "2 discard 9H")
    assert phase(g) is Phase.DRAW and g.turn == 1 and not g.scores  # regular turn 4 starts
    do(g, "1 draw", "0 pass", "1 discard 2H")
    assert len(g.scores) == 1  # after turn 4 the hand ends


def _house_final(over: dict[str, Any]) -> Game:
    hands = ["AS 3S 4S 5S JS QH KS KH 6H",  # 20 + 4 x 5 + 4 x 10 = 80
             "7H 7S 7D 7C 9D 9C 9S 9H 9D",
             "8H 8S 8D 8C 10D 10C 10S 10H 10D"]  # 4 x 5 + 5 x 10 = 70
    g = stacked_game("house", hands, upcard="KC", stock="KD QS 4D", overrides=over)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D 7C | 9D 9C 9S 9H 9D",
       "1 discard KD")  # seat 1 is out
    return g


def test_final_turns() -> None:
    g = _house_final({})  # house: final turns
    assert g.out[1] and not g.scores and g.turn == 2
    do(g, "2 draw", "0 pass", "2 down 8H 8S 8D 8C | 10D 10C 10S 10H 10D", "2 discard QS")
    assert not g.scores and g.turn == 0  # seat 2 went out too; seat 0 still plays
    do(g, "0 draw", "0 discard 4D")
    assert row(g, 0) == [80, 0, 0] and g.hand_number() == 2


def test_turn_limit_does_not_count_final_turns() -> None:
    g = _house_final({"turn_limit": 1})
    assert not g.scores and g.turn == 2  # the final turns are still played
    do(g, "2 draw", "0 pass", "2 discard QS", "0 draw", "0 discard 4D")
    # seat 2 kept its 9 cards (70); seat 0 kept its own (80)
    assert row(g, 0) == [80, 0, 70]


def test_final_turns_off() -> None:
    g = _house_final({"final_turns": False})
    assert row(g, 0) == [80, 0, 70] and g.hand_number() == 2


def _house_no_draw(over: dict[str, Any]) -> Game:
    hands = ["AS 3S 4S 5S JS QH KS KH 6H", "7H 7S 7D 9D 9C 9S 8C 4C KD",
             "8H 8S 8D 10D 10C 10S 5H 6C QS"]
    g = stacked_game("house", hands, upcard="KC", stock="3H 3C 4D 5D", overrides=over)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S", "1 discard KD",
       "2 draw", "0 pass", "2 down 8H 8S 8D | 10D 10C 10S", "2 discard QS",
       "0 draw", "1 pass", "0 discard 4D")
    return g


def test_layoff_instead_of_draw() -> None:
    g = _house_no_draw({})
    do(g, "1 no_draw")  # declines the discard like a draw: the buy round follows
    assert phase(g) is Phase.BUY and g.to_act() == (2,)
    do(g, "2 pass")
    assert hand_of(g, 1) == srt("8C 4C 3H")  # no card drawn
    illegal(g, "1 discard 4C", "lay off")
    do(g, "1 lay 8C 2", "1 discard 4C")
    assert g.turn == 2


def test_layoff_instead_of_draw_off() -> None:
    g = _house_no_draw({"layoff_instead_of_draw": False})
    illegal(g, "1 no_draw")


# ---- scoring ---------------------------------------------------------------------------------

_SEAT1_JUNK = "3S 4S 5S 6S 7S 8S 9S JS QS KS 3H"
_SEAT2_JUNK = "3D 4D 5D 6D 7D 8D 10D JD QD KD AD"


@pytest.mark.parametrize(("preset", "seat0", "points"), [
    # AS JK 2H 5C 9D 10S KH, then low clubs to the deal size
    ("standard", "AS JK 2H 5C 9D 10S KH 3C 4C 6C", 15 + 20 + 5 * 3 + 10 * 2 + 5 * 3),
    ("arena", "AS JK 2H 5C 9D 10S KH 3C 4C 6C", 15 + 20 + 5 * 3 + 10 * 2 + 5 * 3),
    ("hoyle", "AS JK 2H 5C 9D 10S KH", 25 + 50 + 5 * 3 + 10 * 2),
    ("classic", "AS JK 2H 5C 9D 10S KH 3C 4C 6C 8C", 15 + 15 + 2 + 5 + 9 + 10 * 2 + 3 + 4 + 6 + 8),
    ("house", "AS JK 2H 5C 9D 10S KH 3C 4C", 20 + 50 + 20 + 5 + 5 + 10 * 2 + 5 * 2),
])
def test_card_points_of_each_preset(preset: str, seat0: str, points: int) -> None:
    n = len(seat0.split())
    hands = [seat0, " ".join(_SEAT1_JUNK.split()[:n]), " ".join(_SEAT2_JUNK.split()[:n])]
    g = stacked_game(preset, hands, upcard="QC", stock="JC", overrides={"turn_limit": 1})
    do(g, "1 draw", "2 pass", "0 pass", "1 discard JC")
    assert row(g, 0)[0] == points


def test_card_points_override() -> None:
    hands = ["AS JK 2H 5C 9D 10S KH 3C 4C 6C", _SEAT1_JUNK[:-3], _SEAT2_JUNK[:-3]]
    g = stacked_game("standard", hands, upcard="QC", stock="JC",
                     overrides={"turn_limit": 1, "card_points": {"A": 1, "JK": 2}})
    do(g, "1 draw", "2 pass", "0 pass", "1 discard JC")
    assert row(g, 0)[0] == 1 + 2 + 5 * 3 + 10 * 2 + 5 * 3  # 53


def test_cut_bonus() -> None:
    g = _tl({"cut_bonus": 50, "turn_limit": 1})
    # the seat right of the dealer (seat 0) cuts before the first turn
    assert phase(g) is Phase.CUT and g.to_act() == (2,)
    illegal(g, "1 draw")
    illegal(g, "2 cut 0")
    illegal(g, "2 cut 108")
    do(g, "2 cut 31")  # 3 players x 10 cards + 1: an exact cut
    assert hand_of(g, 1) == srt(_PTS_SEAT1)  # the deal is not changed
    do(g, "1 draw", "2 pass", "0 pass", "1 discard QC")
    assert row(g, 0) == [65, 80, 75 - 50]
    # every hand starts with a cut; the dealer is now seat 1, so seat 0 cuts
    assert phase(g) is Phase.CUT and g.to_act() == (0,)
    g = _tl({"cut_bonus": 50, "turn_limit": 1})
    do(g, "2 cut 30", "1 draw", "2 pass", "0 pass", "1 discard QC")
    assert row(g, 0) == [65, 80, 75]
    g = _tl({})
    assert phase(g) is Phase.DRAW
    illegal(g, "2 cut 31")


# ---- progression, hands, borrow --------------------------------------------------------------

_OWN = {"progression": "own", "contracts": [{"sets": 2, "runs": 0}, {"sets": 1, "runs": 1}],
        "deal_sizes": [10, 9], "turn_limit": 3}


def _own_game(over: dict[str, Any], seat2_hand1: str, hand2: list[str] | None) -> Game:
    """Hand 1 stacked (dealer 0); hand 2 stacked too when given (dealer 1, 9 cards)."""
    rules = RuleSet.preset("standard", {**_OWN, **over})
    hand1 = ["3H 4H 5H 6S 8S 3C 4C 5C 6C 8C",  # 50
             "7H 7S 7D 9D 9C 9S JK AC KD QD", seat2_hand1]
    deals = [stacked_deck(rules, 3, 0, [C(h) for h in hand1], C("KC")[0], C("QC 5D 8D"))]
    if hand2:
        deals.append(stacked_deck(rules, 3, 1, [C(h) for h in hand2], C("KD")[0],
                                  C("JD KC QS"), contract_no=2))
    g = Game(rules, 3, seed=1, deals=deals)
    # hand 1: seat 1 goes down (ends with JK AC QD QC: 20 + 15 + 10 + 10 = 55)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 9D 9C 9S", "1 discard KD",
       "2 draw", "0 pass")
    return g


def test_progression_own() -> None:
    seat2 = "AS 3S 5S 6H 8H 10S JH QH KS 4D"
    hand2 = ["7H 7S 7D 9D 9C 9S 3H 4H 5H",  # seat 0
             "7S 7D 7H 4C 5C 6C 7C 10H JS",  # seat 1
             "3S 5S 6H 8H 10S JH QH KS 4D"]  # seat 2: 5 x 5 + 4 x 10 = 65
    g = _own_game({}, seat2, hand2)
    do(g, "2 discard 5D", "0 draw", "1 pass", "0 discard 8D")  # turn_limit 3 ends hand 1
    # seat 2: AS 15 + 3S 5S 6H 8H 4D 25 + 10S JH QH KS 40 = 80
    assert row(g, 0) == [50, 55, 80] and g.progress == [0, 1, 0]
    # hand 2 deals 9 (the second deal size); seat 1 now plays contract 2, the others contract 1
    assert [len(h) for h in g.hands] == [9, 9, 9]
    assert g.contract_for(1) == Contract(1, 1) and g.contract_for(0) == Contract(2, 0)
    do(g, "2 draw", "0 pass", "1 pass", "2 discard JD",
       "0 draw", "1 pass", "0 down 7H 7S 7D | 9D 9C 9S", "0 discard KC",
       "1 draw", "2 pass")
    illegal(g, "1 down 7S 7D 7H | 4C 5C 6C 7C 10H")  # not a run
    do(g, "1 down 7S 7D 7H | 4C 5C 6C 7C", "1 discard QS")
    # seat 1 completed the last contract: the game ends after this hand
    assert phase(g) is Phase.OVER and g.progress == [1, 2, 0]
    assert row(g, 1) == [15, 20, 65] and g.totals == [65, 75, 145]
    assert g.winners == (1,)  # the furthest advanced wins, though seat 0's total is lower


def test_progression_own_ties_by_lowest_total_and_max_hands() -> None:
    seat2 = "8H 8S 8D 10D 10C 10S AS KS QH JH"
    g = _own_game({"own_max_hands": 1}, seat2, None)
    # seat 0 keeps the 8D it drew (it would fit seat 2's 8s) and discards 3H: still 50
    do(g, "2 down 8H 8S 8D | 10D 10C 10S", "2 discard 5D", "0 draw", "1 pass", "0 discard 3H")
    # seats 1 and 2 both advanced; seat 2 holds AS KS QH JH = 15 + 30 = 45 < seat 1's 55
    assert phase(g) is Phase.OVER and g.progress == [0, 1, 1]
    assert row(g, 0) == [50, 55, 45] and g.winners == (2,)


def test_hands_shorter_game() -> None:
    seat1 = "7H 7S 7D 4C 5C 6C 7C 9H JD KD 3S"
    hands = ["AH 3H 4H 5H 6S 8S 10H JS QS 2C 3D", seat1, "AS 3S 5S 6H 8H 10S JH QH KS 4D 5C"]
    g = stacked_game("arena", hands, upcard="KC", stock="QC",
                     overrides={"hands": [2, 3], "turn_limit": 1}, contract_no=2)
    # the first hand plays contract 2 (a set and a run) with its deal size (arena: 11)
    assert g.hand_number() == 1 and g.contract_for(1) == Contract(1, 1)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D | 4C 5C 6C 7C", "1 discard KD")
    assert row(g, 0)[1] == 5 + 10 + 5 + 10  # 9H JD 3S QC
    assert g.hand_number() == 2 and g.contract_for(0) == Contract(0, 2)
    assert [len(h) for h in g.hands] == [11, 11, 11]
    do(g, "2 draw", "0 pass", "1 pass", f"2 discard {card_str(g.hands[2][-1])}")
    assert phase(g) is Phase.OVER and len(g.scores) == 2 and g.hand_number() == 2
    assert len(RuleSet.preset("arena").hand_list()) == 7


def _house_borrow(over: dict[str, Any]) -> Game:
    hands = ["AS 3S 4S 5S JS QH KS KH 6H", "7H 7S 7D 7C 9D 9C 9S 4H KD",
             "8H 8S 8D 10D 10C 10S 5C 6C QS"]
    g = stacked_game("house", hands, upcard="KC", stock="3H 3C", overrides=over)
    do(g, "1 draw", "2 pass", "0 pass", "1 down 7H 7S 7D 7C | 9D 9C 9S", "1 discard KD",
       "2 draw", "0 pass", "2 down 8H 8S 8D | 10D 10C 10S")
    return g


def test_borrow() -> None:
    g = _house_borrow({})
    do(g, "2 borrow 0 7C | 5C 6C 7C")  # the set keeps 3 cards; a new run for seat 2
    assert table(g)[0] == "7S 7H 7D" and table(g)[4] == "5C 6C 7C"
    assert g.melds[4].owner == 2 and hand_of(g, 2) == srt("QS 3C")
    illegal(g, "2 borrow 0 7D | 7D JK JK")  # would leave a set of 2 (and no such cards held)
    do(g, "2 discard QS")


def test_borrow_off() -> None:
    g = _house_borrow({"borrow": False})
    illegal(g, "2 borrow 0 7C | 5C 6C 7C", "borrow")
