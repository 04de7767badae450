"""The action-id space of the learning interfaces: every engine action as a short sequence of
small integer ids (*tokens*), and the choice of one action token by token.

Domain words: *token* (one id of the fixed space below), *head* (an action's first token: its
type, and for a discard, a give, a lay-off or a swap, also its card), *argument* (a later token:
a card, a meld's place on the table, an end of a run, a number), *spelling* (the tokens of one
action), *choice* (one seat's decision being spelled: the legal ids now are the next tokens of
the legal actions that begin with what was chosen so far).

The space is the same for every rule set and table size (``SIZE`` ids; docs/rl.md lists it):

==========  ======================================================================
ids         meaning
==========  ======================================================================
0..9        DRAW, TAKE_DISCARD, NO_DRAW, PASS, BUY (the top card), BUY_DEEP (then
            a NUMBER: how deep), GO_DOWN (then each meld's cards, each meld closed
            by MELD_END), BORROW (then MELD, the borrowed CARD, the new meld's
            cards, MELD_END), CALL (then, where the rules ask, MELD and an END),
            CUT (then a NUMBER: how many cards)
10..62      DISCARD card
63..115     GIVE card
116..168    LAY_OFF card (then MELD, then an END when the card fits both ends)
169..221    SWAP card (the card put in a meld for its wild; then MELD, then the
            wild's CARD when the meld holds wilds of two kinds)
222..274    CARD card (an argument)
275..434    MELD place (an argument: the meld's index on the table, 0..159)
435, 436    END_LOW, END_HIGH
437         MELD_END
438         STOP (ends an action that could go on: a go-down that could lay
            down another meld)
439..918    NUMBER 0..479
==========  ======================================================================

A card is the engine's card id (0..51 suited, 52 the joker). 160 meld places and 480 numbers
are the most any rule set can need (a pack holds at most 8 decks of 60 cards, and a meld has at
least 3 of them), so every legal action of every rule set has a spelling.

A choice offers exactly the tokens that continue some legal action, so every id it calls legal
ends in an action the engine accepts, and every action the engine lists (``Game.iter_legal``,
go-downs and borrows included) can be spelled. Borrows, which can be many, are listed in full
only once their head is chosen; go-downs, which can be very many, are never listed: the engine
says at each meld's start which melds can come next (``Game.next_melds``, each candidate
checked only when asked), and the melds may come in any order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..actions import Action
from ..cards import NUM_KINDS, Card, card_str
from ..engine import Game, IllegalActionError, NextMelds

DRAW, TAKE_DISCARD, NO_DRAW, PASS, BUY, BUY_DEEP, GO_DOWN, BORROW, CALL, CUT = range(10)
DISCARD = 10
GIVE = DISCARD + NUM_KINDS
LAY_OFF = GIVE + NUM_KINDS
SWAP = LAY_OFF + NUM_KINDS
HEADS = SWAP + NUM_KINDS  # ids below this are heads
CARD = HEADS
MAX_MELDS = 160
MELD = CARD + NUM_KINDS
END_LOW = MELD + MAX_MELDS
END_HIGH = END_LOW + 1
MELD_END = END_HIGH + 1
STOP = MELD_END + 1
MAX_NUMBER = 480
NUMBER = STOP + 1
SIZE = NUMBER + MAX_NUMBER

_PLAIN = {"draw": DRAW, "take_discard": TAKE_DISCARD, "no_draw": NO_DRAW, "pass": PASS}
_BY_CARD = {"discard": DISCARD, "give": GIVE}
_LISTED_LATER = (GO_DOWN, BORROW)  # heads whose actions are listed in full when chosen


class TokenError(ValueError):
    """An action that has no spelling (a meld place or a number beyond the space)."""


def _meld(m: int) -> int:
    if not 0 <= m < MAX_MELDS:
        raise TokenError(f"meld place {m} is beyond the {MAX_MELDS} the id space numbers")
    return MELD + m


def _number(n: int) -> int:
    if not 0 <= n < MAX_NUMBER:
        raise TokenError(f"number {n} is beyond the {MAX_NUMBER} the id space numbers")
    return NUMBER + n


def _cards(cards: Iterable[Card]) -> list[int]:
    return [CARD + c for c in cards]


def spell(action: Action) -> tuple[int, ...]:
    """The tokens of ``action`` in the form the engine lists it (``Game.canonical``)."""
    t = action.type
    if t in _PLAIN:
        return (_PLAIN[t],)
    if t in _BY_CARD:
        assert action.card is not None
        return (_BY_CARD[t] + action.card,)
    if t == "buy":
        return (BUY,) if action.depth in (None, 1) else (BUY_DEEP, _number(action.depth or 0))
    if t == "cut":
        return (CUT, _number(action.count or 0))
    if t == "lay_off":
        assert action.card is not None and action.meld is not None
        out = [LAY_OFF + action.card, _meld(action.meld)]
        if action.end is not None:
            out.append(END_LOW if action.end == "low" else END_HIGH)
        return tuple(out)
    if t == "swap_joker":
        assert action.card is not None and action.meld is not None
        out = [SWAP + action.card, _meld(action.meld)]
        if action.wild is not None:
            out.append(CARD + action.wild)
        return tuple(out)
    if t == "call":
        out = [CALL]
        if action.meld is not None:
            out.append(_meld(action.meld))
        if action.end is not None:
            out.append(END_LOW if action.end == "low" else END_HIGH)
        return tuple(out)
    if t == "go_down":
        out = [GO_DOWN]
        for m in action.melds or ():
            out += _cards(m)
            out.append(MELD_END)
        return tuple(out)
    if t == "borrow":
        assert action.meld is not None and action.card is not None
        return (BORROW, _meld(action.meld), CARD + action.card,
                *_cards(action.new_meld or ()), MELD_END)
    raise TokenError(f"no spelling for an action of type {t!r}")


def token_name(token: int) -> str:
    """A token in words (``DISCARD 7H``, ``MELD 3``, ``NUMBER 12``), for people and docs."""
    if not 0 <= token < SIZE:
        raise TokenError(f"{token} is not an id of the action space (0..{SIZE - 1})")
    names = ("DRAW", "TAKE_DISCARD", "NO_DRAW", "PASS", "BUY", "BUY_DEEP", "GO_DOWN", "BORROW",
             "CALL", "CUT")
    if token < DISCARD:
        return names[token]
    for base, word in ((DISCARD, "DISCARD"), (GIVE, "GIVE"), (LAY_OFF, "LAY_OFF"),
                       (SWAP, "SWAP"), (CARD, "CARD")):
        if base <= token < base + NUM_KINDS:
            return f"{word} {card_str(token - base)}"
    if MELD <= token < END_LOW:
        return f"MELD {token - MELD}"
    if token >= NUMBER:
        return f"NUMBER {token - NUMBER}"
    return {END_LOW: "END_LOW", END_HIGH: "END_HIGH", MELD_END: "MELD_END", STOP: "STOP"}[token]


class Choice:
    """One seat's decision, spelled token by token. ``legal`` lists the ids that may come
    next; ``choose`` takes one and returns the action once it is complete (None before).
    Built from the engine's own listing, so it knows no rule of its own."""

    __slots__ = ("_go_down", "_legal", "_options", "game", "prefix", "seat")

    def __init__(self, game: Game, seat: int, legal: Sequence[Action] | None = None,
                 source: Choice | None = None) -> None:
        self.game = game
        self.seat = seat
        self.prefix: tuple[int, ...] = ()
        self._go_down: _GoDown | None = None
        self._options: list[tuple[tuple[int, ...], Action]] = []
        self._legal: list[int] = []
        if source is not None:  # a fork: the same point of the same spelling
            self.prefix, self._options, self._legal = source.prefix, source._options, \
                source._legal
            self._go_down = None if source._go_down is None else source._go_down.fork()
            return
        # whether the seat can go down is all a choice needs of the listing's go-down
        listed = game.legal_actions(seat, best=False) if legal is None else legal
        self._options = [(spell(a), a) for a in listed if a.type not in ("go_down", "borrow")]
        heads = {s[0] for s, _ in self._options}
        heads.update(GO_DOWN if a.type == "go_down" else BORROW
                     for a in listed if a.type in ("go_down", "borrow"))
        if not heads:
            raise IllegalActionError(f"seat {seat} has no decision to make now")
        self._legal = sorted(heads)

    def legal(self) -> list[int]:
        """The ids that may come next, ascending."""
        return self._legal

    def fork(self) -> Choice:
        """An independent copy at the same point of the spelling (a search tries each id)."""
        return Choice(self.game, self.seat, source=self)

    def choose(self, token: int) -> Action | None:
        """Take ``token``; the complete action, or None while more tokens are needed.
        ``IllegalActionError`` (nothing changes) for an id that is not legal now."""
        if token not in self._legal:
            raise IllegalActionError(
                f"id {token} ({token_name(token) if 0 <= token < SIZE else 'out of range'}) "
                f"is not legal now; legal ids: {self._legal[:12]}"
                f"{' ...' if len(self._legal) > 12 else ''}")
        if not self.prefix and token == GO_DOWN:
            self._go_down = _GoDown(self.game, self.seat)
        elif not self.prefix and token == BORROW:
            self._options = [(spell(a), a) for a in self.game.borrows(self.seat)]
        if self._go_down is not None:
            if token != GO_DOWN:
                done = self._go_down.take(token)
                if done is not None:
                    return done
            self.prefix = (*self.prefix, token)
            self._legal = self._go_down.following()
            return None
        depth = len(self.prefix)
        if token == STOP:
            for s, a in self._options:
                if len(s) == depth:
                    return a
            raise AssertionError("STOP offered with no complete action")  # pragma: no cover
        self.prefix = (*self.prefix, token)
        depth += 1
        options = [o for o in self._options if len(o[0]) >= depth and o[0][depth - 1] == token]
        self._options = options
        complete: Action | None = None
        following: set[int] = set()
        for s, a in options:
            if len(s) == depth:
                complete = a
            else:
                following.add(s[depth])
        if complete is not None and not following:
            return complete
        if complete is not None:
            following.add(STOP)
        self._legal = sorted(following)
        return None


