"""Worlds for the expert's search that agree with what the other seats were just seen to do.

Domain words: *world* (``Game.from_view``: the hidden cards dealt at random), *sign* (a choice
another seat was just seen to make that says something about its hand: it threw the top
discard away, or it let that card go and drew from the stock), *repair* (dealing a seat's
unknown cards again, from its own and the stock's, until the world agrees with the sign).

The other seats are modelled as the playouts play them, with the basic bot's judgement: a seat
that is not down throws away its card of lowest keep value, and takes the top discard when it
builds its contract. A world in which the discarder held a card it values less than the one it
threw, or in which the seat that let the discard go would have taken it, is one the real game
is unlikely to be in. A seat's cards known to everyone stay; other seats are not touched; a
repair that finds no agreeing hand in ``TRIES`` deals leaves the world as it was.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from ..cards import Card
from ..engine import Game, Phase, SeatView
from .policy import fast_keep_values, wants

TRIES = 20


def agrees_discarded(hand: Sequence[Card], card: Card, view: SeatView, seat: int) -> bool:
    """Whether a seat holding ``hand`` after throwing ``card`` away would have thrown it: no
    card it kept has a lower keep value (ties go to the higher card, as the basic bot's)."""
    keep = fast_keep_values([*hand, card], view.contract[seat], view.ruleset, False, view.melds)
    mine = (keep[card], -card)
    return all((keep[c], -c) >= mine for c in hand if c != card)


def agrees_declined(hand: Sequence[Card], card: Card, view: SeatView, seat: int) -> bool:
    """Whether a seat not down holding ``hand`` would let ``card`` go (not take it)."""
    return not wants(hand, card, view.contract[seat], view.ruleset, view.melds, 1.6)


def signs(view: SeatView) -> list[tuple[int, bool]]:
    """(seat, declined) for each sign in the view: ``declined`` False for the seat that threw
    the top discard, True for the seat on turn that let it go (a buy round)."""
    out: list[tuple[int, bool]] = []
    if not view.discard or not view.fresh:
        return out
    if view.phase == Phase.BUY.value and view.pending_draw and view.turn != view.seat \
            and not view.down[view.turn]:
        out.append((view.turn, True))
    if view.phase in (Phase.DRAW.value, Phase.BUY.value):
        d = view.discarder
        if d is not None and d != view.seat and not view.down[d]:
            out.append((d, False))
    return out


def sample_world(view: SeatView, rng: random.Random) -> Game:
    """``Game.from_view``, with each seat that gave a sign dealt again until it agrees."""
    world = Game.from_view(view, rng)
    top = view.discard[-1] if view.discard else None
    for seat, declined in signs(view):
        assert top is not None
        test = agrees_declined if declined else agrees_discarded
        hand = world.hands[seat]
        if test(hand, top, view, seat):
            continue
        known = list(view.known[seat])
        unknown = list((Counter(hand) - Counter(known)).elements())
        take = len(unknown)
        for _ in range(TRIES):
            pool = unknown + world.stock
            rng.shuffle(pool)
            fresh = known + pool[:take]
            if test(fresh, top, view, seat):
                world.hands[seat] = fresh
                world.stock = pool[take:]
                break
    return world
