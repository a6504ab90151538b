"""``burako leaderboard`` and ``burako_env.leaderboard.run``: a tiny budget end to end
(the same seed, the same JSON but its timings; the CLI and the Python call agree), an
added agent through ``burako_env.evaluate``, the per-pairing cache (a rerun plays no
pairing again), the decisions counted, and bad input refused with ``error: ...`` (exit 2)
before anything is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import burako_env
from burako_env.agents import tournament as tournament_module
from burako_env.agents.base import Agent
from burako_env.frontends.cli import app
from burako_env.leaderboard import (
    TIMING_FIELDS,
    WARM_UP_HANDS,
    cache_path,
    exploit_text,
    parse_add,
    read_cache,
    read_exploit,
)

runner = CliRunner()
#: a tiny budget: one builtin besides the pool, two deals per pairing (one for searches)
TINY = ["--agent", "discard_table:cautious", "--hands", "4", "--search-hands", "2"]
TINY_KW = {"builtins": ["discard_table:cautious"], "hands": 4, "search_hands": 2}


class Lowest(Agent):
    """The lowest legal action id: a Python agent of the user's own."""

    name = "lowest"

    def act(self, obs, mask):
        return np.argmax(mask, axis=1)


def cli(folder: Path, *args: str):
    """``burako leaderboard ARGS`` run in ``folder``, its outputs named relative to it
    (the command they record names them); the paths of the JSON and the Markdown."""
    folder.mkdir(parents=True, exist_ok=True)
    here = os.getcwd()
    os.chdir(folder)
    try:
        result = runner.invoke(
            app, ["leaderboard", *args, "--out", "lb.json", "--markdown", "LB.md", "--no-progress"]
        )
    finally:
        os.chdir(here)
    return result, folder / "lb.json", folder / "LB.md"


def without_timings(value):
    """``value`` with every timing field (TIMING_FIELDS) dropped, at any depth."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMING_FIELDS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


@pytest.fixture
def spy(monkeypatch):
    """Every run_tournament call (evaluate's, the warm-ups' too): its agents and hands."""
    calls = []
    real = tournament_module.run_tournament

    def counting(agents, *args, **kwargs):
        calls.append((agents, kwargs.get("hands_per_pairing"), kwargs.get("ray")))
        kwargs["ray"] = False  # the games, here: the test is of what is asked
        return real(agents, *args, **kwargs)

    monkeypatch.setattr(tournament_module, "run_tournament", counting)
    return calls


def played(calls) -> list:
    """The pairings among the calls, not the warm-ups (the tests' budgets are larger)."""
    return [c for c in calls if c[1] != WARM_UP_HANDS]


def test_cli_makes_the_folders_of_its_outputs(tmp_path):
    """--out and --markdown in folders that do not exist yet, two levels down."""
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = runner.invoke(
            app,
            ["leaderboard", *TINY, "--no-progress"]
            + ["--out", "runs/a/lb.json", "--markdown", "pages/b/LB.md"],
        )
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "runs/a/lb.json").read_text())["variants"]
    assert (tmp_path / "pages/b/LB.md").read_text().startswith("#")


def test_cli_end_to_end_is_deterministic(tmp_path):
    first, out1, md1 = cli(tmp_path / "a", *TINY)
    assert first.exit_code == 0, first.output
    second, out2, _ = cli(tmp_path / "b", *TINY)
    assert second.exit_code == 0, second.output
    one, two = json.loads(out1.read_text()), json.loads(out2.read_text())
    assert without_timings(one) == without_timings(two)
    assert one["variants"][0]["variant"] == "argentine" and one["seed"] == 0
    board = one["variants"][0]
    names = [row["name"] for row in board["agents"]]
    assert sorted(names) == ["discard_table", "discard_table:cautious", "greedy", "random"]
    elos = [row["elo"] for row in board["agents"]]
    assert elos == sorted(elos, reverse=True)
    # the pool meets itself once, the other agent meets the whole pool: 3 + 3 pairings
    assert len(board["pairings"]) == 6
    for row in board["agents"]:
        assert row["hands"] == 4 and row["decisions"] > 0 and row["cpu_ms_per_decision"] > 0
        assert set(row["vs"]) == {"random", "greedy", "discard_table"} - {row["name"]}
        for cell in row["vs"].values():
            assert cell["ci_low"] <= cell["win_rate"] <= cell["ci_high"]
    cautious = next(r for r in board["agents"] if r["name"] == "discard_table:cautious")
    # a cell from the other side is the same pairing flipped
    greedy = next(r for r in board["agents"] if r["name"] == "greedy")
    assert (
        greedy["vs"]["random"]["wins"]
        == next(r for r in board["agents"] if r["name"] == "random")["vs"]["greedy"]["losses"]
    )
    assert cautious["vs"]["random"]["hands"] == 4
    assert one["command"] == (
        "burako leaderboard --hands 4 --search-hands 2 --agent discard_table:cautious "
        "--out lb.json --markdown LB.md"
    )
    text = " ".join(md1.read_text().split())  # the page's paragraphs are wrapped
    assert one["command"] in text and "4 hands per pairing" in text and "seed 0" in text
    assert "CPU ms / decision" in text and "| `discard_table:cautious` |" in text
    assert "A reduced budget" in text and "--add mine=ppo:PATH" in text
    assert f"{one['machine']['cpus']} CPUs" in text
    assert cache_path(out1).is_file()


