"""The ``pimc`` search agent (agents/pimc.py): names and settings, legal and seeded play,
no use of hidden information beyond determinizations, and every place an agent plays."""

from __future__ import annotations

import re

import pytest
from conftest import (
    act_on_observation_alone_is_refused,
    budget_bound_decision,
    play_hand,
    plays_in_tournament_and_envs,
    plays_legal_and_is_seeded,
    scripted_person_finishes,
    search_leaves_the_game_untouched,
    twins_get_the_same_decision,
)

from burako_env.agents import agent_names, make_agent
from burako_env.agents.pimc import DEFAULTS, PIMCAgent, halving_schedule
from burako_env.core.game import Game

#: small searches keep the tests fast; budget_ms=0 keeps them machine-independent
SMALL = "pimc:k=2,budget_ms=0"


# ---------------------------------------------------------------- names
def test_names_and_settings():
    assert "pimc" in agent_names() and "pimc:..." in agent_names()
    agent = make_agent("pimc")
    assert isinstance(agent, PIMCAgent) and agent.name == "pimc"
    assert (agent.k, agent.rollout, agent.candidates) == (
        DEFAULTS["k"],
        DEFAULTS["rollout"],
        DEFAULTS["candidates"],
    )
    agent = make_agent("pimc:k=128,rollout=greedy")
    assert (agent.k, agent.rollout) == (128, "greedy")
    assert agent.name == "pimc:k=128,rollout=greedy"
    agent = make_agent("pimc:objective=win,candidates=all,budget_ms=0,threads=2")
    assert (agent.objective, agent.candidates, agent.budget_ms, agent.threads) == (
        "win",
        "all",
        0,
        2,
    )
    assert make_agent("pimc", k=4).k == 4


@pytest.mark.parametrize(
    "name, message",
    [
        ("pimc:k=0", r"pimc: k must be a whole number >= 1, got '0'"),
        ("pimc:k=lots", r"pimc: k must be a whole number >= 1, got 'lots'"),
        ("pimc:k=2.5", r"pimc: k must be a whole number >= 1, got '2.5'"),
        ("pimc:budget_ms=-1", r"pimc: budget_ms must be a whole number >= 0"),
        ("pimc:depth=3", r"pimc: unknown setting 'depth'; settings: k, rollout"),
        ("pimc:k", r"pimc: setting 'k' needs the form key=value"),
        ("pimc:rollout=ppo", r"pimc: rollout must be one of random, greedy, discard_table"),
        ("pimc:objective=score", r"pimc: objective must be one of margin, win"),
        ("pimc:candidates=best", r"pimc: candidates must be one of all, halving"),
        ("pimc:k=2,k=3", r"pimc: setting 'k' given twice"),
    ],
)
def test_bad_names_say_what_to_fix(name, message):
    with pytest.raises(ValueError, match=message):
        make_agent(name)


def test_setting_in_name_and_keyword_clash():
    with pytest.raises(ValueError, match="k given both in the name and as keywords"):
        make_agent("pimc:k=3", k=4)


def test_act_on_observation_alone_is_refused():
    act_on_observation_alone_is_refused(SMALL)


def test_halving_schedule():
    assert halving_schedule(2, 16) == [(2, 16)]
    assert halving_schedule(1, 16) == [(1, 16)]
    sched = halving_schedule(20, 8)
    assert [keep for keep, _ in sched] == [20, 10, 5, 3, 2]
    # about the rollouts of plain PIMC, never more
    assert sum(keep * k for keep, k in sched) <= 20 * 8
    assert sum(keep * k for keep, k in sched) >= 20 * 8 * 0.8
    assert all(k >= 1 for _, k in sched)


# ---------------------------------------------------------------- play
def test_plays_legal_and_is_seeded():
    """A whole hand against greedy: every action legal; the same seed plays the same."""
    plays_legal_and_is_seeded(SMALL)


