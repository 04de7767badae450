"""Narration: one readable line per action ("Bob bought 7H (+1 penalty card)"), for logs.

Domain words: *line* (what a player at the table would say happened), written from the game
as it was just before the action, so it can name the card taken or the meld played on.
"""

from __future__ import annotations

from .actions import Action
from .cards import card_str, cards_str
from .engine import Game, Phase


def describe(game: Game, a: Action) -> str | None:
    """The line for ``a`` about to be applied to ``game``; None for a silent pass."""
    who = game.players[a.player]
    top = card_str(game.discard[-1]) if game.discard else "-"
    t = a.type
    if t == "pass":
        return None
    if t == "draw":
        return f"{who} draws from the stock"
    if t == "no_draw":
        return f"{who} lays off instead of drawing"
    if t == "take_discard":
        return f"{who} takes {top}"
    if t == "buy":
        pen = game.rules.penalty_cards
        depth = a.depth or 1
        got = cards_str(game.discard[-depth:]) if depth > 1 else top
        return f"{who} buys {got} (+{pen} penalty card{'s' if pen != 1 else ''})"
    if t == "go_down" and a.melds:
        return f"{who} goes down: " + " | ".join(cards_str(m) for m in a.melds)
    if t == "lay_off" and a.card is not None and a.meld is not None:
        owner = game.players[game.melds[a.meld].owner]
        return f"{who} lays {card_str(a.card)} on {owner}'s {game.melds[a.meld]}"
    if t == "swap_joker" and a.card is not None and a.meld is not None:
        return f"{who} swaps {card_str(a.card)} for the wild in {game.melds[a.meld]}"
    if t == "borrow" and a.card is not None and a.new_meld:
        return f"{who} borrows {card_str(a.card)} to lay {cards_str(a.new_meld)}"
    if t == "discard" and a.card is not None:
        last = len(game.hands[a.player]) == 1
        return f"{who} discards {card_str(a.card)}" + (" and goes out" if last else "")
    if t == "call":
        words = {"bonus": "calls Liverpool", "take_back": "calls rummy: the card goes back",
                 "give_cards": "calls rummy: everyone gives a card",
                 "points": f"calls RUMMY (+{game.rules.rummy_points})"}
        return f"{who} {words.get(game.window_mode, 'calls')} on {top}"
    if t == "give" and a.card is not None:
        return f"{who} gives {card_str(a.card)}"
    if t == "cut":
        return f"{who} cuts the deck"
    return f"{who}: {t}"  # pragma: no cover - every type is named above


def phase_name(game: Game) -> str:
    return {Phase.BUY: "buy round", Phase.CALL: "call window"}.get(game.phase, game.phase.value)
