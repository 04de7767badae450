"""A web table's game on the match driver (liverpool.match): the game, its bots, and what each
seat may do now.

Domain words: *match* (the one driver every host plays on: bot generators, bot moves and their
fallback, the out-of-turn requests of the open window), *window* (a discard that may be asked
for: bought before the player on turn decides, or called before the next player plays),
*look-ahead* (in a call window, the seat that decides next if nobody calls, and the game as it
will be then: the core's ``after_silence``), *decision seat* (the seat whose move the table waits
for), *intents* (what a seat may ask for now), *closed window* (the table's buy timer ran out:
the window takes no new requests), *memo* (a value worked out once a table version).
"""

from __future__ import annotations

from typing import Generic, TypeVar

from ..actions import Action
from ..bots import Bot, make_bot
from ..cards import parse_card
from ..engine import Game, Phase, SeatView
from ..match import Match
from ..outofturn import Requests, after_silence, kind_now
from ..rules import RuleSet

T = TypeVar("T")


class SeatMemo(Generic[T]):
    """Each seat's value worked out once a table version: ``of_version(version)`` is the dict
    of that version's values, a new one when the version has moved on (a caller still holding
    the old one, across an await, writes where nobody reads)."""

    def __init__(self) -> None:
        self.version = -2
        self.known: dict[int, T] = {}

    def of_version(self, version: int) -> dict[int, T]:
        if version != self.version:
            self.version, self.known = version, {}
        return self.known


class TableMatch:
    """The table's game once started: ``Match`` with the seats' bots, and the look-ahead."""

    def __init__(self, game: Game, bots: dict[int, Bot]) -> None:
        self.game = game
        self.bots = bots
        # the bots that listen to the game's events (external programs)
        self.listeners = {s: b for s, b in bots.items() if callable(getattr(b, "event", None))}
        # the match tells no bot anything itself: an external bot may be slow to listen, and
        # the owner tells them in the bots' pool
        self.match = Match(game, [bots.get(s) for s in range(game.n)], bots_hear=False)
        self.cover_bot: Bot = make_bot("basic")
        self.window_closed_at: int | None = None  # version whose window timed out
        self._window: tuple[int, Game] | None = None
        self._legal: SeatMemo[tuple[list[Action], Game | None]] = SeatMemo()
        self._public: tuple[int, SeatView] | None = None

    @staticmethod
    def new_game(rules: RuleSet, names: list[str], seed: int, deals: list[list[str]] | None,
                 search_budget: int | None) -> Game:
        parsed = [[parse_card(c) for c in deck] for deck in deals] if deals else None
        return Game(rules, names, seed=seed, deals=parsed, search_budget=search_budget)

    @property
    def requests(self) -> Requests:
        return self.match.requests

    def public_view(self, version: int) -> SeatView:
        """A spectator's view (the engine's), worked out once a version."""
        if self._public is None or self._public[0] != version:
            self._public = (version, self.game.view_for(None))
        return self._public[1]

    def look_ahead(self, version: int) -> tuple[int, Game] | None:
        """In a call window: the seat that decides next if nobody calls, and the game as it will
        be then. None when silence would end the hand or the game: the simulation has then
        dealt the next hand from the game's generator, and nothing of that deal may be shown as
        a move or a hint before the real deal."""
        g = self.game
        if g.phase is not Phase.CALL:
            return None
        if self._window is None or self._window[0] != version:
            self._window = (version, after_silence(g))
        sim = self._window[1]
        if sim.over or sim.hand_number() != g.hand_number():
            return None
        who = sim.to_act()
        return (who[0], sim) if who else None

    def decision_seat(self, version: int) -> int | None:
        """The seat whose move the table waits for (not the seats asked in a buy round or a
        call window: the owner answers for them)."""
        g = self.game
        if g.over or g.phase is Phase.BUY:
            return None
        if g.phase is Phase.CALL:
            w = self.look_ahead(version)
            return w[0] if w else None
        return g.to_act()[0]

    def legal_for(self, seat: int | None, version: int) -> tuple[list[Action], Game | None]:
        """``seat``'s legal moves now and the game they apply to, worked out once a version:
        listing them can cost a good part of a second under wide rules."""
        if seat is None:
            return [], None
        known = self._legal.of_version(version)
        got = known.get(seat)
        if got is None:
            got = known[seat] = self._list_legal(seat, version)
        return got

    def _list_legal(self, seat: int, version: int) -> tuple[list[Action], Game | None]:
        g = self.game
        if g.over or g.phase is Phase.BUY:
            return [], None
        if g.phase is Phase.CALL:
            w = self.look_ahead(version)
            if w and w[0] == seat:
                return w[1].legal_actions(seat), w[1]
            return [], None
        return g.legal_actions(seat), g

    def buy_window_open(self, version: int) -> bool:
        """Are buy requests taken now (a buyable discard, before the player on turn decides,
        and the buy timer has not closed the window)?"""
        g = self.game
        return (g.phase is Phase.DRAW and self.window_closed_at != version
                and kind_now(g) == "buy")

    def intents_for(self, seat: int | None, version: int) -> list[str]:
        """What ``seat`` may ask for now: the core's answer, while the window is open."""
        g = self.game
        if seat is None or g.over or self.window_closed_at == version or g.phase is Phase.BUY:
            return []
        return list(g.request_kinds(seat))

    def announced(self) -> tuple[list[int], list[int]]:
        return self.requests.seats("buy"), self.requests.seats("call")