def test_python_call_is_the_cli(tmp_path):
    result, out, _ = cli(tmp_path, *TINY)
    assert result.exit_code == 0, result.output
    board = burako_env.leaderboard.run(**TINY_KW)
    ours = without_timings(board.to_dict())
    theirs = without_timings(json.loads(out.read_text()))
    assert ours["variants"] == theirs["variants"]
    assert ours["command"].startswith("burako_env.leaderboard.run(")
    assert board.markdown().startswith("# Leaderboard")


def test_an_added_agent_plays_through_evaluate(tmp_path, spy):
    board = burako_env.leaderboard.run(
        builtins=[], add={"mine": Lowest(), "thrifty": "discard_table:thrifty"}, hands=4
    )
    rows = {row["name"]: row for row in board.boards[0].agents}
    assert set(rows) == {"random", "greedy", "discard_table", "mine", "thrifty"}
    assert rows["mine"]["added"] and not rows["random"]["added"]
    assert rows["thrifty"]["player"] == "discard_table:thrifty"
    # its cell is burako_env.evaluate's pairing, game for game
    res = burako_env.evaluate(Lowest(), ["greedy"], hands=4)
    cell, p = rows["mine"]["vs"]["greedy"], res.pairings[0]
    assert (cell["wins"], cell["losses"], cell["ties"]) == (p.wins, p.losses, p.ties)
    assert cell["mean_margin"] == p.mean_margin
    assert any(isinstance(c[0][0], Lowest) for c in played(spy))
    # a pool agent's cost is of its games against the pool: not billed the added agents'
    pool = {"random", "greedy", "discard_table"}
    among_pool = [
        p
        for p in board.boards[0].pairings
        if "random" in (p["agent"], p["opponent"]) and {p["agent"], p["opponent"]} <= pool
    ]
    assert len(among_pool) == 2
    assert rows["random"]["decisions"] == sum(p["decisions"] for p in among_pool)
    assert rows["random"]["cpu_seconds"] == sum(p["cpu_seconds"] for p in among_pool)
    assert rows["mine"]["decisions"] == sum(
        p["decisions"] for p in board.boards[0].pairings if p["agent"] == "mine"
    )


def test_add_on_the_command_line(tmp_path):
    result, out, md = cli(tmp_path, "--agent", "greedy", "--add", "mine=discard_table:thrifty")
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(out.read_text())["variants"][0]["agents"]}
    assert rows["mine"]["player"] == "discard_table:thrifty" and rows["mine"]["added"]
    assert "`mine` = `discard_table:thrifty`" in md.read_text()


def test_a_rerun_plays_no_pairing_again(tmp_path, spy):
    cache = tmp_path / "lb.pairings.jsonl"
    first = burako_env.leaderboard.run(**TINY_KW, cache=cache)
    assert first.played == 6 and len(played(spy)) == 6 and len(read_cache(cache)) == 6
    spy.clear()
    again = burako_env.leaderboard.run(**TINY_KW, cache=cache)
    assert spy == [] and again.played == 0 and again.cached == 6
    assert (
        without_timings(again.to_dict())["variants"] == without_timings(first.to_dict())["variants"]
    )
    # a run killed while writing its last line: that pairing alone is played again
    lines = cache.read_bytes().splitlines(keepends=True)
    cache.write_bytes(b"".join(lines[:-1]) + lines[-1][:40])
    resumed = burako_env.leaderboard.run(**TINY_KW, cache=cache)
    assert resumed.played == 1 and len(played(spy)) == 1
    assert (
        without_timings(resumed.to_dict())["variants"]
        == without_timings(first.to_dict())["variants"]
    )
    assert len(read_cache(cache)) == 6
    # other settings, other games: nothing is taken from the cache
    spy.clear()
    other = burako_env.leaderboard.run(**TINY_KW, cache=cache, seed=1)
    assert other.played == 6 and other.cached == 0 and len(played(spy)) == 6


