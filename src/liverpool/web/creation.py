"""Creating a table: every check of a create request, in the order a client meets them.

Domain words: *create request* (the JSON body of ``POST /api/tables``: the host's nickname, a
rule *preset* and its *overrides*, the *seats*, the *timers* and waits, whether the table is
*public*, and on a test server a *seed* and *deals*), *configuration* (what a table stores and
is rebuilt from: ``CreateRequest.config``), *web rule bounds* (the rule options a web table keeps
within what the presets use: their cost is the server's), *startable* (a game can be dealt from
the configuration now, rather than fail at the start).

The checks come in two steps, both here. ``parse_create`` reads the body: it is cheap, and runs
before anything is counted, so a refused request costs the client none of its rate or places.
``check_startable`` builds the game once; that costs CPU, so the lobby runs it in a thread and
only for a create that passed the rate limit and holds a place (``Capacity.admit``).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..cards import parse_card
from ..engine import Game
from ..rules import PRESET_NAMES, PRESETS, RulesError, RuleSet
from ..rulestext import CLOCKS, KNOB_INFO, refusal_words
from .limits import ApiError, Limits, check_level, clean_nickname
from .seats import new_secret

# what drives the cost of listing a seat's legal actions (check_web_rules), at the presets' most
MAX_DEAL = 12  # cards dealt to a seat in one hand
MAX_PENALTY = 1  # penalty cards taken with each buy
MAX_MELDS = 3  # melds one contract asks for
WILDS_PER_DECK = 6  # jokers, and the four 2s where deuces are wild
MAX_SWAPS_AT_GO_DOWN = 1  # jokers swapped just before going down

# the web rule bounds by knob, in the form's terms (rulestext.knob_control: min, max of each
# number, max_items of a list; "fields" by position): checked by check_web_rules, and offered
# as the lobby form's bounds (web_form)
WEB_BOUNDS: dict[str, dict[str, Any]] = {
    "decks": {"fields": [{}, {"max": 4}]},
    "jokers_per_deck": {"max": 4},
    "deal_sizes": {"max": MAX_DEAL, "max_items": 12},
    "contracts": {"max_items": 12, "fields": [{"max": MAX_MELDS}, {"max": MAX_MELDS}, {}, {}]},
    "min_set": {"min": 3},
    "hands": {"max_items": 24},
    "penalty_cards": {"max": MAX_PENALTY},
    "max_buys": {"max": 50},
    "stock_reshuffles": {"max": 10},
    "turn_limit": {"max": 500},
    "own_max_hands": {"max": 30},
    "swap_at_go_down": {"max": MAX_SWAPS_AT_GO_DOWN},
    "card_points": {"max": 1000},
    "rummy_points": {"max": 1000},
    "cut_bonus": {"max": 1000},
}

MAX_SEATS = 8
MAX_OVERRIDES = 64
MAX_BUY_WINDOW = 60.0  # seconds
MAX_HAND_PAUSE = 300.0  # seconds


@dataclass(frozen=True)
class CreateRequest:
    """A create request that passed every check of its body: what the new table is made of."""

    host_name: str  # the nickname of the host, who takes seat 0
    config: dict[str, Any]  # the table's configuration, as it is stored


def parse_create(body: Mapping[str, Any], limits: Limits, bot_commands: Mapping[str, str],
                 *, allow_seed: bool = False) -> CreateRequest:
    """The create request in ``body`` (a JSON object), or the first refusal of it (``ApiError``
    400, naming the field at fault). ``bot_commands``: the bot levels the host added;
    ``allow_seed``: whether a ``seed`` and ``deals`` are taken (they show the host the cards).
    The table's seed and join secret are drawn here."""
    nickname = clean_nickname(body.get("nickname"), limits.nickname_max)
    preset = body.get("rules", "standard")
    if not isinstance(preset, str) or preset not in PRESET_NAMES:
        raise ApiError(400, "bad_rules", f"unknown preset; choose one of "
                                         f"{', '.join(PRESET_NAMES)}", "rules")
    overrides = body.get("overrides") or {}
    if not isinstance(overrides, dict) or len(overrides) > MAX_OVERRIDES:
        raise ApiError(400, "bad_rules", "overrides must be an object {knob: value}",
                       "overrides")
    try:
        rules = RuleSet.preset(preset, overrides)
    except RulesError as e:
        # in the rules reference's words, at the option it names (a page places it there)
        knob = e.knob if e.knob in KNOB_INFO else None
        raise ApiError(400, "bad_rules", refusal_words(e)[:500],
                       f"overrides.{knob}" if knob else "overrides", knob=knob) from None
    except (TypeError, ValueError, OverflowError) as e:
        raise ApiError(400, "bad_rules", str(e)[:500], "overrides") from None
    check_web_rules(rules, limits)
    seats = _seats(body.get("seats"), limits, bot_commands)
    try:
        rules.check_players(len(seats))
    except RulesError as e:
        raise ApiError(400, "bad_rules", refusal_words(e), "seats") from None
    public = body.get("public", False)
    if not isinstance(public, bool):
        raise ApiError(400, "bad_request", "public must be true or false", "public")
    config: dict[str, Any] = {
        "rules": preset, "overrides": rules.overrides_from(PRESETS[preset]),
        "seats": seats,
        "turn_timer": check_timer(body.get("turn_timer"), "turn_timer", limits),
        "buy_timer": check_timer(body.get("buy_timer"), "buy_timer", limits),
        "buy_window": check_seconds(body.get("buy_window"), "buy_window", MAX_BUY_WINDOW),
        "hand_pause": check_seconds(body.get("hand_pause"), "hand_pause", MAX_HAND_PAUSE),
        "seed": secrets.randbits(48), "public": public,
        "join_secret": new_secret()}
    if "seed" in body or "deals" in body:
        if not allow_seed:
            raise ApiError(400, "bad_request", "this server does not take a seed or deals "
                                               "(they would show the host the cards)", "seed")
        seed = body.get("seed", config["seed"])
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ApiError(400, "bad_request", "seed must be a whole number", "seed")
        config["seed"] = seed
        if body.get("deals") is not None:
            config["deals"] = body["deals"]
    return CreateRequest(nickname, config)


