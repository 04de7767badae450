"""The observation tensor of the learning interfaces: one seat's view as a flat float32 vector.

Domain words: *plane* (53 numbers, one per card kind: how many copies of that card, 0..the
decks in play, more for jokers), *relative seat* (0 the observing seat, 1 the seat on its left,
and so on), *meld place* (a meld's index on the table, the one the action ids name), *pending
tokens* (the ids already chosen of the action being spelled, ``rl.codec``).

Built only from ``SeatView`` (what the seat may know) and the pending tokens, so two states
that look the same to a seat give it the same observation. ``Layout(players).parts`` names
every slice; docs/rl.md prints the table.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..cards import NUM_KINDS, is_wild, new_deck
from ..engine import Phase, SeatView
from . import codec

PHASES = tuple(p.value for p in Phase)
SEAT_FACTS = ("hand_size", "down", "out", "floating", "buys_left", "total", "penalty",
              "progress", "to_act", "asked", "dealer", "turn", "discarder")
MELD_FACTS = ("present", "set", "run", "key", "low", "length", "wilds")  # then owner, one-hot

Vector = npt.NDArray[np.float32]


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


_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}


_PACKS: dict[tuple[int, int], npt.NDArray[np.intp]] = {}


def _pack(view: SeatView) -> npt.NDArray[np.intp]:
    """The pack's copies of each card (made once per pack size; not to be changed)."""
    rules = view.ruleset
    key = (rules.decks_for(len(view.players)), rules.jokers_per_deck)
    pack = _PACKS.get(key)
    if pack is None:
        pack = _PACKS[key] = np.bincount(np.asarray(new_deck(*key), dtype=np.intp),
                                         minlength=NUM_KINDS)
    return pack


def observe(view: SeatView, pending: tuple[int, ...] = (), layout: Layout | None = None
            ) -> Vector:
    """The observation of ``view``'s seat, with ``pending`` the ids already chosen."""
    n = len(view.players)
    lay = layout or Layout(n)
    me = view.me
    out = np.zeros(lay.size, dtype=np.float32)
    p = lay.parts
    # every card plane in one count: each card's index is its plane's start plus the card
    at: list[int] = [p["hand"].start + c for c in view.hand]
    base = p["discard_pile"].start
    at += [base + c for c in view.discard]
    melded, known = lay.melded_starts, lay.known_starts
    for m in view.melds:
        base = melded[(m.owner - me) % n]
        at += [base + c for c in m.cards]
    for s in range(n):
        if view.known[s]:
            base = known[(s - me) % n]
            at += [base + c for c in view.known[s]]
    planes = known[0] + n * NUM_KINDS  # the card planes end with the known ones
    out[:planes] = np.bincount(np.asarray(at, dtype=np.intp), minlength=planes)
    if view.discard:
        out[p["discard_top"].start + view.discard[-1]] = 1
    cards = out[:planes].reshape(-1, NUM_KINDS)
    first_known = known[0] // NUM_KINDS
    seen = cards[0] + cards[1] + cards[4:first_known].sum(axis=0) \
        + cards[first_known + 1:].sum(axis=0)  # the seat's own known cards are in its hand
    out[p["unseen"]] = _pack(view) - seen
    # the facts, phase to the last seat, in one assignment
    deal = view.contract[me]
    hands = view.ruleset.hand_list() if view.ruleset.progression == "all" else ()
    phase = [0.0] * len(PHASES)
    phase[_PHASE_INDEX[view.phase]] = 1.0
    facts: list[float] = [*phase, deal.sets, deal.runs, deal.set_size or 0, deal.run_size or 0,
                          view.hand_number, len(hands), view.stock_size, view.fresh]
    to_act, asked = view.to_act, view.asked
    for r in range(n):
        s = (me + r) % n
        facts += (view.hand_sizes[s], view.down[s], view.out[s], view.floating[s],
                  view.buys[s], view.totals[s], view.penalties[s], view.progress[s],
                  s in to_act, s in asked, s == view.dealer, s == view.turn,
                  s == view.discarder)
    out[p["phase"].start:p["melds"].start] = facts
    melds = view.melds[:codec.MAX_MELDS]
    if melds:
        width = lay.meld_width
        table = [0.0] * (width * len(melds))
        deuces = view.ruleset.deuces_wild
        facts_n = len(MELD_FACTS)
        for i, m in enumerate(melds):
            at0 = i * width
            is_set = m.kind == "set"
            table[at0:at0 + facts_n] = (
                1, is_set, not is_set, m.key, 0 if is_set else m.lo, len(m.cards),
                sum(1 for x in m.cards if is_wild(x, deuces)))
            table[at0 + facts_n + (m.owner - me) % n] = 1
        start = p["melds"].start
        out[start:start + len(table)] = table
    if pending:
        out[p["pending"]] = np.bincount(np.asarray(pending, dtype=np.intp),
                                        minlength=codec.SIZE)
    return out
