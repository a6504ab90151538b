"""Golden games: a digest of every caller that seats agents at a table, for fixed seeds.

Each caller that plays agents against each other (the tournament, the single and the
vector Gymnasium env, the web table's bots, PettingZoo's ``act_in_env``, the search
agents pimc and ppo_search) plays a few games here, and the test compares a digest of
everything they produced (actions, scores, observations, rewards) with the one the
same games gave when it was written (before the table package: burako_env/table/).
A change of these games, through any caller, fails here: a refactor of who sits where
must leave them bit-identical, and a change meant to alter play updates the digests in
the same commit as its env version bump. ``python tests/table/test_golden_play.py`` prints
the current digests.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np
import pytest


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(str(part.dtype).encode())
            h.update(np.ascontiguousarray(part).tobytes())
        else:
            h.update(repr(part).encode())
    return h.hexdigest()[:16]


def tournament_digest(tmp_path) -> str:
    """A round robin with a Python agent (ppo) among the compiled ones, records saved."""
    from burako_env.agents.tournament import run_tournament

    path = tmp_path / "games.jsonl"
    res = run_tournament(
        ["random", "greedy", "discard_table", "ppo"],
        "argentine",
        hands_per_pairing=6,
        seed=11,
        workers=1,
        save_games=path,
        progress=False,
        chunk_deals=2,
    )
    import json

    records = [json.loads(line) for line in path.read_text().splitlines()]
    games = [(r["seats"], r["actions"], r["scores"], r["winner"]) for r in records]
    rows = [(p.a, p.b, p.wins, p.losses, p.ties) for p in res.pairings]
    rates = [round(p.win_rate, 12) for p in res.pairings]
    return _digest(games, rows, rates)


def stepped_tournament_digest() -> str:
    """The stepped path (``compiled=False``) of a pairing with a Python agent."""
    from burako_env.agents.tournament import run_tournament

    res = run_tournament(
        ["discard_table", "ppo"],
        "italian",
        hands_per_pairing=4,
        seed=5,
        workers=1,
        progress=False,
        compiled=False,
    )
    return _digest([(round(p.win_rate, 12), round(p.mean_margin, 9)) for p in res.pairings])


def _learner_steps(env, steps: int, seed: int, vector: bool):
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = [obs, info.get("seat")]
    for _ in range(steps):
        if vector:
            mask = info["action_mask"]
            u = rng.random(mask.shape)
            action = np.argmax(np.where(mask, u, -1.0), axis=1)
        else:
            legal = env.unwrapped.legal_actions()
            action = int(legal[rng.integers(len(legal))])
        obs, reward, terminated, truncated, info = env.step(action)
        out += [obs, np.asarray(reward, np.float64), np.asarray(terminated), info.get("seat")]
        if not vector and terminated:
            obs, info = env.reset()
            out += [obs]
    return out


def gym_env_digest() -> str:
    """200 learner steps of the single env against a Python and two compiled opponents."""
    import gymnasium

    import burako_env  # noqa: F401  (registers the ids)

    env = gymnasium.make("Burako-v1", opponents=["ppo", "discard_table", "greedy"])
    return _digest(*_learner_steps(env, 200, 3, vector=False))


def gym_team_digest() -> str:
    """200 steps of the single env, the learner's team against random opponents."""
    import gymnasium

    import burako_env  # noqa: F401

    env = gymnasium.make("Burako-v1", control="team", seat="random", variant="brazilian")
    return _digest(*_learner_steps(env, 200, 4, vector=False))


def gym_vector_digest() -> str:
    """200 steps of 6 vector games with a Python opponent (ppo) and compiled ones."""
    import gymnasium

    import burako_env  # noqa: F401

    envs = gymnasium.make_vec(
        "burako_env:Burako-v1",
        num_envs=6,
        vectorization_mode="vector_entry_point",
        opponents=["ppo", "discard_table", "random"],
        seat="random",
    )
    return _digest(*_learner_steps(envs, 200, 5, vector=True))


