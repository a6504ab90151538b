"""Every constant the core shares with Python: card types, phases, action id ranges,
meld fields, state scalars, error codes and the observation layout.

Enums are plain integers (vectorbt's habit) so numba kernels and Python read the same
names. Nothing here imports numba.
"""

from __future__ import annotations

from typing import NamedTuple

# ---------------------------------------------------------------- cards (RULES.md 1)
NUM_CARD_TYPES = 53
JOKER = 52
NUM_SUITS = 4
NUM_RANKS = 13
RANK_TWO = 1
RANK_ACE = 0
#: wild kinds used by meld templates: 0 none, 1 joker, 2..5 the 2 of suit 0..3
NUM_WILD_KINDS = 6
WILD_NONE = 0
WILD_JOKER = 1

# ---------------------------------------------------------------- table sizes
MAX_PLAYERS = 8
MAX_MUERTOS = 3
MUERTO_SIZE = 11
MAX_CARDS = 4 * 54  # four decks with two jokers each: the largest variant
#: meld slots per team. A team's melds hold at least 3 cards each, and a team has at most
#: two players' hands plus its muertos to meld from; see docs/ACTIONS.md for the argument
#: and tests/core/test_core_random.py for the largest count seen.
MAX_MELDS = 20

# ---------------------------------------------------------------- phases
PHASE_PEEK = 0  # first player decides on the peeked top card
PHASE_DRAW = 1  # draw from the stock or take the pile
PHASE_PLAY = 2  # meld (open / add / take muerto keeping wilds) or discard
PHASE_OVER = 3  # the episode is over
NUM_PHASES = 4

