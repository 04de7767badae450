"""docs/bot-protocol.md cannot silently fall behind the code: every JSON example of the page
parses, every action in it is an action ``Action.from_json`` accepts, every example answer is
one of the legal actions its ``decide`` shows, the examples cover every phase a bot is asked
in, and the page's tables name exactly the action types (with their fields and phases), the
view's fields, the rule set's knobs, the phases and the incident kinds of the code."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from liverpool.actions import _FIELDS, ACTION_TYPES, Action
from liverpool.engine import Game, Phase, SeatView
from liverpool.engine.events import event_from_json
from liverpool.engine.game import ACTIONS_BY_PHASE
from liverpool.rules import KNOBS, RuleSet

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "bot-protocol.md"
EXTERNAL = ROOT / "src" / "liverpool" / "bots" / "external.py"

HOST_MESSAGES = {"hello", "game_start", "hand_start", "event", "decide", "hand_end", "game_end",
                 "error", "quit"}
BOT_MESSAGES = {"hello", "action"}
TRIMMED = "..."


def page() -> str:
    return DOC.read_text(encoding="utf-8")


def json_blocks(text: str) -> list[list[Any]]:
    """The JSON values of each ```json block, in order (a block may hold several)."""
    blocks = []
    for body in re.findall(r"^```json\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        decoder = json.JSONDecoder()
        values, pos = [], 0
        while True:
            while pos < len(body) and body[pos].isspace():
                pos += 1
            if pos == len(body):
                break
            value, pos = decoder.raw_decode(body, pos)
            values.append(value)
        blocks.append(values)
    return blocks


def messages(kind: str) -> list[dict[str, Any]]:
    return [v for block in json_blocks(page()) for v in block
            if isinstance(v, dict) and v.get("type") == kind]


def exchanges() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each ``decide`` example with the ``action`` that follows it in its block."""
    out = []
    for block in json_blocks(page()):
        for i, value in enumerate(block):
            if value.get("type") == "decide":
                answer = block[i + 1] if i + 1 < len(block) else {}
                assert answer.get("type") == "action", \
                    f"decide {value.get('id')} is not followed by its answer"
                out.append((value, answer))
    return out


def section(text: str, heading: str) -> str:
    """The text under a heading, up to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    start = text.index(heading + "\n")
    rest = text[start + len(heading) + 1:]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.MULTILINE)
    return rest[:end.start()] if end else rest


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first Markdown table in ``text``, as cells."""
    rows, started = [], False
    for line in text.splitlines():
        if line.startswith("|"):
            started = True
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif started:
            break
    return rows[2:]  # header and separator


def names(cell: str) -> list[str]:
    return re.findall(r"`([a-z_]+)`", cell)


def real_view_keys() -> set[str]:
    game = Game(RuleSet.preset("standard"), 3, seed=1)
    return set(game.view_for(0).to_json())


def action_of(obj: dict[str, Any], seat: int) -> Action:
    return Action.from_json({"player": seat, **obj})


# ---- the examples -------------------------------------------------------------------------------

def test_every_json_block_parses_and_holds_known_messages_or_actions() -> None:
    blocks = json_blocks(page())
    assert len(blocks) > 20
    for block in blocks:
        assert block, "an empty json block"
        for value in block:
            assert isinstance(value, dict), value
            kind = value.get("type")
            assert kind in HOST_MESSAGES | BOT_MESSAGES | set(ACTION_TYPES) or "kind" in value, \
                f"an example of unknown type: {value}"


def test_every_event_in_the_page_reads_back_as_the_engines() -> None:
    told = [v["event"] for block in json_blocks(page()) for v in block
            if v.get("type") == "event"]
    assert len(told) >= 2
    for obj in told:
        assert event_from_json(obj, RuleSet.preset("standard")).to_json() == obj


def test_every_action_in_the_page_is_accepted_by_from_json() -> None:
    checked = 0
    for block in json_blocks(page()):
        seat = 0
        for value in block:
            if value.get("type") == "decide":
                seat = value["view"].get("seat", 0)
                for a in value["legal"]:
                    if a != TRIMMED:
                        Action.from_json(a)
                        checked += 1
            elif value.get("type") == "action":
                action_of(value["action"], seat)
                checked += 1
            elif value.get("type") in ACTION_TYPES:
                Action.from_json(value)
                checked += 1
    assert checked > 100


def test_every_example_answer_is_a_legal_action_shown_in_its_decide() -> None:
    pairs = exchanges()
    assert len(pairs) >= 15
    for decide, answer in pairs:
        seat = decide["view"]["seat"]
        assert answer.get("id", decide["id"]) == decide["id"]
        legal = [Action.from_json(a) for a in decide["legal"] if a != TRIMMED]
        assert all(a.player == seat for a in legal)
        assert action_of(answer["action"], seat) in legal, \
            f"decision {decide['id']}: {answer['action']} is not among the legal actions shown"


def test_the_examples_cover_every_phase_a_bot_is_asked_in() -> None:
    phases = {d["view"]["phase"] for d in messages("decide")}
    assert phases == {p.value for p in Phase} - {"over"}


def test_example_views_hold_real_fields_and_say_when_trimmed() -> None:
    keys = real_view_keys()
    for decide in messages("decide"):
        view = decide["view"]
        assert set(view) - {TRIMMED} <= keys, set(view) - keys
        if set(view) != keys:
            assert view.get(TRIMMED) == TRIMMED, f"decision {decide['id']}: a trimmed view " \
                                                 f"without \"...\": \"...\""
        assert decide["time_limit_ms"] > 0 and decide["legal"]


def test_the_whole_decide_example_is_what_the_engine_gives() -> None:
    """An untrimmed view rebuilds exactly, and its legal actions are the engine's."""
    whole = [d for d in messages("decide") if TRIMMED not in d["view"]]
    assert whole, "the page shows no whole decide"
    for decide in whole:
        view_json = decide["view"]
        rules = RuleSet.preset(view_json["rules"])
        view = SeatView.from_json(view_json, rules)
        assert view.to_json() == view_json
        pack = rules.decks_for(len(view.players)) * (52 + rules.jokers_per_deck)
        assert sum(view.hand_sizes) + view.stock_size + len(view.discard) + sum(
            len(m.cards) for m in view.melds) == pack, "the view's cards do not add up"
        assert len(view.hand) == view.hand_sizes[view.seat]
        world = Game.from_view(view, random.Random(0))
        legal = [a.to_json() for a in world.legal_actions(view.seat)]
        assert legal == decide["legal"]


