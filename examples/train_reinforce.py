#!/usr/bin/env python3
"""Train a small policy for the learning environment (``liverpool.rl``) with REINFORCE, on the
CPU in a few minutes, with NumPy alone, and measure it against the random bot.

    python examples/train_reinforce.py --episodes 400 --seed 1 --eval-games 200 --out w.npz

Domain words: *agent* (the seat the policy plays), *opponent* (any project bot, here the
random bot of the ladder's level 1, seated inside the environment by ``seat_bot``), *id* (one
token of the action-id space, ``rl.codec``: the policy picks one id per environment step),
*features* (a few numbers per legal id, ``Features``), *hand episode* (the agent's steps in one
hand: the environment's ``reward="hand"`` gives each seat its hand's points, negated, when the
hand ends), *baseline* (a linear estimate of the hand's reward from the state, subtracted from
the reward to lower the variance of the gradient).

The policy is a softmax over the ids the action mask allows, with the logit of each id linear
in a feature vector built for that id from the observation's named parts (``Layout.parts``):

* the id's *kind* (DRAW, TAKE_DISCARD, PASS, BUY, GO_DOWN, CALL, DISCARD, LAY_OFF, SWAP, CARD,
  MELD, STOP, ...: 20 kinds) crossed with a small *context* (1, the hand's size and points,
  whether the seat and its opponents are down, the opponents' fewest cards, the stock, buys
  left), so each kind has a learned bias that depends on the situation;
* for the ids that name a card (a discard, a lay-off or a swap, a meld's card in a go-down,
  and the discard pile's top card for TAKE_DISCARD, BUY and CALL) the card's own facts: its
  points, whether it is wild, the cards of its rank and its suit neighbours in the rest of the
  hand (alone and crossed with the contract's sets and runs), its copies, the copies of its
  rank not yet seen and on the table; one weight vector per group of kinds (a card leaving the
  hand, a card taken, a card laid off, a card put in a new meld).

That is ``Features.size`` (200) weights, shared by all 53 cards, so the policy learns from
every hand: which card to throw (high, lonely ones), when to take the discard or buy, and to
go down and lay off when the mask offers it. Nothing is given in advance: the weights start at
zero (a uniform choice among the legal ids) and every preference is learned.

Training: the agent plays 2-player games (``--rules``, default ``arena``) against the random
bot, seats alternating, sampling its ids; at the end of each hand every step of that hand gets
the advantage (hand reward - baseline), scaled by 1/100, and after each game one Adam step
follows the REINFORCE gradient. Evaluation plays ``--eval-games`` new seeded games with the
greedy policy (the most likely id) and prints the win share with its 95% (Wilson) interval,
the mean points per hand of each side and the training time. ``examples/policy_bot.py`` seats
the trained weights wherever the project seats a bot (the bot protocol).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from liverpool.bots import Bot, RandomBot, make_bot
from liverpool.cards import NUM_KINDS, is_wild, rank_of, suit_of
from liverpool.rl import codec
from liverpool.rl import env as make_env
from liverpool.rl.aec import make_rules
from liverpool.rl.observe import Layout
from liverpool.rules import RuleSet
from liverpool.simulate import wilson

Array = npt.NDArray[np.float64]
FORMAT = 1  # the layout of the features the saved weights belong to

# ---- the id space in kinds and card groups --------------------------------------------------

KIND_NAMES = ("DRAW", "TAKE_DISCARD", "NO_DRAW", "PASS", "BUY", "BUY_DEEP", "GO_DOWN", "BORROW",
              "CALL", "CUT", "DISCARD", "GIVE", "LAY_OFF", "SWAP", "CARD", "MELD", "END",
              "MELD_END", "STOP", "NUMBER")
GROUP_NAMES = ("out", "in", "lay", "meld")  # a card leaving the hand, taken, laid off, melded
TOP = -2  # the card of an id that takes the discard pile's top card


def _id_tables() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per id: its kind, its card group (-1: none) and its card (-1: none, TOP: the pile's)."""
    kind = np.zeros(codec.SIZE, dtype=np.int64)
    group = np.full(codec.SIZE, -1, dtype=np.int64)
    card = np.full(codec.SIZE, -1, dtype=np.int64)
    kind[:codec.DISCARD] = np.arange(codec.DISCARD)
    for k, (base, g) in enumerate(((codec.DISCARD, 0), (codec.GIVE, 0), (codec.LAY_OFF, 2),
                                   (codec.SWAP, 2), (codec.CARD, 3)), start=10):
        kind[base:base + NUM_KINDS] = k
        group[base:base + NUM_KINDS] = g
        card[base:base + NUM_KINDS] = np.arange(NUM_KINDS)
    kind[codec.MELD:codec.END_LOW] = 15
    kind[codec.END_LOW:codec.MELD_END] = 16
    kind[codec.MELD_END] = 17
    kind[codec.STOP] = 18
    kind[codec.NUMBER:] = 19
    for t in (codec.TAKE_DISCARD, codec.BUY, codec.BUY_DEEP, codec.CALL):
        group[t] = 1
        card[t] = TOP
    return kind, group, card


