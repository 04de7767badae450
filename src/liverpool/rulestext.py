"""Rules in words, for people at a table: a line per preset, a label, a topic and a control per
knob, the table's clocks, and the *rules sheet* of a table (how a turn goes, the words a player
needs, the cards, when the game ends, the contracts with the current one marked, what is wild,
buying, going out, scoring, and what the table changed from its preset).

Domain words: *preset line* (one sentence a newcomer understands saying what a preset is like),
*knob info* (a knob's label and topic, for forms that set rule options), *control* (how a form
sets a knob, by type: a yes/no, a number, a choice in words, a list of numbers, named fields,
rows such as one contract a hand), *topic* (a group of knobs), *clocks* (a web table's timers:
not rules, but worded here so that every page names them alike), *rules sheet* (sections of
short lines, built from a ``RuleSet`` alone), *changes* (the knobs a table set differently from
its preset), *refusal* (a rule set the core refused, in words naming knobs by their labels).

Every front end shows these words and writes none of its own: the terminal's rules panel, the
browser's rules panel and lobby, the replay page. docs/rules.md is the reference they follow.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .rules import (
    BUY_PRIORITY,
    GOING_OUT,
    JOKER_SWAP,
    KNOBS,
    PLAYABLE_DISCARD,
    PRESETS,
    PROGRESSION,
    Contract,
    RulesError,
    RuleSet,
    knob_to_json,
)

# the cards as the card points name them: JK, A, 2..10, J, Q, K (the core's JSON keys)
POINT_KEYS: tuple[str, ...] = tuple(knob_to_json("card_points", RuleSet().card_points))

PRESET_LINES: dict[str, str] = {
    "standard": "The default, for 3 to 8 players: 10 cards every hand; a new set or run must "
                "hold at least 2 real cards (not jokers) in a set and 3 in a run; you may not "
                "throw away a card you just picked up; and you go out by throwing away your last "
                "card (empty your hand on the table and you keep drawing until you can).",
    "hoyle": "The old rule-book game: 7 cards in the first hand and up to 12 later; jokers "
             "stay where they are played; someone asking \"May I?\" for a thrown card (taking "
             "it out of turn) may reach deeper into the pile; and the last hand must be laid "
             "down all at once.",
    "classic": "A simple family game: 11 cards every hand, cards count their face value, and "
               "once you have laid down your hand's sets and runs you may no longer pick up "
               "from the discard pile.",
    "arena": "As played in online rooms: you always finish by throwing away your last card, a "
             "joker on the table can be won by putting down the card it stands for, and "
             "players who have laid down may grab a thrown card that fits the table.",
    "house": "A kitchen-table variant: 2s work like jokers, runs need only 3 cards, you may "
             "borrow cards from the table, throwing away a card that fits the table costs 25 "
             "points, and everyone plays one last turn after someone goes out.",
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

# the worded knobs' values, each in words, in the order the core lists them
CHOICE_WORDS: dict[str, dict[str, str]] = {
    "going_out": {
        "discard": "By throwing away your last card",
        "empty": "As soon as your hand is empty, any way",
        "float": "By throwing away your last card; empty your hand on the table and you keep "
                 "drawing until you can",
    },
    "playable_discard": {
        "none": "Nothing happens",
        "bonus": "A player who is down may take it, lay off one card and discard",
        "take_back": "The discarder takes it back with a penalty card",
        "give_cards": "It goes on the meld and every other player gives the discarder a card",
        "points": "The discarder pays the points for a called discard",
        "standard": "If the discarder is down, they take it back with a penalty card; if not, "
                    "a player who is down may take it",
    },
    "joker_swap": {"none": "Nowhere (no swaps)", "runs": "Runs", "runs_and_sets": "Runs and sets"},
    "buy_priority": {"seat": "The nearest to the player on turn", "first_call": "The first to ask"},
    "progression": {"all": "Everyone plays the same contract",
                    "own": "Each plays their own, moving on after going down"},
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "going_out": GOING_OUT, "playable_discard": PLAYABLE_DISCARD, "joker_swap": JOKER_SWAP,
    "buy_priority": BUY_PRIORITY, "progression": PROGRESSION}

# How a form sets each knob whose value is not a plain yes/no, whole number or word: its
# *control* by type, for any page to build generically. Types: "number" (a whole number;
# "empty" names what no number means), "numbers" (a list of whole numbers, one an "item"),
# "fields" (fixed named numbers: an object keyed by "key", or a list in field order), "rows"
# (a list of such records, one a "row"). min/max of a control apply to each number in it
# unless a field gives its own. These are hints for the form: the rule set's check decides.
_CONTROLS: dict[str, dict[str, Any]] = {
    "min_players": {"type": "number", "min": 2, "max": 8},
    "max_players": {"type": "number", "min": 2, "max": 8},
    "jokers_per_deck": {"type": "number", "min": 0, "max": 8},
    "min_set": {"type": "number", "min": 2},
    "min_run": {"type": "number", "min": 3, "max": 13},
    "max_buys": {"type": "number", "min": 0, "empty": "no limit"},
    "turn_limit": {"type": "number", "min": 1},
    "own_max_hands": {"type": "number", "min": 1},
    "decks": {"type": "rows", "shape": "list", "row": "Step", "min_items": 1, "max_items": 7,
              "add": "Add a step",
              "fields": [{"label": "for up to … players", "min": 2, "max": 8},
                         {"label": "decks", "min": 1, "max": 8}]},
    "deal_sizes": {"type": "numbers", "item": "Hand", "unit": "cards", "min": 1, "max": 60,
                   "min_items": 1, "add": "Add a hand"},
    "hands": {"type": "numbers", "item": "Hand", "unit": "contract no.", "min": 1,
              "min_items": 1, "add": "Add a hand",
              "empty": "Every contract, in order"},
    "contracts": {"type": "rows", "shape": "object", "row": "Hand", "min_items": 1,
                  "add": "Add a hand", "min": 0,
                  "fields": [{"key": "sets", "label": "sets"},
                             {"key": "runs", "label": "runs"},
                             {"key": "set_size", "label": "cards in each set", "min": 2,
                              "empty": "any"},
                             {"key": "run_size", "label": "cards in each run", "min": 3,
                              "max": 13, "empty": "any"}]},
    "card_points": {"type": "fields", "shape": "object", "min": 0,
                    "fields": [{"key": key, "label": "joker" if key == "JK" else key}
                               for key in POINT_KEYS]},
    "naturals": {"type": "fields", "shape": "list", "min": 1,
                 "empty": "More real cards than wilds in each new meld",
                 "fields": [{"label": "real cards in a new set"},
                            {"label": "real cards in a new run"}]},
}


def knob_control(knob: str, rules: RuleSet) -> dict[str, Any]:
    """How a form sets ``knob`` (a control by type, see ``_CONTROLS``), under ``rules``."""
    if knob in _CHOICES:
        return {"type": "choice", "options": [{"value": v, "text": CHOICE_WORDS[knob][v]}
                                              for v in _CHOICES[knob]]}
    control = _CONTROLS.get(knob)
    if control is not None:
        out = json.loads(json.dumps(control))  # a copy the caller may change
        if knob == "hands":
            out["max"] = len(rules.contracts)
        return dict(out)
    value = getattr(rules, knob)
    if isinstance(value, bool):
        return {"type": "bool"}
    return {"type": "number", "min": 0}


# the table's clocks (not rules: settings of one web table), each with a label and a line of
# help, the same words in the lobby, the Rules panel and docs/web-ui.md
CLOCKS: dict[str, tuple[str, str]] = {
    "turn_timer": ("Time for a move (s)",
                   "Seconds a player has for each move; then the computer plays it for them. "
                   "Empty: no limit."),
    "buy_timer": ("May I? time limit (s)",
                  "After each discard, asking \"May I?\" for it closes this many seconds "
                  "later, for everyone. Empty: open until the next player draws."),
    "buy_window": ("Computer players wait for May I? (s)",
                   "A computer player about to draw first waits this long, so people have time "
                   "to ask \"May I?\". Empty: the server's wait."),
    "hand_pause": ("Pause between hands (s)",
                   "Seconds the end-of-hand screen stays before the next hand, unless everyone "
                   "is ready. Empty: the server's pause."),
}


def clock_lines(turn_timer: float | None, buy_timer: float | None, buy_window: float | None,
                hand_pause: float | None) -> list[str]:
    """A table's clocks in lines for its rules sheet, under their lobby labels."""
    def seconds(value: float | None, none: str) -> str:
        return none if value is None else f"{value:g} s"

    def label(key: str) -> str:
        return CLOCKS[key][0].removesuffix(" (s)")

    return [f"{label('turn_timer')}: {seconds(turn_timer, 'no limit')}.",
            f"{label('buy_timer')}: {seconds(buy_timer, 'until the next player draws')}.",
            f"{label('buy_window')}: {seconds(buy_window, 'the server’s wait')}.",
            f"{label('hand_pause')}: {seconds(hand_pause, 'the server’s pause')}."]

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


