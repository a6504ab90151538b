"""The HTTP side of ``burako serve``: a Starlette app and the server that runs it.

Routes (every answer of ``/api`` is JSON; an error is ``{"error": "..."}`` with a 4xx
status, and the game it names is left as it was)::

    GET  /                          the page (static/index.html)
    GET  /static/NAME               the page's script and style sheet (those files only)
    GET  /api/options               variants (with the levels each table offers), levels,
                                    card faces, the bots' delay
    POST /api/games                 a new game: {variant, players, seat, bots, episode, seed,
                                    people, bot_estimates} (seed: a number or its digits;
                                    left out: a random deal; people: the seats persons
                                    hold, yours among them; bot_estimates: false hides the
                                    bots' thinking); with friends the answer's ``links``
                                    hold each person seat's token, sent this once
    POST /api/games/ID/join         take a seat with its link's token: {token}
    GET  /api/games/ID              the table as the person sees it (a reload resumes)
    POST /api/games/ID/move         the person's move: {action} or {kind, cards, slot}
    POST /api/games/ID/bot?after=N  one move of the bot to act (with after=N: only if the
                                    game has N moves, else the table as it is)
    GET  /api/games/ID/thinking?move=K
                                    how the bot thought at move K (Expert and Hard moves)
    POST /api/games/ID/hint         what Expert would play in the person's seat now
    POST /api/games/ID/save         write the finished game to the save folder
    GET  /api/games/ID/record       the finished game's record (a JSON line)
    GET  /api/history               the browser's games (those it started and those it
                                    joined with a link) and its statistics
    GET  /api/records               the record files of the records folder
    GET  /api/records/games?file=F  the games of file F
    GET  /api/records/view?file=F&game=G&step=K&viewer=all|SEAT
                                    recorded game G after K moves
    GET  /api/records/thinking?file=F&game=G&step=K
                                    how the seat to act after K moves thinks (Expert, Hard)

**Bots and levels.** ``bots`` of a new game names levels: ``easy``, ``normal``, ``hard``,
``expert`` (agent names are accepted too); ``/api/options`` lists them as
``levels: [{id, name, text}]`` and, per variant, ``levels: {"4": [ids]}`` (those that play
the table) and ``default_level: {"4": id}``. A game's ``names`` are the levels' names.

**The log.** ``log`` entries are ``{seat, who, text, move}`` for a move (``move``: its
number, from 1; ``thinking: true`` when a bot's thinking is kept for it) and
``{seat: null, who: "", text}`` for an event (the end of a hand, with the scores), in the
words of ``burako play`` and ``burako replay`` (:mod:`burako_env.frontends.narrate`).

**How the bots think** (:mod:`burako_env.frontends.thinking` gives the JSON of one
decision: ``{seat, who, kind: "search" | "policy", choice: {action, text}, summary,
candidates: [...], withheld, move}``, a search with ``redeals``, ``objective``,
``budget_hit`` and per candidate ``margin``, ``margin_low``, ``margin_high``, ``win``,
``gain``..., a policy with ``value``, ``value_text`` and per candidate ``probability``).
The table's ``thinking`` is the thinking of the move just played when a bot played it
(null otherwise), ``/thinking?move=K`` any earlier one; both only once the bot has moved,
and only the candidates whose cards the person may know are in that bot's hand.
``POST /hint`` answers the same JSON with ``hint: true`` for the person's own decision
(409 when it is not their turn), and for a player: ``advice`` (the pick and its number in
plain words), ``advice_note`` (what the number is), ``cards`` (the card ids of the hand
the pick moves), ``plan`` (``[{action, text, cards}]``: the moves Expert would make this
turn, the pick first, up to where the turn ends or a card the seat cannot see comes in)
and ``plan_end`` (where and why it stops, in words); the table's ``hint`` holds it until
the next move. ``bot_estimates: false`` (a new game's option, kept with the game; the
table's ``bot_estimates`` says which) keeps no bot's thinking: ``thinking`` is null, no
log entry says ``thinking: true`` and ``/thinking`` answers 404, since its numbers are
estimates each bot reads from its own hidden hand. The hint is not a bot's: it stays.
``/api/records/thinking`` answers ``{step, seat, who, played: {action, text}, thinking,
why_none}``: a recorded Expert or Hard seat deciding again there (every candidate shown:
a record's hands are open to its watchers), ``thinking`` null for another seat.

Against other pages and clients (docs in the README's ``burako serve``): a POST whose
``Origin`` is not this server's or whose ``Sec-Fetch-Site`` says another site is refused
(403), a JSON body must say ``Content-Type: application/json`` (415) and is read as it
streams, up to ``MAX_WEB_BODY_BYTES`` (413), parsed with bounded depth and numbers (400);
the browser is named by an HttpOnly SameSite=Strict cookie (signed with a key of the
running app: one a client makes up is none) so that its games are dropped only for its
own new games, and new games without such a cookie count per client address, apart from
the browsers' (:class:`~burako_env.frontends.web.sessions.SessionStore`).

**Friends at the table.** A game whose ``people`` name more than one seat gives each
person seat a token (128 random bits; only its sha256 is kept, in memory and in the
database): the creator's answer carries them once, as ``links: [{seat, token, yours}]``,
and the page turns them into links ``/#/join/ID/TOKEN`` (a fragment: it never reaches a
server's or a proxy's log). ``POST /join`` with a seat's token sets that seat's cookie
for the game (``burako_seat_ID``, HttpOnly, SameSite=Strict, path ``/api/games/ID``: the
seat, how many times its link was used, and their HMAC under the server's key, the
scheme of the browser's own cookie, which a browser without one is given too); the
creator's browser is given its seat's cookie with the game. With a database, a join
also puts the game in the joining browser's ``/api/history`` (its "Your games"), seen
from the seat it took: only a seat's token does, never the game id alone. A seat is
held by the browser of its latest join: its link used again, from another device, moves
the seat there (leave and come back). In such a game every request on it must bring a
seat's cookie (403 otherwise: the game id alone opens no seat), is answered as that
seat sees the table (:meth:`PlaySession.view`), and moves only for that seat (409 when
it is not its turn); ``/bot?after=N`` lets every browser at the table poll for the bots'
moves without two of them playing one. A game of one person is as before: its id is its
key.

**What a seat may know.** A live game's answers show what its seat may know and no more:
the deal's ``seed`` (which deals every hidden card) is null until the game ends, then its
digits (seeds travel as strings: JavaScript rounds past 2**53), as in Watch. Every text
of every answer writes cards as the page draws them (``10♥``, ``★``:
:func:`~burako_env.frontends.web.table.web_json`), never in the terminal's notation
(``T♥``, ``Th``).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import re
import secrets
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

try:  # the web extra: starlette is not a core dependency (burako_env.extras)
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.datastructures import Headers
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route
    from starlette.types import ASGIApp, Receive, Scope, Send
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("the web server (burako serve)", "starlette") from exc

from burako_env.frontends.web.db import (
    DEFAULT_DB_NAME,
    GameDatabase,
    is_database_url,
    redact_url,
)
from burako_env.frontends.web.moves import BadMove, RefusedMove
from burako_env.frontends.web.sessions import (
    BOT_NAMES,
    MAX_GAMES,
    PlaySession,
    RecordLibrary,
    SessionError,
    SessionStore,
    level_choices,
    rules_choices,
    variant_choices,
    watch_thinking,
    watch_view,
)
from burako_env.frontends.web.table import card_faces, web_json
from burako_env.limits import MAX_BOT_DELAY, MAX_WEB_BODY_BYTES, load_json

STATIC_DIR = Path(__file__).resolve().parent / "static"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
#: the largest request body read (burako_env.limits)
MAX_BODY = MAX_WEB_BODY_BYTES
#: the cookie naming a browser (its games are kept apart from other browsers')
CLIENT_COOKIE = "burako_client"
#: a cookie's value: 24 hex digits of chance, then 24 of their HMAC under the server's key
CLIENT_ID = re.compile(r"^[0-9a-f]{48}$")
#: the cookie of a seat at a table with friends: this prefix and the game's id
SEAT_COOKIE = "burako_seat_"
#: a seat cookie's value: the seat, how many times its link was used, their HMAC
SEAT_VALUE = re.compile(r"^([0-9]{1,2})\.([0-9]{1,9})\.([0-9a-f]{24})$")
#: how long a browser keeps a seat's cookie (its link takes the seat again at any time)
SEAT_COOKIE_SECONDS = 30 * 24 * 3600
CLIENT_TOKEN_HEX = 24
#: requests that change nothing: the same-origin check lets them through
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_BOT_DELAY = 0.7  # seconds between bot moves, so a person can follow them
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def _static_files() -> dict[str, tuple[bytes, str]]:
    """The page's files, read once: only these names are ever served."""
    return {
        p.name: (p.read_bytes(), CONTENT_TYPES[p.suffix])
        for p in sorted(STATIC_DIR.iterdir())
        if p.is_file() and p.suffix in CONTENT_TYPES
    }


