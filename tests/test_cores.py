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
