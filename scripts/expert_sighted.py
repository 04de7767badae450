"""What the hidden cards are worth to the expert: duplicate games in which its search deals its
worlds from the true game (the other hands as they are; the stock shuffled again, so it still
cannot see what it will draw), at every searched decision or only at some, against basic bots,
beside the expert as it plays. A bound for any way of guessing the other hands, not a player:
no seat can see these cards.

    python scripts/expert_sighted.py [--rules arena] [--players 2] [--deals 40] [--seed 778]
        [--workers 2] [--sight none,all,play,draw] [--json FILE]

``--sight`` (comma separated): ``none`` is the expert as it plays (its worlds from its belief
of the other hands); ``dealt`` the expert without its belief (``ExpertBot(belief=False)``: the
worlds of ``worlds.sample_world``, as in the bound first measured); ``all`` deals every
search's worlds from the true game; ``play`` and ``draw`` only the searches of that kind of
decision (``play``: the discard of a seat not down; ``draw``: taking the top discard or
drawing, and the buy), with ``worlds.sample_world``'s at the others. Each is a duplicate tournament
of that expert against basic bots (every deal once per rotation of the seats, the same deals for
each), then one table: the win rate with its interval from the deals, points a game, and the
mean per-deal difference in win share from the first ``--sight`` given (standard error from
the deals). The games are the simulator's own (``simulate.play_game``), so ``none`` gives what
``liverpool simulate --duplicate`` gives for the same seed. A run stops with an error rather
than report a sight with fewer games than asked or with any move the bot did not make itself
(the match's fallback after a crash). Hours of CPU for many deals: a
command, never part of the tests.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from liverpool.bots import Bot, ExpertBot, make_bot
from liverpool.bots.worlds import sample_world
from liverpool.engine import Game, SeatView
from liverpool.rules import RuleSet
from liverpool.simulate import (
    DealStats,
    GameResult,
    play_game,
    specs_for,
    summarize_duplicate,
)

SIGHTS = {"none": None, "dealt": frozenset[str](), "all": frozenset({"draw", "buy", "play"}),
          "play": frozenset({"play"}), "draw": frozenset({"draw", "buy"})}


class TrueWorlds:
    """A world sampler for one seat of ``game`` that deals the true hands at decisions of the
    given phases (the stock shuffled again) and ``worlds.sample_world``'s at the others."""

    def __init__(self, game: Game, phases: frozenset[str]) -> None:
        self.game = game
        self.phases = phases

    def __call__(self, view: SeatView, rng: random.Random) -> Game:
        if view.phase not in self.phases:
            return sample_world(view, rng)
        world = self.game.clone()
        assert view.seat is not None and world.view_for(view.seat).hand == view.hand, \
            "the view is not of the game being played"
        rng.shuffle(world.stock)
        return world


def seat_bot(name: str, game: Game) -> Bot:
    """``expert@SIGHT`` is the expert with that sight; any other name is ``make_bot``'s."""
    if name.startswith("expert@"):
        phases = SIGHTS[name.split("@", 1)[1]]
        if phases is None:
            return ExpertBot()
        return ExpertBot(worlds=TrueWorlds(game, phases), belief=False)
    return make_bot(name)


def tournament(rules: str, players: int, deals: int, seed: int, sight: str, workers: int,
               progress: Progress) -> list[GameResult]:
    bots = [f"expert@{sight}"] + ["basic"] * (players - 1)
    specs = specs_for(deals, rules, {}, bots, seed, duplicate=True)
    task = progress.add_task(f"sight {sight}", total=len(specs))
    results = []
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        for r in pool.map(partial(play_game, seat_bot=seat_bot), specs):
            results.append(r)
            progress.advance(task)
    if len(results) != len(specs):  # never publish a figure from fewer games than asked
        raise SystemExit(f"sight {sight}: {len(results)} of {len(specs)} games played")
    # a bot that raised was replaced by the basic bot for that move: not the bot measured
    broken = [i for r in results for i in r.incidents]
    if broken:
        raise SystemExit(f"sight {sight}: {len(broken)} decisions not the bot's own, the first: "
                         f"{broken[0]}")
    return results


def expert_stats(results: Sequence[GameResult]) -> DealStats:
    """The expert's win share and mean points, deal by deal (deals in order)."""
    stats, _ = summarize_duplicate(results)
    (mine,) = [st for st in stats if st.bot.startswith("expert@")]
    return mine


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="arena")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=778)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sight", default="none,all")
    ap.add_argument("--json", help="write the per-deal shares and points here")
    args = ap.parse_args(argv)
    sights = args.sight.split(",")
    bad = [s for s in sights if s not in SIGHTS]
    if bad or not sights:
        ap.error(f"unknown --sight {', '.join(bad)}: choose from {', '.join(SIGHTS)}")
    try:  # an unknown preset fails here, before any game
        RuleSet.preset(args.rules)
    except ValueError as e:
        ap.error(str(e))
    if not 2 <= args.players <= 8 or args.deals < 2 or args.workers < 1:
        ap.error("--players 2-8, --deals at least 2, --workers at least 1")
    found: dict[str, DealStats] = {}
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True)) as progress:
        for sight in sights:
            found[sight] = expert_stats(tournament(args.rules, args.players, args.deals,
                                                   args.seed, sight, args.workers, progress))
    table = Table(title=f"{args.rules}, {args.players} players, {args.deals} deals "
                        f"(seed {args.seed}), the expert against basic bots, duplicate")
    for col in ("sight", "win rate (95%)", "points a game", f"win share - {sights[0]} (1 se)"):
        table.add_column(col)
    base = found[sights[0]].shares
    for sight, st in found.items():
        low, high = st.interval()
        diffs = [a - b for a, b in zip(st.shares, base, strict=True)]
        se = statistics.stdev(diffs) / math.sqrt(len(diffs))
        table.add_row(sight, f"{100 * statistics.fmean(st.shares):.1f}% ({100 * low:.1f}-"
                             f"{100 * high:.1f})",
                      f"{statistics.fmean(st.points):.1f}",
                      "-" if sight == sights[0] else
                      f"{100 * statistics.fmean(diffs):+.1f} ({100 * se:.1f})")
    Console().print(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rules": args.rules, "players": args.players, "seed": args.seed,
                       "deals": args.deals,
                       "sights": {s: {"shares": v.shares, "points": v.points}
                                  for s, v in found.items()}},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
