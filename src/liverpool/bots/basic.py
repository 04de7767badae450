"""The basic bot: a sound heuristic player, and the yardstick the expert is measured against.

It keeps cards that build toward the contract, takes and buys discards that help, goes down as
soon as it can, lays off everything it can, and discards the card that is least useful and most
costly. ``decide`` also returns a short reason a player understands (used for hints).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import Action
from ..cards import JOKER, card_str, cards_str
from ..engine import SeatView
from .base import by_type
from .heuristics import fits_table, keep_values, usefulness


def _points(view: SeatView, card: int) -> int:
    return view.ruleset.card_points[0 if card == JOKER else card % 13 + 1]


class BasicBot:
    name = "basic"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return self.decide(view, legal)[0]

    def decide(self, view: SeatView, legal: Sequence[Action]) -> tuple[Action, str]:
        groups = by_type(legal)
        if len(legal) == 1:
            return legal[0], _only_reason(view, legal[0])
        phase = view.phase
        if phase == "cut":
            return self._cut(view, groups)
        if phase == "draw":
            return self._draw(view, groups)
        if phase == "buy":
            return self._buy(view, groups)
        if phase == "call":
            if "call" in groups:
                return groups["call"][0], "call it: the discard fits a meld on the table"
            return groups["pass"][0], "pass"
        if phase == "give":
            card = max((a.card for a in groups["give"] if a.card is not None),
                       key=lambda c: (_points(view, c), c))
            why = f"give {card_str(card)}: your costliest card"
            return Action("give", view.me, card=card), why
        return self._play(view, groups)

    # ---- decisions ------------------------------------------------------------------------
    def _cut(self, view: SeatView, groups: dict[str, list[Action]]) -> tuple[Action, str]:
        n = len(view.players)
        size = view.ruleset.deal_sizes[min(view.hand_number, len(view.ruleset.deal_sizes)) - 1]
        target = n * size + 1
        for a in groups["cut"]:
            if a.count == target:
                return a, f"cut {target}: an exact cut earns the bonus"
        return groups["cut"][0], "cut"

    def _draw(self, view: SeatView, groups: dict[str, list[Action]]) -> tuple[Action, str]:
        seat = view.me
        rules = view.ruleset
        top = view.discard[-1] if view.discard else None
        if "take_discard" in groups and top is not None:
            if view.down[seat]:
                if fits_table(top, view.melds, rules):
                    return groups["take_discard"][0], f"take {card_str(top)}: you can lay it off"
            elif self._wants(view, top, 1.6):
                return groups["take_discard"][0], f"take {card_str(top)}: it builds your contract"
        if "no_draw" in groups:
            return groups["no_draw"][0], "lay off instead of drawing: one card fewer"
        return groups["draw"][0], "draw from the stock"

    def _wants(self, view: SeatView, card: int, threshold: float) -> bool:
        contract = view.contract[view.me]
        hand = [*view.hand, card]
        use = usefulness(hand, contract, view.ruleset)
        if use[card] < threshold:
            return False
        keep = keep_values(hand, contract, view.ruleset, False, view.melds)
        return keep[card] > min(keep.values())

    def _buy(self, view: SeatView, groups: dict[str, list[Action]]) -> tuple[Action, str]:
        top = view.discard[-1]
        size = len(view.hand)
        if ("buy" in groups and not view.down[view.me] and size <= 16
                and self._wants(view, top, 2.4)):
            plain = [a for a in groups["buy"] if a.depth is None]
            return (plain or groups["buy"])[0], f"buy {card_str(top)}: it completes a group"
        return groups["pass"][0], f"pass: {card_str(top)} does not help enough to pay a penalty"

    def _play(self, view: SeatView, groups: dict[str, list[Action]]) -> tuple[Action, str]:
        if "go_down" in groups:
            a = groups["go_down"][0]
            melds = " and ".join("-".join(card_str(c) for c in m) for m in a.melds or ())
            return a, f"go down: {melds}"
        if "swap_joker" in groups:
            a = groups["swap_joker"][0]
            assert a.card is not None
            return a, f"swap {card_str(a.card)} for the wild in meld {a.meld}"
        if "lay_off" in groups:
            owed = set(view.must_play)

            def order(a: Action) -> tuple[int, int]:
                assert a.card is not None
                return (1 if a.card in owed else 0, _points(view, a.card))
            a = max(groups["lay_off"], key=order)
            assert a.card is not None
            return a, f"lay off {card_str(a.card)} on meld {a.meld}"
        if "discard" in groups:
            return self._discard(view, groups["discard"])
        a = next(iter(groups.values()))[0]
        return a, a.type.replace("_", " ")

    def _discard(self, view: SeatView, options: list[Action]) -> tuple[Action, str]:
        seat = view.me
        keep = keep_values(view.hand, view.contract[seat], view.ruleset, view.down[seat],
                           view.melds)
        a = min(options, key=lambda x: (keep[x.card] if x.card is not None else 0.0,
                                        -(x.card or 0)))
        assert a.card is not None
        why = "the least useful, costliest card" if not view.down[seat] else "your costliest card"
        return a, f"discard {card_str(a.card)}: {why}"


def _only_reason(view: SeatView, a: Action) -> str:
    if a.type == "draw" and view.floating[view.me]:
        return "draw: you are floating"
    if a.type == "draw":
        return "draw: you cannot take the discard now"
    if a.type == "pass":
        return "pass: you cannot do anything else"
    if a.type == "discard" and a.card is not None:
        return f"discard {card_str(a.card)}: your only legal discard"
    if a.type == "go_down" and a.melds:
        return "go down: " + " and ".join(cards_str(m) for m in a.melds)
    return a.type.replace("_", " ")
