"""The browser client against a real server: Playwright driving Debian's chromium.

A uvicorn server runs in a thread on 127.0.0.1 (a free port, a temporary database, short bot
delays, fixed game seeds). Two browser contexts (one desktop, one phone-sized) create and join a
room with a bot and play a hand to the end by clicking, the way a person would: the first
highlighted card (a wild when there is one, so the colour picker is used), else draw; UNO is
called with the next-to-last card. Screenshots of the table go to ``test-artifacts/``.

Needs ``/usr/bin/chromium`` (Debian's package; ``scripts/check`` installs it) or
``NOMERCY_CHROMIUM``. Playwright's own browser download is not used.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ports import free_port

pytest.importorskip("starlette", reason="the web extra is part of .[dev]")
playwright_sync = pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

import uvicorn  # noqa: E402
from playwright.sync_api import Browser, BrowserContext, Page, expect  # noqa: E402

from nomercy import Game, GameRecord, new_game  # noqa: E402
from nomercy.bots import make_bot, next_action  # noqa: E402
from nomercy.web.app import create_app  # noqa: E402
from nomercy.web.rooms import ServerConfig  # noqa: E402

STATIC = Path(__file__).resolve().parents[2] / "src" / "nomercy" / "web" / "static"
CHROMIUM = os.environ.get("NOMERCY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Containers often have a small /dev/shm; Chromium then crashes pages without this.
    "--disable-dev-shm-usage",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 390, "height": 844}
#: Game seeds the server deals with, in order (a fixed deal makes the test repeatable).
#: Each test's deal. With a fixed deal the people's clicks and the bots' choices are the same
#: on every run (bots are seeded from the game seed), so what a test expects to happen does.
SEED_HAND, SEED_CATCH, SEED_TIMER, SEED_MATCH = 1, 7, 3, 5
#: The seed of the next game the server deals: each test sets its own before it starts a game,
#: so a test's deal does not depend on which other tests ran.
NEXT_SEED = {"seed": SEED_HAND}


#: How long (ms) a page's action or assertion may wait: a bound that only catches a hang. The
#: suite runs beside other work; on a loaded 2-core machine a browser is many times slower.
WAIT_MS = 60_000


# ---------------------------------------------------------------------- fixtures
class _Server:
    """uvicorn on a thread, stopped by setting ``should_exit``."""

    def __init__(self, app: Any, port: int) -> None:
        config = uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", ws="auto"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.run(self.server.serve())

    def __enter__(self) -> _Server:
        self.thread.start()
        deadline = time.monotonic() + 120  # only catches a hang
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    config = ServerConfig(
        database=tmp_path_factory.mktemp("web") / "server.sqlite3",
        bot_delay=0.15,
        grace=600.0,
        seed_source=lambda: NEXT_SEED["seed"],
        # Every test's rooms come from 127.0.0.1: no hourly room limit here (it has tests of
        # its own in test_web_bounds.py).
        rooms_per_hour=0,
    )
    port = free_port()
    with _Server(create_app(config), port):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # Every module with browser tests uses this fixture: Playwright's assertions wait as long
    # as its actions (its own default, 5 s, fails on a loaded machine with nothing wrong).
    expect.set_options(timeout=WAIT_MS)
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"no chromium at {CHROMIUM}: run scripts/check (it installs Debian's chromium), "
            "apt-get install chromium, or set NOMERCY_CHROMIUM to a Chromium binary"
        )
    with playwright_sync.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def _context(browser: Browser, *, phone: bool = False, lang: str = "en-GB") -> BrowserContext:
    if phone:
        ctx = browser.new_context(
            viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale=lang
        )
    else:
        ctx = browser.new_context(viewport={"width": 1280, "height": 860}, locale=lang)
    ctx.set_default_timeout(WAIT_MS)
    return ctx


class _Console:
    """Collects page errors (uncaught exceptions) so a test can fail on them."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on(
            "console",
            lambda msg: self.errors.append(msg.text) if msg.type == "error" else None,
        )


def _shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")
    return path


# ---------------------------------------------------------------------- the click policy
_POLICY_JS = """
([forgetful, catches]) => {
  // What a person would do next, as {what, ...}; the test carries it out by click or keyboard.
  const vis = (el) => el && !el.hidden && el.offsetParent !== null;
  const picker = document.getElementById('picker');
  if (!picker.hidden) {
    const b = picker.querySelector('#picker-body button');
    if (b) return {what: 'pick', value: b.dataset.colour || b.dataset.target};
  }
  const end = document.getElementById('hand-end');
  if (!end.hidden) return {what: 'hand-end', over: end.dataset.over === '1'};
  if (document.body.dataset.busy) return {what: 'busy'};
  const catcher = document.querySelector('#opponents button.catch');
  if (catcher && catches) return {what: 'catch', seat: catcher.dataset.catch};
  const uno = document.getElementById('uno-btn');
  const armed = uno.getAttribute('aria-pressed') === 'true';
  if (vis(uno) && !uno.disabled && !armed && !forgetful) return {what: 'uno'};
  const cards = [...document.querySelectorAll('#hand .card')];
  const legal = cards.filter((c) => c.classList.contains('legal'));
  if (legal.length) {
    const card = legal.find((c) => c.classList.contains('wild')) || legal[0];
    return {what: 'play', code: card.dataset.code, index: cards.indexOf(card)};
  }
  for (const id of ['draw-btn', 'pass-btn']) {
    const b = document.getElementById(id);
    if (vis(b) && !b.disabled) return {what: id};
  }
  return {what: 'wait'};
}
"""
_KEYS = {"draw-btn": "d", "pass-btn": "p", "uno": "u"}


