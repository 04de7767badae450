"""Events: what a game tells those who follow it (bots, the server's clients, the simulator's
listeners) besides each seat's view, in the one form of docs/bot-protocol.md; and the bot
generator, each bot's own seeded randomness.

Domain words: *event* (a dict with ``"type"``: ``action`` for every action applied, and
``game_start``, ``hand_start``, ``hand_end``, ``game_end``; ``event`` for one of the engine's
events as a bot's seat may see it), *public facts* (events carry nothing
a seat's view would hide), *bot seed* and *bot generator* (``bot_rng``: seeded from the game's
seed and the seat, hashed so that it does not reveal the deal; the one recipe every driver
uses).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .actions import Action
from .engine import Event, Game, HandEnded, HandStarted
from .engine.events import GameEnded
from .rules import PRESETS, RuleSet

# ---- the bot generator -------------------------------------------------------------------------

def bot_seed(game_seed: int, seat: int) -> int:
    """A seed for a bot's own randomness. Hashed (SHA-512 inside ``random.Random`` of a
    string) so that it does not give away the game's seed and with it the deal."""
    return random.Random(f"liverpool-bot:{game_seed}:{seat}").getrandbits(32)


def bot_rng(game_seed: int, seat: int) -> random.Random:
    """The bot generator of ``seat`` in the game seeded ``game_seed``: the one recipe every
    front end uses, so a seeded game plays the same wherever it is driven."""
    return random.Random(bot_seed(game_seed, seat))


# ---- events: public facts only, built from a live game -----------------------------------------

def rules_json(rules: RuleSet) -> dict[str, Any]:
    """The rule set as a bot gets it: the preset, the overrides and every knob's value."""
    base = PRESETS[rules.name] if rules.name in PRESETS else RuleSet()
    return {"preset": rules.name, "overrides": rules.overrides_from(base),
            "knobs": rules.to_json()}


def game_start_event(game: Game, seat: int, index: int = 0,
                     seed: int | None = None) -> dict[str, Any]:
    """``game_start`` for the bot at ``seat``; ``index`` is the game's number in a series."""
    return {"type": "game_start", "game": index, "seat": seat, "players": list(game.players),
            "rules": rules_json(game.rules),
            "seed": bot_seed(game.seed, seat) if seed is None else seed}


def hand_start_event(e: HandStarted) -> dict[str, Any]:
    """The protocol's ``hand_start`` for the engine's ``hand_started``."""
    return {"type": "hand_start", "hand_number": e.hand_number, "dealer": e.dealer,
            "contract": [c.to_json() for c in e.contract]}


def hand_end_event(e: HandEnded) -> dict[str, Any]:
    """The protocol's ``hand_end`` for the engine's ``hand_ended`` (the last row of the score
    sheet)."""
    return {"type": "hand_end", "hand_number": e.end.hand_number, "scores": list(e.points),
            "totals": list(e.totals), "went_down": list(e.end.down)}


def game_end_event(e: GameEnded) -> dict[str, Any]:
    return {"type": "game_end", "totals": list(e.totals), "winners": list(e.winners),
            "hands": e.hands}


def protocol_events(events: Sequence[Event], seat: int | None = None
                    ) -> list[dict[str, Any]]:
    """The bot protocol's messages for the engine's ``events``: a hand's start and end and the
    game's end (bots hear every action through their views; these tell them a hand or the game
    changed) and, for the bot at ``seat``, each engine event as that seat may see it (``event``,
    holding the engine's value: the bot's host writes its JSON form), in the engine's order."""
    out: list[dict[str, Any]] = []
    for e in events:
        if seat is not None:
            out.append({"type": "event", "event": e.for_seat(seat)})
        if isinstance(e, HandEnded):
            out.append(hand_end_event(e))
        elif isinstance(e, HandStarted):
            out.append(hand_start_event(e))
        elif isinstance(e, GameEnded):
            out.append(game_end_event(e))
    return out


def action_event(action: Action, text: str | None = None) -> dict[str, Any]:
    """One applied action; ``text`` is its narrated line when the match narrates."""
    event: dict[str, Any] = {"type": "action", "seat": action.player, "action": action.to_json()}
    if text is not None:
        event["text"] = text
    return event
