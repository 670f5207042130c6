"""The web server: ``nomercy serve`` (Starlette on uvicorn; needs the ``web`` extra).

The package imports Starlette only when the app is asked for, so that ``nomercy --help`` works
on an install without the extra.

>>> from nomercy.web import ServerConfig, create_app
>>> app = create_app(ServerConfig(database=":memory:"))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nomercy.web.app import create_app
    from nomercy.web.rooms import Lobby, Room, ServerConfig

__all__ = ["Lobby", "Room", "ServerConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from nomercy.web.app import create_app

        return create_app
    if name in ("Lobby", "Room", "ServerConfig"):
        from nomercy.web import rooms

        return getattr(rooms, name)
    raise AttributeError(f"module 'nomercy.web' has no attribute {name!r}")
