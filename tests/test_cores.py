"""The compiled core and the pure-Python core: which one runs, and that both give the same
results byte for byte (the record corpus's traces and a seeded tournament with the expert).

The comparisons run each core in its own process (``LIVERPOOL_CORE=python`` forces the pure
one); they are skipped where the compiled core is not built, except in CI, where the suite must
run on the compiled core (``scripts/test.sh`` installs a C compiler and Python's headers)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from liverpool import compiled

TESTS = Path(__file__).parent
ROOT = TESTS.parent


def run_with_core(core: str, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LIVERPOOL_CORE": core,
           "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=ROOT, stdin=subprocess.DEVNULL)


def needs_compiled_core() -> None:
    if compiled.core != "compiled":
        pytest.skip(f"the compiled core does not run here: {compiled.reason}")


def test_ci_runs_the_suite_on_the_compiled_core() -> None:
    if os.environ.get("CI", "").lower() not in ("true", "1"):
        pytest.skip("not CI: a machine without a C compiler runs the pure-Python core")
    assert compiled.core == "compiled", f"CI must test the compiled core: {compiled.reason}"


def test_the_core_modules_come_from_the_chosen_core() -> None:
    probe = ("import json, liverpool.compiled as c, liverpool.engine.game as g, "
             "liverpool.bots.policy as p; print(json.dumps([c.core, g.__file__, p.__file__]))")
    core, game_file, policy_file = json.loads(run_with_core("python", "-c", probe).stdout)
    assert core == "python"
    assert game_file.endswith("game.py") and policy_file.endswith("policy.py")
    if compiled.core == "compiled":
        core, game_file, policy_file = json.loads(run_with_core("", "-c", probe).stdout)
        assert core == "compiled"
        assert not game_file.endswith(".py") and not policy_file.endswith(".py")


def test_version_says_which_core_runs() -> None:
    out = run_with_core("python", "-m", "liverpool.cli", "--version")
    assert out.returncode == 0, out.stderr
    assert "core: pure Python" in out.stdout
    out = run_with_core("", "-m", "liverpool.cli", "--version")
    assert f"core: {compiled.describe()}".split(" (")[0] in out.stdout


def test_a_bad_core_setting_is_refused_clearly() -> None:
    out = run_with_core("fast", "-c", "import liverpool")
    assert out.returncode != 0
    assert "LIVERPOOL_CORE must be 'python' or 'compiled'" in out.stderr


def test_a_compiled_module_whose_source_changed_is_stale() -> None:
    assert compiled._stale(["liverpool.melds"], {"liverpool.melds": "0" * 64}) == \
        "liverpool.melds"
    source = Path(compiled.__file__).parent / "melds.py"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    got = compiled._stale(["liverpool.melds"], {"liverpool.melds": digest})
    # with the right hash only a missing compiled file makes it stale
    assert got == (None if compiled.core == "compiled" else got)


CORPUS_TRACE = """
import json
from record_corpus import load, trace
from liverpool.record import new_game_from_record, replay, summary
out = []
for entry in load():
    rec = entry["record"]
    out.append([entry["label"], trace(rec["actions"], new_game_from_record(rec)),
                summary(replay(rec))])
print(json.dumps(out, sort_keys=True))
"""


def test_both_cores_replay_the_record_corpus_identically() -> None:
    needs_compiled_core()
    pure = run_with_core("python", "-c", CORPUS_TRACE)
    fast = run_with_core("compiled", "-c", CORPUS_TRACE)
    assert pure.returncode == 0, pure.stderr[-2000:]
    assert fast.returncode == 0, fast.stderr[-2000:]
    assert len(json.loads(pure.stdout)) >= 40
    assert fast.stdout == pure.stdout


def test_both_cores_play_the_same_seeded_tournament(tmp_path: Path) -> None:
    """The expert searches (worlds, clones, playouts), so this covers the playout policy."""
    needs_compiled_core()
    outputs = {}
    for core in ("python", "compiled"):
        records = tmp_path / core
        run = run_with_core(core, "-m", "liverpool.cli", "simulate", "--games", "3",
                            "--players", "3", "--bots", "expert:3it,basic,random",
                            "--rules", "standard", "--seed", "11", "--workers", "1",
                            "--json", "--records", str(records))
        assert run.returncode == 0, run.stderr[-2000:]
        result = json.loads(run.stdout)
        assert not result["incidents"], result["incidents"]
        files = sorted(records.iterdir())
        assert len(files) == 3
        outputs[core] = (run.stdout, [(f.name, f.read_bytes()) for f in files])
    assert outputs["compiled"] == outputs["python"]


# ---- untrusted JSON: the same clear error on both cores -------------------------------------
# The compiled core checks annotations when a compiled function is called: a value of the wrong
# type that reaches one would be a TypeError there, where pure Python reached a check that says
# what is wrong. Seeded mutations of valid records, actions, melds, views and rule options, each
# field swapped for a value of another JSON type, must meet the same domain error on both cores.

MALFORMED = """
import json, random
from liverpool.actions import Action
from liverpool.engine import Game
from liverpool.engine.view import SeatView
from liverpool.melds import Meld
from liverpool.record import game_record, replay
from liverpool.randomplay import random_action
from liverpool.rules import RuleSet

