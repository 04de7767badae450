"""The start of a turn: the cut (cut_bonus), taking the discard or drawing (or laying off
instead of drawing), and the buy round over a discard the player on turn declined; who may ask
to buy it out of turn.

Domain words: *take* (the player on turn takes the top discard), *draw* (from the stock),
*no draw* (layoff_instead_of_draw), *fresh* (the top discard was just thrown: it may be
bought), *buy round* (out-of-turn seats asked buy/pass, by seat or first call), *penalty cards*
(drawn from the stock with a bought card), *deep pickup* (buying below the top card).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..actions import Action
from ..cards import Card, card_str
from ..melds import layoff_ends
from .play import PlayRules
from .state import IllegalActionError, Phase


class DrawRules(PlayRules):
    """Checks of the cut, draw and buy phases, their listing, and out-of-turn eligibility."""

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
        if self.request_window() is None:
            return "there is no discard to buy now"
        return self._buy_refusal(seat, draw=True)

    def request_window(self) -> tuple[str, int, int] | None:
        """The out-of-turn window open now, as ``(kind, hand, turn)``: ``"buy"`` while the top
        discard may still be bought (from the moment it is thrown, while the player on turn
        decides, until the buy round over it ends), ``"call"`` in a call window; None when no
        discard may be asked for. Equal values mean the same window: a request made in one
        means nothing in the next."""
        ph = self.phase
        if ph is Phase.CALL:
            return ("call", self.hand_index, self.turns)
        if ph in (Phase.DRAW, Phase.BUY) and self.rules.buying and self.discard and self.fresh:
            return ("buy", self.hand_index, self.turns)
        return None

    # ---- cut ----
    def _check_cut(self, a: Action) -> None:
        count = a.count
        if count is None or not 1 <= count <= len(self.pack) - 1:
            raise IllegalActionError(f"cut between 1 and {len(self.pack) - 1} cards")

    def _do_cut(self, a: Action) -> None:
        if a.count == self.n * self.deal_size() + 1:
            self.penalties[a.player] -= self.rules.cut_bonus
        self._start_turn((self.dealer + 1) % self.n)

    # ---- draw ----
    def _check_take(self, a: Action) -> None:
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

    def _do_take(self, a: Action) -> None:
        p = a.player
        top = self.discard.pop()
        self.hands[p].append(top)
        self.known[p][top] += 1
        self.taken = top
        self.fresh = False
        self.phase = Phase.PLAY

    def _check_no_draw(self, a: Action) -> None:
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

    def _do_draw(self, a: Action) -> None:
        self._decline_discard(draw=True)

    def _do_no_draw(self, a: Action) -> None:
        self.need_layoff = True
        self._decline_discard(draw=False)

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
    def _check_buy(self, a: Action) -> None:
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

    def _do_buy(self, a: Action) -> None:
        q = a.player
        depth = 1 if a.depth is None else a.depth
        taken = self.discard[-depth:]
        del self.discard[-depth:]
        self.hands[q].extend(taken)
        self.known[q].update(taken)
        for _ in range(self.rules.penalty_cards):
            c = self._draw_stock()
            if c is not None:
                self.hands[q].append(c)
        self.buys[q] += 1
        self.fresh = False
        self._finish_draw()

    def _do_pass(self, a: Action) -> None:
        self.asked.remove(a.player)
        if self.asked:
            return
        if self.phase is Phase.BUY:
            self._finish_draw()
        else:
            self._next_turn()

    def _legal_cut(self, seat: int) -> Iterator[Action]:
        for k in range(1, len(self.pack)):
            yield Action("cut", seat, count=k)

    def _legal_draw(self, seat: int) -> Iterator[Action]:
        r = self.rules
        hand = self.hands[seat]
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

    def _legal_buy(self, seat: int) -> Iterator[Action]:
        yield Action("buy", seat)
        if self.rules.deep_pickup:
            for d in range(2, len(self.discard) + 1):
                a = Action("buy", seat, depth=d)
                if self._passes(self._check_buy, a):
                    yield a
        yield Action("pass", seat)
