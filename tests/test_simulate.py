"""The tournament simulator: statistics on hand-built results (shared wins, win rate, Wilson
interval, points, contracts made), seat rotation, results independent of the worker count and
of the backend (local processes or Ray), and the ``liverpool simulate`` command.
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from liverpool import cli
from liverpool.bots import Bot, make_bot
from liverpool.engine import Game
from liverpool.record import replay
from liverpool.simulate import (
    BotStats,
    GameResult,
    play_game,
    run_local,
    run_ray,
    specs_for,
    summarize,
    summarize_duplicate,
    wilson,
)

BIN = Path(sys.executable).parent / "liverpool"
JSON_BOT_KEYS = {"bot", "games", "wins", "win_rate", "win_rate_ci95", "mean_points",
                 "median_points"}


def _result(index: int, bots: tuple[str, ...], hand_points: list[list[int]],
            made: list[list[bool]], contracts: list[int]) -> GameResult:
    """A game result by hand: totals are the hand rows' sums, the winners the lowest total."""
    totals = [sum(row[s] for row in hand_points) for s in range(len(bots))]
    low = min(totals)
    return GameResult(index=index, bots=bots, totals=totals,
                      winners=[s for s in range(len(bots)) if totals[s] == low],
                      hand_points=hand_points, made=made, contract_numbers=contracts,
                      decisions=0)


def _stats(stats: list[BotStats], bot: str) -> dict[str, Any]:
    found = [s for s in stats if s.bot == bot]
    assert len(found) == 1, f"one line per bot, got {[s.bot for s in stats]}"
    return found[0].to_json()


# ---- statistics -----------------------------------------------------------------------------

def _wilson_by_formula(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), clipped to [0, 1]."""
    p = k / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


@pytest.mark.parametrize("wins,games,published", [
    (0, 10, (0.0, 0.2775)),  # the usual table values for n = 10, 95%
    (5, 10, (0.2366, 0.7634)),
    (10, 10, (0.7225, 1.0)),
    (1, 4, None),
    (2.5, 5, None),  # ties count half a win
    (37, 200, None),
])
def test_wilson_interval(wins: float, games: int,
                         published: tuple[float, float] | None) -> None:
    low, high = wilson(wins, games)
    want_low, want_high = _wilson_by_formula(wins, games)
    assert low == pytest.approx(want_low, abs=1e-12)
    assert high == pytest.approx(want_high, abs=1e-12)
    if published is not None:
        assert low == pytest.approx(published[0], abs=5e-5)
        assert high == pytest.approx(published[1], abs=5e-5)
    assert 0.0 <= low <= wins / games <= high <= 1.0


def test_wilson_no_games() -> None:
    assert wilson(0, 0) == (0.0, 0.0)


def test_summarize_two_bots_four_games() -> None:
    """Four 2-seat games between A and B, seats swapped each game; two hands per game.

    game  seats  hand rows          totals    winners   made (per hand, per seat)  contracts
    0     A B    [60,0] [40,50]     100  50   B         [F,T] [T,T]                1 2
    1     B A    [30,0] [0,30]       30  30   both      [F,T] [T,F]                1 2
    2     A B    [0,80] [10,0]       10  80   A         [T,F] [F,T]                2 5
    3     B A    [5,5]  [0,40]        5  45   B         [T,F] [T,T]                1 2
    """
    results = [
        _result(0, ("A", "B"), [[60, 0], [40, 50]], [[False, True], [True, True]], [1, 2]),
        _result(1, ("B", "A"), [[30, 0], [0, 30]], [[False, True], [True, False]], [1, 2]),
        _result(2, ("A", "B"), [[0, 80], [10, 0]], [[True, False], [False, True]], [2, 5]),
        _result(3, ("B", "A"), [[5, 5], [0, 40]], [[True, False], [True, True]], [1, 2]),
    ]
    assert [r.winners for r in results] == [[1], [0, 1], [0], [0]]
    stats = summarize(results)
    a, b = _stats(stats, "A"), _stats(stats, "B")
    # A: wins 0 + 1/2 (tie) + 1 + 0 = 1.5 of 4; B: 1 + 1/2 + 0 + 1 = 2.5 of 4
    assert (a["games"], a["wins"], a["win_rate"]) == (4, 1.5, 0.375)
    assert (b["games"], b["wins"], b["win_rate"]) == (4, 2.5, 0.625)
    assert a["win_rate_ci95"] == pytest.approx(list(_wilson_by_formula(1.5, 4)))
    assert b["win_rate_ci95"] == pytest.approx(list(_wilson_by_formula(2.5, 4)))
    # A's totals 100, 30, 10, 45: mean 185/4, median (30 + 45)/2; B's 50, 30, 80, 5
    assert a["mean_points"] == pytest.approx(46.25)
    assert a["median_points"] == pytest.approx(37.5)
    assert b["mean_points"] == pytest.approx(41.25)
    assert b["median_points"] == pytest.approx(40.0)
    # per hand: A 60 40 0 30 0 10 5 40 = 185 over 8; B 0 50 30 0 80 0 5 0 = 165 over 8
    assert a["mean_points_per_hand"] == pytest.approx(185 / 8)
    assert b["mean_points_per_hand"] == pytest.approx(165 / 8)
    # contracts made, keyed by contract number (game 2 played contracts 2 and 5):
    # A: contract 1 F T F -> 1/3; 2: T F T T -> 3/4; 5: F -> 0
    # B: contract 1 T F T -> 2/3; 2: T T F T -> 3/4; 5: T -> 1
    assert a["contracts_made"] == pytest.approx({"1": 1 / 3, "2": 0.75, "5": 0.0})
    assert b["contracts_made"] == pytest.approx({"1": 2 / 3, "2": 0.75, "5": 1.0})


def test_summarize_three_way_tie_with_a_repeated_bot() -> None:
    """A, A, B all on 10 points: each seat wins a third; A's two seats pool (2 games, 2/3)."""
    results = [_result(0, ("A", "A", "B"), [[10, 10, 10]], [[True, True, True]], [1])]
    assert results[0].winners == [0, 1, 2]
    stats = summarize(results)
    raw = {s.bot: s.wins for s in stats}
    assert raw == pytest.approx({"A": 2 / 3, "B": 1 / 3})
    a, b = (_stats(stats, name) for name in ("A", "B"))
    # the JSON rounds wins to 4 places; the rate is exact
    assert a["games"] == 2 and a["wins"] == 0.6667
    assert a["win_rate"] == pytest.approx(1 / 3)
    assert b["games"] == 1 and b["wins"] == 0.3333
    assert b["win_rate"] == pytest.approx(1 / 3)
    assert a["contracts_made"] == {"1": 1.0}


