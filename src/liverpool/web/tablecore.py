"""A web table's facts, shared by its parts: its configuration, its status, and the parts that
hold state (seats, log, clocks, the game), with what is worked out from them alone.

Domain words: *table* (a lobby, then a game), *status* (open, playing, over, expired), *version*
(the table's event counter, the log's), *decision seat* (the seat whose move the table waits
for), *deadline* (the clock a client is shown: the window's or the turn's), *pause* (the
end-of-hand screen the next deal waits for), *people waiting* (people who may still ask for the
discard and have said nothing yet), *asleep* (a game nobody watches: no bot moves, no clock
runs), *idle* (a finished table nobody looks at).

The parts that act (messages, waits, driver, lobby, websocket messages) are given this and each
other by the table's owner (liverpool.web.table); none of them knows the owner.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ..actions import Action
from ..cards import card_str, wild_cards
from ..engine import Game, Phase
from ..record import game_record
from ..rules import RuleSet
from ..rulestext import clock_lines, rules_sheet
from .clocks import Clocks, Post
from .playerstore import FORMER, SeatOf
from .seating import Seating
from .seats import Settings
from .store import Store, StoredTable, StoreError
from .tablelog import TableLog
from .tablematch import TableMatch

log = logging.getLogger("liverpool.web")


class TableCore:
    """What a table is and knows; changed only on its owner's queue (``post``)."""

    def __init__(self, stored: StoredTable, store: Store, settings: Settings,
                 post: Post) -> None:
        cfg = stored.config
        self.id = stored.id
        self.created = stored.created
        self.status = "expired" if stored.status == "expired" else "open"
        self.store = store
        self.settings = settings
        self.preset: str = cfg["rules"]
        self.overrides: dict[str, Any] = cfg.get("overrides") or {}
        self.rules = RuleSet.preset(self.preset, self.overrides)
        self.seed: int = cfg["seed"]
        self.deals: list[list[str]] | None = cfg.get("deals")
        self.turn_timer: float | None = cfg.get("turn_timer")
        self.buy_timer: float | None = cfg.get("buy_timer")
        window, pause = cfg.get("buy_window"), cfg.get("hand_pause")
        self.buy_window: float = settings.buy_window if window is None else float(window)
        self.hand_pause: float = settings.hand_pause if pause is None else float(pause)
        # the rule set in force, its sheet (for this table's players, with its clocks before
        # its changes) and its wild cards, worked out once
        sheet = rules_sheet(self.rules, players=len(cfg["seats"]))
        sheet.insert(-1, ("This table's clocks", clock_lines(
            self.turn_timer, self.buy_timer, self.buy_window, self.hand_pause)))
        self._rules_words: dict[str, Any] = {
            "knobs": self.rules.to_json(),
            "rules_sheet": [[heading, lines] for heading, lines in sheet],
            "wild_cards": [card_str(c) for c in sorted(wild_cards(self.rules.deuces_wild))]}
        self.seating = Seating(cfg)
        self.log = TableLog(stored.id, store, stored.notes)
        self.clocks = Clocks(post)
        self.play: TableMatch | None = None
        self.asleep = False
        self.pause_due: float | None = None  # when the end-of-hand pause ends (None: none)
        self.deadline_sent: tuple[object, ...] | None = None  # the last one broadcast
        # websockets holding this table (counted from the moment they got it, before their
        # hello): a finished table is evicted from memory only when none is left
        self.sockets = 0
        # told when the table is finished and no socket holds it (the owner's, for its registry)
        self.idle_hook: Callable[[], None] | None = None
        # a finished game's standings rows, once recorded (players.py), and its rematch table
        self.standings: list[dict[str, Any]] | None = None
        self.rematch: str | None = None
        self.rematch_of: str | None = cfg.get("rematch_of")
        # a rematch table's seats kept for the people of the old one: old seat -> new seat
        self.rematch_seats: dict[str, int] = dict(cfg.get("rematch_seats") or {})
        self.config = cfg  # as stored (a rematch copies it)

    def begin(self, play: TableMatch) -> None:
        self.play = play
        self.status = "playing"

    @property
    def version(self) -> int:
        return self.log.version

    @property
    def paused(self) -> bool:
        return self.pause_due is not None

    @property
    def finished(self) -> bool:
        """Over, or closed before it started: nothing more happens at this table."""
        return self.status in ("over", "expired")

    def tell_idle(self) -> None:
        if self.idle_hook is not None and self.finished and self.sockets == 0:
            self.idle_hook()

    # ---- what each seat may do now ---------------------------------------------------------
    def decision_seat(self) -> int | None:
        return None if self.play is None else self.play.decision_seat(self.version)

    def legal_for(self, seat: int | None) -> tuple[list[Action], Game | None]:
        return ([], None) if self.play is None else self.play.legal_for(seat, self.version)

    def intents_for(self, seat: int | None) -> list[str]:
        return [] if self.play is None else self.play.intents_for(seat, self.version)

    def people_waiting(self) -> list[int]:
        """The people who may still ask for the discard and have said nothing yet: a bot's move
        waits for them, up to the table's buy window."""
        if self.play is None or self.play.game.over or self.buy_window <= 0:
            return []
        req = self.play.requests
        return [s.seat for s in self.seating.seats
                if not self.seating.bot_controlled(s.seat) and s.conns and self.intents_for(s.seat)
                and s.seat not in req.wanted and s.seat not in req.declined]

    # ---- what the clients are shown --------------------------------------------------------
    def _shown_clock(self) -> str | None:
        """The clock a client is shown: the window's at this version, else a person's turn."""
        clocks = self.clocks
        if clocks.key("window") == self.version and self.play is not None:
            return "window"
        return "turn" if isinstance(clocks.key("turn"), int) else None

    def deadline_mark(self) -> tuple[object, ...] | None:
        """Which deadline the clients would be shown now (the clock, its key and due time):
        the driver compares it with the last one sent (``deadline_sent``), so that a clock
        started or stopped without a move (the end-of-hand pause ending, a seat covered) is
        told too."""
        name = self._shown_clock()
        return None if name is None else (name, self.clocks.key(name), self.clocks.due(name))

    def deadline_json(self) -> dict[str, Any] | None:
        name = self._shown_clock()
        clocks = self.clocks
        if name == "window" and self.play is not None:
            kind = "call" if self.play.game.phase is Phase.CALL else "buy"
            return {"seat": self.decision_seat(), "kind": kind,
                    "ms_left": clocks.ms_left("window")}
        if name == "turn":
            return {"seat": clocks.key("turn"), "kind": "turn", "ms_left": clocks.ms_left("turn")}
        return None

    def pause_json(self) -> dict[str, Any] | None:
        if self.pause_due is None:
            return None
        return {"kind": "hand_end", "ms_left": self.clocks.ms_left("pause"),
                "ready": sorted(self.seating.ready), "waiting": self.seating.awaited()}

    def summary(self, full: bool = True) -> dict[str, Any]:
        """The table as clients see it; ``full`` adds the rule set in force, its rules sheet
        and its wild cards (the table page needs them, a list of tables does not)."""
        rules = self._rules_words if full else {}
        return {
            "id": self.id, "rules": self.preset, "overrides": self.overrides, **rules,
            "status": self.status, "version": self.version, "public": self.seating.public,
            "seats": self.seating.json(),
            "turn_timer": self.turn_timer, "buy_timer": self.buy_timer,
            "buy_window": self.buy_window, "hand_pause": self.hand_pause,
            "incidents": len(self.log.incidents),
            "standings": self.standings if self.status == "over" else None,
            "rematch": self.rematch, "rematch_of": self.rematch_of,
            "created": datetime.fromtimestamp(self.created, UTC).isoformat().replace(
                "+00:00", "Z"),
        }

    def record(self) -> dict[str, Any]:
        """The game's record, with the bots' incidents when there were any."""
        assert self.play is not None
        rec = game_record(self.play.game)
        for row in self.standings or ():  # a forgotten player's name is not shown again
            if _forgotten(row):
                rec["players"][row["seat"]] = FORMER
        if self.log.incidents:
            rec["incidents"] = list(self.log.incidents)
        return rec

    async def report_incidents(self) -> None:
        if not self.log.unreported:
            return
        names = [s.name for s in self.seating.seats]
        await self.log.report(names, self.seating.broadcast)

    async def record_results(self) -> bool:
        """Record the finished game's standings, ratings and statistics: once, whichever
        server does it first (players.py). False when they could not be written now: the
        table's stored status stays unfinished, so that the next load of it tries again."""
        people = self.settings.people
        if people is None or self.play is None or not self.play.game.over:
            return False
        seats = [SeatOf(s.kind, s.level, s.player) for s in self.seating.seats]
        try:
            self.standings = await people.record_game(
                self.id, self.record(), self.preset, self.overrides, seats,
                self.seating.leavers(), self.settings.limits.search_budget)
            self.rematch = await people.db.rematch_of(self.id)
            for row in self.standings:
                if _forgotten(row):
                    self.seating.seats[row["seat"]].name = FORMER
        except Exception as e:
            log.warning("table %s: the game's standings were not recorded: %s: %s", self.id,
                        type(e).__name__, str(e)[:300])
            return False
        return True

    async def finish(self) -> None:
        recorded = await self.record_results()
        # over once the standings are known: a client told so finds them in the summary
        self.status = "over"
        if not recorded and self.settings.people is not None:
            return  # stored as still playing: the next load records the game, then the status
        try:
            await self.store.set_status(self.id, "over")
        except StoreError as e:  # the events are the truth: a reload finds it over
            log.warning("table %s: the status was not written: %s", self.id, e)


def _forgotten(row: dict[str, Any]) -> bool:
    """A standings row of a forgotten player's seat (``People.name_seats`` made it so)."""
    return row.get("kind") == "human" and row.get("player") is None and row.get("name") == FORMER
