"""Shared hypothesis strategies.

``rule_sets()`` draws a random rule set: a preset, overrides of nearly every knob over it, and a
player count the rule set accepts. It wraps ``liverpool.soak.random_rules``, the one definition
of a random rule set, which ``liverpool soak --random-rules`` also draws from (with a seeded
``random.Random``); here the draws come from hypothesis's random, so failures shrink: each knob
towards the preset's own value, each choice towards its first and simplest option.
"""

from __future__ import annotations

from hypothesis import strategies as st

from liverpool.rules import RulesError
from liverpool.soak import RandomRules, random_rules


def accepted(rr: RandomRules) -> bool:
    """Whether ``RuleSet.check`` (and the deal check for the player count) accept ``rr``."""
    try:
        rr.rules().check_players(rr.players)
    except RulesError:
        return False
    return True


def rule_sets(preset: str | None = None) -> st.SearchStrategy[RandomRules]:
    """Random rule sets over ``preset`` (None: a random preset)."""
    # random_rules builds only accepted combinations; the filter is a guard that never bites
    return st.randoms(use_true_random=False).map(
        lambda rnd: random_rules(rnd, preset)).filter(accepted)
