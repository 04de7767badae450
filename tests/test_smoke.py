from conftest import act, hand_of, stacked_game

from liverpool.engine import IllegalActionError, Phase


def test_stacked_deal_draw_and_discard() -> None:
    g = stacked_game("standard", ["AS 2S 3S 4S 5S 6S 7S 8S 9S 10S",
                                  "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H",
                                  "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D"], upcard="KC", stock="QC")
    assert g.turn == 1 and g.phase is Phase.DRAW
    act(g, player=1, type="draw")
    # seats 2 and 0 may buy the upcard; both pass
    act(g, player=2, type="pass")
    act(g, player=0, type="pass")
    assert "QC" in hand_of(g, 1) and len(g.hands[1]) == 11
    try:
        act(g, player=1, type="discard", card="KD")
    except IllegalActionError as e:
        assert "KD" in str(e)
    else:
        raise AssertionError("discarding a card not held must fail")
    act(g, player=1, type="discard", card="QC")
    assert g.discard[-1] == 11 + 3 * 13 and g.turn == 2


def test_last_hand_end_keeps_the_scored_table() -> None:
    """The table a hand was scored on stays readable after the next deal: each seat's points
    are the points of the cards it held then, plus what it already owed."""
    import random as _random

    from liverpool.engine import Game
    from liverpool.randomplay import random_action
    from liverpool.rules import RuleSet

    rules = RuleSet.preset("standard")
    game = Game(rules, 4, seed=11)
    rng = _random.Random(5)
    assert game.last_hand_end is None
    checked = 0
    while not game.over:
        owed = list(game.penalties)
        hands_before = len(game.scores)
        game.apply(random_action(game, rng))
        if len(game.scores) > hands_before:
            end = game.last_hand_end
            assert end is not None and end.hand_number == len(game.scores)
            for s in range(4):
                held = sum(rules.points(c) for c in end.hands[s])
                assert game.scores[-1][s] == held + owed[s]
            checked += 1
    assert checked == 7
