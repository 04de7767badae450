"""The record corpus: seeded games written before a change to the engine, replayed after it.

A *corpus entry* is a game record plus the *trace* of its replay: after every action, the seats
to act, the phase, every acting seat's legal actions (in their text form) and every seat's view
(meld wilds reduced to their cards, so that a richer meld JSON is not a behaviour change),
hashed in blocks of ``BLOCK`` actions so that a mismatch says where the game first diverged; and
the replay summary (``liverpool replay --json``) at the end.

``python tests/record_corpus.py`` rewrites ``tests/data/record-corpus.json.gz``
from the engine as it is; do that only when a change of behaviour is meant, and say so.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from liverpool.actions import Action
from liverpool.engine import Game
from liverpool.randomplay import random_action
from liverpool.record import game_record, replay, summary
from liverpool.rules import PRESET_NAMES, RuleSet
from liverpool.soak import random_rules

CORPUS = Path(__file__).parent / "data" / "record-corpus.json.gz"
BLOCK = 50
MAX_ACTIONS = 4000


def _view_projection(game: Game, seat: int) -> dict[str, Any]:
    view = game.view_for(seat).to_json()
    view["melds"] = [[m["owner"], m["kind"], m["cards"]] for m in view["melds"]]
    return view


def step_line(game: Game) -> str:
    """One action's worth of observable state, as one line of text."""
    seats = list(game.to_act())
    legal = {s: sorted(str(a) for a in game.legal_actions(s)) for s in seats}
    views = [_view_projection(game, s) for s in range(game.n)]
    return json.dumps([game.phase.value, seats, legal, views], sort_keys=True)


def trace(actions: list[Any], game: Game) -> list[str]:
    """Apply ``actions`` (JSON) to ``game``; the hash of each block of ``BLOCK`` steps."""
    def applied() -> Iterator[Game]:
        for obj in actions:
            game.apply(Action.from_json(obj))
            yield game
    return trace_games(actions, game, applied())


def trace_games(actions: list[Any], game: Game, after: Iterable[Game]) -> list[str]:
    """The hash of each block of ``BLOCK`` steps of ``game`` and of the games ``after`` each of
    ``actions`` (a replayer's steps)."""
    digests: list[str] = []
    h = hashlib.sha256(step_line(game).encode())
    for i, state in enumerate(after, 1):
        h.update(step_line(state).encode())
        if i % BLOCK == 0 or i == len(actions):
            digests.append(h.hexdigest()[:16])
            h = hashlib.sha256(digests[-1].encode())
    return digests


def _entry(rules: RuleSet, players: int, seed: int, label: str) -> dict[str, Any]:
    game = Game(rules, players, seed=seed)
    rng = random.Random(seed * 31 + 7)
    while not game.over and len(game.actions) < MAX_ACTIONS:
        game.apply(random_action(game, rng))
    rec = game_record(game)
    start = Game(rules, players, seed=seed)
    return {"label": label, "record": rec, "trace": trace(rec["actions"], start),
            "summary": summary(replay(rec))}


def build() -> list[dict[str, Any]]:
    entries = []
    for preset in PRESET_NAMES:
        base = RuleSet.preset(preset)
        for players in sorted({base.min_players, 4, base.max_players if base.max_players < 7
                               else 6}):
            entries.append(_entry(base, players, 1000 + players, f"{preset} {players}p"))
    rng = random.Random(20261124)
    for i in range(30):
        rr = random_rules(rng)
        entries.append(_entry(rr.rules(), rr.players, 5000 + i, rr.describe()))
    return entries


def load() -> list[dict[str, Any]]:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as f:
        data: list[dict[str, Any]] = json.load(f)
    return data


if __name__ == "__main__":
    data = build()
    CORPUS.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(CORPUS, "wb", mtime=0) as raw:
        raw.write(json.dumps(data, sort_keys=True).encode())
    kinds: dict[str, int] = {}
    for e in data:
        for a in e["record"]["actions"]:
            kinds[a["type"]] = kinds.get(a["type"], 0) + 1
    print(f"{len(data)} records, {sum(len(e['record']['actions']) for e in data)} actions: {kinds}")