KIND_OF, GROUP_OF, CARD_OF = _id_tables()
CONTEXT = ("bias", "hand_size", "hand_points", "down", "opponent_down", "opponent_fewest",
           "stock", "buys_left")
CARD_FACTS = ("points", "wild", "same_rank", "neighbours", "same_rank_x_sets",
              "neighbours_x_runs", "copies", "rank_unseen", "rank_on_table", "bias")


class Features:
    """The feature vectors of the legal ids (one row each) from an observation, for the rule
    set's card points and wilds and the table's ``Layout``."""

    def __init__(self, rules: RuleSet, players: int) -> None:
        self.layout = Layout(players)
        self.players = players
        p = self.layout.parts
        self.parts = p
        self.seats = [p[f"seat_{r}"] for r in range(players)]
        self.melded = np.concatenate([np.arange(p[f"melded_{r}"].start, p[f"melded_{r}"].stop)
                                      for r in range(players)])
        cards = range(NUM_KINDS)
        self.points = np.array([rules.points(c) for c in cards], dtype=np.float64)
        self.wild = np.array([is_wild(c, rules.deuces_wild) for c in cards], dtype=np.float64)
        # rank 0 is the joker's (and a wild deuce's): wilds build no set or run of their own
        self.rank = np.array([0 if self.wild[c] else rank_of(c) for c in cards], dtype=np.int64)
        neighbours = np.full((NUM_KINDS, 4), NUM_KINDS, dtype=np.int64)  # NUM_KINDS: no card
        for c in cards:
            if self.rank[c]:
                r, s = rank_of(c), suit_of(c)
                for i, d in enumerate((-2, -1, 1, 2)):
                    neighbours[c, i] = s * 13 + (r - 1 + d) % 13  # the ace goes low and high
        self.neighbours = neighbours
        self.melded_rank = np.tile(self.rank, players)  # the rank of each melded_* entry
        self.kinds = len(KIND_NAMES)
        self.context_size = len(CONTEXT)
        self.card_size = len(CARD_FACTS)
        self.card_base = self.kinds * self.context_size
        self.size = self.card_base + len(GROUP_NAMES) * self.card_size
        self.value_size = self.context_size + 7  # the context, then the hand number (one-hot)

    def context(self, obs: npt.NDArray[np.float32]) -> Array:
        p = self.parts
        hand = obs[p["hand"]].astype(np.float64)
        me = obs[self.seats[0]]
        others = [obs[s] for s in self.seats[1:]]
        # the seat facts in observe.SEAT_FACTS order: hand_size 0, down 1, buys_left 4
        return np.array([
            1.0, hand.sum() / 12, hand @ self.points / 100, me[1],
            max(o[1] for o in others), min(o[0] for o in others) / 12,
            obs[p["stock"].start] / 50, me[4] / 3])

    def value(self, obs: npt.NDArray[np.float32]) -> Array:
        """The baseline's inputs: the context and the hand's number."""
        hand_no = np.zeros(7)
        hand_no[min(int(obs[self.parts["hand_number"].start]), 7) - 1] = 1
        return np.concatenate([self.context(obs), hand_no])

    def __call__(self, obs: npt.NDArray[np.float32], ids: Sequence[int]) -> Array:
        p = self.parts
        ids_a = np.asarray(ids, dtype=np.int64)
        out = np.zeros((len(ids_a), self.size))
        ctx = self.context(obs)
        kinds = KIND_OF[ids_a]
        cols = kinds[:, None] * self.context_size + np.arange(self.context_size)
        out[np.arange(len(ids_a))[:, None], cols] = ctx
        groups = GROUP_OF[ids_a]
        rows = np.flatnonzero(groups >= 0)
        if rows.size == 0:
            return out
        cards = CARD_OF[ids_a[rows]]
        top = obs[p["discard_top"]]
        if (cards == TOP).any():
            if not top.any():  # an id that takes the top card with an empty pile: no card facts
                keep = cards != TOP
                rows, cards = rows[keep], cards[keep]
            else:
                cards = np.where(cards == TOP, int(np.argmax(top)), cards)
        hand = np.append(obs[p["hand"]].astype(np.float64), 0.0)
        by_rank = np.bincount(self.rank, weights=hand[:NUM_KINDS], minlength=14)
        unseen = np.bincount(self.rank, weights=obs[p["unseen"]], minlength=14)
        table = np.bincount(self.melded_rank, weights=obs[self.melded], minlength=14)
        rank = self.rank[cards]
        real = (rank > 0).astype(np.float64)
        leaving = (groups[rows] != 1) & (hand[cards] > 0)  # the card is one of the hand's
        same = np.minimum(by_rank[rank] - leaving, 3) * real / 3
        near = (hand[self.neighbours[cards]] > 0).sum(axis=1) * real / 4
        contract = obs[p["contract"]]
        melds = max(contract[0] + contract[1], 1.0)
        facts = np.stack([
            self.points[cards] / 20, self.wild[cards], same, near, same * contract[0] / melds,
            near * contract[1] / melds, (hand[cards] - leaving) / 2, unseen[rank] * real / 8,
            (table[rank] > 0) * real, np.ones(len(cards))], axis=1)
        cols = (self.card_base + groups[rows][:, None] * self.card_size
                + np.arange(self.card_size))
        out[rows[:, None], cols] = facts
        return out


