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
import struct
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
    """What a policy file records about its table: the variant's rules and name, the player count,
    the observation size and the action space, checked when the policy is loaded for a table."""
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
        struct.error,  # a pickle cut short inside a number (torch's weights-only unpickler)
        OverflowError,
        MemoryError,  # a corrupted length asks for more than there is
    ) as exc:
        raise CheckpointError(
            f"cannot read checkpoint {str(path)!r}: the file is truncated or corrupted "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
        ) from exc
    if not isinstance(data, dict) or not _plain(data.get("format")) or data.get("format") != FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a burako PPO checkpoint")
    if not _plain(data.get("version")) or data.get("version") != VERSION:
        raise CheckpointError(
            f"{str(path)!r} has checkpoint version {data.get('version')!r:.80}, this code reads "
            f"version {VERSION}"
        )
    for key in ("kind", "spec", "variant", "model"):
        if key not in data:
            raise CheckpointError(f"{str(path)!r} lacks {key!r}: not a complete checkpoint")
    # the file's description of itself is compared and formatted as plain values: a
    # tensor or another object there (a corrupted or foreign file) is refused here
    if not isinstance(data["kind"], str) or data["kind"] not in ("train", "policy"):
        raise CheckpointError(
            f"{str(path)!r}: its kind is {data['kind']!r:.80}, not train or policy"
        )
    for key in ("spec", "variant"):
        if not isinstance(data[key], dict) or not _plain(data[key]):
            raise CheckpointError(
                f"{str(path)!r} is corrupted: its {key!r} is not a mapping of plain values"
            )
    check_weights(data["model"], path)
    if kind is not None and data["kind"] != kind:
        raise CheckpointError(
            f"{str(path)!r} is a {data['kind']} file; a {kind} checkpoint is needed "
            f"(resume needs checkpoints/last.pt of a run folder)"
        )
    return data


def _plain(value, depth: int = 0) -> bool:
    """Whether ``value`` is made of None, bools, numbers, strings, lists and dicts only
    (what a checkpoint's own description holds), nested at most a few levels."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if depth > 8:
        return False
    if isinstance(value, list):
        return all(_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


#: the dtypes a weight may have: a network's parameters are real floating point numbers
#: (an integer, bool or complex tensor was cast into them silently: 2**62 or a NaN hidden
#: in an imaginary part played)
WEIGHT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def check_weights(
    model,
    path: str | Path | None,
    shapes: dict[str, tuple[int, ...]] | None = None,
    what: str = "weight",
) -> None:
    """CheckpointError unless every weight is a dense tensor of real floating point numbers
    (:data:`WEIGHT_DTYPES`), finite and of sane size: a NaN, an infinity or a bit-flipped
    exponent (1e25) loaded and played before, as a corrupted file should not (MAX_WEIGHT:
    trained weights stay far below it); so did complex, integer and bool tensors (cast
    into the network), and a meta or sparse tensor was a traceback. With ``shapes`` (name
    -> shape, the network's) the names and shapes must be those; ``what`` names the
    table in the message (``weight``, ``snapshot 'snapshot@4' weight``); with ``path``
    None the message names no file (a check of one section of a checkpoint)."""
    bad = what if path is None else f"checkpoint {str(path)!r} is corrupted: {what}"
    if not isinstance(model, dict):
        raise CheckpointError(f"{bad}s are {type(model).__name__}, not a table of weights")
    if shapes is not None and set(model) != set(shapes):
        missing = sorted(set(shapes) - set(model), key=str)
        extra = sorted(set(model) - set(shapes), key=str)
        raise CheckpointError(
            f"{bad}s do not fit the network (missing {missing[:5]!r:.200}, unexpected "
            f"{extra[:5]!r:.200})"
        )
    for name, tensor in model.items():
        if not isinstance(tensor, torch.Tensor):
            raise CheckpointError(
                f"{bad} {str(name)!r:.80} is {type(tensor).__name__}, not a tensor"
            )
        if tensor.layout != torch.strided or tensor.is_meta:
            raise CheckpointError(
                f"{bad} {str(name)!r:.80} is a {str(tensor.layout).replace('torch.', '')}"
                f"{' meta' if tensor.is_meta else ''} tensor, not a dense one holding its values"
            )
        if tensor.dtype not in WEIGHT_DTYPES:
            raise CheckpointError(
                f"{bad} {str(name)!r:.80} holds {str(tensor.dtype).replace('torch.', '')} "
                "values; weights are floating point numbers (float16, bfloat16, float32 "
                "or float64)"
            )
        if shapes is not None and tuple(tensor.shape) != tuple(shapes[name]):
            raise CheckpointError(
                f"{bad} {str(name)!r:.80} has shape {list(tensor.shape)}, the network's is "
                f"{list(shapes[name])}"
            )
        if not torch.isfinite(tensor).all():
            raise CheckpointError(f"{bad} {name!r:.80} holds NaN or infinite values")
        if tensor.numel() and tensor.abs().max().item() > MAX_WEIGHT:
            raise CheckpointError(
                f"{bad} {name!r:.80} reaches {tensor.abs().max().item():.3g}, beyond any "
                f"trained weight ({MAX_WEIGHT:g})"
            )


def load_network(path: str | Path):
    """``(network, file dict)`` from a policy file or a training checkpoint."""
    from burako_env.agents.network import BurakoNet, read_blocks
    from burako_env.core.constants import NUM_ACTIONS

    data = load_file(path)
    spec = data["spec"]  # a mapping of plain values (load_file)
    if spec.get("num_actions") != NUM_ACTIONS:
        raise CheckpointError(
            f"checkpoint {str(path)!r} was trained on an action space of "
            f"{spec.get('num_actions')} ids; this engine (rules v1) has {NUM_ACTIONS}: "
            f"retrain it for this engine"
        )
    from burako_env.variants import MAX_DECKS, MAX_PLAYERS

    for key, high in (("num_players", MAX_PLAYERS), ("total_cards", MAX_DECKS * 54)):
        value = spec.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= high:
            raise CheckpointError(
                f"checkpoint {str(path)!r}: bad network spec ({key} {value!r:.80}, 2..{high})"
            )
    try:
        now = read_blocks(spec["num_players"], spec["total_cards"])
    except (KeyError, ValueError, TypeError) as exc:
        raise CheckpointError(f"checkpoint {str(path)!r}: bad network spec ({exc})") from exc
    if spec.get("blocks") != now:
        then = spec.get("blocks") if isinstance(spec.get("blocks"), dict) else {}
        changed = [
            f"{k}: {then.get(k)} -> {now.get(k)}"
            for k in sorted(set(now) | set(then), key=str)
            if then.get(k) != now.get(k)
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
    for key, kinds in (
        ("card_features", bool),
        ("card_context", bool),
        ("card_history", bool),
        ("hint", (str, type(None))),
    ):
        if not isinstance(spec.get(key), kinds) and key in spec:
            raise CheckpointError(
                f"checkpoint {str(path)!r}: bad network spec ({key} {spec[key]!r:.80})"
            )
    try:
        net = BurakoNet.from_spec(spec)
    except (KeyError, ValueError, TypeError) as exc:  # an unknown hint policy, say
        raise CheckpointError(f"checkpoint {str(path)!r}: bad network spec ({exc})") from exc
    try:
        net.load_state_dict(data["model"])
    except (KeyError, RuntimeError, TypeError) as exc:
        raise CheckpointError(
            f"checkpoint {str(path)!r}: the weights do not fit the network it describes ({exc})"
        ) from exc
    net.eval()
    return net, data
