"""Builders and checks shared by the test modules (docs/TESTING.md, "Where a module's test
lives"). A test module imports them by name (``from conftest import card, do``); no test
module imports another test module. pytest's default import mode puts this folder on
``sys.path`` (the rootdir conftest), so the import works from every test folder, under
xdist too."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from burako_env.agents import make_agent
from burako_env.cards import NUM_CARD_TYPES, parse_cards
from burako_env.core.actions import (
    add_action,
    decode_action,
    describe_action,
    discard_action,
    open_actions_for,
)
from burako_env.core.constants import (
    ERROR_MESSAGES,
    MUERTO_ABSENT,
    MUERTO_PENDING,
    MUERTO_STOCK,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    PHASE_OVER,
    S_PHASE,
)
from burako_env.core.game import Game, IllegalActionError
from burako_env.core.state import copy_state, states_equal
from burako_env.frontends.cli import app
from burako_env.referee import TeamResult
from burako_env.referee import score_hand as referee_score_hand
from burako_env.scenario import meld_cards

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------
# the core's rules: cards by name, a game's hands and melds, moves by text, scores


VARIANTS = ("argentine", "italian", "brazilian", "colombian")


def card(text: str) -> int:
    (c,) = parse_cards(text)
    return c


def cards(text: str) -> list[int]:
    return sorted(parse_cards(text))


def counts_list(counts) -> list[int]:
    return [c for c in range(NUM_CARD_TYPES) for _ in range(int(counts[c]))]


def hand(game: Game, seat: int) -> list[int]:
    """The sorted cards of a seat's hand."""
    return counts_list(game.state.hands[0, seat])


def known(game: Game, seat: int) -> list[int]:
    return counts_list(game.state.known[0, seat])


def meld(game: Game, team: int, slot: int) -> list[int]:
    return meld_cards(game.state.melds[0, team, slot])


def melds(game: Game, team: int) -> list[list[int]]:
    return [meld(game, team, i) for i in range(game.state.num_melds[0, team])]


def row(game: Game, team: int, slot: int) -> np.ndarray:
    return game.state.melds[0, team, slot]


def sc(game: Game, index: int) -> int:
    """A state scalar (S_*) of the game."""
    return int(game.state.scalars[0, index])


def pile(game: Game) -> list[int]:
    """The discard pile, bottom first (not sorted)."""
    return [int(c) for c in game.state.pile[0, : game.state.pile_len[0]]]


def stock_len(game: Game) -> int:
    return int(game.state.stock_len[0])


def muerto_status(game: Game, team: int) -> list[int]:
    return [int(s) for s in game.state.muerto_status[0, team]]


def open_action(text: str, gap: bool | None = None) -> int:
    """The opening action of exactly these cards (the lowest id when several match:
    a clean run template before a pair + wild template)."""
    found = open_actions_for(parse_cards(text))
    if gap is not None:
        found = [a for a in found if decode_action(a).wild_in_gap == gap]
    assert found, f"no opening action for {text}"
    return min(found)


def legal(game: Game) -> list[int]:
    return [int(a) for a in game.legal_actions(0)]


def do(game: Game, action: int) -> None:
    """Step one action, asserting first that the legal-action list offers it."""
    assert action in legal(game), (
        f"{describe_action(action)} should be legal: {game.why_illegal(action)}; "
        f"legal: {[describe_action(a) for a in legal(game)]}"
    )
    game.step_one(action)


def do_open(game: Game, text: str, gap: bool | None = None) -> None:
    do(game, open_action(text, gap))


def do_add(game: Game, text: str, slot: int) -> None:
    do(game, add_action(card(text), slot))


def do_discard(game: Game, text: str) -> None:
    do(game, discard_action(card(text)))


def refused(game: Game, action: int, code: int) -> None:
    """The action is illegal for ``code``: not offered, raises, and changes nothing."""
    assert game.action_error(action) == code, (
        f"{describe_action(action)}: expected {ERROR_MESSAGES[code]!r}, "
        f"got {game.why_illegal(action)!r}"
    )
    assert action not in legal(game)
    before = copy_state(game.state)
    with pytest.raises(IllegalActionError) as info:
        game.step_one(action)
    assert info.value.code == code
    assert states_equal(before, game.state)


def refresh(game: Game) -> None:
    """Recompute the legal actions after a test edits the state by hand."""
    game.refresh_legal()


def team_result(game: Game, team: int) -> TeamResult:
    """The referee's view of a finished hand for one team, read from the core's state."""
    st = game.state
    v = game.variant
    hand_cards = []
    for p in range(team, v.num_players, 2):
        hand_cards += hand(game, p)
    taken = not_taken = 0
    unplayed = []
    for m in range(v.muertos_per_team):
        status = int(st.muerto_status[0, team, m])
        if status == MUERTO_TAKEN:
            taken += 1
        elif status in (MUERTO_UNTAKEN, MUERTO_STOCK):
            not_taken += 1
        elif status == MUERTO_PENDING:
            unplayed.append([int(c) for c in st.muertos[0, team, m]])
        else:
            assert status == MUERTO_ABSENT
    return TeamResult(
        melds=melds(game, team),
        hand_cards=hand_cards,
        muertos_taken=taken,
        muertos_not_taken=not_taken,
        unplayed_muertos=unplayed,
    )


