"""``liverpool review``: a record's decisions judged for one seat or all, as text or JSON; a
bad record or seat refused with its reason and nothing printed on stdout.

Domain words: record (a short arena game between bots, written by ``liverpool demo``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from liverpool import cli
from liverpool.review import LABELS


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "game.json"
    assert cli.main(["demo", "--rules", "arena", "--players", "2", "--override", "hands=[1]",
                     "--seed", "5", "--quiet", "--record", str(path)]) == 0
    return path


def test_the_json_review_has_the_documented_shape(record: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert cli.main(["review", str(record), "--all", "--json", "--worlds", "4",
                     "--workers", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    rec = json.loads(record.read_text())
    assert [s["seat"] for s in out["seats"]] == [0, 1]
    for s in out["seats"]:
        assert s["name"] == rec["players"][s["seat"]]
        assert 0 <= s["accuracy"] <= 100 and s["mean_loss"] >= 0
        assert set(s["labels"]) == set(LABELS)
        assert s["decisions"], "a whole hand has decisions to judge"
        for d in s["decisions"]:
            assert set(d) >= {"index", "action", "best", "loss", "label", "why"}
            # the action judged is the record's own at that index, played by that seat
            assert d["action"] == rec["actions"][d["index"]]
            assert d["action"]["player"] == s["seat"]
            assert d["label"] in (None, *LABELS) and (d["label"] is None) == (d["why"] == "")
        assert sum(s["labels"].values()) == sum(1 for d in s["decisions"] if d["label"])


def test_the_text_review_says_accuracy_and_kinds(record: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert cli.main(["review", str(record), "--seat", "1", "--worlds", "4",
                     "--workers", "1"]) == 0
    text = capsys.readouterr().out
    name = json.loads(record.read_text())["players"][1]
    assert f"{name} (seat 1): accuracy" in text and "points lost per decision" in text
    assert "kind" in text and "discard" in text


@pytest.mark.parametrize(("args", "says"), [
    (["--seat", "2"], "--seat must be 0 to 1"),
    (["--worlds", "1"], "--worlds must be at least 2"),
])
def test_a_bad_option_is_refused_in_words(record: Path, args: list[str], says: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["review", str(record), *args])
    assert says in str(e.value)
    assert capsys.readouterr().out == ""


def test_a_bad_record_is_refused_with_its_move_number(tmp_path: Path, record: Path) -> None:
    rec = json.loads(record.read_text())
    rec["actions"][3] = {"type": "discard", "player": 1, "card": "KS"}  # not this seat's turn
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    with pytest.raises(SystemExit) as e:
        cli.main(["review", str(bad)])
    assert "action 4 is illegal" in str(e.value)
    (tmp_path / "junk.json").write_text("{")
    with pytest.raises(SystemExit) as e:
        cli.main(["review", str(tmp_path / "junk.json")])
    assert "is not JSON" in str(e.value)
