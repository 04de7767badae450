"""The tournament simulator: many games between bots, on one core, several, or a Ray cluster.

Domain words: *table* (the bots seated for a game, rotated so no seat order favours a bot),
*duplicate* (each *deal* played once per rotation of the seats: the same cards, hand by hand,
with every bot in every seat, so the luck of the cards cancels between the bots; the win rate's
interval is then worked out from the deals, each deal one observation),
*game seed* (derived from the base seed and the game's index, so results do not depend on the
worker count or the backend), *result* (one game's points, wins and contracts made per seat),
*incident* (an external bot that answered late, wrongly or not at all: recorded with the game and
the decision; the basic bot finishes that game for it and the tournament goes on).
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import os
import random
import signal
import statistics
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bots import Bot, close_bot, make_bot
from .bots.external import _CtrlCHeld, close_all
from .cards import new_deck
from .engine import Event, Game, HandEnded, HandStarted
from .match import Match
from .raysession import ray_session
from .record import game_record
from .rules import RuleSet, parse_overrides


@dataclass(frozen=True)
class GameSpec:
    index: int
    preset: str
    overrides: dict[str, Any]
    bots: tuple[str, ...]  # per seat, already rotated
    seed: int
    bot_timeout: float | None = None  # external bots' time limit per decision (seconds)
    cwd: str | None = None  # where external bots' commands run (workers may start elsewhere)
    deal: int | None = None  # duplicate: the deal's number (its hands' decks come from ``seed``)


@dataclass
class GameResult:
    index: int
    bots: tuple[str, ...]
    totals: list[int]
    winners: list[int]
    hand_points: list[list[int]]
    made: list[list[bool]]  # per hand, per seat: went down
    contract_numbers: list[int]  # per hand
    decisions: int
    record: dict[str, Any] | None = None
    incidents: list[dict[str, Any]] = field(default_factory=list)
    deal: int | None = None  # duplicate: the deal this game played


def game_seed(base: int, index: int) -> int:
    """A game's seed from the base seed and its index (stable across processes and backends)."""
    return random.Random(f"liverpool:{base}:{index}").getrandbits(48)


def specs_for(games: int, preset: str, overrides: dict[str, Any], bots: Sequence[str],
              seed: int, bot_timeout: float | None = None,
              cwd: str | None = None, duplicate: bool = False) -> list[GameSpec]:
    """The games to play. ``duplicate``: ``games`` deals, each played once per rotation of the
    seats (``games`` × players games), every rotation of a deal dealt the same cards."""
    n = len(bots)
    out = []
    if duplicate:
        for d in range(games):
            for shift in range(n):
                seated = tuple(bots[(s - shift) % n] for s in range(n))
                out.append(GameSpec(d * n + shift, preset, dict(overrides), seated,
                                    game_seed(seed, d), bot_timeout, cwd, deal=d))
        return out
    for i in range(games):
        shift = i % n  # rotate seats: every bot sits in every seat equally often
        seated = tuple(bots[(s - shift) % n] for s in range(n))
        out.append(GameSpec(i, preset, dict(overrides), seated, game_seed(seed, i),
                            bot_timeout, cwd))
    return out


def play_game(spec: GameSpec, keep_record: bool = False,
              seat_bot: Callable[[str, Game], Bot] | None = None) -> GameResult:
    """One whole game; a pure function of the spec (external bots included, as long as they
    are deterministic and answer in time). ``seat_bot`` makes each seat's bot from its name and
    the game instead of ``make_bot`` (a study that lets a bot see what players cannot)."""
    rules = RuleSet.preset(spec.preset, spec.overrides)
    names = [f"{b}#{s}" for s, b in enumerate(spec.bots)]
    deals = duplicate_decks(rules, len(names), spec.seed) if spec.deal is not None else None
    game = Game(rules, names, seed=spec.seed, deals=deals)
    contract = 0  # the number of the hand in progress's contract (seat 0's)
    contracts: list[int] = []
    points: list[list[int]] = []
    made: list[list[bool]] = []

    def heard(event: Event) -> None:
        nonlocal contract
        if isinstance(event, HandStarted):
            contract = game.contract_no(0)
        elif isinstance(event, HandEnded):
            contracts.append(contract)
            points.append(list(event.points))
            made.append(list(event.end.down))

    # no bot process starts before the match tells the bots the game begins
    bots = [make_bot(b, timeout=spec.bot_timeout, cwd=spec.cwd) if seat_bot is None
            else seat_bot(b, game) for b in spec.bots]
    with Match(game, bots, index=spec.index, listener=heard) as match:  # closes every bot
        match.run()
    incidents = [{**found, "bot": spec.bots[found["seat"]]} for found in match.incidents]
    return GameResult(
        index=spec.index, bots=spec.bots, totals=list(game.totals), winners=list(game.winners),
        hand_points=points, made=made, contract_numbers=contracts, decisions=len(game.actions),
        record=game_record(game) if keep_record else None, incidents=incidents,
        deal=spec.deal)