def test_summarize_nothing() -> None:
    assert summarize([]) == []


# ---- seat rotation and game seeds -----------------------------------------------------------

@pytest.mark.parametrize("bots", [["x", "y"], ["x", "y", "z"],
                                  ["expert", "basic", "basic", "basic"]])
def test_every_bot_sits_in_every_seat_equally_often(bots: list[str]) -> None:
    n = len(bots)
    rounds = 5
    specs = specs_for(rounds * n, "standard" if n >= 3 else "arena", {}, bots, seed=4)
    assert [s.index for s in specs] == list(range(rounds * n))
    seatings = Counter((seat, name) for s in specs for seat, name in enumerate(s.bots))
    entries = Counter(bots)
    for seat in range(n):
        for name, k in entries.items():
            # a bot named k times in the list holds each seat k times per rotation
            assert seatings[(seat, name)] == rounds * k
    for s in specs:
        assert Counter(s.bots) == entries  # the same table every game, only rotated
    assert len({s.seed for s in specs}) == len(specs)


def test_uneven_game_count_stays_balanced() -> None:
    specs = specs_for(7, "arena", {}, ["x", "y", "z"], seed=1)
    seat0 = Counter(s.bots[0] for s in specs)
    assert max(seat0.values()) - min(seat0.values()) <= 1


def test_game_seeds_depend_on_base_seed_and_index_only() -> None:
    long = specs_for(10, "arena", {}, ["x", "y"], seed=9)
    short = specs_for(4, "arena", {}, ["x", "y"], seed=9)
    assert [s.seed for s in short] == [s.seed for s in long[:4]]
    other = specs_for(4, "arena", {}, ["x", "y"], seed=10)
    assert not {s.seed for s in other} & {s.seed for s in short}


# ---- one game, and many on any number of workers --------------------------------------------