def _act(page: Page, move: dict[str, Any], keyboard: bool) -> str:
    """Carry out one decision of the click policy, by keyboard or by clicking (tapping)."""
    what = move["what"]
    if what == "catch":
        page.locator(f"#opponents button.catch[data-catch='{move['seat']}']").click()
        return f"catch:{move['seat']}"
    if what == "pick":
        page.locator("#picker-body button").first.click() if not keyboard else page.keyboard.press(
            "1"
        )
        return f"pick:{move['value']}"
    if what == "play":
        index = int(move["index"])
        if not keyboard:
            page.locator("#hand .card").nth(index).click()
        else:
            if index < 9:
                page.keyboard.press(str(index + 1))
            else:  # past the number keys: Home, then arrows
                page.keyboard.press("Home")
                for _ in range(index):
                    page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        return f"play:{move['code']}"
    if keyboard:
        page.keyboard.press(_KEYS[what])
    else:
        page.locator("#uno-btn" if what == "uno" else f"#{what}").click()
    return what


def _drive(
    pages: list[Page],
    timeout: float,
    *,
    forgetful: tuple[bool, ...] = (),
    catches: bool = False,
    until: str = "",
    match: bool = False,
) -> list[list[str]]:
    """Play for every page until each shows the end-of-hand dialog; returns what each did.

    The first page plays by keyboard (number keys, Enter, D, P, U), the others by clicking.
    ``forgetful[i]``: page i never calls UNO; ``catches``: catch whoever forgets; ``until``:
    also stop once some page did this; ``match``: close each hand's score dialog and go on
    until the match is over.
    """
    done: list[list[str]] = [[] for _ in pages]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        finished = 0
        for i, page in enumerate(pages):
            forgets = i < len(forgetful) and forgetful[i]
            move = page.evaluate(_POLICY_JS, [forgets, catches])
            if move["what"] == "hand-end" and match and not move["over"]:
                done[i].append("hand-end")
                page.click("#hand-end-close")
            elif move["what"] == "hand-end":
                finished += 1
            elif move["what"] not in ("wait", "busy"):
                done[i].append(_act(page, move, keyboard=i == 0))
                if until and done[i][-1].startswith(until):
                    return done
        if finished == len(pages):
            return done
        pages[0].wait_for_timeout(60)
    raise AssertionError(f"the hand did not end within {timeout} s; actions: {done}")


def _open_lobby(page: Page, base_url: str) -> None:
    """Open the lobby and wait for its script: the create form is handled once it has run.

    The script fills the rule options and then, in the same task, takes over the form's
    submit; a click before that raced it (the spectator test timed out 1 run in 3).
    """
    page.goto(base_url + "/")
    expect(page.locator("#options-list [data-option]").first).to_be_attached()


