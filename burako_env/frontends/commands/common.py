"""What the commands of :mod:`burako_env.frontends.cli` share: the error contract, the
bounds of the numbers they take, the check of a file to be written and the compile
notice (the options several commands take alike are
:mod:`burako_env.frontends.commands.options`).

The error contract, kept by :func:`cli_errors` in every command: a bad argument or input
(an unknown variant, an unreadable checkpoint, a file that cannot be written) prints
``error: ...`` and exits with code 2, before anything is written, so no half-written file
or folder is left behind.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer


def fail(message: str) -> None:
    """``error: message`` on stderr, and exit 2."""
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(2)


def bound(option: str, value, low, high) -> None:
    """``error:`` unless ``low <= value <= high`` (NaN is never within: a comparison with
    it is false), so a typo is an error rather than a run with no end (burako_env.limits)."""
    if not low <= value <= high:
        fail(f"{option} must lie in {low}..{high}, got {value}")


def _os_message(exc: OSError) -> str:
    name = exc.filename if exc.filename is not None else ""
    reason = exc.strerror or str(exc)
    return f"cannot use {name}: {reason}" if name else reason


@contextmanager
def cli_errors() -> Iterator[None]:
    """The CLI's one error contract: the library's errors (ValueError and its kin, such
    as VariantError, ConfigError and CheckpointError, OSError, RayError: Ray missing
    or its cluster unreachable, and MissingExtra: an optional dependency missing, e.g.
    torch for ppo) become ``error: ...`` and exit 2."""
    from burako_env.distributed import RayError  # no Ray import: just the error type
    from burako_env.extras import MissingExtra

    try:
        yield
    except typer.Exit:
        raise
    except (ValueError, OSError, RayError, MissingExtra) as exc:
        fail(_os_message(exc) if isinstance(exc, OSError) else str(exc))


def lenient_stdin() -> None:
    """Bytes on stdin that are not text in its encoding (a binary file piped in, a
    terminal in another encoding) read as U+FFFD, a line that is no move, instead of a
    UnicodeDecodeError out of ``readline`` (``play`` and ``replay --step`` read lines)."""
    import sys

    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")
        except (ValueError, OSError):  # closed, or not a text stream of its own
            pass


def check_writable_file(option: str, path: str, overwrite: bool = True) -> Path:
    """Fail (``error: ...``, exit 2) unless ``path`` can be written as a file: not a
    folder, a FIFO, a device or a link loop (the output replaces the path: a FIFO or
    /dev/null would be gone), in a folder that exists or can be made, not an existing file
    unless ``overwrite``. Nothing is created."""
    target = Path(path)
    if path.endswith(("/", os.sep)) or target.is_dir():
        example = f"{path.rstrip('/')}/games.jsonl"
        fail(f"{option} {path!r} is a folder; give a file name, e.g. {example}")
    if target.exists() and not target.is_file():  # replaced by a file, a FIFO or device is gone
        fail(f"{option} {path!r} is not a regular file (a FIFO, device or socket)")
    try:
        os.stat(path)
    except OSError as exc:  # a link loop would be replaced by the file; a dangling
        if exc.errno == errno.ELOOP:  # link is followed: its target is written
            fail(f"{option} {path!r} is a link in a loop")
    if target.exists() and not overwrite:
        fail(f"{option} {path!r} already exists; pass --force to overwrite it")
    if target.exists() and not os.access(target, os.W_OK):
        fail(f"{option} {path!r} cannot be written (permission denied)")
    folder = target.parent
    while not folder.exists():  # the nearest folder that exists must let us make the rest
        folder = folder.parent
    if not folder.is_dir():
        fail(f"{option} {path!r}: {str(folder)!r} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        fail(f"{option} {path!r}: cannot create files in {str(folder)!r} (permission denied)")
    return target


def announce_compile(command: str, kernels=()) -> None:
    """Say on stderr that ``command``'s kernels (and ``kernels``, what this run calls
    besides) compile now, when one is not cached (burako_env/frontends/warmup.py)."""
    from burako_env.frontends import warmup

    warmup.announce_compile(command, lambda line: typer.echo(line, err=True), kernels)


__all__ = [
    "announce_compile",
    "bound",
    "check_writable_file",
    "cli_errors",
    "fail",
    "lenient_stdin",
]
