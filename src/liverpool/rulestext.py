"""Rules in words, for people at a table: a line per preset, a label and a topic per knob, and
the *rules sheet* of a table (the contracts with the current one marked, what is wild, buying,
going out, scoring, and what the table changed from its preset).

Domain words: *preset line* (one sentence saying what a preset is like), *knob info* (a knob's
label and topic, for forms that set rule options), *topic* (a group of knobs), *rules sheet*
(sections of short lines, built from a ``RuleSet`` alone), *changes* (the knobs a table set
differently from its preset).

Every front end shows these words and writes none of its own: the terminal's rules panel, the
browser's rules panel and lobby, the replay page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .rules import KNOBS, PRESETS, RuleSet, knob_to_json

PRESET_LINES: dict[str, str] = {
    "hoyle": "The classic book rules: no joker swaps, buy from deep in the pile, go out by "
             "emptying your hand; the last hand is two sets of three and a run of seven, all "
             "at once.",
    "classic": "The common family game: 11 cards every hand, no taking the discard once you "
               "are down, swapped jokers must go back on the table; empty your hand to go out.",
    "arena": "The online-room rules: jokers can be taken from runs and sets, one swap as you "
             "go down, and a playable discard can be called by anyone who is down.",
    "standard": "The default: strict naturals in new melds, float when you empty your hand on "
                "the table, and you may not throw away the card you just took.",
    "house": "The kitchen-table variant: 2s are wild, runs of three, borrow cards off melds, "
             "lay off instead of drawing, and everyone gets a last turn after someone goes out.",
}


@dataclass(frozen=True, slots=True)
class KnobInfo:
    """How a form shows one knob: its topic and label."""

    knob: str
    topic: str
    label: str


TOPICS = ("Players and cards", "Contracts", "Melds and wild cards", "Buying",
          "Playing on the table", "Going out", "Scoring", "Length of the game")

_INFO: tuple[tuple[str, str, str], ...] = (
    ("min_players", "Players and cards", "Fewest players"),
    ("max_players", "Players and cards", "Most players"),
    ("decks", "Players and cards", "Decks (by number of players)"),
    ("jokers_per_deck", "Players and cards", "Jokers in each deck"),
    ("deal_sizes", "Players and cards", "Cards dealt in each hand"),
    ("cut_bonus", "Players and cards", "Bonus for cutting the exact deal (points off)"),
    ("contracts", "Contracts", "The contracts, hand by hand"),
    ("hands", "Contracts", "Which contracts are played"),
    ("progression", "Contracts", "Everyone plays the same contract, or each their own"),
    ("extra_melds_at_go_down", "Contracts", "More melds than the contract when going down"),
    ("final_all_out", "Contracts", "Last contract: meld every card at once"),
    ("deuces_wild", "Melds and wild cards", "2s are wild"),
    ("min_set", "Melds and wild cards", "Shortest set"),
    ("min_run", "Melds and wild cards", "Shortest run"),
    ("naturals", "Melds and wild cards", "Natural cards a new set and run need"),
    ("joker_swap", "Melds and wild cards", "Jokers may be swapped out of"),
    ("swap_needs_down", "Melds and wild cards", "Swapping needs you to be down"),
    ("swap_at_go_down", "Melds and wild cards", "Swaps allowed just before going down"),
    ("swapped_joker_must_be_played", "Melds and wild cards",
     "A swapped joker must go back on the table"),
    ("buying", "Buying", "Buying (\"May I?\")"),
    ("penalty_cards", "Buying", "Penalty cards with a bought card"),
    ("max_buys", "Buying", "Buys per hand (empty: no limit)"),
    ("buy_priority", "Buying", "Who gets the card when several ask"),
    ("deep_pickup", "Buying", "Buy cards from deeper in the pile"),
    ("down_may_take_discard", "Buying", "A player who is down may take or buy the discard"),
    ("layoff_same_turn", "Playing on the table", "Lay off in the turn you go down"),
    ("layoff_needs_second_down", "Playing on the table",
     "Nobody lays off until two players are down"),
    ("layoff_instead_of_draw", "Playing on the table", "Lay off instead of drawing"),
    ("fits_own_melds", "Playing on the table", "Your own discard may be called onto your melds"),
    ("playable_discard", "Playing on the table", "A discard that fits a meld"),
    ("borrow", "Playing on the table", "Borrow a card off a meld for a new meld"),
    ("going_out", "Going out", "How you go out"),
    ("no_discard_of_taken_card", "Going out", "You may not discard the card you just took"),
    ("final_turns", "Going out", "Everyone plays once more after someone goes out"),
    ("card_points", "Scoring", "Points of the cards left in hand"),
    ("rummy_points", "Scoring", "Points for discarding a playable card"),
    ("stock_reshuffles", "Length of the game", "Times the pile may be shuffled into a new stock"),
    ("turn_limit", "Length of the game", "Turns before a hand is stopped"),
    ("own_max_hands", "Length of the game", "Most hands when each plays their own contract"),
)
KNOB_INFO: dict[str, KnobInfo] = {k: KnobInfo(k, t, label) for k, t, label in _INFO}

_SWAPS = {"none": "Jokers on the table stay there: no swaps.",
          "runs": "A joker may be swapped out of a run by the card it stands for.",
          "runs_and_sets": "A joker may be swapped out of a run or a set by a card it stands for."}
_GOING_OUT = {
    "discard": "Go out by discarding your last card (you cannot meld or lay off your last card).",
    "empty": "You are out the moment your hand is empty, by melding, laying off or discarding.",
    "float": "Go out by discarding your last card; empty your hand on the table and you float: "
             "draw from the stock each turn until a card you cannot play lets you discard out.",
}
_PLAYABLE = {
    "none": "",
    "bonus": "A discard that fits a meld may be called by a player who is down: they take it, "
             "lay off one card and discard.",
    "take_back": "A discard that fits a meld may be called back: the discarder takes it back "
                 "with a penalty card.",
    "give_cards": "A discard that fits a meld may be called: it goes on the meld and every other "
                  "player gives the discarder a card.",
    "points": "Discarding a card that fits a meld costs the discarder rummy points if someone "
              "calls it.",
    "standard": "A discard that fits a meld may be called: from a player who is down it goes "
                "back to them with a penalty card; otherwise a player who is down takes it as a "
                "bonus.",
}


def _contract_lines(rules: RuleSet, current: int | None) -> list[str]:
    lines = []
    for i, number in enumerate(rules.hand_list(), 1):
        c = rules.contracts[number - 1]
        size = rules.deal_sizes[min(number, len(rules.deal_sizes)) - 1] \
            if rules.progression == "all" else None
        cards = f" ({size} cards)" if size else ""
        mark = "▶ " if current == number else "  "
        lines.append(f"{mark}{i}. {c.describe()}{cards}")
    return lines


def _points_line(rules: RuleSet) -> str:
    pts = rules.card_points  # by rank index: 0 joker, 1 ace, 2..13

    def span(lo: int, hi: int) -> str:
        values = {pts[r] for r in range(lo, hi + 1)}
        if all(pts[r] == r for r in range(lo, hi + 1)):
            return "their face value"
        return "/".join(map(str, sorted(values))) + " each"

    parts = [f"joker {pts[0]}", f"ace {pts[1]}"]
    if all(pts[r] == r for r in range(2, 10)) or pts[2] == pts[3]:
        parts.append(f"2 to 9 {span(2, 9)}")
    else:
        parts += [f"2s {pts[2]}", f"3 to 9 {span(3, 9)}"]
    parts.append(f"10 to K {span(10, 13)}")
    return "Cards left in hand count: " + ", ".join(parts) + ". Lowest total wins."


def changes(rules: RuleSet) -> list[str]:
    """The knobs this table set differently from its preset, each as ``label: value``."""
    base = PRESETS.get(rules.name)
    if base is None:
        return []
    out = []
    for knob, value in rules.overrides_from(base).items():
        info = KNOB_INFO.get(knob)
        label = info.label if info else knob
        out.append(f"{label}: {json.dumps(value)}")
    return out


def rules_sheet(rules: RuleSet, contract_no: int | None = None,
                buys_used: int | None = None) -> list[tuple[str, list[str]]]:
    """The table's rules in short lines, by section: the contracts (``contract_no``, 1-based,
    marked as the current one), wild cards, buying (``buys_used`` of the limit, for the reader's
    seat), going out, scoring, and the table's changes to its preset."""
    wild = "Jokers and 2s are wild." if rules.deuces_wild else "Jokers are wild."
    melds = (f"Sets of {rules.min_set}+ cards of a rank; runs of {rules.min_run}+ cards of a "
             f"suit in order (ace low or high, not round the corner).")
    swaps = _SWAPS[rules.joker_swap]
    if rules.buying:
        limit = "no limit" if rules.max_buys is None else f"{rules.max_buys} a hand"
        buy = [f"Buy a passed-up discard out of turn, with {rules.penalty_cards} penalty "
               f"card{'s' if rules.penalty_cards != 1 else ''}: {limit}."]
        if buys_used is not None and rules.max_buys is not None:
            buy.append(f"You have used {buys_used} of {rules.max_buys} buys this hand.")
        elif buys_used is not None:
            buy.append(f"You have bought {buys_used} time{'s' if buys_used != 1 else ''} this "
                       f"hand.")
        if rules.buy_priority == "first_call":
            buy.append("When several ask, the first to ask gets it.")
        else:
            buy.append("When several ask, the nearest to the player on turn gets it.")
        if not rules.down_may_take_discard:
            buy.append("Once you are down you may not take or buy the discard.")
    else:
        buy = ["No buying."]
    playing = [line for line in (
        _PLAYABLE[rules.playable_discard],
        "Nobody lays off until two players are down." if rules.layoff_needs_second_down else "",
        "You may lay off instead of drawing." if rules.layoff_instead_of_draw else "",
        "You may borrow a card off a meld to start a new one." if rules.borrow else "",
    ) if line]
    out_lines = [_GOING_OUT[rules.going_out]]
    if rules.no_discard_of_taken_card:
        out_lines.append("You may not discard the card you took from the pile this turn.")
    if rules.final_turns:
        out_lines.append("After someone goes out, everyone else plays one more turn.")
    if rules.final_all_out:
        out_lines.append("The last contract is laid down all at once, with every card.")
    scoring = [_points_line(rules)]
    if rules.rummy_points:
        scoring.append(f"A called playable discard costs {rules.rummy_points} points.")
    sheet = [
        ("Contracts" + (" (each plays their own, in order)" if rules.progression == "own"
                        else ""), _contract_lines(rules, contract_no)),
        ("Melds and wild cards", [wild, melds, swaps]),
        ("Buying (\"May I?\")", buy),
    ]
    if playing:
        sheet.append(("Playing on the table", playing))
    sheet += [("Going out", out_lines), ("Scoring", scoring)]
    changed = changes(rules)
    sheet.append((f"This table's changes to {rules.name}", changed or ["none"]))
    return sheet


def knob_form(rules: RuleSet) -> list[dict[str, Any]]:
    """Every knob as a form shows it: topic, label, knob name and the value under ``rules``
    (JSON), in topic order; for a page that sets rule options."""
    order = {t: i for i, t in enumerate(TOPICS)}
    rows = [{"knob": k, "topic": KNOB_INFO[k].topic, "label": KNOB_INFO[k].label,
             "value": knob_to_json(k, getattr(rules, k))} for k in KNOBS]
    return sorted(rows, key=lambda r: order[r["topic"]])


__all__ = ["KNOB_INFO", "PRESET_LINES", "TOPICS", "KnobInfo", "changes",
           "knob_form", "rules_sheet"]
