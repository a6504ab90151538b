"""The moves the page offers, and a clicked move turned into an action id.

:func:`legal_moves` lists the engine's legal actions for the player to act, each in the
words of the log (:func:`burako_env.frontends.narrate.action_words`), with its kind, the
hand cards it moves and, for an opening, the meld it lays (wild where it stands) with
``wild_text``, what its wild stands for (the table's words). The cards come from the
engine itself: each opening is tried on a copy of the game and the new meld read back,
so openings whose suits the engine picks, and any kind of opening the engine adds, show
exactly what they lay.

:func:`resolve_move` turns a request from the page into an action id: ``{"action": id}``
from a button, or a move on cards (``{"kind": "discard", "cards": [c]}``,
``{"kind": "add", "cards": [c], "slot": s}``, ``{"kind": "open", "cards": [a, b, c]}``)
which goes through :func:`burako_env.frontends.play.card_move`, what ``burako play``'s
parser makes of a typed move. A request that is not a move raises :class:`BadMove`; an
illegal one :class:`RefusedMove` with the rule that refuses it in words
(:func:`burako_env.frontends.narrate.refusal_words`). Neither touches the game; no message
names the terminal's syntax.
"""

from __future__ import annotations

import copy
import re

import numpy as np

from burako_env.cards import NUM_CARD_TYPES, format_card
from burako_env.core.actions import decode_action
from burako_env.core.constants import NUM_ACTIONS
from burako_env.core.game import Game
from burako_env.core.state import copy_state
from burako_env.core.view import Columns
from burako_env.frontends.narrate import action_words, refusal_words
from burako_env.frontends.play import MoveError, card_move
from burako_env.frontends.web.table import meld_cards
from burako_env.render import wild_words

#: the kinds of move made on cards, and the typed move each one becomes
CARD_MOVES = ("discard", "add", "open")


class BadMove(ValueError):
    """A request that names no move (malformed, cards not held, not a meld)."""


class RefusedMove(ValueError):
    """A move the engine does not allow now; the message says which rule refuses it."""

    def __init__(self, action: int, reason: str):
        self.action = action
        self.reason = reason
        super().__init__(f"You cannot {action_words(action)} now: {reason}")


def _trial(game: Game) -> Game:
    """A copy of the game to try an action on (the original never moves)."""
    trial = copy.copy(game)
    trial.state = copy_state(game.state)
    return trial


def _opening(
    game: Game, action: int, b: int = 0
) -> tuple[list[int], list[dict] | None, str | None]:
    """The hand cards an opening moves, the meld it lays and what its wild stands for
    (the table's ``wild_text``), read from a trial step."""
    info = decode_action(action)
    st = game.state
    team = int(game.current_player[b]) % 2
    before = int(st.num_melds[b, team])
    trial = _trial(game)
    trial.step_one(action, b)
    ts = trial.state
    same_hand = Columns(ts.scalars).hands_ended[b] == Columns(st.scalars).hands_ended[b]
    if same_hand and ts.num_melds[b, team] > before:
        row = ts.melds[b, team, before]
        laid = meld_cards(row)
        return sorted(c["card"] for c in laid), laid, wild_words(row) or None
    # the opening ended the hand (a new deal cleared the table): the decoded cards
    return sorted(info.cards), None, None


def legal_moves(game: Game, b: int = 0) -> list[dict]:
    """The legal actions of the player to act, in the engine's order, for the page."""
    moves = []
    for a in game.legal_actions(b):
        a = int(a)
        info = decode_action(a)
        move = {"action": a, "kind": info.kind, "text": action_words(a), "cards": []}
        if info.kind.startswith("open"):
            move["kind"] = "open"
            move["cards"], move["meld"], move["wild_text"] = _opening(game, a, b)
        elif info.kind in ("add", "discard"):
            move["cards"] = [int(c) for c in info.cards]
            if info.kind == "add":
                move["slot"] = int(info.slot)
        moves.append(move)
    return moves


def _card_list(value, kind: str) -> list[int]:
    if not isinstance(value, list) or not value:
        raise BadMove(f"a {kind} move needs 'cards': a list of card ids 0..{NUM_CARD_TYPES - 1}")
    for c in value:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < NUM_CARD_TYPES:
            raise BadMove(f"{c!r} is not a card id: card ids are 0..{NUM_CARD_TYPES - 1}")
    return value


def _card_move(game: Game, seat: int, request: dict, b: int) -> int:
    """The action id of a move on cards (plain words when it is none)."""
    kind = request.get("kind")
    if kind not in CARD_MOVES:
        raise BadMove(
            f"unknown move kind {kind!r}: send {{'action': id}}, or 'kind' one of "
            f"{', '.join(CARD_MOVES)} with 'cards'"
        )
    cards = _card_list(request.get("cards"), kind)
    slot = request.get("slot")
    if kind == "add" and (isinstance(slot, bool) or not isinstance(slot, int) or slot < 0):
        raise BadMove("an add move needs 'slot': the number of one of your team's melds")
    try:
        return card_move(kind, cards, game, seat, slot if kind == "add" else None, b)
    except MoveError as exc:
        raise BadMove(_in_symbols(str(exc), cards)) from exc


def _in_symbols(message: str, cards: list[int]) -> str:
    """``message`` (burako play's words: ``3c Th Js is not a meld``) with the codes of
    ``cards`` in suit symbols (``3♣ T♥ J♠``, which the web's answers write ``10♥``): the
    page names no card in the terminal's syntax. Only whole words that are the code of a
    card of the move are rewritten."""
    codes = {format_card(c): format_card(c, symbols=True) for c in set(cards)}
    return re.sub(r"(?<!\S)[^\s,.:;()]+", lambda m: codes.get(m.group(0), m.group(0)), message)


def resolve_move(game: Game, seat: int, request, b: int = 0) -> int:
    """The legal action id a request from the page stands for.

    Raises :class:`BadMove` when the request names no move and :class:`RefusedMove` when
    the engine does not allow it now (its reason in the message); the game is untouched.
    """
    if not isinstance(request, dict):
        raise BadMove("a move is a JSON object: {'action': id} or {'kind': ..., 'cards': [...]}")
    if "action" in request:
        a = request["action"]
        if isinstance(a, bool) or not isinstance(a, int):
            raise BadMove(f"'action' must be an action id (a whole number), got {a!r}")
        if not 0 <= a < NUM_ACTIONS:
            raise BadMove(f"action {a} is outside the action space 0..{NUM_ACTIONS - 1}")
    else:
        a = _card_move(game, seat, request, b)
    why = refusal_words(game, a, b)
    if why is not None:
        raise RefusedMove(a, why)
    return int(a)


def legal_mask_row(game: Game, b: int = 0) -> np.ndarray:
    """The mask row of game ``b``, shaped [1, NUM_ACTIONS] for an agent."""
    return game.legal_action_mask()[b : b + 1]


__all__ = ["BadMove", "RefusedMove", "legal_mask_row", "legal_moves", "resolve_move"]
