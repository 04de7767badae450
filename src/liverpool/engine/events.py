"""Game events: what one applied action made happen, as the engine tells it to everyone who
follows a game (front ends, drivers, replayers, bots' hosts).

Domain words: *event* (an immutable value of one kind: ``drew``, ``skipped_draw``, ``took``,
``bought``, ``passed``, ``went_down``, ``laid_off``, ``swapped``, ``borrowed``, ``discarded``,
``called``, ``gave``, ``cut``, ``reshuffled``, ``hand_ended``, ``hand_started``, ``game_ended``),
*JSON form* (``to_json``: ``{"type": kind, ...}``, docs/engine.md lists every field), *per-seat
form* (``for_seat``: the event as one seat, or a spectator (None), may see it: a card another
seat drew from the stock, a buyer's penalty cards and a cut's count are hidden), *before*
(what the engine notes of the game just before an action, so that the events can say which
cards moved without anybody comparing states afterwards).

``Game.apply`` returns the events of the action it applied, in order: the action's own event,
then what followed from it (the card drawn once a buy round ends, a renewed stock, the hand's
end, the next deal or the game's end).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..actions import Action
from ..cards import Card, card_str, parse_card, sorted_cards
from ..frozen import reduce_frozen
from ..melds import Meld
from ..rules import Contract, RuleSet
from . import fields
from .state import HandEnd, Phase
from .turns import Table  # a game's state and turn machinery, which its events are read from


def _card(c: Card | None) -> str | None:
    return None if c is None else card_str(c)


def _cards(cs: tuple[Card, ...] | None) -> list[str] | None:
    return None if cs is None else [card_str(c) for c in cs]


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``seat`` is who did it (None for the table's own events)."""

    @property
    def kind(self) -> str:
        return ""

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    def for_seat(self, seat: int | None) -> Event:
        """The event as ``seat`` (None: a spectator) may see it."""
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return reduce_frozen(self)  # pickles and copies in the compiled core too

    @property
    def actor(self) -> int | None:
        return None


@dataclass(frozen=True, slots=True)
class SeatEvent(Event):
    seat: int

    @property
    def actor(self) -> int | None:
        return self.seat


@dataclass(frozen=True, slots=True)
class Cut(SeatEvent):
    """The seat right of the dealer cut the deck; ``count`` stays with the cutter; ``bonus``:
    points taken off for the exact cut (0: none)."""

    count: int | None
    bonus: int

    @property
    def kind(self) -> str:
        return "cut"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "count": self.count, "bonus": self.bonus}

    def for_seat(self, seat: int | None) -> Event:
        return self if seat == self.seat else replace(self, count=None)


@dataclass(frozen=True, slots=True)
class Drew(SeatEvent):
    """The seat drew from the stock. ``card`` is None for other seats, and for everyone while a
    buy round decides who takes the discard first (``buy_round``: the seats asked); the card
    then comes with a second ``drew`` event, ``after_buys``."""

    card: Card | None
    buy_round: tuple[int, ...] = ()
    after_buys: bool = False

    @property
    def kind(self) -> str:
        return "drew"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "card": _card(self.card),
                "buy_round": list(self.buy_round), "after_buys": self.after_buys}

    def for_seat(self, seat: int | None) -> Event:
        return self if seat == self.seat or self.card is None else replace(self, card=None)


@dataclass(frozen=True, slots=True)
class SkippedDraw(SeatEvent):
    """A player who is down lays off instead of drawing (``layoff_instead_of_draw``)."""

    buy_round: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        return "skipped_draw"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "buy_round": list(self.buy_round)}


@dataclass(frozen=True, slots=True)
class Took(SeatEvent):
    """The player on turn took the top discard."""

    card: Card

    @property
    def kind(self) -> str:
        return "took"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "card": card_str(self.card)}


@dataclass(frozen=True, slots=True)
class Bought(SeatEvent):
    """The seat bought ``cards`` from the discard pile (the top one, or more with
    ``deep_pickup``) and took ``penalty`` cards from the stock, which only it sees
    (``penalty_cards``)."""

    cards: tuple[Card, ...]
    penalty: int
    penalty_cards: tuple[Card, ...] | None

    @property
    def kind(self) -> str:
        return "bought"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "cards": _cards(self.cards),
                "penalty": self.penalty, "penalty_cards": _cards(self.penalty_cards)}

    def for_seat(self, seat: int | None) -> Event:
        return self if seat == self.seat else replace(self, penalty_cards=None)


