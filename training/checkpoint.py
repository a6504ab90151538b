"""Checkpoint files of training: writing policy files and training checkpoints.

The file format, and reading it, belong to the agents (:mod:`burako_env.agents.policy_file`: a
policy is an agent's, training builds on it); the names are re-exported here
(``FORMAT``, ``VERSION``, :class:`CheckpointError`, :func:`variant_info`,
:func:`describe_table`, :func:`check_policy_table`, :func:`load_file`,
:func:`load_network`), so ``burako_env.training.checkpoint`` imports keep working.

A training checkpoint is a policy file (``kind`` "train") that adds ``config``,
``optimizer``, ``progress``, ``league``, ``rng`` (torch, numpy, python and the sampling
generator), ``env`` (the games' state arrays) and ``trainer`` (the pending transitions
and per-game counters), enough to continue the run exactly (the trainer writes and loads
them: :mod:`burako_env.training.trainer_state`);
:func:`env_state` and :func:`load_env_state` convert the games' arrays.

Files are written to a temporary name and renamed, so a crash never leaves half a file
under the real name.

**Checked before use.** Everything a training checkpoint brings back is checked against
what the running code relies on before any of it is used (issue 59; docs/RELIABILITY.md,
"Checkpoints"): the weights (:func:`check_weights`: real floating point, finite, the
network's shapes), the optimiser's state (:func:`check_optimizer_state`), the progress
counters (:func:`check_progress`), the generators (:func:`check_rng_state`), the league
(:meth:`burako_env.training.league.League.check_state_dict`), the pending transitions
(:meth:`burako_env.training.transitions.Transitions.check_state_dict`,
:func:`burako_env.training.transitions.check_rollout_section`) and the games
(:func:`load_env_state`). A value out of range, a NaN or an infinity where a number is
needed, or a value of another type is a :class:`CheckpointError` naming the section and
key (``burako train --resume``: ``error: ...``, exit 2). The trainer runs the same checks
on its own state before it writes a checkpoint, so a run never writes one it could not
load again. :func:`checked_tensor`, :func:`checked_int` and :func:`checked_number` are the
checks' building blocks.
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

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
    check_weights,
    describe_table,
    load_file,
    load_network,
    variant_info,
)
from burako_env.limits import MAX_TRAIN_STEPS, MAX_TRAIN_UPDATES, MAX_WEIGHT

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


# ---------------------------------------------------------------- checks of what is read
def _shown(value) -> str:
    """``value`` for a message: its repr, cut short (a corrupted value may be huge)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def checked_tensor(
    value, where: str, dtype: torch.dtype, shape: tuple[int | None, ...]
) -> np.ndarray:
    """``value`` as a numpy array (sharing its memory) when it is a dense CPU tensor of
    ``dtype`` and ``shape`` (None: any length along that axis); else a CheckpointError
    naming ``where`` (the section and key, ``trainer.store.next``). The exact dtype is
    required: a float array copied into an int64 one was rounded silently."""
    if not isinstance(value, torch.Tensor):
        raise CheckpointError(f"{where} is {type(value).__name__}, not a tensor")
    if value.layout != torch.strided or value.is_meta or value.device.type != "cpu":
        raise CheckpointError(
            f"{where} is a {str(value.layout).replace('torch.', '')} tensor on "
            f"{value.device}, not a dense CPU tensor"
        )
    want = [("N" if s is None else s) for s in shape]
    if (
        value.dtype != dtype
        or value.dim() != len(shape)
        or any(s is not None and s != got for s, got in zip(shape, value.shape, strict=True))
    ):
        name = str(dtype).replace("torch.", "")
        raise CheckpointError(
            f"{where} is {str(value.dtype).replace('torch.', '')}{list(value.shape)}, "
            f"expected {name}{want}".replace("'", "")
        )
    return value.numpy()


