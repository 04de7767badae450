"""Replays of finished games for the web page: the record through the core's one replayer
(``record.steps``), each step as the replay page shows it.

Domain words: *step* (the table as a spectator saw it after one change, plus every hand face up,
since the game is over), *change* (the deal of a hand, or one action with its events and their
lines), *hand end* (the step of the action that ended a hand shows the board that was scored,
before the next deal), *points* (the hand's score row, on a hand end step), *chat* (the table's
chat lines, each placed at the step of the last action before it was said: its ``step``).
"""

from __future__ import annotations

from typing import Any

from ..cards import card_str
from ..engine import Game, HandEnded, HandStarted
from ..narrate import Narrator
from ..record import RecordError, ReplayError, new_game_from_record, steps


def _step(game: Game, kind: str, seat: int | None, events: list[dict[str, Any]]
          ) -> dict[str, Any]:
    v = game.view_for(None)
    return {
        "kind": kind, "hand": v.hand_number, "seat": seat, "phase": v.phase,
        "event": ". ".join(e["text"] for e in events if e["text"]), "events": events,
        "dealer": v.dealer, "turn": v.turn,
        "melds": [m.to_json() for m in v.melds],
        "discard": card_str(v.discard[-1]) if v.discard else None, "pile": len(v.discard),
        "stock": v.stock_size, "sizes": list(v.hand_sizes),
        "hands": [[card_str(c) for c in game.view_for(s).hand] for s in range(game.n)],
        "down": list(v.down), "buys": list(v.buys), "totals": list(v.totals),
    }


def _hand_end_step(e: HandEnded, seat: int | None, events: list[dict[str, Any]]
                   ) -> dict[str, Any]:
    """The board the hand was scored on (its ``hand_ended`` event: the next hand is dealt)."""
    end = e.to_json()
    return {
        "kind": "hand_end", "hand": end["hand_number"], "seat": seat, "phase": "hand_end",
        "event": ". ".join(x["text"] for x in events if x["text"]), "events": events,
        "dealer": end["dealer"], "turn": seat, "melds": end["melds"],
        "discard": end["discard"][-1] if end["discard"] else None, "pile": len(end["discard"]),
        "stock": end["stock_size"], "sizes": [len(h) for h in end["hands"]], "hands": end["hands"],
        "down": end["down"], "buys": end["buys"], "totals": end["totals"],
        "points": end["points"],
    }


def replay_steps(record: dict[str, Any], search_budget: int | None = None,
                 chat: list[dict[str, Any]] | None = None, actions_from: int = 0
                 ) -> dict[str, Any]:
    """Every step of a finished game's record: the deal of each hand, then each action.
    ``ValueError`` if the record does not replay (it was written by the same engine, so it
    should). ``search_budget``: the one the table played with (engine.state). ``chat``: the
    table's chat lines (tablechat.py), each with the table's version when it was said;
    ``actions_from``: the table's version of the game's first action."""
    try:
        game = new_game_from_record(record, search_budget=search_budget)
    except RecordError as e:
        raise ValueError(str(e)) from None
    narrator = Narrator(game.players)
    out: list[dict[str, Any]] = []
    at_action: list[int] = []  # each action's step
    try:
        for step in steps(record, game):
            if step.action is None:
                out.append(_step(game, "deal", None, narrator.json(step.events, face_up=True)))
                continue
            at_action.append(len(out))
            seat = step.action.player
            ended = [e for e in step.events if isinstance(e, HandEnded)]
            if not ended:
                out.append(_step(game, "action", seat, narrator.json(step.events, face_up=True)))
                continue
            dealt = [e for e in step.events if isinstance(e, HandStarted)]
            scored = [e for e in step.events if not isinstance(e, HandStarted)]
            out.append(_hand_end_step(ended[0], seat, narrator.json(scored, face_up=True)))
            if dealt:
                out.append(_step(game, "deal", None, narrator.json(dealt, face_up=True)))
    except ReplayError as e:
        raise ValueError(str(e)) from None
    return {
        "players": list(game.players), "rules": record.get("rules"),
        "deuces_wild": game.rules.deuces_wild,
        "scores": [list(r) for r in game.scores], "totals": list(game.totals),
        "winners": list(game.winners), "actions": len(record.get("actions", [])),
        "steps": out, "chat": [{**line, "step": chat_step(line, at_action, actions_from)}
                               for line in chat or ()],
    }


def chat_step(line: dict[str, Any], at_action: list[int], actions_from: int) -> int:
    """The step a chat line shows at: that of the last action before it was said (the first
    deal before any; the last step for what was said once the game was over)."""
    k = int(line.get("version", -1)) - actions_from
    if k < 0 or not at_action:
        return 0
    return at_action[min(k, len(at_action) - 1)]
