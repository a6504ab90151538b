"""The games' scalars by name, for Python code: :class:`GameView` (``game.view(b)``, one
game) and :class:`Columns` (``game.columns()``, every game of the batch).

The state's scalars are one int32 row per game (``state.scalars[b, S_*]``), the layout
the kernels read. Code outside the core reads them through these instead, so that a
column's meaning lives in one place (``tests/layers/test_layers.py`` keeps it so):

* ``game.view(b).phase``, ``.player``, ``.match_scores``: a copy taken when asked
  (read-only: writing a field fails), which never changes under its reader and holds no
  reference to the state;
* ``game.live_view(b).player``: :class:`LiveView`, the same fields as :class:`GameView`
  read from the state at each access (live: it follows the game as it moves), for the
  single-game loops (the AEC and Gymnasium envs) that read a field or two per step;
* ``game.columns().player``, ``.match_scores`` (``[B, 2]``): read-only numpy views of the
  state's columns, for the batch loops of the envs and the trainer. They are live too
  (``.copy()`` one to keep it), and cost nothing to take.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from burako_env.core.constants import (
    S_DEALER,
    S_DONE,
    S_END_REASON,
    S_EPISODE_MATCH,
    S_FIRST_PLAYER,
    S_HAND_INDEX,
    S_HAND_JUST_ENDED,
    S_HAND_SCORE0,
    S_HANDS_ENDED,
    S_LAST_TURN,
    S_MATCH0,
    S_MIN_EXTRA0,
    S_MUERTOS_LEFT,
    S_NO_DISCARD,
    S_OPENED0,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
    S_PROV_START,
    S_STEP,
    S_TOTAL_STEPS,
    S_TURN,
    S_WENT_OUT,
    S_WINNER,
)


@dataclass(frozen=True)
class GameView:
    """One game's scalars by name (teams in table order: team 0 holds the even seats)."""

    #: the phase (``PHASE_*`` of :mod:`burako_env.core.constants`)
    phase: int
    #: the seat to act
    player: int
    #: the seat that played first this hand
    first_player: int
    #: the dealer's seat
    dealer: int
    #: the hand's number within the match, from 0
    hand_index: int
    #: turns completed in this hand
    turn: int
    #: actions applied in this hand
    step: int
    #: actions applied in the episode
    total_steps: int
    #: the peeked card while in the peek phase, else -1
    peek_card: int
    #: the card the player to act may not discard this turn (rediscard rules), else -1
    no_discard: int
    #: the team's meld count when the turn began (provisional melds lie above it)
    prov_start: int
    #: a draw left the stock at its end: the hand ends at the discard
    last_turn: bool
    #: why the hand ended (``END_*``), 0 while it goes on
    end_reason: int
    #: the team that went out, -1 if none
    went_out: int
    #: the episode is over
    done: bool
    #: hands ended since the episode began
    hands_ended: int
    #: the last action ended a hand
    hand_just_ended: bool
    #: each team has melds confirmed on the table
    opened: tuple[bool, bool]
    #: what failed first melds added to each team's minimum
    min_extra: tuple[int, int]
    #: each team's match points
    match_scores: tuple[int, int]
    #: each team's score of the last finished hand
    hand_scores: tuple[int, int]
    #: the episode is a whole match (else one hand)
    episode_match: bool
    #: the team that won the episode, -1 for a tie or while it goes on
    winner: int
    #: muerto packets neither taken nor turned into the stock
    muertos_left: int

    @classmethod
    def of(cls, scalars: np.ndarray) -> GameView:
        """The view of one game's scalar row (``state.scalars[b]``)."""
        s = [int(v) for v in np.asarray(scalars).reshape(-1)]
        return cls(
            phase=s[S_PHASE],
            player=s[S_PLAYER],
            first_player=s[S_FIRST_PLAYER],
            dealer=s[S_DEALER],
            hand_index=s[S_HAND_INDEX],
            turn=s[S_TURN],
            step=s[S_STEP],
            total_steps=s[S_TOTAL_STEPS],
            peek_card=s[S_PEEK_CARD],
            no_discard=s[S_NO_DISCARD],
            prov_start=s[S_PROV_START],
            last_turn=bool(s[S_LAST_TURN]),
            end_reason=s[S_END_REASON],
            went_out=s[S_WENT_OUT],
            done=bool(s[S_DONE]),
            hands_ended=s[S_HANDS_ENDED],
            hand_just_ended=bool(s[S_HAND_JUST_ENDED]),
            opened=(bool(s[S_OPENED0]), bool(s[S_OPENED0 + 1])),
            min_extra=(s[S_MIN_EXTRA0], s[S_MIN_EXTRA0 + 1]),
            match_scores=(s[S_MATCH0], s[S_MATCH0 + 1]),
            hand_scores=(s[S_HAND_SCORE0], s[S_HAND_SCORE0 + 1]),
            episode_match=bool(s[S_EPISODE_MATCH]),
            winner=s[S_WINNER],
            muertos_left=s[S_MUERTOS_LEFT],
        )


def _column(index: int, doc: str) -> property:
    def read(self: Columns) -> np.ndarray:
        column = self.scalars[:, index]
        column.flags.writeable = False  # the view only: the state stays writable
        return column

    return property(read, doc=doc)