def test_cli_rerun_resumes(tmp_path, spy):
    result, _, _ = cli(tmp_path, *TINY)
    assert result.exit_code == 0, result.output
    spy.clear()
    result, _, _ = cli(tmp_path, *TINY)
    assert result.exit_code == 0, result.output
    assert spy == [] and "0 pairings played, 6 from" in result.output


def test_decisions_are_the_games_actions(tmp_path):
    from burako_env.agents.tournament import run_tournament
    from burako_env.records import read_records

    games = tmp_path / "g.jsonl"
    res = run_tournament(
        ["random", "greedy"], hands_per_pairing=4, save_games=games, progress=False
    )
    assert res.pairings[0].decisions == sum(len(r.actions) for r in read_records(games)) > 0
    assert res.pairing("greedy", "random").decisions == res.pairings[0].decisions


def test_ray_is_passed_through(tmp_path, spy):
    burako_env.leaderboard.run(builtins=[], pool=["random", "greedy"], hands=4, ray=True)
    assert [c[2] for c in spy] == [True]  # no warm-up on Ray: the games play elsewhere


def test_a_table_an_agent_cannot_play_is_skipped_with_a_note(tmp_path):
    pytest.importorskip("torch")
    result, out, md = cli(tmp_path, "--players", "2", "--agent", "ppo", "--hands", "2")
    assert result.exit_code == 0, result.output
    board = json.loads(out.read_text())["variants"][0]
    assert board["num_players"] == 2 and "ppo" not in [r["name"] for r in board["agents"]]
    assert board["skipped"][0]["name"] == "ppo" and board["skipped"][0]["why"]
    assert "Skipped: `ppo`" in md.read_text() and "skipped ppo" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--add", "mine"], "--add takes NAME=SPEC"),
        (["--add", "=greedy"], "--add takes NAME=SPEC"),
        (["--add", "mine=no_such_agent"], "unknown agent 'no_such_agent'"),
        (["--add", "mine=ppo:/no/such/policy.pt"], "agent 'mine'"),
        (["--add", "random=greedy"], "'random' is taken"),
        (["--add", "a=greedy", "--add", "a=random"], "given twice"),
        (["--agent", "no_such_agent"], "unknown built-in agent 'no_such_agent'"),
        (["--hands", "0"], "--hands must lie in"),
        (["--variant", "no_such_variant"], "no_such_variant"),
        (["--variant", "italian", "--all-variants"], "not both"),
        (["--exploit", "no_such_report.json"], "cannot read the exploit report"),
    ],
)
def test_bad_input_is_refused_before_anything_is_written(tmp_path, args, message):
    result, out, md = cli(tmp_path, *args)
    assert result.exit_code == 2, result.output
    assert "error:" in result.output and message in result.output
    assert not out.exists() and not md.exists() and not cache_path(out).exists()


def test_parse_add():
    assert parse_add("mine=ppo:runs/x/policy.pt") == ("mine", "ppo:runs/x/policy.pt")
    assert parse_add("c=discard_table:danger_fit=60") == ("c", "discard_table:danger_fit=60")
    with pytest.raises(ValueError, match="NAME=SPEC"):
        parse_add("mine=")


def test_a_policy_file_is_known_by_its_contents(tmp_path):
    from burako_env.leaderboard import _identity

    policy = tmp_path / "policy.pt"
    policy.write_bytes(b"one")
    before = _identity(f"ppo:{policy}")
    policy.write_bytes(b"two")  # retrained in place: its pairings are played again
    assert before != _identity(f"ppo:{policy}") and before.startswith(f"ppo:{policy}@sha256:")
    assert _identity(Lowest()).endswith("test_leaderboard.Lowest:lowest")


def test_the_command_is_listed_with_its_help():
    assert "leaderboard" in runner.invoke(app, ["--help"]).output
    result = runner.invoke(app, ["leaderboard", "--help"])
    assert result.exit_code == 0 and "--search-hands" in result.output
    assert "--all-variants" in result.output and "NAME=SPEC" in result.output


# ---------------------------------------------------------------- best responses
ROOT = Path(__file__).resolve().parents[2]
SHIPPED_REPORTS = sorted((ROOT / "docs" / "results" / "exploit").glob("*.json"))