def value_words(knob: str, value: Any) -> str:
    """A knob's value (override JSON) as a person reads it: yes/no, a worded choice, the
    contracts and card points in words; other values as JSON."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if knob in CHOICE_WORDS and value in CHOICE_WORDS[knob]:
        return CHOICE_WORDS[knob][value]
    if knob == "contracts" and isinstance(value, list):
        return "; ".join(f"{i}. {Contract(**c).describe()}" for i, c in enumerate(value, 1))
    if knob == "card_points" and isinstance(value, dict):
        return ", ".join(f"{'joker' if k == 'JK' else k} {v}" for k, v in value.items())
    if knob == "decks" and isinstance(value, list):
        return "; ".join(f"{d} for up to {most} players" for most, d in value)
    if value is None:
        return "none"
    return json.dumps(value)


def changes(rules: RuleSet) -> list[str]:
    """The knobs this table set differently from its preset, each as ``label: value``."""
    base = PRESETS.get(rules.name)
    if base is None:
        return []
    out = []
    for knob, value in rules.overrides_from(base).items():
        info = KNOB_INFO.get(knob)
        label = info.label if info else knob
        out.append(f"{label}: {value_words(knob, value)}")
    return out


def _s(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _turn_lines(rules: RuleSet) -> list[str]:
    """The turn in order, as docs/rules.md (Your turn) words it, true for ``rules``."""
    draw = "1. Draw: take the top card of the discard pile, or the top card of the stock."
    if not rules.down_may_take_discard:
        draw += " Once you are down, only the stock."
    if rules.layoff_instead_of_draw:
        draw += " Once you are down you may lay off instead of drawing."
    down = ("2. Go down, once a hand: when your cards hold this hand's contract, lay it all on "
            "the table in one move.")
    if rules.extra_melds_at_go_down:
        down += " You may lay down more melds than it asks for."
    layoff = "3. Lay off: once you are down, add cards from your hand to melds on the table, " \
             "anyone's."
    if rules.layoff_needs_second_down:
        layoff += " Not until two players are down."
    if not rules.layoff_same_turn:
        layoff += " Not in the turn you go down."
    lines = [draw, down, layoff,
             "4. Discard: throw one card onto the discard pile; that ends your turn."]
    if rules.buying:
        lines.append(f"\"May I?\": when the player on turn draws from the stock instead, the "
                     f"others may ask to buy that discard out of turn; a buyer takes it with "
                     f"{_s(rules.penalty_cards, 'penalty card')} from the stock.")
    else:
        lines.append("No \"May I?\" at this table: nobody takes a discard out of turn.")
    return lines


def _wilds(rules: RuleSet) -> str:
    """What is wild, or that nothing is."""
    if rules.jokers_per_deck and rules.deuces_wild:
        return "jokers and 2s"
    if rules.jokers_per_deck:
        return "jokers"
    return "2s" if rules.deuces_wild else ""


def _word_lines(rules: RuleSet) -> list[str]:
    """The words a player needs, each in a line."""
    wilds = _wilds(rules)
    going_out = "Going out: getting rid of your last card, which ends the hand"
    going_out += " once everyone else has played one more turn." if rules.final_turns else "."
    contract = "Contract: the sets and runs a hand asks for (below); " + (
        "each hand has its own." if rules.progression == "all"
        else "each player works through them in order.")
    return [
        "Meld: a set or a run on the table.",
        f"Set: {rules.min_set} or more cards of the same rank, any suits.",
        f"Run: {rules.min_run} or more cards of one suit in order.",
        contract,
        "Going down: laying your contract on the table, all at once; then you are \"down\".",
        "Laying off: adding cards from your hand to a meld already on the table.",
        going_out,
        f"Wild: a card that stands in for any card; here the {wilds}." if wilds
        else "Wild: a card that stands in for any card; this table has none.",
        "May I?: asking to buy a discard out of turn"
        + ("." if rules.buying else " (not played at this table)."),
    ]


def _deck_lines(rules: RuleSet, players: int | None) -> list[str]:
    """How many decks and jokers: for this table's players, or by the number of players."""
    jokers = rules.jokers_per_deck
    if players is not None:
        decks = rules.decks_for(players)
        return [f"This table of {players} players uses {_s(decks, 'deck')} of 52 cards and "
                f"{_s(decks * jokers, 'joker')}: {decks * (52 + jokers)} cards."]
    steps, low = [], rules.min_players
    for most, decks in rules.decks:
        high = min(most, rules.max_players)
        if high < low:
            continue
        who = f"{low} players" if low == high else f"{low} to {high} players"
        steps.append(f"{_s(decks, 'deck')} for {who}")
        low = high + 1
        if low > rules.max_players:
            break
    return [f"Decks of 52 cards: {', '.join(steps)}; {_s(jokers, 'joker')} in each deck."]


