"""The rules in the game, in the browser (issue 45, point 3).

Chromium against the in-process server of test_browser.py: a rule id the log cites opens its
text from RULES.md (for a player and a spectator); a card tells what it does from the card
itself (a right click or a long press on a hand card, a tap on the pile's card); the UI's
language labels the dialog, says the rule text is English, and translates the options a rule
names; ``/rules`` lists every rule and ``/help`` leads there.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

from playwright.sync_api import Browser, Page, expect
from test_browser import NEXT_SEED, WAIT_MS, _Console, _shot, base_url, browser  # noqa: F401
from test_browser_hand import _ctx
from test_browser_phone import _room

from nomercy.tables import rulebook


def _open_from_log(page: Page, rule_id: str) -> None:
    page.locator(f"#log button.rule-link[data-rule='{rule_id}']").first.click()
    expect(page.locator("#rule")).to_be_visible()


def test_a_cited_rule_opens_from_the_log_for_a_player_and_a_spectator(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    host_ctx, watch_ctx = _ctx(browser, "desktop"), _ctx(browser, "phone")
    host, watcher = host_ctx.new_page(), watch_ctx.new_page()
    errors = [_Console(host), _Console(watcher)]
    try:
        NEXT_SEED["seed"] = 1
        invite = _room(host, base_url, seats=3)
        # The deal cites NM-2: the rule's text, where it stands, the option it names.
        _open_from_log(host, "NM-2")
        nm2 = rulebook.rule("NM-2")
        expect(host.locator("#rule-title")).to_have_text("Rules")
        expect(host.locator("#rule-body h4")).to_have_text(f"NM-2 · {nm2.title}")
        expect(host.locator("#rule-body .rule-body")).to_have_text(nm2.plain)
        expect(host.locator("#rule-body .rule-options")).to_contain_text("hand_size")
        expect(host.locator("#rule-all")).to_have_attribute("href", "/rules#NM-2")
        _shot(host, "rule-from-log-desktop")
        host.keyboard.press("Escape")
        expect(host.locator("#rule")).to_be_hidden()
        # A spectator reads the same, and the card on the pile tells what it does.
        watcher.goto(invite)
        watcher.click("#watch-btn")
        expect(watcher.locator("#watching")).to_be_visible()
        _open_from_log(watcher, "NM-4")
        expect(watcher.locator("#rule-body h4")).to_have_text("NM-4 · Opening flip")
        watcher.locator("#rule-close").click()
        expect(watcher.locator("#rule")).to_be_hidden()
        top = watcher.locator("#top-card .card")
        code = top.get_attribute("data-code") or ""
        top.tap()
        expect(watcher.locator("#rule")).to_be_visible()
        first = rulebook.card_rules(code, "no-mercy")[0]
        expect(watcher.locator("#rule-body h4").first).to_contain_text(first)
        for e in errors:
            assert not e.errors, e.errors
    finally:
        host_ctx.close()
        watch_ctx.close()


def test_a_card_tells_its_rule_by_right_click_long_press_and_the_i_key(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    for size in ("desktop", "phone"):
        ctx = _ctx(browser, size)
        page = ctx.new_page()
        errors = _Console(page)
        try:
            NEXT_SEED["seed"] = 2
            _room(page, base_url, seats=2)
            expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
            # A playable card (a dim one is aria-disabled: not clickable for Playwright).
            card = page.locator("#hand .card.legal").first
            code = card.get_attribute("data-code") or ""
            moves = page.evaluate("document.querySelectorAll('#log li').length")
            if size == "desktop":
                card.click(button="right")
            else:  # a long press: a touch held down (no release)
                card.dispatch_event("pointerdown", {"pointerType": "touch", "isPrimary": True})
            expect(page.locator("#rule")).to_be_visible()
            ids = rulebook.card_rules(code, "no-mercy")
            expect(page.locator("#rule-body h4")).to_have_count(len(ids))
            expect(page.locator("#rule-body h4").first).to_contain_text(ids[0])
            _shot(page, f"card-rule-{size}")
            page.keyboard.press("Escape")
            expect(page.locator("#rule")).to_be_hidden()
            # Nothing was played by asking.
            assert page.evaluate("document.querySelectorAll('#log li').length") == moves
            expect(page.locator("#hand .card")).to_have_count(7)
            if size == "desktop":
                page.keyboard.press("i")
                expect(page.locator("#rule")).to_be_visible()
                page.keyboard.press("Escape")
            assert not errors.errors, errors.errors
        finally:
            ctx.close()


def test_the_rule_dialog_speaks_the_ui_language_and_says_the_text_is_english(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="de-DE")
    ctx.set_default_timeout(WAIT_MS)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = 1
        _room(page, base_url, seats=2)
        _open_from_log(page, "NM-2")
        expect(page.locator("#rule-title")).to_have_text("Regeln")
        expect(page.locator("#rule-body")).to_contain_text("Der Regeltext ist auf Englisch")
        expect(page.locator("#rule-body .rule-body")).to_have_attribute("lang", "en")
        # The option this rule names, explained in German.
        expect(page.locator("#rule-body .rule-options")).to_contain_text(
            "Karten pro Spieler beim Geben"
        )
        expect(page.locator("#rule-close")).to_contain_text("Schließen")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_the_rules_page_lists_every_rule_and_help_leads_there(
    base_url: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ctx = _ctx(browser, "phone")
    page = ctx.new_page()
    errors = _Console(page)
    try:
        page.goto(f"{base_url}/help")
        expect(page).to_have_url(re.compile(r"/rules$"))
        expect(page.locator("h1")).to_have_text("The rules")
        expect(page.locator("#rules-list article")).to_have_count(len(rulebook.rule_ids()))
        page.goto(f"{base_url}/rules#NM-30")
        target = page.locator("article#NM-30")
        expect(target).to_contain_text("Wild Color Roulette")
        expect(target).to_be_in_viewport()
        assert not errors.errors, errors.errors
    finally:
        ctx.close()