# ---------------------------------------------------------------- actions (docs/ACTIONS.md)
DRAW_STOCK = 0
TAKE_PILE = 1
PEEK_KEEP = 2
PEEK_REJECT = 3
TAKE_MUERTO_KEEP_WILDS = 4
#: group openings name their cards (RULES.md 2.1): for each of the 12 ranks (A, 3..K),
#: 20 clean templates (the multisets of 3 suits) then 10 x 5 with a wild (the multisets
#: of 2 suits, each with one of the 5 wild kinds): every choice of suits and wild is an id
OPEN_GROUP_BASE = 5
GROUP_RANKS = (0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
NUM_GROUP_RANKS = 12
GROUP_CLEAN_SUITS = tuple(
    (a, b, c) for a in range(4) for b in range(a, 4) for c in range(b, 4)
)  # 20 multisets of 3 suits, sorted
GROUP_PAIR_SUITS = tuple((a, b) for a in range(4) for b in range(a, 4))  # 10 multisets of 2
GROUP_CLEAN_TEMPLATES = len(GROUP_CLEAN_SUITS)
GROUP_DIRTY_TEMPLATES = len(GROUP_PAIR_SUITS) * 5
GROUP_TEMPLATES_PER_RANK = GROUP_CLEAN_TEMPLATES + GROUP_DIRTY_TEMPLATES
NUM_OPEN_GROUP = NUM_GROUP_RANKS * GROUP_TEMPLATES_PER_RANK
#: run openings, per suit: 12 clean (start 1..12), 13 x 5 pair + wild at an end
#: (pair start 1..13), 12 x 5 wild in the gap (p, wild, p + 2 for p = 1..12)
OPEN_RUN_BASE = OPEN_GROUP_BASE + NUM_OPEN_GROUP
RUN_CLEAN_TEMPLATES = 12
RUN_PAIR_TEMPLATES = 13 * 5
RUN_GAP_TEMPLATES = 12 * 5
RUN_TEMPLATES_PER_SUIT = RUN_CLEAN_TEMPLATES + RUN_PAIR_TEMPLATES + RUN_GAP_TEMPLATES
NUM_OPEN_RUN = NUM_SUITS * RUN_TEMPLATES_PER_SUIT
#: wild-group openings (colombian): the 35 multisets of 3 wild kinds (joker, 2c, 2d, 2h, 2s)
OPEN_WILD_GROUP_BASE = OPEN_RUN_BASE + NUM_OPEN_RUN
NUM_OPEN_WILD_GROUP = 35
#: add one card (53 types) to one of one's team's melds (MAX_MELDS slots)
ADD_BASE = OPEN_WILD_GROUP_BASE + NUM_OPEN_WILD_GROUP
NUM_ADD = MAX_MELDS * NUM_CARD_TYPES
DISCARD_BASE = ADD_BASE + NUM_ADD
NUM_DISCARD = NUM_CARD_TYPES
NUM_ACTIONS = DISCARD_BASE + NUM_DISCARD

# ---------------------------------------------------------------- meld fields
MELD_NONE = 0
MELD_GROUP = 1
MELD_RUN = 2
MELD_WILD_GROUP = 3

MF_KIND = 0
MF_KEY = 1  # group: rank index; run: suit
MF_LO = 2  # run: lowest natural position (A low = 1 ... K = 13, A high = 14)
MF_HI = 3  # run: highest natural position
MF_GAP = 4  # run: the position the wild fills between naturals, 0 if none or at an end
MF_WILD = 5  # card type of the wild acting in the meld, -1 for none
MF_SIZE = 6  # cards in the meld
MF_N0 = 7  # group: natural cards of suit 0..3 (MF_N0 + suit); wild group: 2s of that suit
MF_NJOKER = 11  # wild group: jokers
NUM_MELD_FIELDS = 12

# ---------------------------------------------------------------- muerto status
MUERTO_UNTAKEN = 0
MUERTO_TAKEN = 1  # taken and in play: scores as taken
MUERTO_PENDING = 2  # taken with the discard; scores as not taken until the taker's next turn
MUERTO_STOCK = 3  # became the stock (muerto_refills_stock), or with muerto_pot shared the
#                  pot emptied before the team took one: scores as not taken
MUERTO_ABSENT = 4  # the variant has fewer muertos per team

HOW_NONE = 0
HOW_DIRECT = 1
HOW_INDIRECT = 2
HOW_KEPT_WILDS = 3

# ---------------------------------------------------------------- hand end
END_NONE = 0
END_WENT_OUT = 1
END_STOCK = 2
END_MAX_TURNS = 3

# ---------------------------------------------------------------- state scalars (per game)
S_PHASE = 0
S_PLAYER = 1  # seat to act
S_FIRST_PLAYER = 2
S_DEALER = 3
S_HAND_INDEX = 4  # hand number within the match, from 0
S_TURN = 5  # turns completed in this hand
S_STEP = 6  # actions applied in this hand
S_PEEK_CARD = 7  # the peeked card while PHASE_PEEK, else -1
S_NO_DISCARD = 8  # card the player may not discard this turn (rediscard rules), else -1
S_PROV_START = 9  # team meld count when the turn began (provisional melds lie above it)
S_LAST_TURN = 10  # 1 once a draw left the stock at stock_end: the hand ends at the discard
S_END_REASON = 11
S_WENT_OUT = 12  # team that went out, -1 if none
S_DONE = 13  # 1 when the episode is over
S_HANDS_ENDED = 14  # hands ended since the episode began
S_HAND_JUST_ENDED = 15  # 1 if the last action ended a hand (match mode deals the next)
S_OPENED0 = 16  # team 0 has melds confirmed on the table (min_first_meld)
S_OPENED1 = 17
S_MIN_EXTRA0 = 18  # +step per failed first meld, team 0
S_MIN_EXTRA1 = 19
S_MATCH0 = 20  # match points of team 0
S_MATCH1 = 21
S_HAND_SCORE0 = 22  # score of the last finished hand, team 0
S_HAND_SCORE1 = 23
S_EPISODE_MATCH = 24  # 1: the episode is a whole match; 0: one hand
S_WINNER = 25  # team that won the episode (hand: higher hand score), -1 tie / not over
S_TOTAL_STEPS = 26  # actions applied in the episode
S_MUERTOS_LEFT = 27  # muerto packets neither taken nor turned into the stock (the pot's size)
NUM_SCALARS = 28

# ---------------------------------------------------------------- score items (RULES.md 7)
SCORE_ITEMS = (
    "table_cards",
    "canasta_bonus",
    "going_out",
    "muertos_taken",
    "muertos_not_taken",
    "hand_cards",
)
NUM_SCORE_ITEMS = len(SCORE_ITEMS)

# ---------------------------------------------------------------- errors
ERR_OK = 0
ERR_OUT_OF_RANGE = 1
ERR_GAME_OVER = 2
ERR_WRONG_PHASE = 3
ERR_PILE_EMPTY = 4
ERR_PILE_TOO_SMALL = 5
ERR_CARDS_NOT_IN_HAND = 6
ERR_NO_SLOT = 7
ERR_RANK_TAKEN = 8
ERR_WILD_GROUP_OPEN = 9
ERR_NOT_A_MELD = 10
ERR_NO_SUCH_MELD = 11
ERR_DOES_NOT_FIT = 12
ERR_MELD_CLOSED = 13
ERR_MIN_FIRST_MELD = 14
ERR_CANNOT_GO_OUT = 15
ERR_GO_OUT_BY_DISCARD = 16
ERR_TURN_UNFINISHABLE = 17
ERR_WILD_DISCARD = 18
ERR_REDISCARD = 19
ERR_CLOSE_WITH_WILD = 20
ERR_NO_MUERTO = 21
ERR_NOT_ONLY_WILDS = 22
ERR_VARIANT_OFF = 23
ERR_MUST_MELD_WILDS = 24
ERR_POT_EMPTY = 25

ERROR_MESSAGES = {
    ERR_OK: "legal",
    ERR_OUT_OF_RANGE: "the action id is outside the action space",
    ERR_GAME_OVER: "the game is over",
    ERR_WRONG_PHASE: "it is not the phase for this kind of action",
    ERR_PILE_EMPTY: "the discard pile is empty",
    ERR_PILE_TOO_SMALL: "the pile plus the hand hold fewer cards than pile_min_total",
    ERR_CARDS_NOT_IN_HAND: "the player does not hold the cards it needs",
    ERR_NO_SLOT: "the team has no free meld slot",
    ERR_RANK_TAKEN: "a group of this rank already stands (unique_group_rank)",
    ERR_WILD_GROUP_OPEN: "the team's wild group is open: wilds may go nowhere else",
    ERR_NOT_A_MELD: "the cards do not make a valid meld",
    ERR_NO_SUCH_MELD: "the team has no meld in that slot",
    ERR_DOES_NOT_FIT: "the card does not fit that meld",
    ERR_MELD_CLOSED: "the meld is closed (max_meld_size)",
    ERR_MIN_FIRST_MELD: "below the minimum first meld the player may not take a muerto or go out",
    ERR_CANNOT_GO_OUT: "going out needs the canasta that close_requires asks for",
    ERR_GO_OUT_BY_DISCARD: "going out must be done by a discard (close_requires_discard)",
    ERR_TURN_UNFINISHABLE: (
        "after this meld no sequence of legal melds and a legal discard (or going out) can "
        "finish the turn"
    ),
    ERR_WILD_DISCARD: "a wild may not be discarded (no_wild_discard)",
    ERR_REDISCARD: "the card just taken (one-card pile or kept peek) may not be discarded now",
    ERR_CLOSE_WITH_WILD: "the discard that goes out may not be a wild (close_discard_not_wild)",
    ERR_NO_MUERTO: "the team has no muerto left to take",
    ERR_NOT_ONLY_WILDS: "the muerto may be taken keeping wilds only by a hand of 1 or 2 wilds",
    ERR_VARIANT_OFF: "the variant does not have this rule",
    ERR_MUST_MELD_WILDS: "a hand of only wilds must be melded while a meld is legal",
    ERR_POT_EMPTY: (
        "the team took no muerto and the pot is empty (muerto_pot: shared): it may never "
        "empty a hand"
    ),
}


class ObsLayout(NamedTuple):
    """Offsets of the observation's blocks; ``size`` is their labelled sum."""

    hand: int
    table_counts: int
    melds: int
    pile_counts: int
    pile_top: int
    pile_order: int
    peek_card: int
    known: int
    hand_sizes: int
    muertos: int
    phase: int
    misc: int
    variant: int
    size: int


MELD_OBS_FIELDS = NUM_MELD_FIELDS + 3  # the raw fields plus clean, canasta, closed
MUERTO_OBS_FIELDS = 3  # status, how it was taken, taker seat relative to the viewer (+1)
#: misc block: stock size, pile size, turn, hand index, own seat, dealer (relative),
#: first player (relative), card barred from discard (+1), own team's minimum first meld,
#: own team opened, other team opened, provisional points, match points (own, other),
#: last hand scores (own, other), hands ended, muerto packets left (the pot's size)
NUM_MISC = 18
NUM_VARIANT_FEATURES = 45  # every entry of the params array (params.NUM_PARAMS)


def obs_layout(num_players: int, total_cards: int) -> ObsLayout:
    """The observation layout as a labelled sum of block sizes."""
    blocks = (
        ("hand", NUM_CARD_TYPES),  # own hand counts
        ("table_counts", 2 * NUM_CARD_TYPES),  # cards in each team's melds (own team first)
        ("melds", 2 * MAX_MELDS * MELD_OBS_FIELDS),  # every meld, own team first
        ("pile_counts", NUM_CARD_TYPES),
        ("pile_top", NUM_CARD_TYPES),  # one-hot of the top card
        ("pile_order", total_cards),  # card type + 1 from the bottom up, 0 past the top
        ("peek_card", NUM_CARD_TYPES),  # one-hot: the card this player is peeking at
        ("known", (num_players - 1) * NUM_CARD_TYPES),  # cards known in others' hands
        ("hand_sizes", num_players),  # from the viewer around the table
        ("muertos", 2 * MAX_MUERTOS * MUERTO_OBS_FIELDS),
        ("phase", NUM_PHASES),
        ("misc", NUM_MISC),
        ("variant", NUM_VARIANT_FEATURES),
    )
    offsets = {}
    pos = 0
    for name, size in blocks:
        offsets[name] = pos
        pos += size
    return ObsLayout(size=pos, **offsets)
