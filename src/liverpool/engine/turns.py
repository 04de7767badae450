"""Hands and turns: dealing a hand, passing the turn, the stock and its renewal, scoring the end
of a hand and of the game.

Domain words: *deal* (each hand's deck, from the record's deals or shuffled by the game's RNG),
*dealer*, *turn* (the seat whose regular turn it is; counted against ``turn_limit``), *stock*
(top at the end of the list), *renewal* (the discard pile, less its top card, shuffled into a
new stock), *final turns* (house: after a player goes out, the others play once more),
*contract* (the melds a hand requires; under ``progression: own`` each seat has its own),
*stacked deck* (a deck laid out to deal given hands: for tests and teaching positions).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from ..cards import Card, card_str, new_deck
from ..melds import SET, Meld, layoff_ends
from ..rules import Contract, RuleSet
from .state import GameState, HandEnd, IllegalActionError, Phase


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


class Table(GameState):
    """The turn machinery: dealing, whose turn, the stock, the end of a hand and of the game;
    and the questions every phase asks (may this seat play on the table, can it still end its
    turn)."""

    # ================================================================ hands and turns ======
    def contract_no(self, seat: int) -> int:
        """1-based contract number that ``seat`` plays this hand."""
        return self.rules.contract_number(self.hand_index, self.progress[seat])

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
        self.hands = [[] for _ in range(n)]
        pos = 0
        for _ in range(size):
            for k in range(1, n + 1):
                self.hands[(self.dealer + k) % n].append(deck[pos])
                pos += 1
        self.discard = [deck[pos]]
        self.stock = deck[pos + 1:][::-1]  # top of the stock is the end
        self.melds = []
        self.down = [False] * n
        self.floating = [False] * n
        self.out = [False] * n
        self.buys = [0] * n
        self.known = [Counter() for _ in range(n)]
        self.penalties = [0] * n
        self.reshuffles = 0
        self.turns = 0
        self.final_queue = None
        self.fresh = True
        self.discarder = None  # None: the upcard that opens the hand
        self.turn = (self.dealer + 1) % n
        self._reset_turn()
        self.asked = []  # seats still to be asked (buy round / window / gives)
        self.pending_draw = False
        self.window_mode = ""
        self.bonus_caller = -1
        if self.rules.cut_bonus:
            self.phase = Phase.CUT
        else:
            self._start_turn((self.dealer + 1) % n)

    def _reset_turn(self) -> None:
        self.taken = None
        self.must_play = []
        self.gd_swaps = []  # wilds swapped in just before going down
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
            tuple(self.buys), tuple(self.out))
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

    def hand_number(self) -> int:
        return min(self.hand_index + 1, self._hands_total()) if self.over else self.hand_index + 1

    def _hands_total(self) -> int:
        if self.rules.progression == "own":
            return self.hand_index
        return len(self.rules.hand_list())

    # ================================================================ shared by the phases ===
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