# ---------------------------------------------------------------------- tests
def test_two_people_and_a_bot_play_a_hand(base_url: str, browser: Browser) -> None:  # noqa: PLR0915 (measured in tests/test_complexity.py)
    host_ctx = _context(browser)
    guest_ctx = _context(browser, phone=True)
    host, guest = host_ctx.new_page(), guest_ctx.new_page()
    host_log, guest_log = _Console(host), _Console(guest)
    try:
        # The host creates a room in the lobby: 3 seats, the third is a bot.
        _open_lobby(host, base_url)
        expect(host.locator("#preset option")).to_have_count(2)
        host.fill("#room-name", "Browser test")
        host.fill("#host-name", "Ann")
        host.select_option("#preset", "no-mercy")
        host.fill("#seats", "3")
        host.select_option("#bot", "random")
        host.select_option("#timer", "0")
        host.check("input[name=mode][value=hand]")
        # Every option of the preset is offered with its rule id and explanation.
        host.click("details.options summary")
        expect(host.locator("#opt-stack_threshold")).to_have_value("last_card")
        expect(host.locator(".option", has_text="Stacking minimum")).to_contain_text("A04")
        # Short hands (3 cards each) keep the test quick and bring UNO calls early.
        expect(host.locator("#opt-hand_size")).to_have_value("7")
        host.fill("#opt-hand_size", "3")
        host.dispatch_event("#opt-hand_size", "change")
        expect(host.locator("#options-changed")).to_contain_text("1")
        host.click("#create-btn")
        host.wait_for_url("**/r/*")
        code = host.url.rstrip("/").split("/")[-1]
        expect(host.locator("#lobby-panel")).to_be_visible()
        invite = host.input_value("#invite-link")
        assert invite.endswith(f"/r/{code}")
        expect(host.locator("#start-btn")).to_be_visible()
        _shot(host, "room-lobby-desktop")

        # The guest (a phone) opens the invite link and takes the next seat.
        guest.goto(invite)
        expect(guest.locator("#join-panel")).to_be_visible()
        guest.fill("#join-name", "Bob")
        guest.click("#join-btn")
        expect(guest.locator("#lobby-panel")).to_be_visible()
        expect(guest.locator("#start-btn")).to_be_hidden()
        _shot(guest, "room-lobby-phone")
        expect(host.locator("#seat-list")).to_contain_text("Bob")
        token = guest.evaluate(f"localStorage.getItem('nomercy.token.{code}')")
        assert token

        NEXT_SEED["seed"] = SEED_HAND
        host.click("#start-btn")
        for page in (host, guest):
            expect(page.locator("#table")).to_be_visible()
            expect(page.locator("#top-card .card")).to_be_visible()
            expect(page.locator("#opponents .player")).to_have_count(2)
        expect(host.locator("#hand .card")).to_have_count(3)
        _shot(host, "table-desktop-start")
        _shot(guest, "table-phone-start")

        # A third person watches: every seat is an opponent, there is no hand and no controls.
        watcher_ctx = _context(browser)
        watcher = watcher_ctx.new_page()
        watcher.goto(invite)
        # (Late friends may take the bot's seat: the form offers it; this one watches.)
        expect(watcher.locator("#join-info")).to_contain_text("take over Bot 2's seat")
        expect(watcher.locator("#join-info")).to_contain_text("or watch")
        watcher.click("#watch-btn")
        expect(watcher.locator("#opponents .player")).to_have_count(3)
        expect(watcher.locator("#me")).to_be_hidden()
        watcher_ctx.close()

        # The guest closes the tab and comes back: the saved token resumes the seat.
        guest.close()
        guest = guest_ctx.new_page()
        guest_log = _Console(guest)
        guest.goto(invite)
        expect(guest.locator("#table")).to_be_visible()
        expect(guest.locator("#join-panel")).to_be_hidden()
        expect(guest.locator("#me-info")).to_contain_text("Bob")

        actions = _drive([host, guest], timeout=150)
        both = [a for acts in actions for a in acts]
        print("host (keyboard):", actions[0])
        print("guest (taps):", actions[1])
        for page in (host, guest):
            expect(page.locator("#hand-end")).to_be_visible()
            expect(page.locator("#hand-end-body table.scores tr")).to_have_count(
                4
            )  # a header and three seats
            # a single hand is not scored: cards left, no points, no totals
            expect(page.locator("#hand-end-body th")).to_have_text(["Player", "Cards left"])
            expect(page.locator("#hand-end-body")).not_to_contain_text("Total")
        _shot(host, "hand-end-desktop")
        _shot(guest, "hand-end-phone")
        host.click("#hand-end-close")
        _shot(host, "table-desktop-end")

        # What the people did: a wild's colour was chosen with the picker and UNO was called.
        assert any(a.startswith("pick:") for a in both), actions
        assert "uno" in both, actions
        log = host.locator("#log")
        expect(log).to_contain_text("calls UNO")
        expect(log).to_contain_text("NM-")
        # The phone's table fits its screen: nothing scrolls sideways.
        width = guest.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width

        # Switching the language translates the table and the event log, keeping rule ids.
        guest.select_option("#lang", "de")
        expect(guest.locator("#log-h")).to_have_text("Ereignisse")
        expect(guest.locator("#log")).to_contain_text("ruft UNO")
        _shot(guest, "table-phone-de")
        expect(guest.locator("#log .rule").first).to_have_text(
            host.locator("#log .rule").first.inner_text()
        )

        # The finished game is a replay that shows every hand.
        room = json.loads(host.evaluate(f"fetch('/api/rooms/{code}').then(r => r.text())"))
        assert room["finished_games"], room
        game_id = room["finished_games"][-1]
        # The published record replays to the same result with the engine (how to verify).
        text = host.evaluate(f"fetch('/api/replays/{game_id}?format=record').then(r => r.text())")
        game = GameRecord.loads(text).replay()
        assert game.is_over and room["finished_games"]
        host.goto(f"{base_url}/replay/{game_id}")
        expect(host.locator("#replay")).to_be_visible()
        expect(host.locator("#hands .rh")).to_have_count(3)
        expect(host.locator("#seed")).not_to_be_empty()
        host.click("#next-btn")
        expect(host.locator("#step-label")).to_contain_text("1")
        host.press("body", "End")
        expect(host.locator("#next-btn")).to_be_disabled()
        _shot(host, "replay-end")
        expect(host.locator("#result")).to_have_text(f"{game.names[game.winner]} wins")
        assert not host_log.errors, host_log.errors
        assert not guest_log.errors, guest_log.errors
    finally:
        host_ctx.close()
        guest_ctx.close()


