"""RLlib: Burako as a ``MultiAgentEnv`` with action masks, and a PPO configuration
(the rllib extra: ``pip install 'burako[rllib]'``; docs/RLLIB.md).

    import burako_env
    from burako_env.rllib import policy_function, ppo_config

    algo = ppo_config(num_players=2).build_algo()   # starts a small local Ray instance
    for _ in range(10):
        algo.train()
    player = policy_function(algo.get_module("shared"))
    print(burako_env.evaluate(player, num_players=2, hands=200).table())

:class:`BurakoMultiAgentEnv` is the AEC game (:mod:`burako_env.envs.aec`, the raw
environment: one numba call a decision) seen through RLlib's multi-agent API, new API
stack. It is turn-based: each ``step`` takes the action of the one player to act and
returns the observation of the next one to act (often the same player: a turn is a
draw, any number of melds and a discard). Each observation is RLlib's action-masking
convention, a dict ``{"observations": float32 vector, "action_mask": float32 0/1}``;
the mask is 1 exactly at the engine's legal actions. When the episode ends every seat
gets its last observation (mask all zeros), its reward and ``terminateds["__all__"]``.

:func:`ppo_config` builds an RLlib ``PPOConfig`` with one policy (``"shared"``) for every
seat and :class:`MaskedPPOTorchRLModule`, PPO's default torch module whose logits are
pushed to ``-3.4e38`` (probability 0) outside the mask, so it only ever samples legal
actions. Its defaults are tiny (one local env runner, a 64-unit network, small batches):
a smoke run, to be scaled up with RLlib's own methods on the returned config.

:class:`BurakoRLlibVectorEnv` and :func:`vector_ppo_config` are the fast single-agent
path, one learner against fixed opponents: each env runner samples ONE
:class:`~burako_env.gym.vector.BurakoVectorEnv` of N games (the opponents played inside
numba), through RLlib's ``SingleAgentEnvRunner`` in its ``vector_entry_point`` mode, with
NEXT_STEP autoreset (what RLlib's loop expects) and the same masked dict observations::

    algo = vector_ppo_config(num_envs=256, opponents="greedy").build_algo()
    algo.train()
    layout = algo.env_runner.env.unwrapped.vector_env.observation_layout
    player = policy_function(algo.get_module(), layout=layout)

**Ray on a small machine.** ``build_algo()`` of the config :func:`ppo_config` returns
(a :class:`BurakoPPOConfig`) starts Ray with :func:`init_ray` when it is not running: a
local instance of 2 CPUs, a 256 MiB object store and no dashboard (:data:`SMALL_RAY`),
where ``ray.init()``'s defaults size the object store at 30% of the memory Ray sees and
map it in ``/dev/shm`` (a tmpfs: its pages count against a container's memory cap, and
Docker's is 64 MB), start the dashboard's processes and one worker slot per core: under
a 6 GB cap the raylet can die, or Ray refuse to start, with an error about ``/dev/shm``.
``ppo_config(ray_init={...})`` changes those settings; a ``ray.init(...)`` of your own
before ``build_algo()`` (a cluster's ``address``) is used as it is.

Importing this module imports Ray's RLlib; without it, the import raises
:class:`~burako_env.extras.MissingExtra` naming the ``rllib`` extra. Nothing else in
the package imports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium
    import ray
    import torch
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as exc:
    from burako_env.extras import MissingExtra

    missing = (exc.name or "ray").split(".")[0]
    raise MissingExtra(
        "burako_env.rllib", "ray.rllib" if missing == "ray" else missing, "rllib"
    ) from exc

from burako_env.core.constants import NUM_ACTIONS
from burako_env.envs.aec import IllegalMoveError, raw_env
from burako_env.gym.vector import BurakoVectorEnv

__all__ = [
    "SHARED_POLICY",
    "SMALL_RAY",
    "BurakoMultiAgentEnv",
    "BurakoPPOConfig",
    "BurakoRLlibVectorEnv",
    "MaskedPPOTorchRLModule",
    "init_ray",
    "policy_function",
    "ppo_config",
    "shared_policy",
    "squash_observations",
    "vector_ppo_config",
]

#: the one policy every seat plays with in :func:`ppo_config`
SHARED_POLICY = "shared"
#: the logit of an illegal action (RLlib's FLOAT_MIN): probability exactly 0 in float32
MASKED_LOGIT = -3.4e38
#: ``squash``'s bound: sign(x) * log1p(|x|) of int16's range
SQUASH_BOUND = float(np.log1p(2.0**15))
ILLEGAL = ("terminate", "raise")
#: :func:`init_ray`'s defaults: a local Ray instance that fits a small machine (2 cores,
#: a few GB of memory): a fixed 256 MiB object store (ray.init's default is 30% of the
#: memory it sees, in /dev/shm) and no dashboard (its processes take hundreds of MB)
SMALL_RAY: dict[str, Any] = {
    "num_cpus": 2,
    "object_store_memory": 256 * 1024 * 1024,
    "include_dashboard": False,
}


class BurakoMultiAgentEnv(MultiAgentEnv):
    """Burako for RLlib (new API stack): turn-based, one observation per step for the
    player to act, with its action mask.

    ``config`` (RLlib's ``env_config``, a dict) takes the AEC environment's arguments
    (``variant``, ``num_players``, ``episode``, ``reward`` and any variant parameter;
    :mod:`burako_env.envs.aec`) and two of its own:

    * ``squash`` (default True): the observation is ``sign(x) * log1p(|x|)`` of the
      engine's int16 vector, so card counts stay near 0..1 and scores in the thousands
      near 8; False passes the int16 values as float32.
    * ``illegal``: what an action outside the mask does. ``"terminate"`` (the default,
      PettingZoo classic's convention and that of ``burako_v1.env()``): the episode ends,
      the offender gets -1 and the others 0, and the offender's info says why
      (``"illegal_move"``). ``"raise"``: :class:`~burako_env.envs.aec.IllegalMoveError`
      (RLlib's env runner then stops with it), for runs that must prove every action
      legal.

    ``step`` takes the action of the agent to act alone: an action for any other agent
    is a ``ValueError`` (it would be lost), before anything moves.

    Rewards are the AEC environment's (partners share them, the opponents get the
    negative): at the end of a hand, for every seat, whether it is to act or not; RLlib
    keeps a seat's reward until its next observation. Infos: the AEC environment's
    hand-end infos, for the seats that get an observation. The 400-turn bound ends a
    hand (a termination): nothing is ever truncated.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        self.squash = bool(config.pop("squash", True))
        self.illegal = config.pop("illegal", "terminate")
        if self.illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {ILLEGAL}, got {self.illegal!r}")
        self.aec = raw_env(**config)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        size = self.aec.game.layout.size
        bound = SQUASH_BOUND if self.squash else float(2**15)
        space = spaces.Dict(
            {
                "observations": spaces.Box(-bound, bound, (size,), np.float32),
                "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._over = True

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation dict (fresh float32 arrays); its mask is all zeros
        unless it is to act."""
        d = self.aec.observe(agent)
        obs = d["observation"]
        x = squash_observations(obs) if self.squash else obs.astype(np.float32)
        return {"observations": x, "action_mask": d["action_mask"].astype(np.float32)}

    @property
    def agent_to_act(self) -> str:
        """The player to act (the AEC environment's ``agent_selection``)."""
        return self.aec.agent_selection

    def legal_actions(self) -> np.ndarray:
        """The legal action ids of the decision (a copy, in the engine's order)."""
        return self.aec.legal_actions().copy()

    # ------------------------------------------------------------------ the API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self._over = False
        agent = self.aec.agent_selection
        return {agent: self.observe(agent)}, {agent: {}}

    def step(self, action_dict: dict):
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        agent = self.aec.agent_selection
        if agent not in action_dict:
            raise KeyError(f"{agent} is to act, but the actions are for {sorted(action_dict)}")
        if len(action_dict) > 1:  # one player acts a step: another's action would be lost
            others = sorted(str(a) for a in action_dict if a != agent)
            raise ValueError(
                f"only {agent} is to act, but actions came for {others} too: send the action "
                "of the agent in the last observations alone"
            )
        action = action_dict[agent]
        if isinstance(action, np.ndarray):  # RLlib's 0-d arrays
            action = action.item()
        try:  # a float, a string or a bool is a TypeError, as in the AEC env
            self.aec.step(action)
        except IllegalMoveError as exc:
            if self.illegal == "raise":
                raise
            return self._end({a: (-1.0 if a == agent else 0.0) for a in self.agents}, agent, exc)
        if all(self.aec.terminations.values()):
            return self._end(dict(self.aec.rewards))
        rewards = {a: float(r) for a, r in self.aec.rewards.items() if r}
        nxt = self.aec.agent_selection
        rewards.setdefault(agent, 0.0)
        hand_ended = self.aec.game.live_view(0).hand_just_ended
        return (
            {nxt: self.observe(nxt)},
            rewards,
            {"__all__": False},
            {"__all__": False},
            {nxt: dict(self.aec.infos[nxt])} if hand_ended else {},
        )

    def _end(self, rewards: dict, offender: str | None = None, exc: Exception | None = None):
        """The last step: every seat's observation, reward and termination."""
        self._over = True
        obs = {}
        infos = {}
        for a in self.possible_agents:
            o = self.observe(a)
            o["action_mask"][:] = 0.0
            obs[a] = o
            infos[a] = dict(self.aec.infos.get(a, {}))
        if offender is not None:
            infos[offender]["illegal_move"] = str(exc)
        terminated = dict.fromkeys(self.possible_agents, True)
        terminated["__all__"] = True
        truncated = dict.fromkeys(self.possible_agents, False)
        truncated["__all__"] = False
        return obs, {a: float(r) for a, r in rewards.items()}, terminated, truncated, infos

    def render(self) -> str:
        from burako_env.render import render_table

        return render_table(self.aec.game, 0, viewer=None)


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default torch module for :class:`BurakoMultiAgentEnv`'s dict observations:
    the network reads ``"observations"``, and the logits of actions outside
    ``"action_mask"`` are set to :data:`MASKED_LOGIT` (probability 0), in exploration,
    inference and training alike. The value function reads the observations only."""

    def __init__(self, *, observation_space=None, action_space=None, **kwargs):
        if not (
            isinstance(observation_space, spaces.Dict)
            and {"observations", "action_mask"} <= set(observation_space.spaces)
        ):
            raise ValueError(
                "MaskedPPOTorchRLModule needs a Dict observation space with "
                f"'observations' and 'action_mask', got {observation_space}"
            )
        self.observation_space_with_mask = observation_space
        # the networks are built for the observations alone (the mask is not an input)
        super().__init__(
            observation_space=observation_space["observations"],
            action_space=action_space,
            **kwargs,
        )

    def setup(self):
        super().setup()
        # the module's space is the environment's (connectors and checkpoints see it)
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _split(batch: dict) -> tuple[Any, dict]:
        """(the mask, the batch with the observations alone), the batch left as it is."""
        obs = batch[Columns.OBS]
        return obs["action_mask"], {**batch, Columns.OBS: obs["observations"]}

    @staticmethod
    def _masked(out: dict, mask) -> dict:
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = torch.where(
            mask > 0, logits, torch.full_like(logits, MASKED_LOGIT)
        )
        return out

    def _forward(self, batch: dict, **kwargs) -> dict:
        mask, batch = self._split(batch)
        return self._masked(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None):
        if embeddings is None and isinstance(batch[Columns.OBS], dict):
            batch = self._split(batch)[1]
        return super().compute_values(batch, embeddings)


def squash_observations(obs: np.ndarray) -> np.ndarray:
    """``sign(x) * log1p(|x|)`` of the engine's int16 observations, as float32: what
    :class:`BurakoMultiAgentEnv` gives with ``squash=True``."""
    x = np.asarray(obs).astype(np.float32)
    return np.sign(x) * np.log1p(np.abs(x))


def policy_function(module: Any, *, squash: bool = True, greedy: bool = True, layout: Any = None):
    """A trained module (``algo.get_module("shared")``) as a function ``(obs, mask) ->
    actions`` on a batch of the engine's observations (int16 [B, obs_size]) and masks
    ([B, 2541]): what :func:`burako_env.evaluate` and
    :class:`~burako_env.agents.adapters.FunctionAgent` take, so the policy meets the
    heuristic agents on the tournament's deals::

        burako_env.evaluate(policy_function(algo.get_module("shared")), num_players=2)

    ``greedy`` plays the most likely legal action (``forward_inference``), else samples
    (``forward_exploration``); ``squash`` must be the environment's. A module trained on
    :class:`BurakoRLlibVectorEnv` (normalised observations) needs its ``layout``, an
    :class:`~burako_env.envs.observation.ObservationLayout` (the env's
    ``vector_env.observation_layout``, or ``ObservationLayout(variant)``): the
    observations are then ``layout.normalize(obs)`` and ``squash`` is not used."""

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if layout is not None:
            x = layout.normalize(np.asarray(obs))
        else:
            x = squash_observations(obs) if squash else np.asarray(obs, np.float32)
        batch = {
            Columns.OBS: {
                "observations": torch.from_numpy(x),
                "action_mask": torch.from_numpy(np.asarray(mask, np.float32)),
            }
        }
        with torch.no_grad():
            if greedy:
                logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
                return logits.argmax(-1).numpy()
            logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
            return torch.distributions.Categorical(logits=logits).sample().numpy()

    return act


def init_ray(**settings: Any) -> bool:
    """Start a local Ray instance for a small machine, unless Ray is running already (then
    it is left as it is, and False returned): ``ray.init(address="local", **SMALL_RAY,
    **settings)``, Ray's logs kept out of the driver's output. ``settings`` are
    ``ray.init``'s keywords, e.g. ``num_cpus``, ``object_store_memory`` (bytes; at
    least 75 MiB, and at most what ``/dev/shm`` holds, or Ray moves it to the slower
    ``_temp_dir``), ``_temp_dir`` (Ray's session folder, default ``/tmp/ray``).

    The recipe by hand::

        ray.init(num_cpus=2, object_store_memory=256 * 1024**2, include_dashboard=False,
                 _temp_dir="/tmp/ray")
    """
    if ray.is_initialized():
        return False
    options = {"logging_level": "ERROR", "log_to_driver": False, **SMALL_RAY, **settings}
    ray.init(address="local", **options)
    return True


class BurakoPPOConfig(PPOConfig):
    """RLlib's ``PPOConfig`` (what :func:`ppo_config` returns) whose ``build_algo()``
    first starts Ray with :func:`init_ray` and :attr:`ray_init` where it is not running
    (RLlib would start it with ``ray.init()``'s defaults, which do not fit a small
    machine: see the module doc)."""

    def __init__(self, algo_class: Any = None) -> None:
        super().__init__(algo_class=algo_class)
        #: :func:`init_ray`'s settings (``ray.init`` keywords) for ``build_algo()``
        self.ray_init: dict[str, Any] = {}

    def build_algo(self, *args: Any, **kwargs: Any):
        """Start Ray (:func:`init_ray` with :attr:`ray_init`) unless it is running,
        then RLlib's ``build_algo``."""
        init_ray(**self.ray_init)
        return super().build_algo(*args, **kwargs)


def shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """RLlib's ``policy_mapping_fn``: every seat plays :data:`SHARED_POLICY`."""
    return SHARED_POLICY


def ppo_config(
    num_players: int = 2,
    variant: str = "argentine",
    *,
    env_config: dict | None = None,
    hidden: tuple[int, ...] = (64,),
    train_batch_size: int = 512,
    minibatch_size: int = 128,
    num_epochs: int = 2,
    lr: float = 3e-4,
    num_env_runners: int = 0,
    seed: int | None = None,
    ray_init: dict[str, Any] | None = None,
) -> BurakoPPOConfig:
    """An RLlib ``PPOConfig`` (new API stack, torch) for self-play on
    :class:`BurakoMultiAgentEnv`: one policy, :data:`SHARED_POLICY`, for every seat (so
    a team's two partners, and the opponents, are the same network), built as
    :class:`MaskedPPOTorchRLModule` with ``hidden`` fully connected layers (tanh), the
    value function sharing them.

    ``env_config`` adds the environment's arguments (``episode``, ``reward``,
    ``squash``, ``illegal``, variant parameters; :class:`BurakoMultiAgentEnv`); with
    ``illegal="raise"`` RLlib's own env check (which steps one unmasked random action)
    is turned off. ``num_env_runners=0`` samples in the driver process; more starts
    that many Ray actors. The defaults are a smoke run's: change anything further on
    the returned config with RLlib's methods (``.training(...)``,
    ``.env_runners(...)``, ``.learners(...)``), then ``.build_algo()``, which starts a
    small local Ray instance unless one is running (:class:`BurakoPPOConfig`;
    ``ray_init``: :func:`init_ray`'s settings, e.g. ``{"num_cpus": 4}``).
    """
    env_config = {"variant": variant, "num_players": num_players, **(env_config or {})}
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config={
            "fcnet_hiddens": list(hidden),
            "fcnet_activation": "tanh",
            "head_fcnet_hiddens": [],
            "vf_share_layers": True,
        },
    )
    config = (
        BurakoPPOConfig()
        .framework("torch")
        .environment(
            BurakoMultiAgentEnv,
            env_config=env_config,
            disable_env_checking=env_config.get("illegal") == "raise",
        )
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
        )
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    config.ray_init = dict(ray_init or {})
    return config


# ---------------------------------------------------------------------- the compiled batch
class BurakoRLlibVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` learner games against compiled opponents
    (:class:`~burako_env.gym.vector.BurakoVectorEnv`, one numba call a step for the whole
    batch) in the shape RLlib's ``SingleAgentEnvRunner`` samples: what
    :func:`vector_ppo_config` puts behind RLlib, one env of N games per env runner.

    * **Observations** are RLlib's action-masking dict, ``{"observations": float32
      [N, obs_size], "action_mask": float32 [N, 2541]}``: the observations normalised
      (``normalize_obs=True`` of the vector env, about [-1, 1]), the mask 1 exactly at
      the learner's legal actions, for :class:`MaskedPPOTorchRLModule`.
    * **Autoreset: NEXT_STEP**, the mode RLlib's sampling loop assumes (Gymnasium's
      default): the step in which a game's episode ends returns that episode's last
      observation (mask all zeros: no legal action), its reward and ``terminated``; the
      next step ignores that game's action and returns its next episode's first
      observation, reward 0. The vector env underneath deals the next episode in the
      same step (SAME_STEP); this adapter keeps the game still for one step
      (``BurakoVectorEnv.step(hold=...)``), so no action of the new episode is played
      before RLlib has seen its first observation.
    * ``info`` is ``{"seat": int64 [N]}``, the learner seat to act (RLlib's
      ``DictInfoToList`` gives each game its own dict).

    ``config`` is RLlib's env config: ``num_envs`` and any
    :class:`~burako_env.gym.vector.BurakoVectorEnv` argument (``variant``,
    ``num_players``, ``opponents``, ``reward``, ``episode``, ``illegal_action``, ...;
    ``normalize_obs`` and ``copy`` are this adapter's). Keys RLlib adds to an
    ``EnvContext`` (``worker_index``, ...) are attributes, not keys, so they do not
    reach it.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, config: dict | None = None) -> None:
        config = dict(config or {})
        for own in ("normalize_obs", "copy"):
            if own in config:
                raise ValueError(
                    f"BurakoRLlibVectorEnv sets {own!r} itself: leave it out of the config"
                )
        num_envs = config.pop("num_envs", 8)
        #: the compiled games (their table, opponents, ``get_state`` / ``set_state``)
        self.vector_env = BurakoVectorEnv(num_envs, normalize_obs=True, **config)
        self.num_envs = n = self.vector_env.num_envs
        self.render_mode = None
        single_obs = self.vector_env.single_observation_space
        self.single_observation_space = spaces.Dict(
            {
                "observations": single_obs,
                "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
            }
        )
        self.single_action_space = self.vector_env.single_action_space
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        #: games whose episode ended at the last step: their next episode's first
        #: observation is handed out (and nothing played) at the next step
        self.pending = np.zeros(n, np.bool_)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every game anew (game b from ``(seed, b)``, as the vector env)."""
        obs, info = self.vector_env.reset(seed=seed, options=options)
        self.pending[:] = False
        return self._dict(obs, info["action_mask"]), {"seat": info["seat"]}

    def step(self, actions: np.ndarray):
        """One learner action per game (ignored where a game's episode ended at the last
        step: see the class doc)."""
        held = self.pending.copy()
        obs, reward, terminated, truncated, info = self.vector_env.step(actions, hold=held)
        mask = info["action_mask"].astype(np.float32)
        if terminated.any():
            # the ended episode's last view, its mask all zeros; the next episode, already
            # dealt underneath, is handed out at the next step
            for b in np.flatnonzero(terminated):
                obs[b] = info["final_obs"][b]
            mask[terminated] = 0.0
        reward[held] = 0.0
        self.pending = terminated.copy()
        observations = {"observations": obs, "action_mask": mask}
        return observations, reward, terminated, truncated, {"seat": info["seat"]}

    @staticmethod
    def _dict(obs: np.ndarray, mask: np.ndarray) -> dict:
        return {"observations": obs, "action_mask": mask.astype(np.float32)}

    def close_extras(self, **kwargs: Any) -> None:
        # an env whose settings were refused in __init__ has no games to close, and
        # gymnasium's __del__ still calls this
        vector_env = getattr(self, "vector_env", None)
        if vector_env is not None:
            vector_env.close()

    def __repr__(self) -> str:
        return f"BurakoRLlibVectorEnv({self.vector_env!r})"


def vector_ppo_config(
    num_envs: int = 64,
    num_players: int = 2,
    variant: str = "argentine",
    *,
    opponents: Any = "random",
    env_config: dict | None = None,
    hidden: tuple[int, ...] = (64,),
    train_batch_size: int = 1024,
    minibatch_size: int = 256,
    num_epochs: int = 2,
    lr: float = 3e-4,
    num_env_runners: int = 0,
    seed: int | None = None,
    ray_init: dict[str, Any] | None = None,
) -> BurakoPPOConfig:
    """An RLlib ``PPOConfig`` (new API stack, torch) for one learner against fixed
    opponents on the compiled batch: each env runner samples one
    :class:`BurakoRLlibVectorEnv` of ``num_envs`` games (the opponents, ``opponents``,
    played inside numba), with :class:`MaskedPPOTorchRLModule` (``hidden`` tanh layers,
    the value function sharing them) as its single policy.

    ``env_config`` adds :class:`~burako_env.gym.vector.BurakoVectorEnv`'s arguments
    (``reward``, ``episode``, ``seat``, ``control``, ``illegal_action``, variant
    parameters); ``illegal_action="raise"`` turns RLlib's env check off. The rest is
    :func:`ppo_config`'s: tiny defaults, ``build_algo()`` starting a small local Ray
    instance (:func:`init_ray`, ``ray_init``) unless one is running. This is the fast
    single-agent path; :func:`ppo_config` is self-play on the AEC game."""
    env_config = {
        "variant": variant,
        "num_players": num_players,
        "opponents": opponents,
        **(env_config or {}),
    }
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config={
            "fcnet_hiddens": list(hidden),
            "fcnet_activation": "tanh",
            "head_fcnet_hiddens": [],
            "vf_share_layers": True,
        },
    )
    config = (
        BurakoPPOConfig()
        .framework("torch")
        .environment(
            BurakoRLlibVectorEnv,
            env_config=env_config,
            disable_env_checking=env_config.get("illegal_action") == "raise",
        )
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs,
            # RLlib calls BurakoRLlibVectorEnv({... "num_envs": num_envs}) once per runner
            gym_env_vectorize_mode="vector_entry_point",
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .rl_module(rl_module_spec=module)
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
        )
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    config.ray_init = dict(ray_init or {})
    return config
