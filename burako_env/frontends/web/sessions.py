"""Games in play in the browser, and recorded games stepped through.

* :class:`PlaySession`: one game at the table (one per browser tab): the
  :class:`~burako_env.core.game.Game`, the seat of the person who started it, the seats of
  the friends they invited (``people``: each with a private seat token, of which only the
  sha256 is kept), the bots at every other seat and the moves so far. Every view is
  drawn for one seat (:meth:`PlaySession.view`); a move is checked before anything
  changes, so a refused one leaves the game as it was.
* :class:`SessionStore`: the games by id and who started each: a browser (its cookie)
  keeps its last ``per_client`` games, the requests of one address that bring no cookie of
  this server their last ``per_address`` games (apart: a flood that drops its cookies
  replaces its own games, never fills the browsers' room); past ``max_games`` in all a
  new game takes the place of a finished or long-idle one, else it is refused (503): one
  browser's requests never drop another's game in play.
* :class:`RecordLibrary`: the record files of one folder. A file is asked for by its name
  as the listing gives it and looked up in that listing, never joined to a path, so nothing
  outside the folder can be read.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from burako_env.core.game import EPISODES, Game
from burako_env.core.state import copy_state
from burako_env.frontends.levels import (
    LEVEL_IDS,
    LEVELS,
    agent_for,
    bot_label,
    default_level,
    level,
    why_not,
)
from burako_env.frontends.narrate import action_words, describe_step, play_and_describe, snapshot
from burako_env.frontends.playback import (
    check_record,
    header,
    load_lines,
    seat_label,
    start,
)
from burako_env.frontends.thinking import (
    PLAN_MOVES,
    decide,
    expert_hint,
    hint_seed,
    public_filter,
    recorded_thinking,
)
from burako_env.frontends.web.moves import legal_moves, resolve_move
from burako_env.frontends.web.table import hand_end_view, table_view
from burako_env.limits import (
    MAX_SEED,
    MAX_WEB_GAMES,
    MAX_WEB_GAMES_PER_ADDRESS,
    MAX_WEB_GAMES_PER_CLIENT,
    WEB_GAME_IDLE_SECONDS,
)
from burako_env.records import GameRecord, write_records
from burako_env.table import IllegalAgentMove
from burako_env.variants import CLOSE_REQUIRES, VARIANT_NAMES, VariantError, load_variant

#: the games kept in memory at once, all browsers together (burako_env.limits)
MAX_GAMES = MAX_WEB_GAMES
#: the bots a new game may name: the levels (what the page offers: easy, normal, hard,
#: expert), and the agents by name (the levels' own, random, and the policy's search)
BOT_NAMES = LEVEL_IDS + tuple(lv.agent for lv in LEVELS) + ("random", "ppo_search")
#: where a game's moves come from in its log
HUMAN = "you"
#: the name of a seat a friend holds (a person other than the one reading the table)
FRIEND = "friend"
#: the bytes of chance in a seat token (its link's secret): 128 bits
SEAT_TOKEN_BYTES = 16


class SessionError(ValueError):
    """A request the server cannot serve; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def variant_choices() -> list[dict]:
    """The named variants with their player counts (the page's set-up form), and for each
    player count the levels that play it and the default one (both front ends')."""
    out = []
    for name in VARIANT_NAMES:
        v = load_variant(name)
        counts = [int(n) for n in v.players]
        out.append(
            {
                "name": name,
                "players": counts,
                "default_players": v.num_players,
                "levels": {
                    str(n): [lv.id for lv in LEVELS if not why_not(lv.id, name, n)] for n in counts
                },
                "default_level": {str(n): default_level(name, n).id for n in counts},
            }
        )
    return out


def level_choices() -> list[dict]:
    """The levels in words: ``{"id", "name", "text"}`` (the page's bot list)."""
    return [{"id": lv.id, "name": lv.name, "text": lv.text} for lv in LEVELS]


#: the house rules the set-up form offers (any variant parameter may be sent): the ones
#: players change most, each with its words (the variant file's own documentation)
HOUSE_RULES = (
    "target",
    "close_requires",
    "muertos_per_team",
    "min_first_meld",
    "pile_min_total",
    "pile_no_rediscard",
    "no_wild_discard",
    "max_turns",
)
#: what a house rule may not change: the table itself (its variant, its player count)
NOT_HOUSE_RULES = ("name", "players", "num_players")


