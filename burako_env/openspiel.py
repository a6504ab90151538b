"""Burako as an OpenSpiel game: ``import burako_env.openspiel`` registers ``python_burako``.

OpenSpiel (``pip install 'burako[openspiel]'``, the ``open_spiel`` wheel) is imported when
this module is: without it the import raises :class:`~burako_env.extras.MissingExtra`.
After it, ``pyspiel.load_game("python_burako")`` (or ``python_burako(players=4)``) gives a
Python game that OpenSpiel's algorithms and checks run on. One OpenSpiel episode is one
hand, played by the compiled engine (:class:`~burako_env.core.game.Game`, a batch of one)
inside the state.

Parameters: ``players`` (2 or 4; teams are seats of one parity, 0 and 2 against 1 and 3),
``variant`` (a variant name, default ``argentine``), ``deal_seeds`` (the number of deals
the first chance node picks from, default 1000) and ``seed`` (the first of those deals'
seeds, default 0).

Chance (OpenSpiel wants every chance event explicit, with its outcomes and their
probabilities):

* **The deal** is the first chance node. Its outcome ``i`` (``0 <= i < deal_seeds``,
  uniform) deals the hand with the engine's seed ``seed + i``: hands, muerto packets, the
  peeked card and the cutter's wilds. This is a simplification: the real shuffle has far
  more outcomes than any list a chance node can hold, so the game's deals are a uniform
  sample of ``deal_seeds`` of them (the order of the stock does not matter, see below).
* **Every draw from the stock** is a chance node of its own. When the player to act picks
  an action that takes the stock's top card (``DRAW_STOCK``, or rejecting the peeked card,
  which draws instead), the state becomes a chance node whose outcomes are the card types
  left in the stock, each with its share of the stock's cards (``count / stock length``:
  what a uniformly shuffled stock gives). The outcome moves a card of that type to the top
  of the stock and the player's action is applied. Chance outcome ids are card types
  (0..52) at a draw and deal indices at the deal; player action ids are the engine's
  action ids (:data:`~burako_env.core.constants.NUM_ACTIONS`).

Refusals: an illegal player action raises the engine's
:class:`~burako_env.core.game.IllegalActionError` (its message ends with
:meth:`Game.why_illegal <burako_env.core.game.Game.why_illegal>`'s reason), a deal outcome
outside ``0..deal_seeds-1`` or a draw outcome that is no card type left in the stock a
``ValueError`` naming the outcomes; each is raised before the state or its history
changes (no chance node opens for an illegal draw, the stock is not reordered, a deal that
fails leaves the state not dealt), so the state plays on.

Observations: the observation tensor of a player is the engine's observation
(:meth:`Game.observe_one <burako_env.core.game.Game.observe_one>`, int16) as float32, of
the size of the table's observation layout. The information state is the same tensor: the
engine's observation holds what the player knows of the hand (their own cards, the
partner's and opponents' known cards, the table, the pile, the packets, the turn) but not
the order of past moves, so it is not a perfect-recall information state. Strings are the
seat and a digest of that tensor (the keys IS-MCTS stores its nodes under).

Returns: at the end of the hand, +1 to each player of the team with the higher hand score,
-1 to the other team, 0 to all on a tie (zero sum).

:meth:`BurakoState.resample_from_infostate` deals every card hidden from a player again,
consistently with what they know (:meth:`Game.determinize
<burako_env.core.game.Game.determinize>`): IS-MCTS samples its worlds with it.
"""

from __future__ import annotations

import hashlib

import numpy as np

from burako_env.core.constants import (
    DRAW_STOCK,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    PEEK_REJECT,
)
from burako_env.core.game import Game, IllegalActionError
from burako_env.extras import require

pyspiel = require("pyspiel", "burako_env.openspiel")

#: the game's OpenSpiel name
GAME_NAME = "python_burako"
#: actions that draw the stock's top card (a draw chance node precedes them)
DRAW_ACTIONS = frozenset({DRAW_STOCK, PEEK_REJECT})
DEFAULT_PARAMS = {"players": 2, "variant": "argentine", "deal_seeds": 1000, "seed": 0}
#: actions one turn may take at most, for the declared longest game: draw, discard and
#: every card of the hand laid down one action at a time
_TURN_ACTIONS = 64

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Burako (burako_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(DEFAULT_PARAMS),
)