# ---- the policy -------------------------------------------------------------------------------

@dataclass
class Policy:
    """A softmax over the legal ids with logits ``features @ theta``."""

    features: Features
    theta: Array
    value_w: Array
    rules: str = "arena"

    @staticmethod
    def fresh(rules: RuleSet, players: int) -> Policy:
        f = Features(rules, players)
        return Policy(f, np.zeros(f.size), np.zeros(f.value_size), rules.name)

    def probs(self, feats: Array) -> Array:
        logits = feats @ self.theta
        e = np.exp(logits - logits.max())
        out: Array = e / e.sum()
        return out

    def pick(self, obs: npt.NDArray[np.float32], ids: Sequence[int],
             rng: np.random.Generator | None) -> tuple[int, Array, int]:
        """The chosen id (sampled with ``rng``, else the most likely), the features of the
        legal ids and the chosen row."""
        feats = self.features(obs, ids)
        pr = self.probs(feats)
        row = int(np.argmax(pr)) if rng is None else int(rng.choice(len(ids), p=pr))
        return int(ids[row]), feats, row

    def for_table(self, rules: RuleSet, players: int) -> Policy:
        """The same weights reading the observation of another table (its rules' card points
        and wilds, its seats): the features' size does not depend on them."""
        return Policy(Features(rules, players), self.theta, self.value_w, self.rules)

    def save(self, path: str | Path) -> None:
        np.savez(path, theta=self.theta, value_w=self.value_w, format=FORMAT,
                 rules=self.rules, players=self.features.players)

    @staticmethod
    def load(path: str | Path, rules: RuleSet | None = None) -> Policy:
        """Weights saved by ``save``; ``rules`` (default: the ones trained on) gives the card
        points and wilds the features read."""
        with np.load(path) as w:
            if int(w["format"]) != FORMAT:
                raise ValueError(f"{path}: weights of feature format {int(w['format'])}, "
                                 f"this script reads {FORMAT}")
            name, players = str(w["rules"]), int(w["players"])
            theta, value_w = w["theta"].astype(np.float64), w["value_w"].astype(np.float64)
        ruleset = rules if rules is not None else make_rules(name)
        f = Features(ruleset, max(players, 2))
        if theta.shape != (f.size,):
            raise ValueError(f"{path}: {theta.shape[0]} weights, the features need {f.size}")
        return Policy(f, theta, value_w, name)


