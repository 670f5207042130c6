"""The rules as JSON: RULES.md by id, the rules behind each card, the options each rule names.

The text comes from :mod:`nomercy.tables.rulebook` (the package's RULES.md, the one source);
the ``/rules`` page (:mod:`.pages`) shows it.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nomercy.core.rules import OPTIONS
from nomercy.tables import rulebook
from nomercy.web.protocol import ErrorCode, ProtocolError
from nomercy.web.routes.common import error_response

__all__ = ["ROUTES"]

#: The rules change only with the package: browsers may keep them an hour.
_CACHED = {"Cache-Control": "public, max-age=3600"}


async def api_rules(request: Request) -> Response:
    """``GET /api/rules``: every rule, which rules say what each card does, and the options
    each rule id names (their explanations are translated by the client)."""
    return JSONResponse(
        {
            "rules": [rulebook.rule(rid).to_json() for rid in rulebook.rule_ids()],
            "cards": rulebook.card_rules_table(),
            "options": _options_by_rule(),
        },
        headers=_CACHED,
    )


async def api_rule(request: Request) -> Response:
    """``GET /api/rules/{rule_id}``: one rule."""
    try:
        found = rulebook.rule(request.path_params["rule_id"])
    except rulebook.UnknownRuleError as exc:
        return error_response(ProtocolError(ErrorCode.UNKNOWN_RULE, str(exc), 404))
    return JSONResponse(found.to_json(), headers=_CACHED)


def _options_by_rule() -> dict[str, list[str]]:
    """Rule id -> the names of the rule options it introduces (``A24`` -> ``mercy_timing``...)."""
    found: dict[str, list[str]] = {}
    for spec in OPTIONS:
        for rid in rulebook.cited(spec.rule):
            found.setdefault(rid, []).append(spec.name)
    return found


ROUTES: list[BaseRoute] = [
    Route("/api/rules", api_rules),
    Route("/api/rules/{rule_id}", api_rule),
]
