"""The game engine: a whole Liverpool game as a deterministic state machine.

Domain words: *hand* (one deal, with its contract; also the cards a seat holds), *turn*, *phase*
(the decision point the game waits at, docs/rules.md, Phases), *stock*, *discard pile*, *fresh*
(the top discard is the last card discarded, so it may be bought), *buy round*, *playable-discard
window* (call/pass after a discard that fits a meld), *floating* (hand emptied without a
discard), *final turns* (house), *known cards* (cards a seat holds that everyone saw it take).

``Game`` holds the whole state, including the seeded RNG (``random.Random``, Mersenne Twister,
seeded with the game's integer seed; each hand's deck is the unshuffled pack of
``cards.new_deck`` shuffled by ``rng.shuffle`` unless the record gives the deal; stock renewals
shuffle with the same RNG). Interfaces use ``legal_actions``, ``is_legal``, ``apply`` and
``view_for``; nothing else leaves the engine.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from itertools import combinations, permutations
from typing import Any

from .actions import Action
from .cards import (
    JOKER,
    SUITS,
    Card,
    card_str,
    cards_str,
    make_card,
    new_deck,
    parse_card,
    sorted_cards,
)
from .melds import (
    RUN,
    SET,
    Meld,
    borrow_places,
    lay_off,
    layoff_ends,
    meld_readings,
    swap,
    swap_options,
    why_not_meld,
    without,
)
from .rules import Contract, RuleSet
from .solver import GoDown, best_go_down


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the message says why in a player's words."""


class Phase(Enum):
    CUT = "cut"  # the seat right of the dealer cuts (cut_bonus)
    DRAW = "draw"  # the player about to draw: take the discard, draw, or no_draw
    BUY = "buy"  # out-of-turn buyers are asked buy/pass
    PLAY = "play"  # go down, lay off, swap, borrow, then discard
    CALL = "call"  # the playable-discard window: call/pass
    BONUS = "bonus"  # a bonus caller lays off at most one card, then discards
    GIVE = "give"  # give_cards: every other player gives the discarder a card
    OVER = "over"  # the game has ended


