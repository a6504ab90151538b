"""Every move in plain words, one text for every front end.

The web table's log, the terminal's ``burako play`` and ``burako replay`` (``--moves-only``
too) all describe a move with :func:`describe_step`, so they agree word for word. A move
is told with what it did, which the action id alone does not say: the cards of the pile
taken, the meld laid and which card its wild stands for, a canasta made, the muerto taken
when a hand runs empty (direct or with the discard), a first meld that fell short and went
back to the hand, going out; and, as events after it, the end of a hand with every team's
score in words.

    before = snapshot(game)          # what the move will change, read before it
    game.step_one(action)
    told = describe_step(before, game, action)
    told.text      # "discard 5♣; their hand is empty: they take the muerto (11 cards),
                   #  to play from their next turn"
    told.events    # ["Hand 1 is over (team 0 went out). Team 0 +510 (...); team 1 -85 (...)."]

Only what every player at the table sees is told: a card drawn from the stock or kept
after a peek is never named; the pile, the melds, a rejected peek card and wilds kept
with a muerto are public (RULES.md 10).

:func:`refusal_words` says why a move is refused in the words of the rule, from the
engine's refusal code (``Game.action_error``) and the variant's numbers, and
:func:`wild_words` what a meld's wild stands for (the web table's melds carry it too).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from burako_env.cards import JOKER, RANKS, rank_of, suit_of
from burako_env.core.actions import decode_action, position_card
from burako_env.core.constants import (
    END_MAX_TURNS,
    END_STOCK,
    END_WENT_OUT,
    ERR_CANNOT_GO_OUT,
    ERR_CARDS_NOT_IN_HAND,
    ERR_CLOSE_WITH_WILD,
    ERR_DOES_NOT_FIT,
    ERR_GAME_OVER,
    ERR_GO_OUT_BY_DISCARD,
    ERR_MELD_CLOSED,
    ERR_MIN_FIRST_MELD,
    ERR_MUST_MELD_WILDS,
    ERR_NO_MUERTO,
    ERR_NO_SLOT,
    ERR_NO_SUCH_MELD,
    ERR_NOT_A_MELD,
    ERR_NOT_ONLY_WILDS,
    ERR_OK,
    ERR_OUT_OF_RANGE,
    ERR_PILE_EMPTY,
    ERR_PILE_TOO_SMALL,
    ERR_POT_EMPTY,
    ERR_RANK_TAKEN,
    ERR_REDISCARD,
    ERR_TURN_UNFINISHABLE,
    ERR_VARIANT_OFF,
    ERR_WILD_DISCARD,
    ERR_WILD_GROUP_OPEN,
    ERR_WRONG_PHASE,
    ERROR_MESSAGES,
    HOW_DIRECT,
    HOW_KEPT_WILDS,
    MELD_GROUP,
    MELD_RUN,
    MELD_WILD_GROUP,
    MF_GAP,
    MF_HI,
    MF_KEY,
    MF_KIND,
    MF_LO,
    MF_SIZE,
    MF_WILD,
    MUERTO_SIZE,
    MUERTO_STOCK,
    MUERTO_UNTAKEN,
    PHASE_DRAW,
    PHASE_PEEK,
    PHASE_PLAY,
    SCORE_ITEMS,
)
from burako_env.render import (
    SCORE_ITEM_TEXT,
    card,
    cards_text,
    meld_display_cards,
    wild_name,
    wild_stands_for,
    wild_words,
)

#: a canasta is a meld of 7 cards or more (RULES.md 2.3)
CANASTA_SIZE = 7
RANK_PLURAL = {r: ("10s" if r == "T" else f"{r}s") for r in RANKS}
RANK_PLURAL.update({"A": "aces", "J": "jacks", "Q": "queens", "K": "kings"})
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")


# ---------------------------------------------------------------- cards and melds
def _rank_words(rank: int) -> str:
    return RANK_PLURAL[RANKS[rank]]


def meld_words(row) -> str:
    """A meld in words: "run 5♥ 6♥ 7♥ *", "group 8♣ 8♦ 8♥", "wild group 2♣ 2♦ *"."""
    kind = {MELD_GROUP: "group", MELD_RUN: "run", MELD_WILD_GROUP: "wild group"}[int(row[MF_KIND])]
    return f"{kind} {cards_text(meld_display_cards(row))}"


def _canasta_words(row) -> str:
    if int(row[MF_KIND]) == MELD_WILD_GROUP:
        return "a canasta of wilds"
    return "a clean canasta" if int(row[MF_WILD]) < 0 else "a dirty canasta"


def action_words(action: int) -> str:
    """A move before it is played, in words (the legal moves, a bot's candidates, a
    refusal): "discard K♦", "lay a run 5♥ 6♥ *", "add 7♥ to meld 3"."""
    info = decode_action(action)
    k = info.kind
    fixed = {
        "draw": "draw a card from the stock",
        "take_pile": "take the discard pile",
        "peek_keep": "keep the first card drawn",
        "peek_reject": "lay the first card drawn on the pile and draw another",
        "muerto_keep_wilds": "take the muerto, keeping the wild cards in hand",
    }
    if k in fixed:
        return fixed[k]
    if k == "discard":
        return f"discard {card(info.cards[0])}"
    if k == "add":
        return f"add {card(info.cards[0])} to meld {info.slot}"
    kind = {"open_group": "group", "open_run": "run", "open_wild_group": "wild group"}[k]
    return f"lay a {kind} {cards_text(info.cards)}"


# ---------------------------------------------------------------- before and after
@dataclass(frozen=True)
class Before:
    """What a move may change, read before it (:func:`snapshot`)."""

    player: int
    phase: int
    turn: int
    hands_ended: int
    last_turn: bool
    peek_card: int
    hand: np.ndarray  # the player's hand counts
    pile: tuple[int, ...]
    melds: np.ndarray  # the player's team's meld rows
    num_melds: int
    muerto_status: np.ndarray  # [2, MAX_MUERTOS]


@dataclass
class Narration:
    """A move told: ``seat`` played it, ``text`` says what it did, ``events`` what followed
    (the end of a hand, with the scores)."""

    seat: int
    text: str
    events: list[str] = field(default_factory=list)


def snapshot(game, b: int = 0) -> Before:
    """What the narration needs of game ``b`` before a move: the player to act, the hands, melds and
    pile it compares with after."""
    st = game.state
    v = game.view(b)
    p = v.player
    t = p % 2
    return Before(
        player=p,
        phase=v.phase,
        turn=v.turn,
        hands_ended=v.hands_ended,
        last_turn=v.last_turn,
        peek_card=v.peek_card,
        hand=st.hands[b, p].copy(),
        pile=tuple(int(c) for c in st.pile[b, : int(st.pile_len[b])]),
        melds=st.melds[b, t, : int(st.num_melds[b, t])].copy(),
        num_melds=int(st.num_melds[b, t]),
        muerto_status=st.muerto_status[b].copy(),
    )


def _cards_of(counts) -> list[int]:
    return [c for c in range(len(counts)) for _ in range(int(counts[c]))]


def _move_text(before: Before, game, action: int, b: int, same_hand: bool) -> str:
    info = decode_action(action)
    k = info.kind
    st = game.state
    team = before.player % 2
    if k == "draw":
        return "draw a card from the stock"
    if k == "take_pile":
        n = len(before.pile)
        shown = cards_text(reversed(before.pile))
        return f"take the discard pile ({n} card{'s' * (n != 1)}: {shown})"
    if k == "peek_keep":
        return "keep the first card drawn"
    if k == "peek_reject":
        return f"lay the first card drawn, {card(before.peek_card)}, on the pile and draw another"
    if k == "muerto_keep_wilds":
        kept = cards_text(_cards_of(before.hand))
        return f"take the muerto ({MUERTO_SIZE} cards), keeping {kept} in hand for all to see"
    if k == "discard":
        return f"discard {card(info.cards[0])}"
    if k.startswith("open"):
        if same_hand and int(st.num_melds[b, team]) > before.num_melds:
            slot = before.num_melds
            row = st.melds[b, team, slot]
            text = f"lay a {meld_words(row)} (meld {slot})"
            wild = wild_words(row)
            return text + (f": {wild}" if wild else "")
        # the meld ended the hand (the table was dealt again) or went back: its cards
        kind = {"open_group": "group", "open_run": "run", "open_wild_group": "wild group"}[k]
        return f"lay a {kind} {cards_text(info.cards)}"
    # add
    c = int(info.cards[0])
    slot = int(info.slot)
    text = f"add {card(c)} to meld {slot}"
    if not same_hand or slot >= int(st.num_melds[b, team]):
        return text
    row = st.melds[b, team, slot]
    old = before.melds[slot] if slot < before.num_melds else None
    text += f", {meld_words(row)}"
    notes = []
    wild = wild_words(row)
    if wild and (old is None or wild != wild_words(old) or int(row[MF_WILD]) == c):
        notes.append(("now " if old is not None and wild_words(old) else "") + wild)
    if old is not None and int(old[MF_WILD]) >= 0 and int(row[MF_WILD]) < 0:
        notes.append(f"{wild_name(int(old[MF_WILD]))} stands at its own place: clean again")
    size = int(row[MF_SIZE])
    if size >= CANASTA_SIZE and (old is None or int(old[MF_SIZE]) < CANASTA_SIZE):
        notes.append(f"{_canasta_words(row)}")
    elif old is not None and int(old[MF_WILD]) < 0 <= int(row[MF_WILD]) and size >= CANASTA_SIZE:
        notes.append("the canasta is dirty now")
    max_size = int(game.variant.max_meld_size)
    if max_size and size >= max_size:
        notes.append("closed: it takes no more cards")
    return text + "".join(f"; {n}" for n in notes)


def _consequences(before: Before, game, action: int, b: int, same_hand: bool) -> list[str]:
    """What the move set off besides itself (same hand only): a muerto taken, a muerto
    turned into the stock, a first meld that went back, the hand's last turn."""
    st = game.state
    p = before.player
    team = p % 2
    out = []
    if not same_hand:
        return out
    kind = decode_action(action).kind
    status = st.muerto_status[b]
    for t in range(2):
        for m in range(status.shape[1]):
            was, now = int(before.muerto_status[t, m]), int(status[t, m])
            if was != MUERTO_UNTAKEN or now == MUERTO_UNTAKEN:
                continue
            if now == MUERTO_STOCK:
                shared = game.variant.muerto_pot == "shared"
                whose = "the pot's next muerto" if shared else f"team {t}'s muerto"
                out.append(f"the stock is used up: {whose} becomes the stock")
            elif int(st.muerto_taker[b, t, m]) == p and kind != "muerto_keep_wilds":
                how = int(st.muerto_how[b, t, m])
                if how == HOW_DIRECT:
                    out.append(
                        f"the hand is empty: take the muerto ({MUERTO_SIZE} cards) and play on"
                    )
                elif how != HOW_KEPT_WILDS:
                    out.append(
                        f"the hand is empty: take the muerto ({MUERTO_SIZE} cards), to play "
                        "from the next turn"
                    )
    if kind == "discard" and int(st.num_melds[b, team]) < before.num_melds:
        back = before.num_melds - int(st.num_melds[b, team])
        melds = f"the {back} melds laid this turn are" if back > 1 else "the meld laid this turn is"
        out.append(
            f"{melds} worth less than the minimum first meld: the cards go back to the hand, "
            "for all to see"
        )
    if kind == "draw" and game.view(b).last_turn and not before.last_turn:
        out.append("the stock has run down: the hand ends with this turn")
    return out


