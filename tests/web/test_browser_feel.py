"""The table feels alive (issue 27): quick reactions, sound (off until turned on) and card
motion that follows prefers-reduced-motion. Chromium against the in-process server of
test_browser.py, with fixed deals."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

from playwright.sync_api import Browser, BrowserContext, Page, expect
from test_browser import NEXT_SEED, PHONE, WAIT_MS, _Console, _seed_where, _shot, base_url, browser  # noqa: F401
from test_browser_phone import _room

from nomercy import Game


def _ctx(browser: Browser, *, phone: bool = False, motion: str = "no-preference") -> BrowserContext:  # noqa: F811
    viewport = PHONE if phone else {"width": 1280, "height": 900}
    ctx = browser.new_context(viewport=viewport, locale="en-GB", reduced_motion=motion)  # type: ignore[arg-type]  # a Literal
    ctx.set_default_timeout(WAIT_MS)
    return ctx


def _play_something(page: Page) -> None:
    """Our move: a playable number card (the turn then passes), else any playable card, else
    draw."""
    expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
    page.wait_for_function("() => !document.body.dataset.busy")
    codes = page.eval_on_selector_all("#hand .card.legal", "cs => cs.map(c => c.dataset.code)")
    number = next((c for c in codes if re.fullmatch(r"[RYGB]\d", c)), None)
    if number:
        page.locator(f"#hand .card.legal[data-code='{number}']").first.click()
    elif codes:
        page.locator("#hand .card.legal").first.click()
        if not page.locator("#picker").is_hidden():
            page.locator("#picker-body button").first.click()
    else:
        page.locator("#draw-btn").click()


def _numbers(game: Game) -> bool:
    return any(re.fullmatch(r"play [RYGB]\d", str(a)) for a in game.legal_actions(0))


#: Records in ``window.reactionWaits`` each change of "a reaction button is disabled".
_WATCH_WAITS = """() => {
  const bar = document.querySelector('#reactions');
  const seen = (window.reactionWaits = []);
  const note = () => {
    const now = Boolean(bar.querySelector('button:disabled'));
    if (seen.length === 0 ? now : seen[seen.length - 1] !== now) seen.push(now);
  };
  new MutationObserver(note).observe(bar, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'],
  });
}"""


def test_reactions_show_by_the_seat_and_the_host_turns_them_off(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    host_ctx, guest_ctx = _ctx(browser), _ctx(browser, phone=True)
    host, guest = host_ctx.new_page(), guest_ctx.new_page()
    errors = [_Console(host), _Console(guest)]
    try:
        NEXT_SEED["seed"] = 4
        invite = _room(host, base_url, seats=2, start=False)
        guest.goto(invite)
        guest.fill("#join-name", "Bob")
        guest.click("#join-btn")
        expect(host.locator("#seat-list")).to_contain_text("Bob")
        host.click("#start-btn")
        expect(guest.locator("#table")).to_be_visible()
        bar = guest.locator("#reactions")
        expect(bar.locator("button")).to_have_count(6)
        expect(bar.locator("button[data-reaction='clap']")).to_have_attribute(
            "aria-label", "well played"
        )
        # The buttons' waits are recorded as they happen: a check made once the bubble has
        # shown could come after the 2 s wait on a loaded machine, and miss it.
        guest.evaluate(_WATCH_WAITS)
        # By keyboard alone: focus the button, Enter sends it.
        bar.locator("button[data-reaction='clap']").focus()
        guest.keyboard.press("Enter")
        bubble = host.locator("#opponents .player[data-seat='1'] .reaction-bubble")
        # The emoji where the system draws emoji in colour, else the reaction's name
        # (test_browser_wording.py checks which this system gets).
        clap = (
            "👏"
            if host.evaluate("document.documentElement.dataset.emoji") == "1"
            else "well played"
        )
        expect(bubble).to_have_text(clap)
        expect(bubble).to_have_attribute("aria-label", "Bob: well played")
        expect(guest.locator("#me .reaction-bubble")).to_have_text(clap)
        # One every two seconds: the buttons waited, then came back.
        expect(bar.locator("button").first).to_be_enabled()
        assert guest.evaluate("window.reactionWaits")[:2] == [True, False]
        _shot(host, "reaction-desktop")
        expect(bubble).to_have_count(0)  # it fades after a few seconds
        # The host's switch: the guest's buttons go, a line says why.
        expect(guest.locator("#reactions-switch")).to_be_hidden()
        switch = host.locator("#reactions-switch")
        expect(switch).to_have_text("Turn reactions off")
        switch.click()
        expect(guest.locator("#reactions")).to_be_hidden()
        expect(guest.locator("#reactions-off")).to_have_text("The host turned reactions off.")
        expect(switch).to_have_text("Turn reactions on")
        switch.click()
        expect(guest.locator("#reactions")).to_be_visible()
        for e in errors:
            assert not e.errors, e.errors
    finally:
        host_ctx.close()
        guest_ctx.close()


def test_sound_is_off_until_turned_on_and_cues_your_turn(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ctx = _ctx(browser)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = _seed_where(2, {}, _numbers)
        _room(page, base_url, seats=2)
        button = page.locator("#sound-btn")
        expect(button).to_have_attribute("aria-pressed", "false")
        expect(button).to_have_attribute("aria-label", "Sound off: click to turn on")
        _play_something(page)
        page.wait_for_timeout(300)
        assert page.evaluate("document.body.dataset.lastSound") is None  # off: no cue
        page.keyboard.press("m")
        expect(button).to_have_attribute("aria-pressed", "true")
        expect(button).to_have_attribute("aria-label", "Sound on: click to mute")
        assert page.evaluate("localStorage.getItem('nomercy.sound')") == "on"
        page.evaluate("delete document.body.dataset.lastSound")
        # A number card: the bot moves, and our turn comes back with its cue (or a stack aimed
        # at us, or an UNO call).
        _play_something(page)
        page.wait_for_function("() => document.body.dataset.lastSound !== undefined")
        assert page.evaluate("document.body.dataset.lastSound") in ("turn", "stack", "uno")
        button.click()
        expect(button).to_have_attribute("aria-pressed", "false")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_cards_move_unless_the_system_asks_for_reduced_motion(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
    motion: str,
) -> None:
    ctx = _ctx(browser, motion=motion)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = _seed_where(2, {}, _numbers)
        _room(page, base_url, seats=2)
        for _ in range(2):
            events = page.locator("#log li").count()
            _play_something(page)
            # Our play and the bot's answer are in the log, and it is our turn again.
            page.wait_for_function(
                f"() => document.querySelectorAll('#log li').length > {events + 1}"
            )
            expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
        moved = int(page.evaluate("document.body.dataset.motions || '0'"))
        if motion == "reduce":
            assert moved == 0
            assert page.evaluate("document.getAnimations().length") == 0
        else:
            assert moved >= 2  # our card to the pile, the bot's card to the pile
        assert not errors.errors, errors.errors
    finally:
        ctx.close()
