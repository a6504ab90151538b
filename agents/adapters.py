"""Policies that are not agents, as agents: a plain function and a Stable-Baselines3 model.

    from burako_env.agents.adapters import FunctionAgent, PredictAgent
    agent = FunctionAgent(lambda obs, mask: mask.argmax(axis=1), name="lowest")
    agent = PredictAgent(MaskablePPO.load("model.zip"))   # sb3-contrib

Both act on a batch like every agent (``act(obs int16 [B, O], mask bool [B, A]) ->
actions [B]``), so tournaments, the Gymnasium envs and :func:`burako_env.evaluate` take
them as they take the built-in agents (:func:`burako_env.evaluate` wraps a function or
a model itself). What the wrapped policy returns is checked
(:func:`~burako_env.agents.base.checked_actions`): a ValueError names the policy and
says what is wrong (a dtype or shape that is not one action id per row, an id outside
the action space); a tournament then refuses an illegal action naming it and why.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from burako_env.agents.base import Agent, checked_actions


class FunctionAgent(Agent):
    """``fn(obs, mask) -> actions`` as an agent: ``obs`` int16 [B, O], ``mask`` bool
    [B, A], one legal action id per row back (a numpy array, a list, a CPU tensor)."""

    def __init__(self, fn: Callable, name: str = "player", seed: int = 0) -> None:
        if not callable(fn):
            raise TypeError(f"FunctionAgent needs a callable (obs, mask) -> actions, got {fn!r}")
        super().__init__(seed)
        self.fn = fn
        self.name = name

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The function's actions for the batch, checked legal (a ValueError names the function)."""
        mask = np.asarray(mask, bool)
        return checked_actions(self.fn(obs, mask), len(mask), f"policy {self.name!r}")


class PredictAgent(Agent):
    """A model with Stable-Baselines3's ``predict`` (sb3-contrib's ``MaskablePPO``, or
    anything that answers ``model.predict(obs, action_masks=mask, deterministic=True)``
    with ``(actions, state)``) as an agent. ``deterministic`` (default True) plays the
    most likely action, as the learned agents play by default.

    ``transform`` turns the int16 observations into what the model reads (e.g. the
    float32 ones of ``normalize_obs=True``: :func:`burako_env.evaluate` passes the
    table's :meth:`~burako_env.envs.observation.ObservationLayout.normalize` when the
    model's observation space is float)."""

    def __init__(
        self,
        model,
        name: str | None = None,
        deterministic: bool = True,
        transform: Callable[[np.ndarray], np.ndarray] | None = None,
        seed: int = 0,
    ) -> None:
        if not callable(getattr(model, "predict", None)):
            raise TypeError(
                f"PredictAgent needs a model with predict(obs, action_masks=..., "
                f"deterministic=...), got {type(model).__name__}"
            )
        super().__init__(seed)
        self.model = model
        self.name = name or type(model).__name__
        self.deterministic = bool(deterministic)
        self.transform = transform

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The model's ``predict`` on the batch (its observations through ``transform``, if
        given), checked legal (a ValueError names the model)."""
        mask = np.asarray(mask, bool)
        x = np.asarray(obs) if self.transform is None else self.transform(np.asarray(obs))
        out = self.model.predict(x, action_masks=mask, deterministic=self.deterministic)
        actions = out[0] if isinstance(out, tuple) else out
        return checked_actions(actions, len(mask), f"model {self.name!r}")


__all__ = ["FunctionAgent", "PredictAgent"]
