"""The PPO trainer's transition store (training/transitions.py): what a checkpoint saves
of it reads back into a fresh store, whatever room the legal lists took, and a
checkpoint from before hints and the oracle critic still loads."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from burako_env.core.constants import NUM_ACTIONS
from burako_env.training.transitions import Transitions

OBS_SIZE = 5


def filled_store(capacity: int = 4, legal: int = 40, oracle_size: int = 0) -> Transitions:
    """A store of ``capacity - 1`` transitions of ``legal`` legal actions each: more ids
    than the room a fresh store keeps for its lists (16 a transition)."""
    rng = np.random.default_rng(7)
    store = Transitions(capacity, OBS_SIZE, oracle_size)
    k = capacity - 1
    ids = np.stack([rng.choice(NUM_ACTIONS, legal, replace=False) for _ in range(k)])
    counts = np.full(k, legal, np.int64)
    obs = rng.integers(-3, 30, (k, OBS_SIZE)).astype(np.int16)
    oracle = rng.integers(0, 2, (k, oracle_size)).astype(np.int8) if oracle_size else None
    store.add(
        obs,
        ids.astype(np.int16),
        counts,
        pick=rng.integers(0, legal, k),
        logp=rng.normal(size=k).astype(np.float32),
        value=rng.normal(size=k).astype(np.float32),
        hint=rng.integers(-1, legal, k),
        oracle=oracle,
    )
    store.reward[:k] = [0.5, -1.0, 0.0]
    store.done[:k] = [False, False, True]
    store.next[:k] = [2, -1, -1]
    return store


def assert_same_transitions(a: Transitions, b: Transitions) -> None:
    assert a.n == b.n
    rows = np.arange(a.n)
    for name in ("obs", *Transitions.FIELDS):
        np.testing.assert_array_equal(getattr(a, name)[: a.n], getattr(b, name)[: b.n], name)
    for x, y in zip(a.lists(rows), b.lists(rows), strict=True):
        assert torch.equal(x, y)


def test_a_store_reads_back_into_a_fresh_one_though_its_lists_outgrew_the_first_room():
    store = filled_store(oracle_size=3)
    assert int(store.offsets[store.n]) > 16 * store.capacity  # the lists' room grew
    fresh = Transitions(store.capacity, OBS_SIZE, 3)
    fresh.load_state_dict(store.state_dict())
    assert_same_transitions(fresh, store)
    # and the fresh store goes on filling after what it read
    more = Transitions(store.capacity, OBS_SIZE, 3)
    more.load_state_dict(store.state_dict())
    row = more.add(
        np.zeros((1, OBS_SIZE), np.int16),
        np.arange(3, dtype=np.int16)[None],
        np.array([3]),
        pick=[1],
        logp=[0.0],
        value=[0.0],
    )
    assert row.tolist() == [store.n]
    assert more.lists(row)[0][0, :3].tolist() == [0, 1, 2]


@pytest.mark.parametrize("missing", ["hint", "oracle"])
def test_a_checkpoint_from_before_hints_or_the_oracle_loads_with_none(missing):
    store = filled_store(oracle_size=2)
    state = store.state_dict()
    del state[missing]
    fresh = Transitions(store.capacity, OBS_SIZE, 2)
    fresh.hint[:] = 5  # what an earlier use of the store left there
    fresh.oracle[:] = 1
    fresh.load_state_dict(state)
    n = store.n
    if missing == "hint":
        assert (fresh.hint[:n] == -1).all()
        np.testing.assert_array_equal(fresh.oracle[:n], store.oracle[:n])
    else:
        assert (fresh.oracle[:n] == 0).all()
        np.testing.assert_array_equal(fresh.hint[:n], store.hint[:n])
    np.testing.assert_array_equal(fresh.pick[:n], store.pick[:n])
