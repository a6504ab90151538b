"""Burako (Buraco, Burraco): a self-play environment with a numba core.

The environments load lazily, so ``import burako_env`` stays light::

    from burako_env import env, raw_env        # PettingZoo AEC (burako_env.envs.aec)
    from burako_env import burako_v1           # the same, PettingZoo classic style
    import gymnasium; gymnasium.make("Burako-v1")   # single agent (gym.single)
    gymnasium.make_vec("Burako-v1", num_envs=64)     # 64 of them, compiled (gym.vector)

One evaluation for any player (an Agent, an agent name, a function, an sb3 model)::

    from burako_env import evaluate             # burako_env.evaluation
    print(evaluate("ppo:policy.pt").table())    # against random, greedy, discard_table

Baselines to cite, per variant, with your agent among them (burako_env.leaderboard)::

    board = burako_env.leaderboard.run(add={"mine": "ppo:policy.pt"}, hands=200)
    print(board.markdown())

Importing the package registers ``Burako-v1`` with Gymnasium when Gymnasium is installed.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from pathlib import Path

__version__ = "0.9.0"

_LAZY = {
    "env": ("burako_env.envs.aec", "env"),
    "raw_env": ("burako_env.envs.aec", "raw_env"),
    "burako_v1": ("burako_env.burako_v1", None),
    "BurakoGymEnv": ("burako_env.gym.single", "BurakoGymEnv"),
    "VectorEnv": ("burako_env.envs.vector", "VectorEnv"),
    "evaluate": ("burako_env.evaluation", "evaluate"),
    "leaderboard": ("burako_env.leaderboard", None),
}

__all__ = [
    "BurakoGymEnv",
    "VectorEnv",
    "__version__",
    "burako_v1",
    "env",
    "evaluate",
    "leaderboard",
    "raw_env",
]


#: PettingZoo's habit: an old version is not importable, and says which one replaced it
_RETIRED = {
    "burako_v0": (
        "burako_v0 played the rules before rules v1 (1,773 actions; RULES.md revised): "
        "it is replaced by burako_v1 (2,541 actions). Use `from burako_env import burako_v1`."
    ),
}


def __getattr__(name: str):
    if name in _RETIRED:
        raise ImportError(_RETIRED[name])
    if name in _LAZY:
        module, attr = _LAZY[name]
        mod = importlib.import_module(module)
        value = mod if attr is None else getattr(mod, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'burako_env' has no attribute {name!r}")


class _SourceTreeFinder(importlib.abc.MetaPathFinder):
    """Finds ``burako_env.agents`` and ``burako_env.training`` in a source tree: the
    repository keeps them at its top level, and pyproject's ``package-dir`` maps them
    into the package for an install. Without this, a checkout imported without its own
    install (``PYTHONPATH=.``, a git worktree, mutmut's copy of the sources) took them
    from whichever checkout was installed, or failed."""

    def __init__(self, locations: dict[str, Path]) -> None:
        self.locations = locations

    def find_spec(self, fullname, path=None, target=None):
        location = self.locations.get(fullname)
        if location is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, location / "__init__.py", submodule_search_locations=[str(location)]
        )


def _map_source_tree() -> None:
    here = Path(__file__).absolute().parent  # not resolved: a tree of links is a tree
    locations = {
        f"{__name__}.{name}": here.parent / name
        for name in ("agents", "training")
        # an installed wheel has them inside the package; a source tree beside it
        if not (here / name).exists() and (here.parent / name / "__init__.py").is_file()
    }
    if locations:
        sys.meta_path.insert(0, _SourceTreeFinder(locations))


_map_source_tree()


def _register_gymnasium() -> None:
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # gymnasium is a dependency; stay importable without it
        return
    # only the current version is registered: gymnasium then answers "Burako-v0" with its
    # own DeprecatedEnv error naming Burako-v1
    if "Burako-v1" not in registry:
        register(
            id="Burako-v1",
            entry_point="burako_env.gym.single:BurakoGymEnv",
            # gymnasium.make_vec(..., vectorization_mode="vector_entry_point"): N games
            # stepped together in compiled code
            vector_entry_point="burako_env.gym.vector:BurakoVectorEnv",
        )


_register_gymnasium()
