"""The game: a whole Liverpool game as a deterministic state machine, and its public surface.

Domain words: *hand* (one deal, with its contract; also the cards a seat holds), *turn*, *phase*
(the decision point the game waits at, docs/rules.md, Phases), *legal actions* (what a seat may
do now; go-downs and borrows, which can be very many, by representatives), *check* (validate an
action and return what applying it does), *view* (what one seat may know), *world* (a game a
seat cannot tell from the real one: the cards hidden from it dealt again), *snapshot*.

``Game`` holds the whole state (engine.state), including the seeded RNG (``random.Random``,
Mersenne Twister, seeded with the game's integer seed; each hand's deck is the unshuffled pack of
``cards.new_deck`` shuffled by ``rng.shuffle`` unless the record gives the deal; stock renewals
shuffle with the same RNG). Each phase's checks and listing live in their own module (draw,
play, calls), its turn machinery in ``turns``. Interfaces use the surface docs/engine.md lists
(``legal_actions``, ``is_legal``, ``apply`` and its events, ``view_for``, a few read-only facts);
nothing else leaves the engine.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import islice, product
from typing import Any

from ..actions import Action
from ..cards import Card, new_deck, sorted_cards
from ..melds import SET, arrangements, layoff_ends, meld_readings, swap_options
from ..rules import RuleSet
from .draw import DrawRules
from .events import Event, HandStarted, before, hand_started, happened
from .play import NextMelds
from .state import (
    STATE_FIELDS,
    IllegalActionError,
    Phase,
    copy_state,
    set_public_fields,
    snapshot,
)
from .view import SeatView, unseen_cards


class Game(DrawRules):
    """One game: rules + players + seed (or deals) + the actions applied so far."""

    def __init__(self, rules: RuleSet, players: Sequence[str] | int, seed: int = 0,
                 deals: Sequence[Sequence[Card]] | None = None, first_dealer: int = 0,
                 search_budget: int | None = None) -> None:
        if isinstance(players, int):
            rules.check_players(players)  # before making that many names
            names = [f"P{i}" for i in range(players)]
        else:
            names = list(players)
        n = len(names)
        rules.check_players(n)
        if not 0 <= first_dealer < n:
            raise ValueError(f"first_dealer must be a seat 0..{n - 1}")
        self.rules = rules
        self.players = tuple(names)
        self.n = n
        self.seed = seed
        self.first_dealer = first_dealer
        self.search_budget = search_budget
        self.pack = new_deck(rules.decks_for(n), rules.jokers_per_deck)
        self.deals = [list(d) for d in deals] if deals else []
        for i, d in enumerate(self.deals):
            if Counter(d) != Counter(self.pack):
                raise ValueError(f"deals[{i}] is not a whole pack of {len(self.pack)} cards")
        self.rng = random.Random(seed)
        self.actions = []
        self.hand_index = 0  # 0-based position in the hand list (or hands played, 'own')
        self.dealer = first_dealer
        self.scores = []
        self.downs = []  # per finished hand: who had gone down
        self.last_hand_end = None
        self.totals = [0] * n
        self.progress = [0] * n  # contracts completed ('own' progression)
        self.winners = ()
        self.phase = Phase.DRAW
        self._start_hand()
    def legal_actions(self, seat: int, best: bool = True) -> list[Action]:
        """Every legal action of ``seat`` now, except that go-downs and borrows, which can be
        very many, are represented by the best go-down and by 3-card borrows; ``iter_legal``
        lists them all lazily and ``is_legal`` decides any action. ``best=False``: the go-down
        listed is the first the solver finds, not the best (for a caller that only needs to
        know whether the seat can go down: far faster for a long hand)."""
        if seat not in self.to_act():
            return []
        return list(self._legal(seat, full=False, best=best))

    def iter_legal(self, seat: int) -> Iterator[Action]:
        """Every legal action of ``seat``, go-downs and borrows included (lazily)."""
        if seat not in self.to_act():
            return iter(())
        return self._legal(seat, full=True)

    def go_down_combinations(self, seat: int) -> Iterator[Action]:
        """Every legal go-down of ``seat`` once per combination of melds (lazily).
        ``iter_legal`` lists every order of them as well, since the order numbers the melds on
        the table; any order of a legal go-down's melds is legal."""
        if not self._may_go_down(seat):
            return iter(())
        return self._go_down_combinations(seat)

    def borrows(self, seat: int) -> list[Action]:
        """Every legal borrow of ``seat`` now (``iter_legal`` lists them after its go-downs,
        which can be very many)."""
        if seat not in self.to_act() or self.phase is not Phase.PLAY or not self.rules.borrow:
            return []
        return [a for a in self._borrow_candidates(seat, True) if self._passes(self._check_play, a)]

    def go_down_next(self, seat: int, melds: Sequence[tuple[Card, ...]] = ()
                     ) -> tuple[list[tuple[Card, ...]], bool]:
        """For a go-down chosen meld by meld: the melds that can follow ``melds`` in a legal
        go-down of ``seat`` (each meld's cards in an order the rules accept), and whether
        ``melds`` alone is a legal go-down. Nothing, False when ``seat`` cannot go down now."""
        step = self.next_melds(seat, melds)
        return ([], False) if step is None else (step.following(), step.whole)

    def next_melds(self, seat: int, melds: Sequence[tuple[Card, ...]] = ()) -> NextMelds | None:
        """``go_down_next`` answered lazily: its candidates, each checked only when
        ``follows`` asks (a chooser wanting one meld per next card asks a few of hundreds);
        None when ``seat`` cannot go down now."""
        if not self._may_go_down(seat):
            return None
        return NextMelds(self, seat, melds)

    def _may_go_down(self, seat: int) -> bool:
        """Whether ``seat`` is at its play, not down and not floating: where a go-down is
        listed at all."""
        return seat in self.to_act() and self.phase is Phase.PLAY and not self.down[seat] \
            and not self.floating[seat]

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

    def arranged(self, action: Action, tries: int = 400) -> Action:
        """``action`` (a go-down or a borrow) with each new meld's cards in an order the rules
        accept, for people, who pick cards rather than orders: the first legal choice of each
        meld as given or as one of its ``melds.arrangements`` (at most ``tries`` go-downs);
        ``action`` itself when it is legal as given or no arrangement is (its reason is then
        the one ``why_illegal`` gives)."""
        if self.is_legal(action) or not self._holds_picked(action):
            return action
        rules = self.rules
        if action.type == "go_down" and action.melds:
            options = [list(dict.fromkeys((tuple(m), *arrangements(m, rules))))
                       for m in action.melds]
            for combo in islice(product(*options), tries):
                a = action.replace(melds=tuple(combo))
                if self.is_legal(a):
                    return a
        if action.type == "borrow" and action.new_meld:
            for new in arrangements(action.new_meld, rules)[:tries]:
                a = action.replace(new_meld=new)
                if self.is_legal(a):
                    return a
        return action

    def _holds_picked(self, action: Action) -> bool:
        """Whether the acting seat holds the cards a go-down or a borrow's new meld names (the
        borrowed card comes from the table): cards it does not hold make the action illegal
        whatever their order, and arranging them could cost a great deal of time."""
        if not 0 <= action.player < self.n:
            return False
        picked: list[Card] = []
        if action.type == "go_down":
            picked = [c for m in action.melds or () for c in m]
        elif action.type == "borrow":
            picked = list(action.new_meld or ())
            if action.card in picked:
                picked.remove(action.card)
        held = Counter(self.hands[action.player])
        return all(held[c] >= k for c, k in Counter(picked).items())

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
            return a.replace(melds=tuple(melds))
        if a.type == "borrow" and a.new_meld is not None:
            readings = meld_readings(a.new_meld, a.player, r)
            if len(readings) == 1 and readings[0].kind == SET:
                return a.replace(new_meld=readings[0].cards)
            return a
        if a.type == "lay_off" and a.end is not None and a.card is not None and a.meld is not None:
            if len(layoff_ends(self.melds[a.meld], a.card, r)) == 1:
                return a.replace(end=None)
            return a
        if a.type == "swap_joker" and a.wild is not None and a.card is not None \
                and a.meld is not None:
            if len(swap_options(self.melds[a.meld], a.card, r)) == 1:
                return a.replace(wild=None)
            return a
        if a.type == "buy" and a.depth == 1:
            return a.replace(depth=None)
        if a.type == "call" and a.end is not None and self.discarder is not None:
            opts = [o for o in self._fitting_melds(self.discarder, self.discard[-1])
                    if o[0] == a.meld]
            if len(opts) == 1:
                return a.replace(end=None)
        return a

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Apply a legal action and return what happened (engine.events: the action's event,
        then what followed from it); raise ``IllegalActionError`` (state unchanged) otherwise."""
        plan = self._check(action)
        return self._apply_checked(action, plan)

    def prepare(self, action: Action) -> Callable[[], tuple[Event, ...]]:
        """Check ``action`` now (``IllegalActionError``, state unchanged, when it is illegal)
        and return what applies it (and returns its events), for a caller with something to do
        in between (a server stores the action first). Apply it before anything else changes
        the game."""
        plan = self._check(action)

        def do() -> tuple[Event, ...]:
            return self._apply_checked(action, plan)
        return do

    def _apply_checked(self, action: Action, plan: object) -> tuple[Event, ...]:
        noted = before(self, action)
        self.actions.append(action)
        self._carry_out(action, plan)
        return happened(self, action, noted)

    def hand_started(self) -> HandStarted:
        """The event of the hand now in progress as it was dealt (the first hand's deal has no
        action to return it)."""
        return hand_started(self)

    # ================================================================ checking =============
    def _check(self, a: Action) -> object:
        """Validate ``a``; return its plan (what the check worked out that applying it uses).
        Never mutates the state. Each action type has its check and its application side by
        side in the phase's module (``_check_X`` and ``_do_X``)."""
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
        kind = a.type
        if kind not in ACTIONS_BY_PHASE[self.phase]:
            raise IllegalActionError(
                f"{kind} is not possible now: {self._phase_words()}; "
                f"possible: {', '.join(sorted({x.type for x in self._legal(a.player, False)}))}")
        if kind == "draw" or kind == "pass":
            return None
        if kind == "take_discard":
            self._check_take(a)
            return None
        if kind == "buy":
            self._check_buy(a)
            return None
        if kind == "call":
            return self._check_call(a)
        if kind == "give":
            self._check_give(a)
            return None
        if kind == "cut":
            self._check_cut(a)
            return None
        if kind == "no_draw":
            self._check_no_draw(a)
            return None
        return self._check_play(a)

    def _carry_out(self, a: Action, plan: Any) -> None:
        """Apply ``a``, checked by ``_check`` into ``plan``, to the state."""
        kind = a.type
        if kind == "discard":
            self._do_discard(a)
        elif kind == "draw":
            self._do_draw(a)
        elif kind == "take_discard":
            self._do_take(a)
        elif kind == "pass":
            self._do_pass(a)
        elif kind == "buy":
            self._do_buy(a)
        elif kind == "lay_off":
            self._do_lay_off(a, plan)
        elif kind == "go_down":
            self._do_go_down(a, plan)
        elif kind == "call":
            self._do_call(a, plan)
        elif kind == "swap_joker":
            self._do_swap(a, plan)
        elif kind == "borrow":
            self._do_borrow(a, plan)
        elif kind == "give":
            self._do_give(a)
        elif kind == "cut":
            self._do_cut(a)
        else:
            self._do_no_draw(a)

    def _phase_words(self) -> str:
        return {
            Phase.CUT: "the cut", Phase.DRAW: "taking the discard or drawing",
            Phase.BUY: "the buy round", Phase.PLAY: "the turn's play and discard",
            Phase.CALL: "calling a playable discard", Phase.BONUS: "the bonus lay-off and discard",
            Phase.GIVE: "giving a card to the discarder", Phase.OVER: "game over",
        }[self.phase]

    # ================================================================ listing ==============
    def _legal(self, seat: int, full: bool, best: bool = True) -> Iterator[Action]:
        ph = self.phase
        if ph is Phase.PLAY or ph is Phase.BONUS:
            return self._legal_play(seat, full, best)
        if ph is Phase.DRAW:
            return self._legal_draw(seat)
        if ph is Phase.BUY:
            return self._legal_buy(seat)
        if ph is Phase.CALL:
            return self._legal_call(seat)
        if ph is Phase.GIVE:
            return self._legal_give(seat)
        if ph is Phase.CUT:
            return self._legal_cut(seat)
        return iter(())

    # ================================================================ views, worlds ========
    def held(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds, in the order they came (``view_for(seat).hand`` sorts
        them): for a host that caches what it shows of a hand until the hand changes."""
        return tuple(self.hands[seat])

    def view_for(self, seat: int | None) -> SeatView:
        """What ``seat`` may know; ``None``: a spectator's view, the public state alone (no
        hand)."""
        deuces = self.rules.deuces_wild
        final_queue = self.final_queue
        # the public fields (``state.PUBLIC_FIELDS``) frozen as ``public_fields`` freezes them,
        # written out: a view is made at every decision (a test checks the two agree)
        return SeatView(
            seat=seat, rules=self.rules.name, phase=self.phase.value, to_act=self.to_act(),
            hand_number=self.hand_number(),
            contract=tuple([self.contract_for(s) for s in range(self.n)]),
            hand=() if seat is None else tuple(sorted_cards(self.hands[seat], deuces)),
            hand_sizes=tuple([len(h) for h in self.hands]),
            known=tuple([_listed(k, deuces) for k in self.known]),
            stock_size=len(self.stock), ruleset=self.rules,
            players=self.players, hand_index=self.hand_index, dealer=self.dealer,
            scores=tuple([tuple(x) for x in self.scores]), totals=tuple(self.totals),
            progress=tuple(self.progress), winners=self.winners, discard=tuple(self.discard),
            melds=tuple(self.melds), down=tuple(self.down), floating=tuple(self.floating),
            out=tuple(self.out), buys=tuple(self.buys), penalties=tuple(self.penalties),
            reshuffles=self.reshuffles, turns=self.turns,
            final_queue=None if final_queue is None else tuple(final_queue), fresh=self.fresh,
            discarder=self.discarder, turn=self.turn, asked=tuple(self.asked),
            pending_draw=self.pending_draw, window_mode=self.window_mode,
            bonus_caller=self.bonus_caller, taken=self.taken, must_play=tuple(self.must_play),
            gd_swaps=tuple(self.gd_swaps), went_down_now=self.went_down_now,
            need_layoff=self.need_layoff, bonus_laid=self.bonus_laid)

    @staticmethod
    def from_view(view: SeatView, rng: random.Random) -> Game:
        """A world consistent with ``view``: the cards hidden from its seat dealt at random to
        the other seats' unknown places and to the stock. The world's RNG is seeded from
        ``rng``. (Searching bots play on from such worlds.)"""
        rules = view.ruleset
        g: Game = _Blank()
        n = len(view.players)
        # the fields a view hides or derives: a fresh game's, or rebuilt from what it shows
        g.rules = rules
        g.n = n
        g.seed = rng.getrandbits(32)
        g.first_dealer = 0
        g.search_budget = None  # a seat's own imagined game: exact
        g.pack = new_deck(rules.decks_for(n), rules.jokers_per_deck)
        g.deals = []
        g.rng = random.Random(g.seed)
        g.actions = []
        g.downs = []
        g.last_hand_end = None
        g.phase = Phase(view.phase)
        set_public_fields(g, view)
        hidden = unseen_cards(view)
        # shuffled by sorting on a random key per card: a uniform shuffle like ``rng.shuffle``,
        # a few times faster here, where worlds are sampled by the thousand
        pool = [c for _, c in sorted([(rng.random(), c) for c in sorted(hidden.elements())])]
        g.hands = []
        for s in range(n):
            if s == view.seat:
                g.hands.append(list(view.hand))
                continue
            take = view.hand_sizes[s] - len(view.known[s])
            g.hands.append(list(view.known[s]) + pool[:take])
            del pool[:take]
        g.stock = pool[:view.stock_size]
        g.known = [Counter(k) for k in view.known]
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

    def card_total(self) -> int:
        return (sum(len(h) for h in self.hands) + len(self.stock) + len(self.discard)
                + sum(len(m.cards) for m in self.melds))

    def snapshot(self) -> tuple[object, ...]:
        """Everything that makes up the state (the RNG included), for comparing states."""
        return snapshot(self)

    def clone(self) -> Game:
        g: Game = _Blank()
        copy_state(self, g)
        return g

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # pickled and deep-copied as its declared fields (the compiled core's classes cannot be
        # made without __init__, which the default way of unpickling does)
        return _game_with, ({name: getattr(self, name) for name, *_ in STATE_FIELDS},)

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


def _game_with(fields: dict[str, Any]) -> Game:
    """A game made of ``fields`` (what ``Game.__reduce__`` gives pickle)."""
    g: Game = _Blank()
    for name, value in fields.items():
        setattr(g, name, value)
    return g


class _Blank(Game):
    """A game whose every field is still to be set (by ``clone`` or ``from_view``): the
    compiled core cannot make an instance without running ``__init__``, which deals a hand."""

    def __init__(self) -> None:  # every field is set by the caller, nothing here
        pass


ACTIONS_BY_PHASE: dict[Phase, frozenset[str]] = {
    Phase.CUT: frozenset({"cut"}),
    Phase.DRAW: frozenset({"take_discard", "draw", "no_draw"}),
    Phase.BUY: frozenset({"buy", "pass"}),
    Phase.PLAY: frozenset({"go_down", "lay_off", "swap_joker", "borrow", "discard"}),
    Phase.BONUS: frozenset({"lay_off", "discard"}),
    Phase.CALL: frozenset({"call", "pass"}),
    Phase.GIVE: frozenset({"give"}),
    Phase.OVER: frozenset(),
}


def _listed(known: Counter[Card], deuces: bool) -> tuple[Card, ...]:
    """A seat's known cards in hand order (a card taken and played since is kept at 0)."""
    cards = [c for c, k in known.items() for _ in range(k)]
    return tuple(sorted_cards(cards, deuces)) if cards else ()