def _end_lines(rules: RuleSet) -> list[str]:
    """When the game ends and who wins."""
    if rules.progression == "own":
        return [f"Each player moves on to their next contract after a hand in which they went "
                f"down. The game ends after the hand in which someone finishes contract "
                f"{len(rules.contracts)}, or after {_s(rules.own_max_hands, 'hand')}.",
                "The players furthest along win; among them, the lowest total of points."]
    hands = len(rules.hand_list())
    return [f"The game is {_s(hands, 'hand')}, one contract each, in the order above.",
            "After the last hand the lowest total of points wins; a tie shares the win."]


def refusal_words(error: RulesError) -> str:
    """A rule set's refusal in the rules reference's words: each knob it names, by its label
    (the message of ``RuleSet.check`` names knobs as the code spells them)."""
    text = str(error)
    knob = error.knob
    if knob is not None:
        label = KNOB_INFO[knob].label if knob in KNOB_INFO else knob.capitalize()
        text = re.sub(rf"^{re.escape(knob)}:", f"{label}:", text)

    def label_of(m: re.Match[str]) -> str:
        word = m.group(0)
        return f"\u201c{KNOB_INFO[word].label}\u201d" if word in KNOB_INFO else word

    # knob names with an underscore are never ordinary words ("decks" or "hands" may be)
    return re.sub(r"\b[a-z]+(?:_[a-z]+)+\b", label_of, text)