# ---- a project bot inside the environment ---------------------------------------------------

def seat_bot(env: Any, bot: Bot, rng: random.Random) -> None:
    """Let ``bot`` (any project bot: ``RandomBot``, ``make_bot("level:5")``, ...) play the
    acting agent's whole decision: it sees that seat's view and legal engine actions (from the
    unwrapped environment's ``game``), picks an engine action, and the environment is stepped
    through the action's ids (``codec.spell``), then STOP where the mask still asks for it (a
    go-down that could lay down more melds). Stops early if the episode ends."""
    raw = env.unwrapped
    game = raw.game
    agent = env.agent_selection
    seat = raw.possible_agents.index(agent)
    action = bot.choose(game.view_for(seat), game.legal_actions(seat), rng)
    for token in codec.spell(game.canonical(action)):
        if raw.terminations[agent] or raw.truncations[agent]:
            return
        env.step(token)
    if (env.agent_selection == agent and not (raw.terminations[agent]
                                              or raw.truncations[agent])
            and env.observe(agent)["action_mask"][codec.STOP]):
        env.step(codec.STOP)


# ---- playing and learning -----------------------------------------------------------------------

@dataclass
class Hand:
    """The agent's steps in the hand being played: features, chosen rows, baseline inputs."""

    feats: list[Array] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)
    values: list[Array] = field(default_factory=list)


@dataclass
class GameResult:
    agent_points: list[float]  # per hand
    opponent_points: list[float]
    share: float  # the agent's part of the win: 1, 1/2 for a shared win, 0
    truncated: bool
    steps: int


class Learner:
    """REINFORCE with a linear baseline: gradients gathered hand by hand, one Adam step per
    game."""

    def __init__(self, policy: Policy, lr: float = 0.02, value_lr: float = 0.05) -> None:
        self.policy = policy
        self.lr = lr
        self.value_lr = value_lr
        self.m = np.zeros_like(policy.theta)
        self.v = np.zeros_like(policy.theta)
        self.t = 0
        self.grad = np.zeros_like(policy.theta)
        self.value_grad = np.zeros_like(policy.value_w)
        self.count = 0

    def end_hand(self, hand: Hand, reward: float) -> None:
        """Credit every step of a finished hand with its reward (points, negated)."""
        if not hand.rows:
            return
        target = reward / 100
        for feats, row, vin in zip(hand.feats, hand.rows, hand.values, strict=True):
            pr = self.policy.probs(feats)
            baseline = float(vin @ self.policy.value_w)
            advantage = target - baseline
            self.grad += advantage * (feats[row] - pr @ feats)
            self.value_grad += (target - baseline) * vin
            self.count += 1

    def update(self) -> None:
        """One Adam step up the policy's gradient; a plain step for the baseline."""
        if self.count == 0:
            return
        g = self.grad / self.count
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * g
        self.v = 0.999 * self.v + 0.001 * g * g
        m_hat = self.m / (1 - 0.9 ** self.t)
        v_hat = self.v / (1 - 0.999 ** self.t)
        self.policy.theta += self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)
        self.policy.value_w += self.value_lr * self.value_grad / self.count
        self.grad[:] = 0
        self.value_grad[:] = 0
        self.count = 0