def _hand_end(before: Before, game, action: int, b: int) -> tuple[str, str]:
    """How the hand that this move ended ended: the move's last words ("go out: the hand
    is over") and the summary's ("team 0 went out")."""
    team = before.player % 2
    if game.is_over(b):  # the state still says (a match deals the next hand otherwise)
        v = game.view(b)
        reason, went_out = v.end_reason, v.went_out
    else:
        info = decode_action(action)
        emptied = info.kind in ("discard", "add") or info.kind.startswith("open")
        if emptied and int(before.hand.sum()) == len(info.cards):
            reason, went_out = END_WENT_OUT, team
        elif before.turn + 1 >= int(game.variant.max_turns):
            reason, went_out = END_MAX_TURNS, -1
        else:
            reason, went_out = END_STOCK, -1
    if reason == END_WENT_OUT:
        return "go out: the hand is over", f"team {went_out} went out"
    if reason == END_MAX_TURNS:
        limit = int(game.variant.max_turns)
        return f"the hand reaches its turn limit ({limit} turns)", "the turn limit"
    return "the stock has run down: the hand is over", "the stock ran down"


def score_words(items, total: int, team: int) -> str:
    """One team's score of a hand in words: "team 0 +510 (cards on the table 410, canasta
    bonuses 100)": the items that are not 0."""
    parts = [
        f"{SCORE_ITEM_TEXT[name]} {int(items[k]):+d}"
        for k, name in enumerate(SCORE_ITEMS)
        if int(items[k])
    ]
    return f"team {team} {int(total):+d}" + (f" ({', '.join(parts)})" if parts else "")