@pytest.mark.parametrize("settings", ["rollout=greedy,objective=win", "candidates=all,z=0"])
def test_other_settings_play_legal(settings):
    game = Game("brazilian", num_players=4, seed=2)
    agents = {0: make_agent(f"{SMALL},{settings}", seed=1), 1: make_agent("discard_table")}
    play_hand(game, agents)


def test_sees_hidden_cards_only_through_determinizations():
    """Two games the searcher cannot tell apart (one a determinization of the other for
    it) get the same decision from the same seed."""
    twins_get_the_same_decision(SMALL)


def test_search_leaves_the_game_untouched():
    search_leaves_the_game_untouched(
        Game("colombian", num_players=6, seed=3), "pimc:k=3,budget_ms=0,candidates=all", 40
    )


def test_budget_bounds_the_decision():
    """budget_ms stops the search after the round that passes it: a big search with a
    1 ms budget does one round per decision, and says how often the budget bound."""
    s, game = budget_bound_decision("pimc:k=4096,budget_ms=1,candidates=all")
    assert s["rollouts"] < 4096 * game.legal_actions().size


def test_the_cpu_time_statistic_is_the_searches_own():
    """``cpu_seconds`` (``cpu_ms_per_decision``: what the evaluation logs as the search's
    cost on a shared machine) counts the process's CPU time inside the decisions only:
    never more than the CPU time the calls took, and some of it for searched decisions."""
    import time

    agent = make_agent(SMALL, seed=1)
    game = Game("argentine", num_players=2, seed=4)
    spent = 0.0
    for _ in range(6):
        c0 = time.process_time()
        game.step_one(agent.act_game(game))
        spent += time.process_time() - c0
    s = agent.stats()
    assert s["decisions"] == 6 and s["searched"] > 0
    assert 0.0 < s["cpu_seconds"] <= spent
    assert s["cpu_ms_per_decision"] == pytest.approx(1000 * s["cpu_seconds"] / 6)


def test_tournament_and_envs():
    """pimc plays in the tournament (stepped path), the PettingZoo env (act_in_env) and
    the Gymnasium env's opponents."""
    bots = {"player_0": make_agent(SMALL, seed=1), "player_1": make_agent("greedy")}
    plays_in_tournament_and_envs(SMALL, 2, bots)


def test_burako_play_against_pimc():
    """``burako play`` seats pimc bots: a scripted person who always draws and discards
    the first card finishes the game."""
    lines = scripted_person_finishes(2, [SMALL])
    assert any("pimc" in line for line in lines)


def test_cli_bot_names_with_settings():
    """``--bots`` splits on commas but keeps a pimc name's settings together; ``burako
    play`` seats pimc bots at a 4-player table (the person at seat 1 quits at once)."""
    from typer.testing import CliRunner

    from burako_env.frontends.cli import app
    from burako_env.frontends.commands.play import split_bot_names

    assert split_bot_names("pimc:k=16,rollout=greedy,greedy") == [
        "pimc:k=16,rollout=greedy",
        "greedy",
    ]
    assert split_bot_names("random, pimc") == ["random", "pimc"]
    bots = "pimc:k=2,budget_ms=0,greedy,pimc:k=2,budget_ms=0"
    res = CliRunner().invoke(app, ["play", "--seat", "1", "--bots", bots], input="quit\n")
    assert res.exit_code == 0, res.output
    assert "P0 (pimc:k=2,budget_ms=0):" in res.output and "You left the game." in res.output
    res = CliRunner().invoke(app, ["play", "--bots", "pimc:k=0"], input="quit\n")
    assert (
        res.exit_code == 2 and "error:" in res.output and "k must be a whole number" in (res.output)
    )


