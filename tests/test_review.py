"""The game review judges well: stacked positions with a clearly bad move are labelled a
mistake or a blunder with the right move named; a seat that saw the same things gets the same
verdicts whatever the hidden cards were (no hindsight), and at a table of two the same guesses
of the other hand; a review is reproducible, whatever the worker count; and many records
reviewed as a batch, here or on Ray, get the reviews they get alone.

Domain words: *position* (a stacked deal and the few actions that lead to the decision in
question), *verdict* (a decision's label, loss and best candidate, ``review.Decision``).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import C, act, stacked_game
from scenario import pass_buys

from liverpool.actions import Action
from liverpool.bots import BasicBot
from liverpool.engine import Game, stacked_deck, unseen_cards
from liverpool.record import game_record
from liverpool.review import (
    CONFIRM_ROUNDS,
    Decision,
    SeatReview,
    judge,
    label_of,
    paired_loss,
    review,
    tasks_of,
    undecided,
    weigh,
)
from liverpool.reviewrun import ReviewRunError, review_many, review_records
from liverpool.rules import RuleSet

BAD = ("mistake", "blunder")


def verdict(game: Game, seat: int, worlds: int = 24) -> Decision:
    """The verdict on the record's last action (the seat's), weighed alone."""
    rec = game_record(game)
    index = len(rec["actions"]) - 1
    _, tasks = tasks_of(rec, [seat], worlds)
    task = next(t for t in tasks if t.index == index)
    return judge(task, weigh(task))


# ---- (1) clearly bad moves -------------------------------------------------------------------
def test_discarding_a_joker_for_nothing_is_a_blunder() -> None:
    # contract 2 (a set and a run): 3H 4H JK 6H is a run and 9D 9C wants a third 9; the joker
    # is the hand's best card and throwing it gains nothing
    g = stacked_game("classic", ["3H 4H JK 6H 9D 9C 2S 8D KD QC 10S",
                                 "2H 3C 5C 6C 8D 10H JS QS KS AH AD",
                                 "2S 3S 4D 5D 6S 8H 10D JD QD KH AC"], "2C", "7C", dealer=2,
                     overrides={"hands": [2]}, contract_no=2)
    act(g, player=0, type="draw")
    pass_buys(g)
    act(g, player=0, type="discard", card="JK")
    d = verdict(g, 0)
    assert d.label in BAD, (d.loss, d.se)
    assert d.best.type == "discard" and d.best.card != C("JK")[0]
    assert "threw away a wild card" in d.why and "instead" in d.why


def test_drawing_from_the_stock_when_the_discard_completes_the_contract_before_an_out() -> None:
    # seat 1 takes the upcard 8H, goes down with five 8s and five 5s and keeps the 8H: it lays
    # it off and goes out on its next turn. Seat 2 throws 9S, the card seat 0's sets (7H 7S 7D,
    # 9D 9C) need; seat 0 draws from the stock and cannot go down before the hand ends
    g = stacked_game("classic", ["7H 7S 7D 9D 9C 2S 4D 6C 10H QC KD",
                                 "8S 8S 8D 8D 8C 5H 5S 5D 5C 5H JC",
                                 "9S 2H 3H 6D 10S JS QS KS AH AD 4C"], "8H", "KC AS 3D")
    act(g, player=1, type="take_discard")
    act(g, player=1, type="go_down", melds=[["8S", "8S", "8D", "8D", "8C"],
                                                  ["5H", "5S", "5D", "5C", "5H"]])
    act(g, player=1, type="discard", card="JC")
    act(g, player=2, type="draw")
    pass_buys(g)
    act(g, player=2, type="discard", card="9S")
    assert len(g.hands[1]) == 1
    act(g, player=0, type="draw")
    d = verdict(g, 0)
    assert d.label in BAD, (d.loss, d.se)
    assert d.best.type == "take_discard"
    assert "9S on the pile helps your contract" in d.why


def fed_run_position() -> Game:
    # standard rules with a discard taken in turn (no call) and going out on a discard, contract
    # 2: seat 1 is down with 9H 9S 9D 9C and the run 3H-7H and holds 2D alone. Seat 0 needs one
    # of 8S, QS or a joker for its run (it has the set KC KS KD) and holds aces. Throwing 8H lets
    # seat 1 take it, lay it off and go out on 2D at once, seat 0 paying for its whole hand
    g = stacked_game("standard", ["8H KC KS KD 9S 10S JS AS AC QD",
                                  "3H 4H 5H 6H 7H 9H 9S 9D 9C 2D",
                                  "2S 3S 4D 6C 6S 10H JC QH KH AD"], "JD", "5C 3D 4C",
                     overrides={"hands": [2], "playable_discard": "none", "going_out": "discard"},
                     contract_no=2)
    act(g, player=1, type="draw")
    pass_buys(g)
    act(g, player=1, type="go_down",
        melds=[["9H", "9S", "9D", "9C"], ["3H", "4H", "5H", "6H", "7H"]])
    act(g, player=1, type="discard", card="5C")
    act(g, player=2, type="draw")
    pass_buys(g)
    act(g, player=2, type="discard", card="2S")
    act(g, player=0, type="draw")
    pass_buys(g)
    act(g, player=0, type="discard", card="8H")
    return g


def test_discarding_the_card_a_down_opponents_run_needs() -> None:
    d = verdict(fed_run_position(), 0)
    assert d.label in BAD, (d.loss, d.se)
    assert d.best.type == "discard" and d.best.card != C("8H")[0]
    assert "fed P1's meld" in d.why


def test_an_undecided_loss_is_weighed_again_until_it_is_decided() -> None:
    # a hand's points swing widely: 24 worlds leave this feed's loss inside its noise, so the
    # confirmation goes on in fresh worlds, a round at a time, and stops once it is decided
    g = fed_run_position()
    rec = game_record(g)
    _, tasks = tasks_of(rec, [0], 24)
    task = next(t for t in tasks if t.index == len(rec["actions"]) - 1)
    w = weigh(task)
    assert w.confirm is not None
    played, other = w.confirm
    rounds = len(played) // 24
    assert len(played) == len(other) == rounds * 24 and 1 < rounds <= CONFIRM_ROUNDS
    for k in range(1, rounds):
        assert undecided(*paired_loss(played[:k * 24], other[:k * 24]))
    assert rounds == CONFIRM_ROUNDS or not undecided(*paired_loss(played, other))


def test_buying_in_the_last_contract_when_the_cards_cannot_be_melded() -> None:
    # contract 7 (three runs, every card melded at once): seat 0 holds 3H-6H, 8C-JC and 5S 6S
    # 7S and waits for 4S or 8S; buying KD brings KD and a penalty card it cannot meld
    g = stacked_game("classic", ["3H 4H 5H 6H 8C 9C 10C JC 5S 6S 7S",
                                 "2H 3C 5C 6C 8D 10H JS QS KS AH KD",
                                 "2S 3S 4D 5D 6D 8H 10D JD QD KH AC"], "2C", "9D 3D 4C",
                     overrides={"hands": [7]}, contract_no=7)
    act(g, player=1, type="draw")
    pass_buys(g)
    act(g, player=1, type="discard", card="KD")
    act(g, player=2, type="draw")
    act(g, player=0, type="buy")
    d = verdict(g, 0)
    assert d.kind == "buy"
    assert d.label in BAD, (d.loss, d.se)
    assert d.best.type == "pass"
    assert "cost more points than they could help" in d.why
    # the game's one hand is its last: the buy's cost is also told as a chance of winning
    assert d.standing is not None and d.standing[0] > 2 * d.standing[1] > 0
    assert "of your chance to win the game" in d.why
    assert d.to_json()["standing"]["win_chance_lost"] == round(d.standing[0], 1)


def test_a_decision_before_the_last_hand_has_no_standing() -> None:
    # the twin records play the first of classic's seven hands
    rec = twin_records()[0]
    decisions = review(rec, [0], worlds=4).seats[0].decisions
    assert decisions and all(d.standing is None for d in decisions)
    assert all("standing" not in d.to_json() for d in decisions)


# ---- (2) no hindsight ------------------------------------------------------------------------
HANDS = ["7H 7S 7D 9D 9C 2S 4D 6C 10H QC KD",
         "3H 4H 5H 6H 8C 9C 10C JC 5S 6S 7S",
         "2S 3S 4C 5D 6S 8H 10D JD QD KH AC"]
STOCK = "KC AS 3D 5C 6D JS 4S"


def twin_records() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two records of the same actions from deals that differ only in cards seat 0 never
    sees: seat 2 holds 4C in one and 2H in the other (it never plays it), that 2H or 4C lying
    deep in the stock."""
    rules = RuleSet.preset("classic")
    first = stacked_deck(rules, 3, 0, [C(h) for h in HANDS], C("8H")[0], C(STOCK))
    # dealer 0 deals seat 1, seat 2, seat 0, seat 1...: seat 2's cards are at 1, 4, 7...
    held = next(i for i in range(33) if i % 3 == 1 and first[i] == C("4C")[0])
    deep = max(i for i, c in enumerate(first) if c == C("2H")[0])
    assert deep > 60  # never drawn in the few turns played
    second = list(first)
    second[held], second[deep] = second[deep], second[held]
    recs = []
    for deck in (first, second):
        g = Game(rules, ["A", "B", "C"], seed=1, deals=[deck], first_dealer=0)
        script(g)
        recs.append(game_record(g))
    return recs[0], recs[1]


