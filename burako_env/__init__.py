"""Burako (Buraco, Burraco): a self-play environment with a numba core.

The environments load lazily, so ``import burako_env`` stays light::

    from burako_env import env, raw_env        # PettingZoo AEC (burako_env.envs.aec)
    from burako_env import burako_v0           # the same, PettingZoo classic style
    import gymnasium; gymnasium.make("Burako-v0")   # single agent (envs.gym_env)

Importing the package registers ``Burako-v0`` with Gymnasium when Gymnasium is installed.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
    "env": ("burako_env.envs.aec", "env"),
    "raw_env": ("burako_env.envs.aec", "raw_env"),
    "burako_v0": ("burako_env.burako_v0", None),
    "BurakoGymEnv": ("burako_env.envs.gym_env", "BurakoGymEnv"),
    "VectorEnv": ("burako_env.envs.vector", "VectorEnv"),
}

__all__ = ["BurakoGymEnv", "VectorEnv", "__version__", "burako_v0", "env", "raw_env"]


def __getattr__(name: str):
    if name in _LAZY:
        module, attr = _LAZY[name]
        mod = importlib.import_module(module)
        value = mod if attr is None else getattr(mod, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'burako_env' has no attribute {name!r}")


def _register_gymnasium() -> None:
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # gymnasium is a dependency; stay importable without it
        return
    if "Burako-v0" not in registry:
        register(id="Burako-v0", entry_point="burako_env.envs.gym_env:BurakoGymEnv")


_register_gymnasium()
