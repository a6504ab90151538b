"""The referee: a slow, plain-Python oracle for melds and hand scores.

Tests use it to check the fast core. It follows RULES.md sections 2 (melds) and 7
(scoring) as literally as possible, prefers clarity to speed, and shares no code with
:mod:`burako_env.core`. It only uses the card helpers of :mod:`burako_env.cards` and the
rule parameters of :mod:`burako_env.variants`.

Melds (:func:`classify_meld`)
-----------------------------
A meld is judged from its cards alone, in any order. Every possible reading is tried
(which suited 2, if any, stands at its natural position 2; whether each ace is low at 1
or high at 14), and the best valid reading is returned: a clean reading always wins
(RULES.md 2.2, "a suited 2 comes home"). When several dirty readings of a run exist
(only long runs holding an ace, such as ``Ah 2h ... Qh *``), the one with the wild at an
end is reported, then the one with the lower positions. Validity, cleanliness, size and
points never depend on that choice; only ``positions``, ``wild_position`` and
``wild_at_end`` do.

Note: a natural ``Kh Ah 2h`` is no run (no wrap), but the same three cards are a valid
*dirty* run Q-K-A in which the 2h acts as the Q; ``Kh Ah 2h 3h`` has no reading at all.

Scoring (:func:`score_hand`)
----------------------------
Six items per team, in this order (:data:`SCORE_ITEMS`); each is computed by the
function named ``item_<key>`` below, whose docstring says how:
``table_cards``, ``canasta_bonus``, ``going_out``, ``muertos_taken``,
``muertos_not_taken``, ``hand_cards``. The team's total is their sum.

A *canasta* is any meld of 7 or more cards, a wild group of 7 included (seed 000 calls
every group of 7 a *baza* and lists "Canasta de comodines, 700 p." among them).

The colombian ``no_canasta_negative`` rule. Seed 000 (penalty rules 1 and 6)::

    1. Cuando un equipo se va, y los contrarios no han cerrado una baza, todos los
    puntos serán negativos; se aumentan 100 puntos negativos por cada burako que haya
    quedado sobre la mesa; o se descontarán 100 de la negativa por cada burako cogido.

    6. Cuando un jugador se va, y el equipo al que pertenece no ha justificado, los
    puntos del equipo serán negativos, pero se pueden descontar 100 puntos por cada
    burako que se haya cogido, y 100 más por la ida. El equipo contrario, quedará
    positivo, aún cuando no hayan logrado cerrar una baza; los puntos que tengan en la
    mano, se contarán también como positivos; pero, deberán descontarse 100 puntos por
    cada burako que no haya cogido dicho equipo.

The reading implemented here (RULES.md 7, "No canasta"), with the variant's
``no_canasta_negative`` on:

* **Rule 1** (any end of the hand, RULES.md extends it to the stock end): a team with
  no canasta scores ``table_cards`` as a *negative* number (minus the value of every
  card in its melds). Its other items keep their usual signs: cards in hand are negative
  anyway, each muerto left on the table is -100 ("se aumentan 100 puntos negativos"),
  each muerto taken is +``muerto_taken_bonus`` ("se descontarán 100 de la negativa").
* **Rule 6** (wins over rule 1): when a team goes out with no canasta of its own,
  - the team that went out is scored as in rule 1: ``table_cards`` negative, hand cards
    negative, while ``going_out`` (+100) and ``muertos_taken`` (+100 each) keep reducing
    the negative ("se pueden descontar 100 puntos por cada burako ... y 100 más por la
    ida");
  - the *other* team scores ``table_cards`` positive even if it has no canasta, and its
    ``hand_cards`` count **positive** ("se contarán también como positivos"), whether it
    has a canasta or not (the sentence puts no condition on it); its muertos not taken
    still cost -100 each ("deberán descontarse 100 puntos por cada burako que no haya
    cogido"), its canasta bonuses and muertos taken count as usual.

An *unplayed muerto* (RULES.md 7, seed 001's *detalle*): a muerto taken by an indirect
close whose taker's next turn never came counts as not taken (-100 in
``muertos_not_taken``, no ``muerto_taken_bonus``), and its 11 cards, still in the
taker's hand, are left out of ``hand_cards``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from pathlib import Path

from burako_env.cards import (
    JOKER,
    RANK_ACE,
    RANK_TWO,
    card_id,
    format_cards,
    parse_cards,
    rank_of,
    suit_of,
)
from burako_env.variants import MUERTO_SIZE, Variant, load_variant

#: the lowest and highest run positions: A(low) = 1, 2..K = 2..13, A(high) = 14
LOW_ACE, HIGH_ACE = 1, 14

#: the scoring items of RULES.md section 7, in the order :func:`score_hand` reports them
SCORE_ITEMS = (
    "table_cards",
    "canasta_bonus",
    "going_out",
    "muertos_taken",
    "muertos_not_taken",
    "hand_cards",
)

CardsLike = str | Iterable[str | int]


# --------------------------------------------------------------------------- helpers


@lru_cache(maxsize=64)
def _load_named(name: str | Path) -> Variant:
    return load_variant(name)


def _variant(variant: str | Path | Variant) -> Variant:
    if isinstance(variant, Variant):
        return variant
    return _load_named(variant)


def acts_wild_by_nature(card: int) -> bool:
    """A joker or a 2: the cards that may act as wilds (a suited 2 may stand natural)."""
    return card == JOKER or rank_of(card) == RANK_TWO


def card_value(card: int, variant: str | Path | Variant = "argentine") -> int:
    """A card's value (RULES.md 9): 3-7 low, 8-K high, ace, 2, joker."""
    v = _variant(variant)
    if card == JOKER:
        return v.value_joker
    rank = rank_of(card)
    if rank == RANK_ACE:
        return v.value_ace
    if rank == RANK_TWO:
        return v.value_two
    if rank <= 6:  # rank indices 2..6 are the cards 3..7
        return v.value_low
    return v.value_high


