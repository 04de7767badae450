"""The expert bot and its playout policy: whole games of every preset with legal actions only,
iteration budgets that make games reproducible, decisions blind to how the hidden cards lie,
obvious decisions answered without a search, and a playout policy that plays exactly as the
basic bot does (it is the expert's model of a basic opponent).

Budgets here are small (``expert:2it`` .. ``expert:4it``): the point is behaviour, not strength;
strength is measured with ``liverpool simulate`` (docs/bots.md).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from conftest import act, load_script, stacked_game
from scenario import draw_and_all_pass as draw
from scenario import house_two_down

from liverpool.actions import Action
from liverpool.bots import BasicBot, ExpertBot, make_bot
from liverpool.bots.expert import is_open, pick
from liverpool.bots.heuristics import usefulness
from liverpool.bots.policy import play_out, policy_action
from liverpool.bots.worlds import sample_world
from liverpool.engine import Game, SeatView
from liverpool.rules import PRESET_NAMES, RuleSet
from liverpool.simulate import play_game, specs_for

# a player count per preset inside its range, and a short list of contracts that still makes a
# complete game (docs/rules.md `hands`), so that an all-expert table stays quick
TABLES: dict[str, tuple[int, list[int]]] = {
    "hoyle": (3, [1, 7]), "classic": (2, [2, 6]), "arena": (2, [3, 5]),
    "standard": (3, [4, 7]), "house": (3, [1, 6]),
}


def _basic_game_points(preset: str, players: int, seed: int, every: int = 1
                       ) -> list[tuple[Game, int]]:
    """Decision points (a copy of the game, the seat to act) met in a game among basic bots."""
    game = Game(RuleSet.preset(preset), players, seed=seed)
    bot = BasicBot()
    rng = random.Random(seed)
    out = []
    k = 0
    while not game.over:
        seats = game.to_act()
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        legal = game.legal_actions(seat)
        if len(legal) > 1 and k % every == 0:
            out.append((game.clone(), seat))
        k += 1
        game.apply(bot.choose(game.view_for(seat), legal, rng))
    return out


# ---- 1. whole games, every preset, legal actions only -------------------------------------

@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_all_expert_table_plays_a_complete_game(preset: str) -> None:
    players, hands = TABLES[preset]
    rules = RuleSet.preset(preset, {"hands": hands})
    game = Game(rules, players, seed=31)
    bots = [make_bot("expert:2it") for _ in range(players)]
    rngs = [random.Random(s) for s in range(players)]
    searched = Counter[str]()
    while not game.over:
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        view = game.view_for(seat)
        expert = bots[seat]
        assert isinstance(expert, ExpertBot)
        if len(expert.candidates(view, legal)) > 1:
            searched[view.phase] += 1
        action = expert.choose(view, legal, rngs[seat])
        assert action in legal, f"{action.to_json()} is not legal"
        game.apply(action)
    assert len(game.scores) == len(hands)
    assert list(game.winners) == [s for s in range(players)
                                  if game.totals[s] == min(game.totals)]
    assert sum(searched.values()) >= 5, "the expert never searched: the test proves little"


# ---- 2. determinism -------------------------------------------------------------------------

def test_iteration_budget_same_seed_same_record() -> None:
    specs = specs_for(2, "standard", {"hands": [2, 6]}, ["expert:4it", "basic", "basic"],
                      seed=5)
    first = play_game(specs[0], keep_record=True)
    again = play_game(specs[0], keep_record=True)
    assert first.record is not None and first.record == again.record
    other = play_game(specs[1], keep_record=True)
    assert other.record is not None and other.record["actions"] != first.record["actions"]


def test_rng_drives_the_worlds() -> None:
    """The worlds come from the bot's RNG alone: same RNG state, same choice, many times."""
    points = [(g, s) for g, s in _basic_game_points("standard", 4, seed=3, every=3)
              if len(ExpertBot(iterations=3).candidates(g.view_for(s), g.legal_actions(s))) > 1]
    assert len(points) >= 8
    bot = ExpertBot(iterations=3)
    for g, s in points[:8]:
        view, legal = g.view_for(s), g.legal_actions(s)
        assert bot.choose(view, legal, random.Random(9)) == bot.choose(view, legal,
                                                                       random.Random(9))


# ---- 3. hidden cards ------------------------------------------------------------------------

