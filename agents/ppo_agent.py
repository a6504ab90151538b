"""A trained PPO policy as an agent (``make_agent("ppo")`` or ``make_agent("ppo:PATH")``).

    from agents.ppo_agent import PPOAgent
    agent = PPOAgent("runs/ppo-.../checkpoints/best.pt")   # or a policy file
    agent = PPOAgent.pretrained()                          # 4-player argentine, shipped
    actions = agent.act(obs, mask)                         # a batch, like every agent
    action = agent.act_one({"observation": o, "action_mask": m})   # PettingZoo

By name (``make_agent("ppo")``, ``make_agent("ppo:PATH")``, the CLI) the policy plays its
most likely legal action (``greedy=True``, the stronger play); ``greedy=False`` (the
CLI's ``--sample``) samples from its distribution over the legal actions, the noise
coming from a torch generator seeded by ``seed``. The class itself defaults to sampling,
as training's evaluations use it. The policy file records the variant, player count and
action-space size it was trained for: :meth:`PPOAgent.check_table` refuses any other
table with a ValueError naming both (tournaments, ``burako play`` and the Gymnasium env
call it), and observations of another layout raise a ValueError saying what was expected.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import torch

from agents.base import Agent

PRETRAINED = "ppo_argentine_4p.pt"


def pretrained_path() -> Path:
    """Path of the policy shipped in ``burako_env/data``."""
    return Path(str(resources.files("burako_env") / "data" / PRETRAINED))


class PPOAgent(Agent):
    """A :class:`training.network.BurakoNet` policy loaded from a checkpoint file."""

    name = "ppo"

    def __init__(
        self,
        checkpoint_path: str | Path | None = None,
        greedy: bool = False,
        seed: int = 0,
        network=None,
        label: str | None = None,
    ) -> None:
        from training.checkpoint import load_network

        self._generator = torch.Generator()
        super().__init__(seed)
        self.greedy = bool(greedy)
        if network is not None:
            self.net = network
            self.info: dict = {}
        else:
            if checkpoint_path is None:
                raise ValueError("PPOAgent needs a checkpoint_path (or PPOAgent.pretrained())")
            self.net, data = load_network(checkpoint_path)
            self.info = {"variant": data["variant"], "meta": data.get("meta", {})}
            self.checkpoint_path = str(checkpoint_path)
        self.net.eval()
        if label:
            self.label = label

    @classmethod
    def pretrained(cls, greedy: bool = True, seed: int = 0) -> PPOAgent:
        """The shipped 4-player argentine policy for rules v1 (docs/TRAINING.md, run E; it
        reads discard_table's choice as a hint). By default it plays its most likely legal
        action, the stronger play in every evaluation; ``greedy=False`` samples."""
        path = pretrained_path()
        if not path.is_file():
            raise FileNotFoundError(f"the pretrained policy is missing: {path}")
        return cls(path, greedy=greedy, seed=seed, label="ppo")

    @classmethod
    def from_network(cls, net, greedy: bool = False, seed: int = 0, label: str = "ppo"):
        """An agent around a live network (training's evaluations); shares its weights."""
        return cls(network=net, greedy=greedy, seed=seed, label=label)

    def check_table(self, variant) -> None:
        """Raise ValueError (a CheckpointError) naming both tables when ``variant`` is not
        the one the policy was trained for."""
        if not self.info:  # a live network of training: its trainer checks its table
            return
        from burako_env.core.constants import obs_layout
        from training.checkpoint import check_policy_table

        size = obs_layout(variant.num_players, variant.total_cards).size
        check_policy_table(self.info["variant"], variant, size, self.checkpoint_path)

    def seed(self, seed: int) -> None:
        super().seed(seed)
        self._generator.manual_seed(int(seed))

    @torch.inference_mode()
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        from training.network import legal_lists, padded

        obs = np.asarray(obs)
        mask = np.asarray(mask).astype(bool, copy=False)
        if obs.ndim != 2 or obs.shape[1] != self.net.obs_size:
            raise ValueError(
                f"this policy reads observations of size {self.net.obs_size} "
                f"({self.net.num_players} players, {self.net.total_cards} cards); "
                f"got shape {obs.shape}"
            )
        ids, counts = legal_lists(mask)
        legal, valid = padded(ids, counts)
        obs_t = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.int16))
        hint = self.net.hints(obs_t, legal, valid, mask)
        actions, _, _, _ = self.net.act(obs_t, legal, valid, self._generator, self.greedy, hint)
        return actions.numpy().astype(np.int64)
