"""Your whole hand is in reach on a phone (issue 45, point 1).

At 390x844 with touch the hand is a strip fixed to the bottom of the screen: hands of 7, 18 and
25 cards, with the warnings and the coach's hint open, or a Colour Roulette's reveal open on your
own turn, show every playable card's button wholly inside the viewport, uncovered, after
scrolling only the hand's strip (the page never scrolls for it), and a tap plays the farthest
one. A desktop keeps its hand at the bottom of the window the same way (sticky). Chromium
against the in-process server of test_browser.py, with fixed deals; motion is reduced so that
no card is caught mid-flight when its box is measured.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

from playwright.sync_api import Browser, BrowserContext, Page, expect
from test_browser import NEXT_SEED, PHONE, WAIT_MS, _Console, _seed_where, _shot, base_url, browser  # noqa: F401
from test_browser_phone import DESKTOP, _room

from nomercy import Game

#: Scroll the hand's strip (only it) until the card lies inside it; then where the card is, and
#: whether a tap at its centre reaches it (nothing lies over it) and whether the page moved.
_REACH = """(card) => {
  const hand = document.getElementById('hand');
  const y = window.scrollY;
  const hb = hand.getBoundingClientRect();
  let r = card.getBoundingClientRect();
  if (r.left < hb.left) hand.scrollLeft -= hb.left - r.left;
  else if (r.right > hb.right) hand.scrollLeft += r.right - hb.right;
  r = card.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {
    inView: r.height > 0 && r.top >= 0 && r.left >= 0
      && r.bottom <= window.innerHeight && r.right <= window.innerWidth,
    reached: Boolean(hit && card.contains(hit)),
    pageMoved: window.scrollY !== y,
    x: r.left + r.width / 2, y: r.top + r.height / 2,
  };
}"""

#: Whether an element lies inside the viewport and above the hand's strip (not hidden under it).
_ABOVE_STRIP = """(el) => {
  const r = el.getBoundingClientRect();
  const me = document.getElementById('me').getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= Math.min(window.innerHeight, me.top + 1);
}"""


def _ctx(browser: Browser, size: str) -> BrowserContext:  # noqa: F811
    if size == "phone":
        ctx = browser.new_context(
            viewport=PHONE,
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
            locale="en-GB",
            reduced_motion="reduce",
        )
    else:
        ctx = browser.new_context(viewport=DESKTOP, locale="en-GB", reduced_motion="reduce")
    ctx.set_default_timeout(WAIT_MS)
    return ctx


def _reach_every_playable_card(page: Page, size: str) -> dict[str, Any]:
    """Every playable card is reachable by scrolling only the strip; returns the last one's
    place (the farthest along the strip)."""
    page.wait_for_function("() => !document.body.dataset.busy")
    cards = page.locator("#hand .card.legal")
    count = cards.count()
    assert count, "no playable card"
    y = page.evaluate("window.scrollY")
    place: dict[str, Any] = {}
    for i in range(count):
        place = cards.nth(i).evaluate(_REACH)
        code = cards.nth(i).get_attribute("data-code")
        assert place["inView"], (size, i, code)
        assert place["reached"], (size, i, code)
        assert not place["pageMoved"], (size, i, code)
    assert page.evaluate("window.scrollY") == y
    return place


def _plays(game: Game) -> bool:
    return sum(str(a).startswith("play ") for a in game.legal_actions(0)) >= 2


@pytest.mark.parametrize(
    ("size", "cards"), [("phone", 7), ("phone", 18), ("phone", 25), ("desktop", 25)]
)
def test_every_playable_card_is_in_reach_with_the_warnings_and_the_hint_open(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
    size: str,
    cards: int,
) -> None:
    # Four players: three opponents above the centre, the most a table puts above the hand.
    options = {"hand_size": str(cards), "mercy_threshold": "40"}
    ctx = _ctx(browser, size)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = _seed_where(4, {k: int(v) for k, v in options.items()}, _plays)
        _room(page, base_url, seats=4, options=options)
        expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
        expect(page.locator("#hand .card")).to_have_count(cards)
        page.locator("#hint-btn").click()
        expect(page.locator("#hint .hint-move")).to_be_visible()
        # The hint, and the prompt, are not hidden under the strip.
        assert page.locator("#hint").evaluate(_ABOVE_STRIP), size
        assert page.locator("#prompt").evaluate(_ABOVE_STRIP), size
        place = _reach_every_playable_card(page, size)
        _shot(page, f"hand-{cards}-{size}")
        # A tap where the farthest playable card is plays it.
        if size == "phone":
            page.touchscreen.tap(place["x"], place["y"])
        else:
            page.mouse.click(place["x"], place["y"])
        if not page.locator("#picker").is_hidden():
            page.locator("#picker-body button").first.click()
        expect(page.locator("#hand .card")).not_to_have_count(cards)
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_a_roulette_reveal_open_on_your_turn_leaves_the_hand_in_reach(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    # Ann plays Colour Roulette on the bot; it reveals cards and loses its turn, so the reveal
    # is open while Ann decides. The page's clock is held so that the reveal stays open.
    options = {"hand_size": "18", "mercy_threshold": "40"}

    def roulette(game: Game) -> bool:
        return "play WCR" in [str(a) for a in game.legal_actions(0)]

    ctx = _ctx(browser, "phone")
    page = ctx.new_page()
    errors = _Console(page)
    try:
        page.clock.install()
        NEXT_SEED["seed"] = _seed_where(2, {k: int(v) for k, v in options.items()}, roulette)
        _room(page, base_url, seats=2, options=options)
        expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
        page.clock.pause_at(page.evaluate("Date.now()") + 1000)
        page.locator("#hand .card[data-code='WCR']").first.evaluate(_REACH)
        page.locator("#hand .card[data-code='WCR']").first.tap()
        reveal = page.locator("#reveal")
        expect(reveal).to_be_visible()
        expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
        assert reveal.locator(".card").count() >= 1
        _reach_every_playable_card(page, "phone")
        assert page.locator("#prompt").evaluate(_ABOVE_STRIP)
        _shot(page, "hand-roulette-phone")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()
