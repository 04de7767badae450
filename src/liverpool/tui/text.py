"""Words and pictures of the table for the terminal: cards with suit symbols and colours, hands
sorted by suit or by rank, melds with each wild marked by the card it stands for, and menu labels
for actions, and lines about the person in the second person. (Where picked cards go in a meld is
``melds.arrangements``.)

Domain words: *card face* (``7♥``), *sort order* (``suit`` or ``rank``), *wild* (a joker, or a 2
where 2s are wild), *stands for* (the card a wild plays in a run, or the rank in a set), *the
person* (the player at this terminal, named "You" unless they chose a name: their lines read
"You draw", "your run").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rich.text import Text

from ..actions import Action
from ..cards import (
    JOKER,
    RANK_NAMES,
    Card,
    card_str,
    is_wild,
    parse_card,
    rank_of,
    suit_of,
)
from ..engine import HandStarted, SeatView
from ..melds import RUN, Meld
from ..rules import RuleSet
from ..rulestext import changes

SUIT_SYMBOLS = "♠♥♦♣"
SUIT_STYLES = ("bold white", "bold red", "bold red", "bold white")
JOKER_STYLE = "bold magenta"


def face(card: Card) -> str:
    """``7♥``, ``10♠``, ``JK``."""
    if card == JOKER:
        return "JK"
    return RANK_NAMES[rank_of(card)] + SUIT_SYMBOLS[suit_of(card)]


# a card in the record's notation (7H, 10S, QD) standing as a word of a line
_CARD_WORD = re.compile(r"(?<!\w)(?:10|[2-9AJQK])[SHDC](?!\w)")


def faces(line: str) -> str:
    """A line written in the record's notation (a narrated move, an engine's reason, a hint's
    reason: ``You draw 7H``) with its cards as the app shows them (``You draw 7♥``), so that
    one screen uses one notation. The plain mode keeps the notation (``7H``), which a screen
    reader says as it is written."""
    return _CARD_WORD.sub(lambda m: face(parse_card(m.group(0))), line)


def card_style(card: Card, deuces_wild: bool = False) -> str:
    if is_wild(card, deuces_wild):
        return JOKER_STYLE
    return SUIT_STYLES[suit_of(card)]


def card_text(card: Card, deuces_wild: bool = False) -> Text:
    return Text(face(card), style=card_style(card, deuces_wild))


def sort_hand(cards: Iterable[Card], order: str, deuces_wild: bool = False) -> list[Card]:
    """``suit``: S H D C then A..K; ``rank``: A..K then S H D C. Wilds last either way."""
    def key(c: Card) -> tuple[int, int, int]:
        wild = 1 if is_wild(c, deuces_wild) else 0
        if c == JOKER:
            return (1, 99, 99)
        if order == "rank":
            return (wild, rank_of(c), suit_of(c))
        return (wild, suit_of(c), rank_of(c))
    return sorted(cards, key=key)


def meld_text(meld: Meld, deuces_wild: bool = False, plain: bool = False) -> Text:
    """A meld with each wild marked by what it stands for (``Meld.wild_stands_for``):
    ``4♣ 5♣ JK(6♣) 7♣``, ``7♥ 7♠ JK(7)``; plain: ``4C 5C JK(6C) 7C``."""
    out = Text()
    for place, c in enumerate(meld.cards):
        if place:
            out.append(" ")
        name = card_str(c) if plain else face(c)
        style = "" if plain else card_style(c, deuces_wild)
        sub = meld.wild_stands_for(place)
        if sub is None:
            out.append(name, style=style)
            continue
        if meld.kind == RUN and not plain:
            sub = face(meld.stands_for(place))
        out.append(f"{name}({sub})", style=style)
    return out


def cards_plain(cards: Iterable[Card]) -> str:
    return " ".join(card_str(c) for c in cards)


def action_label(a: Action, players: Sequence[str], plain: bool = False) -> str:
    """A short menu label for one of the player's legal actions (``plain``: cards as 7H)."""
    name = card_str if plain else face
    t = a.type
    if t == "lay_off" and a.card is not None:
        end = f" ({a.end} end)" if a.end else ""
        return f"lay {name(a.card)} on meld {a.meld}{end}"
    if t == "swap_joker" and a.card is not None:
        wild = f" (the {name(a.wild)})" if a.wild is not None else ""
        return f"swap {name(a.card)} for the wild{wild} in meld {a.meld}"
    if t == "buy":
        return "buy the top card" if not a.depth or a.depth == 1 else \
            f"buy {a.depth} cards deep"
    if t == "call":
        where = f" onto meld {a.meld}" if a.meld is not None else ""
        return f"call{where}" + (f" ({a.end} end)" if a.end else "")
    if t == "go_down" and a.melds:
        return "go down: " + " | ".join(" ".join(name(c) for c in m) for m in a.melds)
    if t == "discard" and a.card is not None:
        return f"discard {name(a.card)}"
    if t == "give" and a.card is not None:
        return f"give {name(a.card)}"
    return t.replace("_", " ")