def test_a_forgotten_uno_is_caught(base_url: str, browser: Browser) -> None:
    """Two people, no bot: Ann forgets to call UNO and Bob catches her with the Catch button."""
    ann_ctx, bob_ctx = _context(browser), _context(browser)
    ann, bob = ann_ctx.new_page(), bob_ctx.new_page()
    try:
        _open_lobby(ann, base_url)
        ann.fill("#host-name", "Ann")
        ann.fill("#seats", "2")
        ann.click("details.options summary")
        ann.fill("#opt-hand_size", "3")
        ann.dispatch_event("#opt-hand_size", "change")
        ann.click("#create-btn")
        ann.wait_for_url("**/r/*")
        bob.goto(ann.url)
        bob.fill("#join-name", "Bob")
        bob.click("#join-btn")
        expect(ann.locator("#seat-list")).to_contain_text("Bob")
        NEXT_SEED["seed"] = SEED_CATCH
        ann.click("#start-btn")
        expect(bob.locator("#table")).to_be_visible()
        actions = _drive(
            [ann, bob], timeout=60, forgetful=(True, False), catches=True, until="catch"
        )
        print("Ann:", actions[0], "Bob:", actions[1])
        assert any(a.startswith("catch:0") for a in actions[1]), actions
        expect(ann.locator("#log")).to_contain_text("Bob catches Ann not calling UNO")
        expect(bob.locator("#log .rule").last).to_have_text("NM-37")
    finally:
        ann_ctx.close()
        bob_ctx.close()


def test_a_spectator_in_the_lobby_takes_a_seat(base_url: str, browser: Browser) -> None:
    host_ctx, other_ctx = _context(browser), _context(browser)
    host, other = host_ctx.new_page(), other_ctx.new_page()
    try:
        _open_lobby(host, base_url)
        host.fill("#host-name", "Eve")
        host.fill("#seats", "2")
        host.click("#create-btn")
        host.wait_for_url("**/r/*")
        other.goto(host.url)
        other.click("#watch-btn")
        expect(other.locator("#lobby-wait")).to_have_text("You are watching.")
        other.click("#take-seat-btn")
        other.fill("#join-name", "Finn")
        other.click("#join-btn")
        expect(other.locator("#seat-list")).to_contain_text("Finn")
        expect(other.locator("#seat-list li", has_text="Finn")).to_contain_text("you")
        expect(other.locator("#take-seat-btn")).to_be_hidden()
        expect(host.locator("#seat-list")).to_contain_text("Finn")
    finally:
        host_ctx.close()
        other_ctx.close()


