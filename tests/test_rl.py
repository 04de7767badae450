"""The learning interfaces: the action-id space against the engine's own listing, the
observation built from a seat's view alone, and the PettingZoo environment (its own API and
seed tests, rewards, illegal ids)."""

from __future__ import annotations

import random
from collections import Counter
from itertools import islice

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test
from strategies import rule_sets

from liverpool.actions import Action
from liverpool.engine import Game, HandEnded, IllegalActionError
from liverpool.rl import codec, env, raw_env
from liverpool.rl.codec import STOP, Choice, spell, token_name
from liverpool.rl.observe import Layout, observe
from liverpool.rules import RuleSet
from liverpool.soak import RandomRules

PRESETS = ("hoyle", "classic", "arena", "standard", "house")
MAX_DECISIONS = 300  # per game checked: random play's hands grow long and its games longer
TREE_LIMIT = 400  # decisions whose choice tree has more leaves are checked by sampling
GO_DOWNS_LISTED = 60  # a random hand grown long can have millions of go-downs: check some


def spell_through(choice: Choice, tokens: tuple[int, ...]) -> Action | None:
    """Choose ``tokens`` one by one (each must be offered), then STOP if still incomplete."""
    done = None
    for t in tokens:
        assert done is None, f"the action was complete before {token_name(t)}"
        assert t in choice.legal(), f"{token_name(t)} not offered after {choice.prefix}"
        done = choice.choose(t)
    if done is None:
        assert STOP in choice.legal()
        done = choice.choose(STOP)
    return done


def listed(game: Game, seat: int) -> list[Action]:
    """The engine's listing a choice must cover: every legal action, go-downs once per
    combination of melds (any order of them is legal; the choice lets the melds come in any
    order, and ``test_go_downs_in_any_order`` checks that)."""
    out = [a for a in game.iter_legal(seat) if a.type != "go_down"]
    out += list(islice(game.go_down_combinations(seat), GO_DOWNS_LISTED + 1))
    return out


def leaves(game: Game, seat: int, limit: int) -> list[Action] | None:
    """Every action the choice tree of ``seat`` reaches (depth first), None past ``limit``."""
    found: list[Action] = []

    def walk(choice: Choice) -> bool:
        for t in choice.legal():
            branch = choice.fork()
            done = branch.choose(t)
            if done is not None:
                found.append(done)
                if len(found) > limit:
                    return False
            elif not walk(branch):
                return False
        return True
    return found if walk(Choice(game, seat)) else None


def check_decision(game: Game, seat: int, rng: random.Random, deep: bool) -> Action:
    """Check the choice of ``seat`` now against the engine; return a random complete action."""
    choice = Choice(game, seat)
    heads = {spell(a)[0] for a in game.legal_actions(seat)}
    assert set(choice.legal()) == heads
    quick = game.legal_actions(seat, best=False)
    assert {spell(a)[0] for a in quick} == heads and all(game.is_legal(a) for a in quick)
    if deep:
        everything = listed(game, seat)
        complete = sum(a.type == "go_down" for a in everything) <= GO_DOWNS_LISTED
        for a in everything[:TREE_LIMIT]:
            got = spell_through(Choice(game, seat), spell(a))
            assert got is not None and game.is_legal(got) and Counter(got.melds or ()) == \
                Counter(a.melds or ()) and got.replace(melds=None) == a.replace(melds=None)
        reached = leaves(game, seat, TREE_LIMIT)
        if reached is not None and complete:
            for a in reached:
                assert game.is_legal(a), (a, game.why_illegal(a))
            norm = {a.replace(melds=tuple(sorted(a.melds))) if a.melds else a for a in reached}
            want = {a.replace(melds=tuple(sorted(a.melds))) if a.melds else a
                    for a in everything}
            assert norm == want
    done = None
    while done is None:
        done = choice.choose(rng.choice(choice.legal()))
    assert game.is_legal(done), (done, game.why_illegal(done))
    return done


def play_checked(game: Game, seed: int) -> int:
    rng = random.Random(seed)
    decisions = 0
    while not game.over and decisions < MAX_DECISIONS:
        seat = game.to_act()[0]
        game.apply(check_decision(game, seat, rng, deep=decisions % 4 == 0))
        decisions += 1
    return decisions


