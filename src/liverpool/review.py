"""Game review: what the expert's search thinks of every decision a seat made in a recorded game.

Domain words: *decision* (one action of the reviewed seat in the record, where it had a real
choice), *kind* (draw, buy, call, go_down, lay_off, discard: what the decision was about),
*candidate* (an action weighed at a decision: the one played, the basic bot's choice and the
alternatives the expert's search weighs), *world* (the hidden cards dealt as the seat's view
allows: only what the seat knew then, never the record's hidden cards; at a table of two the
other hand as the seat's *belief* holds it, ``bots.belief``, fed the record's events as the
seat saw them; elsewhere at random, ``bots.worlds.sample_world``), *score* (a candidate played
out to the hand's end by the playout policy in one world: the seat's points for the hand minus
the other seats' mean, lower is better), *loss*
(expected points the played action gave away against the best candidate: the mean of the paired
score differences over the same worlds, with its standard error), *label* (inaccuracy, mistake
or blunder: a loss past a threshold and clearly more than noise), *accuracy* (0-100, from the
losses: docs/review.md), *why* (the loss in words: what was better and the reason).

A review is reproducible: each decision's worlds come from a random generator seeded by what
the seat saw then (its view), the decision's index and the options; the workers change nothing
but speed. Two games the seat saw alike get the same verdicts, whatever the hidden cards were.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .actions import Action
from .bots.basic import BasicBot
from .bots.belief import Guesses
from .bots.expert import DISCARD_CANDIDATES, PLAYOUT_ROUNDS
from .bots.heuristics import best_borrow, fits_table, keep_values, usefulness
from .bots.hints import view_key
from .bots.policy import estimate_points, play_out
from .bots.race import distance_after, race_discard, race_size
from .bots.recall import followed, recall
from .bots.worlds import sample_world
from .cards import card_str, wild_cards
from .engine import Game, SeatView
from .record import new_game_from_record

WORLDS = 24  # worlds per decision (the default)
MAX_CANDIDATES = 8  # candidates weighed at one decision at most
# labels by expected points lost: at least this many points, and more than NOISE standard errors
INACCURACY, MISTAKE, BLUNDER = 6.0, 12.0, 24.0
NOISE = 3.0  # standard errors a loss must pass to earn a label (docs/review.md: calibration)
CONFIRM_ROUNDS = 4  # a loss still undecided is weighed in fresh worlds up to this many times
ACCURACY_SCALE = 12.0  # points lost at which a decision's accuracy is 100/e (about 37)
KINDS = ("draw", "buy", "call", "go_down", "lay_off", "discard")
LABELS = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True, slots=True)
class Decision:
    """One reviewed decision: the record's ``index``, its ``kind``, the action played and the
    best candidate, the expected points lost (``loss`` >= 0, ``se`` its standard error), the
    label (None: none) and the reason in words."""

    index: int
    kind: str
    action: Action
    best: Action
    loss: float
    se: float
    label: str | None
    why: str
    hand: int  # the hand's number (1-based)
    values: tuple[tuple[Action, float], ...] = ()  # each candidate's mean score, best first
    # in the game's last hand: the chance of winning the game the played action gave away
    # against the best (percentage points) and its standard error; None in other hands
    standing: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"index": self.index, "kind": self.kind, "hand": self.hand,
               "action": self.action.to_json(), "best": self.best.to_json(),
               "loss": round(self.loss, 2), "se": round(self.se, 2), "label": self.label,
               "why": self.why}
        if self.standing is not None:
            out["standing"] = {"win_chance_lost": round(self.standing[0], 1),
                               "se": round(self.standing[1], 1)}
        return out


@dataclass
class SeatReview:
    seat: int
    name: str
    decisions: list[Decision] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        """The mean over decisions of 100·exp(−loss / ACCURACY_SCALE) (docs/review.md)."""
        if not self.decisions:
            return 100.0
        return sum(decision_accuracy(d.loss) for d in self.decisions) / len(self.decisions)

    @property
    def mean_loss(self) -> float:
        return sum(d.loss for d in self.decisions) / len(self.decisions) if self.decisions else 0.0

    def labels(self) -> dict[str, int]:
        return {lab: sum(1 for d in self.decisions if d.label == lab) for lab in LABELS}

    def by_kind(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for kind in KINDS:
            ds = [d for d in self.decisions if d.kind == kind]
            if ds:
                out[kind] = {"decisions": len(ds),
                             "mean_loss": round(sum(d.loss for d in ds) / len(ds), 2),
                             "accuracy": round(sum(decision_accuracy(d.loss) for d in ds)
                                               / len(ds), 1)}
        return out

    def worst(self, n: int = 3) -> list[Decision]:
        return sorted((d for d in self.decisions if d.label is not None),
                      key=lambda d: (-d.loss, d.index))[:n]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "accuracy": round(self.accuracy, 1),
                "mean_loss": round(self.mean_loss, 2), "labels": self.labels(),
                "by_kind": self.by_kind(), "worst": [d.index for d in self.worst()],
                "decisions": [d.to_json() for d in self.decisions]}


@dataclass
class Review:
    seats: list[SeatReview]
    worlds: int

    def to_json(self) -> dict[str, Any]:
        return {"worlds": self.worlds, "thresholds": {"inaccuracy": INACCURACY,
                                                      "mistake": MISTAKE, "blunder": BLUNDER},
                "seats": [s.to_json() for s in self.seats]}


def decision_accuracy(loss: float) -> float:
    return 100.0 * math.exp(-max(0.0, loss) / ACCURACY_SCALE)


def label_of(loss: float, se: float) -> str | None:
    """The label a loss earns: past its threshold and more than ``NOISE`` standard errors."""
    if loss <= NOISE * se:
        return None
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


# ---- what is a decision, and between what ------------------------------------------------------
def kind_of(view: SeatView, played: Action, legal: Sequence[Action]) -> str | None:
    """The kind of decision ``played`` was, or None where the review has nothing to weigh
    (a cut, a give, an action with no alternative)."""
    if len(legal) < 2:
        return None
    t = played.type
    if view.phase == "draw" and t in ("draw", "take_discard", "no_draw"):
        return "draw"
    if view.phase == "buy" and t in ("buy", "pass"):
        return "buy"
    if view.phase == "call" and t in ("call", "pass"):
        return "call"
    if view.phase in ("play", "bonus"):
        if t == "go_down" or any(a.type == "go_down" for a in legal):
            return "go_down"
        if t in ("lay_off", "swap_joker", "borrow"):
            return "lay_off"
        if t == "discard":
            return "discard"
    return None


def candidates(view: SeatView, played: Action, legal: Sequence[Action]) -> list[Action]:
    """The actions weighed at a decision: the one played first, the basic bot's choice, the
    expert's borrow if one is open, then the alternatives of its kind worth comparing (at most
    ``MAX_CANDIDATES``)."""
    basic = BasicBot().decide(view, legal)[0]
    out = [played, basic]
    borrow = best_borrow(legal, view.ruleset)  # the expert's borrow, before the cut to size
    if borrow is not None:
        out.append(borrow)
    groups: dict[str, list[Action]] = {}
    for a in legal:
        groups.setdefault(a.type, []).append(a)
    phase = view.phase
    if phase == "draw":
        for t in ("take_discard", "draw", "no_draw"):
            out.extend(groups.get(t, [])[:1])
    elif phase == "buy":
        out.extend([a for a in groups.get("buy", []) if a.depth is None][:1])
        out.extend(groups.get("pass", [])[:1])
    elif phase == "call":
        out.extend(groups.get("call", [])[:1])
        out.extend(groups.get("pass", [])[:1])
    else:
        out.extend(groups.get("go_down", [])[:2])
        for t in ("lay_off", "swap_joker", "borrow"):
            out.extend(groups.get(t, [])[:3])
        discards = groups.get("discard", [])
        race = race_discard(view, discards)  # the expert's rule in a race hand
        if race is not None:
            out.append(race)
        if discards:
            seat = view.me
            keep = keep_values(view.hand, view.contract[seat], view.ruleset, view.down[seat],
                               view.melds)
            ranked = sorted(discards, key=lambda a: (keep.get(a.card, 0.0)
                                                     if a.card is not None else 0.0,
                                                     -(a.card or 0)))
            out.extend(ranked[:DISCARD_CANDIDATES])
    return list(dict.fromkeys(out))[:MAX_CANDIDATES]


# ---- weighing one decision ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Task:
    """One decision to weigh, as a worker needs it (picklable)."""

    index: int
    kind: str
    hand: int
    view: SeatView
    candidates: tuple[Action, ...]
    seed: int
    worlds: int
    # what the seat could tell of the other hands then (its belief, fed the record's events as
    # the seat saw them); None: the worlds are dealt at random from the view
    guesses: Guesses | None = None

    def world(self, rng: random.Random) -> Game:
        """One world for this decision: from the belief's guesses, else ``sample_world``."""
        if self.guesses is not None:
            return self.guesses.sample(self.view, rng)
        return sample_world(self.view, rng)


