"""scripts/expert_strength.py's game log: a run cut short or split keeps every finished game,
and a second run plays only the deals the log does not hold."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from liverpool.simulate import play_game, specs_for

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "expert_strength.py"


def load(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("expert_strength", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "expert_strength", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def test_log_resumes_and_counts_every_deal_once(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    script = load(monkeypatch)
    line = script.Line("quick", "arena", ("basic", "random"), 99, ">= 50%", 0.5)
    monkeypatch.setattr(script, "LINES", (line,))
    log = tmp_path / "games.jsonl"
    out = tmp_path / "out.json"
    played: list[int] = []
    real = script.run_local

    def counting(specs, *a, **k):  # type: ignore[no-untyped-def]
        played.extend(s.index for s in specs)
        return real(specs, *a, **k)
    monkeypatch.setattr(script, "run_local", counting)

    log.write_text('{"line": "quick", "seed": 99, "ind')  # a line a crash cut short
    # the second half first (another machine's share), then the whole line
    assert script.main(["--games", "4", "--first", "2", "--workers", "1",
                        "--log", str(log), "--json", str(out)]) == 0
    assert played == [2, 3]
    assert json.loads(out.read_text())["lines"][0]["games"] == 2
    assert script.main(["--games", "4", "--workers", "1", "--log", str(log),
                        "--json", str(out)]) == 0
    assert played == [2, 3, 0, 1]
    rows = [json.loads(x) for x in log.read_text().splitlines()[1:]]
    assert sorted(r["index"] for r in rows) == [0, 1, 2, 3]
    summary = json.loads(out.read_text())["lines"][0]
    assert summary["games"] == 4
    # the logged results are the games themselves: replaying deal 0 gives the same totals
    again = play_game(specs_for(4, "arena", {}, ("basic", "random"), 99)[0])
    assert next(r for r in rows if r["index"] == 0)["totals"] == again.totals
    wins = sum(1 / len(r["winners"]) for r in rows
               if r["winners"] and r["bots"].index("basic") in r["winners"])
    assert summary["expert_wins"] == pytest.approx(wins)
    # by contract, the hands the measured seat went down in, from the logged hands
    hands = sum(len(r["contracts"]) for r in rows)
    assert sum(n for _, n in summary["went_down"].values()) == hands > 0
    made = sum(r["made"][h][r["bots"].index("basic")] for r in rows
               for h in range(len(r["contracts"])))
    assert sum(m for m, _ in summary["went_down"].values()) == made