def referee_items(game: Game, went_out: int | None) -> list[list[int]]:
    """The referee's six score items of both teams for the core's finished table."""
    result = referee_score_hand(
        game.variant, [team_result(game, 0), team_result(game, 1)], went_out
    )
    return [list(result.teams[t].items.values()) for t in range(2)]


def assert_scores(game: Game, went_out: int | None, expected: list[list[int]]) -> None:
    """The hand is over; the core's items equal ``expected`` and the referee's."""
    assert sc(game, S_PHASE) == PHASE_OVER
    core = [[int(x) for x in game.score_items[0, t]] for t in range(2)]
    assert core == referee_items(game, went_out)
    assert core == expected
    assert [int(x) for x in game.hand_scores[0]] == [sum(expected[0]), sum(expected[1])]


# ------------------------------------------------------------------
# the CLI in-process (typer's CliRunner) and its error contract


runner = CliRunner()


def cli(*args: str, input: str | None = None):
    """``burako ARGS`` in this process (typer's CliRunner): the result."""
    return runner.invoke(app, [str(a) for a in args], input=input)


def assert_cli_error(result, *words: str) -> None:
    """The CLI's error contract: exit 2, ``error: ...``, no traceback, each of ``words``."""
    assert result.exit_code == 2, result.output
    assert "error:" in result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output


# ------------------------------------------------------------------
# fresh interpreters under a memory cap, and a game record line


MEMORY_CAP = 3 * 2**30  # bytes: the interpreter, numpy and numba fit with room to spare


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_python(code: str, timeout: float = 240, cap: bool = False, cwd=ROOT):
    """``code`` in a fresh interpreter running this checkout (a crash there fails the
    test, not the session); under :data:`MEMORY_CAP` with ``cap``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
        preexec_fn=_cap_memory if cap else None,
    )


def cli_capped(*args, timeout: float = 60) -> tuple[int, str]:
    """``burako ARGS`` in a fresh interpreter under :data:`MEMORY_CAP` and ``timeout``:
    the exit code and the output (a case that ate memory or time before fails the test
    there, not the session)."""
    code = f"""
        from typer.testing import CliRunner
        from burako_env.frontends.cli import app
        result = CliRunner().invoke(app, {[str(a) for a in args]!r})
        print(result.exit_code, result.output)
    """
    done = run_python(code, timeout=timeout, cap=True)
    assert done.returncode == 0, done.stderr[-2000:]
    code_text, _, output = done.stdout.partition(" ")
    return int(code_text), output


def record_line(**fields) -> str:
    """A game record line (argentine, 4 players, no moves) with ``fields`` set."""
    import json

    data = {
        "variant": "argentine",
        "num_players": 4,
        "seed": 0,
        "index": 0,
        "seats": ["a", "b", "c", "d"],
        "actions": [],
        "scores": [0, 0],
        "winner": -1,
        "version": 2,
    }
    return json.dumps({**data, **fields}) + "\n"


# ------------------------------------------------------------------
# a clear error (docs/RELIABILITY.md, "Limits on input")

#: Python's own messages: an error that reaches the user with one of these came from deep
#: inside (a missing check), not from a check that says what to fix
GENERIC_MESSAGES = (
    "invalid literal for int()",
    "unhashable type",
    "object is not iterable",
    "object is not subscriptable",
    "not supported between instances",
    "index out of range",
    "too many values to unpack",
    "not enough values to unpack",
    "could not convert string to float",
    "has no attribute",
    "got multiple values for",
    "unexpected keyword argument",
    "object cannot be interpreted as an integer",
    "cannot convert float NaN to integer",
    "Python int too large",
    "can only concatenate",
    "unsupported operand type",
    "'NoneType' object",
    "Traceback",
)


#: explanations after which a reader's own words are quoted on purpose: a binary file
#: torch cannot read is "truncated or corrupted" whatever the unpickler said
EXPLAINED = ("the file is truncated or corrupted (",)


def assert_clear(exc: BaseException, allowed=(ValueError,)) -> None:
    """``exc`` is a clear error: one of ``allowed`` (the project's errors are all
    ValueErrors), with a message, and not one of Python's generic messages."""
    if not isinstance(exc, allowed):
        raise AssertionError(f"{type(exc).__name__} from deep inside: {exc!r}") from exc
    text = str(exc)
    assert text.strip(), f"{type(exc).__name__} without a message"
    if any(words in text for words in EXPLAINED):
        return
    for generic in GENERIC_MESSAGES:
        if generic in text:
            raise AssertionError(f"unclear message ({generic!r}): {text}") from exc


# ------------------------------------------------------------------
# the search agents' shared checks (agents/test_pimc.py, agents/test_policy_search.py):
# each takes the agent's small-search name and asserts what both agents must do