@pytest.mark.parametrize("preset,players", [("standard", 4), ("arena", 2), ("house", 3)])
def test_same_choice_when_hidden_cards_are_permuted(preset: str, players: int) -> None:
    """At decisions the expert searches, a second world deals the cards hidden from the seat
    again; the view is the same and so is the choice."""
    bot = ExpertBot(iterations=3)
    compared = moved = 0
    for k, (game, seat) in enumerate(_basic_game_points(preset, players, seed=17)):
        view, legal = game.view_for(seat), game.legal_actions(seat)
        if len(bot.candidates(view, legal)) < 2:
            continue
        world = game.determinized(seat, random.Random(500 + k))
        if sorted(map(sorted, world.hands)) != sorted(map(sorted, game.hands)) or \
                world.stock != game.stock:
            moved += 1
        assert world.view_for(seat) == view
        assert world.legal_actions(seat) == legal
        assert bot.choose(view, legal, random.Random(k)) == \
            bot.choose(world.view_for(seat), world.legal_actions(seat), random.Random(k))
        compared += 1
        if compared == 12:
            break
    assert compared >= 8
    assert moved >= compared - 1  # the second worlds really differed


# ---- 4. obvious decisions are quick -----------------------------------------------------------

def test_useless_card_for_sale_is_passed_without_a_search() -> None:
    found = 0
    bot = ExpertBot()
    for game, seat in _basic_game_points("standard", 4, seed=8):
        view, legal = game.view_for(seat), game.legal_actions(seat)
        if view.phase != "buy" or view.down[seat]:
            continue
        top = view.discard[-1]
        if usefulness([*view.hand, top], view.contract[seat], view.ruleset)[top] > 0:
            continue
        choice = bot.choose(view, legal, random.Random(1))
        assert choice == Action("pass", seat)
        assert bot.worlds_sampled == 0, "the expert searched an obvious decision"
        found += 1
    assert found >= 5


def _searched_point() -> tuple[Game, int]:
    """A decision point the expert searches (more than one candidate)."""
    points = [(g, s) for g, s in _basic_game_points("standard", 4, seed=12, every=2)
              if len(ExpertBot().candidates(g.view_for(s), g.legal_actions(s))) > 1]
    assert points
    return points[0]


@pytest.mark.parametrize(("step", "worlds"), [(0.010, 3), (0.006, 5), (1.0, 1)])
def test_a_time_budget_stops_the_search_on_the_clock(step: float, worlds: int) -> None:
    """``expert:30ms`` samples worlds until 30 ms have passed on its clock, and always at least
    one (a world costing a whole second still gives one). The clock here moves only when a
    world is sampled, ``step`` seconds per world, so the budget is a count of worlds whatever
    the machine is doing."""
    g, s = _searched_point()
    bot = ExpertBot(millis=30, clock=lambda: bot.worlds_sampled * step)
    bot.choose(g.view_for(s), g.legal_actions(s), random.Random(2))
    assert bot.worlds_sampled == worlds


def test_an_iteration_budget_samples_exactly_that_many_worlds() -> None:
    g, s = _searched_point()
    bot = make_bot("expert:6it")
    assert isinstance(bot, ExpertBot)
    bot.choose(g.view_for(s), g.legal_actions(s), random.Random(2))
    assert bot.worlds_sampled == 6


def test_the_search_deals_its_worlds_from_its_sampler() -> None:
    """``ExpertBot(worlds=...)``: every world of a search comes from the sampler it was given,
    asked with the seat's own view."""
    g, s = _searched_point()
    asked: list[SeatView] = []

    def sampler(view: SeatView, rng: random.Random) -> Game:
        asked.append(view)
        return sample_world(view, rng)

    bot = ExpertBot(worlds=sampler)
    view = g.view_for(s)
    bot.choose(view, g.legal_actions(s), random.Random(2))
    assert bot.worlds_sampled >= 8 and len(asked) == bot.worlds_sampled
    assert all(v == view for v in asked)


