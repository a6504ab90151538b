"""Stable-Baselines3: the compiled batch of games as an sb3 ``VecEnv``, for sb3-contrib's
``MaskablePPO`` (docs/RL.md).

    from sb3_contrib import MaskablePPO
    from burako_env.sb3 import BurakoSB3VecEnv

    env = BurakoSB3VecEnv(num_envs=64, opponents="greedy", normalize_obs=True)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, seed=0)
    model.learn(total_timesteps=100_000)

:class:`BurakoSB3VecEnv` wraps :class:`~burako_env.gym.vector.BurakoVectorEnv` (whose
module doc is the manual: the games, opponents, rewards and seeds are its own): ``N``
learner games stepped together in compiled code, one call a step for the whole batch,
where sb3's ``DummyVecEnv`` or ``SubprocVecEnv`` of the single env
(:class:`~burako_env.gym.single.BurakoGymEnv`) step one game a call. It speaks sb3's
conventions:

* ``reset()`` returns the observations [N, obs_size]; ``step_wait()`` returns
  ``(obs, rewards, dones, infos)``, ``dones = terminated | truncated`` and ``infos`` a
  list of N dicts (``seat``, the learner seat to act; ``TimeLimit.truncated``, always
  False: episodes end with the hand or the match, never by a time limit).
* **Autoreset.** The vector env's SAME_STEP autoreset is sb3's own: where ``dones[i]``,
  the observation returned is game ``i``'s next episode's first, the ended episode's last
  is ``infos[i]["terminal_observation"]``, and the rest of the vector env's
  ``final_info`` for that game (``winner``, ``hand_scores``, ``match_scores``,
  ``hands_ended``, ``illegal_action``) is in ``infos[i]`` too.
* **Masks.** ``action_masks()`` is bool [N, NUM_ACTIONS], the legal actions of the
  observations last returned (the next episode's first where a game just ended, so no row
  is ever empty). sb3-contrib's ``get_action_masks(env)`` stacks
  ``env.env_method("action_masks")``, one row a game: this env answers that call (and
  ``has_attr("action_masks")``, which ``MaskablePPO`` checks) from the same array, with
  or without sb3's ``VecEnvWrapper`` s (``VecMonitor``, ``VecNormalize``) around it.
* **Seeds.** ``seed(s)`` then ``reset()`` deals game ``b`` from ``(s, b)`` and seeds the
  opponents from ``s``, as ``BurakoVectorEnv.reset(seed=s)`` does (sb3 calls ``seed``
  with the model's ``seed``), so the same seed and actions give the same games;
  ``reset()`` without a seed continues from the env's generator.
* **Attributes.** The N games share one vector env: ``get_attr(name)`` is that env's
  attribute, once per index asked for; ``set_attr`` sets it on the vector env, so it
  must be asked for every game (``indices=None``); ``env_method(name)`` calls the
  vector env's method once and gives each index asked for its result, except
  ``action_masks`` (each game its own row); ``env_is_wrapped`` is False (no Gymnasium
  wrapper is inside).

Illegal actions are the vector env's ``illegal_action``: ``"terminate"`` (the default)
ends that game's episode with reward -1 (``infos[i]["illegal_action"]`` says why),
``"raise"`` raises :class:`~burako_env.core.game.IllegalActionError` and moves no game,
for runs that must prove every action legal.

Importing this module imports stable-baselines3 (installed with the ``dev`` extra, or
``pip install sb3-contrib``, which brings it); without it the import raises
:class:`~burako_env.extras.MissingExtra` saying so. Nothing else in the package imports
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("burako_env.sb3", "stable_baselines3", "dev") from exc

from burako_env.gym.vector import BurakoVectorEnv

__all__ = ["MASKS_METHOD", "BurakoSB3VecEnv"]

#: the method sb3-contrib's ``get_action_masks`` calls through ``env_method``
MASKS_METHOD = "action_masks"
#: the final_info entries copied into a finished game's info (besides its final obs)
FINAL_KEYS = ("winner", "hand_scores", "match_scores", "hands_ended", "illegal_action")


class BurakoSB3VecEnv(VecEnv):
    """``num_envs`` Burako games as one sb3 ``VecEnv``, stepped together in compiled
    code; see the module doc.

    :param num_envs: the number of games.
    :param vector_env: a :class:`~burako_env.gym.vector.BurakoVectorEnv` to wrap instead
        of building one (then give no other argument).
    :param kwargs: :class:`~burako_env.gym.vector.BurakoVectorEnv`'s arguments
        (``variant``, ``opponents``, ``reward``, ``episode``, ``normalize_obs``, ...).
    """

    def __init__(
        self, num_envs: int = 8, *, vector_env: BurakoVectorEnv | None = None, **kwargs: Any
    ) -> None:
        if vector_env is None:
            vector_env = BurakoVectorEnv(num_envs, **kwargs)
        elif kwargs:
            raise ValueError(
                "give either vector_env or BurakoVectorEnv's arguments, not both: got "
                f"vector_env and {sorted(kwargs)}"
            )
        elif not isinstance(vector_env, BurakoVectorEnv):
            raise TypeError(
                f"vector_env must be a BurakoVectorEnv, got {type(vector_env).__name__}"
            )
        #: the wrapped Gymnasium vector env (its games, table and opponents)
        self.vector_env = vector_env
        self._actions: np.ndarray | None = None
        self._masks = np.zeros((vector_env.num_envs, vector_env.single_action_space.n), np.bool_)
        super().__init__(
            vector_env.num_envs,
            vector_env.single_observation_space,
            vector_env.single_action_space,
        )

    # ------------------------------------------------------------------ sb3's VecEnv
    def reset(self) -> np.ndarray:
        """Deal every game anew (from the seed of the last :meth:`seed` call, if any);
        returns the observations [N, obs_size]."""
        seed = self._seeds[0]
        obs, info = self.vector_env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self._masks = np.array(info["action_mask"], np.bool_)
        seats = info["seat"]
        self.reset_infos = [{"seat": int(seats[i])} for i in range(self.num_envs)]
        self._actions = None
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keep one action per game (int [N]) for :meth:`step_wait`."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """Step every game with the actions of :meth:`step_async`: ``(obs, rewards,
        dones, infos)`` in sb3's convention (see the module doc)."""
        if self._actions is None:
            raise RuntimeError("call step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        obs, reward, terminated, truncated, info = self.vector_env.step(actions)
        dones = terminated | truncated
        self._masks = np.array(info["action_mask"], np.bool_)
        seats = info["seat"]
        infos: list[dict] = [
            {"seat": int(seats[i]), "TimeLimit.truncated": bool(truncated[i] and not terminated[i])}
            for i in range(self.num_envs)
        ]
        if dones.any():
            final_obs = info["final_obs"]
            final = info["final_info"]
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = final_obs[i]
                for key in FINAL_KEYS:
                    if key in final and final[f"_{key}"][i]:
                        value = final[key][i]
                        infos[i][key] = value.copy() if isinstance(value, np.ndarray) else value
        return obs, reward.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """bool [N, NUM_ACTIONS]: the legal actions of the observations last returned
        (a copy)."""
        return self._masks.copy()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """The seed of the next :meth:`reset` (game ``b`` dealt from ``(seed, b)``); None
        draws one. Returns sb3's per-game list (``seed + b``)."""
        return super().seed(seed)

    def close(self) -> None:
        """Close the vector env (its opponents' resources)."""
        self.vector_env.close()

    # ------------------------------------------------------------------ attributes
    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """The vector env's attribute ``attr_name``, once per game in ``indices``
        (AttributeError where it has none)."""
        value = getattr(self.vector_env, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set the vector env's attribute ``attr_name``: the games share it, so
        ``indices`` must be every game (None)."""
        chosen = self._indices(indices)
        if sorted(chosen) != list(range(self.num_envs)):
            raise ValueError(
                f"the {self.num_envs} games share one vector env: set_attr({attr_name!r}) "
                f"applies to all of them, so pass indices=None, not {indices!r}"
            )
        setattr(self.vector_env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks``: each game's row of :meth:`action_masks`; any other name:
        the vector env's method, called once, its result given to each game in
        ``indices``."""
        chosen = self._indices(indices)
        if method_name == MASKS_METHOD:
            masks = self.action_masks()
            return [masks[i] for i in chosen]
        result = getattr(self.vector_env, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """False for every game: no Gymnasium wrapper is inside the vector env."""
        return [False for _ in self._indices(indices)]

    def _indices(self, indices: Any) -> list[int]:
        """sb3's ``indices`` (None, an int or an iterable) as a list of game indices,
        each checked to be one of the games."""
        if indices is None:
            return list(range(self.num_envs))
        chosen = [indices] if isinstance(indices, (int, np.integer)) else list(indices)
        bad = [i for i in chosen if not 0 <= int(i) < self.num_envs]
        if bad:
            raise IndexError(f"game indices must be in 0..{self.num_envs - 1}, got {bad}")
        return [int(i) for i in chosen]

    def __repr__(self) -> str:
        return f"BurakoSB3VecEnv({self.vector_env!r})"
