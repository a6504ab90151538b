"""A trained PPO policy as an agent (``make_agent("ppo")`` or ``make_agent("ppo:PATH")``).

    from burako_env.agents.ppo_agent import PPOAgent
    agent = PPOAgent("runs/ppo-.../checkpoints/best.pt")   # or a policy file
    agent = PPOAgent.pretrained("argentine", 4)            # a shipped policy, one table
    agent = PPOAgent.shipped()                             # the shipped policy of its table
    actions = agent.act(obs, mask)                         # a batch, like every agent
    action = agent.act_one({"observation": o, "action_mask": m})   # PettingZoo

**Shipped policies** live in ``burako_env/data`` as ``ppo_<variant>_<players>p.pt``
(today one per variant, 4 players: ``ppo_argentine_4p.pt``, ``ppo_italian_4p.pt``,
``ppo_brazilian_4p.pt``, ``ppo_colombian_4p.pt``); :func:`shipped_policy` finds
the one of a table and raises a ValueError naming the table, what ships and how to train
one when none does.
``make_agent("ppo")`` is :meth:`PPOAgent.shipped`: it plays the shipped policy of the
table it is at, learnt from :meth:`~PPOAgent.check_table` (tournaments, ``burako play``,
the web table and the Gymnasium env call it before the first move), from
:meth:`~PPOAgent.act_game`'s game, or else from the observations' own variant block;
``make_agent("ppo", variant="italian", num_players=4)`` picks (or refuses) at once.

By name (``make_agent("ppo")``, ``make_agent("ppo:PATH")``, the CLI) the policy plays its
most likely legal action (``greedy=True``, the stronger play); ``greedy=False`` (the
CLI's ``--sample``) samples from its distribution over the legal actions, the noise
coming from a torch generator seeded by ``seed``. The class itself defaults to sampling,
as training's evaluations use it. The policy file records the variant, player count and
action-space size it was trained for: :meth:`PPOAgent.check_table` refuses any other
table with a ValueError naming both, and observations of another layout raise a
ValueError saying what was expected.

``agent.think(game, b)`` plays as ``act_game`` does (the same call, the same generator
draw) and returns a :class:`PolicyReport` besides: the policy's probability of every legal
action and its value estimate of the position (the web table's "how the bot thinks").

Nothing here imports ``training/``: the network (:mod:`burako_env.agents.network`) and the policy
file (:mod:`burako_env.agents.policy_file`) are the agent's; training builds on them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("the ppo agent", "torch") from exc

from burako_env.agents.base import Agent
from burako_env.agents.network import legal_lists, padded
from burako_env.agents.policy_file import check_policy_table, load_network

#: the pretrained policy of 4-player argentine (the default table)
PRETRAINED = "ppo_argentine_4p.pt"
#: a shipped policy's file name in ``burako_env/data``: ``ppo_<variant>_<players>p.pt``
SHIPPED_NAME = re.compile(r"^ppo_(?P<variant>.+)_(?P<players>\d+)p\.pt$")
#: the training config a table's policy starts from when its variant has none of its own:
#: the shipped policy's hint-free recipe (docs/TRAINING.md)
TRAIN_CONFIG = "argentine"


def shipped_dir() -> Path:
    """The folder of the shipped policies (``burako_env/data``)."""
    return Path(str(resources.files("burako_env") / "data"))


def pretrained_path() -> Path:
    """Path of the policy shipped for 4-player argentine."""
    return shipped_dir() / PRETRAINED


def shipped_policies() -> dict[tuple[str, int], Path]:
    """Every shipped policy by ``(variant, players)``, read from the file names."""
    found: dict[tuple[str, int], Path] = {}
    folder = shipped_dir()
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            match = SHIPPED_NAME.match(path.name)
            if match and path.is_file():
                found[(match["variant"], int(match["players"]))] = path
    return found


def _describe_shipped(found: dict[tuple[str, int], Path]) -> str:
    if not found:
        return f"none ({shipped_dir()} holds no ppo_<variant>_<players>p.pt)"
    return "; ".join(f"{v}, {n} players ({p.name})" for (v, n), p in sorted(found.items()))


def train_command(variant: str, num_players: int) -> str:
    """The ``burako train`` command line that trains a policy for a table: the variant's
    own shipped config (``configs/train/<variant>.yaml``) where there is one, else the
    shipped policy's recipe (:data:`TRAIN_CONFIG`) pointed at the table."""
    from burako_env.limits import read_yaml_file
    from burako_env.variants import CONFIGS_DIR

    own = CONFIGS_DIR / "train" / f"{variant}.yaml"
    if own.is_file():
        env = (read_yaml_file(own, "config file", ValueError) or {}).get("env") or {}
        own_count = env.get("num_players")
        if own_count is None:
            from burako_env.variants import load_variant

            own_count = load_variant(variant).num_players
        if int(own_count) == int(num_players):
            return f"burako train --config {variant}"
        return f"burako train --config {variant} --set env.num_players={num_players}"
    return (
        f"burako train --config {TRAIN_CONFIG} --set env.variant={variant} "
        f"--set env.num_players={num_players}"
    )