def _pair(index: int, doc: str) -> property:
    def read(self: Columns) -> np.ndarray:
        pair = self.scalars[:, index : index + 2]
        pair.flags.writeable = False
        return pair

    return property(read, doc=doc)


class Columns:
    """Every game's scalars by name: read-only int32 views of the state's columns, ``[B]``
    (``[B, 2]`` for the per-team pairs, teams in table order), live (see the module doc).
    The fields are :class:`GameView`'s."""

    __slots__ = ("scalars",)

    def __init__(self, scalars: np.ndarray) -> None:
        #: the state's scalars ``[B, NUM_SCALARS]`` that the columns view
        self.scalars = scalars

    phase = _column(S_PHASE, "the phase (``PHASE_*``)")
    player = _column(S_PLAYER, "the seat to act")
    first_player = _column(S_FIRST_PLAYER, "the seat that played first this hand")
    dealer = _column(S_DEALER, "the dealer's seat")
    hand_index = _column(S_HAND_INDEX, "the hand's number within the match, from 0")
    turn = _column(S_TURN, "turns completed in this hand")
    step = _column(S_STEP, "actions applied in this hand")
    total_steps = _column(S_TOTAL_STEPS, "actions applied in the episode")
    peek_card = _column(S_PEEK_CARD, "the peeked card while in the peek phase, else -1")
    no_discard = _column(S_NO_DISCARD, "the card the player to act may not discard, else -1")
    prov_start = _column(S_PROV_START, "the team's meld count when the turn began")
    last_turn = _column(S_LAST_TURN, "1 where a draw left the stock at its end")
    end_reason = _column(S_END_REASON, "why the hand ended (``END_*``), 0 while it goes on")
    went_out = _column(S_WENT_OUT, "the team that went out, -1 if none")
    done = _column(S_DONE, "1 where the episode is over")
    hands_ended = _column(S_HANDS_ENDED, "hands ended since the episode began")
    hand_just_ended = _column(S_HAND_JUST_ENDED, "1 where the last action ended a hand")
    opened = _pair(S_OPENED0, "1 where the team has melds confirmed on the table")
    min_extra = _pair(S_MIN_EXTRA0, "what failed first melds added to each team's minimum")
    match_scores = _pair(S_MATCH0, "each team's match points")
    hand_scores = _pair(S_HAND_SCORE0, "each team's score of the last finished hand")
    episode_match = _column(S_EPISODE_MATCH, "1 where the episode is a whole match")
    winner = _column(S_WINNER, "the team that won the episode, -1 for a tie or going on")
    muertos_left = _column(S_MUERTOS_LEFT, "muerto packets neither taken nor turned")


def _live(index: int, kind: type, doc: str) -> property:
    def read(self: LiveView):
        return kind(self.row[index])

    return property(read, doc=doc)


def _live_pair(index: int, kind: type, doc: str) -> property:
    def read(self: LiveView):
        return (kind(self.row[index]), kind(self.row[index + 1]))

    return property(read, doc=doc)


class LiveView:
    """One game's scalars by name, read at each access (see the module doc): the fields
    and types of :class:`GameView`."""

    __slots__ = ("row",)

    def __init__(self, row: np.ndarray) -> None:
        #: the game's scalar row (``state.scalars[b]``, a numpy view of the state)
        self.row = row

    phase = _live(S_PHASE, int, "the phase (``PHASE_*``)")
    player = _live(S_PLAYER, int, "the seat to act")
    first_player = _live(S_FIRST_PLAYER, int, "the seat that played first this hand")
    dealer = _live(S_DEALER, int, "the dealer's seat")
    hand_index = _live(S_HAND_INDEX, int, "the hand's number within the match, from 0")
    turn = _live(S_TURN, int, "turns completed in this hand")
    step = _live(S_STEP, int, "actions applied in this hand")
    total_steps = _live(S_TOTAL_STEPS, int, "actions applied in the episode")
    peek_card = _live(S_PEEK_CARD, int, "the peeked card while in the peek phase, else -1")
    no_discard = _live(S_NO_DISCARD, int, "the card the player to act may not discard, else -1")
    prov_start = _live(S_PROV_START, int, "the team's meld count when the turn began")
    last_turn = _live(S_LAST_TURN, bool, "a draw left the stock at its end")
    end_reason = _live(S_END_REASON, int, "why the hand ended (``END_*``), 0 while it goes on")
    went_out = _live(S_WENT_OUT, int, "the team that went out, -1 if none")
    done = _live(S_DONE, bool, "the episode is over")
    hands_ended = _live(S_HANDS_ENDED, int, "hands ended since the episode began")
    hand_just_ended = _live(S_HAND_JUST_ENDED, bool, "the last action ended a hand")
    opened = _live_pair(S_OPENED0, bool, "each team has melds confirmed on the table")
    min_extra = _live_pair(S_MIN_EXTRA0, int, "what failed first melds added to each minimum")
    match_scores = _live_pair(S_MATCH0, int, "each team's match points")
    hand_scores = _live_pair(S_HAND_SCORE0, int, "each team's score of the last finished hand")
    episode_match = _live(S_EPISODE_MATCH, bool, "the episode is a whole match")
    winner = _live(S_WINNER, int, "the team that won the episode, -1 for a tie or going on")
    muertos_left = _live(S_MUERTOS_LEFT, int, "muerto packets neither taken nor turned")


__all__ = ["Columns", "GameView", "LiveView"]
