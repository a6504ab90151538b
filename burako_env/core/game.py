"""The core's Python API: pure functions over a :class:`GameState` (PGX's shape) and
:class:`Game`, a batch of games with checked steps.

    game = Game("argentine", batch_size=1024, seed=0)
    mask = game.legal_action_mask()            # bool [B, NUM_ACTIONS]
    obs = game.observe()                        # int16 [B, obs_size], the acting players
    game.step(actions)                          # one action per game; raises on illegal
    copy = game.clone()                         # an independent copy
    seen = game.determinize(viewer=0, rng=1)    # hidden cards dealt again for player 0

Every array is computed by the numba kernels of :mod:`burako_env.core.kernels` (copies
and determinizations: :mod:`burako_env.core.determinize`). The
kernels do not check their arguments (a check per call inside a hot loop costs too much),
so every public method checks them here first: a game index ``b``, a seat, an action or
an ``out`` buffer that does not fit raises ``IndexError``/``ValueError``/``TypeError``
naming the argument and the range it must lie in, before any kernel runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from burako_env.core import determinize as det
from burako_env.core import kernels
from burako_env.core.actions import describe_action
from burako_env.core.constants import (
    ERR_OK,
    ERR_OUT_OF_RANGE,
    ERROR_MESSAGES,
    NUM_ACTIONS,
    PHASE_OVER,
    S_DONE,
    S_EPISODE_MATCH,
    S_HAND_SCORE0,
    S_MATCH0,
    S_PHASE,
    S_PLAYER,
    S_WINNER,
    ObsLayout,
    obs_layout,
)
from burako_env.core.params import variant_params
from burako_env.core.state import GameState, allocate_state, copy_state, state_dtype
from burako_env.core.view import Columns, GameView, LiveView
from burako_env.jit import run_sliced
from burako_env.limits import MAX_SEED
from burako_env.variants import Variant, load_variant

EPISODES = ("hand", "match")
#: the action ``step`` skips (a game that sits out this step); no other negative id is one
SKIP_ACTION = -1


def _is_whole(value) -> bool:
    """A Python or numpy integer (a bool is not: True is no index or action)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_index(name: str, value, size: int, what: str) -> int:
    """``value`` as an int in ``0..size-1``, else IndexError/TypeError naming ``name``."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not _is_whole(value):
        raise TypeError(
            f"{name} must be a whole number 0..{size - 1} ({what}), "
            f"got {type(value).__name__} {value!r}"
        )
    if not 0 <= value < size:
        raise IndexError(f"{name} must be 0..{size - 1} ({what}), got {value}")
    return int(value)


def check_action(value, name: str = "action") -> int:
    """An action id as an int: integers only (no float, str or bool is rounded or parsed).

    The value may lie outside ``0..NUM_ACTIONS-1``: the engine names it illegal ("out of
    range") like any other illegal action.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not _is_whole(value):
        raise TypeError(
            f"{name} must be a whole number, an action id 0..{NUM_ACTIONS - 1}, "
            f"got {type(value).__name__} {value!r}"
        )
    return int(value)


def check_actions(actions, batch_size: int, name: str = "actions") -> np.ndarray:
    """One integer action per game, shape ``(batch_size,)``, as a fresh int64 array."""
    arr = np.asarray(actions)
    if arr.dtype.kind not in "iu":
        raise TypeError(
            f"{name} must be whole numbers (an integer array of shape ({batch_size},)), "
            f"got dtype {arr.dtype}"
        )
    if arr.shape != (batch_size,):
        raise ValueError(
            f"{name}: {batch_size} actions are needed, one action per game (shape "
            f"({batch_size},)), got shape {arr.shape}"
        )
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        b = int(np.argmax(arr > np.iinfo(np.int64).max))
        # as int64 it would wrap to a negative id, and -1 means "skip this game"
        raise ValueError(f"{name}[{b}] is {arr[b]}, no action id (0..{NUM_ACTIONS - 1})")
    return np.array(arr, dtype=np.int64)


def check_whole_array(name: str, values, what: str) -> np.ndarray:
    """``values`` (a number or a list) as int64, refusing floats and bools: 0.7 and True
    were read as game 0 and seat 1 before (numpy rounds them without a word)."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise TypeError(f"{name} must be whole numbers ({what}), got {values!r}")
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} must be {what}, got {values!r}")
    return arr.astype(np.int64)


def check_buffer(name: str, out, shape: tuple[int, ...], dtype) -> np.ndarray:
    """``out`` if it is a writable C-contiguous array of ``shape`` and ``dtype``."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {type(out).__name__}")
    if out.shape != shape or out.dtype != np.dtype(dtype):
        raise ValueError(
            f"{name} must be a {np.dtype(dtype)} array of shape {shape}, "
            f"got {out.dtype} {out.shape}"
        )
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(f"{name} must be a writable C-contiguous array")
    return out