def play(env: Any, policy: Policy, agent_seat: int, opponent: Bot, seed: int,
         rng: np.random.Generator, bot_rng: random.Random, learner: Learner | None = None
         ) -> GameResult:
    """One game of the agent (seat ``agent_seat``) against ``opponent`` in every other seat;
    with a ``learner`` the agent samples and learns, without it it plays greedily."""
    env.reset(seed=seed)
    raw = env.unwrapped
    me = raw.possible_agents[agent_seat]
    agent_points: list[float] = []
    opponent_points: list[float] = []
    hand = Hand()
    steps = 0

    def hand_over() -> None:
        nonlocal hand
        # every seat's reward of the hand that just ended (rl.aec sets them all at once)
        agent_points.append(-raw.rewards[me])
        opponent_points.append(-sum(r for a, r in raw.rewards.items() if a != me))
        if learner is not None:
            learner.end_hand(hand, raw.rewards[me])
        hand = Hand()

    hand_no = 1
    ended = False
    for agent in env.agent_iter():
        if raw.terminations[agent] or raw.truncations[agent]:
            env.step(None)  # the game is over (or cut short): each agent leaves with None
            continue
        if agent != me:
            seat_bot(env, opponent, bot_rng)
        else:
            obs = env.observe(agent)
            ids: list[int] = np.flatnonzero(obs["action_mask"]).tolist()
            if len(ids) == 1:
                env.step(ids[0])
            else:
                vec = obs["observation"]
                token, feats, row = policy.pick(vec, ids, None if learner is None else rng)
                if learner is not None:
                    hand.feats.append(feats)
                    hand.rows.append(row)
                    hand.values.append(policy.features.value(vec))
                env.step(token)
            steps += 1
        game = raw.game
        if not ended and (game.over or game.hand_number() != hand_no):
            hand_over()
            hand_no = game.hand_number()
            ended = game.over
    game = raw.game
    share = (1 / len(game.winners)) if game.over and agent_seat in game.winners else 0.0
    return GameResult(agent_points, opponent_points, share, not game.over, steps)


# ---- the run -------------------------------------------------------------------------------------

@dataclass
class Evaluation:
    games: int
    wins: float
    low: float
    high: float
    agent_per_hand: float
    opponent_per_hand: float
    truncated: int
    train_seconds: float
    eval_seconds: float

    def table(self, opponent: str) -> str:
        rows = [
            ("games", f"{self.games}"),
            (f"agent's win share vs {opponent}",
             f"{self.wins / max(self.games, 1):.1%} (95%: {self.low:.1%}-{self.high:.1%})"),
            ("agent's mean points per hand", f"{self.agent_per_hand:.1f}"),
            (f"{opponent}'s mean points per hand", f"{self.opponent_per_hand:.1f}"),
            ("games cut short (max steps)", f"{self.truncated}"),
            ("training time", f"{self.train_seconds:.1f} s"),
            ("evaluation time", f"{self.eval_seconds:.1f} s"),
        ]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def new_env(rules: str, seed: int, max_steps: int, overrides: dict[str, Any] | None) -> Any:
    return make_env(rules=rules, players=2, seed=seed, reward="hand", max_steps=max_steps,
                    overrides=overrides)


