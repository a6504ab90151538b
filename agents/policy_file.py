"""Policy files: reading the one torch file format of policies and training checkpoints.

This is the agents' side of the format (:class:`burako_env.agents.ppo_agent.PPOAgent` loads a policy
with it); writing files, and a training checkpoint's extra state, belong to
:mod:`burako_env.training.checkpoint`, which builds on this module.

Every file is a dict saved with ``torch.save`` (tensors, numbers, strings, lists and
dicts only, so ``torch.load(weights_only=True)`` reads it) with:

* ``format`` ("burako-ppo"), ``version``, ``kind`` ("train" or "policy");
* ``spec``: what :meth:`burako_env.agents.network.BurakoNet.from_spec` needs (player count, deck
  size, observation size, widths);
* ``variant``: name, players, observation size, action-space size, the variant's
  parameter vector and its rules by name (``rules``), so a policy is never fed
  observations of another layout nor played on another variant
  (:func:`check_policy_table`; files from before ``num_actions`` and ``rules`` were
  recorded are checked on what they hold);
* ``model``: the network's state dict.

A truncated or foreign file raises :class:`CheckpointError`.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("reading policy files (burako_env.agents.policy_file)", "torch") from exc

from burako_env.limits import MAX_NETWORK_WIDTH, MAX_WEIGHT

FORMAT = "burako-ppo"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupted, or for another setup."""


def variant_info(variant, obs_size: int) -> dict:
    from burako_env.core.constants import NUM_ACTIONS
    from burako_env.core.params import variant_params

    rules = {
        k: (list(v) if isinstance(v, tuple) else v)
        for k, v in variant.to_dict().items()
        if k not in ("name", "players")
    }
    return {
        "name": variant.name,
        "num_players": int(variant.num_players),
        "obs_size": int(obs_size),
        "num_actions": int(NUM_ACTIONS),
        "params": [int(v) for v in variant_params(variant)],
        "rules": rules,
    }


def describe_table(info: dict) -> str:
    """``italian, 4 players, 1773 actions`` from a :func:`variant_info` dict."""
    text = f"{info.get('name')}, {info.get('num_players')} players"
    if info.get("num_actions") is not None:
        text += f", {info['num_actions']} actions"
    return text


def check_policy_table(recorded: dict, variant, obs_size: int, path: str | Path) -> None:
    """Raise CheckpointError (a ValueError) naming both tables when a policy recorded for
    ``recorded`` (its file's ``variant``) is to play ``variant``."""
    now = variant_info(variant, obs_size)
    problems = []
    for key, what in (
        ("name", "variant"),
        ("num_players", "player count"),
        ("num_actions", "action-space size"),
        ("obs_size", "observation size"),
    ):
        if key in recorded and recorded[key] != now[key]:
            problems.append(f"{what} {recorded[key]!r} here {now[key]!r}")
    rules = recorded.get("rules")
    if not problems and isinstance(rules, dict):
        changed = sorted(k for k in rules if k in now["rules"] and rules[k] != now["rules"][k])
        if changed:
            shown = ", ".join(f"{k} {rules[k]!r} here {now['rules'][k]!r}" for k in changed)
            problems.append(f"rules {shown}")
    elif not problems and "params" in recorded and recorded["params"] != now["params"]:
        problems.append("variant parameters differ")
    if problems:
        raise CheckpointError(
            f"policy {str(path)!r} was trained for {describe_table(recorded)} and cannot "
            f"play {describe_table(now)} ({'; '.join(problems)}); train one for this table "
            f"or pick another agent"
        )


