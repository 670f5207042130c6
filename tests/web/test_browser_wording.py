"""Browser wording (issue 45, point 6): the singular for one card, classic's pending penalty
said as classic has it, classic's own card back, no unexplained points in a single hand, and
a sound switch and reactions that show without an emoji font.

Chromium against the in-process server of test_browser.py, with fixed deals (rigged hands
through ``hand_size`` and seeds found with the engine).
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

from playwright.sync_api import Browser, expect
from test_browser import NEXT_SEED, _Console, _drive, _seed_where, _shot, base_url, browser  # noqa: F401
from test_browser_hand import _ctx
from test_browser_phone import _room

from nomercy import Game, new_game


def _emoji_font() -> bool | None:
    """Whether the system has a colour emoji font (fontconfig), ``None``: cannot tell."""
    if shutil.which("fc-list") is None:
        return None
    out = subprocess.run(["fc-list", ":color=true"], capture_output=True, text=True).stdout
    return bool(out.strip())


def test_nm27_one_other_card_of_the_colour_is_said_in_the_singular(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    # A hand with a playable Discard All and exactly one other card of its colour.
    def one_other(game: Game) -> bool:
        hand = [c.code for c in game.hands[0]]
        for a in game.legal_actions(0):
            text = str(a)
            if re.fullmatch(r"play [RYGB]DA", text):
                colour = text.split()[1][0]
                same = [c for c in hand if c[0] == colour and c != f"{colour}DA"]
                return len(same) == 1
        return False

    ctx = _ctx(browser, "desktop")
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = _seed_where(2, {}, one_other)
        _room(page, base_url, seats=2)
        advice = page.locator("#advice")
        expect(advice).to_contain_text(
            re.compile(r"you also discard your other \w+ card; its effect")
        )
        expect(advice).not_to_contain_text("1 other")
        card = page.locator("#hand .card.legal[data-code$='DA']").first
        card.click()
        log = page.locator("#log")
        expect(log).to_contain_text(
            re.compile(r"Ann discards 1 more \w+ card under the Discard All")
        )
        expect(log).to_contain_text("its effect is ignored")
        expect(log).not_to_contain_text("card(s)")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_classic_says_what_is_pending_and_has_its_own_card_back(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    def plays_plus_two(game: Game) -> bool:
        return any(re.fullmatch(r"play [RYGB]\+2", str(a)) for a in game.legal_actions(0))

    ctx = _ctx(browser, "desktop")
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = next(
            s
            for s in range(1, 3000)
            if (g := new_game(2, rules="classic", seed=s)).to_act == 0 and plays_plus_two(g)
        )
        _room(page, base_url, seats=2, preset="classic")
        # Classic's back: the four colours' shapes, no "NM".
        back = page.locator("#draw-back .card.back")
        expect(back).to_have_class(re.compile(r"\bclassic\b"))
        expect(back.locator(".back-mark svg")).to_have_count(4)
        expect(page.locator("#table")).not_to_contain_text("NM")
        # Ann plays a +2 on the bot: the badge says the penalty, not a stack's "last +2".
        page.evaluate("document.body.dataset.pendingSeen = ''")
        page.evaluate(
            """() => new MutationObserver(() => {
                 const p = document.getElementById('pending');
                 if (!p.hidden) document.body.dataset.pendingSeen = p.textContent;
               }).observe(document.getElementById('pending'),
                  {childList: true, characterData: true, subtree: true, attributes: true})"""
        )
        page.locator("#hand .card.legal[data-code$='+2']").first.click()
        page.wait_for_function("() => document.body.dataset.pendingSeen")
        assert page.evaluate("document.body.dataset.pendingSeen") == "Penalty: draw 2"
        log = page.locator("#log")
        expect(log).to_contain_text("Bot 1 must draw 2")
        expect(log).not_to_contain_text("last +2")
        _shot(page, "classic-wording")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_no_mercy_keeps_its_back_and_a_single_hand_shows_no_points(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ctx = _ctx(browser, "desktop")
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = 5
        _room(page, base_url, seats=3, options={"hand_size": "3"})
        expect(page.locator("#draw-back .back-mark")).to_have_text("NM")
        _drive([page], timeout=120)
        expect(page.locator("#hand-end")).to_be_visible()
        # The ended hand has points (the winner's, in the game's scores), but a single hand is
        # not scored, so no seat shows them: they read as unexplained numbers.
        code = page.url.rstrip("/").split("/")[-1]
        room = page.request.get(f"{base_url}/api/rooms/{code}").json()
        game = page.request.get(f"{base_url}/api/replays/{room['finished_games'][-1]}").json()
        assert any(game["result"]["scores"]), game["result"]
        for where in ("#opponents", "#me-info"):
            expect(page.locator(where)).not_to_contain_text("points")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_the_sound_switch_and_the_reactions_show_without_an_emoji_font(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ctx = _ctx(browser, "phone")
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = 4
        _room(page, base_url, seats=2)
        # The switch is drawn (an inline SVG), not an emoji that may be an empty box.
        sound = page.locator("#sound-btn")
        expect(sound.locator("svg")).to_have_count(1)
        assert not re.search(r"[\U0001F300-\U0001FAFF]", sound.inner_text())
        sound.click()
        expect(sound).to_have_attribute("aria-pressed", "true")
        expect(sound.locator("svg")).to_have_count(1)
        emoji = page.evaluate("document.documentElement.dataset.emoji")
        font = _emoji_font()
        if font is not None:
            # The page's canvas check agrees with the system's fonts.
            assert emoji == ("1" if font else "0"), (emoji, font)
        buttons = page.locator("#reactions button.react")
        expect(buttons).to_have_count(6)
        texts = buttons.all_inner_texts()
        if emoji == "0":
            assert texts == ["thumbs up", "laugh", "wow", "ouch", "well played", "good game"]
        else:
            assert texts == ["👍", "😂", "😮", "😬", "👏", "🤝"]
        # The row stays one line in the hand's strip (it scrolls sideways if it must).
        heights = {round(b.bounding_box()["y"]) for b in buttons.all() if b.bounding_box()}
        assert len(heights) == 1, heights
        _shot(page, "reactions-phone")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()