def hand_summary(game, b: int = 0, how: str = "") -> str:
    """The last finished hand in words: "Hand 1 is over (team 0 went out). Team 0 +510
    (...); team 1 -85 (...)"; in a match, the match points after it."""
    v = game.view(b)
    n = v.hands_ended
    items = np.asarray(game.state.score_items[b])
    scores = v.hand_scores
    text = f"Hand {n} is over" + (f" ({how})" if how else "") + ". "
    text += "; ".join(score_words(items[t], scores[t], t) for t in range(2)) + "."
    text = text.replace(". team 0", ". Team 0", 1)
    if getattr(game, "episode", "hand") == "match":
        match = game.match_scores[b]
        text += f" Match points: team 0 {int(match[0])}, team 1 {int(match[1])}."
    return text


def describe_step(before: Before, game, action: int, b: int = 0) -> Narration:
    """The move ``action``, just played on ``game`` from the position ``before`` was read
    at, in words (module doc)."""
    ended = game.view(b).hands_ended != before.hands_ended
    parts = [_move_text(before, game, action, b, same_hand=not ended)]
    parts += _consequences(before, game, action, b, same_hand=not ended)
    events = []
    if ended:
        end, how = _hand_end(before, game, action, b)
        parts.append(end)
        events.append(hand_summary(game, b, how))
    return Narration(before.player, "; ".join(parts), events)


