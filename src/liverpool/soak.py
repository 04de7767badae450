"""``liverpool soak``: many games of random legal play on all cores, with invariant checks.

Game ``i`` of a run plays preset ``PRESET_NAMES[i % 5]`` with the ``(i // 5)``-th player count
the preset allows (cycling), seeded by ``game_seed(base_seed, i)``. Each game is a pure function
of (preset, players, seed, checked-every-action), so results do not depend on the worker count;
its choices are exactly those of ``randomplay.random_game(rules, players, seed)``, which
reproduces any game a violation names.

Invariants (docs/rules.md, The game):
* cards are conserved: hands + stock + discard pile + table melds == the pack, as multisets
  (and no card appears more often than the pack holds it);
* sizes are consistent: a new hand deals the deal size to every seat, turns up one card and
  leaves the rest as stock; an empty hand belongs to a seat that is out or floating; each
  action moves the cards it names (a discard adds one card on top of the pile, a lay-off moves
  one card from hand to a meld, a go-down moves exactly its melds, ...); every meld's owner is
  down; a seat's view agrees with the state;
* every action the engine lists for the seat to act is accepted by ``apply``, and the game ends;
* at each hand's end the score rows have one entry per seat and the totals are their sums;
* at the game's end, replaying its record (through JSON) reaches the same state (``snapshot``).

The first ``--every-action`` games are checked after every action; all games at every hand's
end and at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .actions import Action
from .cards import Card, card_str
from .engine import Game, IllegalActionError, Phase
from .randomplay import random_action
from .record import replay
from .rules import PRESET_NAMES, RuleSet

MAX_ACTIONS = 500_000  # far above any game the turn limit allows; reaching it is a violation
MAX_VIOLATIONS_PER_GAME = 5
CHUNK = 4  # games per task sent to a worker (fewer round trips, still a smooth progress bar)

_SNAPSHOT_FIELDS = (
    "phase", "hand_index", "dealer", "hands", "stock", "discard", "melds", "down", "floating",
    "out", "buys", "known", "penalties", "reshuffles", "turns", "final_queue", "fresh",
    "discarder", "turn", "taken", "must_play", "gd_swaps", "went_down_now", "need_layoff",
    "bonus_laid", "asked", "pending_draw", "window_mode", "bonus_caller", "scores", "totals",
    "progress", "winners", "rng",
)


@dataclass(frozen=True, slots=True)
class GameSpec:
    index: int
    preset: str
    players: int
    seed: int
    every_action: bool


@dataclass(frozen=True, slots=True)
class Violation:
    index: int
    preset: str
    players: int
    seed: int
    action_index: int  # index in the record's actions (-1: before any action)
    message: str


@dataclass(slots=True)
class GameResult:
    spec: GameSpec
    actions: int = 0
    hands: int = 0
    seconds: float = 0.0
    violations: list[Violation] = field(default_factory=list)


def game_seed(base: int, index: int) -> int:
    """A seed for game ``index`` of a run with ``base`` seed (48 bits, stable everywhere)."""
    digest = hashlib.blake2b(f"liverpool-soak:{base}:{index}".encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")


def game_specs(games: int, base: int, every_action: int) -> list[GameSpec]:
    """Presets rotate game by game; each preset cycles through the player counts it allows."""
    specs = []
    for i in range(games):
        preset = PRESET_NAMES[i % len(PRESET_NAMES)]
        rules = RuleSet.preset(preset)
        counts = range(rules.min_players, rules.max_players + 1)
        players = counts[(i // len(PRESET_NAMES)) % len(counts)]
        specs.append(GameSpec(i, preset, players, game_seed(base, i), i < every_action))
    return specs


# ---- the checks -------------------------------------------------------------------------------

def _fmt(cards: Counter[Card]) -> str:
    return " ".join(f"{card_str(c)}x{k}" for c, k in sorted(cards.items()))


def check_cards(game: Game, pack: Counter[Card]) -> list[str]:
    seen = game.cards_in_play()
    if seen == pack:
        return []
    out = []
    extra = seen - pack
    missing = pack - seen
    if extra:
        out.append(f"cards beyond the pack's counts: {_fmt(extra)}")
    if missing:
        out.append(f"cards missing from the game: {_fmt(missing)}")
    return out


def check_places(game: Game, seats: Iterable[int]) -> list[str]:
    """Hand sizes, melds' owners and the given seats' views against the state."""
    out = []
    if not game.over:
        for s, h in enumerate(game.hands):
            if not h and not (game.out[s] or game.floating[s]):
                out.append(f"seat {s} holds no card but is neither out nor floating")
            busy = game.phase in (Phase.PLAY, Phase.BONUS) and s in game.to_act()
            if game.floating[s] and h and not busy:
                out.append(f"seat {s} floats between turns holding {len(h)} card(s)")
        for i, m in enumerate(game.melds):
            if not 0 <= m.owner < game.n or not game.down[m.owner]:
                out.append(f"meld {i} belongs to seat {m.owner}, who is not down")
    for s in seats:
        v = game.view_for(s)
        if v.hand_sizes != tuple(len(h) for h in game.hands):
            out.append(f"seat {s}'s view has hand sizes {v.hand_sizes}")
        if v.stock_size != len(game.stock):
            out.append(f"seat {s}'s view has stock size {v.stock_size}, not {len(game.stock)}")
        if v.discard != tuple(game.discard):
            out.append(f"seat {s}'s view of the discard pile differs from the pile")
        if sorted(v.hand) != sorted(game.hands[s]):
            out.append(f"seat {s}'s view of its own hand differs from its hand")
    return out


def check_new_hand(game: Game, pack_size: int) -> list[str]:
    """Right after a deal: the deal size to every seat, one upcard, the rest as stock."""
    size = game.deal_size()
    out = [f"seat {s} was dealt {len(h)} cards, not {size}"
           for s, h in enumerate(game.hands) if len(h) != size]
    if len(game.discard) != 1:
        out.append(f"a new hand starts with {len(game.discard)} discards, not 1")
    if len(game.stock) != pack_size - game.n * size - 1:
        out.append(f"a new hand's stock holds {len(game.stock)} cards, not "
                   f"{pack_size - game.n * size - 1}")
    if game.melds or any(game.down):
        out.append("a new hand starts with melds on the table")
    return out


def check_scores(game: Game) -> list[str]:
    out = []
    if game.rules.progression == "all" and len(game.scores) != game.hand_index:
        out.append(f"{len(game.scores)} score rows after {game.hand_index} hands")
    for i, row in enumerate(game.scores):
        if len(row) != game.n:
            out.append(f"score row {i} has {len(row)} entries for {game.n} seats")
    for s in range(game.n):
        total = sum(row[s] for row in game.scores if len(row) == game.n)
        if game.totals[s] != total:
            out.append(f"seat {s}'s total is {game.totals[s]}, its rows sum to {total}")
    return out


def check_end(game: Game) -> list[str]:
    out = []
    if game.rules.progression == "all":
        low = min(game.totals)
        want = tuple(s for s in range(game.n) if game.totals[s] == low)
        if tuple(game.winners) != want:
            out.append(f"winners {game.winners}, lowest totals {want}")
    rec = json.loads(json.dumps(game.record()))
    try:
        res = replay(rec)
    except ValueError as e:
        return [*out, f"the record does not replay: {e}"]
    if res.error is not None:
        out.append(f"replay stops at action {res.error['index']}: {res.error['reason']}")
    mine, theirs = game.snapshot(), res.game.snapshot()
    if mine != theirs:
        names = _SNAPSHOT_FIELDS if len(mine) == len(_SNAPSHOT_FIELDS) else \
            tuple(str(i) for i in range(len(mine)))
        diff = [n for n, a, b in zip(names, mine, theirs, strict=False) if a != b]
        out.append(f"replayed state differs from the live one in: {', '.join(diff)}")
    return out


def _sizes(game: Game) -> tuple[list[int], int, int, int, int]:
    return ([len(h) for h in game.hands], len(game.stock), len(game.discard), len(game.melds),
            sum(len(m.cards) for m in game.melds))


def check_action(before: tuple[list[int], int, int, int, int], game: Game, a: Action,
                 discarder: int | None) -> list[str]:
    """The cards ``a`` names moved where it says (same hand only; the caller checks that)."""
    hands0, _, pile0, melds0, meld_cards0 = before
    hands1, _, pile1, melds1, meld_cards1 = _sizes(game)
    p = a.player
    d = hands1[p] - hands0[p]
    out = []

    def want(delta: int, what: str) -> None:
        if d != delta:
            out.append(f"{a.type}: {what} hand changed by {d}, not {delta}")

    if a.type == "take_discard":
        want(1, "the taker's")
        if pile1 != pile0 - 1:
            out.append(f"take_discard: the pile went from {pile0} to {pile1}")
    elif a.type == "discard":
        want(-1, "the discarder's")
        if pile1 != pile0 + 1 or game.discard[-1] != a.card:
            out.append("discard: the card is not on top of the pile")
    elif a.type == "lay_off":
        want(-1, "the player's")
        if (melds1, meld_cards1) != (melds0, meld_cards0 + 1):
            out.append("lay_off: the table did not gain exactly one card")
    elif a.type == "go_down":
        k = sum(len(m) for m in a.melds or ())
        want(-k, "the player's")
        if (melds1, meld_cards1) != (melds0 + len(a.melds or ()), meld_cards0 + k):
            out.append("go_down: the table did not gain exactly the melds")
    elif a.type == "swap_joker":
        want(0, "the player's")
        if meld_cards1 != meld_cards0:
            out.append("swap_joker: the table's card count changed")
    elif a.type == "borrow":
        k = len(a.new_meld or ()) - 1
        want(-k, "the player's")
        if (melds1, meld_cards1) != (melds0 + 1, meld_cards0 + k):
            out.append("borrow: the table did not gain exactly the cards from hand")
    elif a.type == "give":
        want(-1, "the giver's")
        if discarder is not None and hands1[discarder] != hands0[discarder] + 1:
            out.append("give: the discarder did not receive one card")
    elif a.type == "buy":
        depth = a.depth or 1
        want(depth + game.rules.penalty_cards, "the buyer's")
    elif a.type == "draw" and game.phase is Phase.PLAY and game.turn == p:
        want(1, "the drawer's")
    elif a.type in ("draw", "no_draw") and game.phase is Phase.BUY:
        want(0, "the drawer's")
    return out


# ---- one game -------------------------------------------------------------------------------

def play_checked(spec: GameSpec) -> GameResult:
    """Play one game by random legal play, checking invariants; a pure function of ``spec``."""
    t0 = time.perf_counter()
    res = GameResult(spec)
    rules = RuleSet.preset(spec.preset)
    game = Game(rules, spec.players, seed=spec.seed)
    rng = random.Random(spec.seed * 7919 + 1)  # the choices of randomplay.random_game
    pack = Counter(game.pack)
    pack_size = len(game.pack)

    def report(i: int, messages: list[str]) -> bool:
        for m in messages:
            if len(res.violations) < MAX_VIOLATIONS_PER_GAME:
                res.violations.append(Violation(spec.index, spec.preset, spec.players,
                                                spec.seed, i, m))
        return bool(messages)

    report(-1, check_cards(game, pack) + check_new_hand(game, pack_size))
    every = spec.every_action
    i = 0
    while not game.over:
        if i >= MAX_ACTIONS:
            report(i, [f"the game did not end within {MAX_ACTIONS} actions"])
            break
        try:
            a = random_action(game, rng)
        except Exception as e:  # any crash while listing is a finding, not the end of the run
            report(i, [f"listing legal actions for seat(s) {game.to_act()} in phase "
                       f"{game.phase.value} failed: {e!r}"])
            break
        hand_before = game.hand_index
        before = _sizes(game) if every else None
        discarder = game.discarder
        try:
            game.apply(a)
        except IllegalActionError as e:
            report(i, [f"listed action {a} was rejected: {e}"])
            break
        except Exception as e:
            report(i, [f"applying listed action {a} crashed: {e!r}"])
            break
        new_hand = game.hand_index != hand_before
        if every or new_hand or game.over:
            msgs = check_cards(game, pack)
            if before is not None and not new_hand and not game.over:
                msgs += check_action(before, game, a, discarder)
            seats = range(game.n) if new_hand or game.over else game.to_act()[:1]
            msgs += check_places(game, seats)
            if new_hand:
                msgs += check_scores(game)
                if not game.over:
                    msgs += check_new_hand(game, pack_size)
            if report(i, msgs) and len(res.violations) >= MAX_VIOLATIONS_PER_GAME:
                break
        i += 1
    if game.over:
        report(len(game.actions) - 1, check_scores(game) + check_end(game))
    elif not res.violations:
        report(i, ["the game stopped before its end"])
    res.actions = len(game.actions)
    res.hands = len(game.scores)
    res.seconds = time.perf_counter() - t0
    return res


def _run_chunk(specs: Sequence[GameSpec]) -> list[GameResult]:
    return [play_checked(s) for s in specs]


# ---- the command ----------------------------------------------------------------------------

@dataclass
class PresetStats:
    games: int = 0
    actions: int = 0
    hands: int = 0
    violations: int = 0
    seconds: float = 0.0


def run(games: int, workers: int, seed: int, every_action: int,
        progress: Progress | None = None) -> list[GameResult]:
    """All games' results, in game order (the same whatever ``workers`` is)."""
    specs = game_specs(games, seed, every_action)
    chunks = [specs[k:k + CHUNK] for k in range(0, len(specs), CHUNK)]
    task = progress.add_task("soak", total=len(specs)) if progress else None
    results: list[GameResult] = []

    def done(batch: list[GameResult]) -> None:
        results.extend(batch)
        if progress is not None and task is not None:
            progress.advance(task, len(batch))

    if workers <= 1:
        for chunk in chunks:
            done(_run_chunk(chunk))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # keep a bounded number of chunks in flight so progress is live and memory flat
            pending: set[Future[list[GameResult]]] = set()
            queue = iter(chunks)
            for chunk in queue:
                pending.add(pool.submit(_run_chunk, chunk))
                if len(pending) >= workers * 4:
                    break
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    done(f.result())
                    nxt = next(queue, None)
                    if nxt is not None:
                        pending.add(pool.submit(_run_chunk, nxt))
    results.sort(key=lambda r: r.spec.index)
    return results