def cards_value(cards: Iterable[int], variant: str | Path | Variant = "argentine") -> int:
    """The sum of the values of some cards."""
    return sum(card_value(c, variant) for c in cards)


def run_position_card(position: int, suit: int) -> int:
    """The natural card that stands at a run position (1 and 14 are the ace)."""
    if not LOW_ACE <= position <= HIGH_ACE:
        raise ValueError(f"run positions are 1..14, got {position}")
    rank = RANK_ACE if position in (LOW_ACE, HIGH_ACE) else position - 1
    return card_id(rank, suit)


# --------------------------------------------------------------------------- melds


@dataclass(frozen=True)
class MeldInfo:
    """What a valid meld is.

    ``kind``: ``"group"``, ``"run"`` or ``"wild_group"``. ``clean``: no card acts as a wild
    (a wild group is never clean: every card in it acts as a wild). ``canasta``: 7 or more
    cards. ``points``: the sum of the card values only (no bonus). ``wilds``: how many
    cards act as wilds (0 or 1; every card of a wild group).

    Groups: ``rank`` is the rank index (0 = ace, 2..12 = 3..K). Runs: ``suit`` is the suit
    index (0..3 = c d h s); ``positions`` the sorted run positions of the natural cards
    (A low 1, 2..K 2..13, A high 14); ``wild_position`` the gap position the wild fills,
    or None; ``wild_at_end`` True when the wild stands at an end (it counts as whichever
    end the run needs).
    """

    kind: str
    clean: bool
    canasta: bool
    points: int
    size: int
    wilds: int
    rank: int | None = None
    suit: int | None = None
    positions: tuple[int, ...] = field(default=())
    wild_position: int | None = None
    wild_at_end: bool = False

    @property
    def aces(self) -> bool:
        """A group of aces (whose canasta scores the aces bonus)."""
        return self.kind == "group" and self.rank == RANK_ACE


@dataclass(frozen=True)
class _RunReading:
    wilds: int
    positions: tuple[int, ...]
    wild_position: int | None
    wild_at_end: bool