def test_a_match_against_a_bot_shows_scores_after_every_hand(
    base_url: str, browser: Browser
) -> None:
    ctx = _context(browser)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        _open_lobby(page, base_url)
        page.fill("#host-name", "Dana")
        page.fill("#seats", "2")
        page.select_option("#bot", "random")
        page.check("input[name=mode][value=match]")
        page.click("details.options summary")
        for name, value in (("hand_size", "3"), ("score_target", "300"), ("knockout_bonus", "0")):
            page.fill(f"#opt-{name}", value)
            page.dispatch_event(f"#opt-{name}", "change")
        page.click("#create-btn")
        page.wait_for_url("**/r/*")
        NEXT_SEED["seed"] = SEED_MATCH
        page.click("#start-btn")
        expect(page.locator("#table")).to_be_visible()
        actions = _drive([page], timeout=120, match=True)[0]
        print("Dana:", actions)
        hands = actions.count("hand-end") + 1
        assert hands >= 2, actions
        dialog = page.locator("#hand-end")
        expect(dialog).to_contain_text("The match is played to 300 points")
        expect(dialog).to_contain_text("wins the match")
        totals = page.locator("#hand-end-body table.scores tr td:nth-child(4)")
        assert max(int(t) for t in totals.all_inner_texts()) >= 300
        # The log runs across the hands: every hand's deal and score are in it.
        expect(page.locator("#log .ev-hand_end")).to_have_count(hands)
        expect(page.locator("#log .ev-match_end")).to_have_count(1)
        _shot(page, "match-end")
        # The host starts the next game with the same seats: a fresh table and log.
        page.click("#new-game")
        expect(page.locator("#hand-end")).to_be_hidden()
        expect(page.locator("#log .ev-hand_end")).to_have_count(0)
        expect(page.locator("#hand .card")).not_to_have_count(0)
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_language_switch_changes_ui_text_and_is_remembered(base_url: str, browser: Browser) -> None:
    ctx = _context(browser, lang="fi-FI")
    page = ctx.new_page()
    errors = _Console(page)
    try:
        _open_lobby(page, base_url)
        # The browser's language (Finnish) is picked first.
        expect(page.locator("#create-h")).to_have_text("Luo huone")
        page.select_option("#lang", "ru")
        expect(page.locator("#create-h")).to_have_text("Создать комнату")
        expect(page.locator("html")).to_have_attribute("lang", "ru")
        # The rule options' explanations are translated too; rule ids stay.
        page.click("details.options summary")
        option = page.locator(".option").filter(has=page.locator("#opt-hand_size"))
        expect(option).to_contain_text("Сколько карт сдаётся каждому")
        expect(option).to_contain_text("NM-2")
        page.reload()
        expect(page.locator("#create-h")).to_have_text("Создать комнату")
        for code, text in [
            ("tr", "Oda oluştur"),
            ("de", "Raum erstellen"),
            ("en", "Create a room"),
        ]:
            page.select_option("#lang", code)
            expect(page.locator("#create-h")).to_have_text(text)
        # On a phone the lobby, options open, fits the screen.
        phone = _context(browser, phone=True)
        small = phone.new_page()
        _open_lobby(small, base_url)
        small.click("details.options summary")
        expect(small.locator("#opt-hand_size")).to_be_visible()
        width = small.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width
        phone.close()
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_timer_countdown_and_errors_shown_politely(base_url: str, browser: Browser) -> None:
    ctx = _context(browser)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        _open_lobby(page, base_url)
        _shot(page, "lobby-desktop")
        # A bad option is refused by the server; the page says which and why.
        page.fill("#host-name", "Cleo")
        page.click("details.options summary")
        page.fill("#opt-hand_size", "0")
        page.dispatch_event("#opt-hand_size", "change")
        page.click("#create-btn")
        expect(page.locator("#notice")).to_contain_text("hand_size")
        page.click("#reset-options")
        page.fill("#seats", "2")
        page.select_option("#timer", "15")
        page.click("#create-btn")
        page.wait_for_url("**/r/*")
        code = page.url.rstrip("/").split("/")[-1]
        NEXT_SEED["seed"] = SEED_TIMER
        page.click("#start-btn")
        expect(page.locator("#table")).to_be_visible()
        # The turn timer counts down on our turn (after the bot's move if it starts).
        timer = page.locator("#timer")
        expect(timer).to_be_visible()
        expect(timer).to_contain_text("Cleo")
        left = int(timer.inner_text().split(":")[1].split()[0])
        assert 0 < left <= 15, left
        # Arrow keys move the chosen card (the dashed outline) through the hand.
        page.keyboard.press("Home")
        expect(page.locator("#hand .card").first).to_have_class(re.compile(r"\bselected\b"))
        page.keyboard.press("ArrowRight")
        expect(page.locator("#hand .card").nth(1)).to_have_attribute("aria-selected", "true")
        page.keyboard.press("ArrowLeft")
        expect(page.locator("#hand .card").first).to_have_attribute("aria-selected", "true")
        # A card that cannot be played now is refused politely, without asking the server.
        dim = page.locator("#hand .card.dim")
        if dim.count():
            dim.first.click(force=True)
            expect(page.locator(".toast").last).to_contain_text("cannot be played now")
        # A seat token the server does not know: the page says so and offers to join again.
        page.evaluate(f"localStorage.setItem('nomercy.token.{code}', 'not-a-token')")
        page.reload()
        expect(page.locator(".toast").first).to_contain_text("could not be found")
        expect(page.locator("#join-panel")).to_be_visible()
        assert page.evaluate(f"localStorage.getItem('nomercy.token.{code}')") is None
        # Chromium logs the refused request (the bad option) itself; nothing else went wrong.
        unexpected = [e for e in errors.errors if "status of 400" not in e]
        assert not unexpected, unexpected
    finally:
        ctx.close()


def test_keyboard_help_and_unknown_room(base_url: str, browser: Browser) -> None:
    ctx = _context(browser)
    page = ctx.new_page()
    try:
        page.goto(base_url + "/r/NOSUCHROOM")
        expect(page.locator("#notice")).to_contain_text("NOSUCHROOM")
        page.keyboard.press("?")
        expect(page.locator("#help")).to_be_visible()
        expect(page.locator("#help")).to_contain_text("Enter")
        page.keyboard.press("Escape")
        expect(page.locator("#help")).to_be_hidden()
        page.goto(base_url + "/replay/NOSUCHGAME")
        expect(page.locator("#notice")).to_contain_text("no finished game")
    finally:
        ctx.close()


