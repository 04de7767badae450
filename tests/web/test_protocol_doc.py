"""docs/web-protocol.md cannot silently fall behind the engine's events: its Events table names
every event type of ``liverpool.engine.events.EVENT_KINDS``, and each row names every field the
JSON form of that type carries (seen in random games over every preset), the ``update`` message
names ``action`` and ``events``, and the fields a seat does not see of another seat's event are
said to be null for it.

Domain words: event type (``EVENT_KINDS``' keys), field (a key of ``Event.to_json()``), row (the
line of the Events table for one type).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from liverpool.engine import Game
from liverpool.engine.events import EVENT_KINDS
from liverpool.randomplay import random_action
from liverpool.rules import PRESET_NAMES, RuleSet

ROOT = Path(__file__).resolve().parent.parent.parent
DOC = ROOT / "docs" / "web-protocol.md"


def page() -> str:
    return DOC.read_text(encoding="utf-8")


def rows() -> dict[str, str]:
    """Each row of the Events table by its type: ``| `drew` | fields | hidden |``."""
    section = page().split("### Events", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        m = re.match(r"\| `([a-z_]+)` \|(.*)", line)
        if m and m[1] != "type":  # (the head of the table)
            out[m[1]] = m[2]
    return out


def fields_seen() -> dict[str, set[str]]:
    """The JSON fields of each event type met in random games over every preset (and a table
    whose hands open with a cut)."""
    seen: dict[str, set[str]] = {}
    tables = [RuleSet.preset(p) for p in PRESET_NAMES]
    tables.append(RuleSet.preset("standard").with_overrides({"cut_bonus": 10}))
    for rules in tables:
        for seed in range(3):
            game = Game(rules, max(rules.min_players, 3), seed=seed)
            rng = random.Random(seed)
            for _ in range(3000):
                if game.over:
                    break
                for e in game.apply(random_action(game, rng)):
                    for form in (e, e.for_seat(None)):
                        seen.setdefault(form.kind, set()).update(form.to_json())
    return seen


def test_every_event_type_is_documented() -> None:
    documented = rows()
    assert set(documented) == set(EVENT_KINDS), (
        f"missing: {set(EVENT_KINDS) - set(documented)}, "
        f"unknown: {set(documented) - set(EVENT_KINDS)}")
    for kind in EVENT_KINDS:
        assert f"`{kind}`" in page()


def test_every_field_of_an_event_is_documented() -> None:
    documented = rows()
    seen = fields_seen()
    # random play meets nearly every type; the ones it met are checked field by field
    assert len(seen) >= len(EVENT_KINDS) - 1, sorted(set(EVENT_KINDS) - set(seen))
    for kind, fields in seen.items():
        for f in fields - {"type"}:
            assert f"`{f}`" in documented[kind], f"{kind}: field {f} is not in its row"


def test_the_update_sync_and_replay_name_their_events() -> None:
    text = page()
    assert '"action", "events"' in text  # the update message
    assert '{"type": "notice", "text"}' in text  # a notice in the sync's log
    assert '"events": [event]' in text  # a replay step
    hidden = rows()
    assert "`card` is null" in hidden["drew"]
    assert "`penalty_cards` is null" in hidden["bought"]
    assert "`count` is null" in hidden["cut"]
    assert "`penalty_card` is null" in hidden["called"]