def house_rules(value) -> dict:
    """A new game's house rules: a JSON object of variant parameters and their values
    (None: the variant's own rules). Their names and values are checked by the engine's
    variant checks when the game is dealt (SessionError naming the parameter)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SessionError("rules must be a JSON object of variant parameters and values")
    fixed = sorted(set(value) & set(NOT_HOUSE_RULES))
    if fixed:
        raise SessionError(
            f"rules may not set {', '.join(fixed)}: choose the variant and the players instead"
        )
    return dict(value)


def rules_choices(variant: str, players: int | None = None) -> dict:
    """The rules of ``variant`` in words (the text of ``burako rules``, from the same
    function) and the house rules the form offers, each with its value there, its kind
    and its words."""
    from dataclasses import fields

    from burako_env.frontends.rules_text import rules_summary

    if variant not in VARIANT_NAMES:
        raise SessionError(f"unknown variant {variant!r}: use one of {', '.join(VARIANT_NAMES)}")
    try:
        v = load_variant(variant, num_players=players)
    except VariantError as exc:
        raise SessionError(str(exc)) from exc
    docs = {f.name: f.metadata.get("doc", "") for f in fields(v)}
    offered = []
    for name in HOUSE_RULES:
        value = getattr(v, name)
        entry = {
            "name": name,
            "value": value,
            "kind": "bool" if isinstance(value, bool) else type(value).__name__,
            "text": docs.get(name, ""),
        }
        if name == "close_requires":
            entry["choices"] = list(CLOSE_REQUIRES)
        offered.append(entry)
    return {
        "variant": variant,
        "players": v.num_players,
        "text": rules_summary(v),
        "house_rules": offered,
    }


def deal_seed(value) -> int:
    """A new game's deal seed: a whole number 0..MAX_SEED, also as a string of digits (a
    page's number loses digits past 2**53), or a random one when left out (None). The
    seed deals every hidden card, so the server keeps it until the game ends."""
    if value is None:
        return secrets.randbelow(MAX_SEED + 1)
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise SessionError(
            f"seed must be 0..{MAX_SEED} (a whole number, or its digits as a string; leave "
            f"it out for a random deal), got {value!r}"
        )
    return value


def bot_seed(game_seed: int, moves_played: int, seat: int) -> int:
    """The seed of the bot at ``seat`` deciding after ``moves_played`` moves of the game
    dealt with ``game_seed`` (any 64-bit seed): its decision depends on the position
    alone, not on what the process did before."""
    words = np.random.SeedSequence([int(game_seed), int(moves_played), int(seat)])
    return int(words.generate_state(1, np.uint64)[0] >> np.uint64(1))


def seed_text(seed: int) -> str:
    """A seed as the web sends it: its digits (JavaScript's numbers round past 2**53)."""
    return str(int(seed))


def token_hash(token: str) -> str:
    """The sha256 of a seat token, as kept (the token itself is never stored)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def people_seats(value, seat: int, n: int) -> tuple[int, ...]:
    """A new game's ``people``: the seats persons hold, the creator's ``seat`` among them
    (None: the creator alone); SessionError naming what is wrong."""
    if value is None:
        return (seat,)
    if not isinstance(value, list) or not 0 < len(value) <= n:
        raise SessionError(
            f"people must be a list of the seats persons hold (1 to {n} seats, 0..{n - 1}), "
            "yours among them"
        )
    for p in value:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < n:
            raise SessionError(f"people: each seat must be 0..{n - 1} for {n} players, got {p!r}")
    if len(set(value)) != len(value):
        twice = sorted({p for p in value if value.count(p) > 1})
        raise SessionError(f"people: seat {twice[0]} is named twice; name each seat once")
    if seat not in value:
        raise SessionError(f"people must include your own seat {seat}, got {value!r}")
    return tuple(sorted(value))


@dataclass
class PlaySession:
    """One game: the person who started it at ``seat``, friends at the other seats of
    ``people``, ``bots`` at every seat no person holds."""

    id: str
    game: Game
    seat: int
    bots: dict
    names: list[str]  # who sits at each seat ("you" for the person, a level's name)
    seed: int
    variant: str
    agents: list[str] = field(default_factory=list)  # each bot seat's agent ("human" else)
    log: list[dict] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    saved_as: str | None = None
    #: each bot move's thinking by move number (1 = the game's first move), as sent
    thinking: dict[int, dict] = field(default_factory=dict)
    #: the hint for the person's decision now: (moves played when asked, its JSON)
    hint: tuple[int, dict] | None = None
    #: each ended hand's final table by its number (:func:`hand_end_view`), for the
    #: end-of-hand summary: a match deals the next hand in the move that ends one, so the
    #: table as it ended is kept when that move is played (and again on a restore)
    hand_ends: dict[int, dict] = field(default_factory=dict, repr=False, compare=False)
    #: the searches of the latest hint's plan by position (thinking._think): a person who
    #: follows the plan is given the next hint at once
    hint_reports: dict = field(default_factory=dict, repr=False, compare=False)
    #: held by every request that reads or moves this game: the engine runs in worker
    #: threads, and two tabs or a bot step racing a click must not touch one game at once
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False, compare=False)
    #: the new game's options as checked (the seed as digits): what the database keeps
    options: dict = field(default_factory=dict, repr=False)
    #: where each move is kept as it is played (:mod:`burako_env.frontends.web.db`), or None
    db: object = field(default=None, repr=False, compare=False)
    #: the seats persons hold, ``seat`` among them (one: a game against bots alone)
    people: tuple[int, ...] = ()
    #: per person seat of a game with friends: the sha256 of its token (its link's secret)
    #: and how many times the link was used (``joins``): a browser holds the seat with the
    #: cookie of the latest join (or, for ``seat``, the creator's cookie until its link is
    #: used): joining again from another device moves the seat there
    seat_tokens: dict[int, dict] = field(default_factory=dict, repr=False)
    #: the seat tokens themselves, only on the session just dealt: the creator's answer
    #: carries them once, nothing keeps them
    join_tokens: dict[int, str] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.people:  # a game against bots alone
            self.people = (self.seat,)

    @classmethod
    def new(cls, options, policies: dict | None = None) -> PlaySession:
        """A fresh game from the set-up form's JSON; SessionError says what to fix.
        ``policies``: loaded policy files shared with other games (ppo bots)."""
        from burako_env.frontends.play import make_bots

        if not isinstance(options, dict):
            raise SessionError("the new game's options must be a JSON object")
        unknown = set(options) - {
            "variant",
            "players",
            "seat",
            "bots",
            "episode",
            "seed",
            "rules",
            "people",
            "bot_estimates",
        }
        if unknown:
            raise SessionError(f"unknown game options: {', '.join(sorted(unknown))}")
        variant = options.get("variant", "argentine")
        if variant not in VARIANT_NAMES:
            raise SessionError(
                f"unknown variant {variant!r}: use one of {', '.join(VARIANT_NAMES)}"
            )
        players = options.get("players")
        seat = options.get("seat", 0)
        seed = deal_seed(options.get("seed"))
        episode = options.get("episode", "hand")
        for name, value in (("players", players), ("seat", seat)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise SessionError(f"{name} must be a whole number, got {value!r}")
        if episode not in EPISODES:
            raise SessionError(f"episode must be one of {', '.join(EPISODES)}, got {episode!r}")
        rules = house_rules(options.get("rules"))
        estimates = options.get("bot_estimates", True)
        if not isinstance(estimates, bool):
            raise SessionError(
                "bot_estimates must be true (the bots' thinking is shown) or false (hidden: "
                f"its numbers read the bots' hidden hands), got {estimates!r}"
            )
        try:
            game = Game(variant, num_players=players, episode=episode, seed=seed, **rules)
        except VariantError as exc:
            raise SessionError(str(exc)) from exc
        n = game.num_players
        if seat is None or not 0 <= seat < n:
            raise SessionError(f"seat must be 0..{n - 1} for {n} players, got {seat!r}")
        people = people_seats(options.get("people"), seat, n)
        bots = options.get("bots")
        others = [p for p in range(n) if p not in people]
        if bots is None:  # only then: Hard's check loads its network once
            bots = default_level(variant, n).id if others else []
        if isinstance(bots, str):
            bots = [bots] * len(others)
        if not isinstance(bots, list) or len(bots) != len(others):
            seats = ", ".join(f"P{p}" for p in others) or "none"
            raise SessionError(
                f"bots must be one level (or agent) name, or a list of {len(others)} names "
                f"(one for each seat no person holds: {seats})"
            )
        for name in bots:
            if name not in BOT_NAMES:
                raise SessionError(f"unknown bot {name!r}: choose a level: {', '.join(LEVEL_IDS)}")
            if name in LEVEL_IDS and why_not(name, variant, n):
                lv = level(name)
                raise SessionError(
                    f"{lv.name} cannot play {variant} with {n} players: {why_not(name, variant, n)}"
                )
        agent_names = [agent_for(name) for name in bots]
        try:
            agents = make_bots(game, seat, agent_names, seed, policies=policies, people=people)
        except ValueError as exc:
            raise SessionError(str(exc)) from exc
        names = [
            HUMAN
            if p == seat
            else FRIEND
            if p in people
            else bot_label(agent_names[others.index(p)])
            for p in range(n)
        ]
        seats = ["human" if p in people else agent_names[others.index(p)] for p in range(n)]
        kept = {
            "variant": variant,
            "players": n,
            "seat": seat,
            "bots": list(bots),
            "episode": episode,
            "seed": seed_text(seed),
        }
        if rules:
            kept["rules"] = dict(rules)
        if not estimates:  # kept only when off: older games, kept without it, show them
            kept["bot_estimates"] = False
        tokens: dict[int, str] = {}
        if len(people) > 1:  # a table with friends: a link for every person's seat
            kept["people"] = list(people)
            tokens = {p: secrets.token_hex(SEAT_TOKEN_BYTES) for p in people}
        return cls(
            secrets.token_hex(8),
            game,
            seat,
            agents,
            names,
            seed,
            variant,
            seats,
            options=kept,
            people=people,
            seat_tokens={p: {"sha256": token_hash(t), "joins": 0} for p, t in tokens.items()},
            join_tokens=tokens,
        )

    @classmethod
    def restore(
        cls,
        game_id: str,
        options: dict,
        moves: list,
        policies: dict | None = None,
        seat_tokens: dict | None = None,
    ) -> PlaySession:
        """The game ``game_id`` as a database kept it: dealt again from its ``options``
        and its ``moves`` (``(seat, action, thinking)``) played again, log and bots'
        thinking included; ``seat_tokens``: its seats' token hashes and joins as kept
        (:attr:`seat_tokens`). A move the rules refuse (a damaged database) raises
        SessionError, naming the game and the move."""
        session = cls.new(options, policies)
        session.id = game_id
        session.join_tokens = {}  # the tokens dealt again are not the game's
        session.seat_tokens = {
            int(p): {"sha256": str(kept["sha256"]), "joins": int(kept["joins"])}
            for p, kept in (seat_tokens or {}).items()
        }
        for n, (seat, action, thinking) in enumerate(moves, 1):
            why = None if session.game.is_over() else session.game.why_illegal(action)
            if session.game.is_over() or why is not None or seat != session.to_act:
                raise SessionError(
                    f"stored game {game_id!r} cannot be replayed at move {n} ({action} by "
                    f"P{seat}): {why or 'not that seat to act'}",
                    500,
                )
            session._record_move(seat, action, thinking if session.bot_estimates else None)
        return session

    # ------------------------------------------------------------ state
    @property
    def bot_estimates(self) -> bool:
        """Whether the bots' thinking is shown (the table setting ``bot_estimates``): its
        numbers are estimates each bot reads from its own hidden hand, which a player may
        prefer not to be told; off, none is kept or sent."""
        return bool(self.options.get("bot_estimates", True))

    @property
    def to_act(self) -> int:
        """The seat to act now."""
        return int(self.game.current_player[0])

    def view(self, viewer: int | None = None) -> dict:
        """The table as the person at ``viewer`` (None: the creator's seat) sees it, with
        their legal moves when it is their turn: one function for every seat, so what
        one seat is sent is what its observation holds (RULES.md 10) and no more."""
        seat = self.seat if viewer is None else viewer
        if seat not in self.people:
            raise SessionError(f"P{seat} is a bot's seat: no person sees the table from it", 403)
        game = self.game
        # once the game is over every hand is shown, as at a real table
        view = table_view(game, viewer=None if game.is_over() else seat)
        view["id"] = self.id
        view["seat"] = seat
        view["people"] = list(self.people)
        view["move_count"] = len(self.actions)
        # the names as this seat reads them: itself "you", the other persons "friend"
        names = [FRIEND if p in self.people else name for p, name in enumerate(self.names)]
        names[seat] = HUMAN
        view["names"] = names
        # the seed deals every hidden card: kept here while the game is live, shown once
        # it ends (with every hand) so that the game can be dealt and replayed again
        view["seed"] = seed_text(self.seed) if game.is_over() else None
        view["log"] = (
            self.log
            if names == self.names
            else [
                {**e, "who": names[e["seat"]]} if e.get("seat") is not None else e for e in self.log
            ]
        )
        view["moves"] = [] if game.is_over() or self.to_act != seat else legal_moves(game)
        view["saved_as"] = self.saved_as
        last = len(self.actions)
        # the thinking of the move just played, when a bot played it (after its move only)
        view["thinking"] = self.thinking.get(last)
        view["bot_estimates"] = self.bot_estimates
        # a hint is read from the hand of the seat that asked (the seat to act): no other
        # seat may see it
        hinted = self.hint is not None and self.hint[0] == last and self.to_act == seat
        view["hint"] = self.hint[1] if hinted else None
        # the last ended hand as it ended, every hand open (as a real table lays them down
        # to count them): the summary shows it before the next deal is played
        view["hand_end"] = self.hand_ends.get(view["hands_ended"])
        return view

    # ------------------------------------------------------------ seats
    def seat_of_token(self, token) -> int:
        """The seat whose link carries ``token``; SessionError 403 when none does."""
        if isinstance(token, str) and token:
            digest = token_hash(token)
            for p, kept in self.seat_tokens.items():
                if hmac.compare_digest(digest, kept["sha256"]):
                    return p
        raise SessionError(
            "this link's seat token is not one of this game's: open the whole link its "
            "creator shared (it was shown once, when the game was dealt)",
            403,
        )

    def join(self, seat: int, client: str | None = None) -> int:
        """A browser (``client``: its cookie) takes ``seat`` with its link: the seat's
        joins count one more, so the cookie of the browser that held it before no longer
        holds it. Returns the count (the new holder's cookie carries it); kept in the
        database at once, with the browser, whose history lists the game from then on."""
        kept = self.seat_tokens[seat]
        kept["joins"] += 1
        if self.db is not None:
            self.db.join_seat(self.id, self.seat_tokens, seat, client)
        return kept["joins"]

    def _record_move(self, player: int, action: int, thinking: dict | None = None) -> None:
        game = self.game
        ended_before = int(game.view(0).hands_ended)
        # a match's move that ends a hand deals the next one: a copy played as a single
        # hand keeps the table as it ended (one game's arrays: cheap)
        last_deal = game.clone(episode="hand") if game.episode == "match" else None
        told = play_and_describe(game, action)  # the words of burako play and replay
        if int(game.view(0).hands_ended) > ended_before:
            final = game
            if not game.is_over():
                last_deal.step_one(action)
                final = last_deal
            end = hand_end_view(final, player)
            self.hand_ends[end["number"]] = end
        self.actions.append(action)
        move = len(self.actions)
        entry = {"seat": player, "who": self.names[player], "text": told.text, "move": move}
        if thinking is not None:
            thinking["move"] = move
            self.thinking[move] = thinking
            entry["thinking"] = True
        self.log.append(entry)
        for event in told.events:
            self.log.append({"seat": None, "who": "", "text": event})
        if self.db is not None:  # kept before the move's answer is sent
            self.db.add_move(self, player, action, thinking)

    # ------------------------------------------------------------ moves
    def move(self, request, seat: int | None = None) -> None:
        """The move of the person at ``seat`` (None: the creator's); raises BadMove /
        RefusedMove / SessionError, game untouched."""
        seat = self.seat if seat is None else seat
        if self.game.is_over():
            raise SessionError("the game is over: start a new one", 409)
        if self.to_act != seat:
            p = self.to_act
            who = "a friend" if p in self.people else self.names[p]
            raise SessionError(f"it is P{p}'s turn ({who}), not yours", 409)
        action = resolve_move(self.game, seat, request)
        self._record_move(seat, action)

    def bot_move(self, after: int | None = None) -> bool:
        """One move of the bot to act; SessionError when a person is to act. ``after``:
        play only if the game has exactly that many moves (several browsers at one table
        ask for the same bot move: the first plays it, the others are told the table).
        Returns whether a move was played."""
        if after is not None and after != len(self.actions):
            return False
        if self.game.is_over():
            raise SessionError("the game is over: no bot is to move", 409)
        p = self.to_act
        if p in self.people:
            who = "your turn" if len(self.people) == 1 else f"P{p}'s turn (a person)"
            raise SessionError(f"it is {who}, not a bot's", 409)
        # the agent's own decision, with its thinking where it has numbers to show (Expert,
        # Hard); the candidates the person may see are read before the move. Its generator
        # is seeded by the deal and the position: a game resumed from the database (or
        # served by another process) plays on as it would have
        self.bots[p].seed(bot_seed(self.seed, len(self.actions), p))
        shown = public_filter(self.game, p)
        try:
            action, thinking = decide(self.bots[p], self.game, shown=shown, who=self.names[p])
        except IllegalAgentMove as exc:  # an agent bug, reported instead of played
            raise SessionError(f"bot {self.names[p]!r} at P{p}: {exc}", 500) from exc
        if not self.bot_estimates:  # never kept, so no answer or database row carries it
            thinking = None
        self._record_move(p, action, thinking)
        return True

    def thinking_of(self, move: int) -> dict:
        """The thinking of bot move ``move`` (1 = the game's first move), once played."""
        if not self.bot_estimates:
            raise SessionError(
                "this table hides the bots' estimates (bot_estimates: false, chosen when the "
                "game was dealt): no bot's thinking is kept",
                404,
            )
        if isinstance(move, bool) or not isinstance(move, int) or move not in self.thinking:
            bots = sorted(self.thinking)
            raise SessionError(
                f"no thinking for move {move!r}: Expert and Hard moves have it "
                f"({len(bots)} so far{': ' + ', '.join(map(str, bots[-10:])) if bots else ''})",
                404,
            )
        return self.thinking[move]

    def ask_hint(self, seat: int | None = None) -> dict:
        """What Expert would play in the seat of the person asking (``seat``, None: the
        creator's) now, their own decision only; the same position of the same game
        gives the same hint."""
        seat = self.seat if seat is None else seat
        if self.game.is_over():
            raise SessionError("the game is over: there is nothing to decide", 409)
        if self.to_act != seat:
            raise SessionError("a hint is for your own move: it is not your turn", 409)
        last = len(self.actions)
        if self.hint is None or self.hint[0] != last:
            # the plan's j-th move is the hint the position after it gives: the same seed
            self.hint = (
                last,
                expert_hint(
                    self.game,
                    hint_seed(self.seed, last),
                    next_seed=lambda j: hint_seed(self.seed, last + j),
                    reports=self.hint_reports,
                ),
            )
            # only the searches of positions to come stay: the next hint is one or none
            ahead = {hint_seed(self.seed, last + j) for j in range(1, PLAN_MOVES + 1)}
            for key in [k for k in self.hint_reports if k[0] not in ahead]:
                del self.hint_reports[key]
        return self.hint[1]

    # ------------------------------------------------------------ records
    def record(self) -> GameRecord:
        """The finished game as a record (burako_env.records); SessionError before the end."""
        game = self.game
        if not game.is_over():
            raise SessionError("the game is not over yet: a record holds a finished game", 409)
        scores = game.match_scores[0] if game.episode == "match" else game.hand_scores[0]
        seats = list(self.agents)
        return GameRecord(
            variant=self.variant,
            num_players=game.num_players,
            seed=self.seed,
            index=0,
            seats=seats,
            actions=list(self.actions),
            scores=[int(v) for v in scores],
            winner=int(game.winner[0]),
            episode=game.episode,
            agents=seats[:2],
            overrides=dict(self.options.get("rules", {})),
            meta={"source": "burako serve", "human_seat": self.seat}
            | ({"people": list(self.people)} if len(self.people) > 1 else {}),
        )

    def save(self, folder: Path) -> str:
        """Write the record to ``folder/game-<id>.jsonl``; returns the file name."""
        record = self.record()
        name = f"game-{self.id}.jsonl"
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{name}.tmp"
        write_records(tmp, [record])
        tmp.replace(folder / name)  # whole or not at all
        self.saved_as = name
        return name


class SessionStore:
    """The games in play by id, each with who started it and when it was last used.

    A game belongs to a browser (``client``: its cookie) or, started by a request without
    the server's cookie, to that request's ``address`` until a request brings the cookie
    it was given (then to that browser). A browser keeps at most ``per_client`` games, an
    address at most ``per_address`` cookie-less ones: the next one drops the owner's own
    least recently used, so a script that drops its cookies only ever replaces its own
    games. Past ``max_games`` in all, a new game takes the place of the least recently
    used game that is over or was left untouched ``idle_seconds``; when every game is in
    play it is refused (SessionError 503) rather than ending someone's game."""

    def __init__(
        self,
        max_games: int = MAX_GAMES,
        per_client: int = MAX_WEB_GAMES_PER_CLIENT,
        idle_seconds: float = WEB_GAME_IDLE_SECONDS,
        clock=time.monotonic,
        per_address: int = MAX_WEB_GAMES_PER_ADDRESS,
    ) -> None:
        self.max_games = max_games
        self.per_client = per_client
        self.per_address = per_address
        self.idle_seconds = idle_seconds
        self.clock = clock
        #: id -> (game, its owner, when last used, the cookie a cookie-less game's
        #: request was given: None once a browser owns it), least recently used first
        self._games: OrderedDict[str, tuple[PlaySession, tuple[str, str], float, str | None]]
        self._games = OrderedDict()

    def add(
        self, session: PlaySession, client: str = "", address: str | None = None
    ) -> PlaySession:
        """Keep ``session`` for browser ``client``, or (``address`` given) for a request
        that brought no cookie of this server and is given ``client``; room is made as
        the class says. Returns ``session``."""
        owner = ("client", client) if address is None else ("address", address)
        limit = self.per_client if address is None else self.per_address
        own = self._owned_by(owner)
        if len(own) >= limit:
            del self._games[own[0]]
        elif len(self._games) >= self.max_games:
            victim = self._replaceable()
            if victim is None:
                raise SessionError(
                    f"the server holds its most games ({self.max_games}) and all are in "
                    "play: try again in a few minutes",
                    503,
                )
            del self._games[victim]
        given = None if address is None else client
        self._games[session.id] = (session, owner, self.clock(), given)
        return session

    def _owned_by(self, owner: tuple[str, str]) -> list[str]:
        """The ids of ``owner``'s games, least recently used first."""
        return [gid for gid, (_, who, _, _) in self._games.items() if who == owner]

    def _replaceable(self) -> str | None:
        """The least recently used game that is over or idle; None when all are in play."""
        now = self.clock()
        for gid, (session, _, used, _) in self._games.items():
            if session.lock.locked():  # a request is on it now: in play, and not ours to read
                continue
            if session.game.is_over() or now - used >= self.idle_seconds:
                return gid
        return None

    def get(self, game_id: str, client: str | None = None) -> PlaySession:
        """The game ``game_id``, now the most recently used; ``client``: the browser
        asking (its cookie, None without one), which takes over a game its cookie-less
        first request started (its own oldest game makes room past ``per_client``); a
        SessionError (404) when there is none."""
        found = self._games.get(game_id)
        if found is None:
            raise SessionError(
                f"no game {game_id!r} here: it may be from before the server restarted; "
                "start a new game",
                404,
            )
        session, owner, _, given = found
        if given is not None and client == given:  # the browser came back with its cookie
            owner, given = ("client", client), None
            own = self._owned_by(owner)
            if len(own) >= self.per_client:
                del self._games[own[0]]
        self._games[game_id] = (session, owner, self.clock(), given)
        self._games.move_to_end(game_id)
        return session

    def __len__(self) -> int:
        return len(self._games)


class RecordLibrary:
    """The ``*.jsonl`` record files under one folder (None: no folder, nothing listed)."""

    def __init__(self, folder: str | Path | None) -> None:
        self.folder = None if folder is None else Path(folder).resolve()

    def files(self) -> dict[str, Path]:
        """Name (relative, with ``/``) to path of every record file inside the folder.

        Links that lead outside the folder or nowhere (a loop) are left out."""
        if self.folder is None or not self.folder.is_dir():
            return {}
        out = {}
        for path in sorted(self.folder.rglob("*.jsonl")):
            try:
                real = path.resolve()
            except (OSError, RuntimeError):  # a link loop (RuntimeError before Python 3.13)
                continue
            if real.is_file() and real.is_relative_to(self.folder):
                out[path.relative_to(self.folder).as_posix()] = real
        return out

    def path(self, name) -> Path:
        """The path of the record file ``name`` as the listing gives it; a SessionError when it
        names none."""
        if not isinstance(name, str) or not name:
            raise SessionError("name a record file: 'file' as the list of records gives it")
        path = self.files().get(name)
        if path is None:
            raise SessionError(
                f"no record file {name!r} in the records folder; the list of records names "
                "the files there",
                404,
            )
        return path

    def listing(self) -> list[dict]:
        """The record files of the records folder with their sizes: ``[{"file", "bytes"}]``."""
        return [{"file": name, "bytes": p.stat().st_size} for name, p in self.files().items()]

    def games(self, name: str) -> list[dict]:
        """Each line of a file: its header, or why it is not a record."""
        path = self.path(name)  # a SessionError of its own (400 / 404) when not found
        try:
            lines = load_lines(path)
        except (OSError, ValueError) as exc:  # unreadable, or not text (load_lines says)
            raise SessionError(f"cannot read {name}: {exc}", 422) from exc
        out = []
        for i, line in enumerate(lines):
            if line.record is None:
                out.append({"game": i, "line": line.lineno, "error": line.error})
            else:
                try:
                    text = header(line.record)
                except Exception as exc:  # noqa: BLE001 - fields of the wrong type
                    out.append({"game": i, "line": line.lineno, "error": f"bad record: {exc}"})
                    continue
                out.append({"game": i, "line": line.lineno, "header": text})
        return out

    def record(self, name: str, game: int) -> tuple[GameRecord, int]:
        """Record ``game`` of a file (and its line), checked by replaying it."""
        path = self.path(name)  # a SessionError of its own (400 / 404) when not found
        try:
            lines = load_lines(path)
        except (OSError, ValueError) as exc:  # unreadable, or not text (load_lines says)
            raise SessionError(f"cannot read {name}: {exc}", 422) from exc
        if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < len(lines):
            raise SessionError(
                f"{name} holds {len(lines)} game(s): ask for game 0..{len(lines) - 1}, "
                f"not {game!r}",
                404,
            )
        line = lines[game]
        problem = line.error if line.record is None else check_record(line.record)
        if problem is not None:
            raise SessionError(f"{name}, game {game} (line {line.lineno}): {problem}", 422)
        return line.record, line.lineno


def watch_view(record: GameRecord, step: int, viewer: int | None) -> dict:
    """The recorded game after ``step`` moves, seen by ``viewer`` (None: every hand).
    ``moves_played``: every move of the record, ``{seat, who, text, move, events}``, in
    the words of ``burako replay`` (``events``: the end of a hand it brought, in words)."""
    n = len(record.actions)
    if not 0 <= step <= n:
        raise SessionError(f"step must be 0..{n} (the record has {n} moves), got {step}")
    if viewer is not None and not 0 <= viewer < record.num_players:
        raise SessionError(f"viewer must be a seat 0..{record.num_players - 1} or 'all'")
    game = start(record)
    moves = []
    names = [seat_label(name) for name in record.seats]
    at_step = copy_state(game.state) if step == 0 else None
    hand_starts = [0]  # the step at which each hand begins (Watch jumps to the next)
    for k, a in enumerate(record.actions, 1):
        p = int(game.current_player[0])
        before = snapshot(game)
        game.step_one(int(a))
        told = describe_step(before, game, int(a))  # the words of burako replay
        # one entry a move (moves_played[K - 1] is move K); what followed it in "events"
        moves.append(
            {"seat": p, "who": names[p], "text": told.text, "move": k, "events": told.events}
        )
        if game.live_view(0).hands_ended > len(hand_starts) - 1 and k < n:
            hand_starts.append(k)
        if k == step:
            at_step = copy_state(game.state)
    if step < n:
        game.state = at_step  # the table as it stood after the chosen move
    final = table_view(game, viewer=viewer)
    final["names"] = names
    final["moves_played"] = moves
    final["step"] = step
    final["steps"] = n
    final["header"] = header(record)
    final["hand_starts"] = hand_starts
    final["seed"] = seed_text(record.seed)
    final["index"] = record.index
    return final


def watch_thinking(record: GameRecord, step: int) -> dict:
    """How the seat to act after ``step`` moves of a recorded game thinks there (every
    hand of a record is open to its watchers): its agent (Expert or Hard by name) decides
    again, seeded by the deal and the step; ``thinking`` is None for a seat with no
    numbers to show. ``played``: the move the record holds next."""
    n = len(record.actions)
    if not 0 <= step < n:
        raise SessionError(f"step must be 0..{n - 1}: the position before a recorded move")
    game = start(record)
    for a in record.actions[:step]:
        game.step_one(int(a))
    p = int(game.current_player[0])
    thinking = recorded_thinking(record.seats[p], game, hint_seed(record.seed, step))
    played = int(record.actions[step])
    return {
        "step": step,
        "seat": p,
        "who": seat_label(record.seats[p]),
        "played": {"action": played, "text": action_words(played)},
        "thinking": thinking,
        "why_none": None
        if thinking is not None
        else f"{seat_label(record.seats[p])} follows fixed rules: it has no numbers to show",
    }


__all__ = [
    "BOT_NAMES",
    "MAX_GAMES",
    "PlaySession",
    "RecordLibrary",
    "SessionError",
    "SessionStore",
    "deal_seed",
    "level_choices",
    "seed_text",
    "variant_choices",
    "watch_thinking",
    "watch_view",
]