def _engine_events() -> tuple[list[dict[str, Any]], list[list[str]]]:
    """Events of bot games across presets and options, as each seat and the public see them."""
    configs: list[tuple[str, dict[str, Any]]] = [
        ("no-mercy", {}),
        ("no-mercy", {"scoring_enabled": True, "score_target": 300}),
        ("no-mercy", {"roulette_chooser": "player", "stack_deflection": "skip_reverse_deflect"}),
        ("no-mercy", {"discard_all_mode": "choose_top_and_fire", "mercy_threshold": 14}),
        (
            "no-mercy",
            {"start_card_handling": "return_to_bottom", "wild_colour_timing": "on_resolution"},
        ),
        ("classic", {"scoring_enabled": True, "score_target": 200}),
        (
            "classic",
            {"classic_scoring": "lowest_wins", "scoring_enabled": True, "classic_stacking": True},
        ),
    ]
    games: list[dict[str, Any]] = []
    names: list[list[str]] = []
    for preset, options in configs:
        for players in (2, 4):
            g = new_game(players, rules=preset, options=options, seed=players * 7 + len(options))
            bots = [make_bot("random", 100 + s) for s in range(players)]
            events = [e.to_dict() for e in g.log]
            steps = 0
            while not g.is_over and steps < 1500:
                for e in g.apply(next_action(g, bots)):
                    events.append(e.to_dict())
                    events.append(e.public_dict())
                steps += 1
            games.append({"events": events})
            names.append(list(g.names))
    return games, names


def test_legal_actions_are_grouped_for_the_table(base_url: str, browser: Browser) -> None:
    """legal.js reads the engine's own legal-action strings: plays by card, UNO, catches."""
    g = Game.from_position(
        {
            "players": [{"hand": ["WCR", "R7", "W+6"]}, {"hand": ["B1", "B2"]}, {"hand": ["Y5"]}],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["Y1", "G9"],
        }
    )
    before = {s: [str(a) for a in g.legal_actions(s)] for s in range(3)}
    g.apply("play R7 2")
    after = {s: [str(a) for a in g.legal_actions(s)] for s in range(3)}
    ctx = _context(browser)
    page = ctx.new_page()
    try:
        _open_lobby(page, base_url)
        got = page.evaluate(
            """async ([before, after]) => {
              const { parseLegal } = await import('/static/js/legal.js');
              const view = (a) => ({
                plays: Object.fromEntries([...a.plays].map(([c, l]) => [c, l.map((x) =>
                  [x.colour, x.target, x.uno])])),
                draw: a.draw, uno: a.uno, unoWithPlay: a.unoWithPlay,
                catches: Object.fromEntries(a.catches),
              });
              return {
                s0: view(parseLegal(before[0], 0)),
                s2: view(parseLegal(before[2], 2)),
                spectator: view(parseLegal(before[2], null)),
                a0: view(parseLegal(after[0], 0)),
                a1: view(parseLegal(after[1], 1)),
                a1_as_2: view(parseLegal(after[1], 2)),
              };
            }""",
            [before, after],
        )
    finally:
        ctx.close()
    s0 = got["s0"]
    assert s0["plays"]["WCR"] == [[None, None, False]]
    assert s0["plays"]["R7"] == [[None, 1, False], [None, 2, False], [None, 2, True]]
    assert sorted(p[0] for p in s0["plays"]["W+6"]) == ["B", "G", "R", "Y"]
    assert s0["unoWithPlay"] is True and s0["uno"] is None and s0["draw"] is None
    assert got["s2"]["uno"] == "2:uno" and got["s2"]["plays"] == {}
    assert got["spectator"]["uno"] == "2:uno"  # a spectator gets no legal list at all
    assert got["a0"]["uno"] == "0:uno"
    assert got["a1"]["draw"] == "draw" and got["a1"]["catches"] == {"0": "1:catch 0"}
    assert got["a1_as_2"]["catches"] == {} and got["a1_as_2"]["draw"] == "draw"


def test_event_templates_reproduce_the_engine_english(base_url: str, browser: Browser) -> None:
    """Every event's English template, filled from kind + data, gives the engine's own text.

    This checks the client's reading of each event (variant, names, counts, cards, colours) on
    real games; the other languages use the same parameters.
    """
    games, names = _engine_events()
    ctx = _context(browser)
    page = ctx.new_page()
    try:
        _open_lobby(page, base_url)
        expect(page.locator("#create-h")).to_have_text("Create a room")
        result = page.evaluate(
            """async ([games, names]) => {
              const ev = await import('/static/js/events.js');
              const i18n = await import('/static/js/i18n.js');
              const en = await (await fetch('/static/i18n/en.json')).json();
              const bad = []; let checked = 0; const kinds = new Set();
              games.forEach((g, i) => {
                for (const e of g.events) {
                  const key = ev.variantKey(e);
                  kinds.add(e.kind);
                  const tpl = en[key];
                  const got = tpl === undefined ? 'no template ' + key
                    : i18n.fill(tpl, ev.eventParams(e, names[i]));
                  const want = ev.engineWords(ev.stripRules(e.text));
                  checked++;
                  if (got !== want && bad.length < 20) bad.push({key, got, want});
                }
              });
              return {bad, checked, kinds: [...kinds]};
            }""",
            [games, names],
        )
        print(f"event templates checked on {result['checked']} events, kinds {result['kinds']}")
        assert result["checked"] > 1000, result["checked"]
        assert not result["bad"], result["bad"]
        # Translated texts keep the engine's rule ids and leave no placeholder unfilled.
        translated = page.evaluate(
            """async ([games, names]) => {
              const i18n = await import('/static/js/i18n.js');
              const ev = await import('/static/js/events.js');
              const out = [];
              for (const code of ['fi', 'ru', 'de', 'tr']) {
                await i18n.setLang(code);
                games.forEach((g, i) => {
                  for (const e of g.events.slice(0, 400)) {
                    const t = ev.translateEvent(e, names[i]);
                    // A fallback to the English text means the event could not be read.
                    if (t.rules !== ev.ruleIds(e.text) || /\\{\\w+\\}/.test(t.text)
                        || t.text === ev.stripRules(e.text))
                      out.push({code, kind: e.kind, text: t.text, en: e.text});
                  }
                });
              }
              await i18n.setLang('en');
              return out.slice(0, 20);
            }""",
            [games, names],
        )
        assert not translated, translated
    finally:
        ctx.close()


