"""The environments, thin adapters over the numba core (nothing here re-implements a rule).

* :mod:`burako_env.envs.aec`: PettingZoo AEC (``burako_env.env()``, ``raw_env``).
* :mod:`burako_env.envs.gym_env`: single-agent Gymnasium env ``Burako-v1``
  (:class:`~burako_env.envs.gym_env.BurakoGymEnv`).
* :mod:`burako_env.envs.gym_vector`: :class:`~burako_env.envs.gym_vector.BurakoVectorEnv`,
  ``Burako-v1``'s Gymnasium vector env (``gymnasium.make_vec``): N learner games against
  opponents in compiled code, SAME_STEP autoreset.
* :mod:`burako_env.envs.vector`: :class:`~burako_env.envs.vector.VectorEnv`, B games in
  lockstep with auto-reset, for training and tournaments.
* :mod:`burako_env.envs.observation`: the observation's named blocks, their bounds and the
  float32 normalised observation (``normalize_obs=True``).
* :mod:`burako_env.envs.rewards`: the rewards they share.
"""
