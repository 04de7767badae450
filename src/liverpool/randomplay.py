"""Random legal play: the policy the benchmark, the soak run and the property tests drive games
with. At each decision the acting seat goes down with the solver's best go-down when it can,
otherwise picks uniformly among the legal action *types*, then uniformly within the type.

Domain words: *choice* (``bots.base.random_choice``: the policy over one seat's legal actions),
*random player* (``bots.base.RandomBot``: the policy as a bot, which a ``match.Match`` seats so
that buy rounds and call windows are settled as in every other game), *step* (``random_action``:
one random action of the game, for tests that drive the engine itself).
"""

from __future__ import annotations

import random

from .actions import Action
from .bots.base import RandomBot, random_choice
from .engine import Game
from .match import Match
from .rules import RuleSet


def random_action(game: Game, rng: random.Random) -> Action:
    """One random legal action of the game as it stands: where several seats may act (a
    first-call buy round) any of them, so that tests of the engine alone reach every order."""
    seats = game.to_act()
    seat = seats[0] if len(seats) == 1 else rng.choice(seats)
    return random_choice(game.legal_actions(seat), rng)


def random_game(rules: RuleSet, players: int, seed: int, max_actions: int = 1_000_000) -> Game:
    """A whole game of random legal play through a match (seed drives the deal and, through
    the bot generators, the choices); it stops after about ``max_actions`` actions."""
    game = Game(rules, players, seed=seed)
    match = Match(game, [RandomBot()] * players)
    while len(game.actions) < max_actions and (d := match.decision()) is not None:
        match.play(match.bot_action(d.seat))
    return game
