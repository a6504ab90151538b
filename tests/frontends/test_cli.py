"""The ``burako`` command line: help everywhere, rules, bench, tournament, play, replay.

``burako play`` is driven with scripted input through typer's CliRunner: the script of a
whole game is written first by playing the same deal with the same bots through
:func:`burako_env.frontends.play.play_game` (bots are seeded per seat, so the CLI replays it
exactly), with bad lines mixed in that must be explained and asked again.
"""

from __future__ import annotations

import json
import random
import re
import sys
import time

import pytest
from typer.testing import CliRunner

from burako_env.core.actions import decode_action
from burako_env.core.constants import DISCARD_BASE, NUM_ACTIONS
from burako_env.core.game import Game
from burako_env.frontends.cli import app
from burako_env.frontends.play import MoveError, make_bots, parse_move, play_game, typed_form

runner = CliRunner()

COMMANDS = [
    "rules", "simulate", "bench", "tournament", "fit-value", "play", "replay", "train",
    "distill",
]  # fmt: skip


def run(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


def script_game(variant="argentine", players=None, seat=0, bots="random", seed=0):
    """The typed moves of a whole game: the person draws and discards (the first legal
    discard), and plays whatever else is forced. Returns (lines, result)."""
    game = Game(variant, num_players=players, seed=seed)
    agents = make_bots(game, seat, [bots] * (game.num_players - 1), seed)
    lines: list[str] = []

    def read(prompt):
        legal = [int(a) for a in game.legal_actions()]
        kinds = {a: decode_action(a).kind for a in legal}
        choice = legal[0]
        for kind in ("discard", "draw", "peek_keep"):
            found = [a for a in legal if kinds[a] == kind]
            if found:
                choice = found[0]
                break
        text = typed_form(choice)
        assert parse_move(text, game, seat) == choice
        lines.append(text)
        return text + "\n"

    result = play_game(game, seat, agents, read, lambda s: None)
    assert result.finished
    return lines, result


# ------------------------------------------------------------------ help and rules
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    res = run(command, "--help")
    assert res.exit_code == 0, res.output
    assert "Usage" in res.output


def test_top_level_help_lists_the_commands():
    res = run("--help")
    assert res.exit_code == 0
    for command in COMMANDS:
        assert command in res.output


def test_rules_prints_summary_and_parameters():
    res = run("rules", "colombian", "--players", "6")
    assert res.exit_code == 0, res.output
    assert "colombian: 6 players in two teams of 3" in res.output
    assert "wild canasta" in res.output  # the summary follows the parameters
    assert "num_players" in res.output and "max_meld_size" in res.output
    italian = run("rules", "italian").output
    assert "going out must be done by a discard" in italian
    assert "2 cards or fewer" in italian
    assert "no_wild_discard" in run("rules", "--table").output
    only = run("rules", "--params-only").output
    assert only.startswith("variant argentine")
    # rules v1's parameters are shown like every other (RULES.md 5 and 9)
    brazilian = run("rules", "brazilian", "--params-only").output
    assert re.search(r"muerto_pot\s+shared", brazilian), brazilian
    assert re.search(r"max_hands\s+100", brazilian), brazilian
    assert re.search(r"muerto_pot\s+team", only), only


def test_rules_rejects_unknown_variant():
    res = run("rules", "klondike")
    assert res.exit_code == 2
    assert "unknown variant" in res.output


def test_bench_vector_and_bad_api():
    res = run("bench", "--api", "vector", "--seconds", "0.2", "--batch", "16")
    assert res.exit_code == 0, res.output
    assert "| vector |" in res.output and "legal" in res.output and "mask" in res.output
    bad = run("bench", "--api", "gpu")
    assert bad.exit_code == 2 and "unknown --api" in bad.output


TRAIN_BENCH = ["--config", "tiny", "--num-envs", "8", "--rounds", "1", "--set", "ppo.num_steps=8"]


def test_bench_train_figures_and_engine_share():
    pytest.importorskip("torch")
    from burako_env.frontends.bench import TRAIN_PARTS, bench_train, format_train

    res = bench_train("tiny", ["ppo.num_steps=8"], num_envs=8, rounds=1)
    assert (res["num_envs"], res["num_steps"], res["rollout_steps"]) == (8, 8, 64)
    rollout, update, whole = (res[f"{k}_steps_per_s"] for k in ("rollout", "update", "iteration"))
    assert 0 < whole < min(rollout, update)  # the iteration is the rollout and the update
    assert 0 < res["engine_share"] < 1
    shares = res["shares"]
    assert set(shares) == set(TRAIN_PARTS) and abs(sum(shares.values()) - 1) < 1e-9
    assert min(shares.values()) > -1e-9
    assert res["engine_share"] == shares["table"]
    for part in ("table", "learner", "update"):  # each one measured
        assert shares[part] > 0, part
    assert res["snapshots_kept"] == 1  # the league mix of a run past its first snapshot
    assert res["torch_threads"] == 1 and res["update_threads"] == "auto"  # tiny's settings
    assert len(res["update_threads_used"]) == 1 and res["update_threads_used"][0] >= 1
    assert res["numba_threads"] >= 1
    table = format_train(res)
    assert "| rollout (league mix) |" in table and "**game engine**" in table


def test_bench_train_update_leaves_gae_out_and_the_iteration_holds_all_three(monkeypatch):
    """Serially the iteration is the rollout, then GAE, then the PPO update: the update's
    seconds are learn()'s less GAE's, so the three add up to no more than the iteration.
    GAE made slow (0.2 s) so that a sign error in the split is far above the clock's noise."""
    pytest.importorskip("torch")
    from burako_env.frontends.bench import bench_train
    from burako_env.training.ppo import Trainer

    slow = 0.2
    advantages = Trainer.advantages

    def slow_advantages(self):
        time.sleep(slow)
        return advantages(self)

    monkeypatch.setattr(Trainer, "advantages", slow_advantages)
    res = bench_train("tiny", ["ppo.num_steps=8"], num_envs=8, rounds=1)
    shares = res["shares"]
    # one round: each share is its part's seconds over the parts' sum
    total = res["update_seconds"] / shares["update"]
    gae = shares["gae"] * total
    assert gae >= slow
    assert res["rollout_seconds"] + gae + res["update_seconds"] <= res["iteration_seconds"]


def test_bench_train_refuses_no_rounds_naming_the_count():
    pytest.importorskip("torch")
    from burako_env.frontends.bench import bench_train

    with pytest.raises(ValueError, match="rounds must be at least 1, got 0"):
        bench_train("tiny", rounds=0)


def test_bench_train_with_overlap_times_the_rollout_beside_the_update():
    pytest.importorskip("torch")
    from burako_env.frontends.bench import bench_train, format_train

    res = bench_train("tiny", ["ppo.num_steps=8", "overlap=true"], num_envs=8, rounds=2)
    assert res["overlap"] and res["update_threads_used"] == [1, 1]
    # both run inside the iteration, on their own threads: it lasts at least the longer
    assert res["iteration_seconds"] >= max(res["rollout_seconds"], res["update_seconds"])
    assert abs(sum(res["shares"].values()) - 1) < 1e-9 and res["shares"]["learner"] > 0
    table = format_train(res)
    assert "overlap: the rollout beside the update" in table
    assert "the rollout beside GAE + update" in table
    serial = format_train(bench_train("tiny", ["ppo.num_steps=8"], num_envs=8, rounds=1))
    assert "overlap" not in serial and "rollout + GAE + update" in serial


def test_bench_train_cli():
    pytest.importorskip("torch")
    res = run("bench", "--api", "train", *TRAIN_BENCH)
    assert res.exit_code == 0, res.output
    for words in (
        "config tiny",
        "num_envs 8 x num_steps 8 = 64 env steps per rollout",
        "torch threads 1 (rollout), update threads auto (used: ",
        "| rollout (league mix) |",
        "| PPO update |",
        "| **whole iteration** (rollout + GAE + update) |",
        "| **game engine** (the table: the games and the compiled opponents) |",
        "| **PPO update** (ppo_update, keep_pending) |",
    ):
        assert words in res.output, (words, res.output)
    share = re.search(r"\| \*\*game engine\*\* [^|]* \| \*\*([\d.]+)%\*\* \|", res.output)
    assert share and 0 < float(share.group(1)) < 100, res.output
    bad = run("bench", "--api", "train", "--config", "no-such-config")
    assert bad.exit_code == 2 and "does not exist" in bad.output


def test_bench_train_without_torch_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    res = run("bench", "--api", "train", *TRAIN_BENCH)
    assert res.exit_code == 2
    assert "error: burako bench --api train needs torch: pip install 'burako[train]'" in (
        res.output
    )


# ------------------------------------------------------------------ tournament and replay
@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tournament")
    games = folder / "games.jsonl"
    res = run(
        "tournament",
        "random",
        "greedy",
        "discard_table",
        "--hands",
        "4",
        "--workers",
        "1",
        "--no-progress",
        "--out",
        str(folder / "out"),
        "--save-games",
        str(games),
    )
    assert res.exit_code == 0, res.output
    return folder, games, res.output


def test_tournament_prints_table_and_writes_files(saved):
    folder, games, output = saved
    assert "random vs greedy" in output and "greedy vs discard_table" in output
    assert "ordinal" in output
    for name in ("tournament.csv", "tournament.json", "tournament.png"):
        assert (folder / "out" / name).stat().st_size > 0
    data = json.loads((folder / "out" / "tournament.json").read_text())
    assert data["agents"] == ["random", "greedy", "discard_table"]
    assert len(games.read_text().splitlines()) == 3 * 4


def test_tournament_task_deals_bound_is_one(tmp_path):
    """--task-deals (deals per Ray task) may be 1, the smallest task; 0 is refused."""
    args = ["tournament", "random", "greedy", "--hands", "2", "--workers", "1", "--no-progress"]
    res = run(*args, "--task-deals", "1")
    assert res.exit_code == 0, res.output
    bad = run(*args, "--task-deals", "0")
    assert bad.exit_code == 2 and "--task-deals must be at least 1" in bad.output


def test_tournament_rejects_bad_arguments():
    res = run("tournament", "random", "nosuchagent", "--hands", "2", "--no-progress")
    assert res.exit_code == 2 and "unknown agent" in res.output
    assert run("tournament", "random", "greedy", "--hands", "0").exit_code == 2
    res = run("tournament", "random", "greedy", "--variant", "klondike")
    assert res.exit_code == 2 and "unknown variant" in res.output
    assert run("tournament", "random", "--hands", "2", "--no-progress").exit_code == 2


def test_fit_value_writes_the_file_a_tournament_corrects_with(tmp_path):
    from burako_env.agents.aivat import file_sha256, load_value

    value = tmp_path / "value.json"
    res = run("fit-value", "--out", str(value), "--hands", "20", "--seed", "3", "--no-progress")
    assert res.exit_code == 0, res.output
    fitted = load_value(value)
    assert fitted.policy == "ppo_argentine_4p.pt" and fitted.fit["hands"] == 20
    assert f"x{fitted.margin_scale:.1f} points" in res.output
    res = run("fit-value", "--out", str(value), "--hands", "20", "--no-progress")
    assert res.exit_code == 2 and "exists" in res.output  # not overwritten without --force
    res = run(
        "tournament", "greedy", "discard_table", "--hands", "20", "--estimator", "aivat",
        "--value", str(value), "--no-progress",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert f"draws corrected by value.json (sha256 {file_sha256(value)[:16]}" in res.output
    assert "greedy vs discard_table: margin" in res.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["--value", "v.json"], "--value is the value file of --estimator aivat"),
        (["--estimator", "vat"], "--estimator must be one of plain, aivat"),
        (["--estimator", "aivat", "--ray"], "not with --ray"),
        (["--estimator", "aivat", "--episode", "match"], "use --episode hand"),
    ],
)
def test_tournament_estimator_refusals(args, words):
    res = run("tournament", "greedy", "discard_table", "--hands", "2", "--no-progress", *args)
    assert res.exit_code == 2 and words in res.output


