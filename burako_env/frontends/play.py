"""A person plays Burako in the terminal against bots (``burako play``).

The person types moves in card notation; :func:`parse_move` turns a line into an action
id (or a command), :func:`play_game` runs the game loop with any input and output
functions (the CLI passes stdin and stdout, the tests a script of lines)::

    draw | take | keep | reject | muerto
    meld 7h 8h 9h          open a meld with 3 cards (then add the rest one by one)
    add 2c to 3            add a card to your team's meld in slot 3
    discard Kd
    legal                  the legal moves, in words, with their ids
    hint                   what Expert would play in your seat (the web table's hint)
    1742                   a raw action id
    table | help | quit

Nothing typed can crash the loop: a move that is not legal is explained (the engine's
``why_illegal``) and asked again, a line that is not a move says why, and the end of the
input ends the game.

It fits a terminal of 80 columns and 24 lines: every line written is wrapped between
words at :data:`WIDTH` columns (:func:`fit_lines`), each bot's turn is one line of what it
did (:func:`bot_turn_line`), the card the person draws is named, and a status line above
the prompt gives both teams' match points and this hand's points on the table
(:func:`status_line`). In words a ten is ``10`` (``10♥``); the codes typed stay ``Th``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from burako_env.cards import (
    JOKER,
    RANKS,
    CardParseError,
    format_card,
    format_cards,
    parse_cards,
    rank_of,
    suit_of,
)
from burako_env.core.actions import (
    add_action,
    decode_action,
    discard_action,
    open_actions_for,
)
from burako_env.core.constants import (
    DRAW_STOCK,
    MAX_MELDS,
    NUM_ACTIONS,
    PEEK_KEEP,
    PEEK_REJECT,
    TAKE_MUERTO_KEEP_WILDS,
    TAKE_PILE,
)
from burako_env.core.game import Game
from burako_env.frontends.levels import agent_for, bot_label, default_level, why_not
from burako_env.frontends.narrate import (
    SUIT_WORDS,
    action_words,
    play_and_describe,
    refusal_words,
    score_words,
)
from burako_env.render import render_table
from burako_env.variants import load_variant

COMMANDS = ("help", "quit", "legal", "table", "hint")
WORD_ACTIONS = {
    "draw": DRAW_STOCK,
    "stock": DRAW_STOCK,
    "take": TAKE_PILE,
    "pile": TAKE_PILE,
    "keep": PEEK_KEEP,
    "reject": PEEK_REJECT,
    "muerto": TAKE_MUERTO_KEEP_WILDS,
}
ALIASES = {
    "?": "help",
    "h": "help",
    "q": "quit",
    "exit": "quit",
    "moves": "legal",
    "l": "legal",
    "show": "table",
    "look": "table",
    "t": "table",
}

HELP = """\
Moves (cards as rank then suit: 7h Ts Ad 2c, * a joker; 10h and ♥ work too):
  draw             draw a card from the stock
  take             take the whole discard pile
  keep / reject    first turn with a peek: keep the top card, or reject it and draw
  meld 7h 8h 9h    open a meld with exactly 3 cards (a group: 3 of a rank, or 2 and
                   a wild, the engine lays the suits; a run: 3 of a suit in order, a
                   wild may stand in for one); lay a longer meld by adding cards after
  add 2c to 3      add a card to your team's meld in slot 3 (the [ n ] numbers)
  discard Kd       discard a card: this ends your turn
  muerto           take the muerto keeping your 1 or 2 wilds (colombian rules)
  1742             an action id, as 'legal' lists them
