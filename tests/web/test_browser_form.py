"""The lobby's create-room form works before and without its script (issue 13, point 8).

Chromium (as in test_browser.py) posts the form the plain way: with JavaScript off, and with
the lobby's script held back so the click comes before it runs. Either way the server creates
the room and redirects to it; the room page (its own script running) takes the seat token
from the URL fragment and greets as the host.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

from playwright.sync_api import Browser, Route, expect
from test_browser import WAIT_MS, _context, base_url, browser  # noqa: F401


def test_the_form_creates_a_room_with_javascript_off(base_url: str, browser: Browser) -> None:  # noqa: F811
    ctx = browser.new_context(java_script_enabled=False)
    ctx.set_default_timeout(WAIT_MS)
    page = ctx.new_page()
    try:
        page.goto(base_url + "/")
        page.fill("#host-name", "Nora")
        page.fill("#room-name", "Plain form")
        page.fill("#seats", "3")
        page.click("#create-btn")
        page.wait_for_url(re.compile(r"/r/[A-Z0-9]+#seat=0&token="))
        code = page.url.split("/r/")[1].split("#")[0]
        room = page.request.get(f"{base_url}/api/rooms/{code}").json()
        assert room["name"] == "Plain form" and len(room["seats"]) == 3
        assert room["seats"][0]["name"] == "Nora"
    finally:
        ctx.close()


def test_a_click_before_the_lobby_script_runs_creates_the_room(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ctx = _context(browser)
    page = ctx.new_page()
    held: list[Route] = []

    # The lobby's script never arrives while the person fills the form and clicks.
    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/static/js/lobby.js", hold)
    try:
        page.goto(base_url + "/", wait_until="commit")
        page.fill("#host-name", "Olga")
        page.fill("#seats", "2")
        page.click("#create-btn", no_wait_after=True)
        page.wait_for_url(re.compile(r"/r/[A-Z0-9]+"))
        # The room page's own script took the token: the fragment is gone, the seat is ours.
        expect(page.locator("#seat-list li", has_text="Olga")).to_contain_text("you")
        assert "#" not in page.url and "token" not in page.url
        code = page.url.rsplit("/", 1)[1]
        token = page.evaluate(f"localStorage.getItem('nomercy.token.{code}')")
        assert isinstance(token, str) and len(token) > 20
        expect(page.locator("#start-btn")).to_be_visible()
    finally:
        for route in held:
            route.abort()
        ctx.close()


def test_the_host_frees_a_seat_before_the_start(base_url: str, browser: Browser) -> None:  # noqa: F811
    host_ctx, other_ctx = _context(browser), _context(browser)
    host, other = host_ctx.new_page(), other_ctx.new_page()
    try:
        host.goto(base_url + "/")
        host.fill("#host-name", "Pia")
        host.fill("#seats", "3")
        host.click("#create-btn")
        host.wait_for_url("**/r/*")
        other.goto(host.url)
        other.fill("#join-name", "Quin")
        other.click("#join-btn")
        expect(other.locator("#seat-list li", has_text="Quin")).to_contain_text("you")
        seat = host.locator("#seat-list li", has_text="Quin")
        expect(seat).to_be_visible()
        seat.get_by_role("button", name="Remove").click()
        # Quin watches now; the seat is open again and Quin may take one.
        expect(other.locator("#lobby-wait")).to_have_text("You are watching.")
        expect(other.locator("#take-seat-btn")).to_be_visible()
        expect(host.locator("#seat-list")).not_to_contain_text("Quin")
        code = host.url.rsplit("/", 1)[1]
        assert other.evaluate(f"localStorage.getItem('nomercy.token.{code}')") is None
    finally:
        host_ctx.close()
        other_ctx.close()


def test_a_name_typed_before_the_lobby_script_runs_is_kept(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ctx = _context(browser)
    page = ctx.new_page()
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/static/js/lobby.js", hold)
    try:
        page.goto(base_url + "/", wait_until="commit")
        page.evaluate("localStorage.setItem('nomercy.name', 'Saved')")
        page.fill("#host-name", "Rita")
        while not held:
            page.wait_for_timeout(50)
        held.pop().continue_()
        expect(page.locator("#preset option")).not_to_have_count(0)  # the script has run
        expect(page.locator("#host-name")).to_have_value("Rita")
        page.click("#create-btn")
        page.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"))
        expect(page.locator("#seat-list li", has_text="Rita")).to_contain_text("you")
    finally:
        for route in held:
            route.abort()
        ctx.close()


def test_the_bot_picker_offers_levels_with_their_bots_by_preset(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """Levels first, each naming the bot it plays at the chosen preset, then the algorithms;
    a level chosen makes a room whose bots are that level's (issue 45)."""
    from nomercy.bots.levels import LEVELS, algorithm, level_bot

    ctx = _context(browser)
    page = ctx.new_page()
    try:
        page.goto(base_url + "/")
        groups = page.locator("#bot optgroup")
        expect(groups).to_have_count(2)
        for preset in ("classic", "no-mercy"):
            page.select_option("#preset", preset)
            labels = groups.nth(0).locator("option").all_inner_texts()
            assert labels == [
                f"{lv.capitalize()} ({algorithm(level_bot(lv, preset), preset)})" for lv in LEVELS
            ]
        assert "random" in groups.nth(1).locator("option").all_inner_texts()
        assert page.input_value("#bot") == "medium"  # the default: Medium
        page.fill("#host-name", "Pia")
        page.select_option("#bot", "hard")
        page.click("#create-btn")
        page.wait_for_url(re.compile(r"/r/[A-Z0-9]+"))
        code = page.url.split("/r/")[1].split("#")[0]
        room = page.request.get(f"{base_url}/api/rooms/{code}").json()
        assert room["bot"] == level_bot("hard", "no-mercy")
    finally:
        ctx.close()