def test_sighted_worlds_deal_the_true_hands_only_at_the_phases_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """scripts/expert_sighted.py's bound: at a decision of a sighted phase the world holds
    every hand as the game does and the stock's cards in another order; elsewhere it is the
    expert's own world for the same generator."""
    script = load_script("expert_sighted", monkeypatch)
    points = _basic_game_points("arena", 2, seed=5, every=3)
    play = next((g, s) for g, s in points if g.view_for(s).phase == "play")
    drawing = next((g, s) for g, s in points if g.view_for(s).phase == "draw")
    g, s = play
    world = script.TrueWorlds(g, frozenset({"play"}))(g.view_for(s), random.Random(1))
    assert [list(h) for h in world.hands] == [list(h) for h in g.hands]
    assert Counter(world.stock) == Counter(g.stock) and world.stock != g.stock
    g, s = drawing
    world = script.TrueWorlds(g, frozenset({"play"}))(g.view_for(s), random.Random(1))
    assert world.hands == sample_world(g.view_for(s), random.Random(1)).hands
    assert world.hands[1 - s] != g.hands[1 - s]
    seated = script.seat_bot("expert@play", g)
    assert isinstance(seated, ExpertBot) and isinstance(seated.worlds, script.TrueWorlds)
    assert seated.belief is None
    plain, playing = script.seat_bot("expert@dealt", g), script.seat_bot("expert@none", g)
    assert isinstance(plain, ExpertBot) and isinstance(playing, ExpertBot)
    assert plain.belief is None and playing.belief is not None


def test_the_default_budget_adds_worlds_only_while_the_answer_is_open() -> None:
    """``expert`` looks at 8 worlds, then adds 8 at a time up to 32 while ``is_open``; the
    worlds counted are a multiple of 8, and both ends are met over a few searched decisions."""
    points = [(g, s) for g, s in _basic_game_points("standard", 4, seed=12, every=2)
              if len(ExpertBot().candidates(g.view_for(s), g.legal_actions(s))) > 1]
    counts = set()
    for g, s in points[:12]:
        bot = ExpertBot()
        bot.choose(g.view_for(s), g.legal_actions(s), random.Random(2))
        assert bot.worlds_sampled in (8, 16, 24, 32)
        counts.add(bot.worlds_sampled)
    assert 8 in counts and len(counts) > 1


def test_is_open_while_an_alternative_leads_but_not_clearly() -> None:
    basic = [10.0, -20.0, 35.0, 0.0, 12.0, -5.0]
    assert not is_open([basic, [x + 1.0 for x in basic]])  # behind: settled
    assert not is_open([basic, [x - 4.0 for x in basic]])  # clearly ahead: settled
    noisy = [x + d for x, d in zip(basic, [-22.0, 20.0, -21.0, 19.0, -20.0, 12.0], strict=True)]
    assert is_open([basic, noisy])  # ahead by 2 on average, up and down by 20


# ---- 5. the search overrules the basic choice only on clear evidence --------------------------

def test_pick_needs_a_clear_paired_advantage() -> None:
    basic = [10.0, -20.0, 35.0, 0.0, 12.0, -5.0]
    # 4 points better in every world: clear, though small next to the spread of the worlds
    steady = [x - 4.0 for x in basic]
    assert pick([basic, steady]) == 1
    # better on average (by 2) but up and down by 20 from world to world: not clear
    noisy = [x + d for x, d in zip(basic, [-22.0, 20.0, -21.0, 19.0, -20.0, 12.0], strict=True)]
    assert sum(noisy) < sum(basic)
    assert pick([basic, noisy]) == 0
    # worse: never
    assert pick([basic, [x + 1.0 for x in basic]]) == 0
    # of two clear improvements, the larger
    assert pick([basic, steady, [x - 9.0 + (i % 2) for i, x in enumerate(basic)]]) == 2
    # one world only: any improvement counts (no spread to judge by)
    assert pick([[3.0], [2.0]]) == 1 and pick([[3.0], [3.0]]) == 0


# ---- 6. the playout policy is the basic bot ----------------------------------------------------

@pytest.mark.parametrize("preset,players", [("hoyle", 4), ("classic", 3), ("arena", 2),
                                            ("standard", 4), ("house", 3)])
def test_policy_chooses_what_basic_chooses(preset: str, players: int) -> None:
    points = _basic_game_points(preset, players, seed=41)
    assert len(points) > 100
    kinds = Counter[str]()
    for game, seat in points:
        expected = BasicBot().choose(game.view_for(seat), game.legal_actions(seat),
                                     random.Random(0))
        assert policy_action(game, seat) == expected, (preset, game.phase, expected.to_json())
        kinds[expected.type] += 1
    assert kinds["discard"] and kinds["draw"] and kinds["go_down"]