def _read_group(cards: list[int]) -> tuple[int, int] | None:
    """(rank, wilds) if the cards are a group: 3+ of one rank (A or 3..K), at most one wild."""
    naturals = [c for c in cards if not acts_wild_by_nature(c)]
    wilds = len(cards) - len(naturals)
    ranks = {rank_of(c) for c in naturals}
    if len(cards) >= 3 and wilds <= 1 and len(ranks) == 1:
        return ranks.pop(), wilds
    return None


def _run_readings(cards: list[int]) -> tuple[int, list[_RunReading]]:
    """(suit, every valid reading of the cards as a run); the list is empty if none."""
    jokers = cards.count(JOKER)
    suited = [c for c in cards if c != JOKER]
    others = [c for c in suited if rank_of(c) != RANK_TWO]  # never wild
    suits = {suit_of(c) for c in others}
    if len(suits) != 1:
        return -1, []
    suit = suits.pop()
    own_two = card_id(RANK_TWO, suit)
    own_twos = suited.count(own_two)
    foreign_twos = len(suited) - len(others) - own_twos
    aces = [c for c in others if rank_of(c) == RANK_ACE]
    fixed = [rank_of(c) + 1 for c in others if rank_of(c) != RANK_ACE]

    readings = []
    for two_natural in (False, True) if own_twos else (False,):
        wilds = jokers + foreign_twos + own_twos - (1 if two_natural else 0)
        if wilds > 1:
            continue
        for ace_places in product((LOW_ACE, HIGH_ACE), repeat=len(aces)):
            positions = sorted(fixed + list(ace_places) + ([2] if two_natural else []))
            if len(set(positions)) != len(positions):
                continue  # two naturals cannot share a position
            low, high = positions[0], positions[-1]
            gaps = [p for p in range(low, high + 1) if p not in positions]
            if len(gaps) > wilds:
                continue
            if wilds == 1 and not gaps and low == LOW_ACE and high == HIGH_ACE:
                continue  # A..K..A is full: no place for the wild
            readings.append(
                _RunReading(
                    wilds=wilds,
                    positions=tuple(positions),
                    wild_position=gaps[0] if gaps else None,
                    wild_at_end=wilds == 1 and not gaps,
                )
            )
    return suit, readings


def classify_meld(cards: CardsLike, variant: str | Path | Variant = "argentine") -> MeldInfo | None:
    """Judge a meld (RULES.md 2.1-2.4): its :class:`MeldInfo`, or None if it is not valid.

    ``cards``: a notation string (``"Ah 2h 3h * 5h"``), a list of tokens, or a list of card
    types, in any order. ``variant``: a name, a YAML path or a :class:`Variant`.
    """
    v = _variant(variant)
    hand = sorted(parse_cards(cards))
    size = len(hand)
    if size < 3:
        return None
    if v.max_meld_size and size > v.max_meld_size:
        return None
    points = cards_value(hand, v)
    canasta = size >= 7

    if all(acts_wild_by_nature(c) for c in hand):
        # no group (2s never group) and no run (a run holds at most one natural 2)
        if v.wild_group:
            return MeldInfo("wild_group", False, canasta, points, size, wilds=size)
        return None

    group = _read_group(hand)
    if group is not None:
        rank, wilds = group
        return MeldInfo("group", wilds == 0, canasta, points, size, wilds=wilds, rank=rank)

    suit, readings = _run_readings(hand)
    if not readings:
        return None
    # clean first, then a wild at an end (never pinned), then the lower positions
    best = min(readings, key=lambda r: (r.wilds, not r.wild_at_end, r.positions))
    return MeldInfo(
        "run",
        best.wilds == 0,
        canasta,
        points,
        size,
        wilds=best.wilds,
        suit=suit,
        positions=best.positions,
        wild_position=best.wild_position,
        wild_at_end=best.wild_at_end,
    )


# --------------------------------------------------------------------------- scoring


