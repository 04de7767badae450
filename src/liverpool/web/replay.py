"""Replays of finished games for the web page: the record replayed by the engine, step by step.

Domain words: *step* (the table as a spectator saw it after one event, plus every hand face up,
since the game is over), *event* (the deal of a hand, or one action with its log line), *hand
end* (the step of the action that ended a hand shows the board that was scored, before the next
deal), *points* (the hand's score row, on a hand end step).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..actions import Action
from ..cards import card_str, sorted_cards
from ..engine import Game
from ..narrate import describe
from ..record import new_game_from_record


def apply_narrated(game: Game, a: Action, prepared: Callable[[], None] | None = None
                   ) -> tuple[str, bool]:
    """Apply a legal action (``prepared``: what ``Game.prepare`` returned for it, when it is
    checked already); return its log line (a pass is named, a hand's end adds the hand's points,
    the game's end its winners) and whether it ended a hand."""
    text = describe(game, a) or f"{game.players[a.player]} passes"
    hands_before = len(game.scores)
    (prepared or game.prepare(a))()
    ended = len(game.scores) > hands_before
    if ended:
        row = game.scores[-1]
        text += f". Hand {hands_before + 1} over: " + ", ".join(
            f"{game.players[s]} {row[s]}" for s in range(game.n))
        if game.over:
            text += ". Game over: " + " and ".join(game.players[s] for s in game.winners) + \
                (" win" if len(game.winners) > 1 else " wins")
    return text, ended


def _step(game: Game, hand: int, event: str, seat: int | None, kind: str) -> dict[str, Any]:
    views = [game.view_for(s) for s in range(game.n)]
    v = views[0]
    return {
        "kind": kind, "hand": hand, "event": event, "seat": seat, "phase": v.phase,
        "dealer": v.dealer, "turn": v.turn,
        "melds": [m.to_json() for m in v.melds],
        "discard": card_str(v.discard[-1]) if v.discard else None, "pile": len(v.discard),
        "stock": v.stock_size, "sizes": list(v.hand_sizes),
        "hands": [[card_str(c) for c in w.hand] for w in views],
        "down": list(v.down), "buys": list(v.buys), "totals": list(v.totals),
    }


def _deal_text(game: Game) -> str:
    v = game.view_for(0)
    contracts = {c.describe() for c in v.contract}
    what = contracts.pop() if len(contracts) == 1 else "each player's own contract"
    return f"Hand {v.hand_number} is dealt by {game.players[v.dealer]}: {what}"


def _hand_end_step(game: Game, event: str, seat: int) -> dict[str, Any]:
    """The board the hand was scored on (the engine keeps it: the next hand is already dealt)."""
    end = game.last_hand_end
    assert end is not None
    return {
        "kind": "hand_end", "hand": end.hand_number, "event": event, "seat": seat,
        "phase": "hand_end", "dealer": end.dealer, "turn": seat,
        "melds": [m.to_json() for m in end.melds],
        "discard": card_str(end.discard[-1]) if end.discard else None, "pile": len(end.discard),
        "stock": end.stock_size, "sizes": [len(h) for h in end.hands],
        "hands": [[card_str(c) for c in sorted_cards(h, game.rules.deuces_wild)]
                  for h in end.hands],
        "down": list(end.down), "buys": list(end.buys), "totals": list(game.totals),
    }


def replay_steps(record: dict[str, Any], search_budget: int | None = None) -> dict[str, Any]:
    """Every step of a finished game's record: the deal of each hand, then each action.
    ``ValueError`` if the record does not replay (it was written by the same engine, so it
    should). ``search_budget``: the one the table played with (engine.state)."""
    game = new_game_from_record(record)
    game.search_budget = search_budget
    steps = [_step(game, game.hand_number(), _deal_text(game), None, "deal")]
    for i, obj in enumerate(record.get("actions", [])):
        a = Action.from_json(obj)
        reason = game.why_illegal(a)
        if reason is not None:
            raise ValueError(f"action {i} of the record does not replay: {reason}")
        hand = game.hand_number()
        text, ended = apply_narrated(game, a)
        if not ended:
            steps.append(_step(game, hand, text, a.player, "action"))
            continue
        end = _hand_end_step(game, text, a.player)
        end["points"] = list(game.scores[-1])
        steps.append(end)
        if not game.over:
            steps.append(_step(game, game.hand_number(), _deal_text(game), None, "deal"))
    return {
        "players": list(game.players), "rules": record.get("rules"),
        "deuces_wild": game.rules.deuces_wild,
        "scores": [list(r) for r in game.scores], "totals": list(game.totals),
        "winners": list(game.winners), "actions": len(record.get("actions", [])),
        "steps": steps,
    }