def shipped_policy(variant="argentine", num_players: int | None = None) -> Path:
    """The shipped policy file of ``variant`` (a name or a
    :class:`~burako_env.variants.Variant`) at ``num_players`` (None: the variant's own
    count). Raises ValueError naming the table asked for, the ones that ship and the
    command that trains a policy for it when none ships."""
    if isinstance(variant, str):
        name = variant
        if num_players is None:
            from burako_env.variants import load_variant

            num_players = load_variant(name).num_players
    else:
        name = variant.name
        num_players = variant.num_players if num_players is None else num_players
    found = shipped_policies()
    path = found.get((name, int(num_players)))
    if path is None:
        raise ValueError(
            f"no shipped PPO policy for {name}, {num_players} players; shipped: "
            f"{_describe_shipped(found)}. Train one with `{train_command(name, num_players)}` "
            f"and play it as ppo:runs/<run>/policy.pt (or ship it as "
            f"burako_env/data/ppo_{name}_{num_players}p.pt), or pick another agent"
        )
    return path


def _named_table(block: np.ndarray):
    """The named variant whose parameters are an observation's variant block, or None."""
    from burako_env.core.params import P_NUM_PLAYERS, variant_params
    from burako_env.variants import VARIANT_NAMES, VariantError, load_variant

    for name in VARIANT_NAMES:
        try:
            variant = load_variant(name, num_players=int(block[P_NUM_PLAYERS]))
        except VariantError:  # a player count this variant does not seat
            continue
        if np.array_equal(variant_params(variant).astype(np.int16), block.astype(np.int16)):
            return variant
    return None


@dataclass(frozen=True)
class PolicyReport:
    """One decision of :meth:`PPOAgent.think`: ``action`` played, ``value`` the value
    head's estimate for the acting player's team (in the reward the policy was trained on:
    the shipped policies learnt ``win``, +1 a hand won, -1 lost, discounted), and
    ``actions``: every legal action with the policy's probability, most likely first."""

    action: int
    value: float
    actions: tuple[tuple[int, float], ...]