def test_play_game_result_is_consistent() -> None:
    spec = specs_for(1, "arena", {"hands": [2, 5]}, ["basic", "random", "basic"], seed=2)[0]
    r = play_game(spec, keep_record=True)
    assert r.record is not None and r.bots == spec.bots
    assert r.contract_numbers == [2, 5] and len(r.hand_points) == 2 and len(r.made) == 2
    for s in range(3):
        assert r.totals[s] == sum(row[s] for row in r.hand_points)
    assert r.winners == [s for s in range(3) if r.totals[s] == min(r.totals)]
    assert r.decisions == len(r.record["actions"])
    assert r.record["players"] == ["basic#0", "random#1", "basic#2"]
    done = replay(r.record)
    assert done.error is None and list(done.game.totals) == r.totals
    assert [list(d) for d in done.game.downs] == r.made
    # without keep_record the game is the same, only the record is left out
    bare = play_game(spec)
    assert bare.record is None and bare.totals == r.totals and bare.decisions == r.decisions
    # bots made by a ``seat_bot`` given the game: the same game when they are the same bots
    made: list[tuple[str, Game]] = []

    def seat_bot(name: str, game: Game) -> Bot:
        made.append((name, game))
        return make_bot(name)

    again = play_game(spec, seat_bot=seat_bot)
    assert again.totals == r.totals and again.decisions == r.decisions
    assert [n for n, _ in made] == list(spec.bots) and len({id(g) for _, g in made}) == 1


def test_results_do_not_depend_on_the_worker_count() -> None:
    specs = specs_for(8, "arena", {}, ["basic", "random"], seed=3)
    ticks: list[int] = []
    one = run_local(specs, 1, False)
    two = run_local(specs, 2, False, progress=ticks.append)
    assert [r.index for r in two] == list(range(8))
    assert one == two
    assert sum(ticks) == 8
    # the expert's own RNG comes from the game seed too, not from the process
    short = specs_for(2, "arena", {"hands": [1]}, ["expert:2it", "random"], seed=5)
    assert run_local(short, 1, True) == run_local(short, 2, True)


def test_ray_backend_gives_the_local_results() -> None:
    try:
        import ray  # noqa: F401
    except ImportError as e:  # the ray extra is part of the test dependencies
        pytest.skip(f"Ray is not installed ({e}); the local backends are tested above")
    specs = specs_for(6, "arena", {}, ["basic", "random"], seed=11)
    local = run_local(specs, 1, False)
    ticks: list[int] = []
    remote = run_ray(specs, 2, False, None, progress=ticks.append)
    assert remote == local
    assert sum(ticks) == 6
    assert summarize(remote)[0].to_json() == summarize(local)[0].to_json()


# ---- the command ----------------------------------------------------------------------------

def _simulate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN), "simulate", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_simulate_json_output() -> None:
    args = ["--games", "4", "--players", "2", "--bots", "basic,random", "--rules", "arena",
            "--seed", "1", "--json"]
    done = _simulate(*args, "--workers", "1")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["games"], out["players"], out["rules"], out["seed"]) == (4, 2, "arena", 1)
    assert [b["bot"] for b in out["bots"]] == ["basic", "random"]
    for b in out["bots"]:
        assert set(b) >= JSON_BOT_KEYS
        assert b["games"] == 4  # each bot plays every game (rotated seats)
        assert b["win_rate"] == pytest.approx(b["wins"] / b["games"])
        low, high = b["win_rate_ci95"]
        assert low <= b["win_rate"] <= high
        assert (low, high) == pytest.approx(_wilson_by_formula(b["wins"], b["games"]))
    # one winner's share per game (shared on ties)
    assert sum(b["wins"] for b in out["bots"]) == pytest.approx(4)
    # the same numbers as the library on the same games
    specs = specs_for(4, "arena", {}, ["basic", "random"], seed=1)
    assert out["bots"] == [s.to_json() for s in summarize(run_local(specs, 1, False))]
    # and the same output with two worker processes
    again = _simulate(*args, "--workers", "2")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == out