def duplicate_decks(rules: RuleSet, players: int, seed: int) -> list[list[int]]:
    """A deal's decks, hand by hand, from its seed alone: every rotation of a duplicate deal
    gets the same cards in each hand however the hands before went (a hand's own reshuffles of
    the discard pile still follow the play). Enough for the hands a game of these rules plays
    (for "own" progression, twice its contracts and ten more; later hands are shuffled by the
    game)."""
    pack = new_deck(rules.decks_for(players), rules.jokers_per_deck)
    hands = len(rules.hand_list())
    if rules.progression == "own":
        hands = 2 * len(rules.contracts) + 10
    out = []
    for k in range(hands):
        deck = list(pack)
        random.Random(f"liverpool:duplicate:{seed}:{k}").shuffle(deck)
        out.append(deck)
    return out


# ---- Ctrl-C in pool workers -------------------------------------------------------------------
# Ctrl-C at a terminal reaches every process of the group: the host and its pool workers. In a
# worker, a KeyboardInterrupt may only be raised inside a game. Raised anywhere else it lands in
# the executor's own code: taking the next chunk from the call queue (the worker dies, the
# executor then terminates the other workers, whose bots nobody stops any more) or sending a
# result (the executor swallows it and the worker plays its queued chunks to the end). So a
# worker notes the interrupt, raises it at most once and only while it plays, and starts no
# further game.

_interrupted = False  # this worker saw Ctrl-C: it plays no further game
_playing = False  # this worker is inside a game, the one place an interrupt is raised


def _on_ctrl_c(signum: int, frame: Any) -> None:
    """A pool worker's SIGINT handler."""
    global _interrupted
    first = not _interrupted
    _interrupted = True
    if first and _playing:
        raise KeyboardInterrupt


def _start_worker(ignore_ctrl_c: bool) -> None:
    """A pool worker's initializer: its SIGINT handler (or none, like its host), then SIGINT
    unblocked (it was blocked while the pool started, see ``_pool_starting``: an interrupt that
    came before this point was kept pending for the handler, not lost and not fatal)."""
    global _interrupted, _playing
    _interrupted = _playing = False
    signal.signal(signal.SIGINT, signal.SIG_IGN if ignore_ctrl_c else _on_ctrl_c)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _play_chunk(specs: list[GameSpec], keep_record: bool) -> list[GameResult]:
    global _interrupted, _playing
    results = []
    try:
        for s in specs:
            _playing = True  # before the check: an interrupt is either raised or seen by it
            try:
                if _interrupted:
                    raise KeyboardInterrupt
                results.append(play_game(s, keep_record))
            finally:
                _playing = False
    except KeyboardInterrupt:
        # the chunk fails (a partial chunk is no result); its exit runs no atexit hook, so
        # any bot process still registered is stopped here
        _interrupted = True
        close_all()
        raise
    return results


@contextlib.contextmanager
def _pool_starting() -> Iterator[None]:
    """Ctrl-C held while a process pool starts its workers, delivered once it stands. An
    interrupt between the workers' fork and the start of the executor's manager thread left
    workers nobody would ever tell to stop: the exit waited for them forever. SIGINT is also
    blocked in this thread, so the workers forked here start with it blocked and take it once
    their handler is in place (``_start_worker``)."""
    with _CtrlCHeld() as held:
        blocked = hasattr(signal, "pthread_sigmask")
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if blocked else set()
        try:
            yield
        finally:
            if blocked:
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
    if held.caught:
        held.deliver()


# ---- backends ---------------------------------------------------------------------------------

