"""The page's card logic (static/cards.js) against the engine, run in the browser: a table meld
drawn with each wild tagged as the server's meld JSON says (the page derives nothing), and
arranging picked cards into a meld the engine reads (the server's order first, where its legal
actions list one).

Domain words: meld, wild, stands for, arrangement (cards in the order a go-down sends them).
"""

from __future__ import annotations

import random
from typing import Any

from liverpool.cards import JOKER, RANK_NAMES, card_str, is_wild, make_card
from liverpool.melds import RUN, SET, meld_readings
from liverpool.rules import RuleSet

from .cardtext import symbolize
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
    """Valid melds of one clear kind: their JSON as the server sends it, what each place stands
    for worked out here from the engine's meld, and the cards shuffled as a player picks them."""
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
                wild = is_wild(c, rules.deuces_wild) and not (c != JOKER and m.key == 2)
                stands.append(RANK_NAMES[m.key] if wild else None)
        shuffled = [card_str(c) for c in m.cards]
        rng.shuffle(shuffled)
        out.append({"meld": m.to_json(), "cards": [card_str(c) for c in m.cards],
                    "stands": stands, "picked": shuffled})
    return out


JS = """async ([cases, deuces]) => {
  const m = await import('/static/cards.js');
  return cases.map((c, i) => {
    const el = m.meldElement(c.meld, i);
    const cards = [...el.querySelectorAll('.card')];
    return {
      index: el.dataset.meld, kind: el.dataset.kind,
      cards: cards.map(e => e.dataset.card),
      tags: cards.map(e => {
        const t = e.querySelector('.stands');
        return t ? t.textContent : null;
      }),
      wild: cards.map(e => e.classList.contains('wild')),
      listed: m.meldOrder(c.picked, [['XX'], c.cards]),
      unlisted: m.meldOrder(c.picked, []),
    };
  });
}"""


def test_melds_show_the_servers_wilds_and_arrangements_match_the_engine(
        server: Server, make_player: Any) -> None:
    page = make_player("Ann").page
    page.goto(server.base + "/")
    for preset, seed in (("standard", 1), ("house", 2), ("hoyle", 3)):
        rules = RuleSet.preset(preset)
        todo = cases(rules, 150, seed)
        got_all = page.evaluate(JS, [todo, rules.deuces_wild])
        for i, (case, got) in enumerate(zip(todo, got_all, strict=True)):
            # the server's stands_for is what this test works out from the engine's meld ...
            assert case["meld"]["stands_for"] == case["stands"], (preset, case)
            # ... and the page shows exactly it: a tag on each wild, none on a natural
            assert got["index"] == str(i) and got["kind"] == case["meld"]["kind"]
            assert got["cards"] == case["cards"], (preset, case)
            assert got["tags"] == [None if s is None else "=" + symbolize(s)
                                   for s in case["stands"]]
            assert got["wild"] == [s is not None for s in case["stands"]]
            # picked cards the server lists as a meld go in its order; others go as picked
            # (the server arranges them: Game.arranged), the page knowing no rule of melds
            assert got["listed"] == case["cards"]
            assert got["unlisted"] == case["picked"]


def test_a_meld_without_stands_for_shows_no_tags(server: Server, make_player: Any) -> None:
    """A meld JSON without stands_for (from a server before it): cards shown, nothing guessed."""
    page = make_player("Ann").page
    page.goto(server.base + "/")
    got = page.evaluate("""async () => {
      const m = await import('/static/cards.js');
      const el = m.meldElement({owner: 0, kind: 'run', cards: ['4C', '5C', 'JK', '7C']}, 3);
      return [[...el.querySelectorAll('.card')].map(e => e.dataset.card),
              el.querySelectorAll('.stands').length];
    }""")
    assert got == [["4C", "5C", "JK", "7C"], 0]


# a laid_off event as the server sends it to Cy (seat 2): Ann (seat 0) lays the 7H on Bea's
# (seat 1) run, whose joker stands for the 6H
LAID_OFF = {"type": "laid_off", "seat": 0, "card": "7H", "meld": 2, "owner": 1,
            "result": {"owner": 1, "kind": "run", "cards": ["4H", "5H", "JK", "7H"], "suit": "H",
                       "low": 4, "stands_for": [None, None, "6H", None]}}

ENTRY_JS = """async ([ev, players, seat]) => {
  const m = await import('/static/events.js');
  const el = m.entryElement(ev, players, seat, 'li');
  const meld = el.querySelector('.log-meld');
  return {
    text: el.textContent, type: el.dataset.type,
    kind: meld && meld.dataset.kind, label: meld && meld.getAttribute('aria-label'),
    meld: meld ? [...meld.querySelectorAll('.glyph')].map(g => g.dataset.card) : null,
    stands: meld ? [...meld.querySelectorAll('.glyph')].map(g => g.dataset.stands || null) : null,
    glyphs: [...el.querySelectorAll('.ct')].map(g => [g.dataset.card, g.className]),
  };
}"""


def test_a_laid_off_entry_draws_its_meld_from_result(server: Server, make_player: Any) -> None:
    """The log's entry of a lay-off: the words are the event's text; the card and the meld it
    went on are drawn from the event's fields (the meld's cards from ``result``, its kind from
    the JSON, the wild's tag from ``stands_for``), whatever the words say."""
    page = make_player("Ann").page
    page.goto(server.base + "/")
    players = ["Ann", "Bea", "Cy"]
    told = {**LAID_OFF, "text": "Ann lays 7H on Bea's run 4H 5H JK 7H"}
    got = page.evaluate(ENTRY_JS, [told, players, 2])
    assert got["text"] == "Ann lays 7♥ on Bea's run of hearts 4♥ 5♥ JK 7♥"
    assert got["type"] == "laid_off" and got["kind"] == "run"
    assert got["meld"] == ["4H", "5H", "JK", "7H"]
    assert got["stands"] == [None, None, "6♥", None]
    assert got["label"] == "Bea's run of hearts: 4♥ 5♥ JK 7♥"
    assert got["glyphs"][0] == ["7H", "ct suit-H"]  # the laid card, from `card`

    # words that list no meld: the meld is still drawn, from `result` alone; card tokens in the
    # words that are not the event's cards stay as the server wrote them (nothing is parsed)
    for text in ("Ann lays a card off", "Ann lays 9S on 2C 3C 4C"):
        got = page.evaluate(ENTRY_JS, [{**LAID_OFF, "text": text}, players, 2])
        assert got["meld"] == ["4H", "5H", "JK", "7H"], text
        assert got["text"] == text + " 4♥ 5♥ JK 7♥"
        assert got["label"] == "Bea's run of hearts: 4♥ 5♥ JK 7♥"
    # another result: the page draws that one (the meld is the event's, not the words')
    sevens = {"owner": 2, "kind": "set", "cards": ["7S", "7D", "7H"],
              "stands_for": [None, None, None]}
    other = {**LAID_OFF, "owner": 2, "result": sevens, "text": "Ann lays 7H on your set 7S 7D 7H"}
    got = page.evaluate(ENTRY_JS, [other, players, 2])
    assert got["text"] == "Ann lays 7♥ on your set of 7s 7♠ 7♦ 7♥"
    assert got["kind"] == "set" and got["meld"] == ["7S", "7D", "7H"]
    assert got["label"] == "your set of 7s: 7♠ 7♦ 7♥"