def check_seed(seed) -> int:
    """``seed`` as an int if it is a whole number in 0..MAX_SEED; ValueError naming it otherwise."""
    if not _is_whole(seed) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a non-negative whole number up to {MAX_SEED}, got {seed!r}")
    return int(seed)


def generator_words(rng: np.random.Generator | int, count: int) -> np.ndarray:
    """``count`` nonzero generator states (int64 [count, 4]) for the core's xoshiro
    generator, drawn from a numpy Generator or made from an integer seed."""
    if not isinstance(rng, np.random.Generator):
        if not isinstance(rng, (int, np.integer)) or isinstance(rng, bool):
            raise TypeError(f"rng must be a numpy Generator or an integer seed, got {rng!r}")
        rng = np.random.default_rng(int(rng))
    return rng.integers(1, 2**32, size=(count, 4), dtype=np.int64)


class IllegalActionError(ValueError):
    """An action the rules do not allow; the game is left as it was."""

    def __init__(self, action: int, code: int, game_index: int = 0):
        self.action = int(action)
        self.code = int(code)
        self.game_index = game_index
        try:
            name = describe_action(action)
        except ValueError:
            name = "an unknown action"
        super().__init__(
            f"illegal action {action} ({name}) in game {game_index}: {ERROR_MESSAGES[code]}"
        )


def game_seed(seed: int, b: int) -> np.ndarray:
    """The generator state of game ``b`` of a batch seeded ``seed`` (spawn key b), made
    alone: a record's deal costs the same whatever its index."""
    w = np.random.SeedSequence(int(seed), spawn_key=(int(b),)).generate_state(4, dtype=np.uint32)
    if not w.any():
        w[0] = 1
    return w.astype(np.int64)


def game_seeds(seed: int, batch_size: int) -> np.ndarray:
    """Generator states for ``batch_size`` games from one seed (game b: spawn key b)."""
    words = np.empty((batch_size, 4), dtype=np.int64)
    for b in range(batch_size):
        words[b] = game_seed(seed, b)
    return words


