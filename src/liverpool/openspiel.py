"""An OpenSpiel game over the engine: ``python_liverpool``, registered with ``pyspiel`` on import.

Domain words: *token* (a player's OpenSpiel action: one id of ``rl.codec``'s space; an engine
action of several tokens is several consecutive decisions of the same player), *pack* (one
hand's whole deck in dealing order, given to the engine as ``deals``), *chance outcome* (one card
of the pack being dealt: the kinds left, each as likely as its copies left), *tape* (every
OpenSpiel action so far, chance outcomes and tokens: a state is its tape), *script* (the engine
actions completed so far, each with the tokens that spelled it), *waiting action* (an action
that ends a hand: the next pack is dealt by chance nodes before the engine applies it, since the
engine deals the next hand inside that ``apply``), *transcript* (what one seat has seen: the
events as shown to it and its hand at each deal; its information state string), *slot* (a
place of the pack whose card a seat has not seen: a resample deals those cards again).

The engine decides everything: legal tokens come from ``rl.codec.Choice``, the observation is
``rl.observe.observe`` of the seat's view, the scores are the engine's. Reshuffles of the discard
pile inside a hand use the engine's RNG with the seed fixed at 0, so they are not chance nodes
(a known simplification). docs/rl.md describes the game, its tensors and its rewards.

Needs the ``[rl]`` extra (OpenSpiel, NumPy).
"""

from __future__ import annotations

import json
import random
from collections import Counter, deque
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
import pyspiel  # type: ignore[import-not-found]

from .actions import Action
from .bots import BasicBot
from .cards import NUM_KINDS, Card, card_str, cards_str, new_deck
from .engine import Event, Game, HandEnded, HandStarted, SeatView
from .rl import codec
from .rl.codec import Choice
from .rl.observe import Layout, observe
from .rules import RuleSet

GAME_NAME = "python_liverpool"
PRESETS = ("hoyle", "classic", "arena", "standard", "house")
DEFAULTS: dict[str, Any] = {"rules": "standard", "players": 4, "hands": 0}
SEED = 0  # the engine's RNG, used only for reshuffles of the discard pile within a hand
RESAMPLE_TRIES = 8

Script = list[tuple[tuple[int, ...], Action]]

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Liverpool Rummy",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class _Spec:
    """What one set of parameters fixes: the rule set, the table size, the pack, the layout."""

    _made: ClassVar[dict[tuple[str, int, int], _Spec]] = {}

    def __init__(self, rules: str, players: int, hands: int) -> None:
        overrides = {"hands": list(range(1, hands + 1))} if hands else None
        self.params = {"rules": rules, "players": players, "hands": hands}
        self.rules = RuleSet.preset(rules, overrides)
        self.rules.check_players(players)
        self.n = players
        self.pack: tuple[Card, ...] = tuple(new_deck(self.rules.decks_for(players),
                                                    self.rules.jokers_per_deck))
        self.kinds = Counter(self.pack)
        self.layout = Layout(players)
        r = self.rules
        self.hands = len(r.hand_list()) if r.progression == "all" else r.own_max_hands

    @classmethod
    def of(cls, params: dict[str, Any]) -> _Spec:
        key = (str(params.get("rules", DEFAULTS["rules"])),
               int(params.get("players", DEFAULTS["players"])),
               int(params.get("hands", DEFAULTS["hands"])))
        if key[2] < 0:
            raise ValueError("hands must be 0 (every hand) or more")
        spec = cls._made.get(key)
        if spec is None:
            spec = cls._made[key] = cls(*key)
        return spec

    def info(self) -> Any:
        r = self.rules
        pack = len(self.pack)
        worst = sum(r.points(c) for c in self.pack) + r.rummy_points * pack
        # a bound, not a tight one: a turn's tokens are at most a few per card it can play
        length = self.hands * (pack + r.turn_limit * (4 * self.n + 3 * pack))
        return pyspiel.GameInfo(
            num_distinct_actions=codec.SIZE, max_chance_outcomes=NUM_KINDS,
            num_players=self.n, min_utility=-float(self.hands * worst),
            max_utility=float(self.hands * r.cut_bonus), utility_sum=None,
            max_game_length=length)


def _seat_entry(game: Game, seat: int, events: Sequence[Event]) -> str:
    """What ``seat`` saw of one action: its events as shown to it, and its new hand if one was
    dealt."""
    text = json.dumps([e.for_seat(seat).to_json() for e in events], separators=(",", ":"))
    if any(isinstance(e, HandStarted) for e in events):
        text += "\nhand " + cards_str(game.view_for(seat).hand)
    return text