@dataclass
class TeamResult:
    """One team's state at the end of a hand, as :func:`score_hand` needs it.

    ``melds``: the cards of each of the team's melds (card types, or notation).
    ``hand_cards``: every card still in the hands of the team's players (an unplayed
    muerto's 11 cards included). ``muertos_taken``: muertos taken and played.
    ``muertos_not_taken``: muertos never taken, or turned into the stock.
    ``unplayed_muertos``: the cards of each muerto taken by an indirect close whose
    taker's next turn never came (RULES.md 7): scored as not taken, cards not charged.
    """

    melds: list[list[int]] = field(default_factory=list)
    hand_cards: list[int] = field(default_factory=list)
    muertos_taken: int = 0
    muertos_not_taken: int = 0
    unplayed_muertos: list[list[int]] = field(default_factory=list)


@dataclass(frozen=True)
class TeamScore:
    """One team's score for a hand: ``items`` (keys :data:`SCORE_ITEMS`, in order)."""

    items: dict[str, int]

    @property
    def total(self) -> int:
        """The sum of the items."""
        return sum(self.items.values())


@dataclass(frozen=True)
class HandScore:
    """Both teams' scores for a hand."""

    teams: tuple[TeamScore, TeamScore]

    @property
    def items(self) -> tuple[dict[str, int], dict[str, int]]:
        """Each team's items, team 0 first."""
        return self.teams[0].items, self.teams[1].items

    @property
    def totals(self) -> tuple[int, int]:
        """Each team's total, team 0 first."""
        return self.teams[0].total, self.teams[1].total


def item_table_cards(
    v: Variant, melds: Sequence[tuple[list[int], MeldInfo]], negative: bool
) -> int:
    """``table_cards``: the value of every card in the team's melds.

    With ``canasta_card_points`` off (colombian), the cards of canastas (melds of 7+,
    closed at 7 there) do not count: they score their bonus only (seed 000: "El resto de
    cartas que hayan sobre la mesa (tendido)"). ``negative`` (the no-canasta rules, see
    the module docstring) makes the sum negative.
    """
    total = 0
    for cards, info in melds:
        if info.canasta and not v.canasta_card_points:
            continue
        total += cards_value(cards, v)
    return -total if negative else total


def canasta_bonus(v: Variant, info: MeldInfo) -> int:
    """The bonus of one meld: 0 below 7 cards; a wild group of 7+ scores ``wild_canasta``;
    a group of aces ``clean_aces_canasta`` / ``dirty_aces_canasta``; any other canasta
    ``clean_canasta`` / ``dirty_canasta``."""
    if not info.canasta:
        return 0
    if info.kind == "wild_group":
        return v.wild_canasta
    if info.aces:
        return v.clean_aces_canasta if info.clean else v.dirty_aces_canasta
    return v.clean_canasta if info.clean else v.dirty_canasta


def item_canasta_bonus(v: Variant, melds: Sequence[tuple[list[int], MeldInfo]]) -> int:
    """``canasta_bonus``: the sum of :func:`canasta_bonus` over the team's melds."""
    return sum(canasta_bonus(v, info) for _, info in melds)


def item_going_out(v: Variant, team: int, went_out: int | None) -> int:
    """``going_out``: ``going_out_bonus`` for the team that went out, else 0 (also in
    the colombian no-canasta case, where it reduces the negative: seed 000 rule 6)."""
    return v.going_out_bonus if went_out == team else 0


def item_muertos_taken(v: Variant, result: TeamResult) -> int:
    """``muertos_taken``: ``muerto_taken_bonus`` (colombian 100, else 0) times the muertos
    taken and played (unplayed muertos are not counted)."""
    return v.muerto_taken_bonus * result.muertos_taken


def item_muertos_not_taken(v: Variant, result: TeamResult) -> int:
    """``muertos_not_taken``: ``muerto_not_taken`` (-100) times the muertos never taken,
    turned into the stock, or taken but unplayed."""
    return v.muerto_not_taken * (result.muertos_not_taken + len(result.unplayed_muertos))


