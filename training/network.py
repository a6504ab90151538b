"""The policy-value network, re-exported: it lives in :mod:`burako_env.agents.network`.

A policy belongs to the agent that plays it (:class:`burako_env.agents.ppo_agent.PPOAgent`), so the
network and its play-time helpers sit in ``agents/``; training builds on them. This
module keeps the ``burako_env.training.network`` import path working.
"""

from __future__ import annotations

from burako_env.agents.network import (
    CARD_EMBED,
    HEAD_ROWS,
    HINT_GAIN,
    HINT_RNG_STATE,
    MASKED_LOGIT,
    MELD_ROW_FEATURES,
    NUM_CARD_FEATURES,
    NUM_OTHER_ACTIONS,
    NUM_RANKS,
    WILD_CARD_IDS,
    BurakoNet,
    hint_policy,
    layer_init,
    layout_tuple,
    legal_lists,
    meld_fits,
    num_parameters,
    padded,
    read_blocks,
    symlog,
)

__all__ = [
    "CARD_EMBED",
    "HEAD_ROWS",
    "HINT_GAIN",
    "HINT_RNG_STATE",
    "MASKED_LOGIT",
    "MELD_ROW_FEATURES",
    "NUM_CARD_FEATURES",
    "NUM_OTHER_ACTIONS",
    "NUM_RANKS",
    "WILD_CARD_IDS",
    "BurakoNet",
    "hint_policy",
    "layer_init",
    "layout_tuple",
    "legal_lists",
    "meld_fits",
    "num_parameters",
    "padded",
    "read_blocks",
    "symlog",
]