def _seats(value: Any, limits: Limits, bot_commands: Mapping[str, str]) -> list[dict[str, Any]]:
    """The seats as a table stores them: a human's, or a bot's of a level on the closed list;
    seat 0 is the host's."""
    if not isinstance(value, list) or not value or len(value) > MAX_SEATS:
        raise ApiError(400, "bad_request", f"seats must be a list, one entry per seat (at "
                                           f"most {MAX_SEATS})", "seats")
    seats: list[dict[str, Any]] = []
    for i, s in enumerate(value):
        kind = s.get("kind") if isinstance(s, dict) else None
        if kind == "human":
            seats.append({"kind": "human", "level": None})
        elif kind == "bot":
            assert isinstance(s, dict)
            seats.append({"kind": "bot", "level": check_level(
                s.get("level"), limits, bot_commands, f"seats[{i}].level")})
        else:
            raise ApiError(400, "bad_request", f"seat {i}: kind must be \"human\" or "
                                               f"\"bot\"", f"seats[{i}].kind")
    if seats[0]["kind"] != "human":
        raise ApiError(400, "bad_request", "seat 0 is the host's: it must be human",
                       "seats[0].kind")
    return seats


def check_startable(request: CreateRequest) -> None:
    """Refuse (400 ``bad_request``) a configuration no game could be started from. It deals
    the game: run it off the event loop."""
    try:
        check_config(request.config)
    except (ValueError, TypeError) as e:
        raise ApiError(400, "bad_request", str(e)[:500]) from None


