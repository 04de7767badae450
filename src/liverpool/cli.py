"""The ``liverpool`` command: ``play`` (terminal), ``history`` (the terminal's finished games
and statistics), ``serve`` (browser), ``demo`` (a simulated
game with its log), ``replay``, ``simulate``, ``bot`` (a built-in bot on the bot protocol),
``bench``, ``soak``, ``levels`` (the computer players' ladder). Interfaces talk to the engine
only through actions, legal actions, views and the events it tells (docs/engine.md)."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from . import compiled
from .engine import Game
from .profile import DEFAULT_LIMIT, MAX_LIMIT, limit_arg, offset_arg
from .record import RecordError, game_record, replay, summary
from .rules import DEFAULT_PRESET, PRESET_NAMES, RulesError, RuleSet
from .rules import parse_overrides as parse_overrides  # kept importable from here


def _rules_from(args: argparse.Namespace) -> RuleSet:
    return RuleSet.preset(args.rules, parse_overrides(args.override or []))


def cmd_replay(args: argparse.Namespace) -> int:
    if args.watch or args.review:  # a review is shown in the watch (or as its text)
        return int(_lazy("tui.watch")(args))
    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except OSError as e:
        print(f"liverpool replay: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"liverpool replay: {args.file} is not JSON: {e}", file=sys.stderr)
        return 2
    try:
        result = replay(rec)
    except RecordError as e:
        print(f"liverpool replay: {e}", file=sys.stderr)
        return 2
    out = summary(result)
    if args.json:
        print(json.dumps(out))
    else:
        _print_summary(out, result.game)
    return 0 if out["ok"] else 1


def cmd_levels(args: argparse.Namespace) -> int:
    """The ladder of computer players: each level's name, older name, rating and line."""
    from .bots import LADDER
    from .ratings import bot_rating
    if args.json:
        rows = []
        for lv in LADDER:
            r = bot_rating(lv.name)
            rows.append({"level": lv.name, "title": lv.title, "alias": lv.alias,
                         "about": lv.about, "rating": r.to_json() if r is not None else None})
        print(json.dumps({"levels": rows}))
        return 0
    t = Table(title="computer players (liverpool play --bots LEVEL)")
    for col in ("level", "title", "also", "rating", "plays"):
        t.add_column(col, justify="right" if col == "rating" else "left")
    for lv in LADDER:
        r = bot_rating(lv.name)
        t.add_row(lv.name, lv.title, lv.alias or "",
                  "not measured" if r is None else f"{r.mu:.0f} ± {2 * r.sigma:.0f}", lv.about)
    Console().print(t)
    return 0


def _print_summary(out: dict[str, Any], game: Game) -> None:
    console = Console()
    if out["error"]:
        err = out["error"]
        console.print(f"[red]action {err['number']} is illegal:[/] {err['reason']}")
    else:
        console.print(f"[green]replayed {out['actions_applied']} actions[/]")
    state = "game over" if game.over else f"hand {out['hand_number']} ({out['contract']})"
    console.print(f"{state}; stock {out['stock_size']}; discard top "
                  f"{out['discard'][-1] if out['discard'] else '-'}")
    table = Table(title="Scores")
    table.add_column("hand")
    for name in game.players:
        table.add_column(name, justify="right")
    for i, row in enumerate(out["scores"], 1):
        table.add_row(str(i), *map(str, row))
    table.add_row("total", *map(str, out["totals"]), style="bold")
    console.print(table)
    if game.over:
        console.print("winner(s): " + ", ".join(game.players[s] for s in game.winners))


NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Finn", "Gus", "Hal")
DEMO_PACE = 0.15  # seconds after each move the demo shows, when it prints to a terminal
HAND_END_PAUSE = 10  # after a hand's points: this many moves' pauses, to read the points


def _stdout_is_terminal() -> bool:
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty and isatty())


def demo_pace(requested: float | None, terminal: bool) -> float:
    """Seconds the demo waits after each move it shows: ``--pace`` as given (0: none); else a
    short pause on a terminal, so that a person can follow the game, and none into a pipe or a
    file, where nobody watches it being written."""
    if requested is not None:
        return requested
    return DEMO_PACE if terminal else 0.0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"a pause is 0 seconds or more, not {text}")
    return value