@dataclass(frozen=True, slots=True)
class Weighed:
    """A decision's playout scores: every candidate's in the first ``worlds`` worlds (which
    pick the best), and the played action's and that best's again in as many fresh worlds
    (``confirm``), which measure the loss without the first pick's luck in it. Lower scores
    are better."""

    scores: tuple[tuple[float, ...], ...]
    best: int
    confirm: tuple[tuple[float, ...], tuple[float, ...]] | None
    # in the game's last hand, each candidate's share of a win of the game, world by world;
    # and the played action's and the best's in the confirmation's worlds
    wins: tuple[tuple[float, ...], ...] | None = None
    confirm_wins: tuple[tuple[float, ...], tuple[float, ...]] | None = None


def _scores(task: Task, cands: Sequence[Action], rng: random.Random, worlds: int,
            wins: list[list[float]] | None = None) -> list[list[float]]:
    """Each candidate's scores, world by world (common random numbers: every candidate is
    played out in the same worlds with the same random numbers). ``wins``: filled in the same
    way with the seat's share of a win of the game (``game_win``)."""
    view = task.view
    horizon = PLAYOUT_ROUNDS * len(view.players)
    scores: list[list[float]] = [[] for _ in cands]
    for _ in range(worlds):
        world = task.world(rng)
        seed = rng.getrandbits(32)
        for i, cand in enumerate(cands):
            g = world.clone()
            g.apply(cand)
            scores[i].append(play_out(g, view.me, random.Random(seed), horizon))
            if wins is not None:
                if len(wins) <= i:
                    wins.append([])
                wins[i].append(game_win(view, g, world.hand_index))
    return scores