class WebJSON(JSONResponse):
    """A JSON answer in the page's words: cards as the page shows them (``10♥``, never
    the terminal's ``T♥`` or ``Th``: :func:`~burako_env.frontends.web.table.web_json`)."""

    def render(self, content) -> bytes:
        return super().render(web_json(content))


def _error(message: str, status: int, **extra) -> JSONResponse:
    return WebJSON({"error": message, **extra}, status_code=status)


def check_bot_delay(seconds) -> float:
    """``seconds`` as a bot delay: a finite number 0..MAX_BOT_DELAY; else ValueError (a
    NaN once made every page's options a 500)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise ValueError(f"the bot delay must be a number of seconds, got {seconds!r}")
    if not (math.isfinite(seconds) and 0 <= seconds <= MAX_BOT_DELAY):
        raise ValueError(f"the bot delay must be 0..{MAX_BOT_DELAY:g} seconds, got {seconds}")
    return float(seconds)


async def _body(request: Request):
    """The request's JSON body: ``Content-Type: application/json`` (415 else: a form or
    text/plain is what a page elsewhere can send without asking), read as it streams and
    stopped past MAX_BODY bytes (413, whatever Content-Length says), parsed with bounded
    depth and number size (400)."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise SessionError("the request body must be JSON, sent as application/json", 415)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise SessionError(f"the request body is over {MAX_BODY} bytes", 413)
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise SessionError(f"the request body is over {MAX_BODY} bytes", 413)
    if not raw.strip():
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionError(f"the request body is not JSON: {exc}") from None
    return load_json(text, lambda why: SessionError(f"the request body is not JSON: {why}"))


