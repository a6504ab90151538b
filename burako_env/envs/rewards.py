"""Rewards from hand results, shared by every environment."""

from __future__ import annotations

import numpy as np

from burako_env.core.view import Columns

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


def played_rewards(
    cols: Columns,
    done: np.ndarray,
    hands: np.ndarray,
    match_before: np.ndarray,
    reward: str,
) -> np.ndarray:
    """float64 ``[B]``: team 0's reward for the moves a batch played since its last
    reading (a table's call: the learner's move and the opponents' after it).

    ``cols`` the games' scalars now (:meth:`~burako_env.core.game.Game.columns`); ``done``
    bool ``[B]`` the games whose episode ended; ``hands`` int ``[B]`` the hands each ended
    meanwhile; ``match_before``
    ``[B, 2]`` the match scores before. ``win``: +1 / -1 / 0 by the episode's winner where
    it ended; ``score`` and ``raw``: the hand's margin where one hand ended, the margin of
    the hands together where more did (a ``max_turns`` so small that a hand passes without
    a decision of the reader's), as :func:`team_rewards` takes it. Team 1's is its
    negative."""
    r0 = np.zeros(len(done), np.float64)
    if reward == "win":
        if done.any():
            w = cols.winner[done]
            r0[done] = np.where(w < 0, 0.0, np.where(w == 0, 1.0, -1.0))
    elif hands.any():
        one = hands == 1
        scores = cols.hand_scores
        r0[one] = team_rewards(scores[one], reward)[:, 0]
        many = hands > 1
        if many.any():
            margins = cols.match_scores[many] - match_before[many]
            r0[many] = team_rewards(margins, reward)[:, 0]
    return r0
