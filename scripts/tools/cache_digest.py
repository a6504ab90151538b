"""Play seeded games through every family of compiled kernels and print one digest.

Used by the cache concurrency test (tests/core/test_numba_cache.py) and
``scripts/tools/stress_cache.py``: processes that compiled the kernels at the same time into one
cache folder, or loaded them from it, must print the digest of a single cold process. For
each variant at each player count it allows among 2, 4 and 6 (record types of three
sizes, the case that once clashed): the VectorEnv (the core's batch kernels), the AEC env
(the kernels PettingZoo's ``api_test`` drives), a greedy-vs-discard_table tournament (the
policies' compiled play) and pimc's search (its determinize and rollout kernels).

    python scripts/tools/cache_digest.py            # prints {"digest": ..., "parts": {...}}
    python scripts/tools/cache_digest.py --order 1  # the same games, 4 players first

``--order K`` starts from the K-th player count (rotated) and plays the variants from the
K-th on: the digest is the same, but processes started with different orders compile the
kernels for different record types first, which is what once made two processes' entries
clash (processes that compile the same signatures in the same order make identical code
under identical names, which is harmless).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numpy as np

from burako_env.agents import make_agent
from burako_env.agents.tournament import run_tournament
from burako_env.envs.aec import raw_env
from burako_env.envs.vector import VectorEnv
from burako_env.variants import load_variant

PLAYER_COUNTS = (2, 4, 6)
VARIANTS = ("argentine", "italian", "brazilian", "colombian")


def _vector(variant: str, players: int) -> bytes:
    env = VectorEnv(variant, players, num_envs=8, seed=3)
    obs, mask, info = env.reset()
    rng = np.random.default_rng(1)
    out = hashlib.sha256()
    for _ in range(300):
        picks = (rng.random(env.num_envs) * info["num_legal"]).astype(np.int64)
        actions = info["legal"][np.arange(env.num_envs), picks].astype(np.int64)
        obs, mask, info = env.step(actions)
        out.update(obs.tobytes())
        out.update(mask.tobytes())
        out.update(info["team_rewards"].tobytes())
    return out.digest()


def _aec(variant: str, players: int) -> bytes:
    env = raw_env(variant=variant, num_players=players)
    env.reset(seed=5)
    rng = np.random.default_rng(2)
    out = hashlib.sha256()
    for _ in range(400):
        agent = env.agent_selection
        observation, reward, terminated, truncated, _ = env.last()
        out.update(observation["observation"].tobytes())
        out.update(np.float64(reward).tobytes())
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        out.update(f"{agent}:{action}".encode())
        env.step(action)
        if not env.agents:
            break
    return out.digest()


def _tournament(variant: str, players: int) -> bytes:
    result = run_tournament(
        ["greedy", "discard_table"],
        variant,
        num_players=players,
        hands_per_pairing=4,
        seed=0,
        workers=1,
        progress=False,
    )
    pairings = [
        {k: v for k, v in pairing.items() if k != "seconds"}  # the games, not their timing
        for pairing in result.to_dict()["pairings"]
    ]
    return json.dumps([pairings, result.ratings], sort_keys=True).encode()


def _pimc(variant: str, players: int) -> bytes:
    from burako_env.core.game import Game

    agent = make_agent("pimc:k=2,budget_ms=0", seed=4)
    game = Game(variant, num_players=players, seed=9)
    chosen = []
    for _ in range(6):
        action = agent.act_game(game, 0)
        chosen.append(action)
        game.step_one(action)
    return repr(chosen).encode()


FAMILIES = {"vector": _vector, "aec": _aec, "tournament": _tournament, "pimc": _pimc}


def _rotated(items: tuple, k: int) -> tuple:
    k %= len(items)
    return items[k:] + items[:k]


def digests(order: int = 0) -> dict[str, str]:
    parts = {}
    for players in _rotated(PLAYER_COUNTS, order):
        for variant in _rotated(VARIANTS, order):
            if players not in load_variant(variant).players:
                continue
            for family, play in FAMILIES.items():
                parts[f"{variant}/{players}/{family}"] = hashlib.sha256(
                    play(variant, players)
                ).hexdigest()[:16]
    return parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--order", type=int, default=0, help="start from this player count")
    parts = digests(parser.parse_args().order)
    total = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]
    print(json.dumps({"digest": total, "parts": parts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
