"""The PettingZoo AEC environment: a whole Liverpool game, one id per agent step.

Domain words: *agent* (``player_0`` .. ``player_{n-1}``, one per seat), *agent step* (one id of
the action space, ``rl.codec``: an engine action of several tokens takes several steps of the
same agent), *reward* (``"hand"``: each hand's points, negated, given when the hand ends;
``"game"``: at the game's end 1 shared by the winners, 0 to the others), *truncation* (a game
cut short after ``max_steps`` agent steps, when one is given).

The agent to act is the engine's (``Game.to_act``, the first when several are asked in a buy
round): out-of-turn decisions, buying and calling, are steps of the seats asked, in the order
the engine asks them. Observations come from ``Game.view_for`` alone (``rl.observe``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils.env_logger import EnvLogger  # type: ignore[import-untyped]
from pettingzoo.utils.wrappers import OrderEnforcingWrapper  # type: ignore[import-untyped]

from ..cards import cards_str
from ..engine import Game, HandEnded, IllegalActionError
from ..rules import RuleSet
from . import codec
from .codec import Choice
from .observe import Layout, observe

REWARDS = ("hand", "game")
ILLEGAL_REWARD = -1.0  # what the wrapped environment gives a seat that plays an illegal id


def make_rules(rules: str | RuleSet, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """A rule set from a preset's name (with knob overrides) or as given."""
    if isinstance(rules, RuleSet):
        return rules.with_overrides(overrides) if overrides else rules
    return RuleSet.preset(rules, overrides)