def load_file(path: str | Path, kind: str | None = None) -> dict:
    """Read a checkpoint; ``kind`` ("train") requires a training checkpoint."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {str(path)!r}")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except (
        RuntimeError,
        EOFError,
        OSError,
        ValueError,
        KeyError,  # a small text file: torch's legacy reader looks up a magic number
        IndexError,
        TypeError,
        AttributeError,
        UnicodeDecodeError,
        pickle.UnpicklingError,
        zipfile.BadZipFile,
    ) as exc:
        raise CheckpointError(
            f"cannot read checkpoint {str(path)!r}: the file is truncated or corrupted "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
        ) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a burako PPO checkpoint")
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"{str(path)!r} has checkpoint version {data.get('version')}, this code reads "
            f"version {VERSION}"
        )
    for key in ("kind", "spec", "variant", "model"):
        if key not in data:
            raise CheckpointError(f"{str(path)!r} lacks {key!r}: not a complete checkpoint")
    check_weights(data["model"], path)
    if kind is not None and data["kind"] != kind:
        raise CheckpointError(
            f"{str(path)!r} is a {data['kind']} file; a {kind} checkpoint is needed "
            f"(resume needs checkpoints/last.pt of a run folder)"
        )
    return data


def check_weights(model, path: str | Path) -> None:
    """CheckpointError unless every weight is a finite number of sane size: a NaN, an
    infinity or a bit-flipped exponent (1e25) loaded and played before, as a corrupted
    file should not (MAX_WEIGHT: trained weights stay far below it)."""
    if not isinstance(model, dict):
        raise CheckpointError(f"checkpoint {str(path)!r}: its model is not a table of weights")
    for name, tensor in model.items():
        if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
            continue
        if not torch.isfinite(tensor).all():
            raise CheckpointError(
                f"checkpoint {str(path)!r} is corrupted: weight {name!r} holds NaN or "
                "infinite values"
            )
        if tensor.numel() and tensor.abs().max().item() > MAX_WEIGHT:
            raise CheckpointError(
                f"checkpoint {str(path)!r} is corrupted: weight {name!r} reaches "
                f"{tensor.abs().max().item():.3g}, beyond any trained weight ({MAX_WEIGHT:g})"
            )


def load_network(path: str | Path):
    """``(network, file dict)`` from a policy file or a training checkpoint."""
    from burako_env.agents.network import BurakoNet, read_blocks
    from burako_env.core.constants import NUM_ACTIONS

    data = load_file(path)
    spec = data["spec"]
    if not isinstance(spec, dict):
        raise CheckpointError(f"checkpoint {str(path)!r}: bad network spec ({spec!r})")
    if spec.get("num_actions") != NUM_ACTIONS:
        raise CheckpointError(
            f"checkpoint {str(path)!r} was trained on an action space of "
            f"{spec.get('num_actions')} ids; this engine (rules v1) has {NUM_ACTIONS}: "
            f"retrain it for this engine"
        )
    try:
        now = read_blocks(spec["num_players"], spec["total_cards"])
    except (KeyError, ValueError, TypeError) as exc:
        raise CheckpointError(f"checkpoint {str(path)!r}: bad network spec ({exc})") from exc
    if spec.get("blocks") != now:
        changed = [
            f"{k}: {spec.get('blocks', {}).get(k)} -> {now.get(k)}"
            for k in sorted(set(now) | set(spec.get("blocks", {})))
            if spec.get("blocks", {}).get(k) != now.get(k)
        ]
        raise CheckpointError(
            f"checkpoint {str(path)!r} was trained on another observation layout "
            f"(block sizes then -> now: {', '.join(changed)}); retrain it for this engine"
        )
    for key in ("hidden", "encoder", "meld_dim"):  # a huge width allocates without end
        width = spec.get(key)
        if width is not None and not (isinstance(width, int) and 1 <= width <= MAX_NETWORK_WIDTH):
            raise CheckpointError(
                f"checkpoint {str(path)!r}: bad network spec ({key} {width!r}, at most "
                f"{MAX_NETWORK_WIDTH})"
            )
    try:
        net = BurakoNet.from_spec(spec)
        net.load_state_dict(data["model"])
    except (KeyError, RuntimeError, TypeError) as exc:
        raise CheckpointError(
            f"checkpoint {str(path)!r}: the weights do not fit the network it describes ({exc})"
        ) from exc
    net.eval()
    return net, data