@dataclass(frozen=True, slots=True)
class Passed(SeatEvent):
    """The seat let the discard go in a buy round (``on`` "buy") or a call window ("call")."""

    on: str
    card: Card | None

    @property
    def kind(self) -> str:
        return "passed"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "on": self.on, "card": _card(self.card)}


@dataclass(frozen=True, slots=True)
class WentDown(SeatEvent):
    """The seat laid down its contract: ``melds`` now at ``first``, ``first + 1``, ..."""

    melds: tuple[Meld, ...]
    first: int

    @property
    def kind(self) -> str:
        return "went_down"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "melds": [m.to_json() for m in self.melds],
                "first": self.first}


@dataclass(frozen=True, slots=True)
class LaidOff(SeatEvent):
    """The seat laid ``card`` off on the meld at ``meld`` (``owner``'s), which became
    ``result``."""

    card: Card
    meld: int
    owner: int
    result: Meld

    @property
    def kind(self) -> str:
        return "laid_off"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "card": card_str(self.card),
                "meld": self.meld, "owner": self.owner, "result": self.result.to_json()}


@dataclass(frozen=True, slots=True)
class Swapped(SeatEvent):
    """The seat put ``card`` in place of the wild ``wild`` in the meld at ``meld``."""

    card: Card
    wild: Card
    meld: int
    owner: int
    result: Meld

    @property
    def kind(self) -> str:
        return "swapped"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "card": card_str(self.card),
                "wild": card_str(self.wild), "meld": self.meld, "owner": self.owner,
                "result": self.result.to_json()}


@dataclass(frozen=True, slots=True)
class Borrowed(SeatEvent):
    """The seat took ``card`` from the meld at ``meld`` (which became ``result``) to lay the new
    meld ``new_meld`` (now at ``new_index``)."""

    card: Card
    meld: int
    result: Meld
    new_meld: Meld
    new_index: int

    @property
    def kind(self) -> str:
        return "borrowed"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "card": card_str(self.card),
                "meld": self.meld, "result": self.result.to_json(),
                "new_meld": self.new_meld.to_json(), "new_index": self.new_index}


@dataclass(frozen=True, slots=True)
class Discarded(SeatEvent):
    """The seat discarded ``card``; ``out``: it was its last card."""

    card: Card
    out: bool

    @property
    def kind(self) -> str:
        return "discarded"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "card": card_str(self.card),
                "out": self.out}


@dataclass(frozen=True, slots=True)
class Called(SeatEvent):
    """The seat called the playable discard ``card`` (``mode``: the window's, from the table's
    ``playable_discard``:
    ``bonus`` it takes the card, ``take_back`` the discarder takes it back with a penalty card
    only the discarder sees, ``give_cards`` the card goes on the meld at ``meld``, ``points`` the
    discarder owes ``points``); ``to``: the discarder."""

    card: Card
    mode: str
    to: int
    meld: int | None = None
    result: Meld | None = None
    penalty_card: Card | None = None
    points: int = 0

    @property
    def kind(self) -> str:
        return "called"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "card": card_str(self.card),
                "mode": self.mode, "to": self.to, "meld": self.meld,
                "result": None if self.result is None else self.result.to_json(),
                "penalty_card": _card(self.penalty_card), "points": self.points}

    def for_seat(self, seat: int | None) -> Event:
        if seat == self.to or self.penalty_card is None:
            return self
        return replace(self, penalty_card=None)


@dataclass(frozen=True, slots=True)
class Gave(SeatEvent):
    """The seat gave ``card`` to the discarder ``to`` (``give_cards``)."""

    card: Card
    to: int

    @property
    def kind(self) -> str:
        return "gave"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "card": card_str(self.card), "to": self.to}


@dataclass(frozen=True, slots=True)
class Reshuffled(Event):
    """The discard pile, but its top card, was shuffled into a new stock, renewed because a
    card was needed from it: ``stock`` is its size once the action is done (that card, and any
    other the action drew, taken)."""

    stock: int

    @property
    def kind(self) -> str:
        return "reshuffled"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "stock_size": self.stock}


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """A hand ended: ``end`` is the table as it was scored (every hand shown), ``points`` the
    hand's row of the score sheet and ``totals`` the running totals."""

    end: HandEnd
    points: tuple[int, ...]
    totals: tuple[int, ...]
    deuces_wild: bool = False

    @property
    def kind(self) -> str:
        return "hand_ended"

    def to_json(self) -> dict[str, Any]:
        e = self.end
        return {"type": self.kind, "hand_number": e.hand_number, "dealer": e.dealer,
                "went_out": [s for s, out in enumerate(e.out) if out],
                "hands": [[card_str(c) for c in sorted_cards(h, self.deuces_wild)]
                          for h in e.hands],
                "melds": [m.to_json() for m in e.melds], "down": list(e.down),
                "buys": list(e.buys), "discard": _cards(e.discard), "stock_size": e.stock_size,
                "points": list(self.points), "totals": list(self.totals)}


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A hand was dealt: its number, its dealer, each seat's contract and the upcard."""

    hand_number: int
    dealer: int
    contract: tuple[Contract, ...]
    upcard: Card | None
    stock: int

    @property
    def kind(self) -> str:
        return "hand_started"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "hand_number": self.hand_number, "dealer": self.dealer,
                "contract": [c.to_json() for c in self.contract], "upcard": _card(self.upcard),
                "stock_size": self.stock}


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The game ended: final totals and the winners (ties share the win)."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]
    hands: int

    @property
    def kind(self) -> str:
        return "game_ended"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "totals": list(self.totals), "winners": list(self.winners),
                "hands_played": self.hands}