def test_the_game_start_example_carries_the_rule_set_of_its_preset() -> None:
    (start,) = messages("game_start")
    rules = start["rules"]
    assert list(rules["knobs"]) == list(KNOBS)
    assert rules["knobs"] == RuleSet.preset(rules["preset"], rules["overrides"]).to_json()
    assert start["seat"] < len(start["players"])


# ---- the tables --------------------------------------------------------------------------------

def test_the_action_table_has_every_type_with_its_fields_and_phases() -> None:
    rows = table_rows(section(page(), "## Actions"))
    by_type = {names(r[0])[0]: r for r in rows}
    assert list(by_type) == sorted(by_type, key=list(by_type).index)  # one row each
    assert set(by_type) == set(ACTION_TYPES)
    for kind, (_, fields, phase, meaning) in by_type.items():
        allowed, required = _FIELDS[kind]
        listed = set(names(fields)) & (allowed | {"none"})
        assert listed == set(allowed) or (not allowed and "none" in fields), (kind, fields)
        for field in allowed:
            part = fields.split(f"`{field}`", 1)[1].split("`", 1)[0]
            assert ("required" in part) == (field in required), (kind, field, fields)
        phases = {p.value for p in Phase if kind in ACTIONS_BY_PHASE[p]}
        assert set(names(phase)) == phases, (kind, phase)
        assert meaning


def test_the_view_table_has_every_field() -> None:
    rows = table_rows(section(page(), "## The view"))
    fields = [names(r[0])[0] for r in rows]
    assert len(fields) == len(set(fields))
    assert set(fields) == real_view_keys()


def test_the_rule_set_table_has_every_knob() -> None:
    rows = table_rows(section(page(), "## The rule set"))
    knobs = [k for r in rows for k in names(r[0])]
    assert len(knobs) == len(set(knobs))
    assert set(knobs) == set(KNOBS)
    assert all(r[1] and r[2] for r in rows)


def test_every_phase_has_its_section_and_row() -> None:
    text = section(page(), "## Phases, with example exchanges")
    rows = table_rows(text)
    assert [names(r[0])[0] for r in rows] == [p.value for p in Phase]
    for p in Phase:
        assert f"\n### `{p.value}`\n" in text, p.value


def test_the_incident_table_names_every_kind_the_host_records() -> None:
    kinds = set(re.findall(r"BotProtocolError\(\s*\"(\w+)\"", EXTERNAL.read_text("utf-8")))
    assert kinds, "no incident kinds found in external.py"
    rows = table_rows(section(page(), "## Incidents"))
    assert {names(r[0])[0] for r in rows} == kinds


def test_the_page_names_the_resource_limits() -> None:
    from liverpool.bots.contain import CPU_ENV, MARK_ENV, MEMORY_ENV
    assert all(name in page() for name in (CPU_ENV, MEMORY_ENV, MARK_ENV))