rules = RuleSet.preset("arena")
game = Game(rules, 3, seed=5)
rng = random.Random(5)
while len(game.actions) < 120 and not game.over:
    game.apply(random_action(game, rng))
record = json.loads(json.dumps(game_record(game)))
actions = record["actions"]
view = game.view_for(0).to_json()
melds = [m.to_json() for m in game.melds]
ODD = [None, True, 0, -1, 2.5, "", "x", "AH", [], [1], ["AH", 3], {}, {"a": 1}, 10**40]

def mutate(value, r):
    if isinstance(value, dict) and value and r.random() < 0.8:
        key = r.choice(sorted(value))
        out = dict(value)
        out[key] = mutate(value[key], r) if r.random() < 0.5 else r.choice(ODD)
        if r.random() < 0.1:
            del out[key]
        return out
    if isinstance(value, list) and value and r.random() < 0.8:
        out = list(value)
        i = r.randrange(len(out))
        out[i] = mutate(out[i], r) if r.random() < 0.5 else r.choice(ODD)
        return out
    return r.choice(ODD)

def outcome(call, arg):
    try:
        got = call(arg)
    except Exception as e:
        return [type(e).__name__, str(e)[:200]]
    return ["ok", str(getattr(got, "error", None))[:200]]

r = random.Random(2024)
out = []
for _ in range(150):
    out.append(outcome(replay, mutate(record, r)))
    out.append(outcome(Action.from_json, mutate(r.choice(actions), r)))
    out.append(outcome(lambda m: Meld.from_json(m, rules), mutate(r.choice(melds), r)))
    out.append(outcome(lambda v: SeatView.from_json(v, rules), mutate(view, r)))
    name, options = "house", {"max_buys": 2, "hands": [1, 2], "naturals": [2, 3]}
    out.append(outcome(lambda o: RuleSet.preset(*o), [mutate(name, r) if r.random() < 0.3
                                                      else name, mutate(options, r)]))
print(json.dumps(out))
"""

DOMAIN_ERRORS = {"ok", "RecordError", "ActionFormatError", "ValueError", "RulesError",
                 "CardError"}


def test_untrusted_json_meets_the_same_clear_error_on_both_cores() -> None:
    cores = ("python", "compiled") if compiled.core == "compiled" else ("python",)
    seen = {}
    for core in cores:
        run = run_with_core(core, "-c", MALFORMED)
        assert run.returncode == 0, run.stderr[-2000:]
        seen[core] = json.loads(run.stdout)
        kinds = {kind for kind, _ in seen[core]}
        assert kinds <= DOMAIN_ERRORS, [x for x in seen[core] if x[0] not in DOMAIN_ERRORS][:5]
        assert len(kinds) >= 4  # the mutations reach several readers' errors
        assert all(message for kind, message in seen[core] if kind != "ok")
    if len(cores) == 2:
        # the same refusals (a message may word a wrong type differently)
        assert [k for k, _ in seen["compiled"]] == [k for k, _ in seen["python"]]


HUGE_RECORDS = """
import resource, json
resource.setrlimit(resource.RLIMIT_AS, (800 * 2**20, 800 * 2**20))  # a runaway fails fast
from liverpool.record import RecordError, new_game_from_record
out = []
for rec in ({"rules": {"preset": "standard"}, "players": 10**9},
            {"rules": {"preset": "standard"}, "players": 10**40},
            {"rules": {"preset": "house", "overrides": {"decks": 10**7}}, "players": 4}):
    try:
        new_game_from_record(rec)
        out.append("made")
    except RecordError as e:
        out.append(str(e))