def _int_param(request: Request, name: str, default: int | None = None) -> int:
    text = request.query_params.get(name)
    if text is None:
        if default is None:
            raise SessionError(f"the query needs {name}=N")
        return default
    try:
        return int(text)
    except ValueError:
        raise SessionError(f"{name} must be a whole number, got {text!r}") from None


def _host_name(host: str) -> str:
    """A host name or address as compared: lower case, IPv6 without brackets, an address
    in its canonical form (``[0:0::1]`` -> ``::1``)."""
    name = host.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name


def is_loopback(host: str) -> bool:
    """Whether ``host`` (as ``--host`` takes it) names this machine only: ``localhost``,
    an address of 127.0.0.0/8, or ``::1`` (also written ``[::1]`` or in full)."""
    name = _host_name(host)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_header_name(header: str) -> str | None:
    """The host of a Host header without its port, as :func:`_host_name` gives it
    (``[::1]:8000`` -> ``::1``, ``Localhost:80`` -> ``localhost``); None when malformed."""
    header = header.strip()
    if header.startswith("["):
        name, closed, rest = header[1:].partition("]")
    else:
        name, _, port = header.partition(":")
        closed, rest = True, f":{port}" if port else ""
    if not name or not closed or (rest and not (rest[:1] == ":" and rest[1:].isdigit())):
        return None
    return _host_name(name)


