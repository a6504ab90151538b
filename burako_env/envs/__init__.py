"""The environments, thin adapters over the numba core (nothing here re-implements a rule).

* :mod:`burako_env.envs.aec`: PettingZoo AEC (``burako_env.env()``, ``raw_env``).
* :mod:`burako_env.envs.gym_env`: single-agent Gymnasium env ``Burako-v1``
  (:class:`~burako_env.envs.gym_env.BurakoGymEnv`).
* :mod:`burako_env.envs.vector`: :class:`~burako_env.envs.vector.VectorEnv`, B games in
  lockstep with auto-reset, for training and tournaments.
* :mod:`burako_env.envs.rewards`: the rewards they share.
"""
