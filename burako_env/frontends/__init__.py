"""Front ends: the programs people use, on top of the library.

A layer of its own: front ends call down into :mod:`burako_env` (core, envs, records,
agents) and nothing in the library imports them (``tests/test_web_server.py`` checks).

* :mod:`burako_env.frontends.web`: ``burako serve``, the table in a browser (play against
  the bots, watch recorded games).
"""
