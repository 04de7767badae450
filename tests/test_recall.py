"""A seat's belief rebuilt from a game's record (bots.recall): the hint asked mid-hand and the
review of the same moment search the same guesses of the other hand, built only from what the
seat saw; a table the belief does not follow gets none."""

from __future__ import annotations

from typing import Any

from test_review import twin_records, two_seat_twins

from liverpool.bots import ExpertBot, belief_now, make_bot, recalled_hint
from liverpool.record import new_game_from_record, steps
from liverpool.review import tasks_of


def upto(rec: dict[str, Any], index: int) -> dict[str, Any]:
    """The record as it stood before its action ``index``."""
    return dict(rec, actions=rec["actions"][:index])


def test_the_hint_and_the_review_rebuild_the_same_belief() -> None:
    rec = two_seat_twins()[0]
    _, tasks = tasks_of(rec, [0], 4)
    followed = [t for t in tasks if t.guesses is not None]
    assert len(followed) >= 5
    for t in followed:
        belief = belief_now(upto(rec, t.index), 0)
        assert belief is not None and belief.snapshot(t.view) == t.guesses


def test_the_recalled_hint_follows_what_the_seat_heard_and_nothing_else() -> None:
    a, b = two_seat_twins()
    index = max(t.index for t in tasks_of(a, [0], 4)[1])
    hints = []
    for rec in (a, b):
        before = upto(rec, index)
        game = new_game_from_record(before)
        for _ in steps(before, game):
            pass
        view, legal = game.view_for(0), game.legal_actions(0)
        bot = make_bot("expert:4it")
        assert isinstance(bot, ExpertBot)
        hints.append(recalled_hint(view, legal, bot, before, 0))
        assert bot.belief is not None and bot.belief.follows(view)  # its worlds: the belief's
        assert recalled_hint(view, legal, make_bot("expert:4it"), before, 0) == hints[-1]
    assert hints[0] == hints[1]


def test_no_belief_where_the_table_is_not_followed() -> None:
    rec = twin_records()[0]  # three seats
    assert belief_now(rec, 0) is None
    assert belief_now(two_seat_twins()[0], 5) is None
