"""``liverpool bench env``: the learning environment's throughput, agent steps per second of
random masked play, in rounds (the median is the figure quoted).

Domain words: *agent step* (one ``env.step`` of the PettingZoo environment: one id of the action
space, ``rl.codec``), *random masked play* (each step a uniform choice among the ids the
observation's action mask allows, from a seeded ``random.Random``), *environment time* (the
clock inside the environment's own calls: ``last`` with its observation, ``step``, ``reset``),
*CPU time* (the thread's, inside the same calls: steady where other jobs share the machine),
*loop time* (the whole loop, the random player's choice included).

The environment is ``liverpool.rl.env`` as users get it (checked, wrapped), ``standard``, 4
players, observing every step; whole games from one seed until the budget is spent and one
game at least has ended. Three rates are reported: environment steps per second (the
environment's throughput, the figure quoted), the same per CPU second, and loop steps per
second (what a random agent written in NumPy and Python gets). A game cut short (an id its mask
offered, refused) fails the command: the games would be shorter than real ones.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.table import Table

from .. import compiled
from ..bench import (
    ENGINE_SEED,
    ENV_BUDGET_S,
    PLAYERS,
    PRESET,
    QUICK_ENV_BUDGET_S,
    EnvRound,
    MeasuredLess,
)
from ..bench import measure_env as measure


def main(args: argparse.Namespace) -> int:
    quick = bool(getattr(args, "quick", False))
    rounds = max(1, int(getattr(args, "rounds", 3) or 3))
    budget = QUICK_ENV_BUDGET_S if quick else ENV_BUDGET_S
    done: list[EnvRound] = []
    for _ in range(rounds):
        try:
            r = measure(budget, ENGINE_SEED)
        except MeasuredLess as e:
            print(f"liverpool bench env: {e}", file=sys.stderr)
            return 1
        if r is None:
            print("liverpool bench env: needs the rl extra (pip install 'liverpool-rummy[rl]')",
                  file=sys.stderr)
            return 1
        done.append(r)
    out: dict[str, Any] = {
        "preset": PRESET, "players": PLAYERS, "core": compiled.core, "quick": quick,
        "budget_s": budget,
        "rounds": [asdict(r) | {"env_steps_per_s": round(r.env_rate, 1),
                                "env_cpu_steps_per_s": round(r.env_cpu_rate, 1),
                                "loop_steps_per_s": round(r.loop_rate, 1)} for r in done],
        "env_steps_per_s": round(statistics.median(r.env_rate for r in done), 1),
        "env_cpu_steps_per_s": round(statistics.median(r.env_cpu_rate for r in done), 1),
        "loop_steps_per_s": round(statistics.median(r.loop_rate for r in done), 1),
    }
    if getattr(args, "json", False):
        print(json.dumps(out))
        return 0
    t = Table(title=f"learning environment, random masked play ({PRESET}, {PLAYERS} players; "
                    f"core: {compiled.core})")
    for col in ("round", "steps", "games", "env steps/s", "of CPU time", "loop steps/s"):
        t.add_column(col, justify="right")
    for i, r in enumerate(done, 1):
        t.add_row(str(i), f"{r.steps:,}", str(r.games), f"{r.env_rate:,.0f}",
                  f"{r.env_cpu_rate:,.0f}", f"{r.loop_rate:,.0f}")
    t.add_row("median", "", "", f"{out['env_steps_per_s']:,.0f}",
              f"{out['env_cpu_steps_per_s']:,.0f}", f"{out['loop_steps_per_s']:,.0f}")
    Console().print(t)
    return 0