def checked_int(value, where: str, low: int, high: int) -> int:
    """``value`` when it is a whole number (an int, not a bool) in ``low..high``; else a
    CheckpointError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise CheckpointError(f"{where} is {_shown(value)}, not a whole number")
    if not low <= value <= high:
        raise CheckpointError(f"{where} is {_shown(value)}, outside {low}..{high}")
    return value


def checked_number(
    value, where: str, low: float = -math.inf, high: float = math.inf, allow: tuple = ()
) -> float:
    """``value`` as a float when it is a finite number (an int or a float, not a bool) in
    ``low..high``, or one of ``allow`` (``-math.inf``: a best score not yet set); else a
    CheckpointError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CheckpointError(f"{where} is {_shown(value)}, not a number")
    # an int too large for a float is out of any range: infinity, refused below
    number = (
        value if isinstance(value, float) else (float(value) if abs(value) < 2**1000 else math.inf)
    )
    if number in allow:
        return number
    if not math.isfinite(number):
        raise CheckpointError(f"{where} is {_shown(value)}, not a finite number")
    if not low <= number <= high:
        raise CheckpointError(f"{where} is {_shown(value)}, outside {low:g}..{high:g}")
    return number


def checked_section(data, key: str, where: str = "") -> dict:
    """``data[key]`` when ``data`` is a mapping holding a mapping there; else a
    CheckpointError naming the section (``where`` + ``key``)."""
    name = f"{where}{key}"
    if not isinstance(data, dict) or key not in data:
        raise CheckpointError(f"the section {name} is missing")
    if not isinstance(data[key], dict):
        raise CheckpointError(f"{name} is {type(data[key]).__name__}, not a table")
    return data[key]


#: the largest optimiser hyperparameter (lr, eps, weight_decay; the configs' are below 1)
MAX_HYPERPARAMETER = 1000.0
#: the largest optimiser step count (Adam's ``step``: one per minibatch) a checkpoint may
#: hold: 2**53 is where float32 and float64 stop counting whole numbers exactly
MAX_OPTIMIZER_STEPS = 2**53


