"""The observation's numbers before they become a tensor: where each part of the observation
lies (``Layout``) and what a seat's view puts there, as plain lists (``card_places``,
``facts``, ``meld_table``). Plain Python without NumPy, so the compiled core can hold it;
``rl.observe`` makes the float32 vector.

Domain words: *plane* (53 numbers, one per card kind: how many copies of that card, 0..the
decks in play, more for jokers), *relative seat* (0 the observing seat, 1 the seat on its left,
and so on), *meld place* (a meld's index on the table, the one the action ids name), *pending
tokens* (the ids already chosen of the action being spelled, ``rl.codec``).

Built only from ``SeatView`` (what the seat may know), so two states that look the same to a
seat give it the same numbers.
"""

from __future__ import annotations

from ..cards import NUM_KINDS, is_wild, new_deck
from ..engine import Phase, SeatView
from . import codec

PHASES = tuple(p.value for p in Phase)
SEAT_FACTS = ("hand_size", "down", "out", "floating", "buys_left", "total", "penalty",
              "progress", "to_act", "asked", "dealer", "turn", "discarder")
MELD_FACTS = ("present", "set", "run", "key", "low", "length", "wilds")  # then owner, one-hot

_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}


class Layout:
    """Where each part of the observation lies for a table of ``players`` seats."""

    def __init__(self, players: int) -> None:
        self.players = players
        parts: list[tuple[str, int, str]] = [
            ("hand", NUM_KINDS, "copies of each card in the seat's hand"),
            ("discard_pile", NUM_KINDS, "copies of each card in the discard pile"),
            ("discard_top", NUM_KINDS, "1 at the discard pile's top card"),
            ("unseen", NUM_KINDS, "copies the seat has not seen: the pack less its hand, the "
             "pile, the melds and the cards others were seen to take"),
        ]
        for r in range(players):
            parts.append((f"melded_{r}", NUM_KINDS, f"cards in melds put down by relative "
                          f"seat {r}"))
        for r in range(players):
            parts.append((f"known_{r}", NUM_KINDS, f"cards relative seat {r} was seen to take "
                          "and still holds"))
        parts += [
            ("phase", len(PHASES), "one-hot: " + ", ".join(PHASES)),
            ("contract", 4, "the seat's contract: sets, runs, set size, run size (0: any)"),
            ("hand_number", 2, "this hand's number, and the hands in the game (0: open)"),
            ("stock", 2, "cards in the stock; 1 if the top discard was just thrown"),
        ]
        for r in range(players):
            parts.append((f"seat_{r}", len(SEAT_FACTS), f"relative seat {r}: "
                          + ", ".join(SEAT_FACTS)))
        parts.append(("melds", codec.MAX_MELDS * (len(MELD_FACTS) + players),
                      f"per meld place (0..{codec.MAX_MELDS - 1}): " + ", ".join(MELD_FACTS)
                      + ", then its owner (relative seat, one-hot)"))
        parts.append(("pending", codec.SIZE, "how often each id was chosen so far in the "
                      "action being spelled"))
        self.parts: dict[str, slice] = {}
        self.notes: dict[str, str] = {}
        at = 0
        for name, size, note in parts:
            self.parts[name] = slice(at, at + size)
            self.notes[name] = note
            at += size
        self.size = at
        self.meld_width = len(MELD_FACTS) + players
        self.melded_starts = [self.parts[f"melded_{r}"].start for r in range(players)]
        self.known_starts = [self.parts[f"known_{r}"].start for r in range(players)]
        self.planes_end = self.known_starts[-1] + NUM_KINDS  # the card planes come first
        self.unseen_start = self.parts["unseen"].start
        self.facts_start = self.parts["phase"].start
        self.melds_start = self.parts["melds"].start
        assert self.melds_start == self.parts[f"seat_{players - 1}"].stop  # observe needs it
        self.pending_start = self.parts["pending"].start


_PACKS: dict[tuple[int, int], list[int]] = {}


def pack_counts(view: SeatView) -> list[int]:
    """The pack's copies of each card (made once per pack size; not to be changed)."""
    rules = view.ruleset
    key = (rules.decks_for(len(view.players)), rules.jokers_per_deck)
    pack = _PACKS.get(key)
    if pack is None:
        pack = [0] * NUM_KINDS
        for c in new_deck(key[0], key[1]):
            pack[c] += 1
        _PACKS[key] = pack
    return pack


def card_places(view: SeatView, lay: Layout, unseen: list[int]) -> list[int]:
    """Every card plane entry as an index into the observation, once per copy: counting the
    list gives the planes (the hand, the pile and its top, the melded and the known cards by
    relative seat); the copies unseen of each card go into ``unseen`` (53 numbers), which is
    shorter than their places."""
    n = len(view.players)
    me = view.me
    parts = lay.parts
    seen = [0] * NUM_KINDS
    base = parts["hand"].start
    at: list[int] = []
    for c in view.hand:
        at.append(base + c)
        seen[c] += 1
    base = parts["discard_pile"].start
    for c in view.discard:
        at.append(base + c)
        seen[c] += 1
    if view.discard:
        at.append(parts["discard_top"].start + view.discard[-1])
    melded = lay.melded_starts
    for m in view.melds:
        base = melded[(m.owner - me) % n]
        for c in m.cards:
            at.append(base + c)
            seen[c] += 1
    known = lay.known_starts
    for s in range(n):
        cards = view.known[s]
        if cards:
            base = known[(s - me) % n]
            mine = s == me  # the seat's own known cards are in its hand already
            for c in cards:
                at.append(base + c)
                if not mine:
                    seen[c] += 1
    pack = pack_counts(view)
    for c in range(NUM_KINDS):
        unseen.append(pack[c] - seen[c])
    return at


def facts(view: SeatView) -> list[float]:
    """The numbers from the phase to the last seat's facts, in the layout's order."""
    n = len(view.players)
    me = view.me
    deal = view.contract[me]
    rules = view.ruleset
    hands = len(rules.hand_list()) if rules.progression == "all" else 0
    out = [0.0] * len(PHASES)
    out[_PHASE_INDEX[view.phase]] = 1.0
    out += [deal.sets, deal.runs, deal.set_size or 0, deal.run_size or 0,
            view.hand_number, hands, view.stock_size, view.fresh]
    to_act, asked = view.to_act, view.asked
    for r in range(n):
        s = (me + r) % n
        out += [view.hand_sizes[s], view.down[s], view.out[s], view.floating[s],
                view.buys[s], view.totals[s], view.penalties[s], view.progress[s],
                s in to_act, s in asked, s == view.dealer, s == view.turn,
                s == view.discarder]
    return out


def meld_table(view: SeatView, lay: Layout) -> list[float]:
    """The rows of the melds on the table by place, as far as the last one (zeros beyond)."""
    n = len(view.players)
    me = view.me
    melds = view.melds[:codec.MAX_MELDS]
    width = lay.meld_width
    table = [0.0] * (width * len(melds))
    deuces = view.ruleset.deuces_wild
    facts_n = len(MELD_FACTS)
    for i, m in enumerate(melds):
        at = i * width
        is_set = m.kind == "set"
        table[at] = 1.0
        table[at + 1] = float(is_set)
        table[at + 2] = float(not is_set)
        table[at + 3] = m.key
        table[at + 4] = 0 if is_set else m.lo
        table[at + 5] = len(m.cards)
        table[at + 6] = sum(1 for x in m.cards if is_wild(x, deuces))
        table[at + facts_n + (m.owner - me) % n] = 1.0
    return table