EVENT_KINDS: dict[str, type[Event]] = {
    "cut": Cut, "drew": Drew, "skipped_draw": SkippedDraw, "took": Took, "bought": Bought,
    "passed": Passed, "went_down": WentDown, "laid_off": LaidOff, "swapped": Swapped,
    "borrowed": Borrowed, "discarded": Discarded, "called": Called, "gave": Gave,
    "reshuffled": Reshuffled, "hand_ended": HandEnded, "hand_started": HandStarted,
    "game_ended": GameEnded}


# ---- the JSON form read back ------------------------------------------------------------------

def event_from_json(obj: Any, rules: RuleSet) -> Event:
    """The event whose JSON form (``to_json``) is ``obj``, its melds read under ``rules`` (a
    bot told its host's events, docs/bot-protocol.md). ``ValueError`` naming what is wrong for
    anything else: an unknown kind, a missing field, a field of the wrong type or a card that
    is none. A hand's end reads back with each hand sorted, as its JSON shows them."""
    if not isinstance(obj, dict):
        raise ValueError(f"an event is a JSON object, not {type(obj).__name__}")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in EVENT_KINDS:
        raise ValueError(f"unknown event {kind!r}: one of {', '.join(EVENT_KINDS)}")
    try:
        return _read_event(kind, _Fields(obj, kind), rules)
    except (KeyError, TypeError, AttributeError, IndexError) as e:
        what = f"no field {e}" if isinstance(e, KeyError) else str(e)
        raise ValueError(f"not a {kind} event: {what}") from None


class _Fields:
    """An event's JSON fields, each read as the type it must be (``fields``: ``ValueError``
    naming the event and the field otherwise)."""

    def __init__(self, obj: dict[str, Any], kind: str) -> None:
        self.obj = obj
        self.kind = kind

    def what(self, key: str) -> str:
        return f"{self.kind}: \"{key}\""

    def whole(self, key: str, default: int | None = None) -> int:
        return fields.whole(self.obj.get(key, default), self.what(key))

    def opt_whole(self, key: str) -> int | None:
        return None if self.obj.get(key) is None else self.whole(key)

    def wholes(self, key: str) -> tuple[int, ...]:
        return fields.wholes(self.obj.get(key), self.what(key))

    def flag(self, key: str, default: bool | None = None) -> bool:
        return fields.flag(self.obj.get(key, default), self.what(key))

    def flags(self, key: str) -> tuple[bool, ...]:
        return fields.flags(self.obj.get(key), self.what(key))

    def text(self, key: str) -> str:
        return fields.text(self.obj.get(key), self.what(key))

    def card(self, key: str) -> Card:
        return parse_card(self.obj.get(key))

    def opt_card(self, key: str) -> Card | None:
        return None if self.obj.get(key) is None else self.card(key)

    def cards(self, key: str) -> tuple[Card, ...]:
        return fields.cards(self.obj.get(key), self.what(key))

    def opt_cards(self, key: str) -> tuple[Card, ...] | None:
        return None if self.obj.get(key) is None else self.cards(key)

    def meld(self, key: str, rules: RuleSet) -> Meld:
        return Meld.from_json(self.obj.get(key), rules)

    def melds(self, key: str, rules: RuleSet) -> tuple[Meld, ...]:
        return tuple(Meld.from_json(m, rules)
                     for m in fields.items(self.obj.get(key), self.what(key), "melds"))

    def contracts(self, key: str) -> tuple[Contract, ...]:
        return tuple(fields.contract(c, self.what(key))
                     for c in fields.items(self.obj.get(key), self.what(key), "contracts"))


