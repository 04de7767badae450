"""Game records (docs/rules.md, Records): write a game as JSON, read it back, replay it.

Domain words: *record* (rules + players + seed or deals + first dealer + actions), *replayer*
(``steps``: the one way a record is replayed, by ``liverpool replay``, the terminal's watch,
the web's replay page and a web table rebuilt from its store: each *step* is one action of the
record with the engine's events for it and the game after it), *replay* (applying a record's
actions to a new game, stopping at the first illegal one), *summary* (the ``liverpool replay
--json`` object).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Action, ActionFormatError
from .cards import CardError, card_str, parse_card
from .engine import Event, Game, IllegalActionError
from .rules import PRESETS, RulesError, RuleSet


class RecordError(ValueError):
    """A record that cannot even start a game (not JSON, no rules or players, bad deals)."""


def game_record(game: Game) -> dict[str, Any]:
    base = PRESETS[game.rules.name] if game.rules.name in PRESETS else RuleSet()
    rec: dict[str, Any] = {
        "rules": {"preset": game.rules.name, "overrides": game.rules.overrides_from(base)},
        "players": list(game.players),
        "seed": game.seed,
        "first_dealer": game.first_dealer,
    }
    if game.deals:
        rec["deals"] = [[card_str(c) for c in deck] for deck in game.deals]
    rec["actions"] = [a.to_json() for a in game.actions]
    return rec


def new_game_from_record(rec: Any, search_budget: int | None = None) -> Game:
    """The game a record starts from (no actions applied); ``RecordError`` if it cannot.
    ``search_budget``: the game's bound on go-down searches (``Game``; None: none)."""
    if not isinstance(rec, dict):
        raise RecordError("a record is a JSON object")
    if "rules" not in rec or "players" not in rec:
        raise RecordError("a record needs \"rules\" and \"players\"")
    rules_obj = rec["rules"]
    if not isinstance(rules_obj, dict):
        raise RecordError("\"rules\" must be an object with \"preset\" and \"overrides\"")
    players = rec["players"]  # a list of names, or a number of players (named P0, P1, ...)
    if isinstance(players, bool) or not isinstance(players, int | list) or (
            isinstance(players, list) and not all(isinstance(p, str) for p in players)):
        raise RecordError("\"players\" must be a list of names")
    try:
        rules = RuleSet.preset(rules_obj.get("preset", "standard"),
                               rules_obj.get("overrides") or {})
    except RulesError as e:
        raise RecordError(f"rules: {e}") from None
    seed = rec.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RecordError("\"seed\" must be a whole number")
    first_dealer = rec.get("first_dealer", 0)
    if isinstance(first_dealer, bool) or not isinstance(first_dealer, int):
        raise RecordError("\"first_dealer\" must be a seat number")
    deals = None
    if rec.get("deals") is not None:
        try:
            deals = [[parse_card(c) for c in deck] for deck in rec["deals"]]
        except (CardError, TypeError) as e:
            raise RecordError(f"deals: {e}") from None
    try:
        return Game(rules, players, seed=seed, deals=deals, first_dealer=first_dealer,
                    search_budget=search_budget)
    except (RulesError, ValueError) as e:
        raise RecordError(str(e)) from None


def action_number(index: int) -> int:
    """The number a person reads for the record's action at ``index`` (0 in the JSON list):
    actions are counted from 1 wherever a person sees them, as the watch counts its steps."""
    return index + 1


class ReplayError(ValueError):
    """A record's action that does not replay: ``index`` in the record's list (from 0), its
    ``number`` as a person reads it (from 1), and why."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"action {action_number(index)} of the record does not replay: "
                         f"{reason}")
        self.index = index
        self.number = action_number(index)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a replay: the record's action ``index`` (-1 and no action: the first deal),
    the engine's events for it, and the game after it (the replayer's own, live object: it moves
    on with the next step, so copy it, ``Game.clone``, to keep it)."""

    index: int
    action: Action | None
    events: tuple[Event, ...]
    game: Game


def steps(rec: Any, game: Game | None = None, actions: Sequence[Any] | None = None
          ) -> Iterator[Step]:
    """Replay a record step by step: first the deal (index -1), then each action. ``game``: the
    game to replay on (default: the record's, ``new_game_from_record``); ``actions``: the
    actions (JSON) to apply (default: the record's). ``RecordError`` if the record cannot start
    a game, ``ReplayError`` at the first action that is not one or is illegal (the steps before
    it were given)."""
    if game is None:
        game = new_game_from_record(rec)
    if actions is None:
        actions = rec.get("actions", []) if isinstance(rec, dict) else []
        if not isinstance(actions, list):
            raise ReplayError(0, "\"actions\" must be a list")
    yield Step(-1, None, (game.hand_started(),) if not game.over else (), game)
    for i, obj in enumerate(actions):
        try:
            a = Action.from_json(obj)
            events = game.apply(a)
        except (ActionFormatError, IllegalActionError) as e:
            raise ReplayError(i, str(e)) from None
        yield Step(i, a, events, game)


@dataclass
class Replay:
    game: Game
    # at the first bad action: {"index": i (from 0, in "actions"), "number": i + 1 (as a
    # person reads it), "reason": "..."}
    error: dict[str, Any] | None


def replay(rec: dict[str, Any], search_budget: int | None = None) -> Replay:
    """The whole record replayed (``steps``), or as far as it goes, with the first error
    (``search_budget``: the game's, as ``new_game_from_record``)."""
    game = new_game_from_record(rec, search_budget)
    try:
        for _ in steps(rec, game):
            pass
    except ReplayError as e:
        return Replay(game, {"index": e.index, "number": e.number, "reason": e.reason})
    return Replay(game, None)


def summary(result: Replay) -> dict[str, Any]:
    """The ``liverpool replay --json`` object: the game where the replay stopped, every hand
    face up (a record hides nothing), from the seats' views."""
    g = result.game
    table = g.view_for(None)
    to_act = table.to_act
    return {
        "ok": result.error is None,
        "error": result.error,
        "hand_number": table.hand_number,
        "scores": [list(r) for r in table.scores],
        "totals": list(table.totals),
        "hands": [[card_str(c) for c in g.view_for(s).hand] for s in range(len(table.players))],
        "down": list(table.down),
        "melds": [m.to_json() for m in table.melds],
        "discard": [card_str(c) for c in table.discard],
        "stock_size": table.stock_size,
        "to_act": None if not to_act else (list(to_act) if len(to_act) > 1 or
                                           (table.phase == "buy" and
                                           table.ruleset.buy_priority == "first_call")
                                           else to_act[0]),
        "phase": table.phase,
        "contract": table.contract[0].describe(),
        "winners": list(table.winners),
        "actions_applied": len(g.actions),
    }