def allowed_hosts_for(host: str) -> list[str] | None:
    """The Host names a server listening on ``host`` answers. On a loopback address only
    the local names (any port), so a page elsewhere whose name is pointed at this machine
    (DNS rebinding) gets nothing; None (any name) on another address: a server opened to a
    network on purpose answers whatever name it is reached by."""
    if not is_loopback(host):
        return None
    return sorted({_host_name(host), "localhost", "127.0.0.1", "::1"})


class HostCheck:
    """Refuses (400) a request whose Host header is not one of ``allowed`` (host names as
    :func:`host_header_name` gives them: IPv6 without brackets, no port). Not Starlette's
    TrustedHostMiddleware: its releases before the IPv6 fix read ``[::1]:8000`` as ``[``."""

    def __init__(self, app: ASGIApp, allowed: list[str]) -> None:
        self.app = app
        self.allowed = {_host_name(name) for name in allowed}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host")
            if host is None or host_header_name(host) not in self.allowed:
                response = (  # /api answers JSON, errors included (the module's doc)
                    _error("invalid Host header: this server answers its local names only", 400)
                    if scope.get("path", "").startswith("/api/")
                    else Response("Invalid host header", 400, media_type="text/plain")
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _origin_of(scheme: str, host: str | None) -> tuple[str, str, int] | None:
    """``(scheme, host name, port)`` of this server as a Host header names it."""
    if host is None:
        return None
    name = host_header_name(host)
    port = host.rsplit("]", 1)[-1].rpartition(":")[2]
    if name is None:
        return None
    default = 443 if scheme in ("https", "wss") else 80
    return scheme.replace("ws", "http"), name, int(port) if port.isdigit() else default


def _origin_header(origin: str) -> tuple[str, str, int] | None:
    """``(scheme, host name, port)`` of an Origin header; None for ``null`` or garbage."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, _host_name(parts.hostname), port if port is not None else default


class SameOriginCheck:
    """Refuses (403, JSON) a request that can change something (any method but GET,
    HEAD, OPTIONS) sent by a page of another site: its ``Origin`` is present and not
    this server's (scheme, host and port of the Host header), or its ``Sec-Fetch-Site``
    is ``cross-site`` or ``same-site``. Browsers send both with a cross-site POST, so a
    page elsewhere cannot start or move games in the player's name (a "simple" POST
    needs no preflight); a client that sends neither (curl, a script) is not a page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            headers = Headers(scope=scope)
            why = None
            site = headers.get("sec-fetch-site", "").strip().lower()
            origin = headers.get("origin")
            if site in ("cross-site", "same-site"):
                why = f"Sec-Fetch-Site: {site}"
            elif origin is not None:
                own = _origin_of(scope.get("scheme", "http"), headers.get("host"))
                if own is None or _origin_header(origin) != own:
                    why = f"Origin {origin!r} is not this server's"
            if why is not None:
                response = _error(f"refused: a request from another site ({why})", 403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def save_message(name: str, folder: Path, records: Path | None) -> str:
    """Where a saved game went, in words: the real folder, and whether Watch lists it
    (only the records folder's files are listed)."""
    text = f"Saved as {name} in {folder}"
    if records is not None and folder.is_relative_to(records):
        return text + " (Watch lists it)."
    if records is None:
        return text + " (this server watches no records folder: burako replay shows it)."
    return text + f": not the records folder ({records}), so Watch does not list it."


def create_app(
    records_dir: str | Path | None = None,
    save_dir: str | Path | None = None,
    bot_delay: float = DEFAULT_BOT_DELAY,
    max_games: int = MAX_GAMES,
    allowed_hosts: list[str] | None = None,
    db: str | Path | None = None,
) -> Starlette:
    """The web app. ``records_dir``: the folder whose record files Watch lists (None:
    none); ``save_dir``: where finished games are saved (default ``records_dir``; None for
    both: saving is off); ``bot_delay``: seconds the page waits before each bot move;
    ``allowed_hosts``: the Host names answered, with any port (None: any; ``burako serve``
    sets them with :func:`allowed_hosts_for`); ``db``: the SQLite file, or the PostgreSQL
    URL, that keeps every game as it is played (:mod:`burako_env.frontends.web.db`; None:
    games live in memory only)."""
    bot_delay = check_bot_delay(bot_delay)
    database = GameDatabase(db) if db is not None else None
    library = RecordLibrary(records_dir)
    save_folder = Path(save_dir if save_dir is not None else records_dir or "").resolve()
    can_save = save_dir is not None or records_dir is not None
    store = SessionStore(max_games)
    static = _static_files()
    #: the policy files the ppo bots of every game share: loaded once, read by many
    policies: dict = {}

    #: signs the cookies this server gives: a cookie made up by a client is no cookie
    #: (else a script could be a new browser at every request, past the address limit)
    cookie_key = database.secret("cookie") if database is not None else secrets.token_bytes(32)

    def signature(token: str) -> str:
        return hmac.new(cookie_key, token.encode(), hashlib.sha256).hexdigest()[:CLIENT_TOKEN_HEX]

    def known_client(request: Request) -> str | None:
        """The browser's id when its cookie is one this server gave, else None."""
        value = request.cookies.get(CLIENT_COOKIE, "")
        if not CLIENT_ID.match(value):
            return None
        token, mac = value[:CLIENT_TOKEN_HEX], value[CLIENT_TOKEN_HEX:]
        return value if hmac.compare_digest(mac, signature(token)) else None

    def client_of(request: Request) -> tuple[str, bool]:
        """The browser's id from its cookie, or a new one (True: set the cookie)."""
        known = known_client(request)
        if known is not None:
            return known, False
        token = secrets.token_hex(CLIENT_TOKEN_HEX // 2)
        return token + signature(token), True

    def seat_mac(game_id: str, seat: int, joins: int) -> str:
        return signature(f"seat:{game_id}:{seat}:{joins}")

    def set_seat_cookie(response: Response, session: PlaySession, seat: int) -> None:
        joins = session.seat_tokens[seat]["joins"]
        response.set_cookie(
            SEAT_COOKIE + session.id,
            f"{seat}.{joins}.{seat_mac(session.id, seat, joins)}",
            max_age=SEAT_COOKIE_SECONDS,
            path=f"/api/games/{session.id}",
            httponly=True,
            samesite="strict",
        )

    def seat_of(request: Request, session: PlaySession) -> int:
        """The seat the request speaks for: the creator's in a game of one person (its id
        is its key, as before friends came), else the seat of the request's seat cookie,
        if it is the latest holder's (SessionError 403 otherwise)."""
        if len(session.people) == 1:
            return session.seat
        found = SEAT_VALUE.match(request.cookies.get(SEAT_COOKIE + session.id, ""))
        if found is not None:
            seat, joins, mac = int(found[1]), int(found[2]), found[3]
            kept = session.seat_tokens.get(seat)
            if kept is not None and hmac.compare_digest(mac, seat_mac(session.id, seat, joins)):
                if joins == kept["joins"]:
                    return seat
                raise SessionError(
                    f"your seat P{seat} was taken with its link on another device: open "
                    "your seat's link here to take it back",
                    403,
                )
        raise SessionError(
            f"this table seats {len(session.people)} people: open your seat's link (the "
            "game's creator was shown one for each seat) to sit at it",
            403,
        )

    async def in_game(request: Request, work):
        """``work(session, seat)`` (``seat``: the seat the request speaks for, checked
        under the lock) in a worker thread (a ppo or pimc move takes long and would hold
        up every other page) under the game's lock (no two requests touch one game at
        once). The thread is waited for even when the client goes away
        (run_in_threadpool does not abandon it), so the lock is never released while the
        game moves."""
        session = await find(request)
        async with session.lock:
            seat = seat_of(request, session)
            return await run_in_threadpool(work, session, seat)

    async def find(request: Request) -> PlaySession:
        """The game of the request's link: in memory, or dealt again from the database
        (after a restart, or when another server process started it)."""
        game_id = request.path_params["game_id"]
        client = known_client(request)
        try:
            return store.get(game_id, client)
        except SessionError as exc:
            if database is None or exc.status != 404:
                raise
            kept = await run_in_threadpool(database.load, game_id)
            if kept is None:
                raise
        options, moves = kept
        _, tokens = await run_in_threadpool(database.seats, game_id)
        session = await run_in_threadpool(
            PlaySession.restore, game_id, options, moves, policies, tokens
        )
        session.db = database
        try:  # a request for the same game that came first has put it back already
            return store.get(game_id, client)
        except SessionError:
            address = request.client.host if request.client else ""
            store.add(session, client or "", None if client else address)
            return session

    async def index(request: Request) -> Response:
        body, kind = static["index.html"]
        return Response(body, media_type=kind)

    async def static_file(request: Request) -> Response:
        found = static.get(request.path_params["name"])
        if found is None:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(found[0], media_type=found[1])

    async def options(request: Request) -> Response:
        # which levels play which table: Hard loads its network once to know (off the loop)
        variants = await run_in_threadpool(variant_choices)
        return WebJSON(
            {
                "variants": variants,
                "levels": level_choices(),
                "bots": list(BOT_NAMES),
                "faces": card_faces(),
                "bot_delay_ms": round(bot_delay * 1000),
                "records": library.folder is not None,
                "can_save": can_save,
            }
        )

    async def new_game(request: Request) -> Response:
        options = await _body(request)
        client, fresh = client_of(request)

        def start():  # loads a policy and compiles on first use: off the loop
            session = PlaySession.new(options, policies)
            return session, session.view()

        session, view = await run_in_threadpool(start)
        # on the loop: the store is never touched by threads. Without this server's
        # cookie the game is the address's (a script dropping cookies replaces its own)
        # until a request brings the cookie given now
        address = (request.client.host if request.client else "") if fresh else None
        store.add(session, client, address)
        if database is not None:  # kept from its first move on, as the browser's game
            await run_in_threadpool(database.add_game, session, client, session.options)
            session.db = database
        if session.join_tokens:  # the seats' links, this once: nothing keeps the tokens
            view["links"] = [
                {"seat": p, "token": token, "yours": p == session.seat}
                for p, token in sorted(session.join_tokens.items())
            ]
            session.join_tokens = {}
        response = WebJSON(view, status_code=201)
        if fresh:
            response.set_cookie(CLIENT_COOKIE, client, path="/", httponly=True, samesite="strict")
        if len(session.people) > 1:  # the creator holds their seat from the start
            set_seat_cookie(response, session, session.seat)
        return response

    async def join(request: Request) -> Response:
        body = await _body(request)
        if not isinstance(body, dict) or not isinstance(body.get("token"), str):
            raise SessionError('send the seat\'s token: {"token": "..."}, from its link')
        # the joiner's browser keeps the game in its history: one without this server's
        # cookie is given one, as with a new game (only once the token is checked)
        client, fresh = client_of(request)
        session = await find(request)
        async with session.lock:
            seat = session.seat_of_token(body["token"])
            await run_in_threadpool(session.join, seat, client)
            view = await run_in_threadpool(session.view, seat)
        response = WebJSON(view)
        if fresh:
            response.set_cookie(CLIENT_COOKIE, client, path="/", httponly=True, samesite="strict")
        set_seat_cookie(response, session, seat)
        return response

    async def get_game(request: Request) -> Response:
        return WebJSON(await in_game(request, PlaySession.view))

    async def move(request: Request) -> Response:
        body = await _body(request)

        def play(session, seat):
            session.move(body, seat)
            return session.view(seat)

        return WebJSON(await in_game(request, play))

    async def bot(request: Request) -> Response:
        # after=N: only the bot move that follows move N (browsers at one table poll)
        after = _int_param(request, "after") if "after" in request.query_params else None

        def play(session, seat):
            session.bot_move(after)
            return session.view(seat)

        return WebJSON(await in_game(request, play))

    async def thinking(request: Request) -> Response:
        move = _int_param(request, "move")
        return WebJSON(await in_game(request, lambda s, _: s.thinking_of(move)))

    async def hint(request: Request) -> Response:
        return WebJSON(await in_game(request, PlaySession.ask_hint))

    async def save(request: Request) -> Response:
        if not can_save:
            # a 404 first for a game not here
            store.get(request.path_params["game_id"], known_client(request))
            raise SessionError("this server was started without a folder to save games in", 409)

        def write(session, seat):
            try:
                name = session.save(save_folder)
            except OSError as exc:
                raise SessionError(
                    f"cannot write to {save_folder}: {exc.strerror or exc}", 500
                ) from exc
            return {
                "file": name,
                "folder": str(save_folder),
                "message": save_message(name, save_folder, library.folder),
                "view": session.view(seat),
            }

        return WebJSON(await in_game(request, write))

    async def record(request: Request) -> Response:
        session, text = await in_game(request, lambda s, _: (s, s.record().to_json() + "\n"))
        return Response(
            text,
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="game-{session.id}.jsonl"'},
        )

    # the records folder is read and a record replayed in worker threads (a long match
    # takes a while); nothing there is shared state
    async def records(request: Request) -> Response:
        listing = await run_in_threadpool(library.listing)
        return WebJSON({"files": listing, "folder": library.folder is not None})

    async def record_games(request: Request) -> Response:
        name = request.query_params.get("file")
        return WebJSON({"file": name, "games": await run_in_threadpool(library.games, name)})

    async def record_view(request: Request) -> Response:
        name = request.query_params.get("file")
        game = _int_param(request, "game", 0)
        step = _int_param(request, "step", 0)
        seat = request.query_params.get("viewer", "all")
        if seat == "all":
            viewer = None
        else:
            try:
                viewer = int(seat)
            except ValueError:
                raise SessionError(f"viewer must be 'all' or a seat number, got {seat!r}") from None

        def replay():
            rec, _ = library.record(name, game)
            return watch_view(rec, step, viewer)

        view = await run_in_threadpool(replay)
        view["file"] = name
        view["game"] = game
        return WebJSON(view)

    async def record_thinking(request: Request) -> Response:
        name = request.query_params.get("file")
        game = _int_param(request, "game", 0)
        step = _int_param(request, "step")

        def think():
            rec, _ = library.record(name, game)
            return watch_thinking(rec, step)

        answer = await run_in_threadpool(think)
        answer["file"] = name
        answer["game"] = game
        return WebJSON(answer)

    async def rules(request: Request) -> Response:
        """A variant's rules in words (``burako rules``'s text) and its house rules."""
        variant = request.query_params.get("variant", "argentine")
        players = request.query_params.get("players")
        if players is not None and not (players.isascii() and players.isdigit()):
            raise SessionError(f"players must be a whole number, got {players!r}")
        count = None if players is None else int(players)
        return WebJSON(await run_in_threadpool(rules_choices, variant, count))

    async def history(request: Request) -> Response:
        """The browser's past games and its statistics, from the database: those it
        started and those it joined with a seat's link, each from its own seat."""
        client = known_client(request)
        if database is None or client is None:
            return WebJSON({"kept": database is not None, "games": [], "stats": None})
        games = await run_in_threadpool(database.history, client)
        stats = await run_in_threadpool(database.stats, client)
        return WebJSON({"kept": True, "games": games, "stats": stats})

    async def session_error(request: Request, exc: SessionError) -> Response:
        return _error(str(exc), exc.status)

    async def bad_move(request: Request, exc: BadMove) -> Response:
        return _error(str(exc), 400)

    async def refused(request: Request, exc: RefusedMove) -> Response:
        return _error(str(exc), 409, reason=exc.reason, action=exc.action)

    async def http_error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return _error(f"{request.method} {request.url.path}: {exc.detail}", exc.status_code)
        return Response(str(exc.detail), status_code=exc.status_code, media_type="text/plain")

    routes = [
        Route("/", index),
        Route("/static/{name}", static_file),
        Route("/api/options", options),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/join", join, methods=["POST"]),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/bot", bot, methods=["POST"]),
        Route("/api/games/{game_id}/thinking", thinking),
        Route("/api/games/{game_id}/hint", hint, methods=["POST"]),
        Route("/api/games/{game_id}/save", save, methods=["POST"]),
        Route("/api/games/{game_id}/record", record),
        Route("/api/history", history),
        Route("/api/rules", rules),
        Route("/api/records", records),
        Route("/api/records/games", record_games),
        Route("/api/records/view", record_view),
        Route("/api/records/thinking", record_thinking),
    ]
    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(HostCheck, allowed=allowed_hosts))
    middleware.append(Middleware(SameOriginCheck))
    # the engine runs in worker threads (in_game, new_game, the records): a slow bot
    # holds up only its own game. The store is touched only on the event loop, one
    # handler step at a time, and a game only under its lock: two tabs or a bot step
    # racing a click never touch a game at once
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            SessionError: session_error,
            BadMove: bad_move,
            RefusedMove: refused,
            HTTPException: http_error,
        },
    )
    app.state.store = store  # the games and the shared policies, for tests and tools
    app.state.policies = policies
    return app


