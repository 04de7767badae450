"""Standings and ratings, below every front end: places from totals (ties shared, leavers last),
the standings of a finished game worked out from its events against the engine's own score
sheet over every preset and random rule sets, the statistics' sums, and the rating update
against the OpenSkill library's own numbers (fixed seats kept, fewer than two seats unchanged).

Domain words: place, leaver, standing, tally, statistics, rating, entry (liverpool.standings,
liverpool.ratings).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import rule_sets

from liverpool.engine import Game
from liverpool.engine.events import HandEnded, HandStarted
from liverpool.ratings import BETA, MU, SIGMA, TAU, Entry, Rating, places, rate
from liverpool.record import game_record, new_game_from_record, steps
from liverpool.rules import PRESET_NAMES, RuleSet
from liverpool.soak import RandomRules
from liverpool.standings import Stats, Tally, standings_of_record

totals_st = st.lists(st.integers(0, 400), min_size=2, max_size=8)


@given(totals_st, st.data())
def test_places_share_ties_and_put_leavers_last(totals: list[int], data: st.DataObject
                                                ) -> None:
    n = len(totals)
    leavers = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    got = places(totals, leavers)
    stay = [s for s in range(n) if s not in leavers]
    for s in stay:  # a place is one more than the seats that did strictly better
        assert got[s] == 1 + sum(1 for o in stay if totals[o] < totals[s])
        assert got[s] <= len(stay)
    for s in leavers:
        assert got[s] == len(stay) + 1
    for a in stay:
        for b in stay:
            assert (got[a] < got[b]) == (totals[a] < totals[b])


def _random_game(rules: RuleSet, players: int, seed: int) -> Game:
    game = Game(rules, players, seed=seed)
    rng = random.Random(seed)
    while not game.over:
        seat = game.to_act()[0]
        game.apply(rng.choice(game.legal_actions(seat)))
    return game


def _check_standings(game: Game) -> None:
    rec = game_record(game)
    replayed, standings = standings_of_record(rec)
    assert replayed.snapshot() == game.snapshot()
    hands = len(game.scores)
    assert [s.points for s in standings] == list(game.totals)
    assert [s.place for s in standings] == list(places(game.totals))
    assert {s.seat for s in standings if s.place == 1} == set(game.winners)
    for s in standings:
        assert s.hands == hands
        assert sum(played for played, _ in s.contracts.values()) == hands
        assert all(0 <= made <= played for played, made in s.contracts.values())
        assert 0 <= s.went_out <= hands
    # against the hands' ends counted here, one by one: who went out, who went down under
    # which contract, who bought
    outs, buys = [0] * game.n, [0] * game.n
    made: list[dict[str, list[int]]] = [{} for _ in range(game.n)]
    fresh = new_game_from_record(rec)
    contract = [c.describe() for c in fresh.hand_started().contract]
    for step in steps(None, fresh, rec["actions"]):
        for e in step.events:
            if isinstance(e, HandStarted):
                contract = [c.describe() for c in e.contract]
            elif isinstance(e, HandEnded):
                for seat in range(game.n):
                    outs[seat] += e.end.out[seat]
                    buys[seat] += e.end.buys[seat]
                    row = made[seat].setdefault(contract[seat], [0, 0])
                    row[0] += 1
                    row[1] += e.end.down[seat]
    assert [s.went_out for s in standings] == outs
    assert [s.buys for s in standings] == buys
    assert [s.contracts for s in standings] == made


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_standings_from_the_events_are_the_engines_score_sheet(preset: str) -> None:
    rules = RuleSet.preset(preset, {"hands": [1, 2, 3]} if preset != "hoyle" else {})
    for seed in range(3):
        _check_standings(_random_game(rules, 3 + seed % 2, seed))


@settings(max_examples=15, deadline=None)
@given(rule_sets())
def test_standings_under_random_rule_sets(rr: RandomRules) -> None:
    _check_standings(_random_game(rr.rules(), rr.players, 7))


def test_a_game_not_over_has_no_standings() -> None:
    game = Game(RuleSet.preset("standard"), 3, seed=1)
    with pytest.raises(ValueError, match="not over"):
        standings_of_record(game_record(game))


def test_statistics_sum_the_standings_and_read_as_rates() -> None:
    game = _random_game(RuleSet.preset("standard", {"hands": [1, 2]}), 3, 4)
    _, standings = standings_of_record(game_record(game))
    stats = Stats()
    for s in standings:
        stats.add(s, 3)
    again = Stats.from_json(stats.to_json())
    assert again == stats
    fig = stats.figures()
    assert fig["games"] == 3 and fig["hands"] == 6
    assert fig["wins"] == len(game.winners)
    assert fig["points_per_hand"] == round(sum(game.totals) / 6, 1)
    assert fig["mean_place"] == round(sum(s.place for s in standings) / 3, 2)
    assert [c["hands"] for c in fig["contracts"]] == [3, 3]
    assert Stats().figures()["points_per_hand"] is None  # nothing to divide: no rate


def test_the_rating_update_is_the_librarys_with_fixed_seats_kept() -> None:
    from openskill.models import PlackettLuce
    model = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)
    entries = [Entry(Rating(), 2), Entry(Rating(1620.0, 140.0), 1),
               Entry(Rating(1500.0, 60.0), 3, fixed=True), Entry(Rating(1400.0, 300.0), 2)]
    theirs = model.rate([[model.rating(mu=e.rating.mu, sigma=e.rating.sigma)] for e in entries],
                        ranks=[e.place for e in entries])
    ours = rate(entries)
    for e, mine, team in zip(entries, ours, theirs, strict=True):
        if e.fixed:
            assert mine == e.rating
        else:
            assert mine.mu == pytest.approx(team[0].mu) and \
                mine.sigma == pytest.approx(team[0].sigma)
    # the winner gains, the last loses, and everyone is surer than before
    assert ours[1].mu > 1620.0 and ours[0].sigma < SIGMA
    assert rate([Entry(Rating(), 1)]) == [Rating()]
    # a newcomer's first win against a strong field moves them far; against a weak field less
    strong = rate([Entry(Rating(), 1), Entry(Rating(1900.0, 60.0), 2, True)])[0].mu
    weak = rate([Entry(Rating(), 1), Entry(Rating(1100.0, 60.0), 2, True)])[0].mu
    assert strong > weak > MU


def test_a_rating_reads_as_players_expect() -> None:
    assert Rating().text() == "1500?" and Rating().provisional
    sure = Rating(1612.4, 90.0)
    assert sure.text() == "1612" and sure.conservative == pytest.approx(1432.4)
    assert Rating.from_json(sure.to_json()) == Rating(1612.4, 90.0)
    for bad in (None, {"mu": "1"}, {"mu": 1, "sigma": 0}, {"mu": True, "sigma": 1}):
        with pytest.raises(ValueError):
            Rating.from_json(bad)


def test_a_tally_hears_only_hand_events() -> None:
    tally = Tally(2)
    tally.hear([])
    assert tally.standings(["A", "B"])[0].place == 1  # 0 to 0: a shared first place
