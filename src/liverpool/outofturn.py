"""Out-of-turn decisions: buying the top discard and calling a playable discard, asked for by any
seat at any time and settled by the rules, between people and bots, in one place.

Domain words: *window* (the time a request is about: the top discard from when it is thrown
until the buy round or call window over it ends), *request* (a seat asks to buy or to call in
the current window; it may withdraw it while the window is open), *answer* (what a seat
that is asked says: its request, a bot's choice, or a person's explicit yes or no), *settle*
(apply, one by one, the actions that end the buy round or call window).

The engine says which window is open (``Game.request_window``), who may ask
(``Game.request_kinds``) and who is asked, in which order
(``Game.to_act`` in the BUY and CALL phases); this module decides what each asked seat says, so
every front end (the web table, the terminal, the simulator, the demo) settles a window the same
way (docs/rules-decisions.md, "Out-of-turn requests between people and bots"):

- seat priority (``buy_priority: seat``): the seats are asked one by one from the drawer's left;
  a seat with a request buys (or calls), a bot seat is asked, anyone else passes;
- first call (``buy_priority: first_call``): requests win in the order they were made; then the
  seats that answer when asked (people first, then bots, each from the drawer's left) are asked,
  and the first to say yes wins; a seat that says no passes at once (so the record shows the
  passes in the order they were said); when nobody wants the card, every asked seat passes.

A request that is no longer legal when the window is settled (the stock ran too low once the
player drew) is a pass.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from .actions import Action
from .engine import Game, IllegalActionError, Phase

RequestKind = Literal["buy", "call"]
REQUEST_KINDS: tuple[RequestKind, ...] = ("buy", "call")

WindowKey = tuple[str, int, int]


def window_key(game: Game) -> WindowKey | None:
    """Which window the game is in (the engine's ``Game.request_window``): requests made in
    one window mean nothing in the next."""
    return game.request_window()


def kind_now(game: Game) -> RequestKind | None:
    """The kind of request the current window takes, if any."""
    key = window_key(game)
    return None if key is None else ("call" if key[0] == "call" else "buy")


def settling(game: Game) -> bool:
    """Is the game waiting on the answers of a buy round or a call window?"""
    return game.phase in (Phase.BUY, Phase.CALL)


def after_silence(game: Game) -> Game:
    """The game as it will be once every seat asked in the current buy round or call window
    has passed (the game itself when none is open): who decides next if nobody asks."""
    if not settling(game):
        return game
    sim = game.clone()
    while settling(sim):
        sim.apply(Action("pass", sim.to_act()[0]))
    return sim


@dataclass
class Requests:
    """The requests of the current window, beside one game. Seats in ``wanted`` asked (or were
    asked and said yes), in the order they did, each with the action it asks for; seats in
    ``declined`` were asked and said no. Call ``sync`` after every action applied to the game:
    a new window forgets the old one's requests."""

    wanted: dict[int, Action] = field(default_factory=dict)
    declined: set[int] = field(default_factory=set)
    key: WindowKey | None = None

    # ---- requests from any seat at any time -----------------------------------------------
    def sync(self, game: Game) -> bool:
        """Forget the requests of a window that has ended; True when something was forgotten."""
        key = window_key(game)
        if key == self.key:
            gone = [s for s in self.wanted if not game.request_kinds(s)]
            for s in gone:
                del self.wanted[s]
            return bool(gone)
        changed = bool(self.wanted or self.declined)
        self.wanted, self.declined, self.key = {}, set(), key
        return changed

    def seats(self, kind: RequestKind) -> list[int]:
        """Seats that asked for ``kind`` in this window, in the order they asked."""
        return [s for s, a in self.wanted.items() if a.type == kind]

    def ask(self, game: Game, seat: int, action: Action | None = None) -> Action:
        """``seat`` asks to buy or to call the top discard (``action`` may say which buy or
        call: a deeper buy, or the meld and end of a call). ``IllegalActionError`` with the
        reason when it may not; a second request replaces the first."""
        self.sync(game)
        kinds = game.request_kinds(seat)
        if not kinds:
            raise IllegalActionError(game.why_no_request(seat) or "not possible now")
        kind = kinds[0]
        wanted = action if action is not None else Action(kind, seat)
        if wanted.player != seat or wanted.type != kind:
            raise IllegalActionError(f"you can only ask to {kind} the discard now")
        # a seat asked later in a seat-priority round may ask ahead: its request is judged
        # when its turn to answer comes (``_legal_request``)
        if settling(game) and seat in game.to_act() and not game.is_legal(wanted):
            raise IllegalActionError(game.why_illegal(wanted) or "not possible now")
        self.wanted.pop(seat, None)
        self.wanted[seat] = wanted
        self.declined.discard(seat)
        return wanted

    def withdraw(self, game: Game, seat: int) -> bool:
        """``seat`` takes its request back; True when it had one."""
        self.sync(game)
        return self.wanted.pop(seat, None) is not None

    def answer(self, game: Game, seat: int, action: Action) -> None:
        """What ``seat`` said when asked (a bot's choice, a person's yes or no): a buy or call
        becomes its request, anything else declines."""
        self.sync(game)
        if action.type in REQUEST_KINDS and action.player == seat:
            self.wanted.pop(seat, None)
            self.wanted[seat] = action
            self.declined.discard(seat)
        else:
            self.wanted.pop(seat, None)
            self.declined.add(seat)

    # ---- settling ----------------------------------------------------------------------------
    def next_step(self, game: Game, answers: Collection[int],
                  people: Collection[int] = ()) -> Action | int | None:
        """The next thing that settles the open buy round or call window: an action to apply,
        or a seat to ask first (then ``answer``). ``answers``: the seats that answer when asked
        (bots; in the terminal, the person too); ``people`` among them are asked before the
        bots in a first-call round. None when no buy round or call window is open."""
        if not settling(game):
            return None
        self.sync(game)
        asked = game.to_act()
        kind: RequestKind = "buy" if game.phase is Phase.BUY else "call"
        if game.phase is Phase.BUY and game.rules.buy_priority == "first_call":
            for s, a in self.wanted.items():
                if s in asked and a.type == kind:
                    chosen = self._legal_request(game, s, kind)
                    if chosen is not None:
                        return chosen
            for s in asked:
                if s in self.declined:
                    return Action("pass", s)  # a no is said and recorded at once
            order = [s for s in asked if s in people] + [s for s in asked if s not in people]
            for s in order:
                if s in answers and s not in self.wanted:
                    return s
            return Action("pass", asked[0])
        s = asked[0]
        if s in self.wanted:
            chosen = self._legal_request(game, s, kind)
            return chosen if chosen is not None else Action("pass", s)
        if s in answers and s not in self.declined:
            return s
        return Action("pass", s)

    def _legal_request(self, game: Game, seat: int, kind: RequestKind) -> Action | None:
        """The seat's request as an action the game takes now: as asked when legal, else the
        first legal action of its kind (a request made before the window opened names no
        meld), else None."""
        wanted = self.wanted[seat]
        if game.is_legal(wanted):
            return wanted
        for a in game.legal_actions(seat):
            if a.type == kind:
                return a
        return None