def last_hand(view: SeatView) -> bool:
    """Whether the seat's hand is the game's last (a fixed list of hands; with contracts
    played in one's own order the last hand is not known in advance)."""
    rules = view.ruleset
    return rules.progression == "all" and view.hand_number == len(rules.hand_list())


def game_win(view: SeatView, g: Game, hand: int) -> float:
    """After a playout of the last hand: the seat's share of a win of the game (1 alone with
    the fewest points, shared on a tie), the game's totals before the hand plus the hand's
    points (as it ended, or as it stood when the playout was cut short)."""
    if len(g.scores) > hand:
        row = [float(x) for x in g.scores[hand]]
    else:
        row = [float(estimate_points(g, s)) for s in range(g.n)]
    totals = [t + r for t, r in zip(view.totals, row, strict=True)]
    low = min(totals)
    if totals[view.me] != low:
        return 0.0
    return 1.0 / sum(1 for t in totals if t == low)


def weigh(task: Task) -> Weighed:
    """Weigh the task's candidates; confirm a loss that may earn a label in fresh worlds."""
    rng = random.Random(task.seed)
    wins: list[list[float]] | None = [] if last_hand(task.view) else None
    scores = _scores(task, task.candidates, rng, task.worlds, wins)
    n = len(scores[0])
    means = [sum(x) / n for x in scores]
    best = min(range(len(means)), key=lambda i: (means[i], i))
    confirm = None
    confirm_wins = None
    if best != 0 and means[0] - means[best] >= INACCURACY / 2:
        pair = (task.candidates[0], task.candidates[best])
        played: list[float] = []
        other: list[float] = []
        won: list[list[float]] | None = [[], []] if wins is not None else None
        for r in range(CONFIRM_ROUNDS):
            round_wins: list[list[float]] | None = [] if won is not None else None
            again = _scores(task, pair, random.Random((task.seed ^ 0x5EED) + r),
                            task.worlds, round_wins)
            played += again[0]
            other += again[1]
            if won is not None and round_wins is not None:
                won[0] += round_wins[0]
                won[1] += round_wins[1]
            if not undecided(*paired_loss(played, other)):
                break
        confirm = (tuple(played), tuple(other))
        if won is not None:
            confirm_wins = (tuple(won[0]), tuple(won[1]))
    return Weighed(tuple(tuple(x) for x in scores), best, confirm,
                   None if wins is None else tuple(tuple(x) for x in wins), confirm_wins)


