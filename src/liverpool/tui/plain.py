"""The plain line mode of ``liverpool play --plain``: for screen readers and pipes. Every line is
plain text (no colour, no cursor moves); the person types one command a line.

Domain words: *status* (the table as text: players, melds, discard, the person's hand),
*question* (the decision asked), *command* (``take``, ``draw``, ``buy``, ``pass``, ``down``,
``lay``, ``swap``, ``borrow``, ``discard``, ``call``, ``give``, ``cut``, and ``hint``, ``hand``,
``table``, ``scores``, ``rules``, ``sort``, ``help``, ``quit``), *event line* (what a player just
did), *rules sheet* (``rulestext.rules_sheet``, the table's rules in the core's words).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from ..actions import Action, ActionFormatError
from ..bots import level_words
from ..cards import CardError, card_str, parse_card, parse_cards
from ..engine import HandStarted, IllegalActionError, SeatView
from ..rulestext import PRESET_LINES, rules_sheet
from .guide import STEPS, Guide
from .session import Event, HandResult, Line, Received, Session, received_words
from .text import (
    YOU,
    action_label,
    cards_plain,
    meld_text,
    question,
    rules_label,
    second_person,
    sort_hand,
    subject,
)

HELP = """Commands (a card is written like 7H, 10S, QD, JK, or 7♥; table melds by their number):
  take                      take the top discard
  draw                      draw from the stock
  nodraw                    lay off instead of drawing (where the rules allow it)
  buy [DEPTH]               buy the discard when asked (DEPTH: deeper pickup where allowed)
  pass                      pass on a buy or a call
  pass hand                 pass, and be asked no more buys this hand (or: nobuy)
  down                      go down with the suggested melds
  down 7H 7S 7D / 4C 5C JK 7C   go down with your own melds, separated by /
  lay CARD MELD [low|high]  lay a card off on table meld MELD (the end where both fit)
  swap CARD MELD [WILD]     put CARD in place of the wild it stands for in meld MELD
  borrow MELD CARD CARDS..  (house) take CARD off meld MELD to make a new meld with CARDS
  discard CARD              discard (your turn ends)
  call [MELD [low|high]]    call a playable discard
  give CARD                 give a card to the discarder
  cut COUNT                 cut the deck
  hint                      the expert's suggestion       hand    your hand
  table                     players, melds and pile       scores  the score sheet
  sort                      sort the hand by rank / suit  help    this list
  rules                     the table's rules (this hand's contract marked)
  quit                      stop (the game is saved; resume with --resume)
A whole action in the record's JSON form is accepted too."""


