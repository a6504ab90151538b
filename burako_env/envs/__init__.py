"""The environments, thin adapters over the numba core (nothing here re-implements a rule).

* :mod:`burako_env.envs.aec`: PettingZoo AEC (``burako_env.env()``, ``raw_env``).
* :mod:`burako_env.envs.vector`: :class:`~burako_env.envs.vector.VectorEnv`, B games in
  lockstep with auto-reset, for training and tournaments.
* :mod:`burako_env.envs.observation`: the observation's named blocks, their bounds and the
  float32 normalised observation (``normalize_obs=True``).
* :mod:`burako_env.envs.rewards`: the rewards they share.
* :mod:`burako_env.envs.global_state`: the PettingZoo env's ``state()``.

The Gymnasium envs (``Burako-v1``) seat opponent agents, so they live above the table, in
:mod:`burako_env.gym`; nothing here imports the agents or the table
(``tests/layers/test_layers.py``).
"""
