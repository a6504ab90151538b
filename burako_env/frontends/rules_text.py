"""A variant's rules in words, written from its parameters (``burako rules``).

:func:`rules_summary` follows the sections of RULES.md (cards, melds, the deal, a turn,
muertos and going out, the end of a hand, scoring, the match) and states each rule as the
variant's parameters set it, so a YAML of house rules gets its own summary.
"""

from __future__ import annotations

import textwrap

from burako_env.variants import MUERTO_SIZE, Variant


def _yes(flag: bool, text: str) -> list[str]:
    return [text] if flag else []


def _opening(kind: str) -> str:
    if kind == "peek":
        return (
            "the pile starts empty; the first player looks at the top card of the stock and "
            "keeps it, or lays it face up as the first discard and must keep the next one"
        )
    return "the dealer turns one card up as the pile; the first player may take it"


def rules_summary(v: Variant) -> str:
    """The rules of variant ``v`` in a few paragraphs (RULES.md, with ``v``'s values)."""
    n = v.num_players
    teams = "two teams of " + ("one" if n == 2 else str(n // 2))
    jokers = (
        f"{v.jokers_per_deck} joker{'s' if v.jokers_per_deck != 1 else ''} each"
        if v.jokers_per_deck
        else "no jokers"
    )
    groups = "one rank (A or 3 to K)"
    if v.unique_group_rank == "table":
        groups += "; nobody may open a group of a rank already grouped on the table"
    else:
        groups += "; a team may not hold two groups of the same rank"
    canasta = "A meld of 7 or more cards is a canasta: clean without a wild, dirty with one."
    if v.max_meld_size:
        canasta += f" A meld of {v.max_meld_size} is closed and takes no more cards."
    close = {
        "any_canasta": "their team has a canasta",
        "clean_canasta": "their team has a clean canasta",
        "none": "they like (without a canasta the table scores negative)",
    }[v.close_requires]
    paragraphs = [
        f"{v.label}: {n} players in {teams}; player p is on team p % 2 and partners share "
        f"melds and points. {v.decks} decks of 52 with {jokers} ({v.total_cards} cards). "
        "Jokers and 2s are wild, except a 2 at its natural place in a run of its suit.",
        "Melds (3 or more cards, at most one wild): a group of "
        + groups
        + "; a run of one suit in order (A low or high, no wrap). "
        + canasta
        + (
            " A team may also open a group made only of wilds (a wild canasta at 7); while "
            "it is open and under 7, the team lays no wild elsewhere."
            if v.wild_group
            else ""
        ),
        f"The deal: {v.hand_size} cards each, {v.muertos_per_team} "
        f"muerto{'s' if v.muertos_per_team > 1 else ''} of {MUERTO_SIZE} cards per team, "
        "the rest is the stock. Opening of a match's first "
        f"hand: {_opening(v.opening_first)}"
        + (
            "."
            if v.opening_first == v.opening_later
            else f"; of the later hands: {_opening(v.opening_later)}."
        )
        + (
            " Before the deal the cutter keeps wild cards seen at the bottom (up to 2)."
            if v.cutter_keeps_wilds
            else ""
        ),
        "A turn: draw one card from the stock or take the whole discard pile"
        + (
            f" (only when pile size + hand size is at least {v.pile_min_total})"
            if v.pile_min_total
            else ""
        )
        + "; then open melds and add cards to your team's melds, as many as you like; "
        "then discard one card, which ends the turn."
        + "".join(
            " " + s
            for s in (
                _yes(v.no_wild_discard, "A wild may never be discarded.")
                + _yes(
                    v.pile_no_rediscard,
                    "Having taken a one-card pile you may not discard that card at once.",
                )
                + _yes(
                    v.peek_no_rediscard,
                    "A kept peeked card may not be discarded in that turn.",
                )
                + _yes(
                    v.min_first_meld > 0,
                    f"A team's first melds must be worth {v.min_first_meld} points "
                    f"({v.min_first_meld_high} from {v.min_first_meld_threshold} match "
                    f"points), else they return to the hand and the minimum rises by "
                    f"{v.min_first_meld_step}.",
                )
            )
        ),
        "Muertos and going out: a player whose hand empties takes their team's next muerto "
        "(by melding: play on at once; by the discard: from the next turn). Once the team "
        f"has taken all its muertos, a player may go out (empty their hand) when {close}"
        + ("; going out must be done by a discard" if v.close_requires_discard else "")
        + ("; the last discard may not be a wild" if v.close_discard_not_wild else "")
        + "."
        + (
            " A hand of only 1 or 2 wilds may take the muerto keeping them (shown to all)."
            if v.muerto_keep_wilds
            else ""
        ),
        "The hand ends when a player goes out, or after a draw that "
        + (
            f"leaves {v.stock_end} cards or fewer in the stock"
            if v.stock_end
            else "empties the stock"
        )
        + " (that player finishes the turn)"
        + (
            "; an empty stock is refilled by an untaken muerto, scored as not taken"
            if v.muerto_refills_stock
            else ""
        )
        + f", or after {v.max_turns} turns.",
        "Scoring: card values 3-7 "
        f"{v.value_low}, 8-K {v.value_high}, A {v.value_ace}, 2 {v.value_two}, joker "
        f"{v.value_joker}. Cards in melds count for their team"
        + ("" if v.canasta_card_points else " (cards of closed canastas score the bonus only)")
        + f"; each canasta adds {v.clean_canasta} clean or {v.dirty_canasta} dirty"
        + (
            f" (aces: {v.clean_aces_canasta} / {v.dirty_aces_canasta})"
            if (v.clean_aces_canasta, v.dirty_aces_canasta) != (v.clean_canasta, v.dirty_canasta)
            else ""
        )
        + (f", a wild canasta {v.wild_canasta}" if v.wild_group else "")
        + f"; going out {v.going_out_bonus:+d}; each muerto not taken "
        f"{v.muerto_not_taken:+d}"
        + (f", taken {v.muerto_taken_bonus:+d}" if v.muerto_taken_bonus else "")
        + "; cards left in hand count against their team."
        + (" A team without a canasta scores its table negative." if v.no_canasta_negative else ""),
        f"The match: hands until a team reaches {v.target} points (at most {v.max_hands} "
        "hands); the higher total wins.",
    ]
    return "\n\n".join(textwrap.fill(p, width=88) for p in paragraphs)


__all__ = ["rules_summary"]