class PlainUI:
    def __init__(self, session: Session, inp: TextIO, out: TextIO,
                 guide: Guide | None = None) -> None:
        self.s = session
        self.inp = inp
        self.out = out
        self.order = "suit"
        self.guide = guide  # the walk-through's notes, said before the questions (--guide)

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    # ---- the loop ------------------------------------------------------------------------
    def run(self) -> int:
        s = self.s
        g_players = s.game.players
        others = [f"{g_players[i]} ({level_words(s.levels[i] or '')})" for i in range(s.game.n)
                  if i != s.human]
        me = g_players[s.human]
        named = f"You sit at seat {s.human}" if me == YOU else f"You are {me} (seat {s.human})"
        self.say(f"Liverpool Rummy, {rules_label(s.game.rules)}. {named}; playing with "
                 f"{', '.join(others)}.")
        self.say(f"The game is saved as it goes in {s.save_path}. Type help for the commands, "
                 f"rules for the table's rules.")
        so_far = s.past_lines(this_hand=True) if not s.over else []
        if so_far:  # a resumed game: this hand so far, from its record
            for item in so_far:
                if isinstance(item, HandStarted):
                    self.say(self.hand_header(item))
                    self.say("This hand so far:")
                elif isinstance(item, Line):
                    self.say(item.text)
        elif s.dealt is not None and not s.over:
            self.say(self.hand_header(s.dealt))
            if s.dealt_hand is not None:
                self.say(received_words([Received(s.dealt_hand, "dealt")], g_players))
        if s.over:  # a finished game resumed: its end, counted once
            self.say(self.score_sheet())
            for line in s.finish():
                self.say(line)
        asked_key: object = None
        try:
            while not s.over:
                view = s.view()
                if s.human_to_act():
                    key = (len(s.game.actions), view.phase)
                    if key != asked_key:
                        asked_key = key
                        self.say(self.status(view))
                        if self.guide is not None:
                            for note in self.guide.notes(view.phase, view.ruleset.buying):
                                self.say(f"Guide, {STEPS.index(note) + 1} of {len(STEPS)}: "
                                         f"{note.plain}")
                        ask = question(view, s.legal())
                        if view.phase == "buy":
                            ask += " (pass hand: no more buys asked this hand)"
                        self.say("? " + ask)
                    self.out.write("> ")
                    self.out.flush()
                    line = self.inp.readline()
                    if not line:
                        self.say("")
                        self.say("End of input. " + s.saved_message())
                        return 0
                    if self.command(line.strip()) == "quit":
                        self.say(s.saved_message())
                        return 0
                else:
                    ev = s.step_bot()
                    if ev is not None:
                        self.report(ev)
            self.say(s.saved_message())
            return 0
        finally:
            s.close()

    def report(self, ev: Event) -> None:
        players = self.s.game.players
        for line in ev.lines:
            self.say(line.text)
        # every card that came into the person's hand, named, in one form to listen for
        got = [r for r in ev.received if r.how != "dealt"]
        if got:
            self.say(received_words(got, players))
        for w in ev.warnings:
            self.say(f"Warning: {w}.")
        if ev.hand is not None:
            self.say(self.hand_result(ev.hand))
        if ev.dealt is not None:
            self.say(self.hand_header(ev.dealt))
            dealt = [r for r in ev.received if r.how == "dealt"]
            if dealt:
                self.say(received_words(dealt, players))
        if ev.game_over:
            self.say(self.score_sheet())
            g = self.s.game
            self.say("Game over. Winner" + ("s" if len(g.winners) > 1 else "") + ": "
                     + " and ".join(g.players[w] for w in g.winners) + ".")
            for end in ev.end_lines:
                self.say(end)

    # ---- text ----------------------------------------------------------------------------
    def hand_header(self, dealt: HandStarted) -> str:
        """A hand's start (the engine's ``hand_started``): its number, the person's contract,
        the deal and the dealer."""
        g = self.s.game
        rules = g.rules
        total = len(rules.hand_list()) if rules.progression == "all" else None
        of = f" of {total}" if total else ""
        return (f"=== Hand {dealt.hand_number}{of}: contract "
                f"{dealt.contract[self.s.human].describe()}; {g.deal_size()} cards each; "
                f"{subject(g.players[dealt.dealer], 'deals')} ===")

    def status(self, view: SeatView) -> str:
        lines = [self.players_line(view), self.table_text(view)]
        top = card_str(view.discard[-1]) if view.discard else "none"
        lines.append(f"Discard: {top}; stock {view.stock_size} cards.")
        lines.append(self.hand_text(view))
        return "\n".join(lines)

    def players_line(self, view: SeatView) -> str:
        parts = []
        for i, name in enumerate(view.players):
            bits = [f"{view.hand_sizes[i]} card{'s' if view.hand_sizes[i] != 1 else ''}"]
            if view.down[i]:
                bits.append("down")
            if view.buys[i]:
                bits.append(f"{view.buys[i]} buy{'s' if view.buys[i] != 1 else ''}")
            if view.floating[i]:
                bits.append("floating")
            bits.append(f"total {view.totals[i]}")
            parts.append(f"{name}: " + ", ".join(bits))
        return "Players: " + "; ".join(parts) + "."

    def table_text(self, view: SeatView) -> str:
        if not view.melds:
            return "Table: no melds yet."
        deuces = view.ruleset.deuces_wild
        lines = ["Table:"]
        for owner in range(len(view.players)):
            mine = [(i, m) for i, m in enumerate(view.melds) if m.owner == owner]
            if mine:
                lines.append(f"  {view.players[owner]}: " + "; ".join(
                    f"[{i}] {m.kind} {meld_text(m, deuces, plain=True).plain}" for i, m in mine))
        return "\n".join(lines)

    def hand_text(self, view: SeatView) -> str:
        cards = sort_hand(view.hand, self.order, view.ruleset.deuces_wild)
        return f"Your hand ({len(cards)}): {cards_plain(cards)}"

    def hand_result(self, r: HandResult) -> str:
        g = self.s.game
        who = " and ".join(g.players[s] for s in r.out) if r.out else "No one"
        lines = [f"--- Hand {r.number} over: {who} went out. ---"]
        for s, name in enumerate(g.players):
            left = cards_plain(r.left[s]) if r.left[s] else "no cards"
            lines.append(f"  {name}: {left}: {r.points[s]} points; total {r.totals[s]}")
        return "\n".join(lines)

    def rules_text(self, view: SeatView) -> str:
        """The rules sheet as plain lines; this hand's contract is marked in words, not with a
        symbol a screen reader may spell out."""
        s = self.s
        rules = view.ruleset
        contract = None if s.over else s.game.contract_no(s.human)
        lines = [f"Rules: {rules_label(rules)}. {PRESET_LINES.get(rules.name, '')}".rstrip()]
        for heading, items in rules_sheet(rules, contract, view.buys[view.me],
                                          len(view.players)):
            lines.append(f"{heading}:")
            for item in items:
                if item.startswith("▶ "):
                    item = f"{item[2:]} (this hand)"
                lines.append(f"  {item.strip()}")
        return "\n".join(lines)

    def score_sheet(self) -> str:
        g = self.s.game
        names = list(g.players)
        width = max(6, *(len(n) for n in names))
        lines = ["Score sheet:", "hand  " + " ".join(n.rjust(width) for n in names)]
        for i, row in enumerate(g.scores, 1):
            lines.append(f"{i:<5} " + " ".join(str(v).rjust(width) for v in row))
        lines.append("total " + " ".join(str(v).rjust(width) for v in g.totals))
        return "\n".join(lines)

    # ---- commands ------------------------------------------------------------------------
    def command(self, line: str) -> str | None:
        """Carry out one typed line; returns ``"quit"`` to stop."""
        s = self.s
        if not line:
            return None
        word, _, rest = line.partition(" ")
        word = word.lower()
        view = s.view()
        if word in ("quit", "exit", "q"):
            return "quit"
        if word in ("help", "?"):
            self.say(HELP)
            return None
        if word == "hand":
            self.say(self.hand_text(view))
            return None
        if word == "table":
            self.say(self.status(view))
            return None
        if word == "scores":
            self.say(self.score_sheet())
            return None
        if word == "rules":
            self.say(self.rules_text(view))
            return None
        if word == "sort":
            self.order = "rank" if self.order == "suit" else "suit"
            self.say(f"Sorted by {self.order}. " + self.hand_text(view))
            return None
        if word == "nobuy" or (word in ("pass", "p") and rest.strip().lower() == "hand"):
            ev = s.no_buys()
            self.say("No buy will be asked of you again this hand.")
            if ev is not None:
                self.report(ev)
            return None
        if word == "hint":
            h = s.hint()
            if h is None:
                self.say("Nothing to decide now.")
            else:
                self.say(f"Hint: {h[1]} ({action_label(h[0], view.players, plain=True)})")
            return None
        try:
            action = self.parse(word, rest.strip(), line)
        except (CardError, ActionFormatError, ValueError) as e:
            self.say(f"Not understood: {e}. Type help for the commands.")
            return None
        try:
            ev = s.act(action)
        except IllegalActionError as e:
            self.say(f"Not allowed: {second_person(str(e), view.players[s.human])}.")
            return None
        self.report(ev)
        if self.guide is not None and self.guide.acted(view.phase, action.type,
                                                       view.ruleset.buying):
            self.say("That was the whole walk-through (--guide gives it again).")
        return None

    def parse(self, word: str, rest: str, line: str) -> Action:
        s = self.s
        me = s.human
        args = rest.split()
        if line.lstrip().startswith("{"):
            obj = json.loads(line)
            if isinstance(obj, dict):
                obj.setdefault("player", me)
            return Action.from_json(obj)
        if word in ("take", "t"):
            return Action("take_discard", me)
        if word in ("draw", "d"):
            return Action("draw", me)
        if word == "nodraw":
            return Action("no_draw", me)
        if word in ("buy", "b"):
            return Action("buy", me, depth=_int(args[0], "depth") if args else None)
        if word in ("pass", "p"):
            return Action("pass", me)
        if word in ("discard", "x"):
            return Action("discard", me, card=parse_card(_one(args, "discard CARD")))
        if word == "give":
            return Action("give", me, card=parse_card(_one(args, "give CARD")))
        if word == "cut":
            return Action("cut", me, count=_int(_one(args, "cut COUNT"), "count"))
        if word in ("lay", "layoff"):
            if len(args) not in (2, 3):
                raise ValueError("write lay CARD MELD [low|high]")
            return Action("lay_off", me, card=parse_card(args[0]), meld=_int(args[1], "meld"),
                          end=_end(args[2]) if len(args) == 3 else None)
        if word == "swap":
            if len(args) not in (2, 3):
                raise ValueError("write swap CARD MELD [WILD]")
            return Action("swap_joker", me, card=parse_card(args[0]),
                          meld=_int(args[1], "meld"),
                          wild=parse_card(args[2]) if len(args) == 3 else None)
        if word == "call":
            if not args:
                return Action("call", me)
            return Action("call", me, meld=_int(args[0], "meld"),
                          end=_end(args[1]) if len(args) > 1 else None)
        if word == "down":
            if not args:
                for a in s.legal():
                    if a.type == "go_down":
                        return a
                # no suggestion: let the engine say why (wrong moment, or no contract)
                return Action("go_down", me, melds=None)
            groups = [parse_cards(part) for part in rest.replace("|", "/").split("/")
                      if part.strip()]
            return self.arranged(Action("go_down", me, melds=tuple(tuple(m) for m in groups)))
        if word == "borrow":
            if len(args) < 3:
                raise ValueError("write borrow MELD CARD CARDS...")
            card = parse_card(args[1])
            new = (card, *parse_cards(args[2:]))
            return self.arranged(Action("borrow", me, meld=_int(args[0], "meld"), card=card,
                                        new_meld=new))
        raise ValueError(f"unknown command {word!r}")

    def arranged(self, a: Action) -> Action:
        """The action as typed if legal, else the first legal arrangement of its melds (so a
        run need not be typed in order); as typed when none is, for the engine's reason."""
        return self.s.game.arranged(a)


def _one(args: Sequence[str], usage: str) -> str:
    if len(args) != 1:
        raise ValueError(f"write {usage}")
    return args[0]


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} must be a number, not {text!r}") from None


def _end(text: str) -> str:
    t = text.lower()
    if t not in ("low", "high"):
        raise ValueError(f"the end is low or high, not {text!r}")
    return t


def run_plain(session: Session, inp: TextIO, out: TextIO, guide: Guide | None = None) -> int:
    return PlainUI(session, inp, out, guide).run()