def test_playout_scores_the_hand_basic_players_would_play() -> None:
    """Played to the hand's end, a playout's score is the hand's score row as the basic bots
    themselves would have made it: my points minus the others' mean."""
    checked = 0
    for game, seat in _basic_game_points("arena", 3, seed=6, every=40):
        mine = game.clone()
        score = play_out(mine, seat, random.Random(0))
        theirs = game.clone()
        hand = theirs.hand_index
        bot = BasicBot()
        while not theirs.over and theirs.hand_index == hand:
            s = theirs.to_act()[0]
            theirs.apply(bot.choose(theirs.view_for(s), theirs.legal_actions(s),
                                    random.Random(0)))
        row = theirs.scores[hand]
        others = [row[s] for s in range(theirs.n) if s != seat]
        assert score == pytest.approx(row[seat] - sum(others) / len(others))
        checked += 1
    assert checked >= 5


def test_playout_survives_a_world_that_strands_a_seat() -> None:
    """house: seat 1 is down and chose to lay off instead of drawing (it must now lay off a
    card). Seat 2, asked to buy, cannot see seat 1's cards: many worlds it samples give seat 1
    nothing that fits a meld, so seat 1 has no legal action there. Playouts from such worlds
    end and are scored as they stand instead of failing; the expert still answers."""
    game = stacked_game("house", ["AS 3C 4C 6C JH QD 5S 6H 3H",
                                  "7H 7S 7D 9C 9D 9H 4D 6S KC",
                                  "8H 8S 8D 10C 10D 10H 5D 3S KD"],
                        upcard="KH", stock="7C QS JC 5C")
    for fields in ({"player": 1, "type": "draw"}, {"player": 2, "type": "pass"},
                   {"player": 0, "type": "pass"},
                   {"player": 1, "type": "go_down", "melds": [["7H", "7S", "7D"],
                                                              ["9C", "9D", "9H"]]},
                   {"player": 1, "type": "discard", "card": "KC"},
                   {"player": 2, "type": "draw"}, {"player": 0, "type": "pass"},
                   {"player": 2, "type": "go_down", "melds": [["8H", "8S", "8D"],
                                                              ["10C", "10D", "10H"]]},
                   {"player": 2, "type": "discard", "card": "KD"},
                   {"player": 0, "type": "draw"}, {"player": 1, "type": "pass"},
                   {"player": 0, "type": "discard", "card": "JC"},
                   {"player": 1, "type": "no_draw"}):
        game.apply(Action.from_json(fields))
    view = game.view_for(2)
    assert view.phase == "buy" and view.need_layoff
    stranded = 0
    for k in range(40):
        world = Game.from_view(view, random.Random(k))
        world.apply(Action("pass", 2))  # the buy round ends: seat 1 plays on
        if not world.legal_actions(1):
            stranded += 1
        score = play_out(world, 2, random.Random(k))
        assert -1000 < score < 1000
    assert stranded > 0, "no sampled world stranded seat 1: the test proves nothing"
    legal = game.legal_actions(2)
    for k in range(4):
        assert make_bot("expert:4it").choose(view, legal, random.Random(k)) in legal


def test_all_out_filter_never_rejects_a_hand_the_solver_melds() -> None:
    """``runs_may_hold_all`` lets playouts skip the solver for hopeless all-out hands; it must
    never turn away a hand the solver can meld whole (else the policy would not be basic's)."""
    from liverpool.bots.policy import runs_may_hold_all
    from liverpool.cards import JOKER, make_card
    from liverpool.solver import best_go_down

    rng = random.Random(5)
    for preset in ("standard", "classic"):
        rules = RuleSet.preset(preset)
        contract = rules.contracts[6]
        rejected = 0
        for _ in range(1500):
            hand = []
            for _ in range(3):
                suit, lo, length = rng.randrange(4), rng.randint(1, 10), rng.randint(4, 7)
                hand += [make_card(r, suit) if rng.random() > 0.1 else JOKER
                         for r in range(lo, min(lo + length, 15))]
            for _ in range(rng.randint(0, 3)):
                if rng.random() < 0.5:
                    hand.pop(rng.randrange(len(hand)))
                hand.append(rng.choice([JOKER, *range(52)]))
            if not runs_may_hold_all(hand, contract, rules):
                rejected += 1
                assert best_go_down(hand, contract, rules, all_out=True,
                                    empty_ok=rules.going_out != "discard") is None, hand
        assert rejected > 500