# ---------------------------------------------------------------------- labels, UNO, advice
def _seed_where(players: int, options: dict[str, Any], wanted: Any) -> int:
    """The first game seed whose deal satisfies ``wanted(game)`` (seat 0 first to act)."""
    for seed in range(1, 2000):
        game = new_game(players, options=options, seed=seed)
        if game.to_act == 0 and wanted(game):
            return seed
    raise AssertionError("no such deal in 2000 seeds")


def _solo_room(
    page: Page, base_url: str, options: dict[str, str] | None = None, *, hints: str = "on"
) -> None:
    """Create a 2-seat single-hand room (a bot in the other seat) and start it."""
    _open_lobby(page, base_url)
    page.fill("#host-name", "Ann")
    page.fill("#seats", "2")
    page.select_option("#timer", "0")
    page.select_option("#hints", hints)
    if options:
        page.click("details.options summary")
        for name, value in options.items():
            page.fill(f"#opt-{name}", value)
            page.dispatch_event(f"#opt-{name}", "change")
    page.click("#create-btn")
    page.wait_for_url("**/r/*")
    page.click("#start-btn")
    expect(page.locator("#table")).to_be_visible()


def test_lobby_rule_options_have_human_labels_in_every_language(
    base_url: str, browser: Browser
) -> None:
    ctx = _context(browser)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        _open_lobby(page, base_url)
        page.click("details.options summary")
        listing = page.locator("#options-list")
        for code in ("en", "fi", "ru", "de", "tr"):
            words = json.loads((STATIC / "i18n" / f"{code}.json").read_text(encoding="utf-8"))
            page.select_option("#lang", code)
            label = page.locator("label[for='opt-stack_threshold'] .optlabel")
            expect(label).to_have_text(words["optlabel.stack_threshold"])
            value = page.locator("#opt-stack_threshold option[value='running_total']")
            expect(value).to_have_text(words["optval.stack_threshold.running_total"])
            text = listing.inner_text()
            # no raw option name or value is shown (the name is the label's tooltip)
            for raw in ("stack_threshold", "running_total", "last_card", "mercy_threshold"):
                assert raw not in text, (code, raw)
        page.select_option("#lang", "en")
        page.select_option("#opt-stack_threshold", "running_total")
        page.dispatch_event("#opt-stack_threshold", "change")
        page.fill("#host-name", "Ann")
        page.click("#create-btn")
        page.wait_for_url("**/r/*")
        rules = page.locator("#room-rules")
        expect(rules).to_contain_text("Stacking minimum: the running total")
        expect(rules).not_to_contain_text("=")
        expect(rules).not_to_contain_text("scoring_enabled")
        page.select_option("#lang", "de")
        expect(rules).to_contain_text("Mindestwert beim Stapeln: die laufende Summe")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_an_armed_uno_call_shows_on_the_button_and_toasts_once(
    base_url: str, browser: Browser
) -> None:
    def uno_with_play(game: Game) -> bool:
        return any(str(a).endswith(" uno") for a in game.legal_actions(0))

    ctx = _context(browser)
    page = ctx.new_page()
    try:
        NEXT_SEED["seed"] = _seed_where(2, {"hand_size": 2}, uno_with_play)
        _solo_room(page, base_url, {"hand_size": "2"})
        uno = page.locator("#uno-btn")
        expect(uno).to_be_enabled()
        expect(uno).to_have_attribute("aria-pressed", "false")
        expect(uno.locator("span")).to_have_text("UNO!")
        uno.click()
        expect(uno).to_have_attribute("aria-pressed", "true")
        expect(uno.locator("span")).to_have_text("UNO ✓ armed")
        expect(uno).to_have_class(re.compile(r"\barmed\b"))
        _shot(page, "uno-armed")
        expect(page.locator(".toast[data-key='uno']")).to_have_count(1)
        uno.click()  # disarm: the button and the single toast say so
        expect(uno).to_have_attribute("aria-pressed", "false")
        expect(uno.locator("span")).to_have_text("UNO!")
        toasts = page.locator(".toast[data-key='uno']")
        expect(toasts).to_have_count(1)
        expect(toasts).to_have_text("UNO will not be called with your next play.")
        uno.click()
        uno.click()
        uno.click()
        expect(toasts).to_have_count(1)
        expect(toasts).to_have_text("UNO will be called with your next play.")
    finally:
        ctx.close()


