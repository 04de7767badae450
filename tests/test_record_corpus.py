"""Records written before a change replay to the same outputs after it (tests/record_corpus.py):
the same seats to act, legal actions and views after every action, and the same summary."""

from __future__ import annotations

from typing import Any

import pytest
from record_corpus import load, trace, trace_games

from liverpool.actions import ACTION_TYPES, Action
from liverpool.record import new_game_from_record, replay, steps, summary

CORPUS = load()


@pytest.mark.parametrize("entry", CORPUS, ids=[e["label"] for e in CORPUS])
def test_record_replays_to_the_same_outputs(entry: dict[str, Any]) -> None:
    rec = entry["record"]
    got = trace(rec["actions"], new_game_from_record(rec))
    first_bad = next((i for i, (a, b) in enumerate(zip(got, entry["trace"], strict=True))
                      if a != b), None)
    assert first_bad is None, (
        f"diverged within actions {first_bad * 50 + 1}..{first_bad * 50 + 50}")
    assert _plain(summary(replay(rec))) == _plain(entry["summary"])


@pytest.mark.parametrize("entry", CORPUS, ids=[e["label"] for e in CORPUS])
def test_record_replays_identically_through_the_one_replayer(entry: dict[str, Any]) -> None:
    """``record.steps`` (the replayer of ``liverpool replay``, the terminal's watch, the web's
    replay page and a web table's rebuild) gives the same states as the corpus."""
    rec = entry["record"]
    game = new_game_from_record(rec)
    it = steps(rec, game)
    first = next(it)
    assert first.index == -1 and first.action is None
    got = trace_games(rec["actions"], game, (s.game for s in it))
    assert got == entry["trace"]


def _plain(out: dict[str, Any]) -> dict[str, Any]:
    """A summary with its melds reduced to owner, kind and cards: what a meld's JSON adds
    besides (what its wilds stand for) is not a change of behaviour."""
    return {**out, "melds": [[m["owner"], m["kind"], m["cards"]] for m in out["melds"]]}


def test_corpus_covers_every_kind_of_play() -> None:
    kinds = {a["type"] for e in CORPUS for a in e["record"]["actions"]}
    assert kinds == set(ACTION_TYPES)
    presets = {e["record"]["rules"]["preset"] for e in CORPUS}
    assert presets == {"hoyle", "classic", "arena", "standard", "house"}
    floated = False
    for e in CORPUS:
        game = new_game_from_record(e["record"])
        for obj in e["record"]["actions"]:
            game.apply(Action.from_json(obj))
            floated = floated or any(game.floating)
        if floated:
            break
    assert floated, "no record has a player floating (hand emptied without a discard)"