Commands:
  legal            list your legal moves, in words, with their ids
  hint             what Expert would play in your seat (as the web table's hint)
  table            show the table again
  help             this text
  quit             leave the game (end of input does the same)"""

#: the terminal's width: every line ``burako play`` writes fits in it
WIDTH = 80
#: a ten in the terminal's card notation (``T♥``): words say ``10♥``
_TEN = re.compile(r"T(?=[♣♦♥♠])")
#: the first verb of a move's words (:func:`~burako_env.frontends.narrate.play_and_describe`)
#: in the past, for a bot's turn told after it
PAST = {"draw": "drew", "take": "took", "keep": "kept", "lay": "laid", "add": "added"}


def fit_lines(text: str, width: int = WIDTH) -> list[str]:
    """``text`` as lines of at most ``width`` columns, broken between words (never inside
    one: a single word longer than the line stays whole), a continued line indented two
    more than its first; a ten in words as ``10`` (``T♥`` becomes ``10♥``, the codes
    typed, ``Th``, stay)."""
    lines = []
    for line in _TEN.sub("10", text).split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        lines += textwrap.wrap(
            line,
            width,
            subsequent_indent=indent + "  ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    return lines


def card_name(c: int) -> str:
    """A card in words: "the 10 of hearts", "the K of spades", "a joker"."""
    if int(c) == JOKER:
        return "a joker"
    rank = RANKS[rank_of(int(c))]
    return f"the {'10' if rank == 'T' else rank} of {SUIT_WORDS[suit_of(int(c))]}"


def _past(text: str) -> str:
    verb, _, rest = text.partition(" ")
    if verb == "discard":
        return "discarded " + rest
    text = PAST.get(verb, verb) + (" " + rest if rest else "")
    return text.replace(" and draw another", " and drew another")


def bot_turn_line(seat: int, name: str, moves: list[str]) -> str:
    """A bot's turn in one line, its moves' words in the past: "P1 (Normal): drew a card
    from the stock, laid a run 7♥ 8♥ 9♥ (meld 0), discarded K♠"."""
    return f"P{seat} ({name}): " + ", ".join(_past(m) for m in moves)


def status_line(game: Game, seat: int, b: int = 0) -> str:
    """Both teams' match points and the points each has on the table in this hand (the
    web table's running score: cards laid and canasta bonuses), the person's team first."""
    from burako_env.frontends.web.table import running_score

    team = seat % 2
    match = game.match_scores[b]
    table = [t["total"] for t in running_score(game, b)]
    return (
        f"Score: your team {int(match[team])} in the match, {table[team]} on the table"
        f" · the other team {int(match[1 - team])}, {table[1 - team]}"
    )


class MoveError(ValueError):
    """A line that is not a move; the message says what was wrong."""


def _hand(game: Game, seat: int, b: int = 0) -> np.ndarray:
    return game.state.hands[b, seat]


def _cards(text: str) -> list[int]:
    try:
        return parse_cards(text)
    except CardParseError as exc:
        raise MoveError(str(exc)) from exc


def _check_held(game: Game, seat: int, cards: list[int], b: int = 0) -> None:
    hand = _hand(game, seat, b)
    missing = []
    for c in sorted(set(cards)):
        short = cards.count(c) - int(hand[c])
        missing += [c] * max(0, short)
    if missing:
        raise MoveError(f"you do not hold {format_cards(missing)}")


def _best_open(game: Game, candidates: list[int], b: int = 0) -> int:
    """The legal candidate to play (clean before dirty), else the first (to be explained)."""
    order = sorted(candidates, key=lambda a: (decode_action(a).wild >= 0, a))
    for a in order:
        if game.why_illegal(a, b) is None:
            return a
    return order[0]


def card_move(
    kind: str, cards: list[int], game: Game, seat: int, slot: int | None = None, b: int = 0
) -> int:
    """The action id of a move on cards, in no interface's syntax (the web sends these,
    ``burako play`` parses them out of a line): ``kind`` ``open`` (exactly 3 cards),
    ``add`` (one card, to meld ``slot``) or ``discard`` (one card). Raises
    :class:`MoveError` (plain words) for cards not held or that make no move; a move that
    is not legal now comes back as its id, for the caller to explain."""
    if kind == "open":
        if len(cards) != 3:
            raise MoveError(
                f"a meld opens with exactly 3 cards (got {len(cards)}): lay 3, then add the "
                "others one at a time"
            )
        candidates = open_actions_for(cards)
        if not candidates:
            raise MoveError(
                f"{format_cards(cards)} is not a meld: a group is 3 cards of one rank (A, 3..K) "
                "or 2 of a rank and a wild; a run is 3 cards of one suit in order, a wild "
                "standing in for at most one"
            )
        _check_held(game, seat, cards, b)
        return _best_open(game, candidates, b)
    if kind in ("add", "discard"):
        if len(cards) != 1:
            what = "add" if kind == "add" else "discard"
            raise MoveError(f"{what} one card at a time (got {len(cards)})")
        if kind == "add":
            if slot is None or not 0 <= slot < MAX_MELDS:
                raise MoveError(f"choose one of your team's melds (numbers 0..{MAX_MELDS - 1})")
            _check_held(game, seat, cards, b)
            return add_action(cards[0], slot)
        _check_held(game, seat, cards, b)
        return discard_action(cards[0])
    raise MoveError(f"unknown kind of move {kind!r}: open, add or discard")


def parse_move(text: str, game: Game, seat: int, b: int = 0) -> int | str:
    """An action id for a typed move, or a command name (``COMMANDS``).

    Raises :class:`MoveError` for a line that names no move (unknown word, bad card, cards
    not held, a meld that no opening makes); a move that parses but is not legal now comes
    back as its id, for the caller to explain with ``game.why_illegal``.
    """
    words = text.strip().split()
    if not words:
        raise MoveError("type a move (or 'help')")
    head = words[0].lower()
    rest = words[1:]
    head = ALIASES.get(head, head)
    if head in COMMANDS:
        if rest:
            raise MoveError(f"'{head}' takes nothing after it")
        return head
    if head in WORD_ACTIONS:
        if rest:
            raise MoveError(f"'{head}' takes nothing after it")
        return WORD_ACTIONS[head]
    if head.lstrip("-").isdigit():
        if rest:
            raise MoveError("an action id stands alone")
        a = int(head)
        if not 0 <= a < NUM_ACTIONS:
            raise MoveError(f"action ids are 0..{NUM_ACTIONS - 1}; 'legal' lists yours")
        return a
    if head in ("meld", "open"):
        cards = _cards(" ".join(rest))
        if len(cards) != 3:
            raise MoveError(
                f"a meld opens with exactly 3 cards (got {len(cards)}): meld 3, then add the "
                "others one by one with 'add CARD to SLOT'"
            )
        return card_move("open", cards, game, seat, b=b)
    if head == "add":
        words = [w for w in rest if w.lower() not in ("to", "meld", "slot", "on")]
        if len(words) != 2:
            raise MoveError("write 'add CARD to SLOT', e.g. 'add 2c to 3'")
        (card,) = _cards(words[0])
        slot_text = words[1].strip("[]#")
        if not slot_text.isdigit():
            raise MoveError(f"the meld slot is a number (the [ n ] on the table), not {words[1]!r}")
        slot = int(slot_text)
        if slot >= MAX_MELDS:
            raise MoveError(f"meld slots are 0..{MAX_MELDS - 1}")
        return card_move("add", [card], game, seat, slot, b)
    if head == "discard":
        cards = _cards(" ".join(rest))
        if len(cards) != 1:
            raise MoveError("discard one card, e.g. 'discard Kd'")
        return card_move("discard", cards, game, seat, b=b)
    raise MoveError(f"unknown move {words[0]!r}; type 'help' for the moves")


def typed_form(a: int) -> str:
    """What to type for action ``a``."""
    info = decode_action(a)
    k = info.kind
    simple = {
        "draw": "draw",
        "take_pile": "take",
        "peek_keep": "keep",
        "peek_reject": "reject",
        "muerto_keep_wilds": "muerto",
    }
    if k in simple:
        return simple[k]
    if k == "add":
        return f"add {format_card(info.cards[0])} to {info.slot}"
    if k == "discard":
        return f"discard {format_card(info.cards[0])}"
    return "meld " + format_cards(info.cards)


def legal_text(game: Game, seat: int, b: int = 0) -> str:
    """The legal moves of game ``b`` as the terminal prints them: id, typed form and words."""
    lines = ["Legal moves (type the move, or its id):"]
    for a in game.legal_actions(b):
        lines.append(f"  {int(a):5d}  {typed_form(int(a)):<20} {action_words(int(a))}")
    return "\n".join(lines)


def score_text(game: Game, b: int = 0) -> str:
    """The last finished hand's score of each team in words, one line a team."""
    items = game.score_items[b]
    scores = game.view(b).hand_scores
    return "\n".join("  " + score_words(items[t], scores[t], t) for t in range(2))


@dataclass
class PlayResult:
    """How a terminal game ended: the actions played, the team scores, the winner and why it
    stopped."""

    finished: bool
    actions: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)  # team 0, team 1
    winner: int = -1
    reason: str = ""  # "over", "quit" or "eof"