@pytest.mark.parametrize("preset", PRESETS)
def test_every_listed_action_is_spelled_and_every_id_ends_in_a_legal_action(preset: str
                                                                           ) -> None:
    rules = RuleSet.preset(preset)
    for players, seed in ((rules.min_players, 1), (4, 2)):
        assert play_checked(Game(rules, players, seed=seed), seed) > 50


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(rr=rule_sets(), seed=st.integers(0, 2**31 - 1))
def test_the_id_space_covers_random_rule_sets(rr: RandomRules, seed: int) -> None:
    play_checked(Game(rr.rules(), rr.players, seed=seed), seed)


def go_down_position() -> tuple[Game, int]:
    """A standard game at the first seat's play with a go-down of two melds to make."""
    for seed in range(200):
        g = Game(RuleSet.preset("standard"), 3, seed=seed)
        rng = random.Random(seed)
        while not g.over and g.hand_number() == 1:
            seat = g.to_act()[0]
            combos = list(g.go_down_combinations(seat))
            if any(len(a.melds or ()) >= 2 for a in combos):
                return g, seat
            legal = [a for a in g.legal_actions(seat) if a.type != "go_down"]
            g.apply(rng.choice(legal))
    raise AssertionError("no go-down found")  # pragma: no cover


def test_go_downs_in_any_order() -> None:
    g, seat = go_down_position()
    combo = next(a for a in g.go_down_combinations(seat) if len(a.melds or ()) >= 2)
    melds = combo.melds or ()
    for order in (melds, tuple(reversed(melds))):
        a = combo.replace(melds=order)
        got = spell_through(Choice(g, seat), spell(a))
        assert got == a and g.is_legal(got)
    # and the first meld placed on the table is the one spelled first
    first = Choice(g, seat)
    done = spell_through(first, spell(combo.replace(melds=tuple(reversed(melds)))))
    assert done is not None
    g.apply(done)
    assert sorted(g.melds[-len(melds)].cards) == sorted(melds[-1])


def test_an_illegal_id_is_refused_with_a_reason_and_changes_nothing() -> None:
    g = Game(RuleSet.preset("arena"), 2, seed=3)
    seat = g.to_act()[0]
    choice = Choice(g, seat)
    before = (choice.prefix, list(choice.legal()))
    bad = next(t for t in range(codec.SIZE) if t not in choice.legal())
    with pytest.raises(IllegalActionError, match="not legal now"):
        choice.choose(bad)
    with pytest.raises(IllegalActionError, match="out of range"):
        choice.choose(codec.SIZE)
    assert (choice.prefix, choice.legal()) == before


def test_token_names_cover_the_space_once() -> None:
    names = [token_name(t) for t in range(codec.SIZE)]
    assert len(set(names)) == codec.SIZE
    assert names[codec.DISCARD + 0] == "DISCARD AS" and names[codec.STOP] == "STOP"
    assert names[codec.NUMBER + 479] == "NUMBER 479"
    with pytest.raises(codec.TokenError):
        token_name(codec.SIZE)
    with pytest.raises(codec.TokenError, match="meld place 160"):
        spell(Action("lay_off", 0, card=5, meld=160))


# ---- observations ------------------------------------------------------------------------

def mid_game(preset: str, players: int, seed: int, decisions: int) -> Game:
    g = Game(RuleSet.preset(preset), players, seed=seed)
    rng = random.Random(seed)
    from liverpool.bots import BasicBot
    bot = BasicBot()
    for _ in range(decisions):
        seat = g.to_act()[0]
        g.apply(bot.choose(g.view_for(seat), g.legal_actions(seat), rng))
    return g


@pytest.mark.parametrize(("preset", "players"), [("standard", 4), ("arena", 2), ("house", 3)])
def test_two_states_with_the_same_view_give_the_same_observation(preset: str,
                                                                  players: int) -> None:
    g = mid_game(preset, players, seed=4, decisions=60)
    seat = g.to_act()[0]
    view = g.view_for(seat)
    mine = observe(view)
    changed = 0
    for k in range(5):
        world = g.determinized(seat, random.Random(k))
        assert world.view_for(seat) == view
        other = (seat + 1) % players
        changed += world.held(other) != g.held(other)
        assert np.array_equal(observe(world.view_for(seat)), mine)
    assert changed, "the worlds should differ in what the seat cannot see"


def test_the_observation_counts_the_cards() -> None:
    g = mid_game("standard", 4, seed=2, decisions=40)
    seat = g.to_act()[0]
    view = g.view_for(seat)
    lay = Layout(4)
    obs = observe(view, (codec.GO_DOWN, codec.CARD + 7), lay)
    parts = lay.parts
    assert obs[parts["hand"]].sum() == len(view.hand)
    assert obs[parts["discard_pile"]].sum() == len(view.discard)
    hidden = sum(view.hand_sizes) - len(view.hand) - sum(
        len(k) for s, k in enumerate(view.known) if s != seat)
    assert obs[parts["unseen"]].sum() == hidden + view.stock_size
    assert obs[parts["pending"]][codec.GO_DOWN] == 1 and obs[parts["pending"]].sum() == 2
    assert obs[parts["seat_0"]][0] == len(view.hand)
    assert lay.size == parts["pending"].stop