def script(g: Game) -> None:
    """A few turns in which seat 0 makes real choices and seat 2 never shows 4C or 2H."""
    act(g, player=1, type="draw")
    pass_buys(g)
    act(g, player=1, type="discard", card="7S")
    act(g, player=2, type="draw")
    pass_buys(g)
    act(g, player=2, type="discard", card="KH")
    act(g, player=0, type="draw")
    pass_buys(g)
    act(g, player=0, type="discard", card="KD")
    act(g, player=1, type="draw")
    pass_buys(g)
    act(g, player=1, type="discard", card="JC")
    act(g, player=2, type="draw")
    pass_buys(g)
    act(g, player=2, type="discard", card="QD")
    act(g, player=0, type="draw")
    pass_buys(g)
    act(g, player=0, type="discard", card="QC")


def test_twin_records_differ_only_in_cards_seat_0_never_sees() -> None:
    a, b = twin_records()
    assert a["actions"] == b["actions"] and a["deals"] != b["deals"]
    ga, ta = tasks_of(a, [0], 8)
    gb, tb = tasks_of(b, [0], 8)
    assert ga.hands[2] != gb.hands[2]  # seat 2's hidden hand differs
    assert [t.index for t in ta] == [t.index for t in tb] and len(ta) >= 3
    # what the weighing is given of each decision is the same: the seat's view, nothing more
    assert [t.view for t in ta] == [t.view for t in tb]
    assert [t.candidates for t in ta] == [t.candidates for t in tb]


