"""The expert bot: determinized Monte Carlo search over the cards it cannot see.

Domain words: *world* (a full game state consistent with the bot's view: the hidden cards dealt
at random to the other seats' unknown places and the stock, cards they were seen to take kept in
their hands), *candidate* (a legal action worth comparing), *playout* (the game continued from a
world by basic players for a few turns), *budget* (worlds per decision, ``expert:400it``, or
time, ``expert:200ms``).

Each world is played out once per candidate (the same world for every candidate, so the
comparison is fair), for a fixed number of turns or to the hand's end, and scored by the points
each seat is likely to pay; the candidate with the best mean wins. Obvious decisions (one legal
action, the cut, gives, calls) are answered at once by the basic rules.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from ..actions import Action
from ..cards import JOKER
from ..engine import Game, Phase, SeatView
from .base import by_type
from .basic import BasicBot
from .heuristics import keep_values

DEFAULT_ITERATIONS = 16
PLAYOUT_TURNS = 6  # regular turns played out after the decision, at most
MAX_CANDIDATES = 5


class ExpertBot:
    def __init__(self, iterations: int | None = None, millis: float | None = None) -> None:
        if iterations is None and millis is None:
            iterations = DEFAULT_ITERATIONS
        self.iterations = iterations
        self.millis = millis
        if millis is not None:
            self.name = f"expert:{millis:g}ms"
        elif iterations == DEFAULT_ITERATIONS:
            self.name = "expert"
        else:
            self.name = f"expert:{iterations}it"
        self.basic = BasicBot()

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1 or view.phase in ("cut", "give", "call"):
            return self.basic.decide(view, legal)[0]
        candidates = self._candidates(view, legal)
        if len(candidates) == 1:
            return candidates[0]
        totals = [0.0] * len(candidates)
        deadline = None if self.millis is None else time.perf_counter() + self.millis / 1000
        worlds = 0
        while True:
            if deadline is None:
                if worlds >= (self.iterations or 0):
                    break
            elif worlds > 0 and time.perf_counter() >= deadline:
                break
            world = Game.from_view(view, rng)
            seed = rng.getrandbits(32)
            for i, cand in enumerate(candidates):
                g = world.clone()
                g.apply(cand)
                totals[i] += _playout(g, view.seat, random.Random(seed), self.basic)
            worlds += 1
        best = min(range(len(candidates)), key=lambda i: (totals[i], i))
        return candidates[best]

    def _candidates(self, view: SeatView, legal: Sequence[Action]) -> list[Action]:
        """The legal actions worth searching: basic's choice first, then alternatives."""
        first = self.basic.decide(view, legal)[0]
        groups = by_type(legal)
        out = [first]
        if "go_down" in groups:
            return [groups["go_down"][0]]  # going down at once is never worse at this level
        for kind in ("take_discard", "draw", "no_draw", "buy", "pass"):
            for a in groups.get(kind, []):
                if a.type == "buy" and a.depth is not None:
                    continue
                if a not in out:
                    out.append(a)
        seen_cards = set()
        for a in groups.get("lay_off", []) + groups.get("swap_joker", []):
            if a not in out and (a.type, a.card) not in seen_cards:
                seen_cards.add((a.type, a.card))
                out.append(a)
        if "discard" in groups:
            seat = view.seat
            keep = keep_values(view.hand, view.contract[seat], view.ruleset, view.down[seat],
                               view.melds)
            ranked = sorted(groups["discard"], key=lambda a: keep.get(a.card or 0, 0.0))
            for a in ranked:
                if a not in out:
                    out.append(a)
        return out[:MAX_CANDIDATES]


def _playout(g: Game, me: int, rng: random.Random, basic: BasicBot) -> float:
    """Continue ``g`` with basic players for a few turns; return my expected points minus the
    others' mean (lower is better)."""
    hand_at_start = g.hand_index
    turns_at_start = g.turns
    steps = 0
    while not g.over and g.hand_index == hand_at_start and steps < 400:
        if g.turns - turns_at_start >= PLAYOUT_TURNS and g.phase is Phase.DRAW:
            break
        seats = g.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        legal = g.legal_actions(seat)
        if not legal:
            break  # a sampled world the real game could not reach (e.g. a lay-off owed with
            # no card to lay off): score it as it stands
        if len(legal) == 1:
            g.apply(legal[0])
        else:
            g.apply(basic.decide(g.view_for(seat), legal)[0])
        steps += 1
    mine: float
    others: list[float]
    if g.hand_index != hand_at_start or g.over:
        row = g.scores[hand_at_start] if len(g.scores) > hand_at_start else [0] * g.n
        mine = row[me]
        others = [float(row[s]) for s in range(g.n) if s != me]
    else:
        est = [_estimate(g, s) for s in range(g.n)]
        mine = est[me]
        others = [est[s] for s in range(g.n) if s != me]
    return mine - sum(others) / max(1, len(others))


def _estimate(g: Game, seat: int) -> float:
    """Points a seat is likely to pay for this hand: what it holds, less for a seat that is down
    (it sheds cards every turn), plus what it already owes."""
    pts = g.rules.card_points
    held = sum(pts[0 if c == JOKER else c % 13 + 1] for c in g.hands[seat])
    factor = 0.45 if g.down[seat] else 1.0
    return held * factor + g.penalties[seat] + (0 if g.down[seat] else 15)
