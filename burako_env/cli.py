"""Moved to :mod:`burako_env.frontends.cli`: the ``burako`` command. Front ends sit in a layer of
their own, :mod:`burako_env.frontends`, on top of the library (docs/ARCHITECTURE.md). This
module re-exports the public names so that ``from burako_env.cli import ...`` keeps working; new
code imports :mod:`burako_env.frontends.cli`.
"""

from burako_env.frontends.cli import *  # noqa: F403
from burako_env.frontends.cli import (
    app,
    bench,
    check_writable_file,
    cli_errors,
    main,
    package_version,
    play,
    replay,
    rules,
    serve,
    simulate,
    split_bot_names,
    sweep,
    tournament,
    train,
    warmup,
)

__all__ = [
    "app",
    "bench",
    "check_writable_file",
    "cli_errors",
    "main",
    "package_version",
    "play",
    "replay",
    "rules",
    "serve",
    "simulate",
    "split_bot_names",
    "sweep",
    "tournament",
    "train",
    "warmup",
]


if __name__ == "__main__":  # python -m burako_env.cli
    main()
