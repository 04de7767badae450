"""People pick cards, not orders: ``Game.arranged`` puts a go-down's or a borrow's new melds in
an order the rules accept (the terminal and the browser both send what the person picked)."""

from __future__ import annotations

import pytest
from conftest import C, stacked_game

from liverpool.actions import Action
from liverpool.engine import Game


def _ready_to_go_down() -> Game:
    # standard, hand 2 (a set and a run of 4): seat 1 holds 9S 9D 9C and 5H 6H 8H JK
    g = stacked_game("standard", ["2C 3C 4C 5C 6C 7C 8C 9H 10H JH",
                                  "9S 9D 9C 5H 6H 8H JK KS QD 4S",
                                  "2D 3D 4D 5D 6D 7D 8D 9D 10D JD"],
                     "KC", stock="QS", overrides={"hands": [2]}, contract_no=2)
    g.apply(Action("draw", 1))
    for s in (2, 0):
        if g.to_act() == (s,):
            g.apply(Action("pass", s))
    return g


def test_a_go_down_picked_in_any_order_is_put_in_the_rules_order() -> None:
    g = _ready_to_go_down()
    picked = Action("go_down", 1, melds=(tuple(C("JK 8H 5H 6H")), tuple(C("9C 9S 9D"))))
    assert g.why_illegal(picked) is not None  # the run as picked is no run
    a = g.arranged(picked)
    assert a.melds == (tuple(C("5H 6H JK 8H")), tuple(C("9C 9S 9D")))
    assert g.why_illegal(a) is None
    g.apply(a)
    assert [str(m) for m in g.melds] == ["5H 6H JK 8H", "9S 9D 9C"]


def test_cards_that_make_no_meld_are_left_as_picked_for_the_engines_reason() -> None:
    g = _ready_to_go_down()
    picked = Action("go_down", 1, melds=(tuple(C("KS QD 4S")), tuple(C("9C 9S 9D"))))
    assert g.arranged(picked) == picked
    assert g.why_illegal(picked) is not None


def test_a_legal_action_is_returned_unchanged() -> None:
    g = _ready_to_go_down()
    legal = Action("go_down", 1, melds=(tuple(C("9S 9D 9C")), tuple(C("5H 6H JK 8H"))))
    assert g.is_legal(legal) and g.arranged(legal) is legal


@pytest.mark.timeout(60)
def test_cards_the_seat_does_not_hold_are_not_arranged() -> None:
    """A go-down or a borrow naming cards the seat does not hold is illegal in any order, so it
    comes back as sent, at once: arranging 13 wilds used to try their 13! orders."""
    g = _ready_to_go_down()
    run = tuple(C("5H " + "JK " * 13))
    picked = Action("go_down", 1, melds=(run, tuple(C("9C 9S 9D"))))
    assert g.arranged(picked) is picked
    assert "hold" in (g.why_illegal(picked) or "")
    borrow = Action("borrow", 1, meld=0, card=C("9H")[0], new_meld=tuple(C("9H " + "JK " * 13)))
    assert g.arranged(borrow) is borrow
    assert g.arranged(Action("go_down", 7, melds=(run,))).player == 7  # no such seat: as sent
