"""The room page asks for a long hand's older events (issue 24): a hello's state carries the
newest 60 public events of the hand; the log's "Earlier events" button fetches the rest, a
page at a time (docs/web-protocol.md, ``history``). Chromium as in test_browser.py.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ports import free_port

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

import uvicorn
from playwright.sync_api import Browser, expect
from test_browser import _Console, _context, browser  # noqa: F401

from nomercy import Game, new_game
from nomercy.web.app import create_app
from nomercy.web.rooms import HELLO_HISTORY, HISTORY_PAGE, Room, ServerConfig


class _LoopServer:
    """uvicorn on a thread whose event loop the test can hand coroutines to."""

    def __init__(self, app: Any, port: int) -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        self.loop = asyncio.get_running_loop()
        await self.server.serve()

    def __enter__(self) -> _LoopServer:
        self.thread.start()
        deadline = time.monotonic() + 120  # only catches a hang
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "no server"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def _long_hand(events: int) -> Game:
    """A two-player game whose hand has at least ``events`` public events and is not over
    (seeded random play: the same game every run)."""
    for seed in range(1, 200):
        game = new_game(2, seed=seed, names=["Ann", "Bot 1"])
        rng = random.Random(seed)
        while not game.is_over and len(game.public_history()) < events:
            seat = game.to_act
            assert seat is not None
            legal = game.legal_actions(seat)
            # Drawing when allowed makes the hand long (and the log with it).
            draws = [a for a in legal if str(a).split(":")[-1].startswith("draw")]
            game.apply(rng.choice(draws) if draws and rng.random() < 0.7 else rng.choice(legal))
        if not game.is_over:
            return game
    raise AssertionError("no long hand in 200 seeds")


@pytest.fixture(scope="module")
def rigged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A server with one room whose game has a long hand: (room URL, its public events)."""
    yield from _rigged_server(tmp_path_factory.mktemp("history") / "server.sqlite3")


@pytest.fixture(scope="module")
def stingy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """The same with a budget of 2 hellos a second per address, bursts of 1."""
    database = tmp_path_factory.mktemp("stingy") / "server.sqlite3"
    yield from _rigged_server(database, hellos_per_address=2.0, hello_burst=1.0)


def _rigged_server(database: Path, **config: Any) -> Iterator[tuple[str, int]]:
    app = create_app(
        ServerConfig(
            database=database,
            bot_delay=600.0,  # the bot does not move while the test reads the log
            grace=600.0,
            **config,
        )
    )
    port = free_port()
    with _LoopServer(app, port) as srv:
        base = f"http://127.0.0.1:{port}"
        req = urllib.request.Request(
            base + "/api/rooms",
            data=json.dumps({"host_name": "Ann", "seats": 2}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            code = json.loads(r.read())["code"]
        game = _long_hand(HELLO_HISTORY + HISTORY_PAGE + 40)
        room: Room = app.state.lobby.rooms[code]

        async def start() -> None:
            async with room.lock:
                await room.start_game(game)

        assert srv.loop is not None
        asyncio.run_coroutine_threadsafe(start(), srv.loop).result(10)
        yield f"{base}/r/{code}", len(game.public_history())


def test_the_log_asks_for_older_events_a_page_at_a_time(
    rigged: tuple[str, int],
    browser: Browser,  # noqa: F811
) -> None:
    url, total = rigged
    ctx = _context(browser)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        page.goto(url)  # no token: the game has started, so it offers to watch
        page.click("#watch-btn")
        events = page.locator("#log li.ev:not(.ev-older)")
        older = page.locator("#log-older")
        expect(events).to_have_count(HELLO_HISTORY)
        expect(older).to_be_visible()
        expect(older).to_have_text("Earlier events")
        last = events.last.inner_text()
        older.click()
        expect(events).to_have_count(HELLO_HISTORY + HISTORY_PAGE)
        assert events.last.inner_text() == last  # older events go before, not after
        while older.count():
            older.click()
            page.wait_for_timeout(200)
        expect(events).to_have_count(total)
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_a_hello_over_the_address_budget_is_sent_again(
    stingy: tuple[str, int],
    browser: Browser,  # noqa: F811
) -> None:
    url, _ = stingy
    ctx = _context(browser)
    pages = [ctx.new_page(), ctx.new_page()]
    consoles = [_Console(p) for p in pages]
    try:
        for page in pages:
            page.goto(url)
        # Both watch at once from one address: the second hello is over the budget (a burst
        # of 1), refused with rate_limited, and sent again 0.7 s later, within the budget.
        for page in pages:
            page.click("#watch-btn")
        for page in pages:
            expect(page.locator("#log li.ev:not(.ev-older)")).to_have_count(HELLO_HISTORY)
        code = url.rsplit("/", 1)[1]
        summary = json.loads(
            pages[0].request.get(url.replace(f"/r/{code}", f"/api/rooms/{code}")).text()
        )
        assert summary["spectators"] == 2
        for console in consoles:
            assert not console.errors, console.errors
    finally:
        ctx.close()