def check_optimizer_state(
    state, optimizer: torch.optim.Optimizer, where: str = "optimizer"
) -> None:
    """CheckpointError unless ``state`` (a checkpoint's ``optimizer`` section) is a state
    of ``optimizer``: its parameter groups with the same parameters and finite, non-negative
    hyperparameters up to MAX_HYPERPARAMETER (``lr``, ``eps``, ``betas`` in 0..1, ...),
    its flags (``amsgrad``, ``foreach``...) as this run's, and per parameter a finite
    step count and finite moments of that parameter's shape, within MAX_WEIGHT (squares:
    0..MAX_WEIGHT**2; NaN there turned every weight NaN at the first step)."""
    if not isinstance(state, dict):
        raise CheckpointError(f"{where} is {type(state).__name__}, not a table")
    ours = optimizer.state_dict()
    groups = state.get("param_groups")
    if not isinstance(groups, list) or len(groups) != len(ours["param_groups"]):
        raise CheckpointError(
            f"{where}.param_groups is {_shown(groups)}, expected a list of "
            f"{len(ours['param_groups'])} parameter groups"
        )
    for g, (group, own) in enumerate(zip(groups, ours["param_groups"], strict=True)):
        at = f"{where}.param_groups[{g}]"
        if not isinstance(group, dict):
            raise CheckpointError(f"{at} is {type(group).__name__}, not a table")
        if group.get("params") != own["params"]:
            raise CheckpointError(
                f"{at}.params is {_shown(group.get('params'))}, expected this network's "
                f"{len(own['params'])} parameters"
            )
        for key, value in group.items():
            model = own.get(key)
            name = f"{at}.{key}"
            if key == "params":
                continue
            if key in own and isinstance(model, (bool, type(None))):
                # a flag (amsgrad, foreach, fused...) is the run's: amsgrad turned on
                # wants moments the state lacks, a KeyError at the first step
                if type(value) is not type(model) or value != model:
                    raise CheckpointError(f"{name} is {_shown(value)}, this run's is {model!r}")
            elif key not in own:  # a key of another torch version: a plain setting
                if not (value is None or isinstance(value, (bool, str))):
                    checked_number(value, name, 0.0, MAX_HYPERPARAMETER)
            elif isinstance(model, (tuple, list)):  # betas
                if not isinstance(value, (tuple, list)) or len(value) != len(model):
                    raise CheckpointError(
                        f"{name} is {_shown(value)}, expected {len(model)} numbers"
                    )
                for i, item in enumerate(value):
                    checked_number(item, f"{name}[{i}]", 0.0, 1.0)
            else:  # lr, eps (a divisor: above 0), weight_decay...
                low = 1e-30 if key == "eps" else 0.0
                checked_number(value, name, low, MAX_HYPERPARAMETER)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    per_param = state.get("state")
    if not isinstance(per_param, dict):
        raise CheckpointError(f"{where}.state is {_shown(per_param)}, not a table")
    for index, entry in per_param.items():
        at = f"{where}.state[{_shown(index)}]"
        checked_int(index, f"{where}.state's parameter id", 0, len(params) - 1)
        if not isinstance(entry, dict):
            raise CheckpointError(f"{at} is {type(entry).__name__}, not a table")
        shape = tuple(params[index].shape)
        if isinstance(optimizer, torch.optim.Adam) and entry:  # Adam reads them all
            amsgrad = optimizer.param_groups[0].get("amsgrad")
            need = {"step", "exp_avg", "exp_avg_sq"} | ({"max_exp_avg_sq"} if amsgrad else set())
            if need - set(entry):
                raise CheckpointError(f"{at} lacks {sorted(need - set(entry))}")
        for key, value in entry.items():
            name = f"{at}.{key}"
            if key == "step":  # a number, or a scalar float tensor (torch 1.12 on)
                if isinstance(value, torch.Tensor):
                    if (
                        value.shape != ()
                        or value.is_meta
                        or value.layout != torch.strided
                        or value.dtype not in (torch.float32, torch.float64)
                    ):
                        raise CheckpointError(
                            f"{name} is a {str(value.dtype).replace('torch.', '')} tensor of "
                            f"shape {list(value.shape)}, expected a float scalar (a step count)"
                        )
                    value = value.item()
                checked_number(value, name, 0.0, MAX_OPTIMIZER_STEPS)
                continue
            if not isinstance(value, torch.Tensor) or value.is_meta:
                raise CheckpointError(f"{name} is {_shown(value)}, not a tensor")
            if value.layout != torch.strided or not value.is_floating_point():
                raise CheckpointError(
                    f"{name} is a {str(value.layout).replace('torch.', '')} "
                    f"{str(value.dtype).replace('torch.', '')} tensor, expected floating "
                    "point values"
                )
            if tuple(value.shape) != shape:
                raise CheckpointError(
                    f"{name} has shape {list(value.shape)}, its parameter's is {list(shape)}"
                )
            # the moments of clipped gradients stay far below these (a 1e30 moved the
            # weights past any trained size at the first step)
            low, high = (0.0, MAX_WEIGHT**2) if key.endswith("_sq") else (-MAX_WEIGHT, MAX_WEIGHT)
            if value.numel() and not bool(((value >= low) & (value <= high)).all()):
                raise CheckpointError(
                    f"{name} holds NaN, infinite or out of range values (expected "
                    f"{low:g}..{high:g})"
                )


def check_progress(progress, league_changes: int, where: str = "progress") -> None:
    """CheckpointError unless ``progress`` (a checkpoint's ``progress`` section) holds
    whole, non-negative counters within bounds (``update``, ``global_step``), a best
    score that is a win rate (or -inf: none yet), and at most the config's
    ``league_changes`` applied league changes."""
    if not isinstance(progress, dict):
        raise CheckpointError(f"{where} is {type(progress).__name__}, not a table")
    for key in ("update", "global_step", "best_score"):
        if key not in progress:
            raise CheckpointError(f"{where}.{key} is missing")
    checked_int(progress["update"], f"{where}.update", 0, MAX_TRAIN_UPDATES)
    checked_int(progress["global_step"], f"{where}.global_step", 0, MAX_TRAIN_STEPS)
    checked_number(progress["best_score"], f"{where}.best_score", 0.0, 1.0, allow=(-math.inf,))
    if not isinstance(progress.get("imitated", True), bool):
        raise CheckpointError(f"{where}.imitated is {_shown(progress['imitated'])}, not a bool")
    digests = progress.get("distill_digests", [])
    if not isinstance(digests, list) or not all(isinstance(d, str) for d in digests):
        raise CheckpointError(f"{where}.distill_digests is {_shown(digests)}, not a list of text")
    changes = progress.get("league_changes", 0)
    checked_int(changes, f"{where}.league_changes", 0, league_changes)


