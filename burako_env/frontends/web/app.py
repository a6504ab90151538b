"""The HTTP side of ``burako serve``: a Starlette app and the server that runs it.

Routes (every answer of ``/api`` is JSON; an error is ``{"error": "..."}`` with a 4xx
status, and the game it names is left as it was)::

    GET  /                          the page (static/index.html)
    GET  /static/NAME               the page's script and style sheet (those files only)
    GET  /api/options               variants, bots, card faces, the bots' delay
    POST /api/games                 a new game: {variant, players, seat, bots, episode, seed}
    GET  /api/games/ID              the table as the person sees it (a reload resumes)
    POST /api/games/ID/move         the person's move: {action} or {kind, cards, slot}
    POST /api/games/ID/bot          one move of the bot to act
    POST /api/games/ID/save         write the finished game to the save folder
    GET  /api/games/ID/record       the finished game's record (a JSON line)
    GET  /api/records               the record files of the records folder
    GET  /api/records/games?file=F  the games of file F
    GET  /api/records/view?file=F&game=G&step=K&viewer=all|SEAT
                                    recorded game G after K moves
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
from pathlib import Path

try:  # the web extra: starlette is not a core dependency (burako_env.extras)
    from starlette.applications import Starlette
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

from burako_env.frontends.web.moves import BadMove, RefusedMove
from burako_env.frontends.web.sessions import (
    BOT_NAMES,
    MAX_GAMES,
    PlaySession,
    RecordLibrary,
    SessionError,
    SessionStore,
    variant_choices,
    watch_view,
)
from burako_env.frontends.web.table import card_faces

STATIC_DIR = Path(__file__).resolve().parent / "static"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
#: the largest request body read (a move or a new game's options is a few dozen bytes)
MAX_BODY = 16_384
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


def _error(message: str, status: int, **extra) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


async def _body(request: Request):
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise SessionError(f"the request body is over {MAX_BODY} bytes", 413)
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SessionError(f"the request body is not JSON: {exc}") from exc


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
                response = Response("Invalid host header", 400, media_type="text/plain")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    records_dir: str | Path | None = None,
    save_dir: str | Path | None = None,
    bot_delay: float = DEFAULT_BOT_DELAY,
    max_games: int = MAX_GAMES,
    allowed_hosts: list[str] | None = None,
) -> Starlette:
    """The web app. ``records_dir``: the folder whose record files Watch lists (None:
    none); ``save_dir``: where finished games are saved (default ``records_dir``; None for
    both: saving is off); ``bot_delay``: seconds the page waits before each bot move;
    ``allowed_hosts``: the Host names answered, with any port (None: any; ``burako serve``
    sets them with :func:`allowed_hosts_for`)."""
    if bot_delay < 0:
        raise ValueError(f"bot_delay must be 0 or more seconds, got {bot_delay}")
    library = RecordLibrary(records_dir)
    save_folder = Path(save_dir if save_dir is not None else records_dir or "").resolve()
    can_save = save_dir is not None or records_dir is not None
    store = SessionStore(max_games)
    static = _static_files()

    async def index(request: Request) -> Response:
        body, kind = static["index.html"]
        return Response(body, media_type=kind)

    async def static_file(request: Request) -> Response:
        found = static.get(request.path_params["name"])
        if found is None:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(found[0], media_type=found[1])

    async def options(request: Request) -> Response:
        return JSONResponse(
            {
                "variants": variant_choices(),
                "bots": list(BOT_NAMES),
                "faces": card_faces(),
                "bot_delay_ms": round(bot_delay * 1000),
                "records": library.folder is not None,
                "can_save": can_save,
            }
        )

    async def new_game(request: Request) -> Response:
        session = store.add(PlaySession.new(await _body(request)))
        return JSONResponse(session.view(), status_code=201)

    async def get_game(request: Request) -> Response:
        return JSONResponse(store.get(request.path_params["game_id"]).view())

    async def move(request: Request) -> Response:
        session = store.get(request.path_params["game_id"])
        session.move(await _body(request))
        return JSONResponse(session.view())

    async def bot(request: Request) -> Response:
        session = store.get(request.path_params["game_id"])
        session.bot_move()
        return JSONResponse(session.view())

    async def save(request: Request) -> Response:
        session = store.get(request.path_params["game_id"])
        if not can_save:
            raise SessionError("this server was started without a folder to save games in", 409)
        try:
            name = session.save(save_folder)
        except OSError as exc:
            raise SessionError(
                f"cannot write to {save_folder}: {exc.strerror or exc}", 500
            ) from exc
        return JSONResponse({"file": name, "folder": str(save_folder), "view": session.view()})

    async def record(request: Request) -> Response:
        session = store.get(request.path_params["game_id"])
        text = session.record().to_json() + "\n"
        return Response(
            text,
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="game-{session.id}.jsonl"'},
        )

    async def records(request: Request) -> Response:
        return JSONResponse({"files": library.listing(), "folder": library.folder is not None})

    async def record_games(request: Request) -> Response:
        name = request.query_params.get("file")
        return JSONResponse({"file": name, "games": library.games(name)})

    async def record_view(request: Request) -> Response:
        name = request.query_params.get("file")
        game = _int_param(request, "game", 0)
        rec, _ = library.record(name, game)
        step = _int_param(request, "step", 0)
        seat = request.query_params.get("viewer", "all")
        if seat == "all":
            viewer = None
        else:
            try:
                viewer = int(seat)
            except ValueError:
                raise SessionError(f"viewer must be 'all' or a seat number, got {seat!r}") from None
        view = watch_view(rec, step, viewer)
        view["file"] = name
        view["game"] = game
        return JSONResponse(view)

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
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/bot", bot, methods=["POST"]),
        Route("/api/games/{game_id}/save", save, methods=["POST"]),
        Route("/api/games/{game_id}/record", record),
        Route("/api/records", records),
        Route("/api/records/games", record_games),
        Route("/api/records/view", record_view),
    ]
    middleware = []
    if allowed_hosts is not None:
        middleware.append(Middleware(HostCheck, allowed=allowed_hosts))
    # handlers are async and call the engine directly: one request at a time, so two
    # tabs or a bot step racing a click never touch a game at once
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            SessionError: session_error,
            BadMove: bad_move,
            RefusedMove: refused,
            HTTPException: http_error,
        },
    )


def serve_app(
    host: str = DEFAULT_HOST,
    records_dir: str | Path | None = "games",
    save_dir: str | Path | None = None,
    bot_delay: float = DEFAULT_BOT_DELAY,
) -> Starlette:
    """The app as :func:`serve` runs it on ``host``: on a loopback address it answers
    only the local Host names (:func:`allowed_hosts_for`)."""
    return create_app(records_dir, save_dir, bot_delay, allowed_hosts=allowed_hosts_for(host))


def serve(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    records_dir: str | Path | None = "games",
    save_dir: str | Path | None = None,
    bot_delay: float = DEFAULT_BOT_DELAY,
    echo=print,
) -> None:
    """Run the app until interrupted; prints the URL (``port=0`` picks a free port).

    Raises OSError when the address cannot be bound."""
    from burako_env.extras import require

    uvicorn = require("uvicorn", "the web server (burako serve)")

    app = serve_app(host, records_dir, save_dir, bot_delay)
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
    sys.stdout.flush()
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


__all__ = [
    "DEFAULT_BOT_DELAY",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "allowed_hosts_for",
    "create_app",
    "serve",
    "serve_app",
]