def test_replay_check_passes_on_tournament_games(saved):
    _, games, _ = saved
    res = run("replay", str(games), "--check")
    assert res.exit_code == 0, res.output
    assert "checked 12 game(s)" in res.output and "every move legal" in res.output


def tamper(lines: list[str], index: int, **changes) -> list[str]:
    data = json.loads(lines[index])
    data.update(changes)
    out = list(lines)
    out[index] = json.dumps(data)
    return out


def test_replay_check_fails_loudly_on_tampered_files(saved, tmp_path):
    _, games, _ = saved
    lines = games.read_text().splitlines()
    first = json.loads(lines[2])

    # an action changed: the first move (a peek decision or a draw) becomes a discard
    bad_action = tmp_path / "action.jsonl"
    actions = [DISCARD_BASE + 52] + first["actions"][1:]
    bad_action.write_text("\n".join(tamper(lines, 2, actions=actions)) + "\n")
    res = run("replay", str(bad_action), "--check")
    assert res.exit_code == 1
    assert "game 2 (line 3): move 1" in res.output and "illegal" in res.output
    assert "1 of 12 game(s)" in res.output

    # a score changed
    bad_score = tmp_path / "score.jsonl"
    scores = [first["scores"][0] + 5, first["scores"][1]]
    bad_score.write_text("\n".join(tamper(lines, 2, scores=scores)) + "\n")
    res = run("replay", str(bad_score), "--check")
    assert res.exit_code == 1 and "the record says" in res.output

    # the winner changed, scores untouched: to the other team, and to a tie
    winner = first["winner"]
    for claimed in sorted({1 - winner if winner >= 0 else 0, -1} - {winner}):
        bad_winner = tmp_path / f"winner{claimed}.jsonl"
        bad_winner.write_text("\n".join(tamper(lines, 2, winner=claimed)) + "\n")
        said = f"the replayed winner is team {winner}, the record says team {claimed}"
        res = run("replay", str(bad_winner), "--check")
        assert res.exit_code == 1 and "1 of 12 game(s)" in res.output
        assert f"game 2 (line 3): {said}" in res.output
        res = run("replay", str(bad_winner), "--game", "2")  # shown: refused, the same words
        assert res.exit_code == 1 and said in res.output

    # moves cut off, and a broken JSON line
    cut = tmp_path / "cut.jsonl"
    broken = tamper(lines, 0, actions=json.loads(lines[0])["actions"][:-3])
    broken[5] = broken[5][:40]
    cut.write_text("\n".join(broken) + "\n")
    res = run("replay", str(cut), "--check")
    assert res.exit_code == 1
    assert "game 0 (line 1): the record stops" in res.output
    assert "game 5 (line 6): not a game record" in res.output
    assert "2 of 12 game(s)" in res.output

    # checking one game of a file with a bad line elsewhere passes
    assert run("replay", str(cut), "--check", "--game", "3").exit_code == 0
    # showing a tampered game refuses it, naming the problem
    res = run("replay", str(bad_action), "--game", "2")
    assert res.exit_code == 1 and "illegal" in res.output
    res = run("replay", str(cut), "--game", "5")
    assert res.exit_code == 1 and "not a game record" in res.output

    # fields of the wrong type, an unknown variant, a JSON value that is not an object
    odd = tmp_path / "odd.jsonl"
    base = json.loads(lines[0])
    odd.write_text(
        "\n".join(
            [
                json.dumps({**base, "actions": "abc", "scores": 3}),
                json.dumps({**base, "seats": 4}),
                json.dumps({**base, "variant": "klondike"}),
                "[1, 2]",
            ]
        )
        + "\n"
    )
    res = run("replay", str(odd), "--check")
    assert res.exit_code == 1 and "4 of 4 game(s)" in res.output
    assert "unknown variant 'klondike'" in res.output
    assert "Traceback" not in res.output