Meld = tuple[Card, ...]


class _GoDown:
    """A go-down spelled meld by meld, card by card, in any order of its melds: at each meld's
    start the engine offers the melds that can come next in some legal go-down
    (``Game.next_melds``), so every id offered leads to a go-down the engine accepts. Each
    next id needs one candidate meld checked, not all of them."""

    __slots__ = ("done", "game", "partial", "seat", "step")

    def __init__(self, game: Game, seat: int, source: _GoDown | None = None) -> None:
        self.game = game
        self.seat = seat
        self.done: list[Meld] = [] if source is None else list(source.done)
        self.partial: Meld = () if source is None else source.partial
        # a fork shares the engine's answers: they hold for the same melds chosen
        step = game.next_melds(seat) if source is None else source.step
        assert step is not None, "a go-down was begun where the seat cannot go down"
        self.step: NextMelds = step

    def fork(self) -> _GoDown:
        return _GoDown(self.game, self.seat, source=self)

    def following(self) -> list[int]:
        out: set[int] = set()
        partial = self.partial
        at = len(partial)
        step = self.step
        if not partial and step.whole:
            out.add(STOP)
        for j, m in enumerate(step.candidates):
            if len(m) < at or m[:at] != partial:
                continue
            token = MELD_END if len(m) == at else CARD + m[at]
            if token not in out and step.follows(j):
                out.add(token)
        return sorted(out)

    def take(self, token: int) -> Action | None:
        if token == STOP:
            return Action("go_down", self.seat, melds=tuple(self.done))
        if token != MELD_END:
            self.partial = (*self.partial, token - CARD)
            return None
        self.step = self.step.then(self.partial)
        self.done.append(self.partial)
        self.partial = ()
        if self.step.whole and not any(self.step.follows(j)
                                       for j in range(len(self.step.candidates))):
            return Action("go_down", self.seat, melds=tuple(self.done))
        return None
