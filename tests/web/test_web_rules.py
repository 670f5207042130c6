"""The rules in the game over HTTP (issue 45, point 3): ``/rules`` and ``/help`` are pages,
``/api/rules`` and ``/api/rules/{id}`` serve RULES.md's text by id (nomercy.tables.rulebook)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from nomercy.tables import rulebook
from nomercy.web.app import create_app
from nomercy.web.rooms import ServerConfig

pytestmark = pytest.mark.no_store


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(ServerConfig(database=tmp_path / "db.sqlite3"))) as c:
        yield c


def test_rules_and_help_are_pages_not_404(client: TestClient) -> None:
    page = client.get("/rules")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert 'src="/static/js/rules.js"' in page.text
    assert "Content-Security-Policy" in page.headers
    help_ = client.get("/help", follow_redirects=False)
    assert help_.status_code == 303 and help_.headers["location"] == "/rules"
    assert client.get("/help").status_code == 200


def test_one_rule_by_id(client: TestClient) -> None:
    r = client.get("/api/rules/NM-30")
    assert r.status_code == 200
    body = r.json()
    assert body == rulebook.rule("NM-30").to_json()
    assert body["title"] == "Wild Color Roulette" and "reveals" in body["plain"]
    assert client.get("/api/rules/nm-30").json()["id"] == "NM-30"


def test_an_unknown_rule_is_404_naming_it(client: TestClient) -> None:
    r = client.get("/api/rules/NM-99")
    assert r.status_code == 404
    assert r.json()["error"] == "unknown_rule"
    assert "no rule 'NM-99' in RULES.md" in r.json()["message"]


def test_every_rule_with_the_cards_and_the_options_they_name(client: TestClient) -> None:
    data = client.get("/api/rules").json()
    ids = [r["id"] for r in data["rules"]]
    assert ids == list(rulebook.rule_ids())
    assert data["cards"]["no-mercy"]["WCR"][0] == "NM-30"
    assert data["cards"]["classic"]["W+4"] == ["CL-6", "CL-4", "CL-8"]
    assert "WCR" not in data["cards"]["classic"]  # classic has no Roulette
    assert "mercy_timing" in data["options"]["A14"]
    assert "roulette_mercy" in data["options"]["NM-30"]
    assert all(rid in ids for rid in data["options"])