def test_nm24_a_wild_reverse_four_with_two_players_warns_before_it_is_played(
    base_url: str, browser: Browser
) -> None:
    def holds_wrd4(game: Game) -> bool:
        return any(str(a).startswith("play WR+4") for a in game.legal_actions(0))

    ctx = _context(browser)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = _seed_where(2, {}, holds_wrd4)
        _solo_room(page, base_url)
        card = page.locator("#hand .card.warn[data-code='WR+4']")
        expect(card).to_be_visible()
        expect(card.locator(".warn-badge")).to_have_text("⚠")
        assert "you become the target" in (card.get_attribute("title") or "")
        advice = page.locator("#advice")
        expect(advice).to_be_visible()
        expect(advice).to_contain_text(
            "Wild Reverse +4: you become the target of its 4-card penalty unless you stack "
            "again [NM-24]"
        )
        # a plain number card is never marked
        marked = page.eval_on_selector_all("#hand .card.warn", "cs => cs.map(c => c.dataset.code)")
        assert all(re.fullmatch(r"WR\+4|[RYGB][07]|[RYGB]DA", c) for c in marked), marked
        _shot(page, "advice-desktop")
        page.select_option("#lang", "de")
        expect(advice).to_contain_text("du wirst selbst Ziel der Strafe von 4 Karten")
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


# ---------------------------------------------------------------------- the coach
def test_the_hint_button_shows_the_coach_move_in_the_player_language(
    base_url: str, browser: Browser
) -> None:
    def choices(game: Game) -> bool:
        return len(game.legal_actions(0)) >= 3

    ctx = _context(browser)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        seed = _seed_where(2, {}, choices)
        NEXT_SEED["seed"] = seed
        legal = [str(a) for a in new_game(2, seed=seed).legal_actions(0)]
        _solo_room(page, base_url)
        box = page.locator("#hint")
        expect(box).to_be_hidden()
        button = page.locator("#hint-btn")
        expect(button).to_be_visible()
        log_size = page.locator("#log li").count()
        button.click()
        expect(box).to_be_visible()
        move = box.locator(".hint-move")
        expect(move).to_be_visible()
        action = move.get_attribute("data-action")
        assert action in legal, (action, legal)
        expect(box).to_contain_text("Hint:")
        expect(box.locator(".hint-chance")).to_have_text(
            re.compile(r"^estimated chance to win the hand: \d{1,3}%$")
        )
        reason = box.locator(".hint-reason").inner_text()
        assert reason and "{" not in reason, reason
        expect(box.locator(".hint-others")).to_contain_text("Other moves:")
        _shot(page, "hint-desktop")
        # Shown, not played: still our turn, the log has not grown.
        expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
        assert page.locator("#log li").count() == log_size
        # In German, the same hint reads in German.
        page.select_option("#lang", "de")
        expect(box).to_contain_text("Tipp:")
        expect(box.locator(".hint-chance")).to_contain_text("geschätzte Chance")
        assert box.locator(".hint-reason").inner_text() != reason
        page.select_option("#lang", "en")
        # Once a move is played, the hint of the past moment goes away.
        page.locator("#hand .card.legal").first.click()
        if not page.locator("#picker").is_hidden():
            page.locator("#picker-body button").first.click()
        expect(box).to_be_hidden()
        assert not errors.errors, errors.errors
    finally:
        ctx.close()


def test_a_room_with_hints_off_shows_no_hint_button(base_url: str, browser: Browser) -> None:
    ctx = _context(browser)
    page = ctx.new_page()
    errors = _Console(page)
    try:
        NEXT_SEED["seed"] = _seed_where(2, {}, lambda game: True)
        _open_lobby(page, base_url)
        page.fill("#host-name", "Ann")
        page.fill("#seats", "2")
        page.select_option("#hints", "off")
        page.click("#create-btn")
        page.wait_for_url("**/r/*")
        # The waiting room shows the host's choice.
        expect(page.locator("#room-rules")).to_contain_text("Coach hints: Off")
        page.select_option("#lang", "fi")
        expect(page.locator("#room-rules")).to_contain_text("Valmentajan vihjeet: Pois")
        page.select_option("#lang", "en")
        page.click("#start-btn")
        expect(page.locator("#table")).to_be_visible()
        expect(page.locator("#prompt")).to_have_class(re.compile(r"\bmine\b"))
        expect(page.locator("#hint-btn")).to_be_hidden()
        page.keyboard.press("h")
        toast = page.locator(".toast[data-key='hint']")
        expect(toast).to_have_text("The host turned hints off in this room.")
        expect(page.locator("#hint")).to_be_hidden()
        assert not errors.errors, errors.errors
    finally:
        ctx.close()