def test_no_hindsight_same_view_same_verdicts() -> None:
    # (each decision's worlds were once seeded by the record's deals: the hidden cards then
    # drew other worlds, and a close decision changed its best move; they are seeded by what
    # the seat saw now)
    a, b = twin_records()
    ra, rb = (review(r, [0], worlds=16).seats[0].decisions for r in (a, b))
    assert [(d.index, d.label, d.best, d.loss) for d in ra] == \
        [(d.index, d.label, d.best, d.loss) for d in rb]


# ---- (3) reproducible ------------------------------------------------------------------------
def small_record() -> dict[str, Any]:
    g = stacked_game("classic", HANDS, "8H", STOCK, names=["A", "B", "C"])
    script(g)
    return game_record(g)


def test_a_review_is_reproducible_and_the_workers_change_nothing() -> None:
    rec = small_record()
    once = json.dumps(review(rec, [0, 1], worlds=6, workers=1).to_json())
    again = json.dumps(review(rec, [0, 1], worlds=6, workers=1).to_json())
    two = json.dumps(review(rec, [0, 1], worlds=6, workers=2).to_json())
    assert once == again == two
    assert json.loads(once)["seats"][0]["decisions"]


# ---- many records: reviewrun -----------------------------------------------------------------
def write_records(folder: Path) -> list[Path]:
    a = twin_records()[0]
    paths = [folder / "g1.json", folder / "g2.json"]
    for p, rec in zip(paths, (a, small_record()), strict=True):
        p.write_text(json.dumps(rec))
    return paths


