"""Narration: one readable line per event ("Bob buys 7H (+1 penalty card)"), for logs, the
terminal and the web table, written for one reader.

Domain words: *line* (what a player at the table would say happened), *reader* (the seat the
line is written for: its own moves read in the second person, "You draw 7H from the stock", and
it alone is told the card it drew; None: a spectator, or a log for everyone), *event* (the
engine's, liverpool.engine.events: narration is a function of events only, never of the state).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import card_str, cards_str
from .engine import Game, Phase
from .engine.events import (
    Borrowed,
    Bought,
    Called,
    Cut,
    Discarded,
    Drew,
    Event,
    GameEnded,
    Gave,
    HandEnded,
    HandStarted,
    LaidOff,
    Passed,
    Reshuffled,
    SkippedDraw,
    Swapped,
    Took,
    WentDown,
)
from .melds import Meld

# a verb in the third person, as a reader says it of themselves
_SECOND = {"draws": "draw", "lays": "lay", "takes": "take", "buys": "buy", "goes": "go",
           "swaps": "swap", "borrows": "borrow", "discards": "discard", "calls": "call",
           "gives": "give", "cuts": "cut", "passes": "pass", "deals": "deal", "wins": "win"}


class Narrator:
    """Lines for one reader at one table: ``players`` (the names), ``reader`` (a seat, or None)."""

    def __init__(self, players: Sequence[str], reader: int | None = None) -> None:
        self.players = tuple(players)
        self.reader = reader

    def who(self, seat: int, verb: str) -> str:
        if seat == self.reader:
            return f"You {_SECOND.get(verb, verb)}"
        return f"{self.players[seat]} {verb}"

    def whose(self, seat: int) -> str:
        return "your" if seat == self.reader else f"{self.players[seat]}'s"

    def name(self, seat: int) -> str:
        return "you" if seat == self.reader else self.players[seat]

    def line(self, e: Event, passes: bool = False) -> str | None:
        """The line for ``e`` as the reader may see it (pass it ``e.for_seat(reader)``, or the
        event itself when the reader may see everything); None for an event with nothing to
        say (a pass, unless ``passes``; another seat's card drawn after a buy round)."""
        if isinstance(e, Drew):
            if e.after_buys:  # the draw told before the buy round, now with its card
                if e.card is None:
                    return None
                whose = self.whose(e.seat)
                return f"{whose[:1].upper()}{whose[1:]} draw from the stock: {card_str(e.card)}"
            got = f" {card_str(e.card)}" if e.card is not None else ""
            return f"{self.who(e.seat, 'draws')}{got} from the stock"
        if isinstance(e, SkippedDraw):
            return f"{self.who(e.seat, 'lays')} off instead of drawing"
        if isinstance(e, Took):
            return f"{self.who(e.seat, 'takes')} {card_str(e.card)}"
        if isinstance(e, Bought):
            pen = e.penalty
            got = f": {cards_str(e.penalty_cards)}" if e.penalty_cards else ""
            return (f"{self.who(e.seat, 'buys')} {cards_str(e.cards)} (+{pen} penalty "
                    f"card{'s' if pen != 1 else ''}{got})")
        if isinstance(e, Passed):
            return f"{self.who(e.seat, 'passes')}" if passes else None
        if isinstance(e, WentDown):
            return f"{self.who(e.seat, 'goes')} down: " + " | ".join(
                cards_str(m.cards) for m in e.melds)
        if isinstance(e, LaidOff):
            return f"{self.who(e.seat, 'lays')} {card_str(e.card)} on " \
                   f"{self.whose(e.owner)} {_meld(e.result)}"
        if isinstance(e, Swapped):
            return f"{self.who(e.seat, 'swaps')} {card_str(e.card)} for the " \
                   f"{card_str(e.wild)} in {self.whose(e.owner)} {_meld(e.result)}"
        if isinstance(e, Borrowed):
            return f"{self.who(e.seat, 'borrows')} {card_str(e.card)} to lay " \
                   f"{cards_str(e.new_meld.cards)}"
        if isinstance(e, Discarded):
            out = " and go out" if e.seat == self.reader else " and goes out"
            return f"{self.who(e.seat, 'discards')} {card_str(e.card)}" + (out if e.out else "")
        if isinstance(e, Called):
            words = {"bonus": "Liverpool", "take_back": "rummy: the card goes back",
                     "give_cards": "rummy: everyone gives a card",
                     "points": f"RUMMY (+{e.points} to {self.name(e.to)})"}
            back = f" ({card_str(e.penalty_card)} penalty card)" if e.penalty_card else ""
            return f"{self.who(e.seat, 'calls')} {words.get(e.mode, '')} on " \
                   f"{card_str(e.card)}{back}"
        if isinstance(e, Gave):
            return f"{self.who(e.seat, 'gives')} {card_str(e.card)} to {self.name(e.to)}"
        if isinstance(e, Cut):
            count = f" at {e.count} cards" if e.count is not None else ""
            bonus = f" exactly (-{e.bonus} points)" if e.bonus else ""
            return f"{self.who(e.seat, 'cuts')} the deck{count}{bonus}"
        if isinstance(e, Reshuffled):  # renewed for a card drawn at once: its size after that
            return f"The discard pile is shuffled into a new stock ({e.stock} " \
                   f"card{'s' if e.stock != 1 else ''} left)"
        if isinstance(e, HandEnded):
            return f"Hand {e.end.hand_number} over: " + ", ".join(
                f"{self.players[s]} {e.points[s]}" for s in range(len(self.players)))
        if isinstance(e, HandStarted):
            contracts = {c.describe() for c in e.contract}
            what = contracts.pop() if len(contracts) == 1 else "each player's own contract"
            return f"Hand {e.hand_number} is dealt by {self.players[e.dealer]}: {what}"
        if isinstance(e, GameEnded):
            names = " and ".join(self.name(s) for s in e.winners)
            one = len(e.winners) == 1 and e.winners[0] != self.reader
            return f"Game over: {names[:1].upper()}{names[1:]}" + (" wins" if one else " win")
        return None  # pragma: no cover - every kind is named above

    def lines(self, events: Sequence[Event], passes: bool = False) -> list[str]:
        """The lines of ``events`` (each shown as the reader may see it)."""
        out = []
        for e in events:
            text = self.line(e.for_seat(self.reader), passes)
            if text is not None:
                out.append(text)
        return out


    def json(self, events: Sequence[Event], face_up: bool = False) -> list[dict[str, Any]]:
        """``events`` as JSON objects, each with its line (``"text"``, null when there is
        nothing to say; passes are named): as the reader may see them, or every card shown
        (``face_up``: a finished game's replay)."""
        out = []
        for e in events:
            seen = e if face_up else e.for_seat(self.reader)
            obj = seen.to_json()
            obj["text"] = self.line(seen, passes=True)
            out.append(obj)
        return out


def _meld(m: Meld) -> str:
    """A meld as it is after a move: ``run: 4C 5C JK 7C 8C``."""
    return f"{m.kind}: {cards_str(m.cards)}"


def narrate(events: Sequence[Event], players: Sequence[str], reader: int | None = None,
            passes: bool = False) -> list[str]:
    """The lines of ``events`` for ``reader`` (``Narrator.lines``)."""
    return Narrator(players, reader).lines(events, passes)


def phase_name(game: Game) -> str:
    return {Phase.BUY: "buy round", Phase.CALL: "call window"}.get(game.phase, game.phase.value)


__all__ = ["Narrator", "narrate", "phase_name"]