def play_hand(game: Game, agents: dict, b: int = 0) -> list[int]:
    """Play the hand to its end, team ``t``'s players by ``agents[t]``: every action legal."""
    actions = []
    while not game.is_over(b):
        p = int(game.current_player[b])
        a = agents[p % 2].act_game(game, b)
        assert game.why_illegal(a, b) is None
        game.step_one(a, b)
        actions.append(a)
    return actions


def act_on_observation_alone_is_refused(small: str) -> None:
    agent = make_agent(small)
    game = Game("argentine")
    with pytest.raises(TypeError, match=r"call act_game\(game, b\)"):
        agent.act(game.observe_one(0)[None], game.legal_action_mask())


def plays_legal_and_is_seeded(small: str) -> list[dict]:
    """A whole hand against greedy, twice: every action legal; the same seed plays the
    same. The searcher's stats of each run."""
    runs, stats = [], []
    for _ in range(2):
        game = Game("argentine", num_players=4, seed=21)
        agents = {0: make_agent(small, seed=5), 1: make_agent("greedy", seed=6)}
        runs.append(play_hand(game, agents))
        stats.append(agents[0].stats())
        assert stats[-1]["searched"] > 0 and stats[-1]["rollouts"] >= 2 * stats[-1]["searched"]
    assert runs[0] == runs[1]
    return stats


def twins_get_the_same_decision(small: str) -> None:
    """The same observation with the hidden cards dealt again (a determinization of the
    game for the player to act) gets the same decision from the same seed."""
    game = Game("argentine", num_players=4, seed=4)
    greedy = make_agent("greedy")
    rng = np.random.default_rng(0)
    checked = 0
    while not game.is_over() and checked < 6:
        if game.legal_actions().size > 1 and rng.random() < 0.3:
            actor = int(game.current_player[0])
            twin = game.determinize(actor, rng)
            assert not np.array_equal(twin.state.stock, game.state.stock)
            assert np.array_equal(twin.observe_one(actor), game.observe_one(actor))
            a = make_agent(small, seed=9).act_game(game)
            b = make_agent(small, seed=9).act_game(twin)
            assert a == b
            checked += 1
        game.step_one(greedy.act_game(game))
    assert checked == 6


def search_leaves_the_game_untouched(game: Game, name: str, moves: int) -> None:
    from burako_env.core.state import states_equal

    agent = make_agent(name, seed=0)
    greedy = make_agent("greedy")
    for _ in range(moves):
        before = game.snapshot()
        a = agent.act_game(game)
        assert game.why_illegal(a) is None
        assert states_equal(game.state, before)
        game.step_one(greedy.act_game(game))


def budget_bound_decision(name: str) -> tuple[dict, Game]:
    """One decision with 3 legal actions or more (argentine, 4 players, seed 7) by the big
    search ``name`` with a 1 ms budget, which binds once: its stats and the game."""
    game = Game("argentine", num_players=4, seed=7)
    while game.legal_actions().size < 3:
        game.step_one(int(game.legal_actions()[0]))
    agent = make_agent(name, seed=0)
    agent.act_game(game)
    s = agent.stats()
    assert s["budget_hits"] == 1
    return s, game


def plays_in_tournament_and_envs(small: str, num_players: int, bots: dict) -> None:
    """``small`` plays in the tournament (stepped path), the PettingZoo env (act_in_env,
    ``bots`` by player name) and the Gymnasium env's opponents."""
    from burako_env.agents.tournament import run_tournament
    from burako_env.envs.aec import env
    from burako_env.table import act_in_env

    res = run_tournament([small, "random"], "argentine", num_players=num_players,
                         hands_per_pairing=2, progress=False, workers=1)  # fmt: skip
    p = res.pairing(small, "random")
    assert p.hands == 2 and not p.compiled

    e = env(variant="argentine", num_players=num_players)
    e.reset(seed=3)
    steps = 0
    for name in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        e.step(None if term or trunc else act_in_env(e, bots[name]))
        steps += 1
    assert steps > 10

    from burako_env.gym.single import BurakoGymEnv

    searcher = make_agent(small, seed=2)
    g = BurakoGymEnv(variant="argentine", num_players=num_players, opponents=searcher)
    obs, info = g.reset(seed=0)
    greedy = make_agent("greedy")
    done = False
    while not done:
        a = int(greedy.act(obs[None], g.action_masks()[None])[0])
        obs, r, term, trunc, info = g.step(a)
        done = term or trunc
    assert searcher.stats()["decisions"] > 0


def scripted_person_finishes(num_players: int, names: list[str]) -> list[str]:
    """``burako play``'s loop with bots ``names`` and, at seat 0, a scripted person who
    always plays the last legal action: the game finishes. The lines it printed."""
    from burako_env.frontends.play import make_bots, play_game

    game = Game("argentine", num_players=num_players, seed=1)
    bots = make_bots(game, 0, names, seed=0)
    lines: list[str] = []

    def read_move(prompt: str) -> str:
        return str(int(game.legal_actions()[-1]))

    res = play_game(game, 0, bots, read_move, lines.append)
    assert res.finished and res.reason == "over"
    return lines