class PPOAgent(Agent):
    """A :class:`burako_env.agents.network.BurakoNet` policy: loaded from a policy file or training
    checkpoint, around a live network (training), or, with ``shipped=True``
    (:meth:`shipped`), the shipped policy of whichever table it is at."""

    name = "ppo"

    def __init__(
        self,
        checkpoint_path: str | Path | None = None,
        greedy: bool = False,
        seed: int = 0,
        network=None,
        label: str | None = None,
        shipped: bool = False,
        policies: dict | None = None,
    ) -> None:
        self._generator = torch.Generator()
        super().__init__(seed)
        self.greedy = bool(greedy)
        self._live = network is not None
        self._shipped = bool(shipped)
        #: the files loaded so far by path (``policies``: a dict shared with other agents,
        #: so that a server with many games holds one copy of each file: the networks in
        #: it are in eval mode and only read, so threads may act with them at once), and
        #: in shipped mode the table bound now (its Variant and variant block)
        self._loaded: dict[str, tuple] = {} if policies is None else policies
        self._table_variant = None
        self._table_block: np.ndarray | None = None
        self.net = network
        self.info: dict = {}
        self.checkpoint_path: str | None = None
        if self._shipped:
            if network is not None or checkpoint_path is not None:
                raise ValueError("a shipped PPOAgent picks its file itself: no path or network")
        elif network is None:
            if checkpoint_path is None:
                raise ValueError(
                    "PPOAgent needs a checkpoint_path (or PPOAgent.pretrained() / shipped())"
                )
            self._use(*self._load(checkpoint_path))
        if self.net is not None:
            self.net.eval()
        if label:
            self.label = label

    @classmethod
    def pretrained(
        cls,
        greedy: bool = True,
        seed: int = 0,
        variant="argentine",
        num_players: int | None = None,
    ) -> PPOAgent:
        """The policy shipped for ``variant`` at ``num_players`` (default: 4-player
        argentine, run E of docs/TRAINING.md, which reads discard_table's choice as a
        hint), held to that table; a ValueError (:func:`shipped_policy`) when none
        ships. By default it plays its most likely legal action, the stronger play in
        every evaluation; ``greedy=False`` samples."""
        path = shipped_policy(variant, num_players)
        return cls(path, greedy=greedy, seed=seed, label="ppo")

    @classmethod
    def shipped(cls, greedy: bool = True, seed: int = 0, policies: dict | None = None) -> PPOAgent:
        """``make_agent("ppo")``: the shipped policy of the table it plays, chosen when
        it learns the table (:meth:`check_table`, :meth:`act_game`, or the variant block
        of the first observations); a table with no shipped policy raises the ValueError
        of :func:`shipped_policy`. ``policies``: a cache of loaded files shared between
        agents (see ``__init__``)."""
        return cls(greedy=greedy, seed=seed, label="ppo", shipped=True, policies=policies)

    @classmethod
    def from_network(cls, net, greedy: bool = False, seed: int = 0, label: str = "ppo"):
        """An agent around a live network (training's evaluations); shares its weights."""
        return cls(network=net, greedy=greedy, seed=seed, label=label)

    # ------------------------------------------------------------ files and tables
    def _load(self, path: str | Path) -> tuple:
        key = str(path)
        if key not in self._loaded:
            net, data = load_network(path)
            net.eval()
            # setdefault: of two threads loading one file at once, both keep the first
            self._loaded.setdefault(key, (net, data))
        return key, *self._loaded[key]

    def _use(self, path: str, net, data: dict) -> None:
        self.net = net
        self.info = {"variant": data["variant"], "meta": data.get("meta", {})}
        self.checkpoint_path = path

    def check_table(self, variant) -> None:
        """Raise ValueError (a CheckpointError) naming both tables when ``variant`` is not
        the one the policy was trained for. A shipped agent first picks the shipped file
        of ``variant`` (a ValueError naming what ships when none does) and then plays it;
        a refused table leaves the agent as it was."""
        if self._live:  # a live network of training: its trainer checks its table
            return
        from burako_env.core.constants import obs_layout

        size = obs_layout(variant.num_players, variant.total_cards).size
        if not self._shipped:
            check_policy_table(self.info["variant"], variant, size, self.checkpoint_path)
            return
        from burako_env.core.params import variant_params

        path, net, data = self._load(shipped_policy(variant))
        check_policy_table(data["variant"], variant, size, path)
        self._use(path, net, data)
        self._table_variant = variant
        self._table_block = variant_params(variant).astype(np.int16)

    def _table_of_observations(self, obs: np.ndarray) -> None:
        """Shipped mode: bind the table the rows' variant block names, unless bound."""
        from burako_env.core.constants import NUM_VARIANT_FEATURES

        if obs.ndim != 2 or obs.shape[1] <= NUM_VARIANT_FEATURES:
            raise ValueError(f"observations must be a batch [B, size]; got shape {obs.shape}")
        block = obs[:, -NUM_VARIANT_FEATURES:]
        if self._table_block is not None and (block == self._table_block).all():
            return
        if not (block == block[:1]).all():
            raise ValueError(
                "these observations come from more than one table; the shipped ppo plays "
                "one table's policy at a time: act on one table's rows per call"
            )
        variant = _named_table(block[0])
        if variant is None:
            raise ValueError(
                f"no shipped PPO policy for these observations: their rules are no named "
                f"variant's, and policies ship only for named variants "
                f"({_describe_shipped(shipped_policies())}); call check_table(variant) "
                f"to name the table, or play a policy file trained for it (ppo:PATH)"
            )
        self.check_table(variant)

    # ------------------------------------------------------------ acting
    def seed(self, seed: int) -> None:
        """Reseed the agent: its generator and torch's sampling generator (the same seed, the same
        actions)."""
        super().seed(seed)
        self._generator.manual_seed(int(seed))

    def act_game(self, game, b: int = 0) -> int:
        """The policy's action in game ``b``, after checking that a shipped policy plays its own
        table (a ValueError otherwise)."""
        if self._shipped and game.variant is not self._table_variant:
            self.check_table(game.variant)
        return super().act_game(game, b)

    def think(self, game, b: int = 0) -> PolicyReport:
        """The decision of :meth:`act_game` (the same call: the same action, the same
        generator draw) with the policy's probabilities and value estimate."""
        if self._shipped and game.variant is not self._table_variant:
            self.check_table(game.variant)
        p = int(game.current_player[b])
        obs = game.observe_one(p, b)[None]
        mask = game.legal_action_mask()[b : b + 1]
        action = int(np.asarray(self.act(obs, mask)).reshape(-1)[0])
        with torch.inference_mode():
            ids, counts = legal_lists(mask)
            legal, valid = padded(ids, counts)
            obs_t = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.int16))
            hint = self.net.hints(obs_t, legal, valid, mask)
            logits, value = self.net.forward(obs_t, legal, valid, hint)
            logits = logits.masked_fill(~valid.to(logits.device), -torch.inf)
            probs = torch.softmax(logits, dim=-1)[0].cpu().numpy()
        legal_ids = legal[0].cpu().numpy()
        keep = valid[0].cpu().numpy()
        ranked = sorted(
            ((int(a), float(q)) for a, q, ok in zip(legal_ids, probs, keep, strict=True) if ok),
            key=lambda item: (-item[1], item[0]),
        )
        return PolicyReport(action, float(value[0]), tuple(ranked))

    def kernels(self) -> tuple:
        """The compiled featurizer and legal-list kernels, and the card pooling's forward pass."""
        from burako_env.agents.network_kernels import (
            card_pool_forward,
            count_meld_rows,
            env_lists_kernel,
            featurize,
        )

        # what a tournament calls (act_lists on the games' own legal lists): the lists,
        # the network's inputs and its card encoder. Not legal_lists_kernel, which only
        # act's lists from the masks call (play, the web table): listed, it was cold on
        # every warm tournament (burako warmup compiles it with the network)
        return (
            env_lists_kernel,
            count_meld_rows,
            featurize,
            card_pool_forward,
        )

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The policy's actions for the batch (its observations checked first), through
        :meth:`act_lists` with the masks' legal lists."""
        mask = np.asarray(mask).astype(bool, copy=False)
        self._check_observations(obs)
        return self.act_lists(obs, mask, *legal_lists(mask))

    def _check_observations(self, obs) -> None:
        obs = np.asarray(obs)
        if self._shipped:
            self._table_of_observations(obs)
        if obs.ndim != 2 or obs.shape[1] != self.net.obs_size:
            raise ValueError(
                f"this policy reads observations of size {self.net.obs_size} "
                f"({self.net.num_players} players, {self.net.total_cards} cards); "
                f"got shape {obs.shape}"
            )

    @torch.inference_mode()
    def act_lists(self, obs, mask, ids, counts) -> np.ndarray:
        """:meth:`act` on the rows' legal lists as given (the tournament passes the games'
        own: rebuilding them from the masks was 8% of a ppo pairing's time)."""
        obs = np.asarray(obs)
        mask = np.asarray(mask).astype(bool, copy=False)
        self._check_observations(obs)
        if ids.shape[0] != obs.shape[0] or counts.shape != (obs.shape[0],):
            raise ValueError(f"{ids.shape[0]} legal lists for {obs.shape[0]} observations")
        legal, valid = padded(ids, counts)
        obs_t = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.int16))
        hint = self.net.hints(obs_t, legal, valid, mask)
        actions, _, _, _ = self.net.act(obs_t, legal, valid, self._generator, self.greedy, hint)
        return actions.cpu().numpy().astype(np.int64)
