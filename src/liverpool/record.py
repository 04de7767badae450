"""Game records (docs/rules.md, Records): write a game as JSON, read it back, replay it.

Domain words: *record* (rules + players + seed or deals + first dealer + actions), *replay*
(applying a record's actions to a new game, stopping at the first illegal one), *summary* (the
``liverpool replay --json`` object).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import Action, ActionFormatError
from .cards import CardError, card_str, parse_card, sorted_cards
from .engine import Game, IllegalActionError
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


def new_game_from_record(rec: Any) -> Game:
    """The game a record starts from (no actions applied); ``RecordError`` if it cannot."""
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
        return Game(rules, players, seed=seed, deals=deals, first_dealer=first_dealer)
    except (RulesError, ValueError) as e:
        raise RecordError(str(e)) from None


@dataclass
class Replay:
    game: Game
    error: dict[str, Any] | None  # {"index": i, "reason": "..."} at the first bad action


def replay(rec: dict[str, Any]) -> Replay:
    game = new_game_from_record(rec)
    actions = rec.get("actions", [])
    if not isinstance(actions, list):
        return Replay(game, {"index": 0, "reason": "\"actions\" must be a list"})
    for i, obj in enumerate(actions):
        try:
            game.apply(Action.from_json(obj))
        except (ActionFormatError, IllegalActionError) as e:
            return Replay(game, {"index": i, "reason": str(e)})
    return Replay(game, None)


def summary(result: Replay) -> dict[str, Any]:
    g = result.game
    deuces = g.rules.deuces_wild
    to_act = g.to_act()
    return {
        "ok": result.error is None,
        "error": result.error,
        "hand_number": g.hand_number(),
        "scores": [list(r) for r in g.scores],
        "totals": list(g.totals),
        "hands": [[card_str(c) for c in sorted_cards(h, deuces)] for h in g.hands],
        "down": list(g.down),
        "melds": [m.to_json() for m in g.melds],
        "discard": [card_str(c) for c in g.discard],
        "stock_size": len(g.stock),
        "to_act": None if not to_act else (list(to_act) if len(to_act) > 1 or
                                           (g.phase.value == "buy" and
                                           g.rules.buy_priority == "first_call")
                                           else to_act[0]),
        "phase": g.phase.value,
        "contract": g.contract_for(0).describe(),
        "winners": list(g.winners),
        "actions_applied": len(g.actions),
    }