class _Core:
    """The state proper (the ``pyspiel.State`` holds one and delegates): copied by ``clone``,
    pickled by OpenSpiel's own serialization as its tape."""

    def __init__(self, spec: _Spec) -> None:
        self.spec = spec
        self.tape: list[int] = []
        self.packs: list[tuple[Card, ...]] = []
        self.dealing: list[Card] | None = []  # None: no pack being dealt
        self.script: Script = []
        self.waiting: tuple[tuple[int, ...], Action] | None = None
        self.game: Game | None = None
        self.prefix: tuple[int, ...] = ()
        self.rewards = [0.0] * spec.n
        self.returns = [0.0] * spec.n
        self.seen = [f"seat {s}" for s in range(spec.n)]  # transcripts
        self.hand_start = 0  # script index where the hand in progress began
        self.pack_at = 0  # tape index of the pack in progress's first card
        self.expect: deque[tuple[tuple[int, ...], Action]] = deque()  # replayed, not chosen
        self._choice: Choice | None = None

    # ---- copies and pickles ------------------------------------------------------------------
    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        c = _Core.__new__(_Core)
        c.spec = self.spec
        c.tape = list(self.tape)
        c.packs = list(self.packs)
        c.dealing = None if self.dealing is None else list(self.dealing)
        c.script = list(self.script)
        c.waiting = self.waiting
        c.game = None if self.game is None else self.game.clone()
        c.prefix = self.prefix
        c.rewards = list(self.rewards)
        c.returns = list(self.returns)
        c.seen = list(self.seen)
        c.hand_start = self.hand_start
        c.pack_at = self.pack_at
        c.expect = deque(self.expect)
        c._choice = None
        return c

    def __getstate__(self) -> dict[str, Any]:
        return {"params": self.spec.params, "tape": self.tape}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.__init__(_Spec.of(data["params"]))  # type: ignore[misc]
        for t in data["tape"]:
            self.apply(int(t))

    # ---- where the game stands ---------------------------------------------------------------
    def current(self) -> int:
        if self.game is not None and self.game.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.dealing is not None or self.game is None:
            return int(pyspiel.PlayerId.CHANCE)
        return self.game.to_act()[0]

    def choice(self) -> Choice:
        if self._choice is None:
            game = self.game
            assert game is not None and self.dealing is None and not game.over
            c = Choice(game, game.to_act()[0])
            for t in self.prefix:
                c.choose(t)
            self._choice = c
        return self._choice

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.dealing is not None
        left = self.spec.kinds - Counter(self.dealing)
        total = len(self.spec.pack) - len(self.dealing)
        return [(c, k / total) for c, k in sorted(left.items())]

    def legal(self) -> list[int]:
        if self.current() == pyspiel.PlayerId.CHANCE:
            return [c for c, _ in self.chance_outcomes()]
        return list(self.choice().legal())

    # ---- moving on ---------------------------------------------------------------------------
    def apply(self, token: int) -> None:
        player = self.current()
        if player == pyspiel.PlayerId.TERMINAL:
            raise ValueError("the game is over")
        if player == pyspiel.PlayerId.CHANCE:
            # a hand's points stay the rewards until the next decision: OpenSpiel reads rewards
            # at decision nodes, and the points come with the action the next deal follows
            self._deal(token)
            return
        self.rewards = [0.0] * self.spec.n
        if self.expect:
            want, action = self.expect[0]
            at = len(self.prefix)
            if at >= len(want) or want[at] != token:
                raise ValueError(f"replay: {codec.token_name(token)} is not the token recorded")
            self.tape.append(token)
            self.prefix = (*self.prefix, token)
            self._choice = None
            if self.prefix == want:
                self.expect.popleft()
                self._complete(want, action)
        else:
            done = self.choice().choose(token)
            self.tape.append(token)
            self.prefix = (*self.prefix, token)
            if done is not None:
                self._complete(self.prefix, done)

    def _deal(self, card: int) -> None:
        dealing = self.dealing
        assert dealing is not None
        if (self.spec.kinds - Counter(dealing))[card] <= 0:
            raise ValueError(f"{card} is not a card left in the pack being dealt")
        if not dealing:
            self.pack_at = len(self.tape)
        dealing.append(card)
        self.tape.append(card)
        if len(dealing) < len(self.spec.pack):
            return
        self.packs.append(tuple(dealing))
        self.dealing = None
        if self.waiting is None:  # the first hand
            self.game = Game(self.spec.rules, self.spec.n, seed=SEED, deals=self.packs)
            for s in range(self.spec.n):
                self.seen[s] += "\nhand " + cards_str(self.game.view_for(s).hand)
            return
        tokens, action = self.waiting
        self.waiting = None
        self.game = self._rebuild()
        self._record(tokens, action, self.game.apply(action))
        self.hand_start = len(self.script)

    def _complete(self, tokens: tuple[int, ...], action: Action) -> None:
        game = self.game
        assert game is not None
        self.prefix = ()
        self._choice = None
        events = game.apply(action)
        ended = [e for e in events if isinstance(e, HandEnded)]
        for e in ended:
            for s, points in enumerate(e.points):
                self.rewards[s] -= float(points)
                self.returns[s] -= float(points)
        if ended and not game.over:
            # the engine dealt the next hand from its own RNG: deal it by chance instead, then
            # apply the action again on the game as it was before
            self.waiting = (tokens, action)
            self.dealing = []
            self.game = self._rebuild()
            return
        self._record(tokens, action, events)

    def _record(self, tokens: tuple[int, ...], action: Action, events: Sequence[Event]) -> None:
        game = self.game
        assert game is not None
        self.script.append((tokens, action))
        for s in range(self.spec.n):
            self.seen[s] += "\n" + _seat_entry(game, s, events)

    def _rebuild(self, packs: Sequence[Sequence[Card]] | None = None,
                 upto: int | None = None) -> Game:
        """The engine's game from the packs and the script (``IllegalActionError`` if one of its
        actions is not legal there)."""
        game = Game(self.spec.rules, self.spec.n, seed=SEED,
                    deals=self.packs if packs is None else packs)
        for _, action in self.script[:upto]:
            game.apply(action)
        return game

    # ---- what a seat sees --------------------------------------------------------------------
    def pending_for(self, seat: int) -> tuple[int, ...]:
        return self.prefix if self.current() == seat else ()

    def observation(self, seat: int) -> Any:
        if self.game is None:
            return np.zeros(self.spec.layout.size, dtype=np.float32)
        return observe(self.game.view_for(seat), self.pending_for(seat), self.spec.layout)

    def info_string(self, seat: int) -> str:
        pending = self.pending_for(seat)
        if not pending:
            return self.seen[seat]
        return self.seen[seat] + "\npending " + " ".join(codec.token_name(t) for t in pending)

    def observation_string(self, seat: int) -> str:
        if self.game is None:
            return f"seat {seat}: dealing"
        view = self.game.view_for(seat)
        text = _view_text(view)
        pending = self.pending_for(seat)
        if pending:
            text += "; pending " + " ".join(codec.token_name(t) for t in pending)
        return text

    # ---- worlds ------------------------------------------------------------------------------
    def slots(self, seat: int) -> list[int]:
        """The places of the pack in progress whose cards ``seat`` has not seen (others' cards
        it never saw taken, the stock), found by replaying the hand and following each card
        from the place it was dealt from; cards a reshuffled stock gave stay as they are."""
        pack = self.packs[-1]
        game = self._rebuild(upto=self.hand_start)
        n = self.spec.n
        size = game.deal_size()
        dealer = game.view_for(None).dealer
        hidden: list[dict[Card, list[int]]] = [{} for _ in range(n)]
        for pos in range(size * n):
            hidden[(dealer + 1 + pos % n) % n].setdefault(pack[pos], []).append(pos)
        first = size * n + 1  # the stock is drawn in the pack's order after the upcard
        drawn = 0
        stock_total = len(pack) - first
        renewed = False

        def unseen(g: Game) -> list[Counter[Card]]:
            known = g.view_for(None).known
            return [Counter(g.held(s)) - Counter(known[s]) for s in range(n)]

        before = unseen(game)
        for _, action in self.script[self.hand_start:]:
            stock = game.view_for(None).stock_size
            game.apply(action)
            view = game.view_for(None)
            popped: list[int] = []
            if not renewed:
                if view.reshuffles:
                    renewed = True
                    popped = list(range(first + drawn, len(pack)))
                    drawn = stock_total
                else:
                    k = max(0, stock - view.stock_size)
                    popped = list(range(first + drawn, first + drawn + k))
                    drawn += k
            after = unseen(game)
            for s in range(n):
                for c, k in (before[s] - after[s]).items():
                    places = hidden[s].get(c, [])
                    for _ in range(min(k, len(places))):
                        # a card from a reshuffle first: the same card either way
                        if -1 in places:
                            places.remove(-1)
                        else:
                            places.pop()
                for c, k in (after[s] - before[s]).items():
                    for _ in range(k):
                        pos = next((p for p in popped if pack[p] == c), -1)
                        if pos >= 0:
                            popped.remove(pos)
                        hidden[s].setdefault(c, []).append(pos)
            before = after
        out = [p for s in range(n) if s != seat for ps in hidden[s].values() for p in ps
               if p >= 0]
        if not renewed:
            out += range(first + drawn, len(pack))
        return sorted(out)