def check_config(config: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` (or ``TypeError``) if a game could not be started from this
    configuration."""
    rules = RuleSet.preset(config["rules"], config["overrides"])
    deals = config.get("deals")
    parsed = None
    if deals is not None:
        if not isinstance(deals, list) or not all(isinstance(d, list) for d in deals):
            raise ValueError("deals must be a list of whole packs (lists of cards)")
        parsed = [[parse_card(c) for c in deck] for deck in deals]
    Game(rules, len(config["seats"]), seed=config["seed"], deals=parsed)


def check_web_rules(rules: RuleSet, limits: Limits) -> None:
    """The bounds a web table keeps on every rule option that costs memory or CPU (400
    ``bad_rules`` naming the option).

    Listing a seat's legal actions runs on the event loop, and its cost grows fast with the
    cards in hand (dealt, then bought with their penalty cards), the melds a contract asks
    for, the wilds in the pack, sets of two and joker swaps before going down (each possible
    swap is solved as a go-down of its own). Those are held to what the presets use, where
    the slowest listing of long random games stays in the tens of milliseconds; any of them
    above it made that several to hundreds of times slower (one listing of 17 s was seen)."""
    def need(ok: bool, knob: str, bound: str) -> None:
        if not ok:  # worded by the option's label, as the lobby shows it
            raise ApiError(400, "bad_rules", f"{KNOB_INFO[knob].label}: on this server {bound}",
                           f"overrides.{knob}", knob=knob)

    most = WEB_BOUNDS
    need(all(1 <= d <= most["decks"]["fields"][1]["max"] for _, d in rules.decks), "decks",
         f"1 to {most['decks']['fields'][1]['max']} decks")
    need(0 <= rules.jokers_per_deck <= most["jokers_per_deck"]["max"], "jokers_per_deck",
         f"0 to {most['jokers_per_deck']['max']}")
    need(rules.jokers_per_deck + (4 if rules.deuces_wild else 0) <= WILDS_PER_DECK,
         "jokers_per_deck", f"at most {WILDS_PER_DECK} wild cards a deck (the jokers, and the "
                            f"2s when they are wild)")
    need(len(rules.deal_sizes) <= most["deal_sizes"]["max_items"]
         and all(1 <= d <= MAX_DEAL for d in rules.deal_sizes),
         "deal_sizes", f"each deal is 1 to {MAX_DEAL} cards, at most "
                       f"{most['deal_sizes']['max_items']} deals")
    need(len(rules.contracts) <= most["contracts"]["max_items"]
         and all(c.sets + c.runs <= MAX_MELDS for c in rules.contracts),
         "contracts", f"at most {most['contracts']['max_items']} hands, each asking for at "
                      f"most {MAX_MELDS} sets and runs in all")
    need(rules.min_set >= most["min_set"]["min"], "min_set",
         f"{most['min_set']['min']} or more cards")
    need(rules.hands is None or len(rules.hands) <= most["hands"]["max_items"], "hands",
         f"at most {most['hands']['max_items']} hands")
    for knob in ("penalty_cards", "max_buys", "stock_reshuffles", "turn_limit", "own_max_hands",
                 "swap_at_go_down", "rummy_points", "cut_bonus"):
        value = getattr(rules, knob)
        need(value is None or value <= most[knob]["max"], knob,
             f"at most {most[knob]['max']}")
    need(all(p <= most["card_points"]["max"] for p in rules.card_points), "card_points",
         f"each at most {most['card_points']['max']} points")


def web_form(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A knob form (``rulestext.knob_form``) with each control held to this server's bounds
    (``WEB_BOUNDS``), so that a page offers no value the server would refuse for its cost."""
    out = []
    for row in rows:
        bounds = WEB_BOUNDS.get(row["knob"])
        if bounds:
            control = {**row["control"], **{k: v for k, v in bounds.items() if k != "fields"}}
            if "fields" in bounds:
                control["fields"] = [{**f, **b} for f, b in
                                     zip(control["fields"], bounds["fields"], strict=True)]
            row = {**row, "control": control}
        out.append(row)
    return out


def check_timer(value: Any, field: str, limits: Limits) -> float | None:
    """A turn or buy timer in seconds, within the server's bounds, or None (no timer)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not limits.min_timer <= value <= limits.max_timer or value <= 0:
        raise ApiError(400, "bad_request", f"{_clock(field)}: a number of seconds from "
                                           f"{limits.min_timer:g} to {limits.max_timer:g}, or "
                                           f"empty (null) for none", field)
    return float(value)


def check_seconds(value: Any, field: str, most: float) -> float | None:
    """A table's wait of ``field`` seconds, 0 (no wait) to ``most``, or None (the server's)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= most:
        raise ApiError(400, "bad_request", f"{_clock(field)}: a number of seconds from 0 to "
                                           f"{most:g}, or empty (null) for the server's", field)
    return float(value)


def _clock(field: str) -> str:
    """A clock's name as the lobby labels it ("May I? time limit"), for its refusals."""
    return CLOCKS[field][0].removesuffix(" (s)") if field in CLOCKS else field