def test_review_many_gives_each_file_its_own_review(tmp_path: Path) -> None:
    paths = write_records(tmp_path)
    ticks: list[tuple[int, int]] = []
    out = review_many(paths, [0], worlds=4, workers=2,
                      progress=lambda d, t: ticks.append((d, t)))
    assert list(out) == [str(p) for p in paths]
    for p in paths:
        alone = review(json.loads(p.read_text()), [0], worlds=4)
        assert out[str(p)].to_json() == alone.to_json()
    assert ticks and ticks[-1][0] == ticks[-1][1] == sum(
        len(r.seats[0].decisions) for r in out.values())


def test_review_many_names_the_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{\"rules\": 3}")
    with pytest.raises(ReviewRunError, match=r"bad\.json"):
        review_many([bad], [0])
    with pytest.raises(ReviewRunError, match="seats"):
        review_records([small_record()], [5])


def test_review_many_on_ray_gives_the_local_reviews(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="the ray backend needs Ray (the 'ray' extra)")
    paths = write_records(tmp_path)
    local = review_many(paths, [0], worlds=3, workers=1)
    remote = review_many(paths, [0], worlds=3, workers=2, backend="ray")
    assert {k: v.to_json() for k, v in remote.items()} == {k: v.to_json()
                                                          for k, v in local.items()}


# ---- the benchmark's arithmetic --------------------------------------------------------------
def seat_review(level: str, losses: list[float]) -> SeatReview:
    out = SeatReview(0, level)
    play = Action.from_json({"player": 0, "type": "draw"})
    out.decisions = [Decision(i, "draw", play, play, x, 0.5, label_of(x, 0.5), "", 1)
                     for i, x in enumerate(losses)]
    return out


def test_the_study_finds_each_level_in_its_rotated_seat() -> None:
    from liverpool.benchmarks.review import TABLE, seats_of
    from liverpool.simulate import specs_for
    for spec in specs_for(8, "standard", {}, TABLE, 1):
        where = seats_of(spec.bots)
        assert {lvl: spec.bots[s] for lvl, s in where.items()} == {
            "random": "random", "basic": "basic", "expert": "expert"}
        assert where["random"] == spec.index % 4  # the table turns one seat a game


def test_the_study_is_ordered_only_with_the_intervals_apart() -> None:
    from liverpool.benchmarks.review import summarise
    apart = {"random": [seat_review("r", [30.0, 20.0, 25.0])] * 6,
             "basic": [seat_review("b", [8.0, 4.0, 6.0])] * 6,
             "expert": [seat_review("e", [0.0, 1.0, 0.0])] * 6}
    out = summarise(apart, 1)
    assert out["ordered"]
    e = out["levels"]["expert"]
    assert e["games"] == 6 and e["ci95"][0] <= e["accuracy"] <= e["ci95"][1]
    assert out["levels"]["random"]["labels_per_game"] == {"inaccuracy": 0.0, "mistake": 1.0,
                                                          "blunder": 2.0}
    # the basic level's mean below the expert's, but its interval reaches over it
    mixed = {**apart, "basic": [seat_review("b", [0.0, 0.0, 0.0])] * 5
             + [seat_review("b", [20.0, 20.0, 20.0])]}
    assert out["levels"]["expert"]["accuracy"] > summarise(mixed, 1)["levels"]["basic"][
        "accuracy"]
    assert not summarise(mixed, 1)["ordered"]


