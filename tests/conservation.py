"""Card conservation, checked without the engine's own counting.

The expected pack is built here from the rules as docs/rules.md states them (Cards and melds: the
decks for the table, each of 52 cards, with ``jokers_per_deck`` jokers each), using only
``make_card``/``JOKER`` and the rule set's ``decks_for`` and ``jokers_per_deck``. The cards found
are counted from what the players can see, each seat's ``view_for(seat)``: every seat's own hand,
the melds and the discard pile; plus ``game.stock``, the one pile nobody sees. No engine helper
that counts cards (``Game.cards_in_play``, ``Game.card_total``, ``soak.cards_seen``,
``soak.pack_of``) is used, so a bug shared by the engine and those helpers cannot hide here.
"""

from __future__ import annotations

from collections import Counter

from liverpool.cards import JOKER, Card, card_str, make_card
from liverpool.engine import Game, SeatView
from liverpool.rules import RuleSet

RANKS = range(1, 14)  # A..K
SUITS = range(4)  # S H D C


def expected_pack(rules: RuleSet, players: int) -> Counter[Card]:
    """decks x (the 52 cards + the jokers of a deck), from the rules alone."""
    decks = rules.decks_for(players)
    pack: Counter[Card] = Counter()
    for suit in SUITS:
        for rank in RANKS:
            pack[make_card(rank, suit)] += decks
    pack[JOKER] += decks * rules.jokers_per_deck
    return pack


def views_of(game: Game) -> list[SeatView]:
    return [game.view_for(seat) for seat in range(len(game.players))]


def counted_cards(game: Game) -> Counter[Card]:
    """Each seat's own hand from its view, the melds and the pile from a view, and the stock."""
    views = views_of(game)
    found: Counter[Card] = Counter(game.stock)
    for view in views:
        found.update(view.hand)
    public = views[0]
    for meld in public.melds:
        found.update(meld.cards)
    found.update(public.discard)
    return found


def _describe(cards: Counter[Card]) -> str:
    return ", ".join(f"{k} x {card_str(c)}" for c, k in sorted(cards.items())) or "none"


def assert_cards_conserved(game: Game, where: str = "") -> None:
    """Every card of the pack is in exactly one place a player can see, or in the stock."""
    views = views_of(game)
    at = f"{where}: " if where else ""
    # the views agree with each other on what is public, and with the stock's size
    for view in views:
        assert view.melds == views[0].melds and view.discard == views[0].discard, \
            f"{at}seat {view.seat} sees another table than seat 0"
        assert view.stock_size == len(game.stock), \
            f"{at}seat {view.seat} is told the stock holds {view.stock_size}, not " \
            f"{len(game.stock)}"
        sizes = tuple(len(v.hand) for v in views)
        assert view.hand_sizes == sizes, \
            f"{at}seat {view.seat} is told hand sizes {view.hand_sizes}, the hands hold {sizes}"
    pack = expected_pack(game.rules, len(game.players))
    found = counted_cards(game)
    lost, made = pack - found, found - pack
    assert not lost and not made, \
        f"{at}cards lost: {_describe(lost)}; cards made: {_describe(made)}"
