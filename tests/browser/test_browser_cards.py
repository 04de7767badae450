"""The page's card logic (static/cards.js) against the engine, run in the browser: what each wild
of a table meld stands for, and arranging picked cards into a meld the engine reads.

Domain words: meld, wild, stands for, arrangement (cards in the order a go-down sends them).
"""

from __future__ import annotations

import random
from typing import Any

from liverpool.cards import JOKER, RANK_NAMES, card_str, make_card, parse_card
from liverpool.melds import RUN, SET, meld_readings
from liverpool.rules import RuleSet

from .conftest import Server


def random_meld(rng: random.Random, rules: RuleSet) -> tuple[str, list[int]]:
    deuces = rules.deuces_wild
    wilds = [JOKER, *([make_card(2, s) for s in range(4)] if deuces else [])]
    if rng.random() < 0.5:
        n = rng.randint(rules.min_run, 9)
        suit = rng.randrange(4)
        lo = rng.randint(1, 14 - n + 1)
        cards = [make_card(lo + i, suit) for i in range(n)]
        kind = RUN
    else:
        n = rng.randint(rules.min_set, 6)
        rank = rng.randint(1, 13)
        cards = [make_card(rank, rng.randrange(4)) for _ in range(n)]
        kind = SET
    for i in range(n):
        if rng.random() < 0.3:
            cards[i] = rng.choice(wilds)
    return kind, cards


def cases(rules: RuleSet, count: int, seed: int) -> list[dict[str, Any]]:
    """Valid melds of one clear kind, with what the engine says each place stands for."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < count:
        kind, cards = random_meld(rng, rules)
        readings = meld_readings(tuple(cards), 0, rules, first_down=False)
        if len(readings) != 1 or readings[0].kind != kind:
            continue
        m = readings[0]
        stands: list[str | None] = []
        for place, c in enumerate(m.cards):
            if m.kind == RUN:
                target = m.stands_for(place)
                stands.append(None if c == target else card_str(target))
            else:
                wild = c == JOKER or (rules.deuces_wild and c % 13 == 1 and m.key != 2)
                stands.append(RANK_NAMES[m.key] if wild else None)
        shuffled = [card_str(c) for c in m.cards]
        rng.shuffle(shuffled)
        out.append({"kind": m.kind, "cards": [card_str(c) for c in m.cards], "stands": stands,
                    "picked": shuffled})
    return out


JS = """async ([cases, deuces]) => {
  const m = await import('/static/cards.js');
  return cases.map(c => ({
    stands: m.standsFor({kind: c.kind, cards: c.cards}, deuces),
    arranged: m.arrangeMeld(c.picked, deuces),
  }));
}"""


def test_wilds_and_arrangements_match_the_engine(server: Server, make_player: Any) -> None:
    page = make_player("Ann").page
    page.goto(server.base + "/")
    for preset, seed in (("standard", 1), ("house", 2), ("hoyle", 3)):
        rules = RuleSet.preset(preset)
        got_all = page.evaluate(JS, [cases(rules, 150, seed), rules.deuces_wild])
        for case, got in zip(cases(rules, 150, seed), got_all, strict=True):
            assert got["stands"] == case["stands"], (preset, case)
            arranged = got["arranged"]
            assert arranged is not None, (preset, case)
            readings = meld_readings(tuple(parse_card(c) for c in arranged), 0, rules,
                                     first_down=False)
            assert readings, (preset, case, arranged)
