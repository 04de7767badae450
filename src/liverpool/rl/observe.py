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


_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}


_PACKS: dict[tuple[int, int], npt.NDArray[np.intp]] = {}


def _pack(view: SeatView) -> npt.NDArray[np.intp]:
    """The pack's copies of each card (made once per pack size; not to be changed)."""
    rules = view.ruleset
    key = (rules.decks_for(len(view.players)), rules.jokers_per_deck)
    pack = _PACKS.get(key)
    if pack is None:
        pack = _PACKS[key] = _counts(new_deck(*key))
    return pack


def _counts(cards: tuple[int, ...] | list[int]) -> npt.NDArray[np.intp]:
    return np.bincount(np.asarray(cards, dtype=np.intp), minlength=NUM_KINDS)


def observe(view: SeatView, pending: tuple[int, ...] = (), layout: Layout | None = None
            ) -> Vector:
    """The observation of ``view``'s seat, with ``pending`` the ids already chosen."""
    n = len(view.players)
    lay = layout or Layout(n)
    me = view.me
    out = np.zeros(lay.size, dtype=np.float32)
    p = lay.parts
    seen = _counts(view.hand) + _counts(view.discard)
    out[p["hand"]] = _counts(view.hand)
    out[p["discard_pile"]] = _counts(view.discard)
    if view.discard:
        out[p["discard_top"].start + view.discard[-1]] = 1
    for s in range(n):
        r = (s - me) % n
        melded = _counts([c for m in view.melds if m.owner == s for c in m.cards])
        out[p[f"melded_{r}"]] = melded
        seen += melded
        if view.known[s]:
            known = _counts(view.known[s])
            out[p[f"known_{r}"]] = known
            if s != me:
                seen += known
    out[p["unseen"]] = _pack(view) - seen
    out[p["phase"].start + _PHASE_INDEX[view.phase]] = 1
    deal = view.contract[me]
    out[p["contract"]] = (deal.sets, deal.runs, deal.set_size or 0, deal.run_size or 0)
    hands = view.ruleset.hand_list() if view.ruleset.progression == "all" else ()
    out[p["hand_number"]] = (view.hand_number, len(hands))
    out[p["stock"]] = (view.stock_size, 1.0 if view.fresh else 0.0)
    for s in range(n):
        r = (s - me) % n
        out[p[f"seat_{r}"]] = (
            view.hand_sizes[s], view.down[s], view.out[s], view.floating[s], view.buys[s],
            view.totals[s], view.penalties[s], view.progress[s], s in view.to_act,
            s in view.asked, s == view.dealer, s == view.turn, s == view.discarder)
    base = p["melds"].start
    width = lay.meld_width
    deuces = view.ruleset.deuces_wild
    for i, m in enumerate(view.melds[:codec.MAX_MELDS]):
        at = base + i * width
        is_set = m.kind == "set"
        out[at:at + len(MELD_FACTS)] = (
            1, is_set, not is_set, m.key, 0 if is_set else m.lo, len(m.cards),
            sum(1 for x in m.cards if is_wild(x, deuces)))
        out[at + len(MELD_FACTS) + (m.owner - me) % n] = 1
    if pending:
        out[p["pending"]] = np.bincount(np.asarray(pending, dtype=np.intp),
                                        minlength=codec.SIZE)
    return out
