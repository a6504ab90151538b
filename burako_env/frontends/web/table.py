"""A game as the page draws it: plain JSON, seen by one seat or with every hand open.

:func:`table_view` reads game ``b`` of a :class:`~burako_env.core.game.Game` (no kernel
runs, so drawing never changes a game) and returns what a player at ``viewer`` may see
(RULES.md 10): their own hand, every hand size, the whole discard pile in order, both
teams' melds with where each wild stands and what it stands for (a meld's ``wild_text``,
in the log's words; a run wild's ``stands_for`` card ids: its gap's card, or both cards
an end wild may be), the muertos, the cards known to be in other hands, scores and, once
a hand has ended, every score item of both teams. A seat sees what its observation
holds and no more: the bar on discarding the card just taken (``no_discard``) only the
taker (whether it appears tells whether the taker held a copy).
``viewer=None`` opens every hand (watching a recorded game). :func:`hand_end_view` is the
table as a hand ended, every hand open, for the end-of-hand summary (who went out, the
melds, the cards left in each hand).

Cards travel as card type ids (0..52); :func:`card_faces` gives the page their rank,
suit and colour once. Words (the log's, the thinking's, the refusals') are the terminal's
with cards written as the page draws them (:func:`web_words`: ``10♥``, ``★``).
"""

# Kernel module: the rules its kernels follow (burako_env/jit/__init__.py says why).
# - Its kernels call only the core and this file: the cache folder's name (the core's and
#   the jit's sources) and numba's own stamp (this file) cover nothing else.
# - Constants are module globals, compiled in; constant arguments go as np.int64/np.bool_.
# - burako_env.jit's @njit is link-only (kernels call it, Python cannot); Python calls
#   @njit_kernel, @njit_parallel or numba's own njit. A loop over games indexes np.uint64.

from __future__ import annotations

import re

import numpy as np

from burako_env.cards import JOKER, NUM_CARD_TYPES, RANKS, SUIT_SYMBOLS, SUITS, sort_for_display
from burako_env.core.constants import (
    END_WENT_OUT,
    MAX_MUERTOS,
    MELD_GROUP,
    MELD_RUN,
    MELD_WILD_GROUP,
    MF_GAP,
    MF_KIND,
    MF_LO,
    MF_SIZE,
    MF_WILD,
    MUERTO_ABSENT,
    MUERTO_PENDING,
    MUERTO_STOCK,
    MUERTO_UNTAKEN,
    PHASE_OVER,
    PHASE_PEEK,
    S_PLAYER,
    SCORE_ITEMS,
)
from burako_env.core.melds import row_is_canasta_nb, row_is_clean_nb
from burako_env.core.rules import min_first_meld_active_nb, provisional_points_nb, team_minimum_nb
from burako_env.core.scoring import I_CANASTA, I_TABLE, score_hand_nb
from burako_env.core.state import take_games
from burako_env.core.view import GameView
from burako_env.frontends.narrate import wild_stands_for, wild_words
from burako_env.jit import njit_kernel
from burako_env.render import (
    END_TEXT,
    HOW_TEXT,
    PHASE_TEXT,
    SCORE_ITEM_TEXT,
    meld_display_cards,
    meld_label,
)

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

#: a canasta is a meld of 7 cards or more (RULES.md 2)
CANASTA_SIZE = 7
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


def card_faces() -> list[dict]:
    """Rank, suit and colour of every card type, in id order (what the page draws)."""
    faces = []
    for c in range(NUM_CARD_TYPES):
        if c == JOKER:
            faces.append({"id": c, "rank": "★", "suit": "joker", "symbol": "", "text": "*"})
            continue
        suit = c // len(RANKS)
        rank = RANKS[c % len(RANKS)]
        faces.append(
            {
                "id": c,
                "rank": "10" if rank == "T" else rank,
                "suit": SUIT_NAMES[suit],
                "symbol": SUIT_SYMBOLS[suit],
                "text": rank + SUITS[suit],
            }
        )
    return faces