# ---- the environment ----------------------------------------------------------------------

# the checker advises a Box observation; ours is the field's pattern for masked actions (a Dict
# of the observation and the action mask, as PettingZoo's own card games), so its advice is
# expected, not a fault
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.parametrize(("rules", "players"), [("arena", 2), ("standard", 4), ("house", 3)])
def test_pettingzoo_api_test(rules: str, players: int) -> None:
    api_test(env(rules=rules, players=players, seed=7), num_cycles=200)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: env(rules="standard", players=4), num_cycles=200)
    seed_test(lambda: env(rules="hoyle", players=2, reward="game"), num_cycles=100)


def random_step(e: object, rng: np.random.Generator) -> None:
    obs, _, term, trunc, _ = e.last()  # type: ignore[attr-defined]
    if term or trunc:
        e.step(None)  # type: ignore[attr-defined]
        return
    e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))  # type: ignore[attr-defined]


def test_hand_rewards_are_the_hands_points_negated() -> None:
    e = raw_env(rules="arena", players=2, seed=11)
    e.reset()
    rng = np.random.default_rng(0)
    game = e.game
    assert game is not None
    while game.hand_number() == 1:
        random_step(e, rng)
    points = game.scores[0]
    assert any(points)
    assert [e.rewards[a] for a in e.possible_agents] == [-float(p) for p in points]


def test_game_rewards_go_to_the_winners() -> None:
    e = raw_env(rules="arena", players=2, seed=5, reward="game",
                overrides={"hands": [1]})
    e.reset()
    rng = np.random.default_rng(1)
    while not all(e.terminations.values()):
        random_step(e, rng)
    game = e.game
    assert game is not None and game.over
    shares = {e.possible_agents[s]: 1 / len(game.winners) for s in game.winners}
    assert {a: e._cumulative_rewards[a] for a in e.agents} == \
        {a: shares.get(a, 0.0) for a in e.agents}


def test_an_illegal_id_in_the_raw_environment_raises_and_changes_nothing() -> None:
    e = raw_env(rules="standard", players=4, seed=2)
    e.reset()
    obs = e.observe(e.agent_selection)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    agent = e.agent_selection
    e._cumulative_rewards[agent] = 5.0  # as if a hand had just paid it
    with pytest.raises(IllegalActionError):
        e.step(bad)
    assert e.agent_selection == agent and e._cumulative_rewards[agent] == 5.0
    assert np.array_equal(e.observe(agent)["observation"], obs["observation"])


def test_the_wrapped_environment_ends_the_game_on_an_illegal_id() -> None:
    e = env(rules="standard", players=4, seed=2)
    e.reset()
    obs, *_ = e.last()
    agent = e.agent_selection
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(e.terminations.values()) and e.rewards[agent] == -1.0


@pytest.mark.parametrize("seed", [3, 4])
def test_the_checked_environment_behaves_as_pettingzoos_three_wrappers(seed: int) -> None:
    """``env()`` folds TerminateIllegal, AssertOutOfBounds and OrderEnforcing into one layer:
    the same game, with an illegal id at a random step, ends the same through both."""
    from pettingzoo.utils import wrappers

    stacked = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(raw_env(rules="arena", players=2, seed=seed),
                                         illegal_reward=-1.0)))
    ours = env(rules="arena", players=2, seed=seed)
    rng = random.Random(seed)
    bad_at = rng.randrange(5, 60)
    for e in (stacked, ours):
        with pytest.raises(Exception, match="reset"):
            e.step(0)
        e.reset()
    for step in range(200):
        assert stacked.agents == ours.agents
        if not stacked.agents:
            break
        (o1, r1, t1, u1, _), (o2, r2, t2, u2, _) = stacked.last(), ours.last()
        assert (r1, t1, u1) == (r2, t2, u2)
        assert np.array_equal(o1["action_mask"], o2["action_mask"])
        assert np.array_equal(o1["observation"], o2["observation"])
        if t1 or u1:
            stacked.step(None)
            ours.step(None)
            continue
        mask = o1["action_mask"]
        ids = np.flatnonzero(mask == 0 if step == bad_at else mask)
        a = int(ids[rng.randrange(len(ids))])
        stacked.step(a)
        ours.step(a)
        assert stacked.rewards == ours.rewards
    assert step >= bad_at and not ours.agents
    with pytest.raises(AssertionError, match="action space"):
        e = env(rules="arena", players=2, seed=seed)
        e.reset()
        e.step(codec.SIZE)