def question(view: SeatView, legal: Sequence[Action]) -> str:
    """The decision the seat is asked, in words, from its view and legal actions."""
    types = {a.type for a in legal}
    players = view.players
    top = card_str(view.discard[-1]) if view.discard else None
    ph = view.phase
    if ph == "cut":
        return "Cut the deck."
    if ph == "draw":
        if view.floating[view.me]:
            return "You are floating: draw from the stock."
        if "take_discard" in types:
            return f"Your turn: take the discard {top} or draw from the stock."
        return "Your turn: draw from the stock."
    if ph == "buy":
        pen = view.ruleset.penalty_cards
        return f"Buy {top}? (+{pen} penalty card{'s' if pen != 1 else ''}; buys used " \
               f"{view.buys[view.me]})"
    if ph == "call":
        whose = possessive(players[view.discarder], start=True) \
            if view.discarder is not None else "The"
        if "call" in types:
            return f"{whose} discard {top} fits a meld: call it or pass?"
        return f"{whose} discard {top} fits a meld; you cannot call it: pass."
    if ph == "give":
        who = players[view.discarder] if view.discarder is not None else "?"
        return f"Give {who} one card of your choice."
    if ph == "bonus":
        return f"You called {top}: lay off one card if you like, then discard."
    if ph == "play":
        parts = []
        if view.gd_swaps:
            return "Go down now, using the wild you swapped."
        if "go_down" in types:
            parts.append("go down")
        if "lay_off" in types:
            parts.append("lay off")
        if "swap_joker" in types:
            parts.append("swap a joker")
        if "borrow" in types:
            parts.append("borrow")
        if view.need_layoff:
            return "Lay off at least one card (you did not draw)."
        if view.must_play:
            return f"Play the wild you took ({cards_plain(view.must_play)}) before discarding."
        parts.append("discard")
        return "Your play: " + ", ".join(parts) + "."
    return ""


YOU = "You"  # the person's name at the table unless they give another (--name)

# a narrated verb in the third person, as the person named "You" says it
_VERBS = {"draws": "draw", "lays": "lay", "takes": "take", "buys": "buy", "goes": "go",
          "swaps": "swap", "borrows": "borrow", "discards": "discard", "calls": "call",
          "gives": "give", "cuts": "cut", "passes": "pass", "deals": "deal", "has": "have",
          "is": "are", "was": "were"}
_START_POSSESSIVE = re.compile(r"(^|(?<=[.:;!?] ))You's\b")
_POSSESSIVE = re.compile(r"\bYou's\b")


def possessive(name: str, start: bool = False) -> str:
    """``Bob's``; for the person named "You", ``your`` (``Your`` to start a sentence)."""
    if name == YOU:
        return "Your" if start else "your"
    return f"{name}'s"


def subject(name: str, verb: str) -> str:
    """``Bob deals``; for the person named "You", ``You deal`` (``verb`` is written in the
    third person, as for anyone else)."""
    if name == YOU:
        return f"{YOU} {_VERBS.get(verb, verb)}"
    return f"{name} {verb}"


def second_person(line: str, person: str = YOU) -> str:
    """A line written with names (a narrated move, an engine's reason) as the person reads it
    when their name is "You": "You draws" → "You draw", "on You's run" → "on your run",
    "it is not You's decision" → "it is not your decision". Lines about the other players keep
    their names; a person with another name is named like everyone else."""
    if person != YOU:
        return line
    line = _START_POSSESSIVE.sub("Your", line)
    line = _POSSESSIVE.sub("your", line)
    if not line.startswith(YOU + " "):
        return line
    words = line.split(" ")
    words[1] = _VERBS.get(words[1], words[1])
    return " ".join(words).replace(" and goes out", " and go out")


def deal_words(e: HandStarted, players: Sequence[str], seat: int = 0) -> str:
    """A hand's start in words, from the engine's ``hand_started``: ``hand 2: 1 set + 1 run,
    Cy deals`` (the contract ``seat`` plays)."""
    return (f"hand {e.hand_number}: {e.contract[seat].describe()}, "
            f"{subject(players[e.dealer], 'deals')}")


def rules_label(rules: RuleSet) -> str:
    """``hoyle rules``, or ``hoyle rules (changed: 2)`` when the table overrides knobs of its
    preset (the rules sheet, ``r``, lists them)."""
    changed = len(changes(rules))
    return f"{rules.name} rules" + (f" (changed: {changed})" if changed else "")


def fit_parts(parts: Sequence[str], width: int, rows: int = 2, sep: str = " · ") -> list[str]:
    """``parts``, most important first, joined into at most ``rows`` lines of ``width`` cells:
    each line takes the parts in order while they fit; a part that fits on no line left is
    dropped, so the least important go first; a part wider than a line is cut with "…"."""
    width = max(width, 1)
    lines: list[str] = []
    for part in parts:
        if len(part) > width:
            part = part[:width - 1] + "…"
        if lines and len(lines[-1]) + len(sep) + len(part) <= width:
            lines[-1] += sep + part
        elif len(lines) < rows:
            lines.append(part)
    return lines
