"""What one player sees (RULES.md section 10), as one fixed-size int16 vector.

The layout is :func:`burako_env.core.constants.obs_layout`; seats and teams are relative
to the viewer (own team first, then players around the table from the viewer). The stock
order and the untaken muertos never appear; other players' hands only through their sizes
and the cards known to be in them.
"""

# Kernel module: the rules its kernels follow (burako_env/jit/__init__.py says why).
# - Imports at the top: numpy, numba, burako_env.jit, the core, modules that declare
#   KERNEL_MODULE = True, and classes only: a kernel compiles in the globals it reads,
#   and the cache stamps cover only the core's, the jit's and kernel modules' sources.
# - Constants are module globals, compiled in; constant arguments go as np.int64/np.bool_.
# - @njit is link-only (kernels call it, Python cannot); Python calls @njit_kernel and
#   @njit_parallel. A loop over games names its index np.uint64 on its first line.
# - Whole games: a serial kernel of a slice (first, last) that borrows its arrays
#   (borrowed) and runs under run_sliced; a prange body never writes through an attribute.

from __future__ import annotations

from burako_env.core.constants import (
    MAX_MELDS,
    MAX_MUERTOS,
    MELD_OBS_FIELDS,
    MF_WILD,
    MUERTO_OBS_FIELDS,
    NUM_CARD_TYPES,
    NUM_MELD_FIELDS,
    PHASE_PEEK,
    S_DEALER,
    S_FIRST_PLAYER,
    S_HAND_INDEX,
    S_HAND_SCORE0,
    S_HANDS_ENDED,
    S_MATCH0,
    S_MUERTOS_LEFT,
    S_NO_DISCARD,
    S_OPENED0,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
    S_TURN,
)
from burako_env.core.melds import (
    row_add_counts_nb,
    row_is_canasta_nb,
    row_is_clean_nb,
    row_is_closed_nb,
)
from burako_env.core.params import NUM_PARAMS, P_MAX_MELD, P_NUM_PLAYERS
from burako_env.core.rules import (
    min_first_meld_active_nb,
    provisional_points_nb,
    team_minimum_nb,
)
from burako_env.jit import njit

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True


@njit
def _clip16_nb(x):
    return min(max(x, -32768), 32767)


@njit
def observe_one_nb(st, b, v, params, lay, out):
    """Write player ``v``'s observation of game ``b`` into ``out`` (int16, zeroed here)."""
    (
        o_hand,
        o_table,
        o_melds,
        o_pile_counts,
        o_pile_top,
        o_pile_order,
        o_peek,
        o_known,
        o_sizes,
        o_muertos,
        o_phase,
        o_misc,
        o_variant,
        size,
    ) = lay
    for i in range(size):
        out[i] = 0
    n = params[P_NUM_PLAYERS]
    s = st.scalars[b]
    my_team = v % 2
    for c in range(NUM_CARD_TYPES):
        out[o_hand + c] = st.hands[b, v, c]
    for rel_t in range(2):
        t = (my_team + rel_t) % 2
        table = out[o_table + rel_t * NUM_CARD_TYPES : o_table + (rel_t + 1) * NUM_CARD_TYPES]
        for i in range(st.num_melds[b, t]):
            row = st.melds[b, t, i]
            row_add_counts_nb(row, table, 1)
            base = o_melds + (rel_t * MAX_MELDS + i) * MELD_OBS_FIELDS
            for f in range(NUM_MELD_FIELDS):
                out[base + f] = row[f]
            out[base + MF_WILD] = row[MF_WILD] + 1  # 0: no wild
            out[base + NUM_MELD_FIELDS] = row_is_clean_nb(row)
            out[base + NUM_MELD_FIELDS + 1] = row_is_canasta_nb(row)
            out[base + NUM_MELD_FIELDS + 2] = row_is_closed_nb(row, params[P_MAX_MELD])
    pile_len = st.pile_len[b]
    for i in range(pile_len):
        c = int(st.pile[b, i])  # int8 card id: + an offset must not wrap without the JIT
        out[o_pile_counts + c] += 1
        out[o_pile_order + i] = c + 1
    if pile_len > 0:
        out[o_pile_top + int(st.pile[b, pile_len - 1])] = 1
    if s[S_PHASE] == PHASE_PEEK and s[S_PLAYER] == v and s[S_PEEK_CARD] >= 0:
        out[o_peek + s[S_PEEK_CARD]] = 1
    for k in range(1, n):
        q = (v + k) % n
        for c in range(NUM_CARD_TYPES):
            out[o_known + (k - 1) * NUM_CARD_TYPES + c] = st.known[b, q, c]
    for k in range(n):
        q = (v + k) % n
        h = 0
        for c in range(NUM_CARD_TYPES):
            h += st.hands[b, q, c]
        out[o_sizes + k] = h
    for rel_t in range(2):
        t = (my_team + rel_t) % 2
        for m in range(MAX_MUERTOS):
            base = o_muertos + (rel_t * MAX_MUERTOS + m) * MUERTO_OBS_FIELDS
            out[base] = st.muerto_status[b, t, m]
            out[base + 1] = st.muerto_how[b, t, m]
            taker = st.muerto_taker[b, t, m]
            out[base + 2] = 0 if taker < 0 else (taker - v) % n + 1
    out[o_phase + s[S_PHASE]] = 1
    other = 1 - my_team
    m = o_misc
    out[m + 0] = st.stock_len[b]
    out[m + 1] = pile_len
    out[m + 2] = s[S_TURN]
    out[m + 3] = s[S_HAND_INDEX]
    out[m + 4] = v
    out[m + 5] = (s[S_DEALER] - v) % n
    out[m + 6] = (s[S_FIRST_PLAYER] - v) % n
    if v == s[S_PLAYER]:  # the bar shows whether the player held the card: private
        out[m + 7] = s[S_NO_DISCARD] + 1
    if min_first_meld_active_nb(st, b, my_team, params):
        out[m + 8] = team_minimum_nb(st, b, my_team, params)
    out[m + 9] = s[S_OPENED0 + my_team]
    out[m + 10] = s[S_OPENED0 + other]
    out[m + 11] = provisional_points_nb(st, b, s[S_PLAYER] % 2, params)
    out[m + 12] = _clip16_nb(s[S_MATCH0 + my_team])
    out[m + 13] = _clip16_nb(s[S_MATCH0 + other])
    out[m + 14] = s[S_HAND_SCORE0 + my_team]
    out[m + 15] = s[S_HAND_SCORE0 + other]
    out[m + 16] = s[S_HANDS_ENDED]
    out[m + 17] = s[S_MUERTOS_LEFT]
    for i in range(NUM_PARAMS):
        out[o_variant + i] = params[i]
