"""Train the learned choices (``liverpool.bots.learned``): seeded games among basic bots, an
oracle that sees every hand values each candidate, and a least-squares fit per contract kind of
those values on what the seat could see.

    python scripts/train_learned.py gen DATA.json [--decision discard|take|buy] [--games 40]
        [--seed 5000] [--playouts 12] [--workers 2] [--every 2]
        [--tables arena:2,arena:4,standard:4,house:4,classic:4,hoyle:4]
    python scripts/train_learned.py fit DATA.json [--ridge 10] [--write]

``gen`` plays ``games`` games per table; at every ``every``-th decision of the chosen kind it
values each candidate by ``playouts`` playouts of the rest of the hand from the TRUE deal: the
stock shuffled again for each playout, the same shuffles and random numbers for every candidate,
scored by the seat's points minus the others' mean (the expert's playout score). The decisions:
``discard``, a seat not down that must discard (no go-down, swap or lay-off open), among
``learned.candidates``; ``take``, a seat not down that may take the top discard or draw, and
``buy``, one that may buy it or pass, where the card would help (``learned.option_pair``).
``fit`` centres features and values within each position (the model ranks the candidates of one
hand) and fits ridge least squares per contract kind on the positions of even-numbered games; it
reports, on the odd-numbered ones, the oracle value the model's choice saves against the basic
choice (points a decision, with its standard error) and how often it agrees; a contract kind
without a clear gain gets no weights (the basic choice stands). ``--write`` writes the weights
into ``src/liverpool/bots/discard_weights.py`` or ``option_weights.py``. Same arguments, same
data, same weights.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from liverpool.actions import Action
from liverpool.bots import BasicBot, option_weights
from liverpool.bots.heuristics import keep_values
from liverpool.bots.learned import (
    DECISIONS,
    FEATURES,
    KINDS,
    OPTION_FEATURES,
    candidates,
    contract_kind,
    features,
    option_features,
    option_pair,
)
from liverpool.bots.policy import play_out
from liverpool.engine import Game
from liverpool.rules import RuleSet

HORIZON_ROUNDS = 25  # a playout stops after this many rounds (scored by the cards held)
BOTS = Path(__file__).resolve().parent.parent / "src/liverpool/bots"


def _values(game: Game, seat: int, cands: list[Action], seeds: list[int]) -> list[float]:
    """Each candidate's mean playout score from the true deal, the stock shuffled per seed."""
    values = []
    for a in cands:
        total = 0.0
        for s in seeds:
            g = game.clone()
            random.Random(s).shuffle(g.stock)
            g.apply(a)
            total += play_out(g, seat, random.Random(s), HORIZON_ROUNDS * len(game.players))
        values.append(total / len(seeds))
    return values


def game_positions(args: tuple[str, int, int, int, int, str]) -> list[dict[str, Any]]:
    """One seeded game among basic bots; its valued positions of one decision (every
    ``every``-th)."""
    preset, players, seed, playouts, every, decision = args
    met = 0
    game = Game(RuleSet.preset(preset), players, seed=seed)
    rng = random.Random(seed)
    basic = BasicBot()
    out: list[dict[str, Any]] = []
    while not game.over:
        seats = game.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        legal = game.legal_actions(seat)
        view = game.view_for(seat)
        first = basic.decide(view, legal)[0]
        cands: list[Action] = []
        x: list[list[float]] = []
        if decision == "discard":
            if len(legal) > 1 and {a.type for a in legal} == {"discard"} \
                    and not view.down[seat]:
                keep = keep_values(view.hand, view.contract[seat], view.ruleset, False,
                                   view.melds)
                cands = candidates(view, keep, legal)
                met += 1
                if len(cands) >= 2 and first in cands:
                    x = features(view, cands, keep)
        else:
            pair = option_pair(view, legal)
            if pair is not None and pair[0] == decision:
                met += 1
                cands = [pair[1], pair[2]]
                if first in cands:
                    x = [option_features(view, view.discard[-1]),
                         [0.0] * len(OPTION_FEATURES)]
        if x and met % every == 0:
            seeds = [rng.getrandbits(32) for _ in range(playouts)]
            out.append({"table": f"{preset}:{players}", "seed": seed,
                        "kind": contract_kind(view), "first": cands.index(first),
                        "x": x, "y": _values(game, seat, cands, seeds)})
        game.apply(first)
    return out


def gen(path: str, tables: list[tuple[str, int]], games: int, seed: int, playouts: int,
        workers: int, every: int, decision: str = "discard") -> None:
    jobs = [(p, n, seed + 1000 * t + g, playouts, every, decision)
            for t, (p, n) in enumerate(tables) for g in range(games)]
    data: list[dict[str, Any]] = []
    with ProcessPoolExecutor(workers) as ex:
        for i, got in enumerate(ex.map(game_positions, jobs), 1):
            data.extend(got)
            print(f"{i}/{len(jobs)} games, {len(data)} positions", file=sys.stderr, flush=True)
    names = FEATURES if decision == "discard" else OPTION_FEATURES
    Path(path).write_text(json.dumps({"decision": decision, "features": list(names),
                                      "playouts": playouts,
                                      "positions": data}), encoding="utf-8")


def _centred(rows: list[list[float]]) -> list[list[float]]:
    k = len(rows)
    means = [sum(r[j] for r in rows) / k for j in range(len(rows[0]))]
    return [[v - m for v, m in zip(r, means, strict=True)] for r in rows]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a small dense system)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col and m[col][col] != 0.0:
                f = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    return [m[i][n] / m[i][i] if m[i][i] != 0.0 else 0.0 for i in range(n)]


