"""The table in a browser (``burako serve``): play against the bots, watch recorded games.

    from burako_env.frontends.web import create_app, serve
    app = create_app(records_dir="games")         # a Starlette ASGI app
    serve(host="127.0.0.1", port=8000, records_dir="games")   # blocks, prints the URL

* :mod:`.table`: a game seen by one seat (or with every hand open) as JSON for the page.
* :mod:`.moves`: the legal moves in words with the cards each one moves, and a clicked
  move turned into an action id (through the same parser as ``burako play``).
* :mod:`.sessions`: games in play (one per browser tab) and recorded games stepped through.
* :mod:`.db`: every game kept in SQLite as it is played, resumed from its link after a
  restart; the browser's history and statistics.
* :mod:`.app`: the HTTP routes; ``static/`` the page, its script and its style sheet.

Everything comes from the engine's API (legal actions, their descriptions, constants):
no action id is written into the page.
"""

from burako_env.frontends.web.app import create_app, serve

__all__ = ["create_app", "serve"]
