"""Hostile input never crashes, hangs or deletes (issue 34): saved state re-entering the
core, variant files and records, YAML, batch sizes, tracebacks, silent rounding and
terminal escapes. Every test here failed on the code before that issue's fixes; the
cases that crashed the interpreter or ate memory run in a subprocess (under a memory cap
where memory was the harm), so that the old code fails the test and not the session.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import assert_cli_error, cli, cli_capped, record_line, run_python

from burako_env.envs.vector import VectorEnv

ROOT = Path(__file__).resolve().parents[2]


def played_env(variant="argentine", num_players=None, num_envs=16, steps=120, **kw):
    """A VectorEnv after ``steps`` uniformly random legal actions per game."""
    env = VectorEnv(variant, num_players=num_players, num_envs=num_envs, seed=3, **kw)
    _, _, info = env.reset()
    rng = np.random.default_rng(0)
    rows = np.arange(num_envs)
    for _ in range(steps):
        pick = (rng.random(num_envs) * info["num_legal"]).astype(np.int64)
        _, _, info = env.step(info["legal"][rows, pick].astype(np.int64))
    return env


# ------------------------------------------------------------------ 1. saved state values
CORRUPTIONS = [  # (array, index, value, words of the error): the adversarial pass's cases
    ("num_melds", (0, 0), 100, "num_melds[0] is 100"),
    ("pile_len", (3,), 30000, "pile_len is 30000"),
    ("num_legal", (5,), 30000, "num_legal is 30000"),
    ("scalars", (2, 1), 7, "S_PLAYER"),
    ("hands", (1, 0, 4), 3, "hands[0][4] is 3"),
    ("stock", (4, 0), 60, "stock[0] is 60"),
    ("rng", (0,), 0, "generator is all zero"),
    ("muerto_taker", (1, 0, 0), 9, "muerto_taker"),
]


def test_set_state_refuses_out_of_range_values_before_any_kernel():
    """Right shapes and dtypes, values out of range: SIGSEGV / double free before."""
    code = f"""
        import numpy as np
        from burako_env.envs.vector import VectorEnv
        env = VectorEnv("argentine", num_envs=8, seed=0)
        saved = env.get_state()
        for name, index, value, words in {CORRUPTIONS!r}:
            bad = {{k: v.copy() for k, v in saved.items()}}
            bad[name][index] = value
            try:
                env.set_state(bad)
            except ValueError as exc:
                assert type(exc).__name__ == "InvalidStateError", exc
                assert words in str(exc), (words, str(exc))
            else:
                raise SystemExit(f"{{name}}={{value}} accepted")
            env.step(env.game.state.legal[:, 0].astype(np.int64))  # the games still play
        print("refused all")
    """
    done = run_python(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused all" in done.stdout


def test_set_state_refuses_cards_not_conserved():
    env = played_env(num_envs=4, steps=20)
    saved = env.get_state()
    b = 2
    n = saved["stock_len"][b]
    card = saved["stock"][b, n - 1]
    saved["stock"][b, n - 1] = (card + 1) % 52  # one card type more, another less
    before = env.get_state()
    with pytest.raises(ValueError, match="game 2: cards not accounted for") as caught:
        env.set_state(saved)
    assert type(caught.value).__name__ == "InvalidStateError"
    after = env.get_state()
    assert all(np.array_equal(before[k], after[k]) for k in before)  # nothing changed


@pytest.mark.parametrize(
    "variant, players, episode",
    [
        ("argentine", 2, "hand"),
        ("argentine", 4, "match"),
        ("brazilian", 4, "hand"),
        ("colombian", 6, "match"),
        ("italian", 4, "hand"),
    ],
)
def test_set_state_accepts_every_reachable_state(variant, players, episode):
    env = played_env(variant, players, num_envs=32, steps=150, episode=episode)
    saved = env.get_state()
    obs, mask, _ = env.set_state(saved)
    assert obs.shape[0] == 32 and mask.any(axis=1).all()


def test_set_state_refuses_another_episode_kind():
    saved = VectorEnv("argentine", num_envs=2, episode="match").get_state()
    with pytest.raises(ValueError, match="S_EPISODE_MATCH"):
        VectorEnv("argentine", num_envs=2, episode="hand").set_state(saved)


def test_resume_of_a_corrupted_env_state_is_a_checkpoint_error():
    """``burako train --resume`` hands the checkpoint's arrays to load_env_state."""
    code = """
        import torch
        from burako_env.envs.vector import VectorEnv
        from burako_env.training.checkpoint import CheckpointError
        from burako_env.training.checkpoint import env_state, load_env_state
        env = VectorEnv("argentine", num_envs=4, seed=0)
        state = env_state(env)
        state["num_melds"][0, 1] = 100
        try:
            load_env_state(env, state)
        except CheckpointError as exc:
            print("refused:", exc)
    """
    done = run_python(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: the checkpoint's games do not fit this run" in done.stdout
    assert "num_melds[1] is 100" in done.stdout


def test_rules_of_dev_zero_is_refused_under_a_memory_cap():
    """It read /dev/zero to the end (23.7 GB) before."""
    code, output = cli_capped("rules", "/dev/zero")
    assert code == 2 and output.startswith("error: variant file /dev/zero is not a regular file")


def test_a_variant_file_is_a_small_regular_file(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("base: argentine\n" + "# padding\n" * 10_000)
    assert_cli_error(cli("rules", big), "larger than 64 KiB")
    assert_cli_error(cli("rules", tmp_path), "is not a regular file")


@pytest.mark.parametrize("path", ["/dev/zero", "/etc/passwd", "../configs/variants/italian.yaml"])
def test_a_record_never_names_a_file(tmp_path, path):
    """``"variant": "/dev/zero"`` grew replay to gigabytes; /etc/passwd listed its keys."""
    games = tmp_path / "games.jsonl"
    games.write_text(record_line(variant=path))
    code, output = cli_capped("replay", games)
    assert code == 1, output
    assert "unknown variant" in output and "never names a file" in output


def test_a_record_carries_house_rules_inline_and_replays(tmp_path):
    house = tmp_path / "house.yaml"
    house.write_text("base: argentine\nname: house\ntarget: 1500\nstock_end: 2\n")
    games = tmp_path / "games.jsonl"
    assert (
        cli(
            "tournament",
            "random",
            "random",
            "--variant",
            house,
            "--hands",
            2,
            "--save-games",
            games,
        ).exit_code
        == 0
    )
    house.unlink()  # the record needs no file to replay
    from burako_env.records import read_records

    rec = read_records(games)[0]
    assert isinstance(rec.variant, dict) and rec.variant["stock_end"] == 2
    assert cli("replay", games, "--check").exit_code == 0
    named = tmp_path / "named.jsonl"
    assert cli("tournament", "random", "random", "--hands", 2, "--save-games", named).exit_code == 0
    assert read_records(named)[0].variant == "argentine"  # a named variant stays a name


def test_replay_of_a_file_with_no_newline_is_bounded():
    code, output = cli_capped("replay", "/dev/zero")
    assert code == 2 and output.startswith("error:") and "longer than 16 MiB" in output


# ------------------------------------------------------------------ 3. YAML
ALIAS_BOMB = (
    'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
)


def test_yaml_alias_bomb_is_refused_at_once(tmp_path):
    """44 s and 1.8 GB before (the expansion was walked when the keys were checked)."""
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("base: argentine\n" + ALIAS_BOMB)
    code, output = cli_capped("rules", bomb, timeout=20)
    assert code == 2 and "anchors and aliases" in output, output
    config = tmp_path / "config.yaml"
    config.write_text(ALIAS_BOMB)
    code, output = cli_capped("train", "--config", config, "--run-dir", tmp_path / "runs")
    assert code == 2 and "anchors and aliases" in output, output


def test_yaml_duplicate_keys_are_refused(tmp_path):
    dup = tmp_path / "dup.yaml"
    dup.write_text("base: argentine\ntarget: 100\ntarget: 200\n")
    assert_cli_error(cli("rules", dup), "duplicate key 'target'")
    config = tmp_path / "config.yaml"
    config.write_text("ppo:\n  lr: 0.1\n  lr: 0.2\n")
    assert_cli_error(
        cli("train", "--config", config, "--run-dir", tmp_path / "runs"), "duplicate key"
    )


def test_deep_yaml_and_json_are_errors_not_tracebacks(tmp_path):
    deep = tmp_path / "deep.yaml"
    deep.write_text("base: argentine\nx: " + "[" * 5000 + "]" * 5000 + "\n")
    assert_cli_error(cli("rules", deep), "nested deeper than 32")
    games = tmp_path / "deep.jsonl"
    games.write_text('{"a":' * 100_000 + "1" + "}" * 100_000 + "\n")
    result = cli("replay", games)
    assert result.exit_code == 1 and "nested deeper than 32" in result.output
    assert "Traceback" not in result.output


# ------------------------------------------------------------------ 5. integer ranges
def test_huge_rule_integers_are_refused_where_loaded(tmp_path):
    """Accepted by ``rules`` before, OverflowError in ``simulate``."""
    huge = tmp_path / "huge.yaml"
    huge.write_text("base: argentine\npile_min_total: 99999999999999999999999\n")
    assert_cli_error(cli("rules", huge), "pile_min_total must lie in 0..216")
    assert_cli_error(cli("simulate", "--variant", huge, "--games", 2), "pile_min_total")
    from burako_env.core.game import Game
    from burako_env.variants import VariantError

    with pytest.raises(
        VariantError, match="target must lie in 0..1000000, got 9223372036854775808"
    ):
        Game(target=2**63)


def test_train_network_width_is_bounded(tmp_path):
    result = cli("train", "--set", "network.hidden=1000000000", "--run-dir", tmp_path / "runs")
    assert_cli_error(result, "network.hidden", "2..8192")
    assert not (tmp_path / "runs").exists()


# ------------------------------------------------------------------ 6./8. records' integers
@pytest.mark.parametrize(
    "field, value, words",
    [
        ("seed", 1.5, "seed must be a whole number"),
        ("index", 10**8, "index must lie in"),
        ("index", True, "index must be a whole number"),
        ("num_players", 4.0, "num_players"),
    ],
)
def test_record_integers_are_integers_in_range(tmp_path, field, value, words):
    games = tmp_path / "games.jsonl"
    games.write_text(record_line(**{field: value}))
    result = cli("replay", games)
    assert result.exit_code == 1 and words in result.output, result.output


def test_a_deal_costs_the_same_at_any_index():
    import time

    from burako_env.core.game import Game
    from burako_env.records import deal_game

    start = time.perf_counter()
    far = deal_game("argentine", 4, 5, 2**24 - 1)
    assert time.perf_counter() - start < 5  # 16M seed sequences before
    near = deal_game("argentine", 4, 5, 3)
    batch = Game("argentine", batch_size=4, seed=5)
    assert np.array_equal(near.state.hands[0], batch.state.hands[3])
    assert far.state.hands[0].sum() == 44


# ------------------------------------------------------------------ 7. terminal escapes
def test_replay_prints_no_escape_sequence_from_a_record(tmp_path):
    import json

    games = tmp_path / "games.jsonl"
    assert cli("tournament", "random", "random", "--hands", 1, "--save-games", games).exit_code == 0
    data = json.loads(games.read_text().splitlines()[0])
    data["seats"][0] = "evil\x1b]0;pwned\x07\x9b2J"
    games.write_text(json.dumps(data) + "\n")
    result = cli("replay", games, "--moves-only")
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\x9b" not in result.output
    assert "evil\\x1b]0;pwned\\x07\\x9b2J" in result.output


# ------------------------------------------------------------------ 4. simulate in batches
def test_simulate_runs_in_bounded_batches_with_the_same_results(monkeypatch):
    """All N games were allocated at once before (6.6 KB each)."""
    from burako_env.frontends import simulate as sim

    sizes = []
    play = sim._play_games

    def spy(variant, seed, start, count):
        sizes.append(count)
        return play(variant, seed, start, count)

    monkeypatch.setattr(sim, "_play_games", spy)
    whole = sim.simulate("argentine", games=50, seed=11)
    assert sizes == [50]
    monkeypatch.setattr(sim, "SIMULATE_BATCH_GAMES", 16)
    sizes.clear()
    batched = sim.simulate("argentine", games=50, seed=11)
    assert sizes == [16, 16, 16, 2]
    for key in ("went_out", "stock_end", "max_turns", "mean_scores", "canastas_per_hand"):
        assert getattr(batched, key) == getattr(whole, key), key
    assert (batched.mean_turns, batched.mean_steps) == (whole.mean_turns, whole.mean_steps)
    # the same figures as numpy's means over one batch of every game (the code before)
    part = play(sim.load_variant("argentine"), 11, 0, 50)
    assert whole.mean_scores == tuple(float(x) for x in part["scores"].mean(axis=0))
    assert whole.mean_steps == float(part["steps"].mean())


def test_simulate_refuses_a_game_count_out_of_range_naming_it():
    from burako_env.frontends.simulate import simulate

    for games in (0, True, 2.0):
        with pytest.raises(ValueError, match=r"^games must "):
            simulate("argentine", games=games)


def test_simulate_refuses_a_game_count_with_no_end():
    assert_cli_error(cli("simulate", "--games", 10**12), "--games must lie in 1..1000000000")


# ------------------------------------------------------------------ 6. silent acceptance
@pytest.mark.parametrize("value", [float("nan"), float("inf"), 3.0e25])
def test_a_policy_with_corrupted_weights_is_a_checkpoint_error(tmp_path, value):
    import torch

    from burako_env.agents.policy_file import CheckpointError, load_network

    data = torch.load(ROOT / "burako_env/data/ppo_argentine_4p.pt", weights_only=True)
    name = next(k for k, t in data["model"].items() if t.is_floating_point())
    data["model"][name].view(-1)[7] = value
    bad = tmp_path / "bad.pt"
    torch.save(data, bad)
    with pytest.raises(CheckpointError, match=f"weight {name!r}"):
        load_network(bad)


CALLS_THAT_ROUNDED = [
    (lambda g: g.clone(games=[0.7]), TypeError, "games must be whole numbers"),
    (lambda g: g.clone(games=[True]), TypeError, "games must be whole numbers"),
    (lambda g: g.determinize(viewer=2.7, rng=0), TypeError, "viewer must be whole numbers"),
    (lambda g: g.determinize(viewer=True, rng=0), TypeError, "viewer must be whole numbers"),
    (lambda g: g.determinize(viewer=0, rng=0, count=2.0), ValueError, "count"),
    (lambda g: g.reset(seed=2**70), ValueError, "seed must be a non-negative whole number up to"),
    (
        lambda g: g.step(np.full(2, 2**64 - 1, np.uint64)),
        ValueError,
        r"actions\[0\] is 18446744073709551615",
    ),
]


@pytest.mark.parametrize("call, error, words", CALLS_THAT_ROUNDED)
def test_integers_are_integers_in_range(call, error, words):
    from burako_env.core.game import Game

    game = Game("argentine", batch_size=2)
    before = game.snapshot()
    with pytest.raises(error, match=words):
        call(game)
    from burako_env.core.state import states_equal

    assert states_equal(before, game.state)  # the uint64 action skipped no game


@pytest.mark.parametrize("seed", [1.5, True, 2**70])
def test_env_reset_seeds_are_whole_numbers(seed):
    from burako_env.envs.aec import raw_env
    from burako_env.gym.single import BurakoGymEnv

    for env in (raw_env(), BurakoGymEnv()):
        with pytest.raises(Exception, match="[Ss]eed must be"):
            env.reset(seed=seed)


@pytest.mark.parametrize(
    "args, words",
    [
        (("bench", "--api", "aec", "--seconds", "nan"), "--seconds must lie in"),
        (("bench", "--api", "train", "--rounds", "0"), "--rounds must lie in"),
        (("bench", "--api", "train", "--num-envs", "99999999"), "--num-envs must lie in"),
        (("simulate", "--ray-address", ""), "--ray-address is empty"),
        (("tournament", "random", "random", "--hands", "99999999999999999999"), "--hands"),
        (("simulate", "--seed", str(2**70)), "--seed must lie in"),
    ],
)
def test_cli_values_with_no_end_are_errors(args, words):
    assert_cli_error(cli(*args), words)


# ------------------------------------------------------------------ 8. stale temporaries
def test_resume_removes_only_the_temporaries_a_killed_run_left(tmp_path):
    from burako_env.training.checkpoint import CheckpointError, remove_stale_temporaries
    from burako_env.training.run import resume_checkpoint

    run = tmp_path / "run"
    ck = run / "checkpoints"
    ck.mkdir(parents=True)
    stale = [ck / "update_000003.pt.tmp", ck / "last.pt.tmp", run / "policy.pt.tmp"]
    kept = [ck / "update_000003.pt", ck / "notes.tmp", run / "mine.pt.tmp", ck / "x.pt.tmp"]
    for path in stale + kept:
        path.write_bytes(b"x")
    with pytest.raises(CheckpointError):
        resume_checkpoint(run)  # nothing intact to resume from, but the cleanup ran first
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in kept)
    assert remove_stale_temporaries(run) == []