def test_simulate_one_bot_name_fills_every_seat(tmp_path: Path) -> None:
    done = _simulate("--games", "2", "--players", "3", "--bots", "basic", "--rules", "standard",
                     "--seed", "2", "--workers", "1", "--json", "--records", str(tmp_path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert len(out["bots"]) == 1 and out["bots"][0]["bot"] == "basic"
    assert out["bots"][0]["games"] == 6  # 2 games x 3 seats
    assert out["bots"][0]["wins"] == pytest.approx(2)
    # --records: one replayable record per game, whose totals give the reported points
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 2
    points: list[int] = []
    for f in files:
        done_game = replay(json.loads(f.read_text(encoding="utf-8")))
        assert done_game.error is None and done_game.game.over
        points.extend(done_game.game.totals)
    assert out["bots"][0]["mean_points"] == pytest.approx(statistics.fmean(points))
    assert out["bots"][0]["median_points"] == pytest.approx(statistics.median(points))


@pytest.mark.parametrize("bots,players,message", [
    ("basic,wizard", "2", "unknown bot 'wizard'"),
    ("basic,expert:0it", "2", "budget must be positive"),
    ("basic,random,basic", "2", "3 bots for 2 players"),
])
def test_simulate_bad_bots_is_a_clear_error(bots: str, players: str, message: str) -> None:
    done = _simulate("--games", "2", "--players", players, "--bots", bots, "--rules", "arena",
                     "--workers", "1", "--json")
    assert done.returncode != 0
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_simulate_player_count_outside_the_preset() -> None:
    # standard is for 3-8 players (docs/rules.md, Presets)
    done = _simulate("--games", "1", "--players", "2", "--bots", "basic,random", "--rules",
                     "standard", "--workers", "1", "--json")
    assert done.returncode != 0
    assert "3-8" in done.stderr and "Traceback" not in done.stderr


# ---- duplicate play ----------------------------------------------------------------------------
def test_duplicate_plays_each_deal_once_per_rotation_with_the_same_cards() -> None:
    bots = ["expert:4it", "basic", "random"]
    specs = specs_for(2, "standard", {"hands": [1, 2]}, bots, seed=9, duplicate=True)
    assert len(specs) == 6
    for d in range(2):
        rotations = [s for s in specs if s.deal == d]
        assert len(rotations) == 3 and len({s.seed for s in rotations}) == 1
        # every bot in every seat once per deal
        for seat in range(3):
            assert sorted(s.bots[seat] for s in rotations) == sorted(bots)
    assert specs[0].seed != specs[3].seed  # two deals, two different decks
    results = [play_game(s, keep_record=True) for s in specs[:3]]
    decks = [r.record["deals"] for r in results if r.record is not None]
    assert len(decks) == 3
    # the same cards in each hand for every rotation, however the first hand went
    assert decks[0] == decks[1] == decks[2]
    assert all(r.deal == 0 for r in results)


def test_duplicate_results_count_each_deal_once() -> None:
    def game(index: int, deal: int, bots: tuple[str, ...], winners: list[int],
             totals: list[int]) -> GameResult:
        return GameResult(index, bots, totals, winners, [], [], [], 0, deal=deal)
    results = [
        # deal 0: A wins in both rotations; deal 1: A wins once, B once; deal 2: a shared win
        game(0, 0, ("A", "B"), [0], [0, 50]), game(1, 0, ("B", "A"), [1], [40, 0]),
        game(2, 1, ("A", "B"), [0], [5, 30]), game(3, 1, ("B", "A"), [0], [0, 20]),
        game(4, 2, ("A", "B"), [0, 1], [10, 10]), game(5, 2, ("B", "A"), [1], [30, 0]),
    ]
    stats, deals = summarize_duplicate(results)
    by = {s.bot: s for s in stats}
    assert by["A"].shares == [1.0, 0.5, 0.75] and by["B"].shares == [0.0, 0.5, 0.25]
    assert by["A"].points == [0.0, 12.5, 5.0]
    mean = statistics.fmean([1.0, 0.5, 0.75])
    half = 1.96 * statistics.stdev([1.0, 0.5, 0.75]) / math.sqrt(3)
    low, high = by["A"].interval()
    assert math.isclose(low, mean - half) and high == 1.0  # clipped at 100%
    assert [d["deal"] for d in deals] == [0, 1, 2] and deals[1]["bots"]["B"]["win_share"] == 0.5
    # independent games as precise would need z^2 times a game's share variance over the
    # deals' half-width squared
    assert by["A"].game_shares == [1.0, 1.0, 1.0, 0.0, 0.5, 1.0]
    alone = 1.96 ** 2 * statistics.variance(by["A"].game_shares) / half ** 2
    assert by["A"].games_alone() == math.ceil(alone)
    assert by["A"].to_json()["games"] == 6 and by["A"].to_json()["games_alone"] == math.ceil(alone)


def test_simulate_duplicate_reports_the_deals(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--games", "2", "--players", "2", "--bots", "basic,random",
                     "--rules", "arena", "--override", "hands=[1]", "--duplicate",
                     "--workers", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 4 and out["duplicate"]["deals"] == 2
    assert {b["bot"] for b in out["duplicate"]["bots"]} == {"basic", "random"}
    assert all(d["games"] == 2 for d in out["duplicate"]["per_deal"])