def test_replay_frames_refuses_a_record_whose_end_it_does_not_reach(saved):
    """replay_frames (the frames of burako replay and the web's replays, which check the
    record first) refuses a record whose scores the replay does not end on, at its last
    frame, naming both."""
    from burako_env.frontends.playback import replay_frames
    from burako_env.records import GameRecord

    _, games, _ = saved
    first = json.loads(games.read_text().splitlines()[2])
    scores = [first["scores"][0] + 5, first["scores"][1]]
    frames = replay_frames(GameRecord.from_dict({**first, "scores": scores}))
    with pytest.raises(ValueError) as refused:
        for _ in frames:
            pass
    said = f"the record says {scores} (winner {first['winner']})"
    assert str(refused.value).startswith("the replay ends with scores [")
    assert said in str(refused.value)


def test_replay_shows_every_move(saved):
    _, games, _ = saved
    rec = json.loads(games.read_text().splitlines()[1])
    res = run("replay", str(games), "--game", "1")
    assert res.exit_code == 0, res.output
    n = len(rec["actions"])
    assert f"--- move {n}/{n}:" in res.output
    assert res.output.count("Burako · argentine") == n + 1  # the deal and every move
    assert "the result matches the record" in res.output
    moves = run("replay", str(games), "--game", "1", "--moves-only", "--viewer", "2")
    assert moves.exit_code == 0 and moves.output.count("Burako · argentine") == 2