def rules_sheet(rules: RuleSet, contract_no: int | None = None,
                buys_used: int | None = None, players: int | None = None
                ) -> list[tuple[str, list[str]]]:
    """The table's rules in short lines, by section: how a turn goes, the words a player needs,
    the cards (decks and jokers: for ``players``, or by the number of players), when the game
    ends, then the contracts (``contract_no``, 1-based, marked as the current one), wild cards,
    buying (``buys_used`` of the limit, for the reader's seat), going out, scoring, and the
    table's changes to its preset."""
    wilds = _wilds(rules)
    wild = f"{wilds[0].upper()}{wilds[1:]} are wild." if wilds else "No card is wild."
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
        ("How a turn goes", _turn_lines(rules)),
        ("Words", _word_lines(rules)),
        ("The cards", _deck_lines(rules, players)),
        ("When the game ends", _end_lines(rules)),
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
    """Every knob as a form shows it: topic, label, knob name, its control (``knob_control``)
    and the value under ``rules`` (JSON), in topic order; for a page that sets rule options."""
    order = {t: i for i, t in enumerate(TOPICS)}
    rows = [{"knob": k, "topic": KNOB_INFO[k].topic, "label": KNOB_INFO[k].label,
             "control": knob_control(k, rules),
             "value": knob_to_json(k, getattr(rules, k))} for k in KNOBS]
    return sorted(rows, key=lambda r: order[r["topic"]])


__all__ = ["CHOICE_WORDS", "CLOCKS", "KNOB_INFO", "POINT_KEYS", "PRESET_LINES", "TOPICS",
           "KnobInfo", "changes", "clock_lines", "knob_control", "knob_form", "refusal_words",
           "rules_sheet", "value_words"]