@dataclass(frozen=True, slots=True)
class HandEnd:
    """The table as it was scored at the end of a hand, before the next deal. Public once the
    hand is over: the players show their cards to count their points."""

    hand_number: int
    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    melds: tuple[Meld, ...]
    discard: tuple[Card, ...]
    stock_size: int
    down: tuple[bool, ...]
    buys: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may know. Everything here is public except ``hand`` (the seat's own)."""

    seat: int
    players: tuple[str, ...]
    rules: str
    phase: str
    to_act: tuple[int, ...]
    hand_number: int
    contract: tuple[Contract, ...]  # per seat (differs only under progression 'own')
    dealer: int
    turn: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    known: tuple[tuple[Card, ...], ...]  # cards each seat was seen to take and still holds
    melds: tuple[Meld, ...]
    discard: tuple[Card, ...]
    fresh: bool
    stock_size: int
    down: tuple[bool, ...]
    floating: tuple[bool, ...]
    out: tuple[bool, ...]
    buys: tuple[int, ...]
    progress: tuple[int, ...]
    scores: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    penalties: tuple[int, ...]  # points already owed this hand (rummy points, cut bonus)
    taken: Card | None  # the card the player on turn (or the bonus caller) took from the pile
    must_play: tuple[Card, ...]  # wilds the player on turn swapped out and must still play
    winners: tuple[int, ...]
    # the rest of the public state: what a bot needs to continue the game in a sampled world
    ruleset: RuleSet
    hand_index: int
    asked: tuple[int, ...]  # seats still to be asked in a buy round, window or give round
    window_mode: str
    discarder: int | None
    pending_draw: bool
    reshuffles: int
    turns: int
    final_queue: tuple[int, ...] | None
    bonus_caller: int
    gd_swaps: tuple[Card, ...]
    went_down_now: bool
    need_layoff: bool
    bonus_laid: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat, "players": list(self.players), "rules": self.rules,
            "phase": self.phase, "to_act": list(self.to_act), "hand_number": self.hand_number,
            "contract": [c.to_json() for c in self.contract], "dealer": self.dealer,
            "turn": self.turn, "hand": [card_str(c) for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "known": [[card_str(c) for c in k] for k in self.known],
            # a run also names its suit and the rank its first place stands for: with deuces
            # wild its cards alone may read two ways (2C 2H JK: A-3 of hearts or 2-4 of clubs)
            "melds": [{**m.to_json(), "suit": SUITS[m.key], "low": m.lo} if m.kind == RUN
                      else m.to_json() for m in self.melds],
            "discard": [card_str(c) for c in self.discard], "fresh": self.fresh,
            "stock_size": self.stock_size, "down": list(self.down),
            "floating": list(self.floating), "out": list(self.out), "buys": list(self.buys),
            "progress": list(self.progress), "scores": [list(r) for r in self.scores],
            "totals": list(self.totals), "penalties": list(self.penalties),
            "taken": None if self.taken is None else card_str(self.taken),
            "must_play": [card_str(c) for c in self.must_play], "winners": list(self.winners),
            "discarder": self.discarder, "asked": list(self.asked),
            # the rest of the public state (the rule set itself is not repeated: a bot has it
            # from game_start), so that a bot can rebuild the view and search from it
            "hand_index": self.hand_index, "window_mode": self.window_mode,
            "pending_draw": self.pending_draw, "reshuffles": self.reshuffles,
            "turns_played": self.turns,
            "final_queue": None if self.final_queue is None else list(self.final_queue),
            "bonus_caller": self.bonus_caller,
            "go_down_swaps": [card_str(c) for c in self.gd_swaps],
            "went_down_this_turn": self.went_down_now, "must_lay_off": self.need_layoff,
            "bonus_laid_off": self.bonus_laid,
        }

    @staticmethod
    def from_json(obj: Any, ruleset: RuleSet) -> SeatView:
        """The view ``to_json`` wrote, rebuilt exactly (``ruleset`` is the game's rule set, which
        the JSON names but does not carry). Fields a host of an earlier version left out take
        their values at the start of a turn. ``ValueError`` says what is wrong with bad JSON."""
        try:
            return SeatView._read(obj, ruleset)
        except ValueError:
            raise
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            what = f"missing field {e}" if isinstance(e, KeyError) else str(e)
            raise ValueError(f"not a seat view: {what}") from None

    @staticmethod
    def _read(obj: Any, rules: RuleSet) -> SeatView:
        if not isinstance(obj, dict):
            raise ValueError("not a seat view: a view is a JSON object")

        def ints(value: Any) -> tuple[int, ...]:
            if not isinstance(value, list) or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise ValueError(f"not a seat view: expected a list of numbers, got {value!r}")
            return tuple(value)

        def bools(value: Any) -> tuple[bool, ...]:
            if not isinstance(value, list) or not all(isinstance(v, bool) for v in value):
                raise ValueError(f"not a seat view: expected a list of true/false, got {value!r}")
            return tuple(value)

        def cards(value: Any) -> tuple[Card, ...]:
            if not isinstance(value, list):
                raise ValueError(f"not a seat view: expected a list of cards, got {value!r}")
            return tuple(parse_card(c) for c in value)

        def card(value: Any) -> Card | None:
            return None if value is None else parse_card(value)

        def contract(value: Any) -> Contract:
            return Contract(int(value["sets"]), int(value["runs"]),
                            None if value.get("set_size") is None else int(value["set_size"]),
                            None if value.get("run_size") is None else int(value["run_size"]))

        final_queue = obj.get("final_queue")
        return SeatView(
            seat=int(obj["seat"]), players=tuple(str(p) for p in obj["players"]),
            rules=str(obj["rules"]), phase=str(obj["phase"]), to_act=ints(obj["to_act"]),
            hand_number=int(obj["hand_number"]),
            contract=tuple(contract(c) for c in obj["contract"]), dealer=int(obj["dealer"]),
            turn=int(obj["turn"]), hand=cards(obj["hand"]), hand_sizes=ints(obj["hand_sizes"]),
            known=tuple(cards(k) for k in obj["known"]),
            melds=tuple(SeatView._meld(m, rules) for m in obj["melds"]),
            discard=cards(obj["discard"]), fresh=bool(obj["fresh"]),
            stock_size=int(obj["stock_size"]), down=bools(obj["down"]),
            floating=bools(obj["floating"]), out=bools(obj["out"]), buys=ints(obj["buys"]),
            progress=ints(obj["progress"]), scores=tuple(ints(r) for r in obj["scores"]),
            totals=ints(obj["totals"]), penalties=ints(obj["penalties"]),
            taken=card(obj["taken"]), must_play=cards(obj["must_play"]),
            winners=ints(obj["winners"]), ruleset=rules,
            hand_index=int(obj.get("hand_index", int(obj["hand_number"]) - 1)),
            asked=ints(obj["asked"]), window_mode=str(obj.get("window_mode", "")),
            discarder=None if obj["discarder"] is None else int(obj["discarder"]),
            pending_draw=bool(obj.get("pending_draw", False)),
            reshuffles=int(obj.get("reshuffles", 0)), turns=int(obj.get("turns_played", 0)),
            final_queue=None if final_queue is None else ints(final_queue),
            bonus_caller=int(obj.get("bonus_caller", -1)),
            gd_swaps=cards(obj.get("go_down_swaps", [])),
            went_down_now=bool(obj.get("went_down_this_turn", False)),
            need_layoff=bool(obj.get("must_lay_off", False)),
            bonus_laid=bool(obj.get("bonus_laid_off", False)),
        )

    @staticmethod
    def _meld(obj: Any, rules: RuleSet) -> Meld:
        """A table meld from its JSON (owner, kind, cards; a run's suit and low end): the run
        as named where those fit its cards, otherwise as its cards read under ``rules``."""
        if not isinstance(obj, dict):
            raise ValueError(f"not a meld: {obj!r}")
        owner = int(obj["owner"])
        kind = obj["kind"]
        if kind not in (SET, RUN):
            raise ValueError(f"a meld is a set or a run, not {kind!r}")
        cards = tuple(parse_card(c) for c in obj["cards"])
        suit_text, low = obj.get("suit"), obj.get("low")
        if kind == RUN and suit_text in tuple(SUITS) and isinstance(low, int):
            suit = SUITS.index(suit_text)
            wild = (JOKER, *(make_card(2, s) for s in range(4) if rules.deuces_wild))
            if low >= 1 and low + len(cards) <= 15 and all(
                    c == make_card(low + i, suit) or c in wild for i, c in enumerate(cards)):
                return Meld(owner, RUN, cards, suit, low)
        for m in meld_readings(cards, owner, rules, first_down=False):
            if m.kind == kind and m.cards == cards:
                return m
        raise ValueError(f"{' '.join(card_str(c) for c in cards)} is not a {kind} under "
                         f"these rules")


def stacked_deck(rules: RuleSet, players: int, dealer: int, hands: Sequence[Sequence[Card]],
                 upcard: Card, stock_top: Sequence[Card] = (), contract_no: int = 1,
                 fill_seed: int = 0) -> list[Card]:
    """A whole deck, top first, that deals ``hands[s]`` to seat s, turns ``upcard`` up and has
    ``stock_top`` on top of the stock (first card drawn first); the rest of the pack follows in
    a seeded order. For tests and teaching positions."""
    size = rules.deal_sizes[min(contract_no, len(rules.deal_sizes)) - 1]
    pack = Counter(new_deck(rules.decks_for(players), rules.jokers_per_deck))
    for s in range(players):
        if len(hands[s]) != size:
            raise ValueError(f"seat {s} must be dealt {size} cards, not {len(hands[s])}")
    wanted = [c for h in hands for c in h] + [upcard, *stock_top]
    need = Counter(wanted)
    for c, k in need.items():
        if pack[c] < k:
            raise ValueError(f"the pack holds only {pack[c]} of {card_str(c)}")
    pack.subtract(need)
    rest = sorted(pack.elements())
    random.Random(fill_seed).shuffle(rest)
    deck: list[Card] = []
    for i in range(size):
        for k in range(1, players + 1):
            deck.append(hands[(dealer + k) % players][i])
    return [*deck, upcard, *stock_top, *rest]


class Game:
    """One game: rules + players + seed (or deals) + the actions applied so far."""

    def __init__(self, rules: RuleSet, players: Sequence[str] | int, seed: int = 0,
                 deals: Sequence[Sequence[Card]] | None = None, first_dealer: int = 0) -> None:
        names = [f"P{i}" for i in range(players)] if isinstance(players, int) else list(players)
        n = len(names)
        rules.check_players(n)
        if not 0 <= first_dealer < n:
            raise ValueError(f"first_dealer must be a seat 0..{n - 1}")
        self.rules = rules
        self.players = tuple(names)
        self.n = n
        self.seed = seed
        self.first_dealer = first_dealer
        self.pack = new_deck(rules.decks_for(n), rules.jokers_per_deck)
        self.deals = [list(d) for d in deals] if deals else []
        for i, d in enumerate(self.deals):
            if Counter(d) != Counter(self.pack):
                raise ValueError(f"deals[{i}] is not a whole pack of {len(self.pack)} cards")
        self.rng = random.Random(seed)
        self.actions: list[Action] = []
        self.hand_index = 0  # 0-based position in the hand list (or hands played, 'own')
        self.dealer = first_dealer
        self.scores: list[list[int]] = []
        self.downs: list[tuple[bool, ...]] = []  # per finished hand: who had gone down
        self.last_hand_end: HandEnd | None = None
        self.totals = [0] * n
        self.progress = [0] * n  # contracts completed ('own' progression)
        self.winners: tuple[int, ...] = ()
        self.phase = Phase.DRAW
        self._start_hand()

    # ================================================================ hands and turns ======
    def contract_no(self, seat: int) -> int:
        """1-based contract number that ``seat`` plays this hand."""
        if self.rules.progression == "own":
            return min(self.progress[seat], len(self.rules.contracts) - 1) + 1
        hands = self.rules.hand_list()
        return hands[min(self.hand_index, len(hands) - 1)]

    def contract_for(self, seat: int) -> Contract:
        return self.rules.contracts[self.contract_no(seat) - 1]

    def deal_size(self) -> int:
        rules = self.rules
        if rules.progression == "own":
            return rules.deal_sizes[min(self.hand_index, len(rules.deal_sizes) - 1)]
        return rules.deal_sizes[self.contract_no(0) - 1]

    def _start_hand(self) -> None:
        n = self.n
        if self.hand_index < len(self.deals):
            deck = list(self.deals[self.hand_index])
        else:
            deck = list(self.pack)
            self.rng.shuffle(deck)
        size = self.deal_size()
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        pos = 0
        for _ in range(size):
            for k in range(1, n + 1):
                self.hands[(self.dealer + k) % n].append(deck[pos])
                pos += 1
        self.discard: list[Card] = [deck[pos]]
        self.stock: list[Card] = deck[pos + 1:][::-1]  # top of the stock is the end
        self.melds: list[Meld] = []
        self.down = [False] * n
        self.floating = [False] * n
        self.out = [False] * n
        self.buys = [0] * n
        self.known: list[Counter[Card]] = [Counter() for _ in range(n)]
        self.penalties = [0] * n
        self.reshuffles = 0
        self.turns = 0
        self.final_queue: list[int] | None = None
        self.fresh = True
        self.discarder: int | None = None  # None: the upcard that opens the hand
        self.turn = (self.dealer + 1) % n
        self._reset_turn()
        self.asked: list[int] = []  # seats still to be asked (buy round / window / gives)
        self.pending_draw = False
        self.window_mode = ""
        self.bonus_caller = -1
        if self.rules.cut_bonus:
            self.phase = Phase.CUT
        else:
            self._start_turn((self.dealer + 1) % n)

    def _reset_turn(self) -> None:
        self.taken: Card | None = None
        self.must_play: list[Card] = []
        self.gd_swaps: list[Card] = []  # wilds swapped in just before going down
        self.went_down_now = False
        self.need_layoff = False
        self.bonus_laid = False

    def _start_turn(self, p: int, counted: bool = True) -> None:
        if counted:
            self.turns += 1
        self.turn = p
        self.phase = Phase.DRAW
        self._reset_turn()

    def _next_turn(self) -> None:
        if self.final_queue is not None:
            while self.final_queue:
                q = self.final_queue.pop(0)
                if not self.out[q]:
                    self._start_turn(q, counted=False)
                    return
            self._end_hand()
            return
        if self.turns >= self.rules.turn_limit:
            self._end_hand()
            return
        self._start_turn((self.turn + 1) % self.n)

    def _draw_stock(self) -> Card | None:
        if not self.stock:
            if self.reshuffles >= self.rules.stock_reshuffles or len(self.discard) < 2:
                return None
            self.stock = self.discard[:-1]
            self.discard = self.discard[-1:]
            self.rng.shuffle(self.stock)
            self.reshuffles += 1
        return self.stock.pop()

    def _stock_available(self) -> int:
        """Cards the stock can still give, counting one renewal where renewals remain."""
        extra = max(0, len(self.discard) - 2) if self.reshuffles < self.rules.stock_reshuffles \
            else 0
        return len(self.stock) + extra

    def _player_out(self, p: int) -> None:
        self.out[p] = True
        self.floating[p] = False
        if self.rules.final_turns:
            if self.final_queue is None:
                self.final_queue = [(p + k) % self.n for k in range(1, self.n)]
            self._next_turn()
        else:
            self._end_hand()

    def _end_hand(self) -> None:
        rules = self.rules
        self.last_hand_end = HandEnd(
            self.hand_index + 1, self.dealer, tuple(tuple(h) for h in self.hands),
            tuple(self.melds), tuple(self.discard), len(self.stock), tuple(self.down),
            tuple(self.buys))
        row = []
        for s in range(self.n):
            pts = 0 if self.out[s] else sum(rules.points(c) for c in self.hands[s])
            row.append(pts + self.penalties[s])
        self.scores.append(row)
        self.downs.append(tuple(self.down))
        for s in range(self.n):
            self.totals[s] += row[s]
            if rules.progression == "own" and self.down[s]:
                self.progress[s] += 1
        self.hand_index += 1
        if rules.progression == "own":
            over = (any(p >= len(rules.contracts) for p in self.progress)
                    or self.hand_index >= rules.own_max_hands)
        else:
            over = self.hand_index >= len(rules.hand_list())
        if over:
            self.phase = Phase.OVER
            if rules.progression == "own":
                best = max(self.progress)
                low = min(t for t, p in zip(self.totals, self.progress, strict=True) if p == best)
                self.winners = tuple(s for s in range(self.n)
                                     if self.progress[s] == best and self.totals[s] == low)
            else:
                low = min(self.totals)
                self.winners = tuple(s for s in range(self.n) if self.totals[s] == low)
            return
        self.dealer = (self.dealer + 1) % self.n
        self._start_hand()

    # ================================================================ public surface =======
    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def to_act(self) -> tuple[int, ...]:
        """Seats that may act now (several only in a first-call buy round)."""
        ph = self.phase
        if ph is Phase.OVER:
            return ()
        if ph is Phase.CUT:
            return ((self.dealer - 1) % self.n,)
        if ph in (Phase.DRAW, Phase.PLAY):
            return (self.turn,)
        if ph is Phase.BONUS:
            return (self.bonus_caller,)
        if ph is Phase.BUY and self.rules.buy_priority == "first_call":
            return tuple(self.asked)
        return (self.asked[0],)

    def request_kinds(self, seat: int) -> tuple[str, ...]:
        """What ``seat`` may ask for out of turn now: ``("buy",)`` while the top discard can be
        bought by it (before the player on turn decides, counting the card that player draws,
        or in the buy round it is asked in), ``("call",)`` in a call window it is asked in."""
        return () if self.why_no_request(seat) else (
            ("call",) if self.phase is Phase.CALL else ("buy",))

    def why_no_request(self, seat: int) -> str | None:
        """Why ``seat`` may not ask to buy or call the top discard now (None: it may)."""
        ph = self.phase
        if ph in (Phase.BUY, Phase.CALL):
            if seat in self.asked:
                return None
            what = "buy round" if ph is Phase.BUY else "call window"
            return f"you are not asked in this {what}"
        if ph is not Phase.DRAW or not self.rules.buying or not self.discard or not self.fresh:
            return "there is no discard to buy now"
        return self._buy_refusal(seat, draw=True)

    def hand_number(self) -> int:
        return min(self.hand_index + 1, self._hands_total()) if self.over else self.hand_index + 1

    def _hands_total(self) -> int:
        if self.rules.progression == "own":
            return self.hand_index
        return len(self.rules.hand_list())

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now, except that go-downs and borrows, which can be
        very many, are represented by the best go-down and by 3-card borrows; ``iter_legal``
        lists them all lazily and ``is_legal`` decides any action."""
        if seat not in self.to_act():
            return []
        return list(self._legal(seat, full=False))

    def iter_legal(self, seat: int) -> Iterator[Action]:
        """Every legal action of ``seat``, go-downs and borrows included (lazily)."""
        if seat not in self.to_act():
            return iter(())
        return self._legal(seat, full=True)

    def is_legal(self, action: Action) -> bool:
        try:
            self._check(action)
        except IllegalActionError:
            return False
        return True

    def why_illegal(self, action: Action) -> str | None:
        try:
            self._check(action)
        except IllegalActionError as e:
            return str(e)
        return None

    def canonical(self, action: Action) -> Action:
        """The form ``legal_actions``/``iter_legal`` list a legal action in: sets in output
        order, ``end``/``wild``/``depth`` only where they choose between possibilities."""
        self._check(action)
        a = action
        r = self.rules
        if a.type == "go_down" and a.melds is not None:
            melds = []
            for m in a.melds:
                readings = meld_readings(m, a.player, r)
                sets = [x for x in readings if x.kind == SET]
                melds.append(sets[0].cards if sets and len(readings) == 1 else m)
            return replace(a, melds=tuple(melds))
        if a.type == "borrow" and a.new_meld is not None:
            readings = meld_readings(a.new_meld, a.player, r)
            if len(readings) == 1 and readings[0].kind == SET:
                return replace(a, new_meld=readings[0].cards)
            return a
        if a.type == "lay_off" and a.end is not None and a.card is not None and a.meld is not None:
            if len(layoff_ends(self.melds[a.meld], a.card, r)) == 1:
                return replace(a, end=None)
            return a
        if a.type == "swap_joker" and a.wild is not None and a.card is not None \
                and a.meld is not None:
            if len(swap_options(self.melds[a.meld], a.card, r)) == 1:
                return replace(a, wild=None)
            return a
        if a.type == "buy" and a.depth == 1:
            return replace(a, depth=None)
        if a.type == "call" and a.end is not None and self.discarder is not None:
            opts = [o for o in self._fitting_melds(self.discarder, self.discard[-1])
                    if o[0] == a.meld]
            if len(opts) == 1:
                return replace(a, end=None)
        return a

    def apply(self, action: Action) -> None:
        """Apply a legal action; raise ``IllegalActionError`` (state unchanged) otherwise."""
        plan = self._check(action)
        self.actions.append(action)
        plan()

    def best_go_down(self, seat: int) -> GoDown | None:
        """The solver's best go-down for ``seat`` now, if it may go down."""
        if self.phase is not Phase.PLAY or self.turn != seat or self.down[seat] \
                or self.floating[seat]:
            return None
        return self._best_go_down(seat)

    def _best_go_down(self, seat: int) -> GoDown | None:
        if self.gd_swaps:
            w = self.gd_swaps[0]
            keep = (w, self.hands[seat].count(w) - self.gd_swaps.count(w))
            return best_go_down(self.hands[seat], self.contract_for(seat), self.rules,
                                all_out=self._all_out(seat), keep_at_most=keep,
                                **self._finish_terms())
        return self._go_down_playing(seat, self.hands[seat], self.must_play)

    def _go_down_playing(self, seat: int, hand: list[Card], owed: list[Card]
                         ) -> GoDown | None:
        """The best go-down from ``hand`` that melds every wild ``owed`` to the table: a player
        who is not down can play such a wild (swapped with ``swap_needs_down`` off) only so.
        The owed wilds are all jokers: ``check()`` refuses the rules that could owe a 2 here."""
        keep = None
        if owed:
            w = owed[0]
            keep = (w, hand.count(w) - owed.count(w))
        return best_go_down(hand, self.contract_for(seat), self.rules,
                            all_out=self._all_out(seat), keep_at_most=keep,
                            **self._finish_terms())

    def _finish_terms(self) -> dict[str, Any]:
        """How a go-down must leave the hand so that the turn can still end."""
        r = self.rules
        return {"empty_ok": r.going_out != "discard",
                "banned": self.taken if r.no_discard_of_taken_card else None}

    def _all_out(self, seat: int) -> bool:
        return self.rules.final_all_out and self.contract_no(seat) == 7

    # ================================================================ checking =============
    def _check(self, a: Action) -> Any:
        """Validate ``a``; return a closure that applies it. Never mutates the state."""
        if self.phase is Phase.OVER:
            raise IllegalActionError("the game is over")
        if not 0 <= a.player < self.n:
            raise IllegalActionError(f"there is no seat {a.player}")
        who = self.to_act()
        if a.player not in who:
            names = " or ".join(self.players[s] for s in who)
            raise IllegalActionError(
                f"it is not {self.players[a.player]}'s decision now: waiting for {names} "
                f"({self._phase_words()})")
        handler = _CHECKERS.get((self.phase, a.type))
        if handler is None:
            raise IllegalActionError(
                f"{a.type} is not possible now: {self._phase_words()}; "
                f"possible: {', '.join(sorted({x.type for x in self._legal(a.player, False)}))}")
        return handler(self, a)

    def _phase_words(self) -> str:
        return {
            Phase.CUT: "the cut", Phase.DRAW: "taking the discard or drawing",
            Phase.BUY: "the buy round", Phase.PLAY: "the turn's play and discard",
            Phase.CALL: "calling a playable discard", Phase.BONUS: "the bonus lay-off and discard",
            Phase.GIVE: "giving a card to the discarder", Phase.OVER: "game over",
        }[self.phase]

    # ---- cut ----
    def _check_cut(self, a: Action) -> Any:
        count = a.count
        if count is None or not 1 <= count <= len(self.pack) - 1:
            raise IllegalActionError(f"cut between 1 and {len(self.pack) - 1} cards")

        def do() -> None:
            if count == self.n * self.deal_size() + 1:
                self.penalties[a.player] -= self.rules.cut_bonus
            self._start_turn((self.dealer + 1) % self.n)
        return do

    # ---- draw ----
    def _check_take(self, a: Action) -> Any:
        p = a.player
        if self.floating[p]:
            raise IllegalActionError("you are floating: you must draw from the stock")
        if not self.discard:
            raise IllegalActionError("the discard pile is empty: draw from the stock")
        if self.down[p] and not self.rules.down_may_take_discard:
            raise IllegalActionError("you are down: in these rules you may not take the discard")
        top = self.discard[-1]
        if self.rules.no_discard_of_taken_card and all(c == top for c in self.hands[p]):
            raise IllegalActionError(
                f"you could not discard after taking {card_str(top)} (you may not discard the "
                f"card you took)")

        def do() -> None:
            self.discard.pop()
            self.hands[p].append(top)
            self.known[p][top] += 1
            self.taken = top
            self.fresh = False
            self.phase = Phase.PLAY
        return do

    def _check_draw(self, a: Action) -> Any:
        def do() -> None:
            self._decline_discard(draw=True)
        return do

    def _check_no_draw(self, a: Action) -> Any:
        p = a.player
        r = self.rules
        if not r.layoff_instead_of_draw:
            raise IllegalActionError("these rules have no lay-off instead of drawing")
        if not self.down[p]:
            raise IllegalActionError("only a player who is down may lay off instead of drawing")
        if not self._layoff_gate(p):
            raise IllegalActionError(self._gate_reason(p))
        if not any(self._layoff_keeps_turn(p, c) for c in set(self.hands[p])):
            raise IllegalActionError("you have no card to lay off (and still discard after)")

        def do() -> None:
            self.need_layoff = True
            self._decline_discard(draw=False)
        return do

    def _layoff_keeps_turn(self, p: int, c: Card) -> bool:
        if not any(layoff_ends(m, c, self.rules) for m in self.melds):
            return False
        rest = list(self.hands[p])
        rest.remove(c)
        return self._can_finish(p, rest, [], False)

    def _decline_discard(self, draw: bool) -> None:
        self.pending_draw = draw
        if self.discard and self.fresh and self.rules.buying:
            self.asked = self._buyers(draw)
            if self.asked:
                self.phase = Phase.BUY
                return
        self._finish_draw()

    def _buyers(self, draw: bool) -> list[int]:
        order = [(self.turn + k) % self.n for k in range(1, self.n)]
        return [q for q in order if self._buy_refusal(q, draw) is None]

    def _buy_refusal(self, q: int, draw: bool) -> str | None:
        """Why seat ``q`` is not asked in the buy round over the top discard, in a player's
        words (None: it is asked); ``draw``: the player on turn draws a card from the stock."""
        r = self.rules
        if q == self.turn:
            return "it is your turn: take the discard instead of buying it"
        if q == self.discarder:
            return "you threw that card away: you cannot buy it back"
        if self.out[q]:
            return "you are out"
        if self.floating[q]:
            return "you are floating: you cannot buy"
        if self.down[q] and not r.down_may_take_discard:
            return "you are down: in these rules you may not take the discard"
        if r.max_buys is not None and self.buys[q] >= r.max_buys:
            return f"you have bought {self.buys[q]} times: the limit is {r.max_buys}"
        if self._stock_available() < r.penalty_cards + (1 if draw else 0):
            return "the stock is too low to pay the penalty card"
        return None

    def _finish_draw(self) -> None:
        self.asked = []
        p = self.turn
        self.phase = Phase.PLAY
        if self.pending_draw:
            card = self._draw_stock()
            if card is None:
                self._end_hand()
                return
            self.hands[p].append(card)

    # ---- buy round ----
    def _check_buy(self, a: Action) -> Any:
        depth = 1 if a.depth is None else a.depth
        if depth != 1 and not self.rules.deep_pickup:
            raise IllegalActionError("only the top discard can be bought in these rules")
        if not 1 <= depth <= len(self.discard):
            raise IllegalActionError(f"the discard pile has {len(self.discard)} cards")
        r = self.rules
        need = r.penalty_cards + (1 if self.pending_draw else 0)
        renew = max(0, len(self.discard) - depth - 1) if self.reshuffles < r.stock_reshuffles \
            else 0
        if len(self.stock) + renew < need:
            raise IllegalActionError("the stock is too low to pay the penalty for that depth")
        q = a.player

        def do() -> None:
            taken = self.discard[-depth:]
            del self.discard[-depth:]
            self.hands[q].extend(taken)
            self.known[q].update(taken)
            for _ in range(r.penalty_cards):
                c = self._draw_stock()
                if c is not None:
                    self.hands[q].append(c)
            self.buys[q] += 1
            self.fresh = False
            self._finish_draw()
        return do

    def _check_pass(self, a: Action) -> Any:
        q = a.player

        def do() -> None:
            self.asked.remove(q)
            if self.asked:
                return
            if self.phase is Phase.BUY:
                self._finish_draw()
            else:
                self._next_turn()
        return do

    # ---- play ----
    def _layoff_gate(self, p: int) -> bool:
        r = self.rules
        if not self.down[p]:
            return False
        if self.went_down_now and not r.layoff_same_turn:
            return False
        return not (r.layoff_needs_second_down and sum(self.down) < 2)

    def _gate_reason(self, p: int) -> str:
        if not self.down[p]:
            return "you must go down before you play on the table"
        if self.went_down_now and not self.rules.layoff_same_turn:
            return "you may not play on the table in the turn you go down"
        return "no one lays off until at least two players are down"

    def _can_finish(self, p: int, hand: list[Card], must_play: list[Card], need_layoff: bool,
                    room_used: int = 0) -> bool:
        """Could ``p`` still end the turn (or the bonus) legally holding ``hand``?
        ``room_used``: places at run ends the action itself takes up."""
        if must_play:
            if not any(m.kind == SET for m in self.melds) and sum(
                    13 - len(m.cards) for m in self.melds) - room_used < len(must_play):
                return False  # the wilds taken from the table would have nowhere to go
            hand = list(hand)
            for w in must_play:
                hand.remove(w)
            need_layoff = False
        if need_layoff:
            return any(
                any(layoff_ends(m, c, self.rules) for m in self.melds)
                and self._can_finish(p, [x for i, x in enumerate(hand) if i != hand.index(c)],
                                     [], False)
                for c in set(hand))
        bonus = self.phase is Phase.BONUS
        if not hand:
            return not bonus and self.rules.going_out != "discard"
        banned = self.taken if (bonus or self.rules.no_discard_of_taken_card) else None
        return any(c != banned for c in hand)

    def _meld_at(self, index: int | None) -> Meld:
        if index is None or not 0 <= index < len(self.melds):
            raise IllegalActionError(f"there is no table meld {index} (melds are numbered "
                                     f"0..{len(self.melds) - 1})")
        return self.melds[index]

    def _require_card(self, p: int, card: Card | None) -> Card:
        if card is None:
            raise IllegalActionError("name a card")
        if card not in self.hands[p]:
            raise IllegalActionError(f"you have no {card_str(card)}")
        return card

    def _check_go_down(self, a: Action) -> Any:
        p = a.player
        r = self.rules
        if self.phase is not Phase.PLAY or self.floating[p]:
            raise IllegalActionError("you cannot go down now")
        if self.down[p]:
            raise IllegalActionError("you are already down this hand")
        contract = self.contract_for(p)
        melds = a.melds or ()
        hand = Counter(self.hands[p])
        used = Counter(c for m in melds for c in m)
        for c, k in used.items():
            if hand[c] < k:
                raise IllegalActionError(f"you do not hold {'that many ' if hand[c] else ''}"
                                         f"{card_str(c)}")
        readings = []
        for m in melds:
            opts = meld_readings(m, p, r)
            if not opts:
                raise IllegalActionError(why_not_meld(m, r))
            readings.append(opts)
        chosen = self._match_contract(readings, contract)
        if chosen is None:
            raise IllegalActionError(f"the contract is {contract.describe()}"
                                     f"{'' if not r.extra_melds_at_go_down else ' or more'}")
        rest = list(self.hands[p])
        for c in used.elements():
            rest.remove(c)
        all_out = self._all_out(p)
        if all_out and rest:
            raise IllegalActionError("in the last hand you must meld every card at once")
        for w in set(self.gd_swaps):
            before = self.hands[p].count(w) - self.gd_swaps.count(w)
            if rest.count(w) > before:
                raise IllegalActionError(f"the {card_str(w)} you swapped must be used in the "
                                         f"go-down")
        must = list(self.must_play)
        for c in used.elements():
            if c in must:
                must.remove(c)  # a wild owed to the table is played by melding it
        if must and not (r.layoff_same_turn and not (r.layoff_needs_second_down
                                                     and sum(self.down) < 1)):
            raise IllegalActionError(
                f"meld the {cards_str(must)} you took from the table in your go-down: you could "
                f"not lay it off this turn")
        if not all_out and not self._can_finish(p, rest, must, False):
            raise IllegalActionError("you must keep a card you may discard")

        def do() -> None:
            self.hands[p] = rest
            for c in used.elements():
                if self.known[p][c]:
                    self.known[p][c] -= 1
            self.melds.extend(chosen)
            self.must_play = must
            self.down[p] = True
            self.went_down_now = True
            self.gd_swaps = []
            if all_out:
                self._player_out(p)
            elif not rest:
                self._hand_emptied(p)
        return do

    def _match_contract(self, readings: list[list[Meld]], contract: Contract
                        ) -> list[Meld] | None:
        extra = self.rules.extra_melds_at_go_down

        def rec(i: int, sets: int, runs: int, acc: list[Meld]) -> list[Meld] | None:
            if i == len(readings):
                ok = (sets >= contract.sets and runs >= contract.runs) if extra else \
                    (sets == contract.sets and runs == contract.runs)
                return acc if ok else None
            for m in readings[i]:
                exact = contract.set_size if m.kind == SET else contract.run_size
                if exact is not None and len(m.cards) != exact:
                    continue
                found = rec(i + 1, sets + (m.kind == SET), runs + (m.kind == RUN), [*acc, m])
                if found is not None:
                    return found
            return None
        return rec(0, 0, 0, [])

    def _hand_emptied(self, p: int) -> None:
        """``p`` emptied the hand without a discard (go down, lay off, borrow)."""
        if self.rules.going_out == "empty":
            self._player_out(p)
        else:  # float: the turn ends with no discard; the top of the pile is no longer fresh
            self.floating[p] = True
            self.fresh = False
            self._next_turn()

    def _check_lay_off(self, a: Action) -> Any:
        p = a.player
        r = self.rules
        card = self._require_card(p, a.card)
        meld = self._meld_at(a.meld)
        floater = self.floating[p]
        if self.phase is Phase.BONUS and self.bonus_laid:
            raise IllegalActionError("a bonus caller lays off one card at most")
        if floater:
            pass  # a floater must lay off the drawn card wherever it fits
        elif not self._layoff_gate(p):
            raise IllegalActionError(self._gate_reason(p))
        if self.gd_swaps:
            raise IllegalActionError("after swapping a joker to go down, go down next")
        ends = layoff_ends(meld, card, r)
        if not ends:
            raise IllegalActionError(f"{card_str(card)} does not fit meld {a.meld} ({meld})")
        end = ends[0]
        if a.end is not None:
            if meld.kind == SET:
                raise IllegalActionError("a set has no ends: leave out end")
            if a.end not in ends:
                raise IllegalActionError(f"{card_str(card)} does not fit the {a.end} end of "
                                         f"meld {a.meld}")
            end = a.end
        elif len(ends) > 1:
            raise IllegalActionError(f"{card_str(card)} could go at either end of meld {a.meld}: "
                                     f"say low or high")
        rest = list(self.hands[p])
        rest.remove(card)
        must = list(self.must_play)
        if card in must:
            must.remove(card)
        if not floater and not self._can_finish(p, rest, must, False,
                                                room_used=1 if meld.kind == RUN else 0):
            raise IllegalActionError(
                "you would have no card left that you may discard" if r.going_out == "discard"
                or self.phase is Phase.BONUS else "you would be left unable to finish the turn")

        def do() -> None:
            self.hands[p] = rest
            if self.known[p][card]:
                self.known[p][card] -= 1
            self.melds[a.meld] = lay_off(meld, card, end if meld.kind == RUN else None, r)  # type: ignore[index]
            self.must_play = must
            self.need_layoff = False
            if self.phase is Phase.BONUS:
                self.bonus_laid = True
            if not rest:
                self._hand_emptied(p)
        return do

    def _check_swap(self, a: Action) -> Any:
        p = a.player
        r = self.rules
        card = self._require_card(p, a.card)
        meld = self._meld_at(a.meld)
        if self.phase is not Phase.PLAY or self.floating[p]:
            raise IllegalActionError("you cannot swap a joker now")
        if r.joker_swap == "none":
            raise IllegalActionError("these rules have no joker swaps")
        if meld.kind == SET and r.joker_swap == "runs":
            raise IllegalActionError("in these rules a joker can only be taken from a run")
        at_go_down = not self.down[p] and r.swap_needs_down
        if at_go_down:
            if r.swap_at_go_down <= len(self.gd_swaps):
                raise IllegalActionError(
                    "you must be down to swap a joker" if not r.swap_at_go_down else
                    f"you may swap only {r.swap_at_go_down} joker(s) while going down")
        elif self.down[p] and not self._layoff_gate(p):
            raise IllegalActionError(self._gate_reason(p))
        opts = swap_options(meld, card, r)
        if not opts:
            raise IllegalActionError(f"{card_str(card)} cannot replace a wild in meld {a.meld} "
                                     f"({meld})")
        if a.wild is not None:
            opts = [o for o in opts if o[1] == a.wild]
            if not opts:
                raise IllegalActionError(f"meld {a.meld} has no {card_str(a.wild)} that "
                                         f"{card_str(card)} can replace")
        elif len(opts) > 1:
            raise IllegalActionError(f"meld {a.meld} holds several kinds of wild: name the one "
                                     f"to take")
        place, wild = opts[0]
        rest = list(self.hands[p])
        rest.remove(card)
        rest.append(wild)
        must = list(self.must_play)
        if card in must:
            must.remove(card)  # a wild taken earlier may itself stand for itself now
        if at_go_down:
            keep = (wild, self.hands[p].count(wild) - self.gd_swaps.count(wild))
            if best_go_down(rest, self.contract_for(p), r, all_out=self._all_out(p),
                            keep_at_most=keep, **self._finish_terms()) is None:
                raise IllegalActionError(f"with that swap you could not go down using the "
                                         f"{card_str(wild)}")
        else:
            if r.swapped_joker_must_be_played:
                must.append(wild)
            if must and not self.down[p]:
                # not down (swap_needs_down off): the wild is played by melding it in this
                # turn's go-down, so that go-down must exist
                if self._go_down_playing(p, rest, must) is None:
                    raise IllegalActionError(
                        f"with that swap you could not go down using the {card_str(wild)}, and "
                        f"you must play it this turn")
            elif not self._can_finish(p, rest, must, self.need_layoff):
                raise IllegalActionError("after that swap you could not finish the turn")

        def do() -> None:
            self.hands[p] = rest
            if self.known[p][card]:
                self.known[p][card] -= 1
            self.known[p][wild] += 1
            self.melds[a.meld] = swap(meld, place, card, r)  # type: ignore[index]
            if at_go_down:
                self.gd_swaps.append(wild)
            else:
                self.must_play = must
        return do

    def _check_borrow(self, a: Action) -> Any:
        p = a.player
        r = self.rules
        if not r.borrow:
            raise IllegalActionError("these rules have no borrowing from the table")
        if self.phase is not Phase.PLAY or self.floating[p]:
            raise IllegalActionError("you cannot borrow now")
        if not self._layoff_gate(p):
            raise IllegalActionError(self._gate_reason(p))
        if self.gd_swaps:
            raise IllegalActionError("after swapping a joker to go down, go down next")
        meld = self._meld_at(a.meld)
        card = a.card
        if card is None:
            raise IllegalActionError("name the card to borrow")
        places = borrow_places(meld, card, r)
        if not places:
            raise IllegalActionError(f"{card_str(card)} cannot be taken from meld {a.meld} "
                                     f"({meld}) leaving a valid meld of 3+ cards")
        new = tuple(a.new_meld or ())
        if card not in new:
            raise IllegalActionError(f"the new meld must contain the borrowed {card_str(card)}")
        from_hand = list(new)
        from_hand.remove(card)
        hand = Counter(self.hands[p])
        for c, k in Counter(from_hand).items():
            if hand[c] < k:
                raise IllegalActionError(f"you do not hold {card_str(c)}")
        readings = meld_readings(new, p, r)
        if not readings:
            raise IllegalActionError(why_not_meld(new, r))
        rest = list(self.hands[p])
        for c in from_hand:
            rest.remove(c)
        must = [w for w in self.must_play]
        for c in from_hand:
            if c in must:
                must.remove(c)
        table = list(self.melds)
        table[a.meld] = without(meld, places[0])  # type: ignore[index]
        table.append(readings[0])
        saved, self.melds = self.melds, table  # judge the turn's end on the table after it
        try:
            can_finish = self._can_finish(p, rest, must, self.need_layoff)
        finally:
            self.melds = saved
        if not can_finish:
            raise IllegalActionError("you would be left unable to finish the turn")

        def do() -> None:
            self.hands[p] = rest
            for c in from_hand:
                if self.known[p][c]:
                    self.known[p][c] -= 1
            self.melds = table
            self.must_play = must
            if not rest:
                self._hand_emptied(p)
        return do

    def _check_discard(self, a: Action) -> Any:
        p = a.player
        r = self.rules
        card = self._require_card(p, a.card)
        bonus = self.phase is Phase.BONUS
        if self.floating[p] and self._floater_must_lay_off(p):
            raise IllegalActionError(f"{card_str(card)} fits a meld: a floater must lay it off")
        if self.gd_swaps:
            raise IllegalActionError("after swapping a joker to go down, go down next")
        if self.must_play:
            raise IllegalActionError(f"play the {cards_str(self.must_play)} you took from the "
                                     f"table first")
        if self.need_layoff:
            raise IllegalActionError("you chose to lay off instead of drawing: lay off a card "
                                     "first")
        if card == self.taken and (bonus or r.no_discard_of_taken_card):
            raise IllegalActionError(f"you may not discard the {card_str(card)} you took this "
                                     f"turn")

        def do() -> None:
            self.hands[p].remove(card)
            if self.known[p][card]:
                self.known[p][card] -= 1
            self.discard.append(card)
            self.fresh = True
            self.discarder = p
            if not self.hands[p]:
                self._player_out(p)
                return
            if bonus:
                self._next_turn()
                return
            self._open_window(p, card)
        return do

    def _floater_must_lay_off(self, p: int) -> bool:
        return any(layoff_ends(m, c, self.rules) for m in self.melds for c in self.hands[p])

    # ---- the playable-discard window ----
    def _open_window(self, p: int, card: Card) -> None:
        r = self.rules
        mode = r.playable_discard
        if mode == "standard":
            mode = "take_back" if self.down[p] else "bonus"
        if mode == "none" or (mode != "bonus" and not self.down[p]):
            self._next_turn()
            return
        if not self._fitting_melds(p, card):
            self._next_turn()
            return
        asked = []
        for k in range(1, self.n):
            q = (p + k) % self.n
            if self.out[q] or self.floating[q]:
                continue
            if mode == "bonus" and not (self.down[q] and self.hands[q]):
                continue
            asked.append(q)
        if not asked:
            self._next_turn()
            return
        self.window_mode = mode
        self.asked = asked
        self.phase = Phase.CALL

    def _fitting_melds(self, discarder: int, card: Card) -> list[tuple[int, str | None]]:
        out: list[tuple[int, str | None]] = []
        for i, m in enumerate(self.melds):
            if not self.rules.fits_own_melds and m.owner == discarder:
                continue
            for end in layoff_ends(m, card, self.rules):
                out.append((i, end))
        return out

    def _check_call(self, a: Action) -> Any:
        q = a.player
        d = self.discarder
        assert d is not None
        card = self.discard[-1]
        mode = self.window_mode
        r = self.rules
        if mode == "give_cards":
            opts = self._fitting_melds(d, card)
            if a.meld is None:
                raise IllegalActionError("say on which meld the card goes")
            here = [o for o in opts if o[0] == a.meld]
            if not here:
                raise IllegalActionError(f"{card_str(card)} does not fit meld {a.meld}")
            if a.end is not None:
                here = [o for o in here if o[1] == a.end]
                if not here:
                    raise IllegalActionError(f"{card_str(card)} does not fit the {a.end} end")
            elif len(here) > 1:
                raise IllegalActionError("the card could go at either end: say low or high")
            target = here[0]
        elif a.meld is not None or a.end is not None:
            raise IllegalActionError("this call names no meld")
        if mode == "bonus" and all(c == card for c in self.hands[q]):
            raise IllegalActionError(f"you could not discard after taking {card_str(card)} (the "
                                     f"discard must be another card)")

        def do() -> None:
            self.asked = []
            if mode == "bonus":
                self.discard.pop()
                self.hands[q].append(card)
                self.known[q][card] += 1
                self.bonus_caller = q
                self.taken = card
                self.bonus_laid = False
                self.must_play = []
                self.need_layoff = False
                self.gd_swaps = []
                self.went_down_now = False
                self.phase = Phase.BONUS
            elif mode == "take_back":
                self.discard.pop()
                self.hands[d].append(card)
                self.known[d][card] += 1
                c = self._draw_stock()  # "plus one penalty card", whatever buys cost
                if c is not None:
                    self.hands[d].append(c)
                self.fresh = False
                self._next_turn()
            elif mode == "give_cards":
                self.discard.pop()
                i, end = target
                self.melds[i] = lay_off(self.melds[i], card, end, r)
                self.fresh = False
                self.asked = [(d + k) % self.n for k in range(1, self.n)
                              if len(self.hands[(d + k) % self.n]) >= 2]
                if self.asked:
                    self.phase = Phase.GIVE
                else:
                    self._next_turn()
            else:  # points
                self.penalties[d] += r.rummy_points
                self._next_turn()
        return do

    def _check_give(self, a: Action) -> Any:
        q = a.player
        card = self._require_card(q, a.card)
        d = self.discarder
        assert d is not None

        def do() -> None:
            self.hands[q].remove(card)
            if self.known[q][card]:
                self.known[q][card] -= 1
            self.hands[d].append(card)
            self.known[d][card] += 1
            self.asked.pop(0)
            if not self.asked:
                self._next_turn()
        return do

    # ================================================================ listing ==============
    def _legal(self, seat: int, full: bool) -> Iterator[Action]:
        ph = self.phase
        r = self.rules
        hand = self.hands[seat]
        if ph is Phase.CUT:
            for k in range(1, len(self.pack)):
                yield Action("cut", seat, count=k)
        elif ph is Phase.DRAW:
            if self.floating[seat]:
                yield Action("draw", seat)
                return
            if self.discard and (not self.down[seat] or r.down_may_take_discard) and not (
                    r.no_discard_of_taken_card and all(c == self.discard[-1] for c in hand)):
                yield Action("take_discard", seat)
            yield Action("draw", seat)
            if r.layoff_instead_of_draw and self.down[seat] and self._layoff_gate(seat) and any(
                    self._layoff_keeps_turn(seat, c) for c in set(hand)):
                yield Action("no_draw", seat)
        elif ph is Phase.BUY:
            yield Action("buy", seat)
            if r.deep_pickup:
                for d in range(2, len(self.discard) + 1):
                    a = Action("buy", seat, depth=d)
                    if self.is_legal(a):
                        yield a
            yield Action("pass", seat)
        elif ph is Phase.CALL:
            if self.window_mode == "give_cards":
                assert self.discarder is not None
                opts = self._fitting_melds(self.discarder, self.discard[-1])
                for i, end in opts:
                    both = sum(1 for o in opts if o[0] == i) > 1
                    yield Action("call", seat, meld=i, end=end if both else None)
            elif self.is_legal(Action("call", seat)):
                yield Action("call", seat)
            yield Action("pass", seat)
        elif ph is Phase.GIVE:
            for c in sorted(set(hand)):
                yield Action("give", seat, card=c)
        elif ph in (Phase.PLAY, Phase.BONUS):
            yield from self._legal_play(seat, full)

    def _legal_play(self, p: int, full: bool) -> Iterator[Action]:
        hand = self.hands[p]
        distinct = sorted(set(hand))
        if self.phase is Phase.PLAY and not self.down[p] and not self.floating[p]:
            if full:
                yield from self._iter_go_downs(p)
            else:
                gd = self._best_go_down(p)
                if gd is not None:
                    yield Action("go_down", p, melds=tuple(m for _, m in gd.melds))
            if self.gd_swaps:
                return
        candidates: list[Action] = []
        floater = self.floating[p]
        may_lay = floater or (self._layoff_gate(p) and not (
            self.phase is Phase.BONUS and self.bonus_laid))
        held = set(hand)
        r = self.rules
        deuces = r.deuces_wild
        wild_held = [c for c in held if c == JOKER or (deuces and c % 13 == 1)]
        pairs: list[tuple[Card, int]] = []
        for i, m in enumerate(self.melds) if may_lay else ():
            # only the cards a meld can take are worth checking
            if m.kind == SET:
                wanted = [make_card(m.key, s) for s in range(4)]
            elif len(m.cards) < 13:
                wanted = [make_card(m.lo - 1, m.key) if m.lo > 1 else -1,
                          make_card(m.hi + 1, m.key) if m.hi < 14 else -1]
            else:
                continue
            for c in {*wanted, *wild_held}:
                if c in held:
                    pairs.append((c, i))
        for c, i in sorted(pairs):
            ends = layoff_ends(self.melds[i], c, r)
            if len(ends) == 1:
                candidates.append(Action("lay_off", p, card=c, meld=i))
            elif ends:
                candidates.extend(Action("lay_off", p, card=c, meld=i, end=e) for e in ends)
        if self.phase is Phase.PLAY and r.joker_swap != "none" and not floater:
            swaps: list[tuple[Card, int]] = []
            for i, m in enumerate(self.melds):
                if m.kind == SET and r.joker_swap != "runs_and_sets":
                    continue
                for place, w in enumerate(m.cards):
                    if w == JOKER or (deuces and w % 13 == 1):
                        if m.kind == SET:
                            swaps.extend((make_card(m.key, s), i) for s in range(4))
                        else:
                            swaps.append((m.stands_for(place), i))
            for c, i in sorted(set(swaps)):
                if c not in held:
                    continue
                opts = swap_options(self.melds[i], c, r)
                if len(opts) == 1:
                    candidates.append(Action("swap_joker", p, card=c, meld=i))
                else:
                    candidates.extend(Action("swap_joker", p, card=c, meld=i, wild=w)
                                      for _, w in opts)
        if self.phase is Phase.PLAY and self.rules.borrow and may_lay and not floater:
            candidates.extend(self._borrow_candidates(p, full))
        for a in candidates:
            try:
                _CHECKERS[(self.phase, a.type)](self, a)  # the seat is known to be acting
            except IllegalActionError:
                continue
            yield a
        # discards: the same conditions as _check_discard, judged once for the whole hand
        if self.gd_swaps or self.must_play or self.need_layoff or (
                floater and self._floater_must_lay_off(p)):
            return
        banned = self.taken if (self.phase is Phase.BONUS or r.no_discard_of_taken_card) \
            else None
        for c in distinct:
            if c != banned:
                yield Action("discard", p, card=c)

    def _borrow_candidates(self, p: int, full: bool) -> Iterator[Action]:
        hand = self.hands[p]
        for i, m in enumerate(self.melds):
            for c in sorted(set(m.cards)):
                if not borrow_places(m, c, self.rules):
                    continue
                sizes = range(2, len(hand)) if full else (2,)
                for k in sizes:
                    for combo in sorted(set(combinations(sorted(hand), k))):
                        for new in _orderings(c, combo, self.rules):
                            yield Action("borrow", p, meld=i, card=c, new_meld=new)

    def _iter_go_downs(self, p: int) -> Iterator[Action]:
        """Every legal go-down, each once, melds in a canonical order and arrangement."""
        r = self.rules
        contract = self.contract_for(p)
        hand = self.hands[p]
        seen: set[tuple[tuple[Card, ...], ...]] = set()
        sizes = contract.sets + contract.runs
        groups = _meld_candidates(hand, r)
        pool = Counter(hand)

        def rec(start: int, acc: list[tuple[Card, ...]], pool: Counter[Card]
                ) -> Iterator[list[tuple[Card, ...]]]:
            if len(acc) == sizes or (len(acc) > sizes and r.extra_melds_at_go_down):
                yield list(acc)
            if len(acc) >= sizes and not r.extra_melds_at_go_down:
                return
            for j in range(start, len(groups)):
                m = groups[j]
                need = Counter(m)
                if all(pool[c] >= k for c, k in need.items()):
                    pool.subtract(need)
                    acc.append(m)
                    yield from rec(j, acc, pool)
                    acc.pop()
                    pool.update(need)

        for melds in rec(0, [], pool):
            # the order of the melds numbers them on the table: each order is its own action
            for order in dict.fromkeys(permutations(melds)):
                if order in seen:
                    continue
                seen.add(order)
                a = Action("go_down", p, melds=order)
                if self.is_legal(a):
                    yield a

    # ================================================================ views, records =======
    def view_for(self, seat: int) -> SeatView:
        deuces = self.rules.deuces_wild
        return SeatView(
            seat=seat, players=self.players, rules=self.rules.name, phase=self.phase.value,
            to_act=self.to_act(), hand_number=self.hand_number(),
            contract=tuple(self.contract_for(s) for s in range(self.n)), dealer=self.dealer,
            turn=self.turn, hand=tuple(sorted_cards(self.hands[seat], deuces)),
            hand_sizes=tuple(len(h) for h in self.hands),
            known=tuple(tuple(sorted_cards(k.elements(), deuces)) for k in self.known),
            melds=tuple(self.melds), discard=tuple(self.discard), fresh=self.fresh,
            stock_size=len(self.stock), down=tuple(self.down), floating=tuple(self.floating),
            out=tuple(self.out), buys=tuple(self.buys), progress=tuple(self.progress),
            scores=tuple(tuple(r) for r in self.scores), totals=tuple(self.totals),
            penalties=tuple(self.penalties),
            taken=self.taken, must_play=tuple(self.must_play),
            winners=self.winners, ruleset=self.rules, hand_index=self.hand_index,
            asked=tuple(self.asked), window_mode=self.window_mode, discarder=self.discarder,
            pending_draw=self.pending_draw, reshuffles=self.reshuffles, turns=self.turns,
            final_queue=None if self.final_queue is None else tuple(self.final_queue),
            bonus_caller=self.bonus_caller, gd_swaps=tuple(self.gd_swaps),
            went_down_now=self.went_down_now, need_layoff=self.need_layoff,
            bonus_laid=self.bonus_laid,
        )

    @staticmethod
    def from_view(view: SeatView, rng: random.Random) -> Game:
        """A world consistent with ``view``: the cards hidden from its seat dealt at random to
        the other seats' unknown places and to the stock. The world's RNG is seeded from
        ``rng``. (Searching bots play on from such worlds.)"""
        rules = view.ruleset
        g = Game.__new__(Game)
        n = len(view.players)
        g.rules = rules
        g.players = view.players
        g.n = n
        g.seed = rng.getrandbits(32)
        g.first_dealer = 0
        g.pack = new_deck(rules.decks_for(n), rules.jokers_per_deck)
        g.deals = []
        g.rng = random.Random(g.seed)
        g.actions = []
        g.hand_index = view.hand_index
        g.dealer = view.dealer
        g.scores = [list(r) for r in view.scores]
        g.downs = []
        g.totals = list(view.totals)
        g.progress = list(view.progress)
        g.winners = view.winners
        g.phase = Phase(view.phase)
        hidden = Counter(g.pack)
        hidden.subtract(view.hand)
        hidden.subtract(view.discard)
        for m in view.melds:
            hidden.subtract(m.cards)
        for s, k in enumerate(view.known):
            if s != view.seat:
                hidden.subtract(k)
        pool = sorted(hidden.elements())
        rng.shuffle(pool)
        g.hands = []
        for s in range(n):
            if s == view.seat:
                g.hands.append(list(view.hand))
                continue
            take = view.hand_sizes[s] - len(view.known[s])
            g.hands.append(list(view.known[s]) + pool[:take])
            del pool[:take]
        g.stock = pool[:view.stock_size]
        g.discard = list(view.discard)
        g.melds = list(view.melds)
        g.down = list(view.down)
        g.floating = list(view.floating)
        g.out = list(view.out)
        g.buys = list(view.buys)
        g.known = [Counter(k) for k in view.known]
        g.penalties = list(view.penalties)
        g.reshuffles = view.reshuffles
        g.turns = view.turns
        g.final_queue = None if view.final_queue is None else list(view.final_queue)
        g.fresh = view.fresh
        g.discarder = view.discarder
        g.turn = view.turn
        g.taken = view.taken
        g.must_play = list(view.must_play)
        g.gd_swaps = list(view.gd_swaps)
        g.went_down_now = view.went_down_now
        g.need_layoff = view.need_layoff
        g.bonus_laid = view.bonus_laid
        g.asked = list(view.asked)
        g.pending_draw = view.pending_draw
        g.window_mode = view.window_mode
        g.bonus_caller = view.bonus_caller
        return g

    def cards_in_play(self) -> Counter[Card]:
        """Every card where it lies (hands, table, stock, discard pile), as one multiset: equal
        to the pack whenever the game is sound."""
        out: Counter[Card] = Counter(self.stock)
        out.update(self.discard)
        for h in self.hands:
            out.update(h)
        for m in self.melds:
            out.update(m.cards)
        return out

    def snapshot(self) -> tuple[object, ...]:
        """Everything that makes up the state (the RNG included), for comparing states."""
        return (
            self.phase, self.hand_index, self.dealer, tuple(map(tuple, self.hands)),
            tuple(self.stock), tuple(self.discard), tuple(self.melds), tuple(self.down),
            tuple(self.floating), tuple(self.out), tuple(self.buys),
            tuple(tuple(sorted(k.items())) for k in self.known), tuple(self.penalties),
            self.reshuffles, self.turns, None if self.final_queue is None else
            tuple(self.final_queue), self.fresh, self.discarder, self.turn, self.taken,
            tuple(self.must_play), tuple(self.gd_swaps), self.went_down_now, self.need_layoff,
            self.bonus_laid, tuple(self.asked), self.pending_draw, self.window_mode,
            self.bonus_caller, tuple(map(tuple, self.scores)), tuple(self.totals),
            tuple(self.progress), self.winners, tuple(self.downs), self.rng.getstate(),
        )

    def clone(self) -> Game:
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.hands = [list(h) for h in self.hands]
        g.stock = list(self.stock)
        g.discard = list(self.discard)
        g.melds = list(self.melds)
        for name in ("down", "floating", "out", "buys", "penalties", "totals", "progress",
                     "must_play", "gd_swaps", "asked", "actions"):
            setattr(g, name, list(getattr(self, name)))
        g.known = [Counter(k) for k in self.known]
        g.scores = [list(r) for r in self.scores]
        g.downs = list(self.downs)
        g.final_queue = None if self.final_queue is None else list(self.final_queue)
        g.rng = random.Random()
        g.rng.setstate(self.rng.getstate())
        return g

    def hidden_from(self, seat: int) -> list[Card]:
        """The cards ``seat`` cannot see: others' hands less their known cards, and the stock."""
        out = list(self.stock)
        for s in range(self.n):
            if s != seat:
                rest = Counter(self.hands[s])
                rest.subtract(self.known[s])
                out.extend(rest.elements())
        return out

    def determinized(self, seat: int, rng: random.Random) -> Game:
        """A copy in which the cards hidden from ``seat`` are dealt again at random among the
        places they occupy (others' unknown cards, the stock): a world ``seat`` cannot tell
        from this one."""
        g = self.clone()
        pool = self.hidden_from(seat)
        rng.shuffle(pool)
        for s in range(self.n):
            if s != seat:
                kept = list(self.known[s].elements())
                take = len(self.hands[s]) - len(kept)
                g.hands[s] = kept + pool[:take]
                del pool[:take]
        g.stock = pool
        return g

    def record(self) -> dict[str, Any]:
        from .record import game_record
        return game_record(self)

    def card_total(self) -> int:
        return (sum(len(h) for h in self.hands) + len(self.stock) + len(self.discard)
                + sum(len(m.cards) for m in self.melds))


def _meld_candidates(hand: Sequence[Card], rules: RuleSet) -> list[tuple[Card, ...]]:
    """Every distinct valid first-down meld drawn from ``hand``, in a canonical arrangement
    for sets and every arrangement of wilds for runs."""
    deuces = rules.deuces_wild
    wilds = sorted(c for c in hand if c == JOKER or (deuces and c % 13 == 1))
    pool = Counter(hand)
    out: set[tuple[Card, ...]] = set()
    nat_counts = Counter(c for c in hand if c not in wilds)
    wild_subsets = {tuple(w) for k in range(len(wilds) + 1) for w in combinations(wilds, k)}
    # sets
    ranks = {c % 13 + 1 for c in hand if c != JOKER}
    for rank in ranks:
        naturals = sorted(c for c in hand if c != JOKER and c % 13 + 1 == rank)
        nat_subsets = {tuple(s) for k in range(1, len(naturals) + 1)
                       for s in combinations(naturals, k)}
        for ns in nat_subsets:
            for ws in wild_subsets:
                cards = Counter(ns) + Counter(ws)
                if any(pool[c] < k for c, k in cards.items()):
                    continue
                m = tuple(sorted_cards(cards.elements(), deuces and rank != 2))
                if any(x.kind == SET for x in meld_readings(m, 0, rules)):
                    out.add(m)
    # runs: every window of every suit, naturals where held, wilds elsewhere
    for suit in range(4):
        for lo in range(1, 14):
            for length in range(rules.min_run, 14):
                hi = lo + length - 1
                if hi > 14:
                    break
                targets = [((r - 1) % 13) + suit * 13 if r <= 13 else suit * 13 for r in
                           range(lo, hi + 1)]
                options: list[list[Card]] = []
                for t in targets:
                    opt = []
                    if nat_counts[t] or (deuces and t % 13 == 1 and t in wilds):
                        opt.append(t)
                    opt.extend(sorted(set(wilds)))
                    options.append(opt)
                _expand_runs(options, 0, [], pool, rules, out)
    return sorted(out)


def _expand_runs(options: list[list[Card]], i: int, acc: list[Card], pool: Counter[Card],
                 rules: RuleSet, out: set[tuple[Card, ...]]) -> None:
    if i == len(options):
        m = tuple(acc)
        if any(x.kind == RUN for x in meld_readings(m, 0, rules)):
            out.add(m)
        return
    for c in options[i]:
        if pool[c] > 0:
            pool[c] -= 1
            acc.append(c)
            _expand_runs(options, i + 1, acc, pool, rules, out)
            acc.pop()
            pool[c] += 1


def _orderings(card: Card, combo: tuple[Card, ...], rules: RuleSet) -> list[tuple[Card, ...]]:
    """Valid new melds (notation order) made of ``card`` and the cards of ``combo``."""
    cards = (card, *combo)
    deuces = rules.deuces_wild
    found: list[tuple[Card, ...]] = []
    as_set = tuple(sorted_cards(cards, deuces))
    if any(m.kind == SET for m in meld_readings(as_set, 0, rules)):
        found.append(as_set)
    n = len(cards)
    if n < rules.min_run:
        return found
    naturals = [c for c in cards if not (c == JOKER or (deuces and c % 13 == 1))]
    wilds = [c for c in cards if c == JOKER or (deuces and c % 13 == 1)]
    if not naturals or len({c // 13 for c in naturals}) > 1:
        return found
    for lo in range(1, 16 - n):
        places: dict[int, Card] = {}
        for c in naturals:
            r = c % 13 + 1
            spot = r - lo if lo <= r <= lo + n - 1 else (14 - lo if r == 1 else -1)
            if not 0 <= spot < n or spot in places:
                break
            places[spot] = c
        else:
            free = [i for i in range(n) if i not in places]
            for order in set(permutations(wilds)):
                run = dict(places)
                run.update(zip(free, order, strict=True))
                m = tuple(run[i] for i in range(n))
                if m not in found and any(x.kind == RUN for x in meld_readings(m, 0, rules)):
                    found.append(m)
    return found


_CHECKERS: dict[tuple[Phase, str], Any] = {
    (Phase.CUT, "cut"): Game._check_cut,
    (Phase.DRAW, "take_discard"): Game._check_take,
    (Phase.DRAW, "draw"): Game._check_draw,
    (Phase.DRAW, "no_draw"): Game._check_no_draw,
    (Phase.BUY, "buy"): Game._check_buy,
    (Phase.BUY, "pass"): Game._check_pass,
    (Phase.PLAY, "go_down"): Game._check_go_down,
    (Phase.PLAY, "lay_off"): Game._check_lay_off,
    (Phase.PLAY, "swap_joker"): Game._check_swap,
    (Phase.PLAY, "borrow"): Game._check_borrow,
    (Phase.PLAY, "discard"): Game._check_discard,
    (Phase.BONUS, "lay_off"): Game._check_lay_off,
    (Phase.BONUS, "discard"): Game._check_discard,
    (Phase.CALL, "call"): Game._check_call,
    (Phase.CALL, "pass"): Game._check_pass,
    (Phase.GIVE, "give"): Game._check_give,
}
