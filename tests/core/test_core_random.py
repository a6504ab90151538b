"""Random play through the core's Python API: :func:`burako_env.checks.api_test` for every
variant and player count, the largest meld count seen (the evidence for MAX_MELDS), and
determinism (same seed, no JIT, any numba thread count).

The slow tests (``@pytest.mark.slow``) play thousands of games per configuration; they run
with ``-m slow`` or when ``BURAKO_SIM_GAMES`` is set (games per configuration; CI sets a
small count, e.g. ``BURAKO_SIM_GAMES=100``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from burako_env.checks import (
    ApiTestError,
    api_test,
    check_cards,
    check_hidden,
    check_melds,
    max_steps,
    meld_counts_seen,
    random_play,
    state_digest,
)
from burako_env.core.constants import MAX_MELDS, MF_SIZE
from burako_env.core.game import Game, IllegalActionError
from burako_env.core.state import states_equal, take_games
from burako_env.variants import load_variant

ROOT = Path(__file__).resolve().parents[2]

#: every named variant at every player count it allows
CONFIGS = [
    ("argentine", 2),
    ("argentine", 4),
    ("italian", 2),
    ("italian", 4),
    ("brazilian", 2),
    ("brazilian", 4),
    ("colombian", 4),
    ("colombian", 6),
    ("colombian", 8),
]
#: games per configuration in the default run, uniform and meld-biased (sized for about a
#: minute and a half on 2 cores for the whole file)
DEFAULT_GAMES = {2: 6, 4: 6, 6: 5, 8: 4}
#: meld-biased play goes out, fills canastas and takes muertos far more than uniform play
MELD_BIAS = 0.7
#: a match to a low target, so that a few hands are played and scored
MATCH_TARGET = 400


def _sim_games() -> int | None:
    value = os.environ.get("BURAKO_SIM_GAMES")
    return int(value) if value else None


def _slow_enabled(config) -> bool:
    return _sim_games() is not None or "slow" in (config.getoption("markexpr") or "")


@pytest.fixture
def slow_only(request):
    if not _slow_enabled(request.config):
        pytest.skip("a long simulation: run with -m slow or set BURAKO_SIM_GAMES")


# ---------------------------------------------------------------------- api_test
@pytest.mark.parametrize(("variant", "players"), CONFIGS)
@pytest.mark.parametrize("meld_bias", [0.0, MELD_BIAS], ids=["uniform", "meldy"])
def test_api_test(variant, players, meld_bias):
    games = DEFAULT_GAMES[players]
    if meld_bias and variant == "brazilian":
        games //= 2  # its biased hands often run to max_turns: long
    report = api_test(variant, players, num_games=games, seed=11, meld_bias=meld_bias)
    print(report)
    assert report.hands == report.games == games
    assert report.max_hand_steps <= max_steps(variant, players)
    assert report.full_scans > 0 and report.illegal_tried > 0 and report.hidden_checks > 0


@pytest.mark.parametrize("variant", ["argentine", "italian", "brazilian", "colombian"])
def test_api_test_match(variant):
    report = api_test(
        variant,
        num_games=2,
        seed=5,
        episode="match",
        meld_bias=MELD_BIAS,
        target=MATCH_TARGET,
        max_hands=4,
    )
    print(report)
    assert report.hands >= report.games


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players"), CONFIGS)
@pytest.mark.parametrize("meld_bias", [0.0, MELD_BIAS], ids=["uniform", "meldy"])
def test_api_test_many(variant, players, meld_bias, slow_only):
    games = _sim_games() or 2000
    report = api_test(
        variant,
        players,
        num_games=games,
        seed=1000,
        meld_bias=meld_bias,
        full_mask_scan_every=25,
        hidden_every=7,
        batch_size=8,
    )
    print(report)
    assert report.games == games


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["argentine", "italian", "brazilian", "colombian"])
def test_api_test_many_matches(variant, slow_only):
    games = max(2, (_sim_games() or 2000) // 50)
    report = api_test(
        variant,
        num_games=games,
        seed=2000,
        episode="match",
        meld_bias=MELD_BIAS,
        full_mask_scan_every=25,
        hidden_every=7,
        batch_size=8,
    )
    print(report)


# ---------------------------------------------------------------------- the checks catch
def test_checks_catch_a_lost_card():
    game = Game("argentine", batch_size=1, seed=3)
    check_cards(game.state, 0, game.variant)
    game.state.stock_len[0] -= 1
    with pytest.raises(ApiTestError, match="not accounted for"):
        check_cards(game.state, 0, game.variant)


def test_checks_catch_a_known_card_not_held():
    game = Game("argentine", batch_size=1, seed=3)
    c = int(np.flatnonzero(game.state.hands[0, 1] == 0)[0])
    game.state.known[0, 1, c] = 1
    with pytest.raises(ApiTestError, match="known"):
        check_cards(game.state, 0, game.variant)


def test_checks_catch_a_wrong_meld():
    from burako_env.scenario import build_game

    game = build_game("argentine", hands={0: "Kd Kc"}, melds={0: ["5s 6s 7s"]}, phase="play")
    check_melds(game.state, 0, game.variant)
    game.state.melds[0, 0, 0, MF_SIZE] = 4  # the row claims a card it does not hold
    with pytest.raises(ApiTestError, match="size"):
        check_melds(game.state, 0, game.variant)


def test_checks_catch_a_leak():
    """An observation that shows a hidden card is caught (here: the stock's top card,
    written into the observation by a patched observe_one)."""
    game = Game("argentine", batch_size=1, seed=3)
    rng = np.random.default_rng(0)
    assert check_hidden(game, 0, 1, rng) == 1
    real = game.observe_one

    def leaky(player, b=0, out=None):
        obs = real(player, b, out).copy()
        obs[0] += int(game.state.stock[b, game.state.stock_len[b] - 1])
        return obs

    game.observe_one = leaky
    with pytest.raises(ApiTestError, match="hidden"):
        for _ in range(5):  # a reshuffle may leave the top card in place
            check_hidden(game, 0, 1, rng)


def test_max_steps_argument():
    assert max_steps("argentine") == 2 * 400 + 106 + 2
    assert max_steps("colombian", 8) == 2 * 400 + 4 * 54 + 6
    assert max_steps("brazilian") == 2 * 400 + 400 * 108 + 2


# ---------------------------------------------------------------------- MAX_MELDS
def test_meld_count_stays_below_max_melds():
    """The most melds a team ever had over many random games, per configuration."""
    games = max(300, _sim_games() or 0)
    seen = {}
    for variant, players in CONFIGS:
        seen[f"{variant} {players}p"] = meld_counts_seen(variant, players, games, seed=7)
    print(f"largest meld count of a team over {games} random games each: {seen}")
    # 12000 brazilian 2p games reached 17, 8000 colombian 8p games 18 (1 game in 8000)
    assert max(seen.values()) <= MAX_MELDS - 2, seen


# ---------------------------------------------------------------------- determinism
_NOJIT_CASES = [("italian", 2, 2), ("colombian", 4, 1)]

_NOJIT_SCRIPT = """
import json, sys
from burako_env.checks import random_play
out = []
for variant, players, seed in json.loads(sys.argv[1]):
    scores, digest, steps = random_play(variant, players, batch_size=2, seed=seed,
                                        action_seed=seed + 1)
    out.append([scores.tolist(), digest, steps])