def play_and_describe(game, action: int, b: int = 0) -> Narration:
    """Step ``action`` (IllegalActionError if illegal; nothing moves then) and tell it."""
    before = snapshot(game, b)
    game.step_one(action, b)
    return describe_step(before, game, action, b)


# ---------------------------------------------------------------- refusals
def _does_not_fit(game, action: int, b: int) -> str:
    """Why a card does not go on a meld, read from the meld (the engine said it does not)."""
    info = decode_action(action)
    c = int(info.cards[0])
    p = int(game.current_player[b])
    row = game.state.melds[b, p % 2, int(info.slot)]
    kind = int(row[MF_KIND])
    wild = c == JOKER or rank_of(c) == 1
    if kind == MELD_WILD_GROUP:
        return "a wild group takes only wild cards (jokers and 2s)"
    natural_here = (
        kind == MELD_RUN and c != JOKER and suit_of(c) == int(row[MF_KEY]) and rank_of(c) == 1
    )
    if wild and not natural_here and int(row[MF_WILD]) >= 0:
        return (
            f"the meld already has a wild ({wild_name(int(row[MF_WILD]))}): a meld holds one "
            "wild at most"
        )
    if kind == MELD_GROUP:
        if not wild and rank_of(c) != int(row[MF_KEY]):
            return f"the group is of {_rank_words(int(row[MF_KEY]))}: {card(c)} is not one of them"
        return f"{card(c)} does not go on this group"
    suit = int(row[MF_KEY])
    if not wild and suit_of(c) != suit:
        return f"the run is in {SUIT_WORDS[suit]}: {card(c)} is not"
    lo, hi = int(row[MF_LO]), int(row[MF_HI])
    fits = [position_card(suit, q) for q in (lo - 1, hi + 1) if 1 <= q <= 14]
    if int(row[MF_GAP]):
        fits.append(position_card(suit, int(row[MF_GAP])))
    if not wild:
        if fits:
            return (
                f"{card(c)} does not join the run: the cards it takes are "
                + " or ".join(card(x) for x in sorted(set(fits)))
                + ", or a wild"
            )
        return "the run is complete from ace to ace: it takes no more cards"
    return f"the {card(c)} has no place in this run"