def test_replay_step_waits_for_enter(saved):
    _, games, _ = saved
    res = run("replay", str(games), "--step", input="\n\nq\n")
    assert res.exit_code == 0, res.output
    assert "--- move 3/" in res.output and "--- move 4/" not in res.output
    assert "stopped" in res.output


def test_replay_rejects_bad_arguments(saved, tmp_path):
    _, games, _ = saved
    assert run("replay", str(tmp_path / "missing.jsonl")).exit_code == 2
    assert run("replay", str(games), "--game", "99").exit_code == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert run("replay", str(empty)).exit_code == 2


# ------------------------------------------------------------------ play
BAD_LINES = [
    "help",
    "legal",
    "table",
    "",
    "foo bar",
    "meld 7h 8h",
    "meld Zz 8h 9h",
    "discard",
    "discard 7h 8h",
    "add 2c to",
    "add 2c to x",
    "add 2c to 99",
    "99999",
    "-3",
    "take",  # legal-looking, but not in this phase: explained, asked again
    "draw now",
    "♥♥♥",
    "meld * * *",
]


def test_play_a_whole_game_with_bad_input_mixed_in(tmp_path):
    lines, expected = script_game(seed=3)
    save = tmp_path / "played.jsonl"
    script = BAD_LINES + lines
    res = run(
        "play",
        "--bots",
        "random",
        "--seed",
        "3",
        "--save",
        str(save),
        input="\n".join(script) + "\n",
    )
    assert res.exit_code == 0, res.output
    out = res.output
    assert "Legal moves (type the move, or its id):" in out
    assert "Moves (cards as rank then suit" in out  # help
    assert "unknown move 'foo'" in out
    assert "a meld opens with exactly 3 cards (got 2)" in out
    assert "unknown card 'Zz'" in out
    assert f"action ids are 0..{NUM_ACTIONS - 1}" in out
    assert "You cannot take now: first " in out  # the rule of the turn, in words
    assert "'draw' takes nothing after it" in out
    assert "P1 (random):" in out  # bots' moves in words
    assert "Hand of P0 (11)" in out  # the table from the person's view
    assert "cards on the table" in out and "cards left in hand" in out  # the score items
    assert "table_cards" not in out and "hand_cards" not in out  # in words, not their names
    assert "you win" in out or "you lose" in out or "a tie" in out
    assert f"Your team (team 0) {expected.scores[0]}" in out
    assert "Traceback" not in out
    # the saved record replays and checks
    rec = json.loads(save.read_text())
    assert rec["seats"] == ["human", "random", "random", "random"]
    assert rec["actions"] == expected.actions and rec["scores"] == expected.scores
    check = run("replay", str(save), "--check")
    assert check.exit_code == 0, check.output


