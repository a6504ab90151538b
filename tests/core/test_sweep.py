"""The reliability sweep (burako sweep, docs/RELIABILITY.md): its invariant checks catch
broken tables, and short sweeps of every variant find no violation."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import card, do_add, do_discard

from burako_env.core.constants import (
    DISCARD_BASE,
    MF_SIZE,
    MUERTO_STOCK,
    MUERTO_UNTAKEN,
    S_MUERTOS_LEFT,
    S_WENT_OUT,
)
from burako_env.core.sweep import _cards_by_type_ok, _cards_on_table, _went_out_ok
from burako_env.frontends.sweep import player_counts, sweep
from burako_env.scenario import build_game

VARIANTS = ("argentine", "italian", "brazilian", "colombian")


@pytest.mark.parametrize("variant", VARIANTS)
def test_short_sweep_has_no_violation(variant):
    report = sweep(variant, hands=40 * len(player_counts(variant, None)), batch=8, seed=1)
    assert report.violations == 0, str(report)
    assert report.hands >= 40 * len(report.results)
    assert [r.players for r in report.results] == player_counts(variant, None)
    for r in report.results:
        c = r.counts
        assert c["went_out"] + c["stock_end"] + c["max_turns_end"] == c["hands"]
        assert c["went_out_by_melding"] <= c["went_out"]
    assert "violations" in str(report)
    # the columns' header, then each player count's line with its rate of hands gone out
    head = str(report).splitlines()[1]
    assert (
        head.split()
        == (
            "players hands hands/s out out by meld stock 400 t direct bad cards no legal "
            "too long bad out"
        ).split()
    )
    lines = str(report).splitlines()[2:]
    for r, line in zip(report.results, lines, strict=True):
        assert f"{r.counts['went_out'] / max(r.counts['hands'], 1):.1%}" in line.split()


def test_sweep_is_deterministic():
    a = sweep("colombian", hands=32, players=6, batch=4, seed=3)
    b = sweep("colombian", hands=32, players=6, batch=4, seed=3)
    c = sweep("colombian", hands=32, players=6, batch=4, seed=4)
    assert a.results[0].counts == b.results[0].counts
    assert a.results[0].counts != c.results[0].counts


def test_card_checks_catch_a_lost_card():
    game = build_game("argentine", hands={0: "Ts Js Qs", 1: "4c 5c"}, melds={0: ["5s 6s 7s"]})
    st, params = game.state, game.params
    counts = np.zeros(53, np.int64)
    total = game.variant.total_cards
    assert _cards_on_table(st, 0, params) == total
    assert _cards_by_type_ok(st, 0, params, counts)
    ten, jack = card("Ts"), card("Js")
    st.hands[0, 0, ten] -= 1  # a Ts vanishes
    assert _cards_on_table(st, 0, params) == total - 1
    assert not _cards_by_type_ok(st, 0, params, counts)
    st.hands[0, 0, jack] += 1  # ... and a second Js takes its place
    assert _cards_on_table(st, 0, params) == total
    assert not _cards_by_type_ok(st, 0, params, counts)  # the cheap count cannot see it


def test_shared_pot_card_check_counts_the_packets_left():
    game = build_game("brazilian", hands={0: "Ts Js", 1: "4c 5c"})
    counts = np.zeros(53, np.int64)
    assert _cards_by_type_ok(game.state, 0, game.params, counts)
    game.state.scalars[0, S_MUERTOS_LEFT] = 1  # a packet gone without a trace
    assert _cards_on_table(game.state, 0, game.params) == game.variant.total_cards - 11
    assert not _cards_by_type_ok(game.state, 0, game.params, counts)


def test_went_out_check_catches_a_team_out_without_its_conditions():
    game = build_game(
        "argentine", hands={0: "Ts Js", 1: "4c 5c"}, melds={0: ["5s 6s 7s 8s 9s"]},
        muertos_taken={0: 1},
    )  # fmt: skip
    do_add(game, "Ts", 0)
    do_add(game, "Js", 0)
    st, params = game.state, game.params
    assert game.done[0]
    assert _went_out_ok(st, 0, params, 0)
    st.melds[0, 0, 0, MF_SIZE] = 6  # pretend the run is no canasta
    assert not _went_out_ok(st, 0, params, 0)
    st.melds[0, 0, 0, MF_SIZE] = 7
    st.muerto_status[0, 0, 0] = MUERTO_UNTAKEN  # pretend the muerto is still untaken
    assert not _went_out_ok(st, 0, params, 0)


def test_went_out_check_refuses_a_shared_pot_team_that_never_took_one():
    game = build_game(
        "brazilian", hands={0: "Qs 4h", 1: "4c 5c"}, melds={0: ["5s 6s 7s 8s 9s Ts Js"]},
        muertos_taken={0: 1},
    )  # fmt: skip
    do_discard(game, "4h")  # nothing ends; now make team 0 out by hand
    st, params = game.state, game.params
    st.hands[0, 0] = 0
    st.scalars[0, S_WENT_OUT] = 0
    last = DISCARD_BASE + card("4h")
    assert _went_out_ok(st, 0, params, last)
    st.muerto_status[0, 0, 0] = MUERTO_STOCK  # the pot emptied before team 0 took one
    assert not _went_out_ok(st, 0, params, last)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="hands"):
        sweep("argentine", hands=0)
    with pytest.raises(ValueError, match="meld_bias"):
        sweep("argentine", hands=4, meld_bias=2.0)


def test_a_slot_plays_every_chunk_of_its_share():
    """A game slot plays its share of the hands in chunks (CHUNK_HANDS); a share of more
    than one chunk is played to its end, and the report counts every hand."""
    from burako_env.frontends.sweep import CHUNK_HANDS

    slots = 2
    hands = slots * (CHUNK_HANDS + 4)  # a chunk and part of another in each slot
    report = sweep("argentine", hands=hands, players=4, batch=slots, seed=2)
    assert report.hands == hands
    (result,) = report.results
    assert result.counts["hands"] == hands