def exploit_report(agent: str = "discard_table:cautious", **final) -> dict:
    """A best response's report as ``burako exploit`` writes it (the fields the board
    reads, and some it does not)."""
    return {
        "agent": agent,
        "variant": "argentine",
        "num_players": 4,
        "env_steps": 1_000_000,
        "env_steps_trained": 983_040,
        "curve": [],
        "final": {
            "hands": 400,
            "wins": 150,
            "losses": 248,
            "ties": 2,
            "win_rate": 0.3775,
            "ci_low": 0.331,
            "ci_high": 0.426,
            "margin": -61.5,
            **final,
        },
    }


def test_a_best_response_is_shown_on_its_agents_row(tmp_path):
    report = tmp_path / "exploit.json"
    report.write_text(json.dumps(exploit_report()))
    result, out, md = cli(tmp_path, *TINY, "--exploit", str(report))
    assert result.exit_code == 0, result.output
    board = json.loads(out.read_text())
    assert board["command"].endswith(f"--exploit {report} --out lb.json --markdown LB.md")
    rows = {row["name"]: row for row in board["variants"][0]["agents"]}
    assert rows["discard_table:cautious"]["exploit"] == {
        "env_steps": 983_040,
        "win_rate": 0.3775,
        "ci_low": 0.331,
        "ci_high": 0.426,
        "margin": -61.5,
        "hands": 400,
        "source": str(report),
    }
    assert all(
        "exploit" not in row for name, row in rows.items() if name != "discard_table:cautious"
    )
    page = md.read_text()
    assert "| best response |" in page
    assert "| 0.378 [0.331, 0.426], 1.0 M steps |" in page  # the agent's row
    assert page.count("| – |") >= 3  # the others': none measured
    assert "burako exploit AGENT" in " ".join(page.split())
    assert "0.378, 1.0 M steps" in result.output  # the terminal's table


def test_no_report_no_column(tmp_path):
    result, _, md = cli(tmp_path, *TINY)
    assert result.exit_code == 0, result.output
    assert "best response" not in md.read_text() and "best response" not in result.output


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"agent": "nobody_here"}, "no row of this leaderboard is that agent"),
        ({"num_players": 2}, "no row of this leaderboard"),
        ({"final": None}, "'final' must be an object"),
        ({"env_steps_trained": "4M"}, "'env_steps_trained' must be a whole number"),
        (
            {"final": {"win_rate": 0.9, "ci_low": 0.1, "ci_high": 0.5, "margin": 0, "hands": 4}},
            "0 <= ci_low <= win_rate <= ci_high <= 1",
        ),
        (
            {
                "final": {
                    "win_rate": float("nan"),
                    "ci_low": 0,
                    "ci_high": 1,
                    "margin": 0,
                    "hands": 4,
                }
            },
            "must be a finite number",
        ),
        (
            {"final": {"win_rate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "margin": 0, "hands": 0}},
            "final.hands >= 1",
        ),
    ],
)
def test_a_bad_report_is_refused_before_any_game(tmp_path, spy, change, message):
    report = {**exploit_report(), **change}
    with pytest.raises(ValueError, match=message):
        burako_env.leaderboard.run(**TINY_KW, exploits=[report])
    assert spy == []  # refused before any game, warm-ups included


def test_two_reports_for_one_row_are_refused(tmp_path, spy):
    with pytest.raises(ValueError, match="two exploit reports for discard_table:cautious"):
        burako_env.leaderboard.run(**TINY_KW, exploits=[exploit_report(), exploit_report()])
    assert spy == []


def test_a_report_file_that_is_not_one_is_named(tmp_path):
    for text, message in (("{", "is not JSON"), ("[1, 2]", "is not a JSON object")):
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(ValueError, match=message) as caught:
            read_exploit(path)
        assert str(path) in str(caught.value)


def test_the_shipped_reports_are_the_records_figures():
    """docs/results/exploit/ holds the best responses of docs/experiments/
    2026-12-06-exploitability.md: discard_table's and the shipped ppo's."""
    reports = {path.stem: read_exploit(path) for path in SHIPPED_REPORTS}
    assert sorted(reports) == ["discard_table", "ppo"]
    assert reports["discard_table"]["win_rate"] == 0.429
    assert reports["ppo"]["win_rate"] == 0.293
    assert {r["env_steps"] for r in reports.values()} == {3_997_696}
    assert exploit_text(reports["ppo"]) == "0.293 [0.273, 0.313], 4.0 M steps"
    assert exploit_text(None) == "–"
    page = (ROOT / "docs" / "LEADERBOARD.md").read_text()
    assert "| 0.293 [0.273, 0.313], 4.0 M steps |" in page
    assert "| 0.429 [0.408, 0.451], 4.0 M steps |" in page
