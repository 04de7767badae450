"""The game moving in ``liverpool play``: the bots' pace, their thinking off the screen's
thread, the person's actions applied, and the notices that pause the game.

Domain words: *pace* (the delay between the bots' moves), *thinking* (the bot decision being
made, in a worker thread), *answer* (its result, played once the pace has run out: the
*tick*), *hint* (the expert's suggestion, thought out in a worker too), *event* (what an action
did: a log line, warnings, a hand's result), *notice* (a panel over the board that pauses the
game: a hand's result, the game's end), *do* (apply the person's action, or show the engine's
reason for refusing it).
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from ..actions import Action
from ..bots import level_words
from ..engine import HandStarted, IllegalActionError
from .board import Board
from .session import Event, HandResult
from .text import YOU, deal_words, face, faces, second_person
from .widgets import Notice, TailLog, hand_result_view, score_table

WARNINGS_SHOWN = 2  # the newest warnings shown above the prompt; the log keeps them all


class Pacing(Board):
    """The game's flow on the board: bots paced and run in workers, actions applied, events
    logged, notices opened and closed."""

    def on_mount(self) -> None:
        self.query_one("#players", Static).border_title = "players"
        self.query_one("#melds-box").border_title = "table"
        self.query_one("#log", TailLog).border_title = "log"
        self.query_one("#hand", Static).border_title = "your hand"
        s = self.session
        names = s.game.players
        others = ", ".join(f"{names[i]} ({level_words(s.levels[i] or '')})"
                           for i in range(s.game.n) if i != s.human)
        me = names[s.human]
        named = "" if me == YOU else f"You are {me}; "
        self.log_line(Text(f"{named}playing with {others}. ? shows the keys.", style="bold"))
        self.log_line(Text(f"Saved as it goes in {s.save_path}", style="dim"))
        if s.past:  # a resumed game: its log so far, from its record
            self.log_line(Text("The game so far, from its record:", style="dim"))
            for item in s.past_lines():
                if isinstance(item, HandStarted):
                    self.log_deal(item)
                elif isinstance(item, HandResult):
                    self.log_line(self.hand_over_line(item))
                else:
                    self.log_line(Text(faces(item.text),
                                       style="bold" if item.seat == s.human else ""))
        elif s.dealt is not None and not s.over:
            self.log_deal(s.dealt)
        for line in s.finish():  # a finished game resumed: its end, counted once
            self.log_line(Text(line, style="bold"))
        self.mounted = True
        self.refresh_all()
        self.after_change()

    def after_change(self) -> None:
        """After any action: arm the bots' timer when a bot is to act."""
        s = self.session
        if (self.paused or s.over or s.bot_to_act() is None or self.timer_armed
                or self.thinking is not None):
            self.refresh_all()
            if self.kept and not self.paused and s.human_to_act():
                self.apply_kept()
            return
        if self.pace <= 0:
            self.run_bots()
            return
        # the bot thinks while the pace runs: its move shows after whichever takes longer
        self.tick_due = False
        self.start_thinking()
        self.timer_armed = True
        self.set_timer(self.pace, self.bot_tick)
        self.refresh_all()

    def start_thinking(self) -> None:
        turn = self.session.bot_turn()
        if turn is None:
            return
        self.thinking = turn
        if turn.only is not None:  # nothing to think about
            self.answer = turn.only
            return
        # off the screen's thread, so an expert's search never freezes the keys or the clock
        self.run_worker(turn.decide, name="bot", group="bots", thread=True)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.SUCCESS:
            return
        result = event.worker.result
        if event.worker.group == "hint" and result is not None:
            self.hint_ready(result)
        elif event.worker.group == "bots" and result is not None:
            self.answer = result
            self.play_answer()

    def bot_tick(self) -> None:
        self.timer_armed = False
        self.tick_due = True
        self.play_answer()

    def play_answer(self) -> None:
        """Play the bot's answer once it is ready and its pace has run out."""
        while True:
            turn, answer = self.thinking, self.answer
            if not self.tick_due or self.paused or turn is None or answer is None:
                return
            self.thinking, self.answer = None, None
            ev = self.session.play_bot(turn, answer)
            self.show_event(ev)
            # a pass says nothing on screen, so waiting after it would only slow the game
            if ev.lines or self.paused or self.session.over:
                break
            self.start_thinking()
            if self.thinking is None:
                break
            # an answer already known plays now; a search's answer plays when it is ready
        self.tick_due = False
        self.after_change()

    def run_bots(self) -> None:
        """Instant pace: every bot move up to the person's next decision or a hand's end."""
        while not self.paused and not self.session.over:
            ev = self.session.step_bot()
            if ev is None:
                break
            self.show_event(ev)
        self.after_change_no_bots()

    def after_change_no_bots(self) -> None:
        self.refresh_all()
        if self.kept and not self.paused and self.session.human_to_act():
            self.apply_kept()

    def apply_kept(self) -> None:
        """The keys kept while the seat could not act, applied (the app's, which knows the
        keys)."""

    def log_deal(self, dealt: HandStarted) -> None:
        """The line in the log where a hand begins (the engine's ``hand_started``)."""
        s = self.session
        self.log_line(Text(f"— {deal_words(dealt, s.game.players, s.human)} —",
                           style="bold cyan"))

    def show_event(self, ev: Event) -> None:
        human = self.session.human
        for line in ev.lines:
            self.log_line(Text(faces(line.text), style="bold" if line.seat == human else ""))
        for got in ev.received:
            if got.how == "dealt":
                self.drawn = None  # a new hand: nothing drawn yet
            elif got.how == "drawn":
                self.drawn = got.cards[0]  # marked in the hand until the next draw
                self.say(f"You drew {face(self.drawn)}", "bold")
        for w in ev.warnings:
            self.log_line(Text(f"⚠ {w}", style="bold red"))
            # a line of its own above the prompt, not a toast: a toast covered the question
            self.warnings = [*self.warnings, w][-WARNINGS_SHOWN:]
        g = self.session.game
        r = ev.hand
        if r is not None:
            self.warnings = []
            self.log_line(self.hand_over_line(r))
            if self.kept:  # pressed for a decision of the hand that ended
                self.kept.clear()
                self.say("The hand ended: the keys kept for it were forgotten.")
        if ev.dealt is not None:
            self.log_deal(ev.dealt)
        if r is not None:
            body = hand_result_view(g.players, r, g.rules.deuces_wild)
            self.last_result = body
            self.open_notice(Group(body, score_table(g.players, g.scores, g.totals),
                                   Text("Enter: go on · q: quit", style="dim")))

    def hand_over_line(self, r: HandResult) -> Text:
        g = self.session.game
        who = " and ".join(g.players[x] for x in r.out) if r.out else "no one"
        return Text(f"Hand {r.number} over: {who} went out. Points: " + ", ".join(
            f"{g.players[x]} {r.points[x]}" for x in range(g.n)), style="bold green")

    def open_notice(self, body: Group | Text) -> None:
        self.paused = True
        self.refresh_all()
        self.push_screen(Notice(body), self.notice_closed)

    def notice_closed(self, quit_game: bool | None) -> None:
        self.paused = False
        if quit_game:
            self.action_quit_game()
            return
        s = self.session
        if s.over and not getattr(self, "end_shown", False):
            self.end_shown = True
            g = s.game
            words = Text("Game over. Winner" + ("s" if len(g.winners) > 1 else "") + ": "
                         + " and ".join(g.players[w] for w in g.winners), style="bold green")
            mine = [Text(line, style="bold") for line in s.finish()]
            for line in mine:
                self.log_line(line)
            self.open_notice(Group(words, *mine,
                                   score_table(g.players, g.scores, g.totals, g.winners),
                                   Text("q: quit · Enter: look at the table", style="dim")))
            return
        self.after_change()

    def do(self, action: Action) -> bool:
        """Apply the person's action; on refusal show the engine's reason and change nothing."""
        phase = self.view().phase
        try:
            ev = self.session.act(action)
        except IllegalActionError as e:
            self.errors.append(str(e))
            reason = second_person(str(e), self.view().players[self.session.human])
            self.say(f"Not allowed: {faces(reason)}", "bold red")
            self.refresh_all()
            return False
        self.acted(ev)
        self.guide_read(phase, action.type)
        return True

    def guide_read(self, phase: str, action: str) -> None:
        """The walk-through's notes of a decision the person answered are read."""
        if self.guide is not None and self.guide.acted(phase, action,
                                                       self.view().ruleset.buying):
            self.say("That was the whole walk-through; i shows it again.", "bold")
            self.refresh_all()

    def no_buys(self) -> None:
        """"Never ask me this hand": this buy passed, and every one after it this hand."""
        ev = self.session.no_buys()
        if ev is not None:
            self.acted(ev)
            self.guide_read("buy", "pass")
        self.say("No buy will be asked of you again this hand (they are asked again from the "
                 "next deal).")
        self.refresh_all()

    def acted(self, ev: Event) -> None:
        """The person's action applied: the board cleared of what it answered, then what it
        did, and the bots' turn."""
        self.message = Text()
        self.warnings = []  # read before the person answered; the log keeps them
        self.selected.clear()
        self.composing = False
        self.pending.clear()
        self.choice.clear()
        self.show_event(ev)
        if self.session.over and not self.paused:
            self.notice_closed(False)
        self.after_change()

    def show_hint(self) -> None:
        if self.hint_at is not None:
            self.say("Still thinking about the hint…")
            return
        think = self.session.hint_job()
        if think is None:
            self.say("No decision of yours is waiting.")
            return
        self.hint_at = len(self.session.game.actions)
        self.say("Thinking about a hint…", "dim")
        self.refresh_all()
        self.run_worker(think, name="hint", group="hint", thread=True)

    def hint_ready(self, h: tuple[Action, str]) -> None:
        at, self.hint_at = self.hint_at, None
        if at != len(self.session.game.actions):
            return  # the position changed meanwhile; the hint was for a move already made
        a, why = h
        self.say(f"Hint: {faces(why)}", "bold green")
        if a.card is not None:
            cards = self.shown_hand()
            if a.card in cards:
                self.cursor = cards.index(a.card)
        self.refresh_all()

    def action_quit_game(self) -> None:
        self.exit()