def train(policy: Policy, episodes: int, seed: int, rules: str, max_steps: int,
          overrides: dict[str, Any] | None = None, lr: float = 0.02,
          opponent: Bot | None = None, log_every: int = 50) -> float:
    """``episodes`` games against ``opponent`` (default: the random bot), one Adam step after
    each; the seconds they took."""
    env = new_env(rules, seed, max_steps, overrides)
    learner = Learner(policy, lr=lr)
    rng = np.random.default_rng(seed)
    bot_rng = random.Random(seed)
    seeds = random.Random(f"train:{seed}")
    opponent = opponent or RandomBot()
    start = time.perf_counter()
    recent: list[GameResult] = []
    for episode in range(episodes):
        result = play(env, policy, episode % 2, opponent, seeds.getrandbits(63), rng, bot_rng,
                      learner)
        learner.update()
        recent.append(result)
        if log_every and (episode + 1) % log_every == 0:
            hands = sum(len(r.agent_points) for r in recent) or 1
            print(f"episode {episode + 1:5d}: win share {np.mean([r.share for r in recent]):.2f}, "
                  f"points per hand {sum(sum(r.agent_points) for r in recent) / hands:.1f} vs "
                  f"{sum(sum(r.opponent_points) for r in recent) / hands:.1f}, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
            recent = []
    return time.perf_counter() - start


def evaluate(policy: Policy, games: int, seed: int, rules: str, max_steps: int,
             overrides: dict[str, Any] | None = None, train_seconds: float = 0.0,
             opponent: Bot | None = None) -> Evaluation:
    """``games`` seeded games of the greedy policy against ``opponent`` (default: the random
    bot), seats alternating (the deals come from a stream of seeds apart from training's)."""
    env = new_env(rules, seed, max_steps, overrides)
    rng = np.random.default_rng(seed)
    bot_rng = random.Random(f"eval-bot:{seed}")
    seeds = random.Random(f"eval:{seed}")
    opponent = opponent or RandomBot()
    start = time.perf_counter()
    results = [play(env, policy, g % 2, opponent, seeds.getrandbits(63), rng, bot_rng)
               for g in range(games)]
    seconds = time.perf_counter() - start
    wins = sum(r.share for r in results)
    low, high = wilson(wins, games)
    hands = sum(len(r.agent_points) for r in results) or 1
    return Evaluation(
        games=games, wins=wins, low=low, high=high,
        agent_per_hand=sum(sum(r.agent_points) for r in results) / hands,
        opponent_per_hand=sum(sum(r.opponent_points) for r in results) / hands,
        truncated=sum(r.truncated for r in results), train_seconds=train_seconds,
        eval_seconds=seconds)


def describe(policy: Policy) -> str:
    """The learned kind biases (the context's first weight), largest first: what the policy
    prefers whenever an id of that kind is offered."""
    size = policy.features.context_size
    biases = sorted(((float(policy.theta[k * size]), name) for k, name in enumerate(KIND_NAMES)
                     if policy.theta[k * size] != 0), reverse=True)
    out = ", ".join(f"{name} {b:+.2f}" for b, name in biases)
    base = policy.features.card_base
    size = policy.features.card_size
    for g, name in enumerate(GROUP_NAMES):
        w = policy.theta[base + g * size: base + (g + 1) * size]
        out += f"\n  card facts ({name}): " + ", ".join(
            f"{fact} {x:+.2f}" for fact, x in zip(CARD_FACTS, w, strict=True))
    return "kind biases: " + out


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--episodes", type=int, default=400, help="training games (default 400)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rules", default="arena", help="a preset's name (default arena)")
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--opponent", default="level:1",
                   help="the bot trained and measured against (default level:1, the random "
                        "bot; any level make_bot accepts)")
    p.add_argument("--out", default="weights.npz", help="where the weights are saved")
    p.add_argument("--lr", type=float, default=0.02, help="Adam's step size")
    p.add_argument("--max-steps", type=int, default=20_000,
                   help="agent steps after which a game is cut short (truncation)")
    p.add_argument("--smoke", action="store_true",
                   help="a quick check: 4 training games and 2 evaluation games of 2 hands")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    overrides: dict[str, Any] | None = None
    if args.smoke:
        args.episodes, args.eval_games = min(args.episodes, 4), min(args.eval_games, 2)
        overrides = {"hands": [1, 2]}
    rules = make_rules(args.rules, overrides)
    policy = Policy.fresh(rules, 2)
    policy.rules = args.rules
    opponent = make_bot(args.opponent)
    print(f"training {args.episodes} games of {args.rules} (2 players) against "
          f"{opponent.name}, seed {args.seed}, {policy.features.size} weights", flush=True)
    seconds = train(policy, args.episodes, args.seed, args.rules, args.max_steps, overrides,
                    lr=args.lr, opponent=opponent, log_every=0 if args.smoke else 50)
    policy.save(args.out)
    print(describe(policy))
    result = evaluate(policy, args.eval_games, args.seed, args.rules, args.max_steps,
                      overrides, seconds, opponent=make_bot(args.opponent))
    print(result.table(opponent.name))
    print(f"weights saved to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
