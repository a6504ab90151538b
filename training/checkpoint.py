"""Checkpoint files of training: writing policy files and training checkpoints.

The file format, and reading it, belong to the agents (:mod:`burako_env.agents.policy_file`: a
policy is an agent's, training builds on it); the names are re-exported here
(``FORMAT``, ``VERSION``, :class:`CheckpointError`, :func:`variant_info`,
:func:`describe_table`, :func:`check_policy_table`, :func:`load_file`,
:func:`load_network`), so ``burako_env.training.checkpoint`` imports keep working.

A training checkpoint is a policy file (``kind`` "train") that adds ``config``,
``optimizer``, ``progress``, ``league``, ``rng`` (torch, numpy, python and the sampling
generator), ``env`` (the games' state arrays) and ``trainer`` (the pending transitions
and per-game counters), enough to continue the run exactly (see :mod:`burako_env.training.ppo`);
:func:`env_state` and :func:`load_env_state` convert the games' arrays.

Files are written to a temporary name and renamed, so a crash never leaves half a file
under the real name.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("burako_env.training", "torch") from exc

from burako_env.agents.policy_file import (
    FORMAT,
    VERSION,
    CheckpointError,
    check_policy_table,
    describe_table,
    load_file,
    load_network,
    variant_info,
)

if TYPE_CHECKING:
    from burako_env.envs.vector import VectorEnv


def env_state(env: VectorEnv) -> dict:
    """The games' state arrays of ``env`` as tensors, for a training checkpoint."""
    return {name: torch.from_numpy(arr) for name, arr in env.get_state().items()}


def load_env_state(env: VectorEnv, state: dict):
    """Set ``env``'s games from a checkpoint's ``env`` section (returns what
    ``env.set_state`` does); games that do not fit this run are a :class:`CheckpointError`."""
    if not isinstance(state, dict):
        raise CheckpointError("the checkpoint's env section is not a table of state arrays")
    arrays = {}
    for name, t in state.items():
        if not isinstance(t, torch.Tensor):
            raise CheckpointError(
                f"the checkpoint's env section holds {type(t).__name__} for {str(name)!r}, "
                "not a state array (a corrupted checkpoint)"[:300]
            )
        try:
            arrays[name] = t.numpy()
        except (TypeError, RuntimeError) as exc:  # bfloat16, a tensor of another device...
            raise CheckpointError(f"the checkpoint's env array {str(name)!r}: {exc}") from exc
    try:
        return env.set_state(arrays)
    except ValueError as exc:
        raise CheckpointError(f"the checkpoint's games do not fit this run: {exc}") from exc


def save_file(data: dict, path: str | Path) -> None:
    """Write ``data`` atomically (temporary file, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    os.replace(tmp, path)


def copy_file(source: str | Path, target: str | Path) -> None:
    """Copy ``source`` to ``target`` atomically (temporary file, then rename): never half
    a file, as :func:`save_file`."""
    target = Path(target)
    tmp = target.with_name(target.name + ".tmp")
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)


#: the temporary files this module and the trainer write before a rename, by folder: a
#: kill -9 between the write and the rename leaves one behind
_TEMPORARIES = {
    "checkpoints": re.compile(r"(update_\d+|last|best)\.pt\.tmp"),
    ".": re.compile(r"(policy\.pt|config\.yaml)\.tmp"),
}


def remove_stale_temporaries(run_dir: str | Path) -> list[Path]:
    """Delete the temporaries a killed run left in ``run_dir`` (only regular files named
    as :data:`_TEMPORARIES` says: nothing else is touched); returns those removed. Called
    when a run resumes, before it writes any."""
    removed = []
    for sub, pattern in _TEMPORARIES.items():
        folder = Path(run_dir) / sub
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if pattern.fullmatch(path.name) and path.is_file() and not path.is_symlink():
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def check_compatible(data: dict, expected: dict, path: str | Path = "checkpoint") -> None:
    """Raise CheckpointError when the file's variant info differs from ``expected``."""
    got = data["variant"]
    for key in ("name", "num_players", "obs_size", "params"):
        if got.get(key) != expected.get(key):
            what = {
                "name": "variant",
                "num_players": "number of players",
                "obs_size": "observation size",
                "params": "variant parameters",
            }[key]
            shown_got = got.get(key) if key != "params" else "(vector)"
            shown_exp = expected.get(key) if key != "params" else "(vector)"
            raise CheckpointError(
                f"checkpoint {str(path)!r} does not match this setup: its {what} is "
                f"{shown_got!r}, expected {shown_exp!r}"
            )


def policy_dict(net, variant, obs_size: int, meta: dict | None = None) -> dict:
    """The light policy file (no optimiser, no league): what PPOAgent needs."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "kind": "policy",
        "spec": net.spec(),
        "variant": variant_info(variant, obs_size),
        "model": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        "meta": dict(meta or {}),
    }


__all__ = [
    "FORMAT",
    "VERSION",
    "CheckpointError",
    "check_compatible",
    "check_policy_table",
    "describe_table",
    "load_file",
    "load_network",
    "policy_dict",
    "remove_stale_temporaries",
    "save_file",
    "variant_info",
]
