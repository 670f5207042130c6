"""The table on a phone (390x844) and a desktop (1280x900): what the player needs to decide is on
screen (issue 27, points 1, 2, 3 and 5).

Chromium (as in test_browser.py) against the same in-process server with fixed deals. When the
player decides, the prompt, the warnings (``#advice``) and the coach's hint lie inside the
viewport; the Take and Challenge buttons carry a ⚠ badge when their action has a consequence;
the replay's controls stay in view while stepping; classic speaks classic; the keyboard starts
on a playable card; a spectator is told they watch; a knocked-out player has no UNO! button.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

from playwright.sync_api import Browser, BrowserContext, Page, expect
from test_browser import (  # noqa: F401
    NEXT_SEED,
    PHONE,
    WAIT_MS,
    _Console,
    _drive,
    _open_lobby,
    _seed_where,
    _shot,
    base_url,
    browser,
)

from nomercy import Game, new_game

DESKTOP = {"width": 1280, "height": 900}
SIZES = {"desktop": DESKTOP, "phone": PHONE}

#: Whether an element is displayed and lies wholly inside the viewport.
_IN_VIEW = """(el) => {
  const r = el.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight
    && r.left >= 0 && r.right <= window.innerWidth;
}"""


def _ctx(browser: Browser, size: str) -> BrowserContext:  # noqa: F811
    if size == "phone":
        ctx = browser.new_context(
            viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale="en-GB"
        )
    else:
        ctx = browser.new_context(viewport=DESKTOP, locale="en-GB")
    ctx.set_default_timeout(WAIT_MS)
    return ctx


def _in_view(page: Page, selector: str) -> bool:
    return bool(page.locator(selector).evaluate(_IN_VIEW))


def _room(
    page: Page,
    base_url: str,  # noqa: F811
    *,
    seats: int,
    preset: str = "no-mercy",
    options: dict[str, str] | None = None,
    start: bool = True,
) -> str:
    """Create a single-hand room (bots in the empty seats); returns its invite link."""
    _open_lobby(page, base_url)
    page.fill("#host-name", "Ann")
    page.select_option("#preset", preset)
    page.fill("#seats", str(seats))
    page.select_option("#timer", "0")
    page.select_option("#hints", "on")
    if options:
        page.click("details.options summary")
        for name, value in options.items():
            page.fill(f"#opt-{name}", value)
            page.dispatch_event(f"#opt-{name}", "change")
    page.click("#create-btn")
    page.wait_for_url("**/r/*")
    expect(page.locator("#invite-link")).to_have_value(re.compile(r"/r/\w+$"))
    invite = page.input_value("#invite-link")
    if start:
        page.click("#start-btn")
        expect(page.locator("#table")).to_be_visible()
    return invite


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_warning_and_the_hint_are_in_view_when_the_player_decides(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
    size: str,
) -> None:
    # Four players: three opponents above the centre push the hand down the page.
    def holds_wrd4(game: Game) -> bool:
        return any(str(a).startswith("play WR+4") for a in game.legal_actions(0))

    ctx = _ctx(browser, size)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = _seed_where(4, {}, holds_wrd4)
        _room(page, base_url, seats=4)
        expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
        advice = page.locator("#advice")
        expect(advice).to_contain_text("⚠ Wild Reverse +4: play reverses")
        assert _in_view(page, "#prompt") and _in_view(page, "#advice"), size
        # The keyboard starts on a playable card, not on a dim one.
        expect(page.locator("#hand .card.selected")).to_have_class(re.compile(r"\blegal\b"))
        page.locator("#hint-btn").click()
        expect(page.locator("#hint .hint-move")).to_be_visible()
        assert _in_view(page, "#hint"), size
        assert _in_view(page, "#advice"), size
        _shot(page, f"decide-in-view-{size}")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


#: A hand of 10 with the Mercy limit at 13: the first penalty of 3 or more knocks out.
_SHORT_MERCY = {"hand_size": "10", "mercy_threshold": "13"}


def _step(page: Page) -> str:
    """One move of a player who never stacks: take a penalty, else play the first legal
    non-wild card (a wild's colour: the first offered), else draw."""
    if not page.locator("#picker").is_hidden():
        page.locator("#picker-body button").first.click()
        return "pick"
    if page.evaluate("document.body.dataset.busy === '1'"):
        return "busy"
    if not page.locator("#prompt").evaluate("(p) => p.classList.contains('mine')"):
        return "wait"
    draw = page.locator("#draw-btn")
    if draw.is_visible() and "Take" in draw.inner_text():
        return "take"
    legal = page.locator("#hand .card.legal:not(.wild)")
    if legal.count():
        legal.first.click()
        return "play"
    if page.locator("#hand .card.legal").count():
        page.locator("#hand .card.legal").first.click()
        return "play"
    for button in ("#draw-btn", "#pass-btn"):
        if page.locator(button).is_visible():
            page.locator(button).click()
            return "draw"
    return "wait"


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_penalty_that_knocks_out_warns_on_the_take_button(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
    size: str,
) -> None:
    ctx = _ctx(browser, size)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = 11
        _room(page, base_url, seats=3, options=_SHORT_MERCY)
        draw = page.locator("#draw-btn")
        for _ in range(400):
            if _step(page) == "take":
                break
            page.wait_for_timeout(50)
        else:
            raise AssertionError("no penalty came to the player")
        expect(draw).to_contain_text("Take")
        expect(draw.locator(".warn-badge")).to_have_text("⚠")
        assert "knocked out" in (draw.get_attribute("title") or "")
        advice = page.locator("#advice")
        expect(advice).to_contain_text(re.compile(r"⚠ Take \d+: taking \d+ cards reaches the 13"))
        assert _in_view(page, "#advice") and _in_view(page, "#draw-btn"), size
        _shot(page, f"take-warning-{size}")
        draw.click()
        # Knocked out: no UNO! button for the rest of the hand.
        expect(page.locator("#me-info")).to_contain_text("knocked out")
        expect(page.locator("#uno-btn")).to_be_hidden()
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_replay_controls_stay_in_view_while_stepping(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
    size: str,
) -> None:
    ctx = _ctx(browser, size)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = 5
        invite = _room(page, base_url, seats=4, options={"hand_size": "3"})
        _drive([page], timeout=120)
        code = invite.rstrip("/").split("/")[-1]
        room: dict[str, Any] = page.request.get(f"{base_url}/api/rooms/{code}").json()
        page.goto(f"{base_url}/replay/{room['finished_games'][-1]}")
        expect(page.locator("#replay")).to_be_visible()
        page.wait_for_timeout(200)
        assert page.evaluate("window.scrollY") == 0
        for step in range(1, 9):
            page.locator("#next-btn").click()
            expect(page.locator("#step-label")).to_contain_text(f"{step} ")
            assert page.evaluate("window.scrollY") == 0, step
            assert _in_view(page, "#next-btn") and _in_view(page, "#prev-btn"), step
        # The log follows the step inside its own box.
        current = page.locator("#log li.current").last
        expect(current).to_be_visible()
        _shot(page, f"replay-steps-{size}")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_classic_speaks_classic_and_a_spectator_is_told(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    def plays_wd4(game: Game) -> bool:
        return "play W+4 R" in [str(a) for a in game.legal_actions(0)]

    host_ctx, guest_ctx, watch_ctx = (
        _ctx(browser, "desktop"),
        _ctx(browser, "phone"),
        _ctx(browser, "desktop"),
    )
    host, guest, watcher = host_ctx.new_page(), guest_ctx.new_page(), watch_ctx.new_page()
    errors = [_Console(p) for p in (host, guest, watcher)]
    try:
        NEXT_SEED["seed"] = next(
            s
            for s in range(1, 3000)
            if (g := new_game(2, rules="classic", seed=s)).to_act == 0 and plays_wd4(g)
        )
        invite = _room(host, base_url, seats=2, preset="classic", start=False)
        guest.goto(invite)
        guest.fill("#join-name", "Bob")
        guest.click("#join-btn")
        expect(host.locator("#seat-list")).to_contain_text("Bob")
        host.click("#start-btn")
        watcher.goto(invite)
        watcher.click("#watch-btn")
        expect(watcher.locator("#watching")).to_contain_text("You are watching as a spectator")
        expect(watcher.locator("#watching")).to_be_visible()
        assert _in_view(watcher, "#watching")
        expect(watcher.locator("#uno-btn")).to_be_hidden()
        # Ann plays the Wild +4 naming red; Bob decides.
        card = host.locator("#hand .card[data-code='W+4']").first
        card.click()
        host.locator("#picker-body button[data-colour='R']").click()
        expect(guest.locator("#prompt")).to_have_text(
            "A Wild Draw Four was played on you: challenge it, or take the cards."
        )
        challenge = guest.locator("#challenge-btn")
        expect(challenge).to_be_visible()
        expect(challenge.locator(".warn-badge")).to_have_text("⚠")
        advice = guest.locator("#advice")
        expect(advice).to_contain_text(
            "⚠ Challenge: if the challenge fails you draw 6 cards instead of 4 [CL-8]"
        )
        assert _in_view(guest, "#advice") and _in_view(guest, "#challenge-btn")
        expect(host.locator("#prompt")).to_have_text(
            "Bob may challenge the Wild Draw Four or take 4."
        )
        for page in (host, guest, watcher):
            expect(page.locator("#table")).not_to_contain_text("stack")
        _shot(guest, "classic-challenge-phone")
        for e in errors:
            assert not e.errors, e.errors
    finally:
        for c in (host_ctx, guest_ctx, watch_ctx):
            c.close()
