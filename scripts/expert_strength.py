"""The expert's strength against its targets: seeded tournaments, one per line of the table
below, each through the simulator's own code (seats rotated, the same seeds on every machine),
then one table with every win rate and its 95% Wilson interval.

    python scripts/expert_strength.py [--games 600] [--workers 2] [--only standard-4,arena-2]
        [--old-expert 'PATH/TO/OLD/liverpool bot expert'] [--json FILE] [--log FILE]

``--log FILE`` appends one JSON line per finished game (line, seed, deal index, seats, totals,
winners, each hand's points, contract and who went down) and, run again with the same file,
plays only the deals it does not hold yet: a run cut short loses at most the games in flight,
and a line can be split into runs (``--first``) on several machines whose logs are
concatenated. The table counts every game of the line's first ``--games`` deals found in the
log; a second table per line shows, by contract, the hands the expert and its opponents went
down in.

``--old-expert`` names a command that speaks the bot protocol (``liverpool bot expert`` from an
install of an earlier version) for the line "arena-2-old"; without it that line is skipped.
A run of 600 games per line takes hours of CPU: this is a command, never part of the tests.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from dataclasses import dataclass

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from liverpool import compiled
from liverpool.simulate import GameResult, run_local, specs_for, summarize, wilson


@dataclass(frozen=True)
class Line:
    name: str
    preset: str
    bots: tuple[str, ...]
    seed: int
    target: str  # in words
    passes_at: float  # the win rate (or, for "lower bound" lines, the interval's low end) needed
    on_lower_bound: bool = False


LINES = (
    Line("standard-4", "standard", ("expert", "basic", "basic", "basic"), 1101, ">= 55%", 0.55),
    Line("arena-2", "arena", ("expert", "basic"), 1201, ">= 80%", 0.80),
    Line("hoyle-4", "hoyle", ("expert", "basic", "basic", "basic"), 1301,
         "lower bound > 35%", 0.35, True),
    Line("classic-4", "classic", ("expert", "basic", "basic", "basic"), 1401,
         "lower bound > 35%", 0.35, True),
    Line("arena-4", "arena", ("expert", "basic", "basic", "basic"), 1501,
         "lower bound > 35%", 0.35, True),
    Line("house-4", "house", ("expert", "basic", "basic", "basic"), 1601,
         "lower bound > 35%", 0.35, True),
    Line("arena-2-old", "arena", ("expert", "OLD"), 1701, ">= 55% against the old expert", 0.55),
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=600)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--only", default="", help="comma-separated line names")
    p.add_argument("--old-expert", default="", help="command of an earlier version's expert")
    p.add_argument("--json", default="", help="also write the results to this file")
    p.add_argument("--log", default="", help="append each game to this JSON-lines file; "
                   "deals already in it are not played again")
    p.add_argument("--first", type=int, default=0,
                   help="play only deals from this index on (the rest may come from the log)")
    args = p.parse_args(argv)
    wanted = {x for x in args.only.split(",") if x}
    lines = [ln for ln in LINES if (not wanted or ln.name in wanted)
             and (ln.name != "arena-2-old" or args.old_expert)]
    unknown = wanted - {ln.name for ln in LINES}
    if unknown:
        p.error(f"no line named {', '.join(sorted(unknown))}")
    err = Console(stderr=True)
    err.print(f"core: {compiled.describe()}")
    rows = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err) as bar:
        for ln in lines:
            bots = tuple(f"cmd:{args.old_expert}" if b == "OLD" else b for b in ln.bots)
            done = logged(args.log, ln) if args.log else {}
            specs = [s for s in specs_for(args.games, ln.preset, {}, bots, ln.seed)
                     if s.index not in done and s.index >= args.first]
            task = bar.add_task(ln.name, total=len(specs))
            start = time.perf_counter()
            step = max(1, 4 * args.workers)  # a log line soon after each game, workers busy
            for at in range(0, len(specs), step):
                part = run_local(specs[at:at + step], args.workers, False,
                                 lambda k, t=task: bar.advance(t, k))
                if args.log:
                    append_log(args.log, ln, part)
                done.update((r.index, r) for r in part)
            results = [done[i] for i in sorted(done) if i < args.games]
            if not results:
                continue
            pooled = {s.bot: s for s in summarize(results)}
            stats = pooled[bots[0]]  # the seat measured
            others = [st for name, st in pooled.items() if name != bots[0]]
            low, high = wilson(stats.wins, stats.games)
            rate = stats.wins / stats.games
            passed = (low > ln.passes_at) if ln.on_lower_bound else rate >= ln.passes_at
            rows.append({"line": ln.name, "preset": ln.preset, "players": len(ln.bots),
                         "opponents": ",".join(bots[1:]), "seed": ln.seed,
                         "games": stats.games, "expert_wins": stats.wins,
                         "win_rate": rate, "ci95": [low, high], "target": ln.target,
                         "met": passed, "seconds": round(time.perf_counter() - start, 1),
                         "incidents": sum(len(r.incidents) for r in results),
                         # where it wins or loses: each contract's hands gone down in
                         # (logged games that carry their hands)
                         "went_down": {str(k): [m, n] for k, (m, n) in
                                       sorted(stats.made.items())},
                         "others_went_down": {str(k): [sum(o.made.get(k, [0, 0])[0]
                                                           for o in others),
                                                       sum(o.made.get(k, [0, 0])[1]
                                                           for o in others)]
                                              for k in sorted(stats.made)}})
    table = Table(title=f"expert at its default budget ({compiled.core} core)")
    for col in ("line", "games", "expert wins", "win rate", "95% interval", "target", "met",
                "incidents"):
        table.add_column(col, justify="left" if col in ("line", "target") else "right")
    for r in rows:
        table.add_row(r["line"], str(r["games"]), f"{r['expert_wins']:g}",
                      f"{r['win_rate']:.1%}", f"{r['ci95'][0]:.1%}-{r['ci95'][1]:.1%}",
                      r["target"], "yes" if r["met"] else "no", str(r["incidents"]))
    Console().print(table)
    for r in rows:
        if not r["went_down"]:
            continue
        per = Table(title=f"{r['line']}: hands gone down, by contract")
        for col in ("contract", "hands", "expert", "opponents"):
            per.add_column(col, justify="right")
        for k, (made, hands) in r["went_down"].items():
            theirs, of = r["others_went_down"][k]
            per.add_row(k, str(hands), f"{made / hands:.0%}", f"{theirs / of:.0%}" if of else "")
        Console().print(per)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"core": compiled.core, "lines": rows}, f, indent=1)
    return 0


def logged(path: str, ln: Line) -> dict[int, GameResult]:
    """The games of line ``ln`` (same name and seed) already in the log, by deal index."""
    out: dict[int, GameResult] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                try:
                    row = json.loads(text)
                except json.JSONDecodeError:  # a line cut by a crash: that game is played again
                    print(f"{path}:{number}: not a whole game, skipped", file=sys.stderr)
                    continue
                if row["line"] == ln.name and row["seed"] == ln.seed:
                    out[row["index"]] = GameResult(
                        row["index"], tuple(row["bots"]), row["totals"], row["winners"],
                        row.get("hand_points", []), row.get("made", []),
                        row.get("contracts", []), row.get("decisions", 0),
                        incidents=[{}] * row["incidents"])
    except FileNotFoundError:
        pass
    return out


def append_log(path: str, ln: Line, results: list[GameResult]) -> None:
    cut = False
    with contextlib.suppress(FileNotFoundError, OSError), open(path, "rb") as old:
        old.seek(-1, os.SEEK_END)
        cut = old.read(1) != b"\n"  # a crash cut the last line: it stays alone on its line
    with open(path, "a", encoding="utf-8") as f:
        if cut:
            f.write("\n")
        for r in results:
            f.write(json.dumps({"line": ln.name, "seed": ln.seed, "index": r.index,
                                "bots": list(r.bots), "totals": r.totals,
                                "winners": r.winners, "incidents": len(r.incidents),
                                "hand_points": r.hand_points, "made": r.made,
                                "contracts": r.contract_numbers,
                                "decisions": r.decisions}) + "\n")
        f.flush()
        os.fsync(f.fileno())


if __name__ == "__main__":
    sys.exit(main())
