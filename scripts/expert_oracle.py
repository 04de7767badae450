"""The expert's decisions judged by an oracle that sees every hand: a fast, low-noise screen
for changes to the expert, beside (never instead of) whole seeded games.

    python scripts/expert_oracle.py gen POINTS.pkl --preset arena --players 2 --games 16
        [--seed 9100] [--playouts 32] [--every 4]
    python scripts/expert_oracle.py eval POINTS.pkl TAG [--patch expert.NAME=VALUE,...]
    python scripts/expert_oracle.py pair POINTS.pkl.A.json POINTS.pkl.B.json
    python scripts/expert_oracle.py where POINTS.pkl POINTS.pkl.TAG.json
    python scripts/expert_oracle.py room POINTS.pkl [POINTS.pkl.TAG.json ...]

``gen`` plays seeded games among basic bots and, at every ``every``-th decision of seat 0 that
is a plain discard or a take/draw/buy/pass choice, values each option (the basic choice, the
six discards of lowest keep value, or every draw option) by ``playouts`` playouts of the rest of
the hand from the TRUE state (the stock shuffled again for each playout, the same shuffle and
random numbers for every option): the points seat 0 saves against the basic choice, as far as
the basic policy plays on. ``eval`` asks the installed expert (after it has seen the seat's
earlier views of the game) for its choice at each point and prints the mean oracle gain of its
choices over the basic choices, with a standard error; it writes the gain per point to
``POINTS.pkl.TAG.json``. ``pair`` compares two such files point by point (the same points, so
the difference is much less noisy than either figure). ``where`` splits one such file's gains
by the contract being played (sets only, runs only, or both) and the kind of decision (the
discard, or taking, drawing and buying): where a version wins or loses its points. ``room``
says how much there is to win, per kind of decision (the discard, the take or draw, the buy; of
a seat down or not): the oracle's own best option chosen on half of its playouts and valued on
the other half (and the other way round), so that the room is not inflated by the noise of its
choice (the best of several noisy means is better than its option really is); beside it, each
given version's gain, so what share of the room a version takes is read off one table.
``--patch`` sets module constants of ``liverpool.bots`` (the compiled core reads them at run
time too) to try a setting without a rebuild. The oracle knows the hidden cards, so its best
choice bounds what any search could find; it plays the rest of the hand as the basic bot, so it
values one decision, not a plan.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import pickle
import random
import sys
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from liverpool.actions import Action
from liverpool.bots import BasicBot, make_bot
from liverpool.bots.heuristics import keep_values
from liverpool.bots.policy import play_out
from liverpool.engine import Game, SeatView
from liverpool.rules import RuleSet

DRAW_TYPES = {"take_discard", "draw", "no_draw", "buy", "pass"}


def options(view: SeatView, legal: list[Action], first: Action) -> list[Action] | None:
    """The options the oracle values at a decision point, the basic choice first (None: not a
    point it judges)."""
    types = {a.type for a in legal}
    if types == {"discard"}:
        keep = keep_values(view.hand, view.contract[view.seat], view.ruleset,
                           view.down[view.seat], view.melds)
        disc = sorted((a for a in legal if a.type == "discard"),
                      key=lambda a: (keep[a.card or 0], -(a.card or 0)))
        return list(dict.fromkeys([first, *disc[:6]]))
    if types <= DRAW_TYPES:
        return list(dict.fromkeys([first, *legal]))[:6]
    return None


def gen(out: str, preset: str, players: int, games: int, seed: int, playouts: int,
        every: int) -> None:
    points: list[dict[str, Any]] = []
    basic = BasicBot()
    for gi in range(games):
        game = Game(RuleSet.preset(preset), players, seed=seed + gi)
        rng = random.Random(seed + gi)
        views: list[SeatView] = []
        k = 0
        while not game.over:
            seats = game.to_act()
            seat = seats[0] if len(seats) == 1 else rng.choice(seats)
            legal = game.legal_actions(seat)
            view = game.view_for(seat)
            if seat == 0:
                views.append(view)
            first = basic.decide(view, legal)[0]
            if seat == 0 and len(legal) > 1:
                opts = options(view, legal, first)
                if opts and len(opts) > 1 and k % every == 0:
                    seeds = [rng.getrandbits(32) for _ in range(playouts)]
                    vals: dict[Action, list[float]] = {}
                    for a in opts:
                        vals[a] = []
                        for s in seeds:
                            g = game.clone()
                            random.Random(s).shuffle(g.stock)
                            g.apply(a)
                            vals[a].append(play_out(g, seat, random.Random(s), 1000))
                    points.append({"seat": seat, "views": list(views), "legal": legal,
                                   "first": first, "vals": vals, "game": gi})
                k += 1  # every decision of seat 0 with a choice counts toward ``every``
            game.apply(basic.choose(view, legal, rng))
        print(f"game {gi}: {len(points)} points", file=sys.stderr, flush=True)
    with open(out, "wb") as f:
        pickle.dump(points, f)


def patch(items: str) -> None:
    for item in filter(None, items.split(",")):
        name, value = item.split("=")
        mod, attr = name.rsplit(".", 1)
        m = importlib.import_module("liverpool.bots." + mod)
        setattr(m, attr, type(getattr(m, attr))(value))


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def se(xs: list[float]) -> float:
    m = mean(xs)
    return float((sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) ** 0.5)


def mean_se(xs: list[float]) -> tuple[float, float]:
    """The mean and its standard error (infinite for a single value: no error bar)."""
    return mean(xs), se(xs) if len(xs) > 1 else math.inf


def evaluate(path: str, tag: str, spec: str) -> None:
    with open(path, "rb") as f:
        points = pickle.load(f)
    per: list[float | None] = []
    searched = changed = 0
    start = time.process_time()
    for n, p in enumerate(points):
        bot = make_bot(spec)
        note = getattr(bot, "note", None)
        for v in p["views"][:-1]:  # what the seat saw before (for a bot that remembers)
            if note is not None:
                note(v)
        before = getattr(bot, "worlds_sampled", 0)
        a = bot.choose(p["views"][-1], p["legal"], random.Random(1000 + n))
        searched += getattr(bot, "worlds_sampled", 0) > before
        vals = p["vals"]
        if a not in vals:
            per.append(None)
            continue
        per.append(mean(vals[p["first"]]) - mean(vals[a]))
        changed += a != p["first"]
    with open(f"{path}.{tag}.json", "w", encoding="utf-8") as f:
        json.dump(per, f)
    gains = [g for g in per if g is not None]
    print(f"{path} {tag}: points={len(points)} searched={searched} changed={changed} "
          f"unjudged={len(per) - len(gains)} gain over basic={mean(gains):+.3f} "
          f"+- {se(gains):.3f} (1 se) points a decision; cpu={time.process_time() - start:.0f}s")


def pair(a_path: str, b_path: str) -> None:
    with open(a_path, encoding="utf-8") as f:
        a = json.load(f)
    with open(b_path, encoding="utf-8") as f:
        b = json.load(f)
    d = [y - x for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    print(f"B - A gain: {mean(d):+.3f} +- {se(d):.3f} (1 se) points a decision, n={len(d)}, "
          f"different choices at {sum(x != 0 for x in d)}")


def contract_kind(view: SeatView) -> str:
    contract = view.contract[view.seat]
    if not contract.runs:
        return "sets only"
    return "runs only" if not contract.sets else "sets and runs"


def where_rows(points: list[dict[str, Any]], gains: list[float | None]
               ) -> list[tuple[str, str, int, float, float]]:
    """(contract kind, decision kind, points, mean gain, 1 se) for every group of points and
    for each contract kind as a whole ("all"); points ``eval`` could not judge are left out."""
    if len(points) != len(gains):
        raise ValueError(f"{len(gains)} gains for {len(points)} points: not the same points")
    groups: dict[tuple[str, str], list[float]] = {}
    for p, g in zip(points, gains, strict=True):
        if g is None:
            continue
        kind = contract_kind(p["views"][-1])
        decision = "discard" if p["first"].type == "discard" else "take, draw or buy"
        groups.setdefault((kind, decision), []).append(g)
        groups.setdefault((kind, "all"), []).append(g)
    return [(k, d, len(xs), *mean_se(xs)) for (k, d), xs in sorted(groups.items())]


def where(points_path: str, gains_path: str) -> None:
    with open(points_path, "rb") as f:
        points = pickle.load(f)
    with open(gains_path, encoding="utf-8") as f:
        gains = json.load(f)
    table = Table(title=f"gain over basic, points a decision ({gains_path})")
    for col in ("contract", "decision", "points", "gain", "1 se"):
        table.add_column(col, justify="left" if col in ("contract", "decision") else "right")
    for kind, decision, n, m, err in where_rows(points, gains):
        table.add_row(kind, decision, str(n), f"{m:+.2f}", f"{err:.2f}")
    Console().print(table)


def decision_kind(point: dict[str, Any]) -> str:
    """The discard, the take (or draw) or the buy (or pass), of a seat down or not down."""
    view = point["views"][-1]
    types = {a.type for a in point["legal"]}
    kind = "discard" if "discard" in types else "buy" if "buy" in types else "take"
    return f"{kind}, {'down' if view.down[view.seat] else 'not down'}"


def split_room(vals: dict[Action, list[float]], first: Action) -> float:
    """Points the oracle's best option saves against ``first``, its choice made on one half of
    the playouts and valued on the other (both ways, averaged): an unbiased estimate, where the
    best mean over all the playouts would count the luck of its own selection as room."""
    n = len(vals[first])
    h = n // 2
    if h == 0:
        raise ValueError("room needs at least two playouts an option")
    halves = [{a: mean(xs[:h]) for a, xs in vals.items()},
              {a: mean(xs[h:]) for a, xs in vals.items()}]
    total = 0.0
    for choose, value in ((halves[0], halves[1]), (halves[1], halves[0])):
        best = min(choose, key=lambda a: choose[a])  # first listed wins ties: the basic choice
        total += value[first] - value[best]
    return total / 2


def room_rows(points: list[dict[str, Any]], gains: dict[str, list[float | None]]
              ) -> list[tuple[str, int, tuple[float, float], dict[str, tuple[float, float]]]]:
    """(decision kind, points, room (mean, 1 se), {tag: gain (mean, 1 se)}) per kind of
    decision; a version's unjudged points count as no gain (it played something the oracle did
    not value)."""
    for tag, gs in gains.items():
        if len(gs) != len(points):
            raise ValueError(f"{tag}: {len(gs)} gains for {len(points)} points: not the same "
                             "points")
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(points):
        groups.setdefault(decision_kind(p), []).append(i)

    rows = []
    for kind, idx in sorted(groups.items()):
        room = [split_room(points[i]["vals"], points[i]["first"]) for i in idx]
        by_tag = {tag: mean_se([gs[i] or 0.0 for i in idx]) for tag, gs in gains.items()}
        rows.append((kind, len(idx), mean_se(room), by_tag))
    return rows


def room(points_path: str, gains_paths: list[str]) -> None:
    with open(points_path, "rb") as f:
        points = pickle.load(f)
    gains: dict[str, list[float | None]] = {}
    for path in gains_paths:
        with open(path, encoding="utf-8") as f:
            tag = os.path.basename(path).removeprefix(os.path.basename(points_path) + ".")
            gains[tag.removesuffix(".json")] = json.load(f)
    table = Table(title=f"room and gain over basic, points a decision ({points_path})")
    for col in ("decision", "points", "room (1 se)", *gains):
        table.add_column(col, justify="left" if col == "decision" else "right")
    for kind, n, (r, r_se), by_tag in room_rows(points, gains):
        table.add_row(kind, str(n), f"{r:+.2f} ({r_se:.2f})",
                      *(f"{m:+.2f} ({e:.2f})" for m, e in by_tag.values()))
    Console().print(table)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("--preset", default="arena")
    g.add_argument("--players", type=int, default=2)
    g.add_argument("--games", type=int, default=16)
    g.add_argument("--seed", type=int, default=9100)
    g.add_argument("--playouts", type=int, default=32)
    g.add_argument("--every", type=int, default=4)
    e = sub.add_parser("eval")
    e.add_argument("points")
    e.add_argument("tag")
    e.add_argument("--bot", default="expert")
    e.add_argument("--patch", default="")
    c = sub.add_parser("pair")
    c.add_argument("a")
    c.add_argument("b")
    w = sub.add_parser("where")
    w.add_argument("points")
    w.add_argument("gains")
    r = sub.add_parser("room")
    r.add_argument("points")
    r.add_argument("gains", nargs="*")
    args = p.parse_args()
    if args.cmd == "gen":
        gen(args.out, args.preset, args.players, args.games, args.seed, args.playouts,
            args.every)
    elif args.cmd == "eval":
        patch(args.patch)
        evaluate(args.points, args.tag, args.bot)
    elif args.cmd == "pair":
        pair(args.a, args.b)
    elif args.cmd == "where":
        where(args.points, args.gains)
    else:
        room(args.points, args.gains)
    return 0


if __name__ == "__main__":
    sys.exit(main())