def play_game(
    game: Game,
    seat: int,
    bots: dict,
    read: Callable[[str], str | None],
    write: Callable[[str], None],
    names: dict[int, str] | None = None,
    b: int = 0,
    seed: int = 0,
) -> PlayResult:
    """Play game ``b`` to its end: seat ``seat`` reads moves from ``read(prompt)`` (None
    at the end of the input), the other seats are ``bots[seat]`` (agents). Every move is
    written in words through ``write``, in lines of at most :data:`WIDTH` columns (each
    bot's turn one line, :func:`bot_turn_line`); the table and :func:`status_line` are
    shown before each of the person's moves and, at the end, the table with every hand
    open and the score items. ``seed``: the deal's, which seeds the hints (the web
    table's :func:`~burako_env.frontends.thinking.hint_seed`)."""
    from burako_env.frontends.thinking import expert_hint, hint_seed
    from burako_env.table import IllegalAgentMove, next_move

    names = names or {p: getattr(ag, "label", None) or ag.name for p, ag in bots.items()}
    names = {p: bot_label(agent_for(name)) for p, name in names.items()}
    result = PlayResult(finished=False)
    team = seat % 2
    show = True
    turn: list[str] = []  # the words of the moves of the bot to act, told as its turn ends
    bots_round: list[str] = []  # the bots' turns since the person's, told below the table
    raw_write = write

    def write(text: str) -> None:
        for line in fit_lines(text):
            raw_write(line)

    def played(p: int, a: int) -> None:
        hand_before = _hand(game, seat, b).copy()
        hands_ended = game.view(b).hands_ended
        told = play_and_describe(game, a, b)  # the words of the web log and burako replay
        result.actions.append(a)
        if p != seat:  # told below the table, next to the prompt: it does not scroll off
            turn.append(told.text)
            ended = told.events or game.is_over(b) or int(game.current_player[b]) != p
            if ended:
                bots_round.append(bot_turn_line(p, names[p], turn))
                turn.clear()
            bots_round.extend(told.events)
            return
        write(f"P{p} (you): {told.text}")
        drawn = np.flatnonzero(_hand(game, seat, b) > hand_before)
        kind = decode_action(a).kind
        if kind in ("draw", "peek_reject") and game.view(b).hands_ended == hands_ended:
            write("  You drew " + ", ".join(card_name(int(c)) for c in drawn) + ".")
        for event in told.events:
            write(event)

    while not game.is_over(b):
        p = int(game.current_player[b])
        if p != seat:
            try:  # the table's move: checked, from the game for a search agent (pimc)
                a = next_move(bots[p], game, b)
            except IllegalAgentMove as exc:
                raise RuntimeError(f"bot {names[p]!r} at P{p}: {exc}") from exc
            played(p, a)
            show = True
        else:
            if show:
                write("")
                write(render_table(game, b, viewer=seat))
                for line in bots_round:
                    write(line)
                bots_round.clear()
                write(status_line(game, seat, b))
                show = False
            line = read(f"P{seat} (you) > ")
            if line is None:
                write("\nEnd of input: the game is abandoned.")
                result.reason = "eof"
                return result
            try:
                move = parse_move(line, game, seat, b)
            except MoveError as exc:
                write(f"  {exc}")
                continue
            if move == "help":
                write(HELP)
                continue
            if move == "legal":
                write(legal_text(game, seat, b))
                continue
            if move == "table":
                show = True
                continue
            if move == "hint":
                hint = expert_hint(game, hint_seed(seed, len(result.actions)), b)
                a = int(hint["choice"]["action"])
                write(f"  Hint: {typed_form(a)} ({action_words(a)}). {hint['summary']}")
                continue
            if move == "quit":
                write("You left the game.")
                result.reason = "quit"
                return result
            a = int(move)
            why = refusal_words(game, a, b)
            if why is not None:
                write(f"  You cannot {typed_form(a)} now: {why} ('legal' lists your moves)")
                continue
            played(seat, a)
            show = True
    for line in bots_round:
        write(line)
    write("")
    write(render_table(game, b, viewer=None))
    result.finished = True
    result.reason = "over"
    result.scores = [
        int(v) for v in (game.match_scores[b] if game.episode == "match" else game.hand_scores[b])
    ]
    result.winner = int(game.winner[b])
    mine, theirs = result.scores[team], result.scores[1 - team]
    verdict = "a tie" if result.winner < 0 else ("you win" if result.winner == team else "you lose")
    write(f"\nYour team (team {team}) {mine}, the other team {theirs}: {verdict}.")
    return result