def test_play_fits_80_columns_and_every_word_stays_whole():
    from burako_env.frontends.play import WIDTH, fit_lines

    lines, _ = script_game(seed=3)
    script = [*BAD_LINES, "hint", *lines]
    res = run("play", "--bots", "random", "--seed", "3", input="\n".join(script) + "\n")
    assert res.exit_code == 0, res.output
    out = res.output.splitlines()
    too_long = [line for line in out if len(line) > WIDTH]
    assert too_long == [], too_long
    assert "Type 'help' for the moves" in res.output
    assert not re.search(r"T[♣♦♥♠]", res.output)  # a ten in words is 10
    text = "P1 (Normal): " + "took the discard pile (9 cards: 10♥ K♠ 3♦ 3♣ 4♠) " * 4
    wrapped = fit_lines(text)
    assert len(wrapped) > 1 and all(len(line) <= WIDTH for line in wrapped)
    assert " ".join(wrapped).split() == text.split()  # broken between words, none split
    assert fit_lines("a T♥ and Th") == ["a 10♥ and Th"]  # the words say 10, codes stay


def test_play_tells_each_bot_turn_in_one_line_the_card_drawn_and_the_score():
    from burako_env.frontends.web.table import running_score

    game = Game("argentine", seed=3)
    agents = make_bots(game, 0, ["random"] * 3, 3)
    written: list[str] = []
    screens: list[list[str]] = []  # what was written between two prompts
    hints: list[tuple[str, list[int]]] = []
    scores: list[str] = []

    def read(prompt):
        screens.append(written[len(sum(screens, [])) :])
        legal = [int(a) for a in game.legal_actions()]
        if not hints:  # first ask a hint, at the first position
            hints.append(("", legal))
            return "hint"
        if hints[0][0] == "":
            (hint,) = [line for line in written if line.startswith("  Hint: ")]
            hints[0] = (hint, hints[0][1])
        team = [t["total"] for t in running_score(game)]
        match = game.match_scores[0]
        scores.append(
            f"Score: your team {match[0]} in the match, {team[0]} on the table"
            f" · the other team {match[1]}, {team[1]}"
        )
        kinds = {a: decode_action(a).kind for a in legal}
        for kind in ("discard", "draw", "peek_keep"):
            found = [a for a in legal if kinds[a] == kind]
            if found:
                return typed_form(found[0])
        return typed_form(legal[0])

    result = play_game(game, 0, agents, read, written.append, seed=3)
    assert result.finished
    hint, legal = hints[0]
    typed = hint.removeprefix("  Hint: ").split(" (")[0]
    first = Game("argentine", seed=3)  # the position of the hint: the deal, bots first
    for a in result.actions:
        if int(first.current_player[0]) == 0:
            break
        first.step_one(a)
    assert parse_move(typed, first, 0) in legal  # the hint is a legal move there
    assert "Expert, in your seat" in hint
    # a status line before each prompt: both teams' match points and table points now
    shown = [line for line in written if line.startswith("Score: your team ")]
    assert set(scores) <= set(shown) and len(shown) >= len(scores) > 5
    # the card drawn, named as in words
    draws = [line for line in written if line.startswith("  You drew ")]
    assert draws and all(
        re.fullmatch(
            r"  You drew (the (10|[AKQJ2-9]) of (clubs|diamonds|hearts|spades)|a joker)\.", d
        )
        for d in draws
    ), draws
    # each bot's turn is one line (a bot acts once between two prompts of the person)
    after_discard = [s for s in screens if any(x.startswith("P0 (you): discard") for x in s)]
    assert len(after_discard) > 5
    for screen in after_discard:
        if any("is over" in line for line in screen):
            continue
        joined: list[str] = []  # a wrapped line with its continuations (indented)
        for line in screen:
            if line.startswith("  ") and joined:
                joined[-1] += " " + line.strip()
            else:
                joined.append(line)
        table_end = max(i for i, line in enumerate(joined) if line.startswith("Hand of P0 ("))
        for p in (1, 2, 3):
            told = [i for i, line in enumerate(joined) if line.startswith(f"P{p} (")]
            assert len(told) == 1, screen
            assert told[0] > table_end  # below the table, next to the prompt
            assert ", discarded " in joined[told[0]], joined  # drew or took ..., discarded
        first = min(i for i, line in enumerate(screen) if line.startswith("P1 ("))
        assert len(screen) - first <= 24 - 1  # the bots' round on screen with the prompt


