"""The route modules (web/routes/) stand side by side on what they share (issue 47): each
imports ``routes.common`` and the modules below the HTTP side, never another route module nor
the app; only ``app.py`` joins them; none imports inside a function; and the app serves every
route each module declares."""

from __future__ import annotations

from pathlib import Path

import pytest
from importscan import scan
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute

import nomercy.web
from nomercy.web import ServerConfig, create_app
from nomercy.web.routes import api, health, pages, replays, rules, socket

pytestmark = pytest.mark.no_store

WEB = Path(nomercy.web.__file__).resolve().parent
ROUTES = WEB / "routes"


def _imports(path: Path) -> tuple[set[str], set[str]]:
    """The nomercy modules ``path`` imports at module level, and those inside functions."""
    found = scan(path)
    return found.top, found.inner


def test_route_modules_import_common_and_below_only() -> None:
    modules = sorted(p for p in ROUTES.glob("*.py") if p.name != "__init__.py")
    assert {p.stem for p in modules} >= {"api", "common", "health", "pages", "replays", "socket"}
    for path in modules:
        top, inner = _imports(path)
        assert not inner, f"routes/{path.name} imports {sorted(inner)} inside a function"
        routes = {n for n in top if n.startswith("nomercy.web.routes")}
        if path.stem == "common":
            assert not routes, f"routes/common.py imports {sorted(routes)}"
        others = {n for n in routes if not n.startswith("nomercy.web.routes.common")}
        assert not others, f"routes/{path.name} imports {sorted(others)}"
        assert "nomercy.web.app" not in top, f"routes/{path.name} imports the app"


def test_only_the_app_imports_the_routes() -> None:
    for path in sorted(WEB.glob("*.py")):
        top, inner = _imports(path)
        if path.name != "app.py":
            assert not {n for n in top | inner if n.startswith("nomercy.web.routes")}, path.name


def test_the_app_serves_every_route_each_module_declares(tmp_path: Path) -> None:
    app = create_app(ServerConfig(database=tmp_path / "web.sqlite"))
    declared: list[BaseRoute] = [*pages.routes(tmp_path)]
    for module in (api, health, replays, rules, socket):
        declared += module.ROUTES

    def key(route: BaseRoute) -> tuple[str, str, frozenset[str]]:
        assert isinstance(route, Route | WebSocketRoute | Mount)
        methods = route.methods if isinstance(route, Route) and route.methods else set()
        return type(route).__name__, route.path, frozenset(methods)

    assert sorted(map(key, app.routes)) == sorted(map(key, declared))
    assert len({key(r)[1] for r in app.routes}) == len(app.routes)  # one route per path