#: a ten in the engine's words (``T♥``, burako play's notation) and the joker (``*``)
_TEN = re.compile(r"T(?=[♣♦♥♠])")
_JOKER = re.compile(r"(?<!\S)\*(?=[\s,.:;)]|$)")
#: the page's face of the joker (:func:`card_faces`), in words as on the table
JOKER_FACE = "★"
#: keys of an answer whose strings are data sent back as they are (a record file's name,
#: a game's id, a folder, the card faces' terminal notation), not words to show
DATA_KEYS = frozenset({"faces", "file", "files", "folder", "id", "saved_as", "message"})


def web_words(text: str) -> str:
    """Words of the log, the thinking and the refusals (the terminal's card notation:
    ``T♥``, ``*``) as the page shows cards: ``10♥``, ``★`` for the joker."""
    return _JOKER.sub(JOKER_FACE, _TEN.sub("10", text))


def web_json(value):
    """A JSON answer with every text in :func:`web_words` (the values of
    :data:`DATA_KEYS` left as they are): one place for everything the web shows."""
    if isinstance(value, str):
        return web_words(value)
    if isinstance(value, dict):
        return {k: v if k in DATA_KEYS else web_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [web_json(v) for v in value]
    return value


def _counts_to_sorted(counts) -> list[int]:
    return sort_for_display([c for c in range(len(counts)) for _ in range(int(counts[c]))])


def meld_cards(row) -> list[dict]:
    """A meld's cards in table order, each ``{"card", "wild", "stands_for"}``; ``wild`` is
    ``"gap"`` for a wild standing in for a missing card, ``"end"`` for one at an end of a
    run (it counts as whichever end the run needs), ``"group"`` for a group's wild, else
    null; ``stands_for``: a run's wild's card ids (its gap's card, or the cards just below
    and above the run for an end wild), else null."""
    kind = int(row[MF_KIND])
    wild = int(row[MF_WILD])
    cards = meld_display_cards(row)
    roles: list[str | None] = [None] * len(cards)
    if kind == MELD_RUN and wild >= 0:
        gap = int(row[MF_GAP])
        # meld_display_cards puts a gap wild at its position and an end wild last
        roles[gap - int(row[MF_LO]) if gap else len(cards) - 1] = "gap" if gap else "end"
    elif kind == MELD_GROUP and wild >= 0:
        roles[-1] = "group"
    elif kind == MELD_WILD_GROUP:
        roles = ["group"] * len(cards)
    stands = [int(c) for c in wild_stands_for(row)]
    return [
        {"card": int(c), "wild": r, "stands_for": stands if r in ("gap", "end") else None}
        for c, r in zip(cards, roles, strict=True)
    ]


def meld_view(row, slot: int, max_meld_size: int) -> dict:
    kind = int(row[MF_KIND])
    size = int(row[MF_SIZE])
    return {
        "slot": slot,
        "kind": {MELD_GROUP: "group", MELD_RUN: "run", MELD_WILD_GROUP: "wild group"}[kind],
        "cards": meld_cards(row),
        "label": meld_label(row, max_meld_size),
        "wild_text": wild_words(row) or None,  # the log's words: "the joker stands for 6♥"
        "clean": kind != MELD_WILD_GROUP and int(row[MF_WILD]) < 0,
        "canasta": size >= CANASTA_SIZE,
        "closed": bool(max_meld_size) and size >= max_meld_size,
    }


def _muertos(st, b: int) -> list[list[dict]]:
    teams = []
    for t in range(2):
        packets = []
        for m in range(MAX_MUERTOS):
            status = int(st.muerto_status[b, t, m])
            if status == MUERTO_ABSENT:
                continue
            if status == MUERTO_UNTAKEN:
                packets.append({"taken": False, "text": "untaken"})
            elif status == MUERTO_STOCK:
                packets.append({"taken": True, "text": "became the stock"})
            else:
                how = HOW_TEXT.get(int(st.muerto_how[b, t, m]), "")
                text = f"taken by P{int(st.muerto_taker[b, t, m])} ({how})"
                if status == MUERTO_PENDING:
                    text += ", not yet played"
                packets.append({"taken": True, "text": text})
        teams.append(packets)
    return teams


#: the columns of :func:`_running_score_kernel`'s answer, one row per team
RS_TABLE, RS_CANASTA, RS_MIN_ACTIVE, RS_MINIMUM, RS_PROVISIONAL, RS_CLEAN, RS_DIRTY = range(7)


@njit_kernel
def _running_score_kernel(st, params, out):
    """The engine's own scoring of game 0 of ``st`` (a copy: ``score_hand_nb`` writes its
    score items) as if the hand ended now with nobody going out, and each team's opening
    minimum (``min_first_meld``): ``out[t]`` is table cards, canasta bonuses, whether the
    minimum still applies, the minimum, and the provisional points the team to act laid
    this turn (0 for the other team)."""
    score_hand_nb(st, 0, params, -1)
    to_act = st.scalars[0, S_PLAYER] % 2
    for t in range(2):
        out[t, RS_TABLE] = st.score_items[0, t, I_TABLE]
        out[t, RS_CANASTA] = st.score_items[0, t, I_CANASTA]
        out[t, RS_MIN_ACTIVE] = 1 if min_first_meld_active_nb(st, 0, t, params) else 0
        out[t, RS_MINIMUM] = team_minimum_nb(st, 0, t, params)
        out[t, RS_PROVISIONAL] = provisional_points_nb(st, 0, t, params) if t == to_act else 0
        for i in range(st.num_melds[0, t]):
            row = st.melds[0, t, i]
            if row_is_canasta_nb(row):
                if row_is_clean_nb(row):
                    out[t, RS_CLEAN] += 1
                else:
                    out[t, RS_DIRTY] += 1


def running_score(game, b: int = 0) -> list[dict]:
    """Each team's points on the table so far, from the engine's scoring (``score_hand_nb``
    on a copy, as if the hand ended now with nobody out; the cards in hand, which would
    tell the other hands' values, are left out): table cards, canasta bonuses, clean and
    dirty canastas, and ``to_open``, the points still needed to open where the variant
    has a minimum (``min_first_meld``; None once opened or without one)."""
    out = np.zeros((2, 7), np.int64)
    _running_score_kernel(take_games(game.state, b), game.params, out)
    teams = []
    for t in range(2):
        table, bonus = int(out[t, RS_TABLE]), int(out[t, RS_CANASTA])
        to_open = None
        if out[t, RS_MIN_ACTIVE]:
            to_open = max(0, int(out[t, RS_MINIMUM]) - int(out[t, RS_PROVISIONAL]))
        teams.append(
            {
                "team": t,
                "table_cards": table,
                "canasta_bonus": bonus,
                "total": table + bonus,
                "clean_canastas": int(out[t, RS_CLEAN]),
                "dirty_canastas": int(out[t, RS_DIRTY]),
                "minimum": int(out[t, RS_MINIMUM]) if out[t, RS_MIN_ACTIVE] else None,
                "to_open": to_open,
            }
        )
    return teams


def score_view(items, scores) -> list[dict]:
    """Both teams' score items of a finished hand, in words, with their totals."""
    return [
        {
            "team": t,
            "total": int(scores[t]),
            "items": [
                {"name": name, "text": SCORE_ITEM_TEXT.get(name, name), "points": int(items[t, k])}
                for k, name in enumerate(SCORE_ITEMS)
            ],
        }
        for t in range(2)
    ]


def hand_end_view(game, mover: int, b: int = 0) -> dict:
    """The table as a hand ended, every hand open, for the end-of-hand summary:
    ``game`` is that hand over (its last move, ``mover``'s, played and no next deal).
    ``number``: the hand's; ``went_out``: ``{"seat", "team"}`` of the player who went out
    (None when the stock ran down or the turn limit was reached, then ``reason`` says
    which); ``melds``: both teams' melds as :func:`meld_view` draws them; ``hands``: every
    seat's cards left (card ids, held order), empty for the player who went out."""
    st = game.state
    s = GameView.of(st.scalars[b])
    reason = int(s.end_reason)
    went = reason == END_WENT_OUT
    max_meld = game.variant.max_meld_size
    return {
        "number": int(s.hands_ended),
        "reason": END_TEXT.get(reason, ""),
        "went_out": {"seat": int(mover), "team": int(s.went_out)} if went else None,
        "melds": [
            [meld_view(st.melds[b, t, i], i, max_meld) for i in range(int(st.num_melds[b, t]))]
            for t in range(2)
        ],
        "hands": [_counts_to_sorted(st.hands[b, p]) for p in range(game.num_players)],
    }


def table_view(game, b: int = 0, viewer: int | None = None) -> dict:
    """Game ``b`` seen by seat ``viewer`` (None: every hand open), as JSON-ready data."""
    st = game.state
    v = game.variant
    n = game.num_players
    if viewer is not None and not 0 <= viewer < n:
        raise ValueError(f"viewer must be a seat 0..{n - 1} or None, got {viewer}")
    s = GameView.of(st.scalars[b])
    phase = int(s.phase)
    player = int(s.player)
    over = phase == PHASE_OVER
    sizes = st.hands[b].sum(axis=1)
    pile_len = int(st.pile_len[b])
    pile = [int(c) for c in st.pile[b, :pile_len]]
    seats = []
    for p in range(n):
        seat = {
            "seat": p,
            "team": p % 2,
            "cards": int(sizes[p]),
            "to_act": p == player and not over,
        }
        if viewer is None or p == viewer:
            seat["hand"] = _counts_to_sorted(st.hands[b, p])
        elif st.known[b, p].any():
            seat["known"] = _counts_to_sorted(st.known[b, p])
        seats.append(seat)
    peek = int(s.peek_card)
    hands_ended = int(s.hands_ended)
    episode = getattr(game, "episode", "hand")
    view = {
        "variant": v.name,
        "num_players": n,
        "episode": episode,
        "target": int(v.target),
        "viewer": viewer,
        "hand_number": int(s.hand_index) + 1,
        "turn": int(s.turn) + 1,
        "phase": "over" if over else ("peek", "draw", "play")[phase],
        "phase_text": PHASE_TEXT[phase],
        "to_act": None if over else player,
        "stock": int(st.stock_len[b]),
        "pile": pile,  # bottom first: public in full (RULES.md 10)
        "peek_card": peek
        if phase == PHASE_PEEK and peek >= 0 and viewer in (None, player)
        else None,
        # the bar on rediscarding the card just taken tells whether the taker held one
        # before: the taker's own knowledge (the observation's too), no other seat's
        "no_discard": int(s.no_discard)
        if not over and s.no_discard >= 0 and viewer in (None, player)
        else None,
        "seats": seats,
        "muertos": _muertos(st, b),
        "melds": [
            [
                meld_view(st.melds[b, t, i], i, v.max_meld_size)
                for i in range(int(st.num_melds[b, t]))
            ]
            for t in range(2)
        ],
        "opened": [bool(s.opened[t]) for t in range(2)] if v.min_first_meld else None,
        "running": None if over else running_score(game, b),
        "match_points": [int(s.match_scores[0]), int(s.match_scores[1])],
        "hands_ended": hands_ended,
        "last_hand": None,
        "over": over,
        "result": None,
    }
    if hands_ended:
        scores = (int(s.hand_scores[0]), int(s.hand_scores[1]))
        view["last_hand"] = {
            "number": hands_ended,
            "scores": list(scores),
            "teams": score_view(np.asarray(st.score_items[b]), scores),
        }
    if over:
        reason = END_TEXT.get(int(s.end_reason), "")
        if s.end_reason == END_WENT_OUT:
            reason = f"team {int(s.went_out)} {reason}"
        winner = int(s.winner)
        view["result"] = {
            "reason": reason,
            "winner": winner,
            "text": f"{reason}; "
            + ("a tie" if winner < 0 else f"team {winner} wins the {episode}"),
        }
    return view


__all__ = [
    "CANASTA_SIZE",
    "DATA_KEYS",
    "JOKER_FACE",
    "card_faces",
    "hand_end_view",
    "meld_cards",
    "running_score",
    "score_view",
    "table_view",
    "web_json",
    "web_words",
]