print(json.dumps(out))
"""


def test_same_results_without_jit():
    """The kernels run as plain Python (NUMBA_DISABLE_JIT=1) give the same games."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run(
        [sys.executable, "-c", _NOJIT_SCRIPT, json.dumps(_NOJIT_CASES)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    plain = json.loads(proc.stdout.strip().splitlines()[-1])
    for (variant, players, seed), (scores, digest, steps) in zip(_NOJIT_CASES, plain, strict=True):
        j_scores, j_digest, j_steps = random_play(
            variant, players, batch_size=2, seed=seed, action_seed=seed + 1
        )
        assert (j_scores.tolist(), j_steps) == (scores, steps), variant
        assert j_digest == digest, f"{variant}: final states differ with and without the JIT"


def test_same_seed_same_games():
    """Two Game objects with one seed and one action sequence stay identical."""
    a = Game("argentine", batch_size=8, seed=42)
    b = Game("argentine", batch_size=8, seed=42)
    assert states_equal(a.state, b.state)
    assert not states_equal(a.state, Game("argentine", batch_size=8, seed=43).state)
    rng = np.random.default_rng(0)
    while not a.done.all():
        n = a.state.num_legal
        pick = (rng.random(8) * np.maximum(n, 1)).astype(np.int64)
        actions = np.where(n > 0, a.state.legal[np.arange(8), pick], -1)
        a.step(actions)
        b.step(actions)
        assert states_equal(a.state, b.state)
        np.testing.assert_array_equal(a.observe(), b.observe())
    np.testing.assert_array_equal(a.hand_scores, b.hand_scores)
    np.testing.assert_array_equal(a.score_items, b.score_items)


def test_the_one_game_kernel_plays_as_the_batch_kernel():
    """A batch of one runs on the serial one-game kernel, a larger batch on the parallel
    kernel: game 0 of each, dealt from one seed and given one action sequence (steps,
    a checked illegal action, observations, the action errors), is the same game."""
    one = Game("argentine", batch_size=1, seed=9)
    three = Game("argentine", batch_size=3, seed=9)
    rng = np.random.default_rng(1)
    steps = 0
    while not one.done[0]:
        np.testing.assert_array_equal(one.legal_actions(), three.legal_actions(0))
        np.testing.assert_array_equal(one.observe_one(1), three.observe_one(1, 0))
        illegal = int(np.flatnonzero(~one.legal_action_mask()[0])[0])
        assert one.action_error(illegal) == three.action_error(illegal, 0) != 0
        legal = one.legal_actions()
        a = int(legal[rng.integers(legal.size)])
        # the other games play their first legal action; once over, they skip (-1)
        others = [
            int(three.legal_actions(b)[0]) if three.state.num_legal[b] else -1 for b in (1, 2)
        ]
        if steps % 2:
            one.step(np.array([a]))
            three.step(np.array([a, *others]))
        else:
            one.step_one(a)
            three.step_one(a, 0)
        steps += 1
        assert states_equal(one.state, take_games(three.state, 0))
    assert steps > 20
    np.testing.assert_array_equal(one.hand_scores[0], three.hand_scores[0])


def test_a_checked_batch_step_moves_no_game_when_one_action_is_illegal():
    """Game.step checks the whole batch before any game moves: an illegal action in one
    game raises naming that game, action and reason, and every game is left as it was;
    unchecked, the illegal game reports its code and the others move."""
    game = Game("argentine", batch_size=4, seed=2)
    actions = np.array([int(game.legal_actions(b)[0]) for b in range(4)])
    illegal = int(np.flatnonzero(~game.legal_action_mask()[2])[0])
    actions[2] = illegal
    before = game.snapshot()
    with pytest.raises(IllegalActionError) as info:
        game.step(actions)
    assert info.value.game_index == 2 and info.value.action == illegal
    assert info.value.code == game.action_error(illegal, 2) != 0
    assert states_equal(before, game.state)
    errors = game.step(actions, check=False)
    assert errors[2] == info.value.code and (errors[[0, 1, 3]] == 0).all()
    for b in (0, 1, 3):
        assert not states_equal(take_games(before, b), take_games(game.state, b))
    assert states_equal(take_games(before, 2), take_games(game.state, 2))


def test_thread_count_does_not_change_games():
    """Batched kernels give the same games on 1 numba thread and on 2."""
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    saved = numba.get_num_threads()
    results = []
    try:
        for n in (1, threads):
            numba.set_num_threads(n)
            results.append(random_play("colombian", 4, batch_size=8, seed=9, action_seed=1))
            results.append(random_play("brazilian", 4, batch_size=8, seed=9, action_seed=2))
    finally:
        numba.set_num_threads(saved)
    for one, two in ((results[0], results[2]), (results[1], results[3])):
        np.testing.assert_array_equal(one[0], two[0])
        assert one[1:] == two[1:]


def test_thread_count_does_not_change_playouts():
    """The compiled random playout kernel too (each game has its own generators)."""
    from burako_env.core import kernels
    from burako_env.core.game import game_seeds
    from burako_env.core.params import variant_params
    from burako_env.core.state import allocate_state

    v = load_variant("argentine")
    params = variant_params(v)
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    saved = numba.get_num_threads()
    out = []
    try:
        for n in (1, threads):
            numba.set_num_threads(n)
            st = allocate_state(8, v.num_players)
            st.rng[:] = game_seeds(5, 8)
            agent_rng = game_seeds(6, 8)
            stats = np.zeros((8, 4), np.int64)
            kernels.random_playout(st, params, agent_rng, 0, 3, 10_000, stats)
            out.append((state_digest(st), stats.copy()))
    finally:
        numba.set_num_threads(saved)
    assert out[0][0] == out[1][0]
    np.testing.assert_array_equal(out[0][1], out[1][1])
    assert (out[0][1][:, 0] == 3).all()


# ---------------------------------------------------------------------- leaks found here
def _known_after_discard(hand1: str) -> np.ndarray:
    from burako_env.cards import parse_card
    from burako_env.core.actions import discard_action
    from burako_env.scenario import build_game

    game = build_game("argentine", hands={0: "3c 4c 5c", 1: hand1}, player=1, phase="play")
    seven = parse_card("7h")
    game.state.known[0, 1, seven] = 1  # one 7h taken from the pile: public
    game.step_one(discard_action(seven))
    lay = game.layout
    return game.observe_one(0)[lay.known : lay.known + 53]


def test_playing_a_known_card_shows_no_hidden_copy():
    """A player known to hold one 7h (from the pile) plays a 7h: whether they held a
    second, private 7h must not show (the core once kept the card 'known')."""
    assert np.array_equal(_known_after_discard("7h 7h 8c 9d"), _known_after_discard("7h 6d 8c 9d"))


def test_rediscard_bar_is_private():
    """italian pile_no_rediscard: the bar on the card just taken depends on whether the
    taker held one before, so only the taker sees it."""
    from burako_env.cards import parse_card
    from burako_env.core.constants import TAKE_PILE
    from burako_env.scenario import build_game

    others, own = [], []
    for hand in ("7h 8c 9d Kd", "6d 8c 9d Kd"):
        game = build_game(
            "italian", hands={0: "3c 4c 5c", 1: hand}, pile="7h", player=1, phase="draw"
        )
        game.step_one(TAKE_PILE)
        bar = game.layout.misc + 7
        others.append([int(game.observe_one(p)[bar]) for p in (0, 2, 3)])
        own.append(int(game.observe_one(1)[bar]))
    assert others[0] == others[1] == [0, 0, 0]
    assert own == [0, parse_card("7h") + 1]


def test_a_state_is_freed_once_its_fields_were_read():
    """Field views are not cached on the state: a view refers back to its state, and a
    cycle through numpy arrays is never collected (a cached view leaked every copy of a
    state, 24 GB in one test run)."""
    import gc
    import weakref

    from burako_env.core.state import allocate_state, copy_state

    state = copy_state(allocate_state(4, 4))
    assert state.hands.shape == (4, 4, 53) and state.stock_len.shape == (4,)
    state.hands[1, 2, 3] = 2
    assert state.view(np.ndarray)["hands"][1, 2, 3] == 2  # a view, not a copy
    alive = weakref.ref(state)
    del state
    gc.collect()
    assert alive() is None
