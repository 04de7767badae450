"""``liverpool bench peer``: our engine's random-play throughput side by side with OpenSpiel's
gin rummy (C++, driven from Python) in the same process and the same run, so that the ratio
compares the two on the same machine under the same load.

Domain words: *round* (one timed stretch of our engine, then one of the peer, each for the
same budget of CPU time), *player actions* (decisions a player makes; the peer's *chance*
actions, each card dealt, are counted apart: our engine deals inside its own actions).

Both sides are driven the same way from Python: list the legal actions, pick one with Python's
``random``, apply it, until the game ends, game after game. Ours: ``standard``, 4 players,
``randomplay.random_action`` (the benchmark's policy: the solver's best go-down when there is
one, else a uniform action type, then a uniform action), as ``liverpool bench`` measures it.
The peer: ``gin_rummy``, a chance node's outcome drawn by its probabilities, a player's action
uniformly. The clock is the thread's CPU time (``time.thread_time``).

OpenSpiel is not a dependency: ``pip install open_spiel`` (the ``peer`` extra) to run this.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import compiled
from .engine import Game
from .randomplay import random_action
from .rules import RuleSet

PRESET = "standard"
PLAYERS = 4
PEER_GAME = "gin_rummy"
SEED = 20_241_125


@dataclass(frozen=True)
class Round:
    ours: float  # our actions per CPU-second
    peer_players: float  # the peer's player actions per CPU-second
    peer_all: float  # the peer's actions per CPU-second, chance actions included


def run_ours(budget_s: float, seed: int) -> float:
    rules = RuleSet.preset(PRESET)
    actions = 0
    start = time.thread_time()
    while time.thread_time() - start < budget_s:
        game = Game(rules, PLAYERS, seed=seed)
        rng = random.Random(seed)
        while not game.over:
            game.apply(random_action(game, rng))
        actions += len(game.actions)
        seed += 1
    return actions / (time.thread_time() - start)


def run_peer(pyspiel: Any, budget_s: float, seed: int) -> tuple[float, float]:
    """The peer's (player actions, all actions) per CPU-second."""
    game = pyspiel.load_game(PEER_GAME)
    rng = random.Random(seed)
    players = chance = 0
    start = time.thread_time()
    while time.thread_time() - start < budget_s:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                chance += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                players += 1
    spent = time.thread_time() - start
    return players / spent, (players + chance) / spent


def run(rounds: int, budget_s: float, show_progress: bool = True) -> dict[str, Any]:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        raise SystemExit("liverpool bench peer: OpenSpiel is not installed here "
                         "(pip install open_spiel, or the package's 'peer' extra)") from None
    progress = Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                        TimeElapsedColumn(), console=Console(stderr=True), transient=True,
                        disable=not show_progress)
    results: list[Round] = []
    with progress:
        task = progress.add_task("engine, then OpenSpiel gin rummy", total=2 * rounds)
        for r in range(rounds):
            ours = run_ours(budget_s, SEED + 1000 * r)
            progress.advance(task)
            players, everything = run_peer(pyspiel, budget_s, SEED + r)
            progress.advance(task)
            results.append(Round(ours, players, everything))
    ratio_players = statistics.median(x.ours / x.peer_players for x in results)
    ratio_all = statistics.median(x.ours / x.peer_all for x in results)
    return {
        "core": compiled.core,
        "core_detail": compiled.describe(),
        "preset": PRESET,
        "players": PLAYERS,
        "peer": f"open_spiel {getattr(pyspiel, '__version__', '')} {PEER_GAME}".replace("  ", " "),
        "budget_cpu_s": budget_s,
        "rounds": [{"ours_actions_per_s": round(x.ours, 1),
                    "peer_player_actions_per_s": round(x.peer_players, 1),
                    "peer_all_actions_per_s": round(x.peer_all, 1)} for x in results],
        "median_ours_actions_per_s": round(statistics.median(x.ours for x in results), 1),
        "median_ratio_to_peer_player_actions": round(ratio_players, 3),
        "median_ratio_to_peer_all_actions": round(ratio_all, 3),
    }


def print_table(out: dict[str, Any]) -> None:
    t = Table(title=f"random play, actions per CPU-second: ours ({out['preset']}, "
                    f"{out['players']} players, core {out['core']}) vs {out['peer']}")
    for col in ("round", "ours", "peer: player actions", "peer: all actions",
                "ratio (players)", "ratio (all)"):
        t.add_column(col, justify="right")
    for i, r in enumerate(out["rounds"], 1):
        t.add_row(str(i), f"{r['ours_actions_per_s']:,.0f}",
                  f"{r['peer_player_actions_per_s']:,.0f}", f"{r['peer_all_actions_per_s']:,.0f}",
                  f"{r['ours_actions_per_s'] / r['peer_player_actions_per_s']:.2f}x",
                  f"{r['ours_actions_per_s'] / r['peer_all_actions_per_s']:.2f}x")
    t.add_row("median", f"{out['median_ours_actions_per_s']:,.0f}", "", "",
              f"{out['median_ratio_to_peer_player_actions']:.2f}x",
              f"{out['median_ratio_to_peer_all_actions']:.2f}x", style="bold")
    Console().print(t)
    Console().print(f"core: {out['core_detail']}")


def main(args: argparse.Namespace) -> int:
    out = run(int(args.rounds), float(args.seconds))
    if args.json:
        print(json.dumps(out))
    else:
        print_table(out)
    return 0
