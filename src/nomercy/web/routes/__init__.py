"""The web server's routes, one module per concern; ``create_app`` (web/app.py) joins them.

- :mod:`.pages`: the browser client's pages and files, ``/help``, the lobby's plain form post.
- :mod:`.api`: the rooms' JSON API (``/api/meta``, creating, joining and reading rooms).
- :mod:`.rules`: ``/api/rules``, the rule text by id.
- :mod:`.replays`: ``/api/replays/{id}``, finished games step by step.
- :mod:`.health`: ``/healthz``, ``/readyz`` and ``/api/timings``.
- :mod:`.socket`: the game WebSocket ``/ws/{code}``, its reader and worker.
- :mod:`.common`: what they share (the request's lobby, JSON errors, bodies, origin checks).

Each endpoint is a module-level function that finds the lobby through its request
(:func:`.common.lobby_of`), so the routes hold no state of their own.
"""