def item_hand_cards(v: Variant, hand_cards: list[int], positive: bool) -> int:
    """``hand_cards``: minus the value of every card in the team's hands, the cards of
    unplayed muertos left out (``hand_cards`` here is already without them).
    ``positive`` (colombian rule 6, the team that did not go out) makes it positive."""
    total = cards_value(hand_cards, v)
    return total if positive else -total


def no_canasta_signs(
    v: Variant, team: int, has_canasta: Sequence[bool], went_out: int | None
) -> tuple[bool, bool]:
    """(table_cards negative, hand_cards positive) for a team: the colombian
    ``no_canasta_negative`` rules 1 and 6 of seed 000, as read in the module docstring.
    Without ``no_canasta_negative``: (False, False)."""
    if not v.no_canasta_negative:
        return False, False
    if went_out is not None and not has_canasta[went_out] and team != went_out:
        return False, True  # rule 6: the other team is positive, its hand too
    if not has_canasta[team]:
        return True, False  # rule 1 (and rule 6 for the team that went out)
    return False, False


def _check_team(v: Variant, t: int, result: TeamResult) -> tuple[list, list[int]]:
    """Classify the team's melds and take the unplayed muertos out of its hand cards."""
    melds = []
    for i, meld in enumerate(result.melds):
        cards = parse_cards(meld)
        info = classify_meld(cards, v)
        if info is None:
            raise ValueError(f"team {t}: meld {i} ({format_cards(cards)}) is not a valid meld")
        melds.append((cards, info))
    if result.muertos_taken < 0 or result.muertos_not_taken < 0:
        raise ValueError(f"team {t}: muerto counts cannot be negative")
    counted = result.muertos_taken + result.muertos_not_taken + len(result.unplayed_muertos)
    if counted != v.muertos_per_team:
        raise ValueError(
            f"team {t}: {result.muertos_taken} taken + {result.muertos_not_taken} not taken + "
            f"{len(result.unplayed_muertos)} unplayed muertos != {v.muertos_per_team} per team"
        )
    hand = Counter(parse_cards(result.hand_cards))
    for muerto in result.unplayed_muertos:
        cards = Counter(parse_cards(muerto))
        if sum(cards.values()) != MUERTO_SIZE:
            raise ValueError(f"team {t}: an unplayed muerto holds {MUERTO_SIZE} cards")
        if cards - hand:
            raise ValueError(f"team {t}: an unplayed muerto's cards are not all in hand_cards")
        hand -= cards
    return melds, list(hand.elements())


def score_hand(
    variant: str | Path | Variant, teams: Sequence[TeamResult], went_out: int | None
) -> HandScore:
    """Score a finished hand for both teams (RULES.md 7).

    ``teams``: two :class:`TeamResult`; ``went_out``: the index of the team that went out,
    or None (stock end, turn limit). Raises ValueError on an invalid meld or inconsistent
    muerto counts.
    """
    v = _variant(variant)
    if len(teams) != 2:
        raise ValueError(f"score_hand needs two teams, got {len(teams)}")
    if went_out not in (0, 1, None):
        raise ValueError(f"went_out must be 0, 1 or None, got {went_out!r}")
    checked = [_check_team(v, t, r) for t, r in enumerate(teams)]
    has_canasta = [any(info.canasta for _, info in melds) for melds, _ in checked]
    scores = []
    for t, (result, (melds, hand)) in enumerate(zip(teams, checked, strict=True)):
        table_negative, hand_positive = no_canasta_signs(v, t, has_canasta, went_out)
        items = {
            "table_cards": item_table_cards(v, melds, table_negative),
            "canasta_bonus": item_canasta_bonus(v, melds),
            "going_out": item_going_out(v, t, went_out),
            "muertos_taken": item_muertos_taken(v, result),
            "muertos_not_taken": item_muertos_not_taken(v, result),
            "hand_cards": item_hand_cards(v, hand, hand_positive),
        }
        assert tuple(items) == SCORE_ITEMS
        scores.append(TeamScore(items))
    return HandScore((scores[0], scores[1]))