def undecided(loss: float, se: float) -> bool:
    """A loss large enough for a label but not yet past the noise: more worlds may settle it
    (a hand's points swing widely, so a real mistake can hide in 24 worlds' noise)."""
    return INACCURACY <= loss <= NOISE * se


def paired_loss(played: Sequence[float], other: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of ``played`` minus ``other``, world by world."""
    n = len(played)
    diffs = [a - b for a, b in zip(played, other, strict=True)]
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.inf
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


def judge(task: Task, w: Weighed) -> Decision:
    """The decision's verdict (candidate 0: the action played). The loss is the confirmation's
    when there is one; a first look whose loss is small says no more than that."""
    n = len(w.scores[0])
    means = [sum(x) / n for x in w.scores]
    best = w.best
    if best == 0:
        loss, se = 0.0, 0.0
    elif w.confirm is not None:
        loss, se = paired_loss(*w.confirm)
    else:
        loss, se = paired_loss(w.scores[0], w.scores[best])
    loss = max(0.0, loss)
    label = label_of(loss, se)
    played, better = task.candidates[0], task.candidates[best]
    values = tuple(sorted(zip(task.candidates, means, strict=True), key=lambda x: x[1]))
    standing = None
    if w.wins is not None:
        # the chance the best candidate wins the game, less the played action's (measured
        # where the loss is: in the confirmation's worlds when there is one)
        pair = w.confirm_wins or (w.wins[0], w.wins[best])
        lost, lost_se = paired_loss(pair[1], pair[0])
        standing = (100.0 * lost, 100.0 * lost_se if math.isfinite(lost_se) else 0.0)
    why = reason(task.view, played, better, loss) if label is not None else ""
    if why and standing is not None and standing[0] >= 5.0 and standing[0] > 2 * standing[1]:
        why += f"; in the last hand it cost about {standing[0]:.0f}% of your chance to win the game"
    return Decision(task.index, task.kind, played, better, loss, se, label, why, task.hand,
                    values, standing)


# ---- words ---------------------------------------------------------------------------------------
def action_words(a: Action) -> str:
    """An action in short words, cards in the record's notation (``7H``)."""
    c = card_str(a.card) if a.card is not None else ""
    t = a.type
    if t == "draw":
        return "draw from the stock"
    if t == "take_discard":
        return "take the discard"
    if t == "no_draw":
        return "draw nothing"
    if t == "buy":
        return "buy the discard"
    if t == "pass":
        return "pass"
    if t == "call":
        return "call the discard"
    if t == "discard":
        return f"discard {c}"
    if t == "go_down":
        return "go down with " + " | ".join(" ".join(card_str(x) for x in m) for m in a.melds or ())
    if t == "lay_off":
        return f"lay off {c}"
    if t == "swap_joker":
        return f"swap {c} for a wild"
    if t == "borrow":
        return f"borrow from a meld with {c}"
    return t.replace("_", " ")


def reason(view: SeatView, played: Action, better: Action, loss: float) -> str:
    """Why ``better`` beats ``played``, in words, from what the seat could see."""
    rules = view.ruleset
    seat = view.me
    names = view.players
    contract = view.contract[seat]
    because = ""
    size = race_size(view)
    if played.type == "discard" and played.card is not None:
        card = played.card
        wilds = wild_cards(rules.deuces_wild)
        if card in wilds:
            because = f"discarding {card_str(card)} threw away a wild card"
        else:
            fits = [m for m in view.melds if fits_table(card, [m], rules)]
            owners = sorted({m.owner for m in fits if m.owner != seat})
            takers = [s for s in range(len(names)) if s != seat and any(
                k % 13 == card % 13 or (k // 13 == card // 13 and abs(k % 13 - card % 13) <= 2)
                for k in view.known[s] if k not in wilds)]
            if owners:
                because = (f"discarding {card_str(card)} fed "
                           f"{' and '.join(names[s] for s in owners)}'s meld")
            elif takers:
                because = (f"discarding {card_str(card)} helps "
                           f"{' and '.join(names[s] for s in takers)}, seen collecting near it")
            elif better.type == "discard" and better.card is not None and \
                    (short := _short_after(view, played, size)) > \
                    (nearer := _short_after(view, better, size)):
                because = (f"in this race to go out, throwing {card_str(card)} left your hand "
                           f"{_cards(short)} from going out, throwing "
                           f"{card_str(better.card)} {nearer}")
            else:
                use = usefulness(view.hand, contract, rules)
                if use.get(card, 0.0) >= 1.0:
                    because = f"{card_str(card)} was worth keeping for your contract"
    elif played.type == "draw" and better.type == "take_discard" and view.discard:
        top = view.discard[-1]
        because = f"the {card_str(top)} on the pile helps your contract"
    elif played.type == "buy":
        because = "the bought cards cost more points than they could help this hand"
    elif played.type == "pass" and better.type == "buy":
        because = "the discard would have helped your contract"
    elif played.type != "go_down" and better.type == "go_down":
        because = "going down then would have emptied your hand of those melds' points"
    lead = because[0].upper() + because[1:] + ": " if because else ""
    return f"{lead}{action_words(better)} instead (about {loss:.0f} points better)"


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _short_after(view: SeatView, discard: Action, size: int) -> int:
    """Cards the hand lacks to go out once ``discard`` is made, in a race hand of ``size``
    cards (0 elsewhere)."""
    if not size or discard.card is None:
        return 0
    return distance_after(view, discard.card, size)


# ---- the review --------------------------------------------------------------------------------
def tasks_of(rec: dict[str, Any], seats: Iterable[int] | None = None,
             worlds: int = WORLDS) -> tuple[Game, list[Task]]:
    """The decisions to weigh for ``seats`` (None: every seat), from the record replayed by
    the core's replayer; and the game at its end. Each reviewed seat's belief of the other
    hands is rebuilt as the seat heard the game (``bots.recall``) and each decision carries its
    guesses as they stood (at a table the belief does not follow, none)."""
    game = new_game_from_record(rec)
    wanted = set(range(game.n)) if seats is None else set(seats)
    beliefs = followed(game.n, wanted)
    tasks: list[Task] = []
    for moment in recall(rec, beliefs, game):
        played, i = moment.action, moment.index
        s = played.player
        if s in wanted:
            view = game.view_for(s)
            legal = game.legal_actions(s)
            kind = kind_of(view, played, legal)
            if kind is not None:
                cands = candidates(view, game.canonical(played), legal)
                if len(cands) > 1:
                    seed = zlib.crc32(f"{view_key(view)}:{i}:{worlds}".encode())
                    belief = beliefs.get(s)
                    tasks.append(Task(i, kind, view.hand_number, view, tuple(cands), seed,
                                      worlds, None if belief is None else belief.snapshot(view)))
    return game, tasks


def review(rec: dict[str, Any], seats: Iterable[int] | None = None, worlds: int = WORLDS,
           workers: int = 1, progress: Callable[[int, int], None] | None = None) -> Review:
    """Review ``seats`` (None: every seat) of the game in ``rec``: every decision weighed in
    ``worlds`` worlds sampled from the seat's own view at that moment. ``progress(done, total)``
    is told as decisions are weighed."""
    game, tasks = tasks_of(rec, seats, worlds)
    chosen = sorted(set(seats)) if seats is not None else list(range(game.n))
    out = {s: SeatReview(s, game.players[s]) for s in chosen}
    weighed = run_tasks(tasks, workers, progress)
    for task, w in zip(tasks, weighed, strict=True):
        out[task.candidates[0].player].decisions.append(judge(task, w))
    return Review([out[s] for s in chosen], worlds)


def run_tasks(tasks: Sequence[Task], workers: int,
              progress: Callable[[int, int], None] | None = None) -> list[Weighed]:
    """Each task weighed, in order, here or in ``workers`` processes."""
    total = len(tasks)
    results: list[Weighed] = []
    if workers <= 1 or total < 2:
        for t in tasks:
            results.append(weigh(t))
            if progress:
                progress(len(results), total)
        return results
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for w in pool.map(weigh, tasks, chunksize=max(1, min(8, total // (workers * 8)))):
            results.append(w)
            if progress:
                progress(len(results), total)
    return results


def standing_note(game: Game, seat: int) -> str:
    """The seat's place at the game's end, for the review's heading."""
    totals = game.totals
    place = 1 + sum(1 for t in totals if t < totals[seat])
    return f"{game.players[seat]}: {totals[seat]} points, place {place} of {game.n}"