def run_local(specs: list[GameSpec], workers: int, keep_record: bool,
              progress: Callable[[int], None] | None = None) -> list[GameResult]:
    results: list[GameResult] = []
    if workers <= 1:
        for s in specs:
            results.append(play_game(s, keep_record))
            if progress:
                progress(1)
        return results
    chunk = max(1, min(8, len(specs) // (workers * 4) or 1))
    chunks = [specs[i:i + chunk] for i in range(0, len(specs), chunk)]
    ignore = signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # the workers do as the host
    before = {p.pid for p in multiprocessing.active_children()}
    pool: ProcessPoolExecutor | None = None
    started: list[int] = []
    try:
        with _pool_starting():
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker,
                                       initargs=(ignore,))
            # the first submissions start the workers (all of them when forking, one per
            # submission otherwise) and the executor's manager thread
            futures = [pool.submit(_play_chunk, c, keep_record) for c in chunks[:workers]]
            started = [p.pid for p in multiprocessing.active_children()
                       if p.pid is not None and p.pid not in before]
        futures += [pool.submit(_play_chunk, c, keep_record) for c in chunks[workers:]]
        futures.reverse()
        while futures:
            part = futures.pop().result()  # in order; a finished chunk is not kept twice
            results.extend(part)
            if progress:
                progress(len(part))
    except KeyboardInterrupt:
        # Ctrl-C: the workers stop their games and bots and start no further ones. Ctrl-C at
        # a terminal reached them already; an interrupt sent to this process alone is passed on
        for pid in started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGINT)
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return sorted(results, key=lambda r: r.index)


