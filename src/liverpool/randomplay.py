"""Random legal play: the policy the benchmark, the soak run and the property tests drive games
with. At each decision the acting seat goes down with the solver's best go-down when it can,
otherwise picks uniformly among the legal action *types*, then uniformly within the type.
"""

from __future__ import annotations

import random

from .actions import Action
from .engine import Game
from .rules import RuleSet


def random_action(game: Game, rng: random.Random) -> Action:
    seats = game.to_act()
    seat = seats[0] if len(seats) == 1 else rng.choice(seats)
    legal = game.legal_actions(seat)
    by_type: dict[str, list[Action]] = {}
    for a in legal:
        by_type.setdefault(a.type, []).append(a)
    if "go_down" in by_type:
        return by_type["go_down"][0]
    kind = rng.choice(sorted(by_type))
    return rng.choice(by_type[kind])


def random_game(rules: RuleSet, players: int, seed: int, max_actions: int = 1_000_000) -> Game:
    """A whole game of random legal play (seed drives both the deal and the choices)."""
    game = Game(rules, players, seed=seed)
    rng = random.Random(seed * 7919 + 1)
    for _ in range(max_actions):
        if game.over:
            break
        game.apply(random_action(game, rng))
    return game
