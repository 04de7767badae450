"""The ``liverpool`` command line: ``replay --json`` (docs/rules.md, Records), ``demo``,
``bench``, ``soak`` and the ``--override KNOB=VALUE`` items.

Replay records use a stacked first deal (``deals``), so every expected field below is worked
out by hand from docs/rules.md: standard, 3 players, 2 decks (108 cards), 10 cards each, dealer 0,
seat 1 plays first.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import C

from liverpool import bench, cli, compiled, soak
from liverpool.actions import ACTION_TYPES
from liverpool.cards import JOKER, card_str
from liverpool.engine import Game, stacked_deck
from liverpool.record import replay
from liverpool.rules import RulesError, RuleSet, parse_overrides
from liverpool.solver import best_go_down

# the installed console script of the environment running the tests (its scripts directory)
LIVERPOOL = shutil.which("liverpool", path=str(Path(sys.executable).parent)) or "liverpool"
SUMMARY_KEYS = {"ok", "error", "hand_number", "scores", "totals", "hands", "down", "melds",
                "discard", "stock_size", "to_act"}

SEAT0 = "AS 2S 3S 4S 5S 6S 8S 10S JS QS"
SEAT1 = "7H 7S 7D 9C 9D 9H 2C 4D 6S KC"
SEAT2 = "AH 2H 3H 4H 5H 6H 8H 10H JH QH"
UPCARD = "QC"
STOCK_TOP = "5H"


def _record(actions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    rules = RuleSet.preset("standard")
    deck = stacked_deck(rules, 3, 0, [C(SEAT0), C(SEAT1), C(SEAT2)], C(UPCARD)[0], C(STOCK_TOP))
    return {"rules": {"preset": "standard", "overrides": {}}, "players": ["Ann", "Bob", "Cy"],
            "seed": 7, "first_dealer": 0, "deals": [[card_str(c) for c in deck]],
            "actions": list(actions)}


OPENING = [
    {"player": 1, "type": "draw"},  # declines the upcard QC: a buy round opens
    {"player": 2, "type": "pass"},  # nearest to the drawer's left first
    {"player": 0, "type": "pass"},  # the dealer is asked too (the upcard has no discarder)
]
GO_DOWN = {"player": 1, "type": "go_down", "melds": [["7H", "7S", "7D"], ["9C", "9D", "9H"]]}
GOOD = [*OPENING, GO_DOWN, {"player": 1, "type": "discard", "card": "KC"}]


def _write(tmp_path: Path, obj: Any, name: str = "rec.json") -> Path:
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")
    return path


def _replay(tmp_path: Path, capsys: pytest.CaptureFixture[str], obj: Any
            ) -> tuple[int, dict[str, Any] | None, str]:
    path = _write(tmp_path, obj)
    code = cli.main(["replay", str(path), "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


# ---- replay --json ----------------------------------------------------------------------------

def test_replay_good_record_prints_every_field(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _replay(tmp_path, capsys, _record(GOOD))
    assert code == 0 and out is not None
    assert set(out) >= SUMMARY_KEYS
    assert out["ok"] is True and out["error"] is None
    assert out["hand_number"] == 1
    assert out["scores"] == [] and out["totals"] == [0, 0, 0]  # no hand finished yet
    # seat 1: 10 dealt + 5H drawn = 11; 6 melded -> 2C 4D 6S KC 5H; KC discarded -> 4 cards,
    # listed by suit S H D C: 6S 5H 4D 2C
    assert out["hands"] == [SEAT0.split(), ["6S", "5H", "4D", "2C"], SEAT2.split()]
    assert out["down"] == [False, True, False]
    # sets are listed by suit S H D C; meld 0 is the first laid down; no wild stands for a card
    naturals = [None, None, None]
    assert out["melds"] == [
        {"owner": 1, "kind": "set", "cards": ["7S", "7H", "7D"], "stands_for": naturals},
        {"owner": 1, "kind": "set", "cards": ["9H", "9D", "9C"], "stands_for": naturals}]
    assert out["discard"] == ["QC", "KC"]  # top last; KC fits no set: no call window
    assert out["stock_size"] == 108 - 30 - 1 - 1  # pack - deal - upcard - seat 1's draw
    assert out["to_act"] == 2  # play goes left


def test_replay_illegal_action_stops_with_index_and_state_before(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # AD is not in seat 1's hand
    code, out, _ = _replay(tmp_path, capsys, _record(
        [*OPENING, {"player": 1, "type": "discard", "card": "AD"}, GO_DOWN]))
    assert code == 1 and out is not None
    assert out["ok"] is False
    assert out["error"]["index"] == 3 and "AD" in out["error"]["reason"]
    # the state after action 2: seat 1 holds its 10 cards and the drawn 5H, and must play
    assert len(out["hands"][1]) == 11 and "5H" in out["hands"][1]
    assert out["down"] == [False, False, False] and out["melds"] == []
    assert out["discard"] == ["QC"] and out["stock_size"] == 108 - 30 - 1 - 1
    assert out["to_act"] == 1


def test_replay_out_of_turn_action_is_illegal_at_its_index(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _replay(tmp_path, capsys, _record([{"player": 2, "type": "draw"}]))
    assert code == 1 and out is not None
    assert out["error"]["index"] == 0
    assert out["to_act"] == 1 and out["stock_size"] == 108 - 30 - 1  # nothing applied
    assert out["hands"][1] == sorted(SEAT1.split(), key=lambda t: C(t)[0])


@pytest.mark.parametrize("bad", [
    {"player": 2, "type": "fly"},  # unknown type
    {"player": 2, "type": "buy", "card": "QC"},  # a field buy does not take
    {"type": "pass"},  # no player
])
def test_replay_malformed_action_exits_1_naming_its_index(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: dict[str, Any]) -> None:
    code, out, _ = _replay(tmp_path, capsys, _record([OPENING[0], bad, OPENING[1]]))
    assert code == 1 and out is not None
    assert out["ok"] is False and out["error"]["index"] == 1
    assert out["error"]["reason"]
    # the state after the draw: the buy round asks seat 2 first, seat 1 has not drawn yet
    assert out["to_act"] == 2 and len(out["hands"][1]) == 10
    assert out["stock_size"] == 108 - 30 - 1


def test_replay_bad_card_is_malformed(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _replay(tmp_path, capsys, _record(
        [*OPENING, {"player": 1, "type": "discard", "card": "ZZ"}]))
    assert code == 1 and out is not None and out["error"]["index"] == 3


@pytest.mark.parametrize("text", [
    "{not json",
    json.dumps({"players": ["A", "B", "C"], "actions": []}),  # no rules
    json.dumps({"rules": {"preset": "standard"}, "actions": []}),  # no players
])
def test_replay_unreadable_record_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          text: str) -> None:
    code, out, err = _replay(tmp_path, capsys, text)
    assert code == 2
    assert out is None  # nothing on stdout, the reason on stderr
    assert err.strip()


def test_replay_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["replay", str(tmp_path / "nowhere.json"), "--json"]) == 2


def test_replay_through_the_installed_command(tmp_path: Path) -> None:
    good = _write(tmp_path, _record(GOOD), "good.json")
    bad = _write(tmp_path, _record([{"player": 0, "type": "draw"}]), "bad.json")
    junk = _write(tmp_path, "[1, 2", "junk.json")
    runs = [subprocess.run([LIVERPOOL, "replay", str(p), "--json"], capture_output=True,
                           text=True, timeout=60) for p in (good, bad, junk)]
    assert [r.returncode for r in runs] == [0, 1, 2]
    first = json.loads(runs[0].stdout)
    assert set(first) >= SUMMARY_KEYS and first["to_act"] == 2 and first["ok"] is True
    assert json.loads(runs[1].stdout)["error"]["index"] == 0
    assert runs[2].stdout == ""


# ---- bench --------------------------------------------------------------------------------------

BENCH_KEYS = {"engine_actions_per_s", "engine_games_per_s", "solver_p50_ms", "solver_p99_ms",
              "action_mix"}


def _check_bench(out: dict[str, Any]) -> None:
    assert set(out) >= BENCH_KEYS
    assert out["core"] == compiled.core  # which core was measured
    assert out["core_detail"] == compiled.describe()
    assert out["engine_actions_per_s"] > 0 and out["engine_games_per_s"] > 0
    assert 0 < out["solver_p50_ms"] <= out["solver_p99_ms"]
    assert 0 < out["solver_cpu_p50_ms"] <= out["solver_cpu_p99_ms"]
    mix = out["action_mix"]
    assert set(mix) <= set(ACTION_TYPES) and all(k > 0 for k in mix.values())
    assert sum(mix.values()) == out["engine_actions"]
    # every turn ends in a discard or an empty hand: discards are the commonest action
    assert {"draw", "discard", "go_down"} <= set(mix)
    # the corpus: 7 contracts x the quick size, half built feasible, all of those found
    assert out["solver_calls"] == 7 * bench.QUICK_CORPUS_PER_CONTRACT
    assert out["solver_built_feasible"] == out["solver_calls"] // 2
    assert out["solver_built_feasible"] <= out["solver_feasible"] <= out["solver_calls"]
    assert out["solver_missed_feasible"] == 0
    # the learning environment (the rl extra is part of the test install): steps were measured
    assert out["env_steps"] > 0 and out["env_steps_per_s"] > 0


def test_bench_env_reports_rounds_and_their_median(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "env", "--quick", "--json", "--rounds", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    rounds = out["rounds"]
    assert len(rounds) == 3 and all(r["games"] >= 1 and r["steps"] > 0 for r in rounds)
    # the environment's own time is part of the loop's: its rate is the higher
    assert all(0 < r["env_s"] <= r["loop_s"] for r in rounds)
    assert out["env_steps_per_s"] == sorted(r["env_steps_per_s"] for r in rounds)[1]
    assert out["loop_steps_per_s"] <= out["env_steps_per_s"]


def test_bench_env_fails_when_a_game_is_cut_short(monkeypatch: pytest.MonkeyPatch) -> None:
    # an environment refusing the ids its mask offers ends each game at once: a bench that
    # counted those would measure far less than whole games
    from liverpool.bench import MeasuredLess, measure_env
    from liverpool.engine import IllegalActionError
    from liverpool.rl.aec import LiverpoolEnv

    def refuse(self: LiverpoolEnv, action: object) -> None:
        raise IllegalActionError("refused")

    monkeypatch.setattr(LiverpoolEnv, "step", refuse)
    monkeypatch.setattr(LiverpoolEnv, "is_legal_id", lambda self, action: False)
    with pytest.raises(MeasuredLess, match="cut short"):
        measure_env(0.0)
    assert cli.main(["bench", "env", "--quick", "--rounds", "1"]) == 1


def test_bench_quick_json_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--quick", "--json"]) == 0
    out, _ = capsys.readouterr()
    _check_bench(json.loads(out))  # stdout holds the JSON object only


def test_bench_module_quick_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(argparse.Namespace(json=True, quick=True)) == 0
    _check_bench(json.loads(capsys.readouterr().out))


class _FakeSpielState:
    """A game of two chance actions (a deal) then three player actions."""

    def __init__(self) -> None:
        self.steps = 0

    def is_terminal(self) -> bool:
        return self.steps == 5

    def is_chance_node(self) -> bool:
        return self.steps < 2

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.5), (1, 0.5)]

    def legal_actions(self) -> list[int]:
        return [0, 1, 2]

    def apply_action(self, action: int) -> None:
        self.steps += 1


class _FakeSpiel:
    @staticmethod
    def load_game(name: str) -> Any:
        assert name == "gin_rummy"
        return argparse.Namespace(new_initial_state=_FakeSpielState)


def test_bench_peer_counts_the_peers_player_actions_apart(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", _FakeSpiel())
    assert cli.main(["bench", "peer", "--rounds", "2", "--seconds", "0.05", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["core"] == compiled.core and len(out["rounds"]) == 2
    for r in out["rounds"]:
        assert r["ours_actions_per_s"] > 0
        # 3 of every 5 of the fake peer's actions are a player's
        assert r["peer_player_actions_per_s"] == pytest.approx(
            0.6 * r["peer_all_actions_per_s"], rel=0.01)
    ratios = sorted(r["ours_actions_per_s"] / r["peer_player_actions_per_s"]
                    for r in out["rounds"])
    assert out["median_ratio_to_peer_player_actions"] == pytest.approx(sum(ratios) / 2,
                                                                       rel=0.01)


def test_bench_peer_without_openspiel_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # importing it raises ImportError
    with pytest.raises(SystemExit, match="pip install open_spiel"):
        cli.main(["bench", "peer", "--rounds", "1", "--seconds", "0.01"])


def test_bench_corpus_is_balanced() -> None:
    rules = RuleSet.preset("standard")
    corpus = bench.build_corpus(rules, 20)
    assert len(corpus) == 7 * 20
    for no in range(1, 8):
        part = [h for h in corpus if h.contract_no == no]
        assert sorted(h.wilds for h in part) == sorted(list(range(5)) * 4)
        assert sum(h.built_feasible for h in part) == 10
        for h in part:
            assert h.cards.count(JOKER) == h.wilds
            # 3 runs + 4 jokers needs 9 naturals + 4 jokers = 13 cards: the one exception
            assert len(h.cards) in (12, 13)
    # a smaller corpus is a prefix of a larger one, contract by contract
    small = bench.build_corpus(rules, 10)
    assert small == [h for i, h in enumerate(corpus) if i % 20 < 10]


def test_solver_finds_two_runs_of_one_suit_that_share_ranks() -> None:
    # Found by the bench corpus (built-feasible hands the solver rejects). standard, contract 3
    # (2 runs), naturals (2, 3): 3H 4H JK 6H (JK = 5H) and 3H JK 5H 6H (JK = 4H) are two runs
    # of 4 with 3 naturals each; docs/rules-decisions.md: "two runs may be of one suit".
    rules = RuleSet.preset("standard")
    gd = best_go_down(C("3H 3H 4H 5H 6H 6H JK JK"), rules.contracts[2], rules)
    assert gd is not None and gd.left == ()


# ---- soak ---------------------------------------------------------------------------------------

def _soak_args(**kw: Any) -> list[str]:
    return ["soak", *[f"--{k.replace('_', '-')}={v}" for k, v in kw.items()]]


def test_soak_20_games_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["soak", "--games", "20"]) == 0
    out = capsys.readouterr().out
    for preset in ("hoyle", "classic", "arena", "standard", "house"):
        assert preset in out
    assert "no violations" in out


def test_soak_results_do_not_depend_on_workers() -> None:
    one = soak.run(10, 1, 3, 0)
    two = soak.run(10, 2, 3, 0)
    assert [(r.spec, r.actions, r.hands, r.violations) for r in one] == \
        [(r.spec, r.actions, r.hands, r.violations) for r in two]


def test_soak_rotates_presets_and_player_counts() -> None:
    specs = soak.game_specs(70, 5, 3)
    assert [s.preset for s in specs[:5]] == ["hoyle", "classic", "arena", "standard", "house"]
    assert sorted({s.players for s in specs if s.preset == "standard"}) == [3, 4, 5, 6, 7, 8]
    assert sorted({s.players for s in specs if s.preset == "hoyle"}) == [2, 3, 4, 5, 6, 7, 8]
    assert [s.every_action for s in specs[:4]] == [True, True, True, False]
    assert len({s.seed for s in specs}) == 70
    assert soak.game_specs(70, 5, 3) == specs  # seeds are a function of (base, index)


def test_soak_checks_catch_tampering() -> None:
    game = Game(RuleSet.preset("standard"), 3, seed=4)
    pack = Counter(game.pack)
    assert soak.check_cards(game, pack) == []
    card = game.stock.pop()
    game.hands[0].append(card)  # moved, still conserved, but the replay will disagree
    assert soak.check_cards(game, pack) == []
    assert any("differs" in m for m in soak.check_end(game))
    game.discard.append(card)  # one copy too many
    msgs = soak.check_cards(game, pack)
    assert len(msgs) == 1 and "beyond" in msgs[0] and card_str(card) in msgs[0]
    game.hands[1].clear()  # ten cards gone, and seat 1 empty without being out
    assert any("missing" in m for m in soak.check_cards(game, pack))
    assert any("seat 1 holds no card" in m for m in soak.check_places(game, []))
    game.scores.append([1, 2, 3])
    assert soak.check_scores(game)  # a row for a hand not played, totals not its sum


def test_soak_exits_1_and_names_the_violation(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(soak, "check_end", lambda game: ["planted"])
    assert cli.main(_soak_args(games=2, workers=1, every_action=0)) == 1
    out = capsys.readouterr().out
    assert "planted" in out and "hoyle" in out and "seed" in out


# ---- overrides ----------------------------------------------------------------------------------

def test_overrides_are_json_or_text() -> None:
    assert parse_overrides(["max_buys=3", "naturals=[2,3]", "going_out=float",
                            " buying = false ", "max_buys=null"]) == {
        "max_buys": None, "naturals": [2, 3], "going_out": "float", "buying": False}


@pytest.mark.parametrize(("item", "words"), [
    ("max_buys", "override 'max_buys': write KNOB=VALUE"),
    ("=3", "override '=3': write KNOB=VALUE"),
    ("maxbuys=3", "unknown knob 'maxbuys' (override 'maxbuys=3')"),
    ("max_buys= ", "max_buys: give a value"),
])
def test_an_override_that_cannot_be_read_names_its_knob(item: str, words: str) -> None:
    with pytest.raises(RulesError) as refused:
        parse_overrides(["buying=true", item])
    assert str(refused.value).startswith(words)


def test_a_bad_override_value_stops_the_command_naming_the_knob(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--override", "max_buys=lots"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("liverpool: max_buys: ") and "'lots'" in err


# ---- demo ---------------------------------------------------------------------------------------

def test_demo_plays_a_seeded_game_the_same_way_twice(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    args = ["demo", "--seed", "5", "--players", "3", "--override", "hands=[1,2]",
            "--override", "buy_priority=first_call"]
    assert cli.main([*args, "--record", str(tmp_path / "a.json")]) == 0
    first = capsys.readouterr().out
    assert cli.main([*args, "--record", str(tmp_path / "b.json")]) == 0
    assert capsys.readouterr().out.replace("b.json", "a.json") == first
    rec = json.loads((tmp_path / "a.json").read_text())
    assert rec == json.loads((tmp_path / "b.json").read_text())
    result = replay(rec)
    assert result.error is None and result.game.over
    # the log: one rule per hand, a line per hand's end, and the winner
    assert first.count("hand 1: 2 sets") == 1 and first.count("hand over") == 2
    winners = " and ".join(["Ann", "Bob", "Cy"][s] for s in result.game.winners)
    assert f"winner: {winners}" in first


@pytest.mark.parametrize(("terminal", "given", "move"), [
    (True, [], cli.DEMO_PACE),  # a person watches: paced by default
    (False, [], 0.0),  # a pipe, a file, a test: no pause unless asked
    (True, ["--pace", "0"], 0.0),
    (False, ["--pace", "0.5"], 0.5),
])
def test_the_demo_is_paced_on_a_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str], terminal: bool,
                                         given: list[str], move: float) -> None:
    monkeypatch.setattr(cli, "_stdout_is_terminal", lambda: terminal)
    slept: list[float] = []
    args = cli.build_parser().parse_args(
        ["demo", "--seed", "5", "--players", "3", "--override", "hands=[1,2]", "--quiet",
         "--record", str(tmp_path / "d.json"), *given])
    assert cli.cmd_demo(args, sleep=slept.append) == 0
    rec = json.loads((tmp_path / "d.json").read_text())
    shown = [a for a in rec["actions"]
             if a["type"] not in ("pass", "draw", "take_discard", "discard")]
    if move == 0:
        assert slept == []
        return
    # a pause after each move shown, a longer one after each hand's points
    assert Counter(slept) == {move: len(shown), move * cli.HAND_END_PAUSE: 2}
    assert capsys.readouterr().out.count("hand over") == 2


def test_the_demo_pace_is_seconds_not_below_zero(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("-1", "soon"):
        with pytest.raises(SystemExit):
            cli.build_parser().parse_args(["demo", "--pace", bad])
    assert "--pace" in capsys.readouterr().err


def test_replay_watch_into_a_pipe_prints_the_moves_and_ends(tmp_path: Path) -> None:
    """Into a pipe there is nobody to step through a game: the moves log comes out as lines and
    the command ends (the full-screen watch wrote control codes into the pipe, then spun at
    half a core waiting for keys until it was killed)."""
    import random

    from liverpool.engine import Game
    from liverpool.record import game_record
    from liverpool.rules import RuleSet
    game = Game(RuleSet.preset("standard", {"hands": [1]}), ["Ann", "Bob", "Cy"], seed=2)
    rng = random.Random(2)
    while not game.over:
        game.apply(rng.choice(game.legal_actions(game.to_act()[0])))
    path = _write(tmp_path, game_record(game))
    done = subprocess.run([sys.executable, "-m", "liverpool.cli", "replay", str(path),
                           "--watch"], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    lines = done.stdout.splitlines()
    assert lines[0].startswith("— hand 1") and lines[-1].startswith("Hand 1 over")
    assert f"{len(game.actions):>4} " in done.stdout  # every move, numbered from 1


def test_a_bad_records_action_is_numbered_from_1_in_every_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The watch numbers moves from 1; the replay's words, the watch's stop, a resumed game's
    refusal and the record module's error say the same number for the same action (they said
    its index from 0). The JSON keeps ``index`` (the action's place in ``actions``) beside it."""
    from liverpool.record import ReplayError, steps
    from liverpool.tui.session import Session, SessionError
    from liverpool.tui.watch import Replayer

    # the fourth action (index 3) discards AD, a card seat 1 does not hold
    rec = _record([*OPENING, {"player": 1, "type": "discard", "card": "AD"}, GO_DOWN])
    path = _write(tmp_path, rec)
    assert cli.main(["replay", str(path)]) == 1
    words = capsys.readouterr().out
    assert "action 4 is illegal" in words and "action 3" not in words
    assert cli.main(["replay", str(path), "--json"]) == 1
    err = json.loads(capsys.readouterr().out)["error"]
    assert (err["index"], err["number"]) == (3, 4)
    assert Replayer(rec).error is not None and Replayer(rec).error.startswith("action 4 is ")
    with pytest.raises(ReplayError, match=r"^action 4 of the record does not replay"):
        list(steps(rec))
    with pytest.raises(SessionError, match="action 4 is illegal"):
        Session.resume(str(path))