#: Python's ``random`` state as checkpointed: 624 words and a position (Mersenne Twister),
#: then the version (3)
_PYTHON_WORDS = 624


def check_rng_state(state, where: str = "rng") -> None:
    """CheckpointError unless ``state`` (a checkpoint's ``rng`` section) restores the
    four generators: each is tried on a throwaway generator (torch's, numpy's PCG64,
    Python's), so the run's own are untouched by a refusal."""
    if not isinstance(state, dict):
        raise CheckpointError(f"{where} is {type(state).__name__}, not a table")
    for key in ("torch", "sampling", "numpy", "python", "python_gauss"):
        if key not in state:
            raise CheckpointError(f"{where}.{key} is missing")
    size = tuple(torch.get_rng_state().shape)
    for key in ("torch", "sampling"):
        checked_tensor(state[key], f"{where}.{key}", torch.uint8, size)
        try:
            torch.Generator().set_state(state[key])
        except (RuntimeError, ValueError, TypeError) as exc:
            raise CheckpointError(f"{where}.{key} is not a generator state ({exc})") from None
    numpy_state = state["numpy"]
    inner = numpy_state.get("state") if isinstance(numpy_state, dict) else None
    if not isinstance(inner, dict) or numpy_state.get("bit_generator") != "PCG64":
        raise CheckpointError(f"{where}.numpy is {_shown(numpy_state)}, not a PCG64 state")
    for key in ("state", "inc"):
        checked_int(inner.get(key), f"{where}.numpy.state.{key}", 0, 2**128 - 1)
    checked_int(numpy_state.get("has_uint32"), f"{where}.numpy.has_uint32", 0, 1)
    checked_int(numpy_state.get("uinteger"), f"{where}.numpy.uinteger", 0, 2**32 - 1)
    try:
        np.random.PCG64().state = numpy_state
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        raise CheckpointError(f"{where}.numpy is not a PCG64 state ({exc})") from None
    words = state["python"]
    if not isinstance(words, list) or len(words) != _PYTHON_WORDS + 2:
        raise CheckpointError(
            f"{where}.python is {_shown(words)}, expected {_PYTHON_WORDS + 2} whole numbers"
        )
    for i, word in enumerate(words[:_PYTHON_WORDS]):
        checked_int(word, f"{where}.python[{i}]", 0, 2**32 - 1)
    checked_int(words[_PYTHON_WORDS], f"{where}.python[{_PYTHON_WORDS}]", 0, _PYTHON_WORDS)
    checked_int(words[-1], f"{where}.python[-1] (the version)", 3, 3)
    gauss = state["python_gauss"]
    if gauss is not None:
        checked_number(gauss, f"{where}.python_gauss")
    try:
        random.Random().setstate((words[-1], tuple(words[:-1]), gauss))
    except (ValueError, TypeError, OverflowError) as exc:
        raise CheckpointError(f"{where}.python is not a generator state ({exc})") from None


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
    "MAX_HYPERPARAMETER",
    "MAX_OPTIMIZER_STEPS",
    "CheckpointError",
    "check_compatible",
    "check_optimizer_state",
    "check_policy_table",
    "check_progress",
    "check_rng_state",
    "check_weights",
    "checked_int",
    "checked_number",
    "checked_section",
    "checked_tensor",
    "describe_table",
    "load_file",
    "load_network",
    "policy_dict",
    "remove_stale_temporaries",
    "save_file",
    "variant_info",
]