def _view_text(view: SeatView) -> str:
    """One line of what a view shows (the observation string)."""
    melds = " ".join(f"[{m.owner}:{cards_str(m.cards)}]" for m in view.melds)
    top = card_str(view.discard[-1]) if view.discard else "-"
    return (f"seat {view.me} hand {view.hand_number} {view.phase}, to act {view.to_act}; "
            f"cards {cards_str(view.hand)}; pile {top} ({len(view.discard)}), stock "
            f"{view.stock_size}; sizes {view.hand_sizes}; known "
            f"{[cards_str(k) for k in view.known]}; down {view.down}; melds {melds}; "
            f"totals {view.totals}")


class LiverpoolGame(pyspiel.Game):  # type: ignore[misc]
    """``pyspiel.load_game("python_liverpool", {"rules": "arena", "players": 2, "hands": 1})``:
    ``rules`` a preset's name, ``players`` the seats, ``hands`` the first N hands only (0:
    all)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**DEFAULTS, **(params or {})}
        self.spec = _Spec.of(merged)
        super().__init__(_GAME_TYPE, self.spec.info(), merged)

    def new_initial_state(self) -> LiverpoolState:
        return LiverpoolState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = bool(getattr(iig_obs_type, "perfect_recall", False))
        return _Observer(self.spec, recall)

    def deserialize_state(self, text: str) -> LiverpoolState:
        """The state ``LiverpoolState.serialize`` wrote, replayed token by token (each one
        checked)."""
        data = json.loads(text)
        if data.get("game") != GAME_NAME or _Spec.of(data["params"]) is not self.spec:
            raise ValueError("the text is a state of another game or other parameters")
        state = self.new_initial_state()
        for t in data["history"]:
            state.apply_action(int(t))
        return state


class LiverpoolState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_liverpool``; ``engine`` is the engine's game (None while the first
    pack is dealt; the game before the waiting action while the next pack is dealt)."""

    def __init__(self, game: LiverpoolGame) -> None:
        super().__init__(game)
        self._core = _Core(game.spec)

    @property
    def engine(self) -> Game | None:
        return self._core.game

    def current_player(self) -> int:
        return self._core.current()

    def _legal_actions(self, player: int) -> list[int]:
        return self._core.legal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_str(action)}"
        return codec.token_name(action)

    def is_terminal(self) -> bool:
        return bool(self._core.current() == pyspiel.PlayerId.TERMINAL)

    def rewards(self) -> list[float]:
        return list(self._core.rewards)

    def returns(self) -> list[float]:
        return list(self._core.returns)

    def __str__(self) -> str:
        core = self._core
        if core.game is None:
            return f"dealing: {len(core.dealing or ())} cards"
        game = core.game
        lines = [_view_text(game.view_for(0))]
        lines += [f"P{s}: {cards_str(game.held(s))}" for s in range(game.n)]
        if core.waiting is not None:
            lines.append(f"dealing the next hand: {len(core.dealing or ())} cards; waiting: "
                         + " ".join(codec.token_name(t) for t in core.waiting[0]))
        if core.prefix:
            lines.append("pending " + " ".join(codec.token_name(t) for t in core.prefix))
        return "\n".join(lines)

    def serialize(self) -> str:
        """JSON: the game's name, its parameters and the history (chance outcomes and tokens);
        ``LiverpoolGame.deserialize_state`` reads it."""
        return json.dumps({"game": GAME_NAME, "params": self._core.spec.params,
                           "history": self._core.tape}, separators=(",", ":"))

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state ``player_id`` cannot tell from this one: the cards of the hand in progress
        that it has not seen dealt again at random (the sampler seeds the shuffle), the same
        actions replayed. Tries again when a world makes a recorded action illegal (an action
        whose legality depends on a hidden card); a copy of this state after
        ``RESAMPLE_TRIES`` failures, and at chance nodes."""
        core = self._core
        seat = int(player_id)
        if core.current() < 0 or core.waiting is not None:
            return self.clone()
        rng = random.Random(int(float(probability_sampler()) * 2**53))
        slots = core.slots(seat)
        pack = list(core.packs[-1])
        want_info = core.info_string(seat)
        want_obs = core.observation(seat)
        history = core.tape if core.current() == seat else core.tape[:len(core.tape)
                                                                      - len(core.prefix)]
        for _ in range(RESAMPLE_TRIES):
            cards = [pack[p] for p in slots]
            rng.shuffle(cards)
            world = list(pack)
            for p, c in zip(slots, cards, strict=True):
                world[p] = c
            tape = list(history)
            tape[core.pack_at:core.pack_at + len(pack)] = world
            state = self.get_game().new_initial_state()
            state._core.expect.extend(core.script)
            try:
                for t in tape:
                    state.apply_action(t)
            except ValueError:  # IllegalActionError included: try another world
                continue
            got = state._core
            if got.info_string(seat) == want_info and np.array_equal(got.observation(seat),
                                                                     want_obs):
                return state
        return self.clone()


class _Observer:
    """OpenSpiel's Python observer: the tensor is ``rl.observe`` of the seat's view (with its
    pending tokens); the string is the transcript (perfect recall) or one line of the view."""

    def __init__(self, spec: _Spec, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(spec.layout.size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: LiverpoolState, player: int) -> None:
        self.tensor[:] = state._core.observation(player)

    def string_from(self, state: LiverpoolState, player: int) -> str:
        core = state._core
        return core.info_string(player) if self.perfect_recall \
            else core.observation_string(player)


pyspiel.register_game(_GAME_TYPE, LiverpoolGame)


# ---- playing OpenSpiel's ISMCTS against the project's bots ----------------------------------
def spell_into(state: LiverpoolState, action: Action) -> None:
    """Apply an engine action to ``state`` token by token (``codec.spell``), closing it with STOP
    where the choice could go on."""
    core = state._core
    for t in codec.spell(action):
        state.apply_action(t)
    if core.prefix:
        state.apply_action(codec.STOP)


def play_ismcts_vs_basic(games: int, seed: int = 0, rules: str = "arena", players: int = 2,
                         hands: int = 1, simulations: int = 8, rollouts: int = 1,
                         say: Callable[[str], None] | None = print) -> tuple[float, float]:
    """Play ``games`` seeded games of OpenSpiel's ISMCTS bot (a random-rollout evaluator,
    ``simulations`` per decision; seat ``g % players`` in game ``g``) against ``BasicBot`` (the
    other seats). Returns the win shares of ISMCTS and of the basic seats together (a tied win
    shared)."""
    from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-untyped]

    game = pyspiel.load_game(GAME_NAME, {"rules": rules, "players": players, "hands": hands})
    won = 0.0
    basic = BasicBot()
    for g in range(games):
        rs = np.random.RandomState(seed * 1000 + g)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=rs)
        bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations,
                               random_state=rs)
        # the bot's own resampling draws from a sampler seeded by the device unless given one:
        # the match would differ from one process to the next
        sampler = pyspiel.UniformProbabilitySampler(seed * 1000 + g, 0.0, 1.0)
        bot.set_resampler(lambda st, player, sampler=sampler:
                          st.resample_from_infostate(player, sampler))
        rng = random.Random(seed * 1000 + g)
        searcher = g % players
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rs.choice(outcomes, p=probs)))
                continue
            seat = state.current_player()
            if seat == searcher:
                state.apply_action(int(bot.step(state)))
                continue
            engine = state.engine
            assert engine is not None
            choice = basic.choose(engine.view_for(seat), engine.legal_actions(seat), rng)
            spell_into(state, choice)
        engine = state.engine
        assert engine is not None
        if searcher in engine.winners:
            won += 1 / len(engine.winners)
        if say is not None:
            say(f"game {g + 1}: ismcts seat {searcher}, totals {engine.totals}, "
                f"winners {engine.winners}")
    share = won / games if games else 0.0
    if say is not None:
        say(f"win shares over {games} games: ismcts {share:.1%}, basic {1 - share:.1%}")
    return share, 1 - share