class LiverpoolEnv(AECEnv):  # type: ignore[misc]
    """``rules``: a preset's name or a ``RuleSet``; ``overrides``: knobs to change;
    ``players``: seats; ``seed``: the first game's seed (a later ``reset(seed=...)`` wins);
    ``reward``: ``"hand"`` or ``"game"``; ``max_steps``: agent steps before truncation."""

    metadata: ClassVar[dict[str, Any]] = {"name": "liverpool_v0",
                                          "render_modes": ["ansi", "human"],
                                          "is_parallelizable": False}

    def __init__(self, rules: str | RuleSet = "standard", players: int = 4,
                 seed: int | None = None, reward: str = "hand", max_steps: int | None = None,
                 overrides: Mapping[str, Any] | None = None, render_mode: str | None = None
                 ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.ruleset = make_rules(rules, overrides)
        self.ruleset.check_players(players)
        self.players = players
        self.reward_kind = reward
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.layout = Layout(players)
        self.possible_agents = [f"player_{s}" for s in range(players)]
        self._seats = {a: s for s, a in enumerate(self.possible_agents)}
        self._rewarded = False
        self.agents = self.possible_agents[:]
        self._seeds = random.Random(seed)
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.layout.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (codec.SIZE,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(codec.SIZE) for a in self.possible_agents}
        self.game: Game | None = None
        self.choice: Choice | None = None
        self.steps = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ---- the episode -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
        self.game = Game(self.ruleset, self.players, seed=self._seeds.getrandbits(63))
        self.steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewarded = False  # some reward of the last step is not 0
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._next_choice()

    def _next_choice(self) -> None:
        game = self.game
        assert game is not None
        seat = game.to_act()[0]
        self.choice = Choice(game, seat)
        self.agent_selection = self.possible_agents[seat]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game, choice = self.game, self.choice
        assert game is not None and choice is not None
        done = choice.choose(int(action))  # an illegal id raises here, before any change
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if self._rewarded:  # most steps reward nobody: zeros need not be written again
            for a in rewards:
                rewards[a] = 0.0
            self._rewarded = False
        self.steps += 1
        if done is not None:
            for event in game.apply(done):
                if isinstance(event, HandEnded) and self.reward_kind == "hand":
                    for s, points in enumerate(event.points):
                        rewards[self.possible_agents[s]] = -float(points)
                    self._rewarded = True
            if game.over:
                if self.reward_kind == "game":
                    for s in game.winners:
                        rewards[self.possible_agents[s]] = 1.0 / len(game.winners)
                    self._rewarded = True
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self._next_choice()
        if self.max_steps is not None and self.steps >= self.max_steps and not game.over:
            self.truncations = dict.fromkeys(self.agents, True)
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    # ---- what an agent sees ----------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self.game
        assert game is not None, "reset() the environment first"
        seat = self._seats[agent]
        acting = agent == self.agent_selection and not game.over and self.choice is not None
        pending = self.choice.prefix if acting and self.choice is not None else ()
        mask = np.zeros(codec.SIZE, dtype=np.int8)
        if acting and self.choice is not None:
            mask[self.choice.legal()] = 1
        return {"observation": observe(game.view_for(seat), pending, self.layout),
                "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode: 'ansi' or 'human'")
            return None
        game = self.game
        if game is None:
            return ""
        view = game.view_for(None)
        lines = [f"hand {view.hand_number}, {view.phase}; to act: "
                 + ", ".join(self.possible_agents[s] for s in view.to_act)]
        for s in range(self.players):
            lines.append(f"  {self.possible_agents[s]}: {cards_str(game.held(s))}"
                         f"{' (down)' if view.down[s] else ''}, total {view.totals[s]}")
        for i, m in enumerate(view.melds):
            lines.append(f"  meld {i} ({self.possible_agents[m.owner]}): {cards_str(m.cards)}")
        if view.discard:
            lines.append(f"  discard: {cards_str(view.discard[-1:])}, stock {view.stock_size}")
        if self.choice is not None and self.choice.prefix:
            lines.append("  spelling: " + " ".join(codec.token_name(t)
                                                   for t in self.choice.prefix))
        return "\n".join(lines)

    def close(self) -> None:
        pass

    def is_legal_id(self, action: Any) -> bool:
        """Whether ``action`` is an id the acting agent may choose now (its mask's 1s)."""
        choice = self.choice
        return choice is not None and self.game is not None and not self.game.over \
            and action in choice.legal()


class CheckedEnv(OrderEnforcingWrapper):  # type: ignore[misc]
    """The checks of PettingZoo's three classic-game wrappers in one layer, with the same
    outcomes: an illegal id ends the game with ``ILLEGAL_REWARD`` for the agent that chose it
    (TerminateIllegalWrapper), an id out of range fails an assertion (AssertOutOfBoundsWrapper),
    and calls out of order are errors (OrderEnforcingWrapper). One layer, because each layer
    forwards every attribute read through ``__getattr__``: three of them took a fifth of a
    step's time."""

    def __init__(self, env: LiverpoolEnv) -> None:
        super().__init__(env)
        self._raw = env

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.last(observe)  # type: ignore[no-any-return]

    def step(self, action: Any) -> None:
        raw = self._raw
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        in_range = (type(action) is int and 0 <= action < codec.SIZE) \
            or raw.action_space(agent).contains(action)
        assert (action is None and dead) or in_range, "action is not in action space"
        try:
            raw.step(action)  # an illegal id is refused there before anything changes
            return
        except IllegalActionError:
            if dead or raw.is_legal_id(int(action)):
                raise  # an id the mask offers, refused: a fault to see, not a move to punish
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0.0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.agents, 0.0)
        raw.rewards[agent] = ILLEGAL_REWARD
        raw._accumulate_rewards()
        raw._deads_step_first()

    def __str__(self) -> str:
        return str(self._raw)


def raw_env(**kwargs: Any) -> LiverpoolEnv:
    """The environment without PettingZoo's wrappers: an illegal id raises
    ``IllegalActionError`` with the reason."""
    return LiverpoolEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The environment checked as PettingZoo's classic games wrap theirs (``CheckedEnv``): an
    illegal id ends the game with ``ILLEGAL_REWARD`` for the seat that chose it; ids out of
    range are refused; the order of calls is enforced."""
    return CheckedEnv(raw_env(**kwargs))