def default_db(records_dir: str | Path | None) -> Path | None:
    """Where ``burako serve`` keeps its games by default: a file beside the records
    (``<records>/burako-games.sqlite3``), none without a records folder."""
    return None if records_dir is None else Path(records_dir) / DEFAULT_DB_NAME


def _database_name(db: str | Path) -> str:
    """The database as the server's first lines name it: the file's full path, or the
    PostgreSQL URL without its password."""
    return redact_url(str(db)) if is_database_url(db) else str(Path(db).resolve())


def serve_app(
    host: str = DEFAULT_HOST,
    records_dir: str | Path | None = "games",
    save_dir: str | Path | None = None,
    bot_delay: float = DEFAULT_BOT_DELAY,
    db: str | Path | None = None,
) -> Starlette:
    """The app as :func:`serve` runs it on ``host``: on a loopback address it answers
    only the local Host names (:func:`allowed_hosts_for`); ``db``: the game database's
    file (None: in memory only)."""
    return create_app(
        records_dir, save_dir, bot_delay, allowed_hosts=allowed_hosts_for(host), db=db
    )


def serve(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    records_dir: str | Path | None = "games",
    save_dir: str | Path | None = None,
    bot_delay: float = DEFAULT_BOT_DELAY,
    echo=print,
    db: str | Path | None = None,
) -> None:
    """Run the app until interrupted; prints the URL (``port=0`` picks a free port).
    ``db``: the file that keeps every game (:func:`default_db` gives the command's
    default; None: in memory only).

    Raises OSError when the address cannot be bound, DatabaseError when the database
    cannot be used."""
    from burako_env.extras import require

    uvicorn = require("uvicorn", "the web server (burako serve)")

    app = serve_app(host, records_dir, save_dir, bot_delay, db)
    host = host.strip("[]")  # --host [::1]: the socket takes ::1
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    folder = Path(records_dir).resolve() if records_dir is not None else None
    echo(f"Burako table at http://{shown}:{bound}/")
    echo(f"records from {folder if folder else '(none)'}; Ctrl+C stops the server")
    echo(f"games kept in {_database_name(db)}" if db is not None else "games kept in memory only")
    sys.stdout.flush()
    # log_config=None: uvicorn's own config goes through logging.config.dictConfig, which
    # closes every handler the process already has (absl's, for one, then closes the
    # stream it writes to: a host program's stderr); its warnings reach stderr anyway,
    # through the root logger's handlers or Python's last resort
    config = uvicorn.Config(app, log_level="warning", lifespan="off", log_config=None)
    uvicorn.Server(config).run(sockets=[sock])


__all__ = [
    "DEFAULT_BOT_DELAY",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "allowed_hosts_for",
    "create_app",
    "default_db",
    "serve",
    "serve_app",
]
