"""A game's scalars by name, for Python code: :class:`GameView` (``game.view(b)``).

The state's scalars are one int32 row per game (``state.scalars[b, S_*]``), the layout
the kernels read. Code outside the core reads them through a view instead, so that a
column's meaning lives in one place: ``game.view(b).phase``, ``.player``,
``.match_scores``. A view is a copy taken when asked (read-only: writing a field fails),
so it never changes under its reader and holds no reference to the state.
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


__all__ = ["GameView"]