def test_the_checked_environment_does_not_punish_a_refused_legal_id(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # an id the mask offers that the environment refuses is a fault: it is raised, not taken
    # as the agent's illegal move
    from liverpool.rl.aec import LiverpoolEnv

    def refuse(self: LiverpoolEnv, action: object) -> None:
        raise IllegalActionError("refused")

    e = env(rules="arena", players=2, seed=1)
    e.reset()
    obs, *_ = e.last()
    monkeypatch.setattr(LiverpoolEnv, "step", refuse)
    with pytest.raises(IllegalActionError, match="refused"):
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert not any(e.terminations.values())


def test_bad_arguments_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="points")
    with pytest.raises(ValueError, match="players"):
        raw_env(rules="standard", players=2)
    with pytest.raises(ValueError, match="no_such_knob"):
        raw_env(overrides={"no_such_knob": 1})
    with pytest.raises(ValueError, match="max_steps"):
        raw_env(max_steps=0)


def test_max_steps_truncates() -> None:
    e = env(rules="arena", players=2, seed=1, max_steps=30)
    e.reset()
    rng = np.random.default_rng(2)
    steps = 0
    while not any(e.truncations.values()):
        random_step(e, rng)
        steps += 1
    assert steps == 30 and not any(e.terminations.values())


def test_out_of_turn_decisions_are_steps_of_the_seats_asked() -> None:
    e = raw_env(rules="standard", players=4, seed=9)
    e.reset()
    rng = np.random.default_rng(3)
    seen_buy = False
    game = e.game
    assert game is not None
    for _ in range(400):
        if game.phase.value == "buy":
            asked = game.to_act()
            assert e.agent_selection == e.possible_agents[asked[0]]
            mask = e.observe(e.agent_selection)["action_mask"]
            assert mask[codec.PASS] == 1
            seen_buy = True
        random_step(e, rng)
    assert seen_buy


def test_hand_ended_event_is_what_the_rewards_read() -> None:
    # the reward code reads the engine's HandEnded event: its points are the score row
    g = Game(RuleSet.preset("arena", {"hands": [1]}), 2, seed=3)
    rng = random.Random(0)
    ended = []
    while not g.over:
        seat = g.to_act()[0]
        ended += [e for e in g.apply(rng.choice(g.legal_actions(seat)))
                  if isinstance(e, HandEnded)]
    assert [list(e.points) for e in ended] == [list(r) for r in g.scores]


def test_borrows_listed_from_meld_candidates_equal_every_subset_of_the_hand() -> None:
    # the full listing of borrows starts from the melds the hand can make; the oracle tries
    # every subset of the hand (2 cards up to all but one) with every arrangement
    from itertools import combinations

    from liverpool.melds import arrangements, borrow_places
    checked = 0
    for preset in ("house", "standard"):
        rules = RuleSet.preset(preset, {"borrow": True})
        for seed in range(4):
            g = Game(rules, 3, seed=seed)
            rng = random.Random(seed)
            for _ in range(300):
                if g.over:
                    break
                seat = g.to_act()[0]
                legal = g.legal_actions(seat)
                hand = g.held(seat)
                if any(a.type == "borrow" for a in legal) and len(hand) <= 12:
                    oracle = set()
                    for i, m in enumerate(g.melds):
                        for c in set(m.cards):
                            if not borrow_places(m, c, rules):
                                continue
                            for k in range(2, len(hand)):
                                for combo in set(combinations(sorted(hand), k)):
                                    for new in arrangements((c, *combo), rules):
                                        a = Action("borrow", seat, meld=i, card=c, new_meld=new)
                                        if g.is_legal(a):
                                            oracle.add(a)
                    assert set(g.borrows(seat)) == oracle
                    assert {a for a in g.iter_legal(seat) if a.type == "borrow"} == oracle
                    checked += 1
                g.apply(rng.choice(legal))
    assert checked > 20


def test_the_documented_example_runs_a_whole_game() -> None:
    # docs/rl.md's first example, as a reader would paste it
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "rl.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, object] = {}
    exec(compile(code, "docs/rl.md", "exec"), scope)
    e = scope["env"]
    assert not e.agents  # type: ignore[attr-defined]  # every agent finished: the game ended