def make_bots(
    game: Game,
    seat: int,
    names: list[str],
    seed: int = 0,
    greedy: bool | None = None,
    policies: dict | None = None,
    people: tuple[int, ...] | None = None,
) -> dict:
    """The agents of every seat but ``seat`` (``names`` in seat order; ``people``: the
    seats persons hold, ``seat`` among them, when more than one), agent p seeded
    ``seed + 1 + p`` (modulo 2**64: torch seeds no more, and a deal seed may be any
    64-bit number). Raises ValueError naming a bot that cannot be built or that cannot
    read this table (a policy trained for another variant or player count). ``greedy``
    (None: each agent's default) picks most-likely or sampled play for learned agents;
    ``policies``: a dict of loaded policy files the learned agents share (the web server:
    one copy of a policy however many games play it)."""
    from burako_env.agents import is_learned, make_agent
    from burako_env.extras import MissingExtra
    from burako_env.table import can_read

    held = (seat,) if people is None else tuple(people)
    others = [p for p in range(game.num_players) if p not in held]
    if len(names) != len(others):
        raise ValueError(f"{len(others)} bots are needed, got {len(names)}")
    bots = {}
    seeds = {p: (seed + 1 + p) % 2**64 for p in others}
    for p, name in zip(others, [agent_for(n) for n in names], strict=True):
        kw = {"greedy": greedy} if greedy is not None and is_learned(name) else {}
        # ppo_search reads a policy too: one copy of each file for every game's bots
        if policies is not None and (is_learned(name) or name.split(":", 1)[0] == "ppo_search"):
            kw["policies"] = policies
        try:
            agent = make_agent(name, seed=seeds[p], **kw)
        except (ValueError, OSError, MissingExtra) as exc:  # MissingExtra: ppo without torch
            raise ValueError(f"bot {name!r}: {exc}") from exc
        try:  # a policy trained for another table fails here (a search agent plays any)
            can_read(agent, game, p)
        except ValueError as exc:
            raise ValueError(f"bot {name!r} cannot play this table: {exc}") from exc
        agent.seed(seeds[p])  # the check drew from its generator: start afresh
        bots[p] = agent
    return bots


def default_bot(variant: str, num_players: int | None) -> tuple[str, str]:
    """The default level's agent (:func:`burako_env.frontends.levels.default_level`, the
    web table's default too): ``("ppo", "")`` where Hard plays this table, else
    ``("discard_table", why)``, ``why`` a sentence naming the level and why not Hard."""
    try:
        table = load_variant(variant, num_players=num_players)
        players = table.num_players
    except Exception as exc:  # noqa: BLE001 - a bad variant: its own error comes later
        return "discard_table", f"Normal ({exc})"
    level = default_level(variant, players)
    if level.id == "hard":
        return level.agent, ""
    return level.agent, f"{level.name} (Hard cannot play here: {why_not('hard', variant, players)})"


__all__ = [
    "HELP",
    "MoveError",
    "card_move",
    "PlayResult",
    "WIDTH",
    "bot_turn_line",
    "card_name",
    "default_bot",
    "fit_lines",
    "legal_text",
    "make_bots",
    "parse_move",
    "play_game",
    "score_text",
    "status_line",
    "typed_form",
]