# ---------------------------------------------------------------- the evaluation's log
def _eval_script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "tools" / "eval_pimc.py"
    spec = importlib.util.spec_from_file_location("eval_pimc", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_evaluation_log_pools_its_chunks(tmp_path):
    """scripts/tools/eval_pimc.py keeps docs/STRATEGIES.md's evaluation in chunks: the pooled row
    sums the counts and weights the margins and times by hands and decisions."""
    import json

    script = _eval_script()

    def chunk(seed, wins, losses, ties, margin, ms, decisions, opponent="greedy"):
        hands = wins + losses + ties
        return dict(
            agent_spec="pimc:budget_ms=0", opponent_spec=opponent, variant="argentine",
            players=4, seed=seed, agent="pimc", opponent=opponent, hands=hands, wins=wins,
            losses=losses, ties=ties, win_rate=(wins + 0.5 * ties) / hands, ci=[0, 1],
            margin=margin, margin_ci95=10.0, decisions=decisions, searched=decisions // 2,
            deviations=1, budget_hits=0, ms_per_decision=ms, ms_per_searched=2 * ms,
            cpu_ms_per_decision=ms, max_ms=3 * ms, decisions_per_s=1000.0 / ms, wall_s=1.0,
        )  # fmt: skip

    log = tmp_path / "chunks.jsonl"
    rows = [chunk(1, 150, 48, 2, 300.0, 50.0, 1000), chunk(2, 100, 100, 0, 0.0, 60.0, 3000)]
    rows.append(chunk(1, 130, 70, 0, 100.0, 40.0, 900, opponent="discard_table"))
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    runs = script.read_log(str(log))
    assert sorted(k[1] for k in runs) == ["discard_table", "greedy"]
    pooled = script.pool(runs[("pimc:budget_ms=0", "greedy", "argentine", 4)])
    assert (pooled["hands"], pooled["wins"], pooled["losses"], pooled["ties"]) == (400, 250, 148, 2)
    assert pooled["win_rate"] == pytest.approx(251 / 400)
    assert pooled["margin"] == pytest.approx(150.0)
    assert pooled["cpu_ms_per_decision"] == pytest.approx((50 * 1000 + 60 * 3000) / 4000)
    table = script.report(str(log))
    assert "| `pimc:budget_ms=0` | greedy (argentine 4p) | 400 | 250-148-2 | 0.627 |" in table
    assert "| discard_table (argentine 4p) | 200 | 130-70-0 | 0.650 |" in table


@pytest.mark.parametrize(
    "agent, message",
    [
        ("ppo", r"--agent must be a search agent .* give the search as --agent and 'ppo' as"),
        ("pimc:k=0", r"--agent: pimc: k must be a whole number >= 1"),
    ],
)
def test_the_evaluation_refuses_an_agent_it_cannot_report(agent, message, monkeypatch, capsys):
    """The rows are a search's counts: a policy as --agent is refused up front, saying to
    give it as an opponent (it used to fail after its first chunk with an AttributeError),
    and a bad search name is named."""
    script = _eval_script()
    monkeypatch.setattr("sys.argv", ["eval_pimc.py", "--agent", agent, "--opponents", "random"])
    with pytest.raises(SystemExit) as exit_:
        script.main()
    assert exit_.value.code == 2
    assert re.search(message, capsys.readouterr().err.replace("\n", " "))


def test_the_evaluation_counts_only_its_timed_hands():
    """scripts/tools/eval_pimc.py plays one deal before the clock so that no compile lands in the
    first chunk's times: the row it reports is the pairing a fresh pair of agents plays on
    the same seed, decision for decision (the warm-up neither counts nor moves the RNGs)."""
    from burako_env.agents.tournament import run_tournament

    script = _eval_script()
    spec, seed = "pimc:k=2,budget_ms=0", 11
    row = script.evaluate(spec, "random", 2, seed, "argentine", 4)
    agent, other = make_agent(spec, seed=seed), make_agent("random", seed=seed + 1)
    res = run_tournament(
        [agent, other], "argentine", num_players=4, hands_per_pairing=2, seed=seed,
        workers=1, progress=False,
    )  # fmt: skip
    pairing = res.pairings[0]
    assert (row["wins"], row["losses"], row["ties"]) == (
        pairing.wins, pairing.losses, pairing.ties,
    )  # fmt: skip
    assert row["margin"] == pytest.approx(pairing.mean_margin)
    assert row["decisions"] == agent.stats()["decisions"] > 0