class Game:
    """A batch of ``batch_size`` games of one variant, stepped in lockstep.

    ``episode`` is ``"hand"`` (one hand, the default) or ``"match"`` (hands until a team
    reaches the variant's target, or ``max_hands`` hands). Thread count: ``numba.set_num_threads``.
    ``deal=False`` leaves the games undealt (no cards, no legal action: call ``reset``
    before stepping), for a kernel that deals them itself (the tournament's).
    """

    def __init__(
        self,
        variant: str | Path | Variant | None = None,
        num_players: int | None = None,
        batch_size: int = 1,
        episode: str = "hand",
        seed: int = 0,
        *,
        deal: bool = True,
        **overrides,
    ) -> None:
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if not _is_whole(batch_size) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive whole number, got {batch_size!r}")
        seed = check_seed(seed)
        self.variant = load_variant(variant, num_players=num_players, **overrides)
        self.num_players = self.variant.num_players
        self.batch_size = int(batch_size)
        self.episode = episode
        self.params = variant_params(self.variant)
        self.layout: ObsLayout = obs_layout(self.num_players, self.variant.total_cards)
        #: the observation layout as the kernels take it (a tuple of block offsets): what
        #: a caller passes to a kernel that observes (the table's play kernel, pimc's)
        self.kernel_layout = tuple(self.layout)
        try:
            self.state: GameState = allocate_state(self.batch_size, self.num_players)
        except MemoryError:  # numpy's message spells out the whole record dtype
            size = state_dtype(self.num_players).itemsize
            raise MemoryError(
                f"{self.batch_size:,} games of {self.num_players} players need "
                f"{self.batch_size * size / 2**30:,.1f} GiB ({size:,} bytes a game), more "
                "than can be allocated: lower batch_size (num_envs)"
            ) from None
        self._errors = np.zeros(self.batch_size, dtype=np.int32)
        if deal:
            self.reset(seed)
        else:  # each game's generator as reset(seed) would start it, nothing dealt
            self.state.rng[:] = game_seeds(seed, self.batch_size)

    # ------------------------------------------------------------ episode control
    @property
    def episode_match(self) -> int:
        """1 when an episode is a match, 0 when it is a hand (the kernels' flag)."""
        return 1 if self.episode == "match" else 0

    def reset(self, seed: int | None = None, games: np.ndarray | None = None) -> None:
        """Deal new episodes: all games, or those where ``games`` is true.

        With a seed, game b's generator restarts from (seed, b); without, it continues.
        ``games`` is a bool array of shape ``(batch_size,)``.
        """
        if games is None:
            which = np.ones(self.batch_size, bool)
        else:
            which = np.asarray(games)
            if which.dtype != np.bool_ or which.shape != (self.batch_size,):
                raise ValueError(
                    f"games must be a bool array of shape ({self.batch_size},), "
                    f"got {which.dtype} {which.shape}"
                )
            which = np.ascontiguousarray(which)
        if seed is not None:
            seed = check_seed(seed)
            self.state.rng[which] = game_seeds(seed, self.batch_size)[which]
        if self.batch_size > 1:
            kernels.reset_games(self.state, self.params, self.episode_match, which)
        elif which[0]:  # a batch of one: the one-game kernel, no thread pool
            self._one(kernels.GAME_RESET, 0)

    def refresh_legal(self) -> None:
        """Recompute every game's legal actions, after its state was edited by hand (a
        position set up for a test or a scenario); stepping keeps them current itself."""
        if self.batch_size > 1:
            kernels.refresh_legal_games(self.state, self.params)
        else:
            self._one(kernels.GAME_LEGAL, 0)

    # ------------------------------------------------------------ queries
    @property
    def current_player(self) -> np.ndarray:
        """The seat to act in each game, [B] (a copy)."""
        return self.state.scalars[:, S_PLAYER].copy()

    @property
    def done(self) -> np.ndarray:
        """bool [B]: whether each game's episode is over."""
        return self.state.scalars[:, S_DONE].astype(bool)

    @property
    def phase(self) -> np.ndarray:
        """The turn's phase of each game, [B] (``PHASE_*``, a copy)."""
        return self.state.scalars[:, S_PHASE].copy()

    @property
    def hand_scores(self) -> np.ndarray:
        """Scores of the last finished hand, [B, 2] (team 0, team 1)."""
        return self.state.scalars[:, S_HAND_SCORE0 : S_HAND_SCORE0 + 2].copy()

    @property
    def match_scores(self) -> np.ndarray:
        """The match totals so far, [B, 2] (team 0, team 1)."""
        return self.state.scalars[:, S_MATCH0 : S_MATCH0 + 2].copy()

    @property
    def winner(self) -> np.ndarray:
        """Winning team of each finished episode, -1 for a tie or a game still going."""
        return self.state.scalars[:, S_WINNER].copy()

    @property
    def score_items(self) -> np.ndarray:
        """The last finished hand's scoring items, [B, 2, 6] (see SCORE_ITEMS)."""
        return self.state.score_items.copy()

    def legal_actions(self, b: int = 0) -> np.ndarray:
        """The legal action ids of game ``b``, ascending."""
        b = self._game_index(b)
        n = self.state.num_legal[b]
        return np.sort(self.state.legal[b, :n].astype(np.int64))

    def legal_action_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """bool [B, NUM_ACTIONS]: True exactly where the engine accepts the action."""
        if out is None:
            out = np.zeros((self.batch_size, NUM_ACTIONS), dtype=bool)
        else:
            check_buffer("out", out, (self.batch_size, NUM_ACTIONS), np.bool_)
        kernels.mask_kernel(self.state, out)
        return out

    def observe(self, players: np.ndarray | int | None = None, out=None) -> np.ndarray:
        """int16 [B, obs_size]: each game seen by ``players`` (default: the player to act)."""
        if players is None:
            viewers = np.full(self.batch_size, -1, dtype=np.int64)
        else:
            given = np.asarray(players)
            if given.dtype.kind not in "iu":
                raise TypeError(
                    f"players must be whole numbers (seats 0..{self.num_players - 1}), "
                    f"got dtype {given.dtype}"
                )
            try:
                viewers = np.broadcast_to(given.astype(np.int64), (self.batch_size,))
            except ValueError:
                raise ValueError(
                    f"players must be one seat or one per game (shape ({self.batch_size},)), "
                    f"got shape {given.shape}"
                ) from None
            if (viewers < 0).any() or (viewers >= self.num_players).any():
                raise IndexError(f"players must be seats 0..{self.num_players - 1}")
            viewers = np.ascontiguousarray(viewers)
        if out is None:
            out = np.empty((self.batch_size, self.layout.size), dtype=np.int16)
        else:
            check_buffer("out", out, (self.batch_size, self.layout.size), np.int16)
        kernels.observe_kernel(self.state, self.params, viewers, self.kernel_layout, out)
        return out

    def action_error(self, action: int, b: int = 0) -> int:
        """The ERR_* code of an action in game ``b`` (ERR_OK when legal)."""
        b = self._game_index(b)
        action = check_action(action)
        if not 0 <= action < NUM_ACTIONS:
            return ERR_OUT_OF_RANGE
        return self._reason(b, action)

    def _reason(self, b: int, action: int) -> int:
        """The legality checks' ERR_* code of ``action`` in game ``b`` (the stepping
        kernels only look the action up in the legal list)."""
        return int(kernels.action_errors_of(self.state, self.params, [b], [action])[0])

    def why_illegal(self, action: int, b: int = 0) -> str | None:
        """None if legal, else the reason in words.

        A listed action is legal as it stands (the list is what the stepping kernels
        accept), so only a refused one runs the legality checks for its reason: a game
        played by legal moves (``burako play``, a replay, the web table) never compiles
        them (:func:`~burako_env.core.kernels.refusal_reasons`)."""
        b = self._game_index(b)
        action = check_action(action)
        if 0 <= action < NUM_ACTIONS:
            if (self.state.legal[b, : self.state.num_legal[b]] == action).any():
                return None
            code = int(kernels.refusal_reasons(self.state, self.params, [b], [action])[0])
        else:
            code = ERR_OUT_OF_RANGE
        return ERROR_MESSAGES[code]

    # ------------------------------------------------------------ stepping
    def step(self, actions, check: bool = True) -> np.ndarray:
        """Apply one action per game (-1 skips a game). Returns the ERR_* codes.

        ``actions`` is an integer array of shape ``(batch_size,)`` (no float, no other
        shape is accepted). With ``check`` (the default) an illegal action raises
        :class:`IllegalActionError` naming the action and the reason; the games are then
        left untouched (the batch is checked before anything moves). Without it an illegal
        action leaves its game untouched and reports its code.
        """
        actions = check_actions(actions, self.batch_size)
        negative = actions < 0
        if (negative & (actions != SKIP_ACTION)).any():
            b = int(np.flatnonzero(negative & (actions != SKIP_ACTION))[0])
            raise ValueError(
                f"actions[{b}] is {actions[b]}: an action is an id 0..{NUM_ACTIONS - 1}, "
                f"or {SKIP_ACTION} to skip the game"
            )
        if self.batch_size == 1:  # the one-game kernel, no thread pool
            a = int(actions[0])
            code = self._one(kernels.GAME_STEP, 0, a) if a >= 0 else ERR_OK  # illegal: no move
            if check and code != ERR_OK:
                raise IllegalActionError(a, code, 0)
            self._errors[0] = code
            return self._errors.copy()
        if check:  # every game checked before any moves
            kernels.check_games(self.state, self.params, actions, self._errors)
            if self._errors.any():
                b = int(np.flatnonzero(self._errors)[0])
                raise IllegalActionError(actions[b], int(self._errors[b]), b)
        kernels.step_games(self.state, self.params, actions, self._errors)
        return self._errors.copy()

    def step_one(self, action: int, b: int = 0) -> None:
        """Apply one action to game ``b`` alone; raises IllegalActionError if illegal."""
        b = self._game_index(b)
        action = check_action(action)
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(action, ERR_OUT_OF_RANGE, b)
        code = self._one(kernels.GAME_STEP, b, action)
        if code != ERR_OK:
            raise IllegalActionError(action, code, b)

    def observe_one(self, player: int, b: int = 0, out: np.ndarray | None = None) -> np.ndarray:
        """int16 [obs_size]: game ``b`` seen by seat ``player``."""
        b = self._game_index(b)
        player = check_index("player", player, self.num_players, f"{self.num_players} players")
        if out is None:
            out = np.empty(self.layout.size, dtype=np.int16)
        else:
            check_buffer("out", out, (self.layout.size,), np.int16)
        self._one(kernels.GAME_OBSERVE, b, viewer=player, obs=out)
        return out

    def view(self, b: int = 0) -> GameView:
        """Game ``b``'s scalars by name (a read-only copy taken now):
        ``game.view(b).phase``, ``.player``, ``.match_scores`` ...; see
        :class:`~burako_env.core.view.GameView`."""
        return GameView.of(self.state.scalars[self._game_index(b)])

    def live_view(self, b: int = 0) -> LiveView:
        """Game ``b``'s scalars by name, read at each access (it follows the game as it
        moves): :class:`~burako_env.core.view.LiveView`, the fields of :meth:`view`."""
        return LiveView(self.state.scalars[self._game_index(b)])

    def columns(self) -> Columns:
        """Every game's scalars by name, as read-only live columns:
        ``game.columns().player`` (int32 ``[B]``), ``.match_scores`` (``[B, 2]``) ...;
        see :class:`~burako_env.core.view.Columns`."""
        return Columns(self.state.scalars)

    def is_over(self, b: int = 0) -> bool:
        """Whether game ``b`` has ended (its hand, or its match in match mode)."""
        b = self._game_index(b)
        return bool(self.state.scalars[b, S_PHASE] == PHASE_OVER)

    def _one(self, op: int, b: int, action: int = 0, viewer: int = 0, obs=kernels.NO_OBS) -> int:
        """The one-game kernel's operation ``op`` (``kernels.GAME_*``) on game ``b``,
        arguments checked by the caller; its ERR_* code (the reason, for a refused
        action)."""
        code = kernels.game_kernel(
            self.state,
            self.params,
            op,
            b,
            action,
            self.episode_match,
            viewer,
            self.kernel_layout,
            obs,
            kernels.NO_MASK,
        )
        if code == kernels.ERR_UNLISTED:
            return int(kernels.refusal_reasons(self.state, self.params, [b], [action])[0])
        return int(code)

    def _game_index(self, b) -> int:
        return check_index("b", b, self.batch_size, f"a batch of {self.batch_size} games")

    def snapshot(self) -> GameState:
        """A copy of every game's state arrays (a :class:`GameState`), independent of the game that
        goes on."""
        return copy_state(self.state)

    # ------------------------------------------------------------ copies and re-deals
    def _like(self, batch_size: int) -> Game:
        """An empty Game of the same variant and episode, ``batch_size`` zeroed games."""
        other = object.__new__(Game)
        other.variant = self.variant
        other.num_players = self.num_players
        other.batch_size = int(batch_size)
        other.episode = self.episode
        other.params = self.params
        other.layout = self.layout
        other.kernel_layout = self.kernel_layout
        other.state = allocate_state(other.batch_size, self.num_players)
        other._errors = np.zeros(other.batch_size, dtype=np.int32)
        return other

    def _game_indices(self, games) -> np.ndarray:
        if games is None:
            return np.arange(self.batch_size, dtype=np.int64)
        idx = np.atleast_1d(check_whole_array("games", games, "game indices"))
        if idx.ndim != 1 or idx.size == 0:
            raise ValueError(f"games must be a non-empty list of game indices, got {games!r}")
        if (idx < 0).any() or (idx >= self.batch_size).any():
            raise ValueError(f"game indices must lie in 0..{self.batch_size - 1}, got {games!r}")
        return idx

    def clone(self, games=None, episode: str | None = None) -> Game:
        """An independent copy of every game (or of the games at the indices ``games``,
        in that order): stepping one never touches the other. Every array is copied except
        the stale tail of the legal-action cache past ``num_legal``. ``episode``: the
        copy's (default this game's); ``"hand"`` on a match plays the hand in course to
        its end and deals no next one (the table as that hand ends)."""
        if episode is not None and episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        idx = self._game_indices(games)
        other = self._like(idx.size)
        det.copy_kernel(self.state, idx, other.state)
        if episode is not None:
            other.episode = episode
            other.state.scalars[:, S_EPISODE_MATCH] = other.episode_match  # the kernels' flag
        return other

    def determinize(
        self,
        viewer,
        rng: np.random.Generator | int,
        games=None,
        count: int = 1,
    ) -> Game:
        """New games in which every card hidden from ``viewer`` is dealt again, uniformly
        among the deals consistent with what that player knows: the stock and its order,
        the untaken muertos, a peeked card that is not theirs, and the other hands except
        their known cards (each hand keeps its size and its known cards). ``viewer``'s
        observation of each new game equals the original's (see
        :mod:`burako_env.core.determinize` for the details).

        ``games`` picks games (default: all) and ``count`` re-deals each of them: the result
        holds ``len(games) * count`` games, game-major (the re-deals of ``games[0]`` first).
        ``viewer`` is a seat, or one seat per picked game. ``rng`` (a numpy Generator or
        an integer seed) makes the deals: the same seed gives the same games.
        """
        idx = self._game_indices(games)
        if not _is_whole(count) or count < 1:
            raise ValueError(f"count must be a positive whole number, got {count!r}")
        seats = check_whole_array("viewer", viewer, f"seats 0..{self.num_players - 1}")
        viewers = np.broadcast_to(seats, idx.shape)
        if (viewers < 0).any() or (viewers >= self.num_players).any():
            raise ValueError(f"viewer must be a seat 0..{self.num_players - 1}, got {viewer!r}")
        src_index = np.repeat(idx, count)
        viewers = np.ascontiguousarray(np.repeat(viewers, count))
        words = generator_words(rng, src_index.size)
        other = self._like(src_index.size)
        args = (self.state, src_index, viewers, self.params, other.state, words)
        run_sliced(det.determinize_kernel, src_index.size, *args)
        return other