def test_bench_review_exits_1_and_says_so_when_not_ordered(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from liverpool import cli
    from liverpool.benchmarks import review as bench
    apart = {"random": [seat_review("r", [30.0, 20.0, 25.0])] * 6,
             "basic": [seat_review("b", [8.0, 4.0, 6.0])] * 6,
             "expert": [seat_review("e", [0.0, 1.0, 0.0])] * 6}
    seen: list[tuple[int, int, int, int]] = []

    def study(games: int, worlds: int, workers: int, seed: int, *_: Any) -> dict[str, Any]:
        seen.append((games, worlds, workers, seed))
        return bench.summarise(levels, seed)
    monkeypatch.setattr(bench, "study", study)
    levels = apart
    argv = ["bench", "review", "--part", "study", "--games", "3", "--worlds", "5", "--seed", "7"]
    assert cli.main(argv) == 0
    assert seen == [(3, 5, 2, 7)] and "ordered: expert > basic > random" in capsys.readouterr().out
    levels = {**apart, "basic": apart["random"]}
    assert cli.main(argv) == 1
    assert "NOT ORDERED" in capsys.readouterr().out
    assert cli.main([*argv, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["study"]["ordered"] is False


# ---- (2b) the belief of the other hand: what the seat heard, nothing more ---------------------
def two_seat_twins() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two records of the same 2-player actions (basic bots, no one down) from deals that
    differ only in cards seat 0 never sees: a card seat 1 was dealt and still holds at the end
    swapped with the pack's last card, never drawn."""
    rules = RuleSet.preset("arena")
    start = Game(rules, 2, seed=31)
    deck = stacked_deck(rules, 2, 0, [start.hands[0], start.hands[1]], start.discard[-1])
    g = Game(rules, ["A", "B"], seed=1, deals=[deck], first_dealer=0)
    bot, rng = BasicBot(), random.Random(4)
    for _ in range(40):
        seat = g.to_act()[0]
        a = bot.choose(g.view_for(seat), g.legal_actions(seat), rng)
        if a.type == "go_down" or g.over:
            break
        g.apply(a)
    size = len(start.hands[1])
    held = next(i for i in range(0, 2 * size, 2)  # dealer 0 deals seat 1 first
                if deck[i] in g.hands[1] and deck[i] != deck[-1]
                and deck[i] not in g.view_for(0).known[1])
    twin = list(deck)
    twin[held], twin[-1] = twin[-1], twin[held]
    recs = [game_record(g)]
    h = Game(rules, ["A", "B"], seed=1, deals=[twin], first_dealer=0)
    for obj in recs[0]["actions"]:
        h.apply(Action.from_json(obj))
    recs.append(game_record(h))
    assert g.hands[1] != h.hands[1]
    return recs[0], recs[1]


def test_the_reviews_belief_hears_only_what_the_seat_saw() -> None:
    a, b = two_seat_twins()
    (_, ta), (_, tb) = tasks_of(a, [0], 8), tasks_of(b, [0], 8)
    assert [t.view for t in ta] == [t.view for t in tb] and len(ta) >= 5
    followed = [t for t in ta if t.guesses is not None]
    assert len(followed) >= len(ta) - 1  # every decision after the hand's first update
    assert [t.guesses for t in ta] == [t.guesses for t in tb]
    for t in followed:
        assert t.guesses is not None
        ((seat, guesses, weights),) = t.guesses.seats
        assert seat == 1 and len(guesses) == len(weights)
        unseen = unseen_cards(t.view)
        size = t.view.hand_sizes[1] - len(t.view.known[1])
        assert all(len(guess) == size and not Counter(guess) - unseen for guess in guesses)
    # the review's verdicts follow: the same in both
    ra, rb = (review(r, [0], worlds=4).seats[0].decisions for r in (a, b))
    assert [(d.index, d.best, d.loss) for d in ra] == [(d.index, d.best, d.loss) for d in rb]


def test_a_table_of_three_is_reviewed_in_random_worlds() -> None:
    _, tasks = tasks_of(twin_records()[0], [0], 8)
    assert tasks and all(t.guesses is None for t in tasks)


def test_a_two_seat_review_is_the_same_in_two_workers() -> None:
    # (the belief's guesses travel to the workers with each decision: in the compiled core they
    # once could not be unpickled, and the pool broke)
    rec = two_seat_twins()[0]
    one, two = (review(rec, [0], worlds=4, workers=w).seats[0].decisions for w in (1, 2))
    assert one and [d.to_json() for d in one] == [d.to_json() for d in two]
