"""Cards, ranks, suits, jokers and the card notation of docs/rules.md (Notation).

A card is a small int (``Card``): ``suit * 13 + rank - 1`` for the 52 suited cards (suits in the
order S H D C, ranks A=1 .. K=13) and ``JOKER`` (52) for a joker. Cards of several decks are
interchangeable, so a hand is a multiset of these ints. Ints keep the engine and the solver fast;
``parse_card`` and ``card_str`` convert to and from the notation (``10H``, ``AS``, ``JK``).

Domain words: *card*, *rank*, *suit*, *joker*, *wild* (a joker, or a 2 where 2s are wild:
``is_wild`` is the one test every module uses).
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int

SUITS = "SHDC"
RANK_NAMES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER: Card = 52
NUM_KINDS = 53  # 52 suited cards and the joker
ACE = 1
DEUCE = 2

_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
_RANK_INPUT = {name: rank for rank, name in enumerate(RANK_NAMES) if name}
_RANK_INPUT["T"] = 10


class CardError(ValueError):
    """A text that is not a card in the notation."""


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (1..13, or 14 for a high ace) and ``suit`` (0..3)."""
    if rank == 14:
        rank = ACE
    return suit * 13 + rank - 1


def rank_of(card: Card) -> int:
    """1..13 (A..K); 0 for a joker."""
    return 0 if card == JOKER else card % 13 + 1


def suit_of(card: Card) -> int:
    """0..3 (S H D C); -1 for a joker."""
    return -1 if card == JOKER else card // 13


def card_str(card: Card) -> str:
    if card == JOKER:
        return "JK"
    if not 0 <= card < 52:
        raise CardError(f"no card has code {card}")
    return RANK_NAMES[card % 13 + 1] + SUITS[card // 13]


def parse_card(text: object) -> Card:
    """Parse one card: ``10H``, ``TH``, ``th``, ``10♥``, ``JK`` (any case). Anything else, of
    any type (it often comes from a client's JSON), is a ``CardError``; the parameter is typed
    ``object`` because the compiled core would refuse a non-text with a ``TypeError`` at the
    call, before the check below could say what is wrong."""
    if not isinstance(text, str):
        raise CardError(f"a card must be written as text, not {text!r}")
    t = text.strip().upper()
    if t in ("JK", "JOKER"):
        return JOKER
    if len(t) < 2:
        raise CardError(f"{text!r} is not a card (write rank then suit, like 7H, 10S or JK)")
    suit_ch = _SUIT_SYMBOLS.get(t[-1], t[-1])
    rank_txt = t[:-1]
    if suit_ch not in SUITS:
        raise CardError(f"{text!r} is not a card: unknown suit {t[-1]!r} (use S H D C)")
    rank = _RANK_INPUT.get(rank_txt)
    if rank is None:
        raise CardError(f"{text!r} is not a card: unknown rank {rank_txt!r} (use A 2-10 J Q K)")
    return make_card(rank, SUITS.index(suit_ch))


def parse_cards(texts: Iterable[object] | str) -> list[Card]:
    """Parse several cards, from a list of texts or one space-separated text."""
    if isinstance(texts, str):
        texts = texts.split()
    return [parse_card(t) for t in texts]


def cards_str(cards: Iterable[Card]) -> str:
    return " ".join(card_str(c) for c in cards)


def is_wild(card: Card, deuces_wild: bool) -> bool:
    """Whether ``card`` is a wild: a joker, or a 2 where ``deuces_wild``. The one definition
    (melds, solver, bots and the terminal all ask here); a wild 2 may still stand for itself
    in a run of its suit or a set of 2s, which only a meld can tell."""
    return card == JOKER or (deuces_wild and card % 13 == 1)


def wild_cards(deuces_wild: bool) -> frozenset[Card]:
    """Every card that ``is_wild`` under ``deuces_wild``: for loops over many cards, where
    ``c in wilds`` is quicker than a call (it is built from ``is_wild``, not written again)."""
    return _WILDS[deuces_wild]


def sorted_cards(cards: Iterable[Card], wild_deuces: bool = False) -> list[Card]:
    """Hands and sets as outputs list them: suit then rank, wilds last."""
    if wild_deuces:
        return sorted(cards, key=_WILDS_LAST.__getitem__)
    return sorted(cards)


_WILDS = (frozenset(c for c in range(NUM_KINDS) if is_wild(c, False)),
          frozenset(c for c in range(NUM_KINDS) if is_wild(c, True)))
_WILDS_LAST = tuple((is_wild(c, True), c) for c in range(NUM_KINDS))  # sort keys, 2s wild


def new_deck(decks: int, jokers_per_deck: int) -> list[Card]:
    """The unshuffled pack: each deck in suit then rank order, its jokers after it."""
    one = list(range(52)) + [JOKER] * jokers_per_deck
    return one * decks
