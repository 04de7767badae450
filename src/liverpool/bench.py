"""``liverpool bench``: engine throughput under random legal play, contract-solver latency, and
the bots (basic games/s, expert decision time, simulator scaling over 1 and 2 workers).

The engine and the solver, on the ``standard`` preset, single process (one core):

* *engine*: whole 4-player games of random legal play (``randomplay.random_action``: the solver's
  best go-down when there is one, else a uniform legal action type, then a uniform action of
  that type), seeds ``ENGINE_SEED, ENGINE_SEED + 1, ...``, until the timed work reaches the
  budget. The clock covers listing legal actions, choosing and applying (not the first deal).
* *solver*: ``solver.best_go_down`` over a fixed seeded corpus of hands, ``CORPUS_PER_CONTRACT``
  per contract of ``standard``; 12-13 cards each, jokers spread evenly over 0-4, half built to be
  feasible (the contract's melds taken from the pack, then random filler), half random. The
  corpus is built before any timing; each call is timed with ``time.perf_counter_ns``. The
  solver is called as for hands 1-6 (``all_out`` off) for every contract, so contract 7 measures
  the three-run search rather than the last hand's meld-everything variant.

The bots (``standard``, 4 players, seeded, so every run measures the same work):

* *basic games/s*: whole games among four ``basic`` bots, until the budget is spent.
* *expert decision time*: ``expert`` at its default budget over a fixed set of decision points
  (every decision with more than one legal action in seeded basic games, evenly thinned to a
  fixed count); p50 and p95 of the wall clock, and of the thread's CPU time.
* *scaling 2 vs 1*: a fixed batch of basic games through the simulator's own code path
  (``simulate.run_local`` / ``run_ray``), games/s with 2 workers over games/s with 1; Ray is
  started once per worker count before the clock (its start-up is not counted). ``null`` when
  Ray is not installed, or with ``--quick``.

The learning interfaces (with the ``rl`` extra; ``null`` without it):

* *environment steps/s*: one round of ``liverpool bench env`` (``benchmarks.envsteps``): the
  PettingZoo environment as users get it, ``standard``, 4 players, random masked play observing
  every step, the clock inside the environment's calls; beside it the loop's rate with the
  random player's choice. ``bench env`` runs rounds and quotes the median.

``--quick`` shrinks everything (for tests). ``--json`` prints one JSON object on stdout; the
progress bar always goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import compiled
from .cards import JOKER, Card, make_card, new_deck
from .engine import Game
from .randomplay import random_action
from .rules import Contract, RuleSet
from .solver import best_go_down

PRESET = "standard"
PLAYERS = 4
ENGINE_SEED = 20_240_601
CORPUS_SEED = 7_331
ENGINE_BUDGET_S = 15.0
CORPUS_PER_CONTRACT = 10_000
QUICK_ENGINE_BUDGET_S = 0.5
ENV_BUDGET_S = 15.0  # random masked play in the learning environment
QUICK_ENV_BUDGET_S = 0.5
QUICK_CORPUS_PER_CONTRACT = 100
BOT_SEED = 4_242
BASIC_BUDGET_S = 10.0
QUICK_BASIC_BUDGET_S = 0.3
DECISION_POINTS = 60
QUICK_DECISION_POINTS = 4
SCALING_GAMES = 24
QUICK_SCALING_GAMES = 4
MAX_WILDS = 4  # jokers per hand run 0..4 (the standard pack for 4 players holds 4)


# ---- the solver corpus -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CorpusHand:
    contract_no: int  # 1-based
    cards: tuple[Card, ...]
    wilds: int
    built_feasible: bool


def _take(pool: Counter[Card], cards: Sequence[Card]) -> bool:
    """Remove ``cards`` from ``pool`` if it holds them all; report whether it did."""
    need = Counter(cards)
    if any(pool[c] < k for c, k in need.items()):
        return False
    pool.subtract(need)
    return True


def _random_naturals(pool: Counter[Card], k: int, rng: random.Random) -> list[Card]:
    naturals = sorted(c for c in pool.elements() if c != JOKER)
    picked = rng.sample(naturals, k)
    pool.subtract(picked)
    return picked


def _meld_naturals(contract: Contract, pool: Counter[Card], rng: random.Random
                   ) -> list[list[Card]]:
    """Natural cards for each meld of ``contract`` (sets of 3, runs of 4), taken from ``pool``."""
    melds: list[list[Card]] = []
    for _ in range(contract.runs):
        while True:
            suit = rng.randrange(4)
            lo = rng.randint(1, 11)  # lo..lo+3, where rank 14 is the high ace
            run = [make_card(r, suit) for r in range(lo, lo + 4)]
            if _take(pool, run):
                melds.append(run)
                break
    for _ in range(contract.sets):
        while True:
            rank = rng.randint(1, 13)
            have = [c for c in (make_card(rank, s) for s in range(4)) for _ in range(pool[c])]
            if len(have) >= 3:
                group = rng.sample(have, 3)
                pool.subtract(group)
                melds.append(group)
                break
    return melds


def _feasible_hand(contract: Contract, size: int, wilds: int, pack: Sequence[Card],
                   rng: random.Random) -> list[Card]:
    """A hand that meets ``contract`` under standard's naturals (2 per set, 3 per run).

    Each meld may give up one natural to a joker (a set keeps 2 naturals, a run 3); the other
    jokers stay loose in hand. Where even that leaves too many cards (3 runs, 4 jokers, 12
    cards: 9 naturals + 4 jokers) the hand grows to the smallest size that can hold it."""
    pool = Counter(pack)
    pool[JOKER] -= wilds
    melds = _meld_naturals(contract, pool, rng)
    base = sum(len(m) for m in melds)
    most = min(wilds, len(melds))
    least = max(0, base + wilds - size)
    if least > most:
        size = base - most + wilds
        least = most
    replaced = rng.randint(least, most)
    cards: list[Card] = []
    for i, meld in enumerate(rng.sample(melds, len(melds))):
        if i < replaced:
            gone = meld.pop(rng.randrange(len(meld)))
            pool[gone] += 1  # the natural goes back to the pack; a joker takes its place
        cards.extend(meld)
    cards += [JOKER] * wilds
    cards += _random_naturals(pool, size - len(cards), rng)
    rng.shuffle(cards)
    return cards


def _random_hand(size: int, wilds: int, pack: Sequence[Card], rng: random.Random) -> list[Card]:
    pool = Counter(pack)
    pool[JOKER] = 0
    cards = [JOKER] * wilds + _random_naturals(pool, size - wilds, rng)
    rng.shuffle(cards)
    return cards


def build_corpus(rules: RuleSet, per_contract: int, seed: int = CORPUS_SEED) -> list[CorpusHand]:
    """``per_contract`` hands for each contract. Hand j: ``j % 5`` jokers, built feasible when
    ``(j // 5) % 2 == 0``, 12 cards when ``(j // 10) % 2 == 0`` else 13, so every mix of the
    three is equally common; a smaller corpus is a prefix of a larger one."""
    pack = new_deck(rules.decks_for(PLAYERS), rules.jokers_per_deck)
    assert pack.count(JOKER) >= MAX_WILDS
    out: list[CorpusHand] = []
    for no, contract in enumerate(rules.contracts, 1):
        rng = random.Random(seed * 100 + no)
        for j in range(per_contract):
            wilds = j % (MAX_WILDS + 1)
            feasible = (j // 5) % 2 == 0
            size = 12 + (j // 10) % 2
            cards = (_feasible_hand(contract, size, wilds, pack, rng) if feasible
                     else _random_hand(size, wilds, pack, rng))
            out.append(CorpusHand(no, tuple(cards), wilds, feasible))
    return out


def _percentile(sorted_ns: Sequence[int], q: float) -> float:
    """Nearest-rank percentile, in milliseconds."""
    if not sorted_ns:
        return 0.0
    k = min(len(sorted_ns) - 1, max(0, math.ceil(q / 100 * len(sorted_ns)) - 1))
    return sorted_ns[k] / 1e6


# ---- the runs ------------------------------------------------------------------------------

@dataclass
class EngineResult:
    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    cpu_ns: int = 0
    mix: Counter[str] = field(default_factory=Counter)


def run_engine(budget_s: float, progress: Progress | None = None) -> EngineResult:
    rules = RuleSet.preset(PRESET)
    res = EngineResult()
    budget_ns = int(budget_s * 1e9)
    spent_ns = 0
    task = progress.add_task("engine: random games", total=budget_ns) if progress else None
    seed = ENGINE_SEED
    while spent_ns < budget_ns:
        game = Game(rules, PLAYERS, seed=seed)
        rng = random.Random(seed)
        apply = game.apply
        t0 = time.perf_counter_ns()
        c0 = time.thread_time_ns()
        while not game.over:
            apply(random_action(game, rng))
        spent_ns += time.perf_counter_ns() - t0
        res.cpu_ns += time.thread_time_ns() - c0
        res.games += 1
        res.actions += len(game.actions)
        res.mix.update(a.type for a in game.actions)  # counted outside the clock
        seed += 1
        if progress is not None and task is not None:
            progress.update(task, completed=min(spent_ns, budget_ns))
    res.seconds = spent_ns / 1e9
    return res


@dataclass
class SolverResult:
    calls: int = 0
    built_feasible: int = 0
    feasible: int = 0
    missed: int = 0  # built feasible, yet the solver found no go-down (a solver bug)
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    cpu_p50_ms: float = 0.0  # the thread's CPU time per call (a busy machine's waits left out)
    cpu_p99_ms: float = 0.0
    by_contract: list[dict[str, Any]] = field(default_factory=list)


def run_solver(per_contract: int, progress: Progress | None = None) -> SolverResult:
    rules = RuleSet.preset(PRESET)
    corpus = build_corpus(rules, per_contract)  # built before any timing
    task = progress.add_task("solver: corpus", total=len(corpus)) if progress else None
    contracts = rules.contracts
    all_ns: list[int] = []
    per: dict[int, list[int]] = {no: [] for no in range(1, len(contracts) + 1)}
    feasible_per: Counter[int] = Counter()
    res = SolverResult(calls=len(corpus))
    clock = time.perf_counter_ns
    cpu_clock = time.thread_time_ns  # what the call cost this thread, whatever else runs
    cpu_ns: list[int] = []
    for i, h in enumerate(corpus):
        contract = contracts[h.contract_no - 1]
        c0 = cpu_clock()
        t0 = clock()
        gd = best_go_down(h.cards, contract, rules)
        dt = clock() - t0
        cpu_ns.append(cpu_clock() - c0)
        all_ns.append(dt)
        per[h.contract_no].append(dt)
        res.built_feasible += h.built_feasible
        if gd is not None:
            res.feasible += 1
            feasible_per[h.contract_no] += 1
        elif h.built_feasible:
            res.missed += 1
        if progress is not None and task is not None and i % 500 == 499:
            progress.update(task, completed=i + 1)
    if progress is not None and task is not None:
        progress.update(task, completed=len(corpus))
    all_ns.sort()
    res.p50_ms = _percentile(all_ns, 50)
    res.p99_ms = _percentile(all_ns, 99)
    cpu_ns.sort()
    res.cpu_p50_ms = _percentile(cpu_ns, 50)
    res.cpu_p99_ms = _percentile(cpu_ns, 99)
    for no, times in per.items():
        times.sort()
        res.by_contract.append({
            "contract": no, "describe": contracts[no - 1].describe(), "hands": len(times),
            "feasible": feasible_per[no], "p50_ms": round(_percentile(times, 50), 4),
            "p99_ms": round(_percentile(times, 99), 4),
        })
    return res


# ---- the bots -------------------------------------------------------------------------------

def run_basic_games(budget_s: float) -> tuple[int, float]:
    """Whole 4-player ``standard`` games among basic bots until ``budget_s``: (games, seconds)."""
    from .simulate import play_game, specs_for
    spent = 0.0
    games = 0
    while spent < budget_s:
        spec = specs_for(games + 1, PRESET, {}, ["basic"] * PLAYERS, BOT_SEED)[games]
        t0 = time.perf_counter()
        play_game(spec)
        spent += time.perf_counter() - t0
        games += 1
    return games, spent


def decision_points(count: int) -> list[tuple[Any, list[Any]]]:
    """``count`` (view, legal actions) pairs with a real choice, from seeded basic games, spread
    evenly over them (the same points on every run)."""
    from .bots import BasicBot
    from .match import Match
    rules = RuleSet.preset(PRESET)
    points: list[tuple[Any, list[Any]]] = []
    seed = BOT_SEED
    while len(points) < 4 * count:
        match = Match(Game(rules, PLAYERS, seed=seed), [BasicBot() for _ in range(PLAYERS)])
        while (d := match.decision()) is not None:
            move = match.prepare(d.seat)
            if move.only is None:
                points.append((move.view, list(move.legal)))
            match.play(match.accept(move, move.decide()))
        seed += 1
    step = len(points) / count
    return [points[int(i * step)] for i in range(count)]


def run_expert_decisions(count: int) -> tuple[list[int], list[int]]:
    """Wall-clock and CPU nanoseconds of the default expert at each decision point."""
    from .bots import make_bot
    points = decision_points(count)
    bot = make_bot("expert")
    wall: list[int] = []
    cpu: list[int] = []
    for i, (view, legal) in enumerate(points):
        rng = random.Random(BOT_SEED + i)
        c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
        bot.choose(view, legal, rng)
        wall.append(time.perf_counter_ns() - t0)
        cpu.append(time.thread_time_ns() - c0)
    return sorted(wall), sorted(cpu)


def run_scaling(backend: str, games: int) -> float | None:
    """Games/s with 2 workers over games/s with 1, through the simulator's code path."""
    from .simulate import run_local, run_ray, specs_for
    specs = specs_for(games, PRESET, {}, ["basic"] * PLAYERS, BOT_SEED)
    seconds: dict[int, float] = {}
    if backend == "local":
        for workers in (1, 2):
            t0 = time.perf_counter()
            run_local(specs, workers, False)
            seconds[workers] = time.perf_counter() - t0
    else:
        try:
            import ray  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            return None
        for workers in (1, 2):
            ray.init(num_cpus=workers, log_to_driver=False, include_dashboard=False)
            try:
                run_ray(specs[:workers], workers, False, None)  # workers up before the clock
                t0 = time.perf_counter()
                run_ray(specs, workers, False, None)
                seconds[workers] = time.perf_counter() - t0
            finally:
                ray.shutdown()
    return round(seconds[1] / seconds[2], 3) if seconds[2] else None


# ---- the command ----------------------------------------------------------------------------

class MeasuredLess(RuntimeError):
    """A round that did not measure what the bench says it measures."""


@dataclass(frozen=True)
class EnvRound:
    steps: int  # agent steps taken
    games: int  # games played to their end
    env_s: float  # seconds inside the environment's calls
    loop_s: float  # seconds of the whole loop
    env_cpu_s: float  # CPU seconds of this thread inside the environment's calls

    @property
    def env_rate(self) -> float:
        return self.steps / self.env_s if self.env_s else 0.0

    @property
    def env_cpu_rate(self) -> float:
        """Steps per CPU second: what one core gives when others share the machine."""
        return self.steps / self.env_cpu_s if self.env_cpu_s else 0.0

    @property
    def loop_rate(self) -> float:
        return self.steps / self.loop_s if self.loop_s else 0.0


def measure_env(budget_s: float, seed: int = ENGINE_SEED) -> EnvRound | None:
    """One round of random masked play in the learning environment (``bench env`` runs
    several): whole games until the budget is spent and one game at least has ended, the last
    counted up to where the budget ran out. ``MeasuredLess`` when a game was cut short (an id
    the mask offered was refused: the games would be shorter than real ones); None without the
    ``rl`` extra."""
    try:
        import numpy as np

        from .rl import env as make_env
    except ImportError:
        return None
    e = make_env(rules=PRESET, players=PLAYERS)
    pick = random.Random(seed)
    clock, cpu = time.perf_counter, time.thread_time
    steps = games = 0
    inside = inside_cpu = 0.0
    t0 = clock()
    c = cpu()
    e.reset(seed=seed)
    inside += clock() - t0
    inside_cpu += cpu() - c
    deadline = t0 + budget_s
    while True:
        t, c = clock(), cpu()
        obs, _, term, trunc, _ = e.last()
        inside += clock() - t
        inside_cpu += cpu() - c
        if term or trunc:
            if trunc:
                raise MeasuredLess(f"game {games + 1} was cut short after {steps} steps: an "
                                   "id its mask offered was refused")
            games += 1
            t, c = clock(), cpu()
            e.reset()
            inside += clock() - t
            inside_cpu += cpu() - c
            if clock() >= deadline:
                break
            continue
        ids = np.flatnonzero(obs["action_mask"])
        action = int(ids[pick.randrange(len(ids))])
        t, c = clock(), cpu()
        e.step(action)
        inside += clock() - t
        inside_cpu += cpu() - c
        steps += 1
        if games and steps % 256 == 0 and clock() >= deadline:
            break
    loop = clock() - t0
    return EnvRound(steps, games, inside, loop, inside_cpu)


def run(quick: bool = False, show_progress: bool = True) -> dict[str, Any]:
    """Both measurements, as the ``--json`` object."""
    budget = QUICK_ENGINE_BUDGET_S if quick else ENGINE_BUDGET_S
    per_contract = QUICK_CORPUS_PER_CONTRACT if quick else CORPUS_PER_CONTRACT
    progress = Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                        TimeElapsedColumn(), console=Console(stderr=True), transient=True,
                        disable=not show_progress)
    with progress:
        eng = run_engine(budget, progress)
        sol = run_solver(per_contract, progress)
        task = progress.add_task("bots: basic games, expert decisions, scaling", total=4)
        basic_games, basic_s = run_basic_games(QUICK_BASIC_BUDGET_S if quick else BASIC_BUDGET_S)
        progress.advance(task)
        wall, cpu = run_expert_decisions(QUICK_DECISION_POINTS if quick else DECISION_POINTS)
        progress.advance(task)
        scaling_games = QUICK_SCALING_GAMES if quick else SCALING_GAMES
        local_scaling = run_scaling("local", scaling_games)
        progress.advance(task)
        ray_scaling = None if quick else run_scaling("ray", scaling_games)
        progress.advance(task)
        env_task = progress.add_task("learning environment: random masked play", total=1)
        env = measure_env(QUICK_ENV_BUDGET_S if quick else ENV_BUDGET_S)
        progress.advance(env_task)
    return {
        "core": compiled.core,  # "compiled" or "python": which core was measured
        "core_detail": compiled.describe(),
        "engine_actions_per_s": round(eng.actions / eng.seconds, 1) if eng.seconds else 0.0,
        "engine_games_per_s": round(eng.games / eng.seconds, 3) if eng.seconds else 0.0,
        "solver_p50_ms": round(sol.p50_ms, 4),
        "solver_p99_ms": round(sol.p99_ms, 4),
        "solver_cpu_p50_ms": round(sol.cpu_p50_ms, 4),
        "solver_cpu_p99_ms": round(sol.cpu_p99_ms, 4),
        "action_mix": dict(sorted(eng.mix.items())),
        "engine_games": eng.games,
        "engine_actions": eng.actions,
        "engine_seconds": round(eng.seconds, 3),
        # CPU time of the benchmark's thread: what one core gives when others share the machine
        "engine_cpu_actions_per_s": round(eng.actions / (eng.cpu_ns / 1e9), 1)
        if eng.cpu_ns else 0.0,
        "solver_calls": sol.calls,
        "solver_built_feasible": sol.built_feasible,
        "solver_feasible": sol.feasible,
        "solver_missed_feasible": sol.missed,
        "solver_by_contract": sol.by_contract,
        "basic_games_per_s": round(basic_games / basic_s, 3) if basic_s else 0.0,
        "basic_games": basic_games,
        "expert_decision_p50_s": round(_percentile(wall, 50) / 1000, 4),
        "expert_decision_p95_s": round(_percentile(wall, 95) / 1000, 4),
        "expert_decision_cpu_p50_s": round(_percentile(cpu, 50) / 1000, 4),
        "expert_decision_cpu_p95_s": round(_percentile(cpu, 95) / 1000, 4),
        "expert_decisions": len(wall),
        "local_scaling_2v1": local_scaling,
        "ray_scaling_2v1": ray_scaling,
        "scaling_games": scaling_games,
        "env_steps_per_s": round(env.env_rate, 1) if env else None,
        "env_loop_steps_per_s": round(env.loop_rate, 1) if env else None,
        "env_steps": env.steps if env else None,
        "env_games": env.games if env else None,
        "preset": PRESET,
        "players": PLAYERS,
        "quick": quick,
    }