def cmd_demo(args: argparse.Namespace, sleep: Callable[[float], None] = time.sleep) -> int:
    """A simulated game among bots, with a readable log and the score sheet, paced so that it
    can be followed on a terminal (``sleep`` waits; tests count its calls instead)."""
    from .bots import BotSpecError, make_bot
    from .engine import Event, HandEnded, HandStarted
    from .engine.events import GameEnded
    from .match import Match
    from .narrate import Narrator

    rules = _rules_from(args)
    names = list(NAMES[:args.players])
    game = Game(rules, names, seed=args.seed)
    levels = [b.strip() for b in args.bots.split(",")]
    if len(levels) == 1:
        levels *= args.players
    if len(levels) != args.players:
        print(f"liverpool demo: --bots names {len(levels)} bots for {args.players} players",
              file=sys.stderr)
        return 2
    try:
        bots = [make_bot(b) for b in levels]
    except BotSpecError as e:
        print(f"liverpool demo: {e}", file=sys.stderr)
        return 2
    console = Console()
    console.print(f"[bold]Liverpool Rummy[/] — {rules.name} rules; "
                  + ", ".join(f"{n} ({b})" for n, b in zip(names, levels, strict=True)))
    # --quiet leaves out the everyday moves: draws, takes and discards
    quiet = ("drew", "took", "discarded") if args.quiet else ()
    pace = demo_pace(getattr(args, "pace", None), _stdout_is_terminal())
    narrator = Narrator(names)  # a log for everyone: nobody's stock cards are named
    rows: list[tuple[int, ...]] = []

    def heard(event: Event) -> None:
        if isinstance(event, HandStarted):
            console.rule(f"hand {event.hand_number}: {event.contract[0].describe()}, "
                         f"{game.deal_size()} cards each, {names[event.dealer]} deals")
        elif isinstance(event, HandEnded):
            rows.append(event.points)
            left = [n for s, n in enumerate(names) if event.end.down[s]]
            console.print("  [bold]hand over[/] — points: " + ", ".join(
                f"{names[s]} {event.points[s]}" for s in range(len(names)))
                + (f"; went down: {', '.join(left)}" if left else ""))
            if pace:
                sleep(pace * HAND_END_PAUSE)
        elif isinstance(event, GameEnded):
            winners.extend(event.winners)
        elif event.kind not in quiet:
            line = narrator.line(event.for_seat(None))
            if line is not None:
                console.print("  " + line)
                if pace:
                    sleep(pace)

    winners: list[int] = []
    with Match(game, bots, listener=heard) as match:
        match.run()
    table = Table(title="Score sheet")
    table.add_column("hand")
    for name in names:
        table.add_column(name, justify="right")
    for i, row in enumerate(rows, 1):
        table.add_row(str(i), *map(str, row))
    table.add_row("total", *map(str, game.totals), style="bold")
    console.print(table)
    console.print("winner: " + " and ".join(names[s] for s in winners))
    if args.record:
        Path(args.record).write_text(json.dumps(game_record(game)), encoding="utf-8")
        console.print(f"record written to {args.record} (replay it with liverpool replay)")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """``liverpool play`` with the local profile: the name remembered (``--name`` changes it),
    new records in the data directory's ``games``, and a game that ends counted once in the
    history. A profile that cannot be read leaves the game unrecorded, not unplayable."""
    from . import paths, profile

    folder = paths.data_dir()
    known: profile.Profile | None = None
    try:
        known = profile.set_name(args.name, folder) if args.name else profile.load(folder)
    except profile.ProfileError as e:
        print(f"liverpool play: {e}; this game will not be added to your history",
              file=sys.stderr)
    except OSError as e:
        print(f"liverpool play: cannot write your profile in {folder}: {e.strerror}; this game "
              f"will not be added to your history", file=sys.stderr)
    if args.name is None and known is not None:
        args.name = known.name  # (None: "You", or the seat file's person on --resume)
    # the first game: no finished game in the history (the app offers the walk-through)
    first = False
    if known is not None:
        try:
            first = profile.read_page(0, 1, folder).total == 0
        except OSError:
            first = False
    from . import tui
    return tui.main(args, games_dir=paths.games_dir(folder),
                    on_over=None if known is None else profile_listener(folder),
                    data=folder, first_game=first)


