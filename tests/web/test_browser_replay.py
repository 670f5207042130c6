"""The replay page on a long game (issue 43): the server sends a page of steps at a time, and
the page fetches the one it needs as it steps, jumps or slides, showing the same hands as the
engine at every step it lands on.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest

from ports import free_port

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

from longgames import store_long_game
from playwright.sync_api import Browser, Page, expect
from test_browser import _Console, _context, _Server, _shot, browser  # noqa: F401

from nomercy.core.records import GameRecord
from nomercy.web import ServerConfig, create_app

PAGE = 10


@pytest.fixture(scope="module")
def long_replay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, int]]:
    """A server with a finished 60-move game and 10 steps to a page: its URL, the game's id
    and its number of moves."""
    database = tmp_path_factory.mktemp("replay") / "server.sqlite3"
    game_id, moves = store_long_game(database, 60)
    config = ServerConfig(database=database, replay_page=PAGE)
    port = free_port()
    with _Server(create_app(config), port):
        yield f"http://127.0.0.1:{port}", game_id, moves


def _hands(page: Page) -> list[int]:
    return [
        int(n)
        for n in page.eval_on_selector_all(
            "#hands .rh", "els => els.map(e => e.querySelectorAll('.cards .card').length)"
        )
    ]


def test_a_long_replay_is_fetched_a_page_at_a_time(
    long_replay: tuple[str, str, int],
    browser: Browser,  # noqa: F811
) -> None:
    base_url, game_id, moves = long_replay
    with urllib.request.urlopen(f"{base_url}/api/replays/{game_id}?format=record") as r:
        record = GameRecord.loads(r.read().decode())

    def sizes_at(step: int) -> list[int]:
        game = record.start_game()
        for action in record.actions[:step]:
            game.apply(action)
        return [len(h) for h in game.hands]

    ctx = _context(browser)
    page = ctx.new_page()
    errors = _Console(page)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/replays/" in r.url else None)
    try:
        page.goto(f"{base_url}/replay/{game_id}")
        expect(page.locator("#replay")).to_be_visible()
        assert _hands(page) == sizes_at(0)
        # Across the first page's end: the next page is fetched, the hands follow the engine.
        for step in range(1, PAGE + 3):
            page.locator("#next-btn").click()
            expect(page.locator("#step-label")).to_have_text(f"Move {step} of {moves}")
        assert _hands(page) == sizes_at(PAGE + 2)
        # The log holds the current page's steps, up to this one.
        expect(page.locator("#log li.replay-step")).to_have_count(2)
        # To the end and back: only the pages landed on are fetched.
        page.press("body", "End")
        expect(page.locator("#step-label")).to_have_text(f"Move {moves} of {moves}")
        expect(page.locator("#next-btn")).to_be_disabled()
        assert _hands(page) == sizes_at(moves)
        page.press("body", "ArrowLeft")
        expect(page.locator("#step-label")).to_have_text(f"Move {moves - 1} of {moves}")
        page.press("body", "Home")
        expect(page.locator("#step-label")).to_have_text("Deal")
        # The slider lands in the middle: that page, not every page on the way.
        middle = moves // 2
        page.locator("#slider").fill(str(middle))
        expect(page.locator("#step-label")).to_have_text(f"Move {middle} of {moves}")
        assert _hands(page) == sizes_at(middle)
        pages = [u for u in asked if "from=" in u]
        assert len(pages) == len(set(pages)) <= 4, pages
        _shot(page, "replay-long")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()
