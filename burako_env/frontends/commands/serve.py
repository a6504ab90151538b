"""``burako serve``: the table in a browser."""

from __future__ import annotations

import math
from typing import Annotated

import typer

from burako_env.frontends.commands.common import cli_errors, fail
from burako_env.limits import MAX_BOT_DELAY

#: the address --public listens on: every IPv4 address of the machine
PUBLIC_HOST = "0.0.0.0"
#: what --public says first (docs/WEB.md, "Friends at the table", says it in full)
PUBLIC_NOTICE = (
    "--public: anyone who can reach this machine can open the page, start games and "
    "watch the records folder; a seat at a table with friends only with its link (keep "
    "the links secret); plain HTTP, no TLS: put an HTTPS proxy in front beyond a "
    "trusted network"
)


def serve(
    host: Annotated[
        str | None,
        typer.Option(help="address to listen on (default 127.0.0.1: this machine only)"),
    ] = None,
    port: Annotated[int, typer.Option(help="port (0: any free port)")] = 8000,
    records: Annotated[
        str, typer.Option(help="folder of record files (*.jsonl) that Watch lists")
    ] = "games",
    save_dir: Annotated[
        str | None,
        typer.Option(help="folder for saved games (default: the records folder)"),
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(help="seconds the page waits before a bot moves")
    ] = 0.7,
    db: Annotated[
        str | None,
        typer.Option(
            help="SQLite file that keeps every game as it is played "
            "(default: burako-games.sqlite3 in the records folder), or a PostgreSQL URL "
            "(postgresql://user:password@host:port/dbname) that several servers share"
        ),
    ] = None,
    memory: Annotated[
        bool, typer.Option("--memory", help="keep games in memory only: none survives a restart")
    ] = False,
    public: Annotated[
        bool,
        typer.Option(
            "--public",
            help="listen on every address (0.0.0.0) so friends on the network can sit at "
            "a table; plain HTTP: docs/WEB.md says what it exposes",
        ),
    ] = False,
) -> None:
    """The table in a browser: play against the bots, watch recorded games.

    Prints the URL to open. Watch shows the record files under --records (and nothing
    outside it); a finished game can be saved there as a record. Every game is kept in a
    SQLite file, or a PostgreSQL database, as it is played (--db; --memory keeps none), so
    a restarted server, or another one sharing the database, resumes each game from its
    link.
    """
    from pathlib import Path

    if public and host is not None:
        fail("--public listens on every address (0.0.0.0): give --public or --host, not both")
    host = PUBLIC_HOST if public else host if host is not None else "127.0.0.1"
    if not 0 <= port <= 65535:
        fail(f"--port must be 0..65535, got {port}")
    if not (math.isfinite(bot_delay) and 0 <= bot_delay <= MAX_BOT_DELAY):  # nan, inf
        fail(f"--bot-delay must be 0..{MAX_BOT_DELAY:g} seconds, got {bot_delay}")
    for name, folder in (("--records", records), ("--save-dir", save_dir)):
        if folder is not None and Path(folder).exists() and not Path(folder).is_dir():
            fail(f"{name} {folder!r} is a file; give a folder")
    from burako_env.extras import require

    with cli_errors():  # the web extra: error: ... names it
        for module in ("starlette", "uvicorn"):
            require(module, "burako serve")
    from burako_env.frontends.web import serve as run
    from burako_env.frontends.web.app import default_db
    from burako_env.frontends.web.db import DatabaseError, is_database_url, redact_url

    if memory and db is not None:
        fail("--db and --memory contradict each other: give one")
    database = None if memory else (db if db is not None else default_db(records))
    if database is not None and is_database_url(database):
        with cli_errors():  # the postgres extra: error: ... names it
            require("psycopg", f"--db {redact_url(str(database))}", "postgres")
    elif database is not None and Path(database).is_dir():
        fail(f"--db {str(database)!r} is a folder; give a file")

    if public:
        typer.echo(PUBLIC_NOTICE)
    # nothing compiles until a browser starts a game: the notice comes then, in the log
    try:
        run(
            host=host,
            port=port,
            records_dir=records,
            save_dir=save_dir,
            bot_delay=bot_delay,
            echo=typer.echo,
            db=database,
        )
    except DatabaseError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        pass


__all__ = ["serve"]