def profile_listener(folder: Path) -> Callable[[Any], list[str]]:
    """A play session's end listener: the finished game counted in the profile and the history
    in ``folder`` (once), and the lines that say where the person placed and how their rating
    moved."""
    from . import profile

    def game_over(session: Any) -> list[str]:
        seats = [profile.Seat(name, "person" if s == session.human else "bot",
                              session.levels[s])
                 for s, name in enumerate(session.game.players)]
        done = profile.record_game(session.game_id, game_record(session.game),
                                   session.save_path, seats, session.human, folder)
        return profile.end_lines(done.entry)
    return game_over


def cmd_bot(args: argparse.Namespace) -> int:
    """A built-in bot on the bot protocol: JSON lines on standard input and output."""
    import contextlib

    from .bots.stdio import serve_bot

    out = sys.stdout
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdin.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
        out.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    # whatever else prints (a library, a stray debug line) lands on stderr, not in the protocol
    with contextlib.redirect_stdout(sys.stderr):
        return serve_bot(args.level, sys.stdin, out)


def version_line() -> str:
    """``liverpool --version``: the version and which core runs, and why."""
    try:
        version = importlib.metadata.version("liverpool-rummy")
    except importlib.metadata.PackageNotFoundError:
        version = "(not installed)"
    return f"liverpool-rummy {version}; core: {compiled.describe()}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="liverpool", description="Liverpool Rummy")
    parser.add_argument("--version", action="version", version=version_line(),
                        help="show the version and which core runs (compiled or pure Python)")
    sub = parser.add_subparsers(dest="command", required=True)

    def rules_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", default=DEFAULT_PRESET, choices=PRESET_NAMES)
        p.add_argument("--override", action="append", metavar="KNOB=VALUE",
                       help="change one rule knob (repeatable)")

    p = sub.add_parser("play", help="play a game in the terminal against the computer")
    rules_args(p)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--bots", default="level:5",
                   help="levels of the other seats (level:1 to level:8, see liverpool levels; "
                        "random, basic and expert are levels 1, 5 and 7; cmd:COMMAND), one "
                        "per seat or one for all")
    p.add_argument("--seed", type=int, help="deal seed (default: a random one)")
    p.add_argument("--name", help="your name at the table (remembered in your profile; "
                                  "default: the remembered one, else You)")
    p.add_argument("--resume", metavar="FILE", help="go on from a saved game record")
    p.add_argument("--save", metavar="FILE", help="where the record is kept as the game goes")
    p.add_argument("--plain", action="store_true",
                   help="line-based mode for screen readers and pipes")
    p.add_argument("--guide", action="store_true",
                   help="the first-game walk-through of a turn (offered in the app on your "
                        "first game; in --plain only with this)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("levels", help="the computer players' levels, 1 to 8, with ratings")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=cmd_levels)

    p = sub.add_parser("history", help="your finished terminal games, newest first; your "
                                       "rating and statistics",
                       description="The games of liverpool play that reached their end, newest "
                                   "first, a page at a time; kept with your profile in the "
                                   "data directory (LIVERPOOL_DATA_DIR, else the user data "
                                   "directory).")
    p.add_argument("--offset", type=offset_arg, default=0, metavar="N",
                   help="skip the N newest games")
    p.add_argument("--limit", type=limit_arg, metavar="N",
                   help=f"games a page (default {DEFAULT_LIMIT}, at most {MAX_LIMIT})")
    p.add_argument("--json", action="store_true",
                   help="one JSON object: the page's games, total, rating and statistics")
    p.add_argument("--stats", action="store_true",
                   help="statistics by rules (games, wins, mean place, points and buys per "
                        "hand, going out, each contract made) and your rating")
    p.set_defaults(func=_lazy("profile"))

    p = sub.add_parser("serve", help="serve games in the browser (lobby, tables, bots)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", help="database URL (default: SQLite in the user's data directory; "
                                "postgresql://... for PostgreSQL)")
    p.add_argument("--bot-command", action="append", metavar="NAME=COMMAND", default=[],
                   help="an external bot the lobby may seat (repeatable)")
    p.add_argument("--public-url", metavar="URL",
                   help="the address people use to reach this server (share links use it)")
    p.add_argument("--allowed-host", action="append", metavar="HOST", default=[],
                   help="a host name this server answers to (repeatable; see docs/security.md)")
    p.add_argument("--allowed-origin", action="append", metavar="ORIGIN", default=[],
                   help="another site whose pages may use this server (repeatable)")
    p.add_argument("--redis", metavar="URL", default=os.environ.get("LIVERPOOL_REDIS"),
                   help="redis://... : with --db postgresql://..., several servers form one "
                        "service (any server takes any client; docs/deploy.md)")
    p.add_argument("--server-id", metavar="NAME", default=os.environ.get("LIVERPOOL_SERVER_ID"),
                   help="this server's name among those sharing a PostgreSQL database "
                        "(default HOSTNAME:PORT; a restarted server takes its tables back)")
    p.set_defaults(func=_lazy("web"))

    p = sub.add_parser("demo", help="watch a simulated game between bots, with its log")
    rules_args(p)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--bots", default="basic", help="one level per seat, or one for all")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quiet", action="store_true", help="leave out draws and discards")
    p.add_argument("--pace", type=_seconds, metavar="SECONDS",
                   help=f"pause after each move shown, {HAND_END_PAUSE} times as long after a "
                        f"hand's points (0: none; default {DEMO_PACE} on a terminal, none into "
                        f"a pipe or file)")
    p.add_argument("--record", help="write the game record (JSON) to this file")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("replay", help="replay a game record")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--watch", action="store_true", help="step through the game in the terminal")
    p.add_argument("--review", action="store_true",
                   help="with --watch: review a seat's decisions first and show each labelled "
                        "one's badge (?! inaccuracy, ? mistake, ?? blunder) and what was "
                        "better; m jumps to the next")
    p.add_argument("--seat", type=int, metavar="N", help="--review: the seat (default 0)")
    p.add_argument("--workers", type=int, metavar="W",
                   help="--review: processes weighing the decisions (default 1)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("review", help="what the expert thinks of every decision of a seat in a "
                                      "recorded game (or of every game in a folder)")
    p.add_argument("record", help="a game record (JSON), or a folder of them")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, help="the seat to review (default 0)")
    who.add_argument("--all", action="store_true", help="review every seat")
    p.add_argument("--json", action="store_true", help="print the review as one JSON object")
    p.add_argument("--workers", type=int, default=0, help="processes (0: one per core)")
    p.add_argument("--worlds", type=int, default=None,
                   help="worlds sampled per decision (default 24: docs/review.md)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="for a folder: review its games here or on Ray")
    p.set_defaults(func=_lazy("reviewcli"))

    p = sub.add_parser("simulate", help="a tournament between bots")
    rules_args(p)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--bots", default="expert,basic,basic,basic",
                   help="one level per seat (level:1 to level:8, or random, basic, expert; "
                        "expert:400it, expert:200ms, cmd:COMMAND), or one for every seat")
    p.add_argument("--bot-timeout", type=float, metavar="SECONDS",
                   help="time limit per decision for cmd: bots (default: "
                        "LIVERPOOL_BOT_TIMEOUT or 5)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=0, help="processes (0: one per core)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument("--address", help="address of an existing Ray cluster")
    p.add_argument("--records", metavar="DIR", help="write every game's record here")
    p.add_argument("--duplicate", action="store_true",
                   help="play each deal once per rotation of the seats (--games counts deals): "
                        "the same cards for every bot in every seat; the win rate's interval "
                        "from the deals")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_lazy("simulate"))

    p = sub.add_parser("bot", help="serve a built-in bot over the bot protocol (stdin/stdout)",
                       description="Play a built-in bot over the bot protocol "
                                   "(docs/bot-protocol.md): JSON lines on standard input and "
                                   "output, so that other programs can seat it, e.g. "
                                   "liverpool simulate --bots 'cmd:liverpool bot expert',basic")
    p.add_argument("level", help="level:1 to level:8 (random, basic, expert: levels 1, 5, 7), "
                                 "expert:400it or expert:200ms")
    p.set_defaults(func=cmd_bot)

    p = sub.add_parser("bench", help="benchmarks: engine, solver and bots; or the web server")
    p.add_argument("target", nargs="?", default="engine",
                   choices=("engine", "server", "peer", "bot-ratings", "ladder", "review",
                            "env"),
                   help="engine (default: engine, solver, bots), server, peer (the engine "
                        "side by side with OpenSpiel's gin rummy, which must be installed), "
                        "bot-ratings (the first three bots' ratings, measured by simulation), "
                        "ladder (the ratings of the levels 1 to 8, from a round robin in "
                        "duplicate), or "
                        "review (a game review's time, and its accuracy by bot level), or "
                        "env (the learning environment's steps/s under random masked play)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quick", action="store_true", help="a short run (for tests)")
    p.add_argument("--tables", type=int, default=100,
                   help="server: concurrent bot tables (a run where fewer played in the "
                        "measure, or any create, join, start or action was refused, exits 1)")
    p.add_argument("--think", type=float, default=1.0,
                   help="server: seconds each client pauses before an action")
    p.add_argument("--duration", type=float, default=30.0,
                   help="server: seconds measured (at least twice --think)")
    p.add_argument("--warmup", type=float,
                   help="server: seconds of play before the measure (default 3; --quick 1)")
    p.add_argument("--limit", action="append", metavar="NAME=VALUE",
                   help="server: keep a limit of the server(s) at VALUE (e.g. "
                        "playing_tables=1) instead of lifting it, to see what its refusals "
                        "do to a bench; repeatable")
    p.add_argument("--servers", type=int, metavar="N",
                   help="server: N servers on one PostgreSQL and one Redis (started privately "
                        "unless --pg and --redis are given)")
    p.add_argument("--kill-one", action="store_true",
                   help="server: SIGKILL one of the --servers halfway through the measure")
    p.add_argument("--pg", metavar="URL", help="server: the PostgreSQL of the --servers bench")
    p.add_argument("--redis", metavar="URL", help="server: the Redis of the --servers bench")
    p.add_argument("--rounds", type=int, default=3,
                   help="peer, env: rounds (the median is shown)")
    p.add_argument("--seconds", type=float, default=8.0,
                   help="peer: CPU-seconds of each side per round")
    p.add_argument("--games", type=int, metavar="N",
                   help="bot-ratings: games played (default 7500; a run that loses any exits "
                        "1); ladder: deals per pair of levels (default 8); review: games of "
                        "the accuracy study (default 30)")
    p.add_argument("--workers", type=int, metavar="W",
                   help="bot-ratings: processes (default 1); ladder, review: processes "
                        "(default 2)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="bot-ratings, ladder, review: base seed (default 1)")
    p.add_argument("--worlds", type=int, metavar="K",
                   help="review: worlds per decision (default: the review's)")
    p.add_argument("--save", metavar="FILE",
                   help="ladder: write every game's outcome to FILE (JSON) as soon as the "
                        "games are played, before the fit")
    p.add_argument("--load", metavar="FILE",
                   help="ladder: fit the outcomes saved in FILE instead of playing")
    p.add_argument("--repeat", type=int, metavar="R",
                   help="review: timing runs (the median is shown; default 3)")
    p.add_argument("--part", choices=("time", "study", "both"),
                   help="review: the timing, the accuracy study (exits 1 unless expert > "
                        "basic > random, the intervals apart) or both (default)")
    p.set_defaults(func=_lazy("bench"))

    p = sub.add_parser("soak", help="many random games with invariant checks, on all cores")
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--workers", type=int, default=0, help="processes (0: one per core)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--every-action", type=int, default=1_000,
                   help="games checked after every action (the rest at each hand's end)")
    p.add_argument("--random-rules", action="store_true",
                   help="each game plays its own random rule set (a preset with random "
                        "overrides of nearly every knob) instead of the five presets")
    p.set_defaults(func=_lazy("soak"))
    return parser


def _lazy(name: str) -> Any:
    def run(args: argparse.Namespace) -> int:
        import importlib
        module = importlib.import_module(f"liverpool.{name}")
        return int(module.main(args))
    return run


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except RulesError as e:
        print(f"liverpool: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