def _team_returns(game: Game, num_players: int) -> list[float]:
    s = game.view(0)
    margin = int(s.hand_scores[0]) - int(s.hand_scores[1])
    sign = (margin > 0) - (margin < 0)
    return [float(sign if p % 2 == 0 else -sign) for p in range(num_players)]


class BurakoGame(pyspiel.Game):
    """The OpenSpiel game of one Burako hand (module doc)."""

    def __init__(self, params=None, variant=None):
        """``params``: the game's parameters (module doc); ``variant`` (a
        :class:`~burako_env.variants.Variant`), when given, replaces the named one (the
        IS-MCTS agent plays the table of the engine's game it is handed)."""
        params = {**DEFAULT_PARAMS, **(params or {})}
        players = int(params["players"])
        if players not in (2, 4):
            raise ValueError(f"python_burako: players must be 2 or 4, got {players}")
        self.deal_seeds = int(params["deal_seeds"])
        if self.deal_seeds < 1:
            raise ValueError(f"python_burako: deal_seeds must be >= 1, got {self.deal_seeds}")
        self.first_seed = int(params["seed"])
        #: the engine game every state copies (dealt; the deal node deals it again)
        self.template = Game(
            variant if variant is not None else str(params["variant"]),
            num_players=players,
            seed=self.first_seed,
        )
        self.obs_size = int(self.template.layout.size)
        max_turns = int(self.template.variant.max_turns)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=max(self.deal_seeds, NUM_CARD_TYPES),
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=1 + max_turns * _TURN_ACTIONS,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self):
        """A state before the deal (a chance node)."""
        return BurakoState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """OpenSpiel's observer of this game (:class:`BurakoObserver`)."""
        return BurakoObserver(self.obs_size, params)