def _print_tables(out: dict[str, Any]) -> None:
    console = Console()
    t = Table(title=f"liverpool bench ({out['preset']}, {out['players']} players"
                    f"{', quick' if out['quick'] else ''}; core: {out['core']})")
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_row("engine actions/s", f"{out['engine_actions_per_s']:,.0f}")
    t.add_row("engine actions/s of CPU time", f"{out['engine_cpu_actions_per_s']:,.0f}")
    t.add_row("engine games/s", f"{out['engine_games_per_s']:.2f}")
    t.add_row("engine games / actions / s",
              f"{out['engine_games']} / {out['engine_actions']:,} / {out['engine_seconds']:.1f}")
    t.add_row("solver p50 (ms)", f"{out['solver_p50_ms']:.3f}")
    t.add_row("solver p99 (ms)", f"{out['solver_p99_ms']:.3f}")
    t.add_row("solver p50 / p99 of CPU time (ms)",
              f"{out['solver_cpu_p50_ms']:.3f} / {out['solver_cpu_p99_ms']:.3f}")
    t.add_row("solver corpus feasible",
              f"{out['solver_feasible']:,} of {out['solver_calls']:,} "
              f"({out['solver_built_feasible']:,} built feasible)")
    if out["solver_missed_feasible"]:
        t.add_row("[red]built feasible, solver found none[/]",
                  str(out["solver_missed_feasible"]))
    t.add_row("basic games/s (4 basic bots)", f"{out['basic_games_per_s']:.2f}")
    t.add_row("expert decision p50 / p95 (s)",
              f"{out['expert_decision_p50_s']:.3f} / {out['expert_decision_p95_s']:.3f}")
    t.add_row("expert decision CPU p50 / p95 (s)",
              f"{out['expert_decision_cpu_p50_s']:.3f} / {out['expert_decision_cpu_p95_s']:.3f}")
    for key, label in (("local_scaling_2v1", "local"), ("ray_scaling_2v1", "ray")):
        value = out[key]
        t.add_row(f"{label}: games/s, 2 workers over 1",
                  "not measured" if value is None else f"{value:.2f}x")
    t.add_row("learning environment steps/s (random masked play)",
              "not measured (no rl extra)" if out["env_steps_per_s"] is None
              else f"{out['env_steps_per_s']:,.0f} ({out['env_loop_steps_per_s']:,.0f} with "
                   f"the random player; {out['env_steps']:,} steps, {out['env_games']} games)")
    console.print(t)
    c = Table(title="solver by contract")
    for col in ("contract", "hands", "feasible", "p50 ms", "p99 ms"):
        c.add_column(col, justify="right" if col != "contract" else "left")
    for row in out["solver_by_contract"]:
        c.add_row(f"{row['contract']}: {row['describe']}", f"{row['hands']:,}",
                  f"{row['feasible']:,}", f"{row['p50_ms']:.3f}", f"{row['p99_ms']:.3f}")
    console.print(c)
    m = Table(title="action mix")
    m.add_column("type")
    m.add_column("count", justify="right")
    m.add_column("share", justify="right")
    total = sum(out["action_mix"].values()) or 1
    for kind, k in sorted(out["action_mix"].items(), key=lambda kv: -kv[1]):
        m.add_row(kind, f"{k:,}", f"{100 * k / total:.1f}%")
    console.print(m)
    console.print(f"core: {out['core_detail']}")


def main(args: argparse.Namespace) -> int:
    target = getattr(args, "target", "engine")
    if target in ("server", "peer", "bot-ratings", "ladder", "review", "env"):
        import importlib  # the web stack (or OpenSpiel) loads only for its target
        module = {"server": "liverpool.benchmarks.cluster", "peer": "liverpool.peerbench",
                  "bot-ratings": "liverpool.benchmarks.botratings",
                  "ladder": "liverpool.benchmarks.ladder",
                  "review": "liverpool.benchmarks.review",
                  "env": "liverpool.benchmarks.envsteps"}[target]
        return int(importlib.import_module(module).main(args))
    out = run(quick=bool(getattr(args, "quick", False)))
    if getattr(args, "json", False):
        print(json.dumps(out))
    else:
        _print_tables(out)
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m liverpool.bench", description=__doc__)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quick", action="store_true", help="a small corpus and a short run")
    return p


if __name__ == "__main__":
    sys.exit(main(_parser().parse_args()))
