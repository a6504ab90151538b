"""Rewards from hand results, shared by every environment."""

from __future__ import annotations

import numpy as np

REWARDS = ("score", "win", "raw")
#: "score" rewards divide the score margin by this and clip to [-1, 1]: a margin of 1000
#: points is a very clear hand win in every variant
SCORE_SCALE = 1000.0


def check_reward(reward: str) -> str:
    """``reward`` if it is one of :data:`REWARDS`; ValueError listing them otherwise."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    return reward


def team_rewards(scores: np.ndarray, reward: str) -> np.ndarray:
    """Rewards of team 0 and team 1 from their points ``scores[..., 2]``.

    ``score``: (own - other) / SCORE_SCALE clipped to [-1, 1]; ``win``: +1 / -1 / 0;
    ``raw``: own - other in points.
    """
    scores = np.asarray(scores, dtype=np.float64)
    margin = scores[..., 0] - scores[..., 1]
    if reward == "score":
        r0 = np.clip(margin / SCORE_SCALE, -1.0, 1.0)
    elif reward == "win":
        r0 = np.sign(margin)
    else:
        r0 = margin
    return np.stack([r0, -r0], axis=-1)