def gym_vector_compiled_digest() -> str:
    """200 steps of 8 vector games, every opponent compiled, team control, match episodes."""
    import gymnasium

    import burako_env  # noqa: F401

    envs = gymnasium.make_vec(
        "burako_env:Burako-v1",
        num_envs=8,
        vectorization_mode="vector_entry_point",
        opponents="greedy",
        control="team",
        episode="match",
        variant="colombian",
    )
    return _digest(*_learner_steps(envs, 200, 6, vector=True))


def web_digest() -> str:
    """A web table's game to its end: the bots (Easy, Normal, Hard) and a person who
    plays the first legal move."""
    from burako_env.frontends.web.sessions import PlaySession

    session = PlaySession.new(
        {
            "variant": "argentine",
            "players": 4,
            "seat": 0,
            "seed": 21,
            "bots": ["ppo", "greedy", "discard_table"],
        }
    )
    game = session.game
    for _ in range(3000):
        if game.is_over():
            break
        if session.to_act == session.seat:
            session._record_move(session.seat, int(game.legal_actions(0)[0]))
        else:
            session.bot_move()
    return _digest(session.actions, game.state.scalars.copy())


def aec_digest() -> str:
    """PettingZoo's loop with ``act_in_env``: pimc, ppo, greedy and discard_table seated."""
    from burako_env.agents import make_agent
    from burako_env.envs.aec import env
    from burako_env.table import act_in_env

    e = env(variant="argentine", num_players=4)
    e.reset(seed=8)
    bots = {
        "player_0": make_agent("pimc:k=4,budget_ms=0", seed=1),
        "player_1": make_agent("ppo", seed=2),
        "player_2": make_agent("greedy", seed=3),
        "player_3": make_agent("discard_table", seed=4),
    }
    actions = []
    for name in e.agent_iter(max_iter=400):
        obs, reward, term, trunc, info = e.last()
        a = None if term or trunc else act_in_env(e, bots[name])
        actions.append(a)
        e.step(a)
    return _digest(actions)


def search_digest() -> str:
    """pimc's and ppo_search's decisions at positions of a seeded game."""
    from burako_env.agents import make_agent
    from burako_env.core.game import Game

    game = Game("argentine", num_players=4, seed=13)
    pimc = make_agent("pimc:k=6,budget_ms=0", seed=1)
    search = make_agent("ppo_search:k=4,budget_ms=0", seed=2)
    greedy = make_agent("greedy", seed=3)
    moves = []
    for step in range(60):
        if game.is_over():
            break
        if step % 7 == 0:
            moves.append((pimc.act_game(game, 0), search.act_game(game, 0)))
        game.step(np.array([greedy.act_game(game, 0)]))
    return _digest(moves)


CALLERS = {
    "tournament": tournament_digest,
    "stepped_tournament": stepped_tournament_digest,
    "gym_env": gym_env_digest,
    "gym_team": gym_team_digest,
    "gym_vector": gym_vector_digest,
    "gym_vector_compiled": gym_vector_compiled_digest,
    "web": web_digest,
    "aec": aec_digest,
    "search": search_digest,
}

#: the digests the games gave when this test was written (see the module doc)
GOLDEN: dict[str, str] = {
    "aec": "c8071f79074bc741",
    "gym_env": "37fd3b83e2c15425",
    "gym_team": "4a9dfcb774fecd81",
    "gym_vector": "1ff12d7a273a9e61",
    "gym_vector_compiled": "a84f2010b785b11f",
    "search": "26a20eadb4320731",
    "stepped_tournament": "a229ffdf30c6a425",
    "tournament": "242158c6d4f01cc7",
    "web": "7d95e2be9652ea97",
}


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_golden_games(caller, tmp_path):
    fn = CALLERS[caller]
    got = fn(tmp_path) if caller == "tournament" else fn()
    assert got == GOLDEN[caller], f"{caller}: the games changed ({got} != {GOLDEN[caller]})"


if __name__ == "__main__":
    import tempfile
    from pathlib import Path

    which = sys.argv[1:] or sorted(CALLERS)
    for name in which:
        with tempfile.TemporaryDirectory() as d:
            fn = CALLERS[name]
            print(f'    "{name}": "{fn(Path(d)) if name == "tournament" else fn()}",', flush=True)