def fit_kind(positions: list[dict[str, Any]], ridge: float, nf: int) -> list[float]:
    xtx = [[0.0] * nf for _ in range(nf)]
    xty = [0.0] * nf
    for p in positions:
        xs = _centred(p["x"])
        ys = [y - sum(p["y"]) / len(p["y"]) for y in p["y"]]
        for x, y in zip(xs, ys, strict=True):
            for i in range(nf):
                xty[i] += x[i] * y
                for j in range(nf):
                    xtx[i][j] += x[i] * x[j]
    for i in range(nf):
        xtx[i][i] += ridge
    return _solve(xtx, xty)


def _saves(weights: dict[str, list[float]], positions: list[dict[str, Any]]
           ) -> tuple[float, float, float] | None:
    """The oracle value the model's choice saves against the basic choice (mean and standard
    error) and how often the two agree; None below two positions."""
    gains, agree = [], 0
    for p in positions:
        w = weights[p["kind"]]
        if w:
            cost = [sum(a * b for a, b in zip(x, w, strict=True)) for x in p["x"]]
            pick = min(range(len(cost)), key=cost.__getitem__)
        else:
            pick = p["first"]  # no weights: the basic choice
        gains.append(p["y"][p["first"]] - p["y"][pick])
        agree += pick == p["first"]
    if len(gains) < 2:
        return None
    mean = sum(gains) / len(gains)
    se = math.sqrt(sum((g - mean) ** 2 for g in gains) / (len(gains) - 1) / len(gains))
    return mean, se, agree / len(gains)


def fit(path: str, ridge: float, write: bool) -> None:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    decision = data.get("decision", "discard")
    names = FEATURES if decision == "discard" else OPTION_FEATURES
    if data["features"] != list(names):
        raise SystemExit(f"{path} was made with other features: generate it again")
    positions = data["positions"]
    train = [p for p in positions if p["seed"] % 2 == 0]
    test = [p for p in positions if p["seed"] % 2 == 1]
    weights = {k: fit_kind([p for p in train if p["kind"] == k], ridge, len(names))
               for k in KINDS}
    print(f"{decision}: {len(train)} training positions, {len(test)} held out")
    for k in KINDS:
        low = _saves(weights, [p for p in test if p["kind"] == k])
        if low is None or low[0] - low[1] <= 0.0:
            weights[k] = []  # no clear gain held out: the basic choice stands
            print(f"  {k}: no clear gain held out, the basic choice kept")
    for label, group in [("all", test), *((k, [p for p in test if p["kind"] == k])
                                          for k in KINDS),
                         *((t, [p for p in test if p["table"] == t])
                           for t in sorted({p["table"] for p in test}))]:
        got = _saves(weights, group)
        if got is None:
            continue
        mean, se, same = got
        print(f"  {label:12s} {len(group):6d} positions: saves {mean:+.3f} +- {se:.3f} points a "
              f"decision against the basic choice; same choice {same:.0%}")
    for k in KINDS:
        print(f"  {k}: " + ", ".join(f"{n}={w:+.3f}" for n, w in zip(names, weights[k],
                                                                      strict=False)))
    if write:
        _write(decision, weights)


def _rows(weights: dict[str, Any]) -> str:
    out = []
    for k in KINDS:
        if not weights[k]:
            out.append(f'    "{k}": (),')
            continue
        out.append(f'    "{k}": (\n' + textwrap.fill(
            ", ".join(f"{w:.6g}" for w in weights[k]) + ",", 96, initial_indent=" " * 8,
            subsequent_indent=" " * 8) + "\n    ),")
    return "\n".join(out)


def _write(decision: str, weights: dict[str, list[float]]) -> None:
    """Write one decision's weights into the package (an option's beside the other option's)."""
    if decision == "discard":
        path = BOTS / "discard_weights.py"
        text = ('"""Weights of the learned discard (``learned``), one row per contract kind in '
                'the order of\n``learned.FEATURES`` (an empty row: the basic choice stands). '
                'Written by\n``scripts/train_learned.py fit``; do not edit by hand."""\n\n'
                f"WEIGHTS: dict[str, tuple[float, ...]] = {{\n{_rows(weights)}\n}}\n")
    else:
        path = BOTS / "option_weights.py"
        take = weights if decision == "take" else option_weights.TAKE
        buy = weights if decision == "buy" else option_weights.BUY
        text = ('"""Weights of the learned take and buy (``learned``), one row per contract '
                'kind in the order of\n``learned.OPTION_FEATURES`` (an empty row: the basic '
                'choice stands). Written by\n``scripts/train_learned.py fit``; do not edit by '
                'hand."""\n\n'
                f"TAKE: dict[str, tuple[float, ...]] = {{\n{_rows(take)}\n}}\n"
                f"BUY: dict[str, tuple[float, ...]] = {{\n{_rows(buy)}\n}}\n")
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("data")
    g.add_argument("--decision", choices=DECISIONS, default="discard")
    g.add_argument("--games", type=int, default=40)
    g.add_argument("--seed", type=int, default=5000)
    g.add_argument("--playouts", type=int, default=12)
    g.add_argument("--workers", type=int, default=2)
    g.add_argument("--every", type=int, default=2)
    g.add_argument("--tables", default="arena:2,arena:4,standard:4,house:4,classic:4,hoyle:4")
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--ridge", type=float, default=10.0)
    f.add_argument("--write", action="store_true")
    a = ap.parse_args()
    if a.cmd == "gen":
        tables = [(t.split(":")[0], int(t.split(":")[1])) for t in a.tables.split(",")]
        gen(a.data, tables, a.games, a.seed, a.playouts, a.workers, a.every, a.decision)
    else:
        fit(a.data, a.ridge, a.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