def refusal_words(game, action: int, b: int = 0) -> str | None:
    """Why ``action`` is not legal now, in the words of the rule with this table's numbers
    (None when it is legal). The engine names the rule (``Game.action_error``); a card that
    does not fit a meld is told why it does not."""
    code = int(game.action_error(action, b))
    if code == ERR_OK:
        return None
    v = game.variant
    if code == ERR_OUT_OF_RANGE:
        return "that is not a move of this game"
    if code == ERR_GAME_OVER:
        return "the game is over"
    if code == ERR_WRONG_PHASE:
        phase = game.view(b).phase
        return {
            PHASE_PEEK: "first keep the card drawn or lay it on the pile",
            PHASE_DRAW: "first draw: a card from the stock, or the discard pile",
            PHASE_PLAY: "you have drawn already: now meld, or discard to end the turn",
        }.get(phase, "that move does not belong to this part of the turn")
    if code == ERR_PILE_TOO_SMALL:
        return (
            f"the pile may be taken only when it and the hand hold {v.pile_min_total} cards "
            "or more together"
        )
    if code == ERR_RANK_TAKEN:
        where = "on the table" if v.unique_group_rank == "table" else "of your team's"
        return f"a group of that rank stands already ({where}): one group per rank"
    if code == ERR_DOES_NOT_FIT:
        return _does_not_fit(game, action, b)
    if code == ERR_MELD_CLOSED:
        return f"that meld is closed: a meld of {v.max_meld_size} cards takes no more"
    if code == ERR_MIN_FIRST_MELD:
        return (
            "your team has not opened yet: until this turn's melds reach the minimum first "
            "meld you may not take a muerto or go out"
        )
    if code == ERR_CANNOT_GO_OUT:
        need = {"any_canasta": "a canasta", "clean_canasta": "a clean canasta"}.get(
            v.close_requires, "a canasta"
        )
        return f"this would empty your hand, and going out needs your team to have {need}"
    if code == ERR_GO_OUT_BY_DISCARD:
        return "this would empty your hand: going out must be done with a discard"
    if code == ERR_WILD_DISCARD:
        return "a wild card (joker or 2) may never be discarded here"
    if code == ERR_REDISCARD:
        return "you may not discard the card you just took, this turn"
    if code == ERR_CLOSE_WITH_WILD:
        return "the discard that goes out may not be a wild card"
    if code == ERR_TURN_UNFINISHABLE:
        return (
            "after this meld you could not finish the turn: no meld or discard would be "
            "left that the rules allow"
        )
    if code == ERR_NOT_ONLY_WILDS:
        return "the muerto may be taken early only by a hand of just 1 or 2 wild cards"
    if code == ERR_VARIANT_OFF:
        return f"{v.label} rules do not have that move"
    if code == ERR_MUST_MELD_WILDS:
        return "a hand of only wild cards must be melded while a meld takes them"
    if code == ERR_POT_EMPTY:
        return "your team has taken no muerto and none is left: its hands may never run empty"
    plain = {
        ERR_PILE_EMPTY: "the discard pile is empty",
        ERR_CARDS_NOT_IN_HAND: "you do not hold those cards",
        ERR_NO_SLOT: "your team has no room for another meld",
        ERR_WILD_GROUP_OPEN: "your team's wild group is open: wild cards may go nowhere else",
        ERR_NOT_A_MELD: "those cards do not make a meld",
        ERR_NO_SUCH_MELD: "your team has no meld with that number",
        ERR_NO_MUERTO: "your team has no muerto left to take",
    }
    return plain.get(code, ERROR_MESSAGES.get(code, "not allowed now"))


__all__ = [
    "Before",
    "action_words",
    "Narration",
    "describe_step",
    "hand_summary",
    "meld_words",
    "play_and_describe",
    "refusal_words",
    "score_words",
    "snapshot",
    "wild_stands_for",
    "wild_words",
]
