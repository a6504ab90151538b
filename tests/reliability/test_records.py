"""Game records read from outside (issue 59): a record's check is linear in its size, and
every text a record or a house-rule file carries reaches the terminal escaped and bounded.

Each test here fails on the code before that issue's fixes: the check deep-copied the
action list (``dataclasses.asdict``) and ran a Python call per action id, twice; a
variant's name (a record's inline rules, a house-rule file) was printed raw, escape
sequences included, in every table of ``burako replay``.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from conftest import cli

import burako_env.records as records
from burako_env.frontends.playback import check_record, header, replay_frames
from burako_env.limits import MAX_PRINTED_NAME, printable
from burako_env.records import GameRecord, deal_game, parse_record, variant_fields
from burako_env.variants import load_variant

#: an OSC sequence (retitles the window) and a C1 CSI (clears the screen)
EVIL = "evil\x1b]0;pwned\x07\x9b2J"


def played_record(variant="argentine", seed: int = 5) -> GameRecord:
    """A record of one hand played to its end by uniformly random legal moves."""
    v = load_variant(variant, num_players=2)
    game = deal_game(v, None, seed, 0)
    rng = np.random.default_rng(seed)
    actions = []
    while not game.is_over():
        a = int(rng.choice(game.legal_actions(0)))
        game.step_one(a)
        actions.append(a)
    name, overrides = variant_fields(v)
    return GameRecord(
        variant=name,
        num_players=2,
        seed=seed,
        index=0,
        seats=["a", "b"],
        actions=actions,
        scores=[int(x) for x in game.hand_scores[0]],
        winner=int(game.winner[0]),
        overrides=overrides,
    )


# ------------------------------------------------------------------ the check is linear
def test_a_long_record_is_checked_without_a_call_per_action(monkeypatch):
    """Reading and checking a record of 200,000 actions makes a bounded number of
    per-value calls: no ``check_whole`` per action id (it ran twice per id), no deep copy
    of the action list (``asdict`` ran ``copy.deepcopy`` once per id). A 14 MB record took
    85 to 117 s on a shared machine; structural, so that no timing can flake."""
    base = played_record()
    text = json.dumps({**vars(base), "actions": base.actions + [0] * 200_000})
    calls = {"check_whole": 0, "deepcopy": 0}
    check_whole, deepcopy = records.check_whole, copy.deepcopy

    def counted_check_whole(*args, **kw):
        calls["check_whole"] += 1
        return check_whole(*args, **kw)

    def counted_deepcopy(*args, **kw):
        calls["deepcopy"] += 1
        return deepcopy(*args, **kw)

    monkeypatch.setattr(records, "check_whole", counted_check_whole)
    monkeypatch.setattr(copy, "deepcopy", counted_deepcopy)
    problem = check_record(parse_record(text))
    n = len(base.actions)
    assert problem == f"the game ended after move {n} but the record goes on to move {n + 1}"
    assert calls["check_whole"] < 50 and calls["deepcopy"] < 50, calls


@pytest.mark.parametrize(
    "bad, words",
    [
        (True, "actions[12345] must be a whole number 0..2540, got True"),
        (2541, "actions[12345] must lie in 0..2540, got 2541"),
        (-1, "actions[12345] must lie in 0..2540, got -1"),
        (1.0, "actions[12345] must be a whole number 0..2540, got 1.0"),
    ],
)
def test_a_bad_action_id_deep_in_a_long_record_is_still_named(bad, words):
    data = {**vars(played_record()), "actions": [0] * 12345 + [bad] + [0] * 100}
    with pytest.raises(ValueError) as info:
        parse_record(json.dumps(data))
    assert str(info.value) == words


# ------------------------------------------------------------------ terminal escapes
def inline_record(name: str) -> GameRecord:
    """A played record whose rules are inline (a house-rule table), named ``name``."""
    rec = played_record(load_variant("argentine", num_players=2).replace(target=1234))
    assert isinstance(rec.variant, dict)
    rec.variant["name"] = name
    return rec


def test_replay_escapes_an_inline_rules_name(tmp_path):
    games = tmp_path / "games.jsonl"
    games.write_text(inline_record(EVIL).to_json() + "\n")
    result = cli("replay", games)
    assert result.exit_code == 0, result.output
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in result.output
    # the header and every table's title
    assert result.output.count(printable(EVIL)) == result.output.count("\n--- ") + 1


def test_replay_cuts_a_huge_name_and_says_so():
    """A 5 MB inline name printed 680 MB: it was in every table of the replay."""
    huge = "x" * 5_000_000
    rec = inline_record(huge)
    rec.seats[0] = "y" * 1_000_000
    cut = "x" * MAX_PRINTED_NAME + "…[5,000,000 characters, cut]"
    assert cut in header(rec) and "y" * MAX_PRINTED_NAME + "…[1,000,000 characters" in header(rec)
    frames = list(replay_frames(rec))
    assert all(cut in table for _, table in frames)
    assert sum(len(move) + len(table) for move, table in frames) < 2_000 * len(frames)


def test_rules_of_a_house_file_print_its_name_escaped(tmp_path):
    house = tmp_path / "house.yaml"
    house.write_text('base: argentine\nname: "evil\\e]0;pwned\\a"\n')
    result = cli("rules", house)
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "evil\\x1b]0;pwned\\x07: 4 players" in result.output
    assert "variant evil\\x1b]0;pwned\\x07 (4 players)" in result.output


def test_an_unknown_variant_name_is_quoted_escaped_and_cut():
    data = {**vars(played_record()), "variant": EVIL + "z" * 1_000_000}
    with pytest.raises(ValueError) as info:
        parse_record(json.dumps(data))
    message = str(info.value)
    assert message.startswith(f"unknown variant '{printable(EVIL)}zzz")
    assert f"…[{len(EVIL) + 1_000_000:,} characters, cut]'" in message and len(message) < 500


@pytest.mark.parametrize(
    ("change", "words"),
    [
        # num_players is the record's own field, not an override; each unknown key named
        (
            {"overrides": {"num_players": 4, "bogus": 1}},
            "overrides set rule parameters (not num_players, the record's own field), "
            "got 'bogus', 'num_players'",
        ),
        ({"scores": [10, 20, 30]}, "scores must be a list of two whole numbers"),
        ({"scores": 3}, "scores must be a list of two whole numbers"),
        ({"meta": ["source"]}, "meta must be a mapping, got ['source']"),
        ({"overrides": 1}, "overrides must be a mapping, got 1"),
    ],
)
def test_a_record_with_a_wrong_field_says_which(change, words):
    data = {**vars(played_record()), **change}
    with pytest.raises(ValueError) as info:
        parse_record(json.dumps(data))
    assert words in str(info.value)


def test_a_record_without_a_version_is_read_as_version_1_and_refused():
    """The first format wrote no ``version``: such a line is a version-1 record (another
    action space), refused with the words to record it again, never replayed as this one."""
    data = vars(played_record())
    del data["version"], data["num_actions"]
    with pytest.raises(ValueError, match=r"record format version 1 \(an action space of 1773"):
        parse_record(json.dumps(data))
