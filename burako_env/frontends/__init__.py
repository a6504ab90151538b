"""Front ends: the programs people use, on top of the library.

A layer of its own: front ends call down into :mod:`burako_env` (core, envs, records),
:mod:`burako_env.agents` and :mod:`burako_env.training`, and nothing in the library imports them
(``tests/layers/test_layers.py`` checks; docs/ARCHITECTURE.md draws the layers).

* :mod:`burako_env.frontends.cli`: the ``burako`` command (the console entry point).
* :mod:`burako_env.frontends.commands`: its commands, one module each, and what they
  share (the error contract, bounds, the common options).
* :mod:`burako_env.frontends.play`: the terminal game (``burako play``).
* :mod:`burako_env.frontends.playback`: saved games checked and shown (``burako replay``).
* :mod:`burako_env.frontends.simulate`: random games summarised (``burako simulate``).
* :mod:`burako_env.frontends.sweep`: the reliability sweep (``burako sweep``; its kernel is
  :mod:`burako_env.core.sweep`).
* :mod:`burako_env.frontends.bench`: the benchmarks (``burako bench``, ``scripts/bench/``).
* :mod:`burako_env.frontends.rules_text`: a variant's rules in words (``burako rules``).
* :mod:`burako_env.frontends.web`: ``burako serve``, the table in a browser (play against
  the bots, watch recorded games).

The old paths (``burako_env.cli``, ``burako_env.play``, ...) were removed in 0.3.0
(CHANGELOG.md).
"""