def _read_event(kind: str, f: _Fields, rules: RuleSet) -> Event:
    seat = f.whole("seat") if kind not in ("reshuffled", "hand_ended", "hand_started",
                                         "game_ended") else -1
    if kind == "cut":
        return Cut(seat, f.opt_whole("count"), f.whole("bonus"))
    if kind == "drew":
        return Drew(seat, f.opt_card("card"), f.wholes("buy_round"), f.flag("after_buys"))
    if kind == "skipped_draw":
        return SkippedDraw(seat, f.wholes("buy_round"))
    if kind == "took":
        return Took(seat, f.card("card"))
    if kind == "bought":
        return Bought(seat, f.cards("cards"), f.whole("penalty"), f.opt_cards("penalty_cards"))
    if kind == "passed":
        on = f.text("on")
        if on not in ("buy", "call"):
            raise ValueError(f"passed: \"on\" is \"buy\" or \"call\", not {on!r}")
        return Passed(seat, on, f.opt_card("card"))
    if kind == "went_down":
        return WentDown(seat, f.melds("melds", rules), f.whole("first"))
    if kind == "laid_off":
        return LaidOff(seat, f.card("card"), f.whole("meld"), f.whole("owner"),
                       f.meld("result", rules))
    if kind == "swapped":
        return Swapped(seat, f.card("card"), f.card("wild"), f.whole("meld"), f.whole("owner"),
                       f.meld("result", rules))
    if kind == "borrowed":
        return Borrowed(seat, f.card("card"), f.whole("meld"), f.meld("result", rules),
                        f.meld("new_meld", rules), f.whole("new_index"))
    if kind == "discarded":
        return Discarded(seat, f.card("card"), f.flag("out"))
    if kind == "called":
        result = None if f.obj.get("result") is None else f.meld("result", rules)
        return Called(seat, f.card("card"), f.text("mode"), f.whole("to"), f.opt_whole("meld"),
                      result, f.opt_card("penalty_card"), f.whole("points", 0))
    if kind == "gave":
        return Gave(seat, f.card("card"), f.whole("to"))
    if kind == "reshuffled":
        return Reshuffled(f.whole("stock_size"))
    if kind == "hand_started":
        return HandStarted(f.whole("hand_number"), f.whole("dealer"), f.contracts("contract"),
                           f.opt_card("upcard"), f.whole("stock_size"))
    if kind == "game_ended":
        return GameEnded(f.wholes("totals"), f.wholes("winners"), f.whole("hands_played"))
    hands = f.obj.get("hands")
    if not isinstance(hands, list) or not all(isinstance(h, list) for h in hands):
        raise ValueError(f"hand_ended: \"hands\" must be a list of lists, not {hands!r}")
    n = len(hands)
    went_out = set(f.wholes("went_out"))
    end = HandEnd(f.whole("hand_number"), f.whole("dealer"),
                  tuple(tuple(parse_card(c) for c in h) for h in hands),
                  f.melds("melds", rules), f.opt_cards("discard") or (), f.whole("stock_size"),
                  f.flags("down"), f.wholes("buys"), tuple(s in went_out for s in range(n)))
    return HandEnded(end, f.wholes("points"), f.wholes("totals"), rules.deuces_wild)


# ---- what happened: worked out by the engine from what it noted just before ----------------

@dataclass(slots=True)
class Before:
    """What ``Game.apply`` notes before an action (cheap: sizes and references; not frozen,
    which the compiled core makes slower to build, and never kept past the action)."""

    sizes: list[int]
    hands_done: int
    discard: tuple[Card, ...]  # the cards a buy takes, else the top discard (or nothing)
    melds: int
    target: Meld | None
    reshuffles: int
    turn: int
    discarder: int | None
    mode: str
    phase: Phase
    pending_draw: bool
    penalty: int


def before(g: Table, a: Action) -> Before:
    target = None
    at = a.meld
    if at is not None and 0 <= at < len(g.melds):
        target = g.melds[at]
    pile = g.discard
    depth = (a.depth or 1) if a.type == "buy" else 1
    taken = tuple(pile[-depth:]) if pile else ()
    return Before([len(h) for h in g.hands], len(g.scores), taken, len(g.melds), target,
                  g.reshuffles, g.turn, g.discarder, g.window_mode, g.phase, g.pending_draw,
                  g.penalties[a.player])


def hand_started(g: Table) -> HandStarted:
    """The hand now in progress, as dealt."""
    return HandStarted(g.hand_number(), g.dealer,
                       tuple(g.contract_for(s) for s in range(g.n)),
                       g.discard[0] if g.discard else None, len(g.stock))