print(json.dumps(out))
"""


def test_a_record_asking_for_huge_tables_is_refused_before_anything_is_built() -> None:
    """Found by the mutations above: a record's player count became names before it was
    checked, and a deck count had no bound (the replay built the pack first)."""
    for core in ("python", "compiled") if compiled.core == "compiled" else ("python",):
        run = run_with_core(core, "-c", HUGE_RECORDS, timeout=120)
        assert run.returncode == 0, run.stderr[-1500:]
        players_1, players_2, decks = json.loads(run.stdout)
        assert "3-8 players" in players_1 and "3-8 players" in players_2
        assert "decks" in decks and "1..8" in decks


PICKLES = """
import copy, json, pickle, random
from liverpool.actions import Action
from liverpool.engine import Game
from liverpool.randomplay import random_action
from liverpool.rules import RuleSet
from liverpool.solver import best_go_down

game = Game(RuleSet.preset("house"), 4, seed=9)
rng = random.Random(9)
while game.hand_index < 1 or len(game.melds) < 2:
    game.apply(random_action(game, rng))
view = game.view_for(0)
values = [Action("lay_off", 1, card=5, meld=0, end="low"), game.rules, game.melds[0],
          game.last_hand_end, view, best_go_down(game.hands[0], game.contract_for(0), game.rules)]
out = []
for value in [game, *values]:
    for copied in (pickle.loads(pickle.dumps(value)), copy.deepcopy(value), copy.copy(value)):
        same = copied.snapshot() == value.snapshot() if isinstance(value, Game) else \\
            copied == value
        out.append([type(value).__name__, same])
# every kind of event a game of two says, and a belief's frozen guesses (a review's decisions
# carry them to its workers)
from liverpool.bots.belief import HandBelief
duo = Game(RuleSet.preset("arena"), 2, seed=3)
belief = HandBelief(8)
belief.hear(duo.hand_started())
events = {}
while not duo.over and duo.hand_index < 2:
    if duo.to_act()[0] == 0:
        belief.update(duo.view_for(0), rng)
    for event in duo.apply(random_action(duo, rng)):
        events.setdefault(type(event).__name__, event)
        belief.hear(event.for_seat(0))
belief.update(duo.view_for(0), rng)
for value in [*events.values(), belief.snapshot(duo.view_for(0))]:
    for copied in (pickle.loads(pickle.dumps(value)), copy.deepcopy(value), copy.copy(value)):
        out.append([type(value).__name__, copied == value])
copied = copy.deepcopy(game)
copied.apply(random_action(copied, random.Random(1)))
out.append(["independent", copied.snapshot() != game.snapshot()])
print(json.dumps(out))
"""


def test_games_actions_and_views_pickle_and_copy_on_both_cores() -> None:
    """Pickling an ``Action`` or a ``Game`` failed on the compiled core: its classes cannot be
    made without ``__init__``, the default way of unpickling."""
    for core in ("python", "compiled") if compiled.core == "compiled" else ("python",):
        run = run_with_core(core, "-c", PICKLES)
        assert run.returncode == 0, run.stderr[-1500:]
        results = json.loads(run.stdout)
        kinds = {kind for kind, _ in results}
        assert {"Guesses", "Drew", "Discarded", "HandStarted", "HandEnded"} <= kinds, kinds
        assert len(results) >= 40 and all(same for _, same in results), results


def test_every_frozen_value_of_the_compiled_core_rebuilds_through_its_constructor() -> None:
    """A frozen dataclass of the compiled core unpickles or copies only through a
    ``__reduce__`` of its own (``frozen.reduce_frozen``); a belief's guesses without one broke
    the review's workers at tables of two, and every event failed to pickle."""
    import dataclasses
    import importlib
    import inspect
    import re
    build = (Path(__file__).resolve().parents[1] / "hatch_build.py").read_text()
    listed = re.search(r"CORE_MODULES = \((.*?)\n\)", build, re.S)
    assert listed is not None
    names = re.findall(r'"([a-z_/]+)"', listed.group(1))
    assert "bots/belief" in names and "engine/events" in names
    missing = []
    for name in (f"liverpool.{n.replace('/', '.')}" for n in names):
        module = importlib.import_module(name)
        for cname, cls in vars(module).items():
            if inspect.isclass(cls) and cls.__module__ == name and dataclasses.is_dataclass(cls) \
                    and cls.__dataclass_params__.frozen and cls.__reduce__ is object.__reduce__:
                missing.append(f"{name}.{cname}")
    assert not missing, missing