def summarize(results: Sequence[GameResult]) -> dict[str, PresetStats]:
    stats = {name: PresetStats() for name in PRESET_NAMES}
    for r in results:
        st = stats[r.spec.preset]
        st.games += 1
        st.actions += r.actions
        st.hands += r.hands
        st.violations += len(r.violations)
        st.seconds += r.seconds
    return stats


def main(args: argparse.Namespace) -> int:
    games = int(args.games)
    workers = int(args.workers) or os.cpu_count() or 1
    every = int(args.every_action)
    console = Console()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=Console(stderr=True), transient=True)
    t0 = time.perf_counter()
    with progress:
        results = run(games, workers, int(args.seed), every, progress)
    wall = time.perf_counter() - t0
    stats = summarize(results)
    table = Table(title=f"liverpool soak: {games:,} games, seed {args.seed}, {workers} worker(s), "
                        f"first {min(every, games):,} checked after every action")
    for col in ("preset", "games", "hands", "actions", "violations", "time (s)"):
        table.add_column(col, justify="left" if col == "preset" else "right")
    total = PresetStats()
    for name, st in stats.items():
        table.add_row(name, f"{st.games:,}", f"{st.hands:,}", f"{st.actions:,}",
                      f"[red]{st.violations}[/]" if st.violations else "0", f"{st.seconds:.1f}")
        total.games += st.games
        total.hands += st.hands
        total.actions += st.actions
        total.violations += st.violations
        total.seconds += st.seconds
    table.add_row("total", f"{total.games:,}", f"{total.hands:,}", f"{total.actions:,}",
                  str(total.violations), f"{total.seconds:.1f}", style="bold")
    console.print(table)
    console.print(f"wall time {wall:.1f} s (per-preset times are summed over workers)")
    bad = [v for r in results for v in r.violations]
    if bad:
        console.print(f"[red]{len(bad)} violation(s)[/]; the first few (reproduce with "
                      f"randomplay.random_game(RuleSet.preset(preset), players, seed)):")
        for v in bad[:10]:
            console.print(f"  game {v.index} {v.preset} {v.players}p seed {v.seed} "
                          f"action {v.action_index}: {v.message}", markup=False)
        return 1
    console.print("[green]no violations[/]")
    return 0


if __name__ == "__main__":  # python -m liverpool.soak --games 100
    _p = argparse.ArgumentParser(prog="python -m liverpool.soak")
    _p.add_argument("--games", type=int, default=10_000)
    _p.add_argument("--workers", type=int, default=0)
    _p.add_argument("--seed", type=int, default=0)
    _p.add_argument("--every-action", type=int, default=1_000)
    sys.exit(main(_p.parse_args()))