def _gained(hands: list[list[Card]] | tuple[tuple[Card, ...], ...], b: Before, s: int
            ) -> tuple[Card, ...]:
    """The cards seat ``s`` received during the action (cards only ever join a hand at its
    end)."""
    return tuple(hands[s][b.sizes[s]:])


def happened(g: Table, a: Action, b: Before) -> tuple[Event, ...]:
    """The events of ``a``, just applied to ``g``, from what ``b`` noted before it."""
    ended = len(g.scores) > b.hands_done
    end = g.last_hand_end if ended else None
    hands = end.hands if end is not None else g.hands
    melds = end.melds if end is not None else g.melds

    p = a.player
    t = a.type
    out: list[Event] = []
    round_over = b.phase is Phase.BUY and (ended or g.phase is not Phase.BUY)
    if t == "draw" or t == "no_draw":
        asked = tuple(g.asked) if g.phase is Phase.BUY and not ended else ()
        if t == "no_draw":
            out.append(SkippedDraw(p, asked))
        else:
            got = _gained(hands, b, p)
            out.append(Drew(p, got[0] if got and not asked else None, asked))
    elif t == "take_discard":
        out.append(Took(p, b.discard[-1]))
    elif t == "buy":
        got = _gained(hands, b, p)
        taken = b.discard
        out.append(Bought(p, taken, len(got) - len(taken), got[len(taken):]))
    elif t == "pass":
        top = b.discard[-1] if b.discard else None
        out.append(Passed(p, "buy" if b.phase is Phase.BUY else "call", top))
    elif t == "go_down":
        out.append(WentDown(p, tuple(melds[b.melds:]), b.melds))
    elif t == "lay_off" and a.card is not None and a.meld is not None:
        res = melds[a.meld]
        out.append(LaidOff(p, a.card, a.meld, res.owner, res))
    elif t == "swap_joker" and a.card is not None and a.meld is not None \
            and b.target is not None:
        res = melds[a.meld]
        left = list(b.target.cards)
        for c in res.cards:
            if c in left:
                left.remove(c)
        out.append(Swapped(p, a.card, left[0] if left else a.card, a.meld, res.owner, res))
    elif t == "borrow" and a.card is not None and a.meld is not None:
        out.append(Borrowed(p, a.card, a.meld, melds[a.meld], melds[-1], len(melds) - 1))
    elif t == "discard" and a.card is not None:
        out.append(Discarded(p, a.card, b.sizes[p] == 1))
    elif t == "call":
        d = b.discarder if b.discarder is not None else p
        card = b.discard[-1]
        if b.mode == "give_cards":
            at = a.meld
            if at is None:  # the engine chose the only meld it fits: the one that changed
                at = next((i for i, m in enumerate(melds[:b.melds]) if card in m.cards
                           and i < len(g.melds) and g.melds[i] != m), None)
            out.append(Called(p, card, b.mode, d, at, None if at is None else melds[at]))
        elif b.mode == "take_back":
            got = _gained(hands, b, d)
            out.append(Called(p, card, b.mode, d, penalty_card=got[1] if len(got) > 1 else None))
        elif b.mode == "points":
            out.append(Called(p, card, b.mode, d, points=g.rules.rummy_points))
        else:
            out.append(Called(p, card, b.mode, d))
    elif t == "give" and a.card is not None:
        out.append(Gave(p, a.card, b.discarder if b.discarder is not None else p))
    elif t == "cut":
        out.append(Cut(p, a.count, max(0, b.penalty - g.penalties[p])))
    if round_over and b.pending_draw:
        got = _gained(hands, b, b.turn)
        if t == "buy" and b.turn == p:  # (never: the player on turn does not buy)
            got = ()
        if got:
            out.append(Drew(b.turn, got[-1], (), True))
    if not ended and g.reshuffles > b.reshuffles:
        out.append(Reshuffled(len(g.stock)))
    if end is not None:
        out.append(HandEnded(end, tuple(g.scores[-1]), tuple(g.totals), g.rules.deuces_wild))
        if g.over:
            out.append(GameEnded(tuple(g.totals), tuple(g.winners), len(g.scores)))
        else:
            out.append(hand_started(g))
    return tuple(out)


__all__ = ["EVENT_KINDS", "Before", "Borrowed", "Bought", "Called", "Cut", "Discarded", "Drew",
           "Event", "GameEnded", "Gave", "HandEnded", "HandStarted", "LaidOff", "Passed",
           "Reshuffled", "SeatEvent", "SkippedDraw", "Swapped", "Took", "WentDown", "before",
           "event_from_json", "hand_started", "happened"]