def run_ray(specs: list[GameSpec], workers: int, keep_record: bool, address: str | None,
            progress: Callable[[int], None] | None = None) -> list[GameResult]:
    with ray_session(workers, address) as ray:
        remote = ray.remote(_play_chunk)
        chunk = max(1, min(8, len(specs) // (max(1, workers) * 4) or 1))
        pending = [remote.remote(specs[i:i + chunk], keep_record)
                   for i in range(0, len(specs), chunk)]
        results: list[GameResult] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for part in ray.get(done):
                results.extend([part] if isinstance(part, GameResult) else part)
                if progress:
                    progress(1 if isinstance(part, GameResult) else len(part))
        return sorted(results, key=lambda r: r.index)


# ---- statistics -------------------------------------------------------------------------------

def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate (ties count fractionally)."""
    if games == 0:
        return (0.0, 0.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class BotStats:
    bot: str
    games: int = 0
    wins: float = 0.0
    points: list[int] = field(default_factory=list)
    hand_points: list[int] = field(default_factory=list)
    made: dict[int, list[int]] = field(default_factory=dict)  # contract -> [made, played]

    def to_json(self) -> dict[str, Any]:
        low, high = wilson(self.wins, self.games)
        return {
            "bot": self.bot, "games": self.games, "wins": round(self.wins, 4),
            "win_rate": self.wins / self.games if self.games else 0.0,
            "win_rate_ci95": [low, high],
            "mean_points": statistics.fmean(self.points) if self.points else 0.0,
            "median_points": statistics.median(self.points) if self.points else 0.0,
            "mean_points_per_hand": statistics.fmean(self.hand_points) if self.hand_points
            else 0.0,
            "contracts_made": {str(k): v[0] / v[1] for k, v in sorted(self.made.items()) if v[1]},
        }


def summarize(results: Sequence[GameResult]) -> list[BotStats]:
    """Per bot name (seats with the same bot pooled)."""
    stats: dict[str, BotStats] = {}
    for r in results:
        share = 1.0 / len(r.winners) if r.winners else 0.0
        for seat, bot in enumerate(r.bots):
            st = stats.setdefault(bot, BotStats(bot))
            st.games += 1
            if seat in r.winners:
                st.wins += share
            st.points.append(r.totals[seat])
            for h, row in enumerate(r.hand_points):
                st.hand_points.append(row[seat])
                k = r.contract_numbers[h] if h < len(r.contract_numbers) else h + 1
                cell = st.made.setdefault(k, [0, 0])
                cell[0] += 1 if r.made[h][seat] else 0
                cell[1] += 1
    return list(stats.values())


@dataclass
class DealStats:
    """One bot's results over duplicate deals: each deal's win share and mean points over the
    seats it held in that deal's rotations (one observation per deal)."""

    bot: str
    shares: list[float] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    game_shares: list[float] = field(default_factory=list)  # its win share in each game

    def games_alone(self, z: float = 1.96) -> int | None:
        """The games independent play (no duplicate) would need for an interval as narrow as
        the deals': z^2 times the variance of a game's win share over the half-width squared
        (None when the half-width is 0)."""
        half = self.half_width(z)
        if not 0 < half < math.inf or len(self.game_shares) < 2:
            return None
        return math.ceil(z * z * statistics.variance(self.game_shares) / (half * half))

    def half_width(self, z: float = 1.96) -> float:
        """Half the width of the win rate's interval from the deals, before any clipping."""
        n = len(self.shares)
        if n < 2:
            return math.inf
        return z * statistics.stdev(self.shares) / math.sqrt(n)

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The win rate's 95% interval from the deals (normal, on the per-deal shares)."""
        if len(self.shares) < 2:
            return (0.0, 1.0)
        mean = statistics.fmean(self.shares)
        half = self.half_width(z)
        return (max(0.0, mean - half), min(1.0, mean + half))

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval()
        return {"bot": self.bot, "deals": len(self.shares), "games": len(self.game_shares),
                "win_rate": statistics.fmean(self.shares) if self.shares else 0.0,
                "win_rate_ci95": [low, high],
                "mean_points": statistics.fmean(self.points) if self.points else 0.0,
                "games_alone": self.games_alone()}


def summarize_duplicate(results: Sequence[GameResult]) -> tuple[list[DealStats],
                                                                 list[dict[str, Any]]]:
    """Per bot over the deals, and each deal's results (its rotations pooled per bot)."""
    by_deal: dict[int, list[GameResult]] = {}
    for r in results:
        if r.deal is not None:
            by_deal.setdefault(r.deal, []).append(r)
    stats: dict[str, DealStats] = {}
    deals: list[dict[str, Any]] = []
    for d in sorted(by_deal):
        wins: dict[str, float] = {}
        pts: dict[str, float] = {}
        seats: dict[str, int] = {}
        for r in by_deal[d]:
            share = 1.0 / len(r.winners) if r.winners else 0.0
            held: dict[str, list[float]] = {}
            for seat, bot in enumerate(r.bots):
                seats[bot] = seats.get(bot, 0) + 1
                won = share if seat in r.winners else 0.0
                wins[bot] = wins.get(bot, 0.0) + won
                pts[bot] = pts.get(bot, 0.0) + r.totals[seat]
                held.setdefault(bot, []).append(won)
            for bot, shares_ in held.items():
                stats.setdefault(bot, DealStats(bot)).game_shares.append(statistics.fmean(shares_))
        row: dict[str, Any] = {"deal": d, "games": len(by_deal[d]), "bots": {}}
        for bot in seats:
            share, mean = wins[bot] / seats[bot], pts[bot] / seats[bot]
            st = stats.setdefault(bot, DealStats(bot))
            st.shares.append(share)
            st.points.append(mean)
            row["bots"][bot] = {"win_share": share, "mean_points": mean}
        deals.append(row)
    return list(stats.values()), deals


def write_records(results: Sequence[GameResult], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for r in results:
        if r.record is not None:
            (folder / f"game-{r.index:06d}.json").write_text(json.dumps(r.record),
                                                            encoding="utf-8")


def main(args: Any) -> int:
    """``liverpool simulate``: run the games, show progress, print a table (or JSON)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.table import Table

    from .bots import BotSpecError
    from .bots.external import BotProtocolError, ExternalBot, default_timeout

    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if len(bots) == 1:
        bots = bots * args.players
    if len(bots) != args.players:
        raise SystemExit(f"liverpool simulate: --bots names {len(bots)} bots for "
                         f"{args.players} players")
    if args.games < 1:
        raise SystemExit("liverpool simulate: --games must be at least 1")
    timeout = getattr(args, "bot_timeout", None)
    if timeout is not None and not timeout > 0:
        raise SystemExit("liverpool simulate: --bot-timeout must be positive")
    try:
        if timeout is None:
            timeout = default_timeout()  # read here so a bad variable fails before the games
    except ValueError as e:
        raise SystemExit(f"liverpool simulate: {e}") from None
    cwd = os.getcwd()
    for b in sorted(set(bots)):
        try:
            bot = make_bot(b, timeout=timeout, cwd=cwd)
        except BotSpecError as e:
            raise SystemExit(f"liverpool simulate: {e}") from None
        if isinstance(bot, ExternalBot):
            # one handshake up front: a bot that cannot even start is an error, not 100
            # incidents
            try:
                bot.probe()
            except BotProtocolError as e:
                raise SystemExit(f"liverpool simulate: {b}: {e.message}") from None
            finally:
                close_bot(bot)
    overrides = parse_overrides(args.override or [])
    rules = RuleSet.preset(args.rules, overrides)
    rules.check_players(args.players)
    workers = args.workers or os.cpu_count() or 1
    duplicate = bool(getattr(args, "duplicate", False))
    specs = specs_for(args.games, args.rules, overrides, bots, args.seed, timeout, cwd,
                      duplicate)
    err = Console(stderr=True)
    try:
        with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=err, transient=True) as bar:
            task = bar.add_task("games", total=len(specs))

            def advance(k: int) -> None:
                bar.advance(task, k)
            if args.backend == "ray":
                results = run_ray(specs, workers, bool(args.records), args.address, advance)
            else:
                results = run_local(specs, workers, bool(args.records), advance)
    except KeyboardInterrupt:
        err.print("liverpool simulate: interrupted; no results")
        return 130
    if args.records:
        write_records(results, Path(args.records))
    stats = summarize(results)
    incidents = [i for r in results for i in r.incidents]
    dup, per_deal = summarize_duplicate(results) if duplicate else ([], [])
    if args.json:
        out_json: dict[str, Any] = {
            "games": len(results), "players": args.players, "rules": args.rules,
            "seed": args.seed, "bots": [s.to_json() for s in stats], "incidents": incidents}
        if duplicate:
            out_json["duplicate"] = {"deals": len(per_deal),
                                     "bots": [d.to_json() for d in dup], "per_deal": per_deal}
        print(json.dumps(out_json))
        return 0
    table = Table(title=f"{len(results)} games, {args.players} players, {args.rules} rules")
    contract_cols = sorted({k for s in stats for k in s.made})
    for col in ("bot", "games", "wins", "win rate", "95% CI", "mean pts", "median",
                "pts/hand", "% made, contract " + " ".join(map(str, contract_cols))):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for s in stats:
        j = s.to_json()
        low, high = j["win_rate_ci95"]
        made = " ".join(f"{100 * j['contracts_made'].get(str(k), 0.0):.0f}"
                        for k in contract_cols)
        table.add_row(s.bot, str(s.games), f"{s.wins:g}", f"{j['win_rate']:.1%}",
                      f"{low:.1%}-{high:.1%}", f"{j['mean_points']:.1f}",
                      f"{j['median_points']:g}", f"{j['mean_points_per_hand']:.1f}", made)
    out = Console()
    out.print(table)
    if duplicate:
        dt = Table(title=f"duplicate: {len(per_deal)} deals, each played by every rotation "
                         f"of the seats; the interval counts each deal once; games alone: "
                         f"the games independent play would need for as narrow an interval")
        for col in ("bot", "deals", "games", "win rate", "95% CI (deals)", "mean pts",
                    "games alone"):
            dt.add_column(col, justify="left" if col == "bot" else "right")
        for d in dup:
            j = d.to_json()
            low, high = j["win_rate_ci95"]
            alone = j["games_alone"]
            dt.add_row(d.bot, str(j["deals"]), str(j["games"]), f"{j['win_rate']:.1%}",
                       f"{low:.1%}-{high:.1%}", f"{j['mean_points']:.1f}",
                       "-" if alone is None else str(alone))
        out.print(dt)
    if incidents:
        out.print(f"[bold]{len(incidents)} incident{'s' if len(incidents) > 1 else ''}[/] "
                  f"(the basic bot finished those games for the seat):")
        for line in incident_lines(incidents):
            # One incident per line, never folded: people grep and copy these.
            out.print("  " + line, markup=False, highlight=False, soft_wrap=True)
    return 0


def incident_lines(incidents: Sequence[dict[str, Any]]) -> list[str]:
    """One readable line per incident: which bot, game, decision, what happened, what it sent."""
    lines = []
    for i in incidents:
        sent = f"; it sent: {i['sent']}" if i.get("sent") else ""
        lines.append(f"game {i['game']}, seat {i['seat']} ({i['bot']}), decision "
                     f"{i['decision']} (record action {i['action']}): {i['kind']}: "
                     f"{i['message']}{sent}")
    return lines