def test_make_bots_passes_greedy_to_the_learned_bots_only():
    """--greedy / --no-greedy: most-likely or sampled play for the learned bots; the
    others take no such setting."""
    pytest.importorskip("torch")
    game = Game("argentine", seed=3)
    for greedy in (True, False):
        bots = make_bots(game, 0, ["ppo", "random", "ppo"], 3, greedy=greedy)
        assert bots[1].greedy is greedy and bots[3].greedy is greedy
        assert not hasattr(bots[2], "greedy")
    assert make_bots(game, 0, ["ppo", "random", "ppo"], 3)[1].greedy is True  # ppo's default


def test_play_save_appends_whole_or_not_at_all(tmp_path, monkeypatch):
    # --save adds the game to the file's games; a write that fails halfway (a full disk)
    # leaves the file byte for byte as it was, with no temporary file beside it
    from burako_env import records

    lines, expected = script_game(seed=3)
    save = tmp_path / "played.jsonl"
    save.write_bytes(b'{"an": "earlier game"}\n')
    real = records.write_records

    def write_half(path, recs, append=False):
        with open(path, "a" if append else "w", encoding="utf-8") as f:
            f.write('{"variant": "argen')
        raise OSError(28, "No space left on device", str(path))

    args = ["play", "--bots", "random", "--seed", "3", "--save", str(save)]
    monkeypatch.setattr(records, "write_records", write_half)
    res = run(*args, input="\n".join(lines) + "\n")
    assert res.exit_code == 2 and "No space left on device" in res.output, res.output
    assert save.read_bytes() == b'{"an": "earlier game"}\n'
    assert list(tmp_path.iterdir()) == [save]
    monkeypatch.setattr(records, "write_records", real)
    res = run(*args, input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output
    first, second = save.read_text().splitlines()
    assert first == '{"an": "earlier game"}'
    assert json.loads(second)["actions"] == expected.actions
    assert list(tmp_path.iterdir()) == [save]


def test_play_other_variant_seat_and_bots():
    lines, expected = script_game("italian", players=2, seat=1, bots="greedy", seed=7)
    res = run(
        "play",
        "--variant",
        "italian",
        "--players",
        "2",
        "--seat",
        "1",
        "--bots",
        "greedy",
        "--seed",
        "7",
        input="\n".join(lines) + "\n",
    )
    assert res.exit_code == 0, res.output
    assert "P0 (Easy):" in res.output and "Hand of P1" in res.output  # greedy's level
    assert f"Your team (team 1) {expected.scores[1]}" in res.output


def test_play_quit_and_end_of_input(tmp_path):
    save = tmp_path / "none.jsonl"
    res = run("play", "--bots", "random", "--save", str(save), input="legal\nquit\n")
    assert res.exit_code == 0, res.output
    assert "You left the game." in res.output and "nothing saved" in res.output
    assert not save.exists()
    res = run("play", "--bots", "greedy", "--seat", "2", input="help\n")
    assert res.exit_code == 0, res.output
    assert "End of input: the game is abandoned." in res.output
    res = run("play", "--bots", "random", input="")
    assert res.exit_code == 0 and "End of input" in res.output


def test_play_default_bots():
    res = run("play", "--players", "2", input="")
    assert res.exit_code == 0, res.output
    assert "Burako, argentine, 2 players" in res.output


def test_play_survives_random_garbage():
    rng = random.Random(0)
    alphabet = "abcdhsjkqtAKQJT0123456789 *,-♥♣[]#\t"
    words = ["meld", "add", "discard", "to", "draw", "take", "keep", "reject", "muerto"]
    lines = []
    for _ in range(200):
        parts = [
            rng.choice(words)
            if rng.random() < 0.4
            else "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
            for _ in range(rng.randint(0, 4))
        ]
        lines.append(" ".join(parts))
    res = run("play", "--bots", "random", "--seed", "1", input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output


def test_play_rejects_bad_options():
    res = run("play", "--seat", "4", input="")
    assert res.exit_code == 2 and "--seat must be 0..3" in res.output
    res = run("play", "--bots", "nosuch", input="")
    assert res.exit_code == 2 and "unknown agent" in res.output
    res = run("play", "--bots", "random,greedy", input="")
    assert res.exit_code == 2 and "one per other seat" in res.output
    res = run("play", "--variant", "klondike", input="")
    assert res.exit_code == 2


def test_parse_move_words_and_errors():
    game = Game("argentine", seed=0)
    assert parse_move("LEGAL", game, 0) == "legal"
    assert parse_move("q", game, 0) == "quit"
    assert parse_move("keep", game, 0) == 2
    assert parse_move(" 3 ", game, 0) == 3
    hand = [c for c in range(53) for _ in range(int(game.state.hands[0, 0, c]))]
    from burako_env.cards import format_card

    assert parse_move(f"discard {format_card(hand[0])}", game, 0) == DISCARD_BASE + hand[0]
    missing = next(c for c in range(52) if game.state.hands[0, 0, c] == 0)
    with pytest.raises(MoveError, match="you do not hold"):
        parse_move(f"discard {format_card(missing)}", game, 0)
    with pytest.raises(MoveError, match="is not a meld"):
        parse_move("meld 3c 9d Kh", Game("argentine", seed=0), 0)
