"""Burako, version 1 (rules v1), as PettingZoo classic names its environments::

    from burako_env import burako_v1

    env = burako_v1.env(variant="argentine", num_players=4)

Spaces, rewards, episode end and version history: :mod:`burako_env.envs.aec`.
"""

from burako_env.envs.aec import IllegalMoveError, env, raw_env

__all__ = ["IllegalMoveError", "env", "raw_env"]
