"""The game core: the rules as numba kernels over a batch of games, and its Python API.

* :mod:`burako_env.core.game`: :class:`~burako_env.core.game.Game`, a batch of games with
  checked steps, legal-action masks, observations, copies and determinizations.
* :mod:`burako_env.core.actions`: action ids in words and back.
* :mod:`burako_env.core.constants`: the constants shared with Python (card types, phases,
  action id ranges, the observation layout).
* :mod:`burako_env.core.params`: a variant as the parameter array the kernels read.
* :mod:`burako_env.core.determinize`: copies and determinizations, compiled.

The kernels themselves (the deal, the rules of a turn, melds, scoring, the observation)
are read best in their source; docs/RULES.md is the specification they implement and
docs/ARCHITECTURE.md draws them.
"""