class BurakoState(pyspiel.State):
    """A hand: the deal chance node, then the players' moves and the draws' chance nodes."""

    def __init__(self, game: BurakoGame, engine: Game | None = None, seed: int = 0):
        super().__init__(game)
        self._bgame = game
        self._players = game.num_players()
        #: the engine's game (batch of one); None until the deal
        self.engine = engine
        #: the player's action waiting for its draw chance node, else -1
        self.pending = -1
        self._rng = np.random.default_rng(seed)

    @classmethod
    def from_engine(cls, game: BurakoGame, engine: Game, b: int = 0, seed: int = 0):
        """A state at game ``b`` of an engine ``Game`` (a copy; its history is empty)."""
        return cls(game, engine.clone([b]), seed=seed)

    # ------------------------------------------------------------ OpenSpiel API
    def current_player(self):
        """The seat to act, or OpenSpiel's chance or terminal player id."""
        if self.engine is None or self.pending >= 0:
            return pyspiel.PlayerId.CHANCE
        if self.engine.is_over():
            return pyspiel.PlayerId.TERMINAL
        return self.engine.live_view(0).player

    def _legal_actions(self, player):
        return [int(a) for a in np.sort(self.engine.legal_actions(0))]

    def chance_outcomes(self):
        """``(outcome, probability)`` of the chance node: a deal seed before the deal, else a
        card type drawn from the stock (by its share of the stock)."""
        if self.engine is None:
            p = 1.0 / self._bgame.deal_seeds
            return [(i, p) for i in range(self._bgame.deal_seeds)]
        st = self.engine.state
        n = int(st.stock_len[0])
        counts = np.bincount(st.stock[0, :n], minlength=NUM_CARD_TYPES)
        return [(int(c), counts[c] / n) for c in np.flatnonzero(counts)]

    def _apply_action(self, action):
        # every action and outcome is checked before the state changes: OpenSpiel appends
        # it to the history only after this returns, so a refusal leaves both as they were
        action = int(action)
        if self.engine is None:  # the deal
            deals = self._bgame.deal_seeds
            if not 0 <= action < deals:
                raise ValueError(
                    f"python_burako: the deal's outcome {action} is not a deal: the deal "
                    f"node's outcomes are 0..{deals - 1} (chance_outcomes())"
                )
            engine = self._bgame.template.clone()
            engine.reset(seed=self._bgame.first_seed + action)
            self.engine = engine  # only a whole deal: a refused one leaves no half-dealt game
            return
        st = self.engine.state
        n = int(st.stock_len[0])
        if self.pending >= 0:  # a draw: the drawn card type goes to the top of the stock
            found = np.flatnonzero(st.stock[0, :n] == action) if 0 <= action else ()
            if len(found) == 0:
                left = np.unique(st.stock[0, :n]).tolist()
                raise ValueError(
                    f"python_burako: the draw's outcome {action} is no card type left in the "
                    f"stock: the outcomes are {left} (chance_outcomes())"
                )
            # the player's action was checked when it made this chance node: it moves now
            i = int(found[0])
            st.stock[0, i], st.stock[0, n - 1] = st.stock[0, n - 1], st.stock[0, i]
            move, self.pending = self.pending, -1
            self.engine.step_one(move)
            return
        self._check_legal(action)
        if action in DRAW_ACTIONS and n > 0:
            self.pending = action
            return
        self.engine.step_one(action)

    def _check_legal(self, action: int) -> None:
        """IllegalActionError, in the engine's words, unless the player to act may play
        ``action`` (a draw's chance node only opens for a legal draw)."""
        st = self.engine.state
        if not (st.legal[0, : st.num_legal[0]] == action).any():
            raise IllegalActionError(action, self.engine.action_error(action), 0)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal:{action}" if self.engine is None else f"Draw:{action}"
        return f"Action:{action}"

    def is_terminal(self):
        """Whether the game is over (no chance outcome pending)."""
        return self.engine is not None and self.pending < 0 and self.engine.is_over()

    def returns(self):
        """Each player's return: its team's result once the game is over, else zeros."""
        if not self.is_terminal():
            return [0.0] * self._players
        return _team_returns(self.engine, self._players)

    def __str__(self):
        if self.engine is None:
            return "(not dealt)"
        s = self.engine.view(0)
        return f"player {int(s.player)}, pending {self.pending}, over {self.is_terminal()}"

    # ------------------------------------------------------------ copies and samples
    def __deepcopy__(self, memo):
        # pyspiel's clone of a Python state deep-copies it (and keeps the history itself):
        # the engine's game copies compiled
        other = BurakoState(self._bgame, None if self.engine is None else self.engine.clone())
        other.pending = self.pending
        other._rng = np.random.default_rng(self._rng.integers(2**63))
        return other

    def resample_from_infostate(self, player_id, probability_sampler=None):
        """A state in which every card hidden from ``player_id`` is dealt again,
        consistently with what they know (their observation is unchanged)."""
        if self.engine is None:
            return self.clone()
        other = BurakoState(self._bgame, self.engine.determinize(int(player_id), self._rng))
        other.pending = self.pending
        other._rng = np.random.default_rng(self._rng.integers(2**63))
        return other

    def observation_array(self, player: int) -> np.ndarray:
        """The engine's observation of ``player`` (int16; zeros before the deal)."""
        if self.engine is None:
            return np.zeros(self._bgame.obs_size, np.int16)
        return self.engine.observe_one(int(player))


class BurakoObserver:
    """The observation (= information state) tensor and string (module doc)."""

    def __init__(self, size: int, params=None):
        if params:
            raise ValueError(f"python_burako: observation parameters not supported: {params}")
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: BurakoState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation of ``state``."""
        self.tensor[:] = state.observation_array(player)

    def string_from(self, state: BurakoState, player: int) -> str:
        """A short string that tells ``player``'s observations of ``state`` apart (a digest of the
        observation)."""
        obs = state.observation_array(player)
        digest = hashlib.blake2b(obs.tobytes(), digest_size=16).hexdigest()
        return f"p{player}:{state.pending >= 0}:{digest}"


pyspiel.register_game(_GAME_TYPE, BurakoGame)

__all__ = [
    "DEFAULT_PARAMS",
    "DRAW_ACTIONS",
    "GAME_NAME",
    "BurakoGame",
    "BurakoObserver",
    "BurakoState",
]
