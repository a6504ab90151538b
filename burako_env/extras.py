"""The optional parts of burako and the extra that installs each.

``pip install burako`` is the core: the environments, the heuristic agents and the
``burako`` command. The rest comes with an extra (pyproject's optional-dependencies):

* ``train``: torch and tensorboard, for the ``ppo`` agent, ``burako train`` and
  :mod:`burako_env.training`;
* ``web``: starlette and uvicorn, for ``burako serve``;
* ``ray``: Ray, for ``--ray`` (:mod:`burako_env.distributed` says so with its own error);
* ``rllib``: Ray's RLlib (and torch), for :mod:`burako_env.rllib`;
* ``openspiel``: OpenSpiel, for :mod:`burako_env.openspiel` (the ``python_burako`` game)
  and the ``openspiel_ismcts`` agent;
* ``postgres``: psycopg 3, for ``burako serve --db postgresql://...`` (the web table's
  games in PostgreSQL, :mod:`burako_env.frontends.web.db`);
* ``all``: the six.

The core imports none of them at start: each is imported where it is used, and asking
for a part whose extra is missing raises :class:`MissingExtra`, which names the extra
(the CLI prints it as ``error: ...`` and exits 2).
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: the extra that installs each optional module
EXTRAS = {
    "torch": "train",
    "tensorboard": "train",
    "starlette": "web",
    "uvicorn": "web",
    "ray": "ray",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "psycopg": "postgres",
}


class MissingExtra(ImportError):
    """An optional dependency is not installed: the message names the extra to install,
    e.g. ``the ppo agent needs torch: pip install 'burako[train]'``."""

    def __init__(self, what: str, module: str, extra: str | None = None) -> None:
        extra = extra or EXTRAS[module]
        super().__init__(f"{what} needs {module}: pip install 'burako[{extra}]'", name=module)
        self.what = what
        self.module = module
        self.extra = extra


def require(module: str, what: str, extra: str | None = None) -> ModuleType:
    """Import ``module`` (an optional dependency), or raise :class:`MissingExtra` saying
    that ``what`` needs it and which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(what, module.split(".")[0], extra) from exc


__all__ = ["EXTRAS", "MissingExtra", "require"]