def test_worlds_agree_with_the_discard_a_seat_was_seen_to_make() -> None:
    """A seat that just threw the top discard away is dealt, where its cards are hidden, a
    hand from which the basic judgement would have thrown that card (when such a hand is found
    in the repair's deals), and its cards seen by everyone stay."""
    from liverpool.bots.worlds import agrees_discarded, sample_world, signs

    agreed = tried = 0
    for game, seat in _basic_game_points("standard", 4, seed=43):
        view = game.view_for(seat)
        found = [(s, d) for s, d in signs(view) if not d]
        if not found:
            continue
        s = found[0][0]
        for k in range(3):
            world = sample_world(view, random.Random(k))
            assert len(world.hands[s]) == view.hand_sizes[s]
            assert not Counter(view.known[s]) - Counter(world.hands[s])
            assert world.cards_in_play() == Game.from_view(view, random.Random(k)).cards_in_play()
            tried += 1
            agreed += agrees_discarded(world.hands[s], view.discard[-1], view, s)
    assert tried > 30 and agreed > 0.5 * tried


# ---- a down seat's borrow (house) ---------------------------------------------------------

def _seat0_to_play_with_a_run_to_borrow_into() -> Game:
    """House, contract 1: seats 0 and 1 are down (so borrowing is open). Table: 0 7s (seat
    0), 1 5s with 5C laid off, 2 10s (four of them), 3 4s. Seat 0 then draws 9S and holds 8S
    4C 7S 9S: it may lay the 7S off, or borrow the 10S into a run of 2, 3 or 4 cards."""
    g = house_two_down("3S 9S")
    draw(g, 2)
    act(g, player=2, type="discard", card="3S")
    draw(g, 0)  # nobody buys
    return g


def test_a_down_seat_borrows_without_a_search_and_goes_out() -> None:
    from liverpool.cards import parse_cards

    g = _seat0_to_play_with_a_run_to_borrow_into()
    view, legal = g.view_for(0), g.legal_actions(0)
    assert any(a.type == "borrow" for a in legal)
    assert BasicBot().decide(view, legal)[0].type != "borrow"  # the basic rules never borrow
    bot = ExpertBot()
    chosen = bot.choose(view, legal, random.Random(1))
    assert chosen.type == "borrow" and chosen.card == parse_cards("10S")[0]
    assert bot.worlds_sampled == 0
    g.apply(chosen)
    while g.to_act() == (0,) and g.hand_index == 0:  # the expert plays the rest of its turn
        g.apply(bot.choose(g.view_for(0), g.legal_actions(0), random.Random(1)))
    # 7S, 8S and 9S went round the borrowed 10S (or were laid off), the 4C was thrown: out
    assert g.hand_index == 1 or not g.hands[0]
    assert bot.worlds_sampled == 0


def test_best_borrow_sheds_most_cards_then_most_points() -> None:
    """Against every listed borrow of house games among basic bots: none sheds more cards, or
    as many worth more points, than the one chosen."""
    from liverpool.bots.heuristics import best_borrow

    rules = RuleSet.preset("house")

    def shed(a: Action) -> tuple[int, int]:
        cards = list(a.new_meld or ())
        cards.remove(a.card)  # type: ignore[arg-type]
        return len(cards), sum(rules.points(c) for c in cards)

    seen = 0
    for seed in (3, 4, 5):
        for game, seat in _basic_game_points("house", 4, seed=seed):
            legal = game.legal_actions(seat)
            borrows = [a for a in legal if a.type == "borrow"]
            chosen = best_borrow(legal, rules)
            if not borrows:
                assert chosen is None
                continue
            seen += 1
            assert chosen in borrows
            assert shed(chosen) == max(shed(a) for a in borrows)
    assert seen >= 10


def test_the_hint_and_the_review_know_the_borrow() -> None:
    from liverpool.bots.heuristics import BORROW_REASON, best_borrow
    from liverpool.bots.hints import searched_hint
    from liverpool.review import candidates

    g = _seat0_to_play_with_a_run_to_borrow_into()
    view, legal = g.view_for(0), g.legal_actions(0)
    action, why = searched_hint(view, legal)
    assert action.type == "borrow" and why == BORROW_REASON
    # a player who laid the 7S off is weighed against the expert's borrow
    lay_off = next(a for a in legal if a.type == "lay_off")
    assert best_borrow(legal, view.ruleset) in candidates(view, lay_off, legal)
