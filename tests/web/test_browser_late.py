"""A friend who comes late takes over a bot's seat in the browser (issue 45, point 2).

Chromium against the in-process server of test_browser.py, with a fixed deal: Ann starts a
three-seat room (two bots), Carol opens the invite link after the start, takes over Bot 1's
seat, and makes its next decision; the table is told, and the host has the switch.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

from playwright.sync_api import Browser, Page, expect
from test_browser import NEXT_SEED, _Console, _seed_where, _shot, base_url, browser  # noqa: F401
from test_browser_hand import _ctx
from test_browser_phone import _room

from nomercy import Game


def _play_something(page: Page) -> str:
    """Our move: a playable card (a wild's colour: the first offered), else draw."""
    expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
    page.wait_for_function("() => !document.body.dataset.busy")
    legal = page.locator("#hand .card.legal")
    if legal.count():
        code = legal.first.get_attribute("data-code") or ""
        legal.first.click()
        if not page.locator("#picker").is_hidden():
            page.locator("#picker-body button").first.click()
        return code
    page.locator("#draw-btn").click()
    return "draw"


def test_a_late_friend_takes_over_a_bots_seat(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    def plain(game: Game) -> bool:
        # Ann's first move is a number card: the turn then passes to seat 1.
        return any(re.fullmatch(r"play [RYGB]\d", str(a)) for a in game.legal_actions(0))

    host_ctx, late_ctx, third_ctx = (_ctx(browser, size) for size in ("desktop", "phone", "phone"))
    host, late, third = host_ctx.new_page(), late_ctx.new_page(), third_ctx.new_page()
    errors = [_Console(host), _Console(late), _Console(third)]
    try:
        NEXT_SEED["seed"] = _seed_where(3, {}, plain)
        invite = _room(host, base_url, seats=3)
        expect(host.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
        # The host has the switch, beside the log.
        switch = host.locator(".log-panel .late-join")
        expect(switch).to_contain_text("Late friends with the link can take over a bot's seat.")
        expect(switch.locator("button")).to_have_text("Close")
        # Carol arrives after the start: she is offered Bot 1's seat.
        late.goto(invite)
        expect(late.locator("#join-info")).to_contain_text("take over Bot 1's seat")
        expect(late.locator("#join-form")).to_be_visible()
        late.fill("#join-name", "Carol")
        late.click("#join-btn")
        expect(late.locator("#table")).to_be_visible()
        expect(late.locator("#me-info")).to_contain_text("Carol (you)")
        expect(late.locator("#hand .card")).to_have_count(7)
        # The table is told, and shows her name on the seat.
        expect(host.locator("#log")).to_contain_text("Carol takes over Bot 1's seat")
        expect(host.locator("#opponents .player[data-seat='1'] .name")).to_have_text("Carol")
        expect(late.locator(".log-panel .late-join")).to_be_hidden()  # not the host's
        # Ann plays; the seat's next decision is Carol's, and she makes it.
        _play_something(host)
        expect(host.locator("#prompt")).to_contain_text("Carol")
        expect(late.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
        played = _play_something(late)
        # Her moves read under her name (the game was dealt with "Bot 1"; the page renames).
        expect(host.locator("#log")).to_contain_text(re.compile(r"Carol (plays|draws|takes)"))
        expect(host.locator("#log")).to_contain_text("Carol takes over Bot 1's seat")
        assert played
        _shot(late, "late-join-phone")
        # The host closes the door: the next latecomer may only watch.
        switch.locator("button").click()
        expect(switch).to_contain_text("Late joiners cannot take a bot's seat.")
        third.goto(invite)
        expect(third.locator("#join-info")).to_contain_text("keeps late joiners out")
        expect(third.locator("#join-form")).to_be_hidden()
        for e in errors:
            assert not e.errors, e.errors
    finally:
        for ctx in (host_ctx, late_ctx, third_ctx):
            ctx.close()
