"""``nomercy play``: the terminal app driven by keys through Textual's pilot; screen text out.

Every test runs the app headless with ``App.run_test()`` and bots at ``fast`` pace (or a pace
so slow the bots never move during the test, where the human must act between two bot
moves). Positions are rigged with ``Game.from_position`` so each rule shows up on cue.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Input

from nomercy import Game, GameRecord
from nomercy.bots import make_bot
from nomercy.cli.main import build_parser, main
from nomercy.tables import SeatBot, Table
from nomercy.tui.app import (
    ActionList,
    HandOverScreen,
    NomercyApp,
    PlayConfig,
    QuitScreen,
    TableScreen,
    VariantScreen,
    play_command,
)
from nomercy.tui.render import action_groups, card_text, event_words

SIZE = (140, 45)
Script = Callable[[NomercyApp, Pilot[Any]], Awaitable[None]]


# ---------------------------------------------------------------------- helpers
def run(config: PlayConfig, script: Script, size: tuple[int, int] = SIZE) -> NomercyApp:
    """Run ``script`` against a headless app; return the app (its return value is set)."""
    app = NomercyApp(config)

    async def go() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(app, pilot)

    asyncio.run(go())
    return app


def screen_text(app: NomercyApp) -> str:
    """The text on the terminal right now (what a player sees)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        record=True,
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
    )
    console.print(app.screen._compositor.render_update(full=True))
    # Cards use no-break spaces (a hand wraps between cards only); tests read plain spaces.
    return console.export_text().replace("\u00a0", " ")


def table_screen(app: NomercyApp) -> TableScreen:
    screen = app.screen_stack[1] if len(app.screen_stack) > 1 else app.screen
    assert isinstance(screen, TableScreen)
    return screen


def list_text(app: NomercyApp) -> str:
    """The move list's entries (each may span lines: its warnings follow it)."""
    options = table_screen(app).query_one(ActionList)
    prompts = [options.get_option_at_index(i).prompt for i in range(options.option_count)]
    return "\n".join(str(getattr(p, "plain", p)) for p in prompts).replace("\u00a0", " ")


def log_text(app: NomercyApp) -> str:
    return "\n".join(table_screen(app).log_lines)


async def until(pilot: Pilot[Any], check: Callable[[], bool], timeout: float = 60.0) -> None:
    """Let the app run until ``check()`` holds: one ``pause()`` is not always enough for a
    key's effect to reach the screen on a loaded machine. The bound only catches a hang."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "the screen did not show it in time"
        await pilot.pause(0.05)


async def type_action(pilot: Pilot[Any], text: str) -> None:
    """Focus the notation line with ``i``, clear it, type ``text`` key by key, press enter."""
    await pilot.press("escape", "i", "home", "ctrl+k")
    await pilot.press(*["space" if ch == " " else ch for ch in text])
    await pilot.press("enter")
    await pilot.pause()


async def choose(pilot: Pilot[Any], table: Table, notation: str) -> None:
    """Pick ``notation`` with arrows and enter: its card in the list, then its variant."""
    groups = action_groups(table.legal_actions(0))
    index = next(i for i, g in enumerate(groups) if notation in [str(a) for a in g])
    await pilot.press("escape", *["down"] * index, "enter")
    await pilot.pause()
    group = [str(a) for a in groups[index]]
    if len(group) > 1:
        assert isinstance(pilot.app.screen, VariantScreen)
        await pilot.press(*["down"] * group.index(notation), "enter")
        await pilot.pause()


def rigged(position: dict[str, Any], bots: list[str | None], *, forget: float = 0.0) -> Table:
    """A table on a rigged position; ``None`` marks the human seat."""
    game = Game.from_position(position)
    seated = [
        None if name is None else SeatBot(make_bot(name, seed=s), uno_forget=forget, seed=s)
        for s, name in enumerate(bots)
    ]
    return Table(game, seated)


def slow(table: Table) -> PlayConfig:
    """Bots so slow they never move during a test: the human acts between bot moves."""
    return PlayConfig(table=table, human=0, speed=3600.0)


def fast(table: Table, **kwargs: Any) -> PlayConfig:
    return PlayConfig(table=table, human=0, fast=True, **kwargs)


# ---------------------------------------------------------------------- the table
def test_table_shows_hand_top_colour_direction_mercy_and_opponents() -> None:
    table = Table.new(3, bots=["greedy"], human=0, seed=1)

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        text = screen_text(app)
        hand = table.game.hands[0]
        assert f"Your hand ({len(hand)})" in text
        for card in hand:
            assert card_text(card.code).plain.replace("\u00a0", " ") in text
        assert "Top card:" in text and "Colour:" in text
        assert "clockwise" in text
        assert "Mercy: 18 cards to the 25-card limit" in text
        assert "1 P1: 7 cards" in text and "2 P2: 7 cards" in text
        assert "Pending stack: none" in text
        # symbols per colour, so the hand reads in monochrome
        assert any(sym in text for sym in "♥★♣♠✱")

    run(fast(table), script)


def test_nm14_typed_wild_names_its_colour_and_log_shows_it() -> None:
    table = rigged(
        {
            "players": [{"hand": ["W+6", "R1", "G2"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["Y5"],
            "draw_pile": ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await type_action(pilot, "play W+6 G")
        assert "P0: play W+6 G" in log_text(app)
        assert "naming green" in log_text(app)

    run(slow(table), script)
    assert table.game.colour is not None and table.game.colour.value == "G"


def test_nm14_wild_from_the_list_asks_for_the_colour() -> None:
    table = rigged(
        {
            "players": [{"hand": ["W+6", "R1", "G2"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["Y5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        assert "play  ✱ Wild +6  … choose a colour" in screen_text(app)
        await choose(pilot, table, "play W+6 B")
        assert "naming blue" in log_text(app)
        assert "Colour: ♠ blue" in screen_text(app)

    run(slow(table), script)


def test_an_action_chosen_with_the_mouse() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "R2", "G5"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy"],
    )
    second = str(action_groups(table.legal_actions(0))[1][0])

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.click("#actions", offset=(4, 2))  # the second entry (row 0 is the border)
        await pilot.pause()
        assert f"P0: {second}" in log_text(app)

    run(slow(table), script)


def test_illegal_typed_action_is_refused_and_game_unchanged() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "G2"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["Y5"],
        },
        [None, "greedy"],
    )
    before = table.game.to_position()

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await type_action(pilot, "play G2")
        assert "Not allowed" in screen_text(app)
        await type_action(pilot, "fly away")
        assert "Not allowed" in screen_text(app) and "unknown action" in screen_text(app)

    run(slow(table), script)
    assert table.game.to_position() == before


def test_nm31_seven_target_chosen_with_arrows() -> None:
    table = rigged(
        {
            "players": [
                {"hand": ["R7", "B1", "G5"]},
                {"hand": ["Y1", "Y2", "Y3", "Y4"]},
                {"hand": ["B8", "B9"]},
            ],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy", "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        assert "play  ♥ 7  … choose a player to swap with" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert "swap with P2 (2 cards)" in screen_text(app)
        await pilot.press("escape")  # back to the list: nothing played
        await pilot.pause()
        assert table.game.history == []
        await choose(pilot, table, "play R7 2")
        assert "P0: play R7 2" in log_text(app)
        assert "Your hand (2)" in screen_text(app)

    run(slow(table), script)
    assert sorted(c.code for c in table.game.hands[0]) == ["B8", "B9"]


def test_nm16_nm17_pending_stack_shown_stacked_then_absorbed_with_d() -> None:
    table = rigged(
        {
            "players": [
                {"hand": ["W+6", "R1", "G2", "B7"]},
                {"hand": ["R+2", "Y1", "Y2"]},
            ],
            "turn": 0,
            "discard": ["R3", "R+2"],
            "pending": {"total": 2, "last": 2},
            "draw_pile": ["G1", "G3", "G4", "G6", "G7", "G8", "G9", "B1", "B2", "B3", "B4"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        assert "Pending stack: total 2, last +2" in screen_text(app)
        await type_action(pilot, "play W+6 B")
        assert "P0 stacks Wild +6" in log_text(app)

    run(fast(table), script)
    # the bot cannot stack a +2 on a +6: it absorbed 8 and lost the turn
    assert "draws 8" in "\n".join(e["text"] for e in table.game.public_history())

    absorbing = rigged(
        {
            "players": [{"hand": ["R1", "G2"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R3", "W+6"],
            "colour": "R",
            "pending": {"total": 6, "last": 6},
            "draw_pile": ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8", "Y9"],
        },
        [None, "greedy"],
    )

    async def absorb(app: NomercyApp, pilot: Pilot[Any]) -> None:
        assert "draw: take the penalty (total 6, last +6)" in screen_text(app)
        await pilot.press("d")
        await pilot.pause()
        assert "P0 draws 6" in log_text(app)
        assert "Your hand (8)" in screen_text(app)

    run(slow(absorbing), absorb)


def test_nm30_roulette_victim_names_the_colour() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "R2"]}, {"hand": ["WCR", "B9", "B8"]}],
            "turn": 1,
            "discard": ["Y5"],
            "draw_pile": ["R4", "Y6", "G3", "B2", "B3", "B4"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.pause()
        text = screen_text(app)
        assert "Your turn (roulette colour)" in text
        assert "name colour ♣ green" in text
        await type_action(pilot, "colour G")
        assert "P0: colour G" in log_text(app)
        assert "Your hand (5)" in screen_text(app)

    run(fast(table), script)
    assert sorted(c.code for c in table.game.hands[0]) == ["G3", "R1", "R2", "R4", "Y6"]


def test_nm37_uno_called_with_u_between_bot_moves() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "R2"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("u")  # two cards: nothing to call yet
        assert "No UNO to call now" in screen_text(app)
        await type_action(pilot, "play R1")
        await pilot.press("escape", "u")
        await pilot.pause()
        assert "P0: 0:uno" in log_text(app)
        assert table.game.uno_called[0]

    run(slow(table), script)


def test_nm37_uno_called_with_the_play_from_the_list() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "B2"]}, {"hand": ["B1", "B4", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        assert "play  ♥ 1  … choose UNO or not" in screen_text(app)
        await choose(pilot, table, "play R1 uno")
        assert isinstance(app.screen, TableScreen)
        assert "P0: play R1 uno" in log_text(app)

    run(slow(table), script)
    assert table.game.uno_called[0]


def test_nm37_bot_catches_the_human_who_forgot_uno() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "R2"]}, {"hand": ["B1", "B4", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "random"],  # a random bot still catches: the table's bots all do
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await type_action(pilot, "play R1")
        assert "P1: 1:catch 0" in log_text(app)
        assert "Your hand (3)" in screen_text(app)

    run(fast(table), script)


def test_nm37_human_catches_a_bot_that_forgot_uno() -> None:
    table = rigged(
        {
            "players": [{"hand": ["G1", "G2", "G3"]}, {"hand": ["R3", "R4"]}],
            "turn": 1,
            "discard": ["R5"],
            "draw_pile": ["Y1", "Y2", "Y3", "Y4", "Y6"],
        },
        [None, "greedy"],
        forget=1.0,
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.pause()
        text = screen_text(app)
        assert "(1 card, no UNO!)" in text
        assert "catch P1: they did not call UNO" in text
        await type_action(pilot, "catch 1")
        assert "P0: 0:catch 1" in log_text(app)
        assert "P1: 3 cards" in screen_text(app)

    run(fast(table), script)


def test_nm33_knockout_shown_and_game_goes_on() -> None:
    table = rigged(
        {
            "players": [
                {"hand": ["W+10", "R1", "R2"]},
                {"hand": [f"B{n}" for n in range(1, 10)] * 2 + ["G1", "G2"]},
                {"hand": ["Y7", "Y8", "Y9"]},
            ],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy", "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await type_action(pilot, "play W+10 R")
        text = screen_text(app)
        assert "1 P1: OUT" in text
        assert "knocked out" in log_text(app)
        assert "Your turn" in text  # the game goes on between P0 and P2

    run(fast(table), script)
    assert table.game.out[1]


def test_bots_move_one_at_a_time_at_the_set_speed() -> None:
    """After the human's move the bots wait for a timer of the set speed, and each tick plays
    one bot action. The ticks are fired by the test, not by the clock: the check holds
    however slowly the machine runs (a real 1 s timer once fired before the presses landed)."""
    table = Table.new(3, bots=["greedy"], human=0, seed=1)
    speed = 3600.0  # never fires during the test

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("enter", "enter")  # W+10, then its first colour
        await pilot.pause()
        assert len(table.game.history) == 1  # the bots wait for their timer
        screen = app.screen
        assert isinstance(screen, TableScreen)
        seen = [len(table.game.history)]
        for _ in range(40):
            timer = screen._timer
            assert timer is not None and timer._interval == speed  # the set speed
            screen._tick()  # what the timer does when it fires
            await pilot.pause()
            seen.append(len(table.game.history))
            if table.game.to_act == 0:
                break
        assert table.game.to_act == 0
        assert "P1: " in log_text(app)
        # one bot action per tick: the count went up by one each time, never all at once
        assert seen == list(range(seen[0], seen[0] + len(seen)))
        assert len(seen) > 2

    run(PlayConfig(table=table, human=0, speed=speed), script)


def test_nm33_nm40_human_knocked_out_bots_finish_and_bonus_is_scored() -> None:
    table = rigged(
        {
            "players": [
                {"hand": [f"B{n}" for n in range(1, 10)] * 2 + ["G1", "G2"]},
                {"hand": ["Y7", "Y8", "Y9"]},
                {"hand": ["R7", "R8", "R9", "G9"]},
            ],
            "turn": 0,
            "discard": ["R3", "W+6"],
            "colour": "R",
            "pending": {"total": 6, "last": 6},
        },
        [None, "greedy", "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, HandOverScreen)
        text = screen_text(app)
        assert "GAME OVER" in text
        assert "last player standing" in text
        # a single hand is not scored: no points, no totals; who holds what instead
        assert "Points" not in text and "bonus" not in text and "totals" not in text
        assert "P0: knocked out" in text and "P1: knocked out" in text
        assert f"P2: {len(table.game.hands[2])} cards left" in text
        await pilot.press("q")
        await pilot.pause()

    app = run(fast(table), script)
    assert table.game.out[0] and table.game.is_over
    assert str(app.return_value).startswith("Goodbye (seed ")


# ---------------------------------------------------------------------- whole games
async def play_first_actions(app: NomercyApp, pilot: Pilot[Any], limit: int = 2000) -> str:
    """Press enter (first legal action) until the results panel says the game is over."""
    for _ in range(limit):
        screen = app.screen
        if isinstance(screen, HandOverScreen):
            text = screen_text(app)
            if screen.summary.match_over:
                return text
            await pilot.press("enter")
        else:
            await pilot.press("enter")
        await pilot.pause()
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("preset", "players"), [("no-mercy", 3), ("classic", 4)])
def test_nm38_cl10_full_game_by_keys_to_the_end_screen(
    preset: str, players: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table.new(players, bots=["greedy"], human=0, rules=preset, seed=3, uno_forget=0.2)
    texts: list[str] = []

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        texts.append(await play_first_actions(app, pilot))
        texts.append(log_text(app))
        await pilot.press("enter")
        await pilot.pause()

    app = run(fast(table, save_dir=tmp_path), script)
    end = texts[0]
    assert "wins the hand:" in end and "GAME OVER" in end
    assert "emptied their hand" in end or "last player standing" in end
    assert "Record saved to" in end
    # the log keeps other seats' cards hidden: their secret texts never appear
    shown = texts[1]
    secret = [e for e in table.game.log if e.secret and e.seat != 0]
    assert secret
    for event in secret:
        assert event.text not in shown
        assert event_words(event.public_text) in shown
    # the finished game is a record that `nomercy replay` narrates
    (saved,) = tmp_path.glob("nomercy-game-*.json")
    assert app.return_value == f"Game saved to {saved} (`nomercy replay {saved}`)"
    record = GameRecord.loads(saved.read_text())
    assert record.replay().to_position() == table.game.to_position()
    capsys.readouterr()
    assert main(["replay", str(saved)]) == 0
    assert "Result:" in capsys.readouterr().out


def test_nm40_nm41_match_shows_points_totals_and_next_hand() -> None:
    table = Table.new(
        2,
        bots=["greedy"],
        human=0,
        options={"scoring_enabled": True, "score_target": 300},
        seed=1,
    )
    panels: list[str] = []

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        for _ in range(3000):
            screen = app.screen
            if isinstance(screen, HandOverScreen):
                panels.append(screen_text(app))
                if screen.summary.match_over:
                    return
            await pilot.press("enter")
            await pilot.pause()
        raise AssertionError("the match did not end")

    run(fast(table), script)
    assert len(panels) >= 2
    assert "[enter]: next hand" in panels[0]
    assert "Running totals:" in panels[0] and "Points:" in panels[0]
    assert "GAME OVER" in panels[-1]
    assert max(table.game.scores) >= 300


# ---------------------------------------------------------------------- saving
def test_quit_saves_and_resume_gives_the_same_position(tmp_path: Path) -> None:
    table = Table.new(3, bots=["greedy", "random"], human=0, seed=5)
    before: list[str] = []

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        for _ in range(3):
            await pilot.press("enter")
            await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        assert "nomercy-saved-seed5-" in screen_text(app)
        before.extend(table_screen(app).log_lines)
        await pilot.press("y")
        await pilot.pause()

    app = run(fast(table, save_dir=tmp_path), script)
    (path,) = tmp_path.glob("nomercy-saved-seed5-*.json")
    assert app.return_value == (
        f"Game saved to {path}: `nomercy play --resume {path}` continues it"
    )
    position = table.game.to_position()

    args = build_parser().parse_args(["play", "--resume", str(path), "--fast"])
    from nomercy.cli.main import _play_config

    config = _play_config(args)
    assert config.table.game.to_position() == position
    assert config.table.meta["seats"] == ["human", "greedy", "random"]

    async def resumed(app: NomercyApp, pilot: Pilot[Any]) -> None:
        text = screen_text(app)
        assert f"Your hand ({len(table.game.hands[0])})" in text
        log = log_text(app)
        assert "Resumed after" in log
        # the log is the one the player had: every action's header, the own drawn cards
        assert "P0: play" in log
        for line in before[1:]:
            assert line in log

    run(config, resumed)


def test_a_second_quit_save_does_not_overwrite_the_first(tmp_path: Path) -> None:
    saved: list[str] = []
    for _ in range(2):
        table = Table.new(2, bots=["greedy"], human=0, seed=7)

        async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
            await pilot.press("q")
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()

        saved.append(str(run(fast(table, save_dir=tmp_path), script).return_value))
    files = sorted(tmp_path.glob("nomercy-saved-seed7-*.json"))
    assert len(files) == 2 and saved[0] != saved[1]
    assert {f"Game saved to {f}: `nomercy play --resume {f}` continues it" for f in files} == set(
        saved
    )


def test_quit_escape_keeps_playing() -> None:
    table = Table.new(2, bots=["greedy"], human=0, seed=1)

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)

    run(fast(table), script)


# ---------------------------------------------------------------------- command line
def test_play_bad_option_exits_2_with_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--option", "no_such_option=1"]) == 2
    err = capsys.readouterr().err
    assert "nomercy play: error: unknown option 'no_such_option'" in err


def test_play_bad_option_value_and_bad_seats_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--option", "mercy_threshold=lots"]) == 2
    assert "mercy_threshold" in capsys.readouterr().err
    assert main(["play", "--players", "3", "--bots", "greedy,random,random"]) == 2
    assert "3 bots listed for 2 bot seats" in capsys.readouterr().err
    assert main(["play", "--players", "3", "--seat", "3"]) == 2
    assert "seat 3" in capsys.readouterr().err
    assert main(["play", "--bot-uno-forget", "2"]) == 2
    assert "--bot-uno-forget" in capsys.readouterr().err


def test_play_flags_build_the_table() -> None:
    from nomercy.cli.main import _play_config

    args = build_parser().parse_args(
        [
            "play",
            "--players",
            "3",
            "--bots",
            "random,greedy",
            "--seat",
            "1",
            "--preset",
            "classic",
            "--match",
            "--seed",
            "9",
            "--speed",
            "0.1",
            "--option",
            "score_target=200",
        ]
    )
    config = _play_config(args)
    game = config.table.game
    assert (game.n, game.seed, game.rules.preset) == (3, 9, "classic")
    assert game.rules.scoring_enabled and game.rules.score_target == 200
    assert config.human == 1 and config.speed == 0.1 and not config.fast
    assert config.table.meta["seats"] == ["random", "human", "greedy"]


def test_play_help_documents_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = capsys.readouterr().out
    for flag in (
        "--players",
        "--bots",
        "--seat",
        "--preset",
        "--option",
        "--match",
        "--seed",
        "--deal-version",
        "--speed",
        "--fast",
        "--bot-uno-forget",
        "--resume",
        "--save-dir",
    ):
        assert flag in out


def test_play_command_runs_the_app_and_prints_its_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[PlayConfig] = []

    def fake_run(self: NomercyApp) -> str:
        seen.append(self.config)
        return "Game saved to somewhere.json"

    monkeypatch.setattr(NomercyApp, "run", fake_run)
    assert main(["play", "--players", "2", "--fast", "--seed", "4"]) == 0
    assert capsys.readouterr().out.strip() == "Game saved to somewhere.json"
    (config,) = seen
    assert config.fast and config.table.game.seed == 4 and config.table.humans == [0]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--speed", "nan"], "--speed must be a number >= 0, got nan"),
        (["--save-dir", __file__], "not a directory"),  # a file, not a directory
        (["--match", "--option", "scoring_enabled=false"], "not with scoring_enabled=false"),
        (["--bots", "ismcts:budget=3"], "bad parameters"),
    ],
)
def test_play_refuses_bad_flags_before_the_app_opens(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.setattr(NomercyApp, "run", lambda self: pytest.fail("the app opened"))
    assert main(["play", *argv]) == 2
    assert message in capsys.readouterr().err


def test_resume_rejects_a_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"hello": 1}))
    assert main(["play", "--resume", str(bad)]) == 2
    assert "not a nomercy game record" in capsys.readouterr().err
    bad.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["play", "--resume", str(bad)]) == 2
    assert "not a saved game (not UTF-8 text" in capsys.readouterr().err


def test_resume_refuses_a_game_of_several_people(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table.new(3, bots=["greedy"], human=0, seed=5)
    data = json.loads(table.dumps())
    data["result"]["table"]["seats"] = ["human", "human", "greedy"]
    path = tmp_path / "two.json"
    path.write_text(json.dumps(data))
    assert main(["play", "--resume", str(path)]) == 2
    assert "seats 0, 1 are people; the terminal app plays one" in capsys.readouterr().err


# ---------------------------------------------------------------------- reading the table
def test_cards_are_drawn_as_faces_and_the_notation_is_in_the_box_and_the_help() -> None:
    hand = ["YSE", "WCR", "BDA", "WR+4", "GS", "R7", "Y+2"]
    table = rigged(
        {
            "players": [{"hand": hand}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["Y5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        text = screen_text(app)
        first = str(action_groups(table.legal_actions(0))[0][0])
        # the table, the hand and the move list (the typed box shows the notation)
        top = text.split(f"{first}: the highlighted move")[0]
        for face in ["★ Skip Everyone", "✱ Colour Roulette", "♠ Discard All"]:
            assert face in top
        for face in ["✱ Wild Reverse +4", "♣ Skip", "♥ 7", "★ +2"]:
            assert face in top
        for code in hand:  # no notation in the hand or the list
            assert f" {code} " not in top and f"{code}\n" not in top
        assert "♥ red  ★ yellow  ♣ green  ♠ blue  ✱ wild" in text
        # the typed box shows the highlighted move's notation, first
        assert f"{first}: the highlighted move" in text
        await pilot.press("down")
        await pilot.pause()
        second = str(action_groups(table.legal_actions(0))[1][0])
        assert f"{second}: the highlighted move" in screen_text(app)
        # ? shows the notation of every card in the hand
        await pilot.press("question_mark")
        await pilot.pause()
        help_text = screen_text(app)
        assert "Card notation" in help_text
        for words in ["yellow Skip Everyone (YSE)", "Colour Roulette (WCR)", "red 7 (R7)"]:
            assert words in help_text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)

    run(slow(table), script)


def test_a_card_reads_in_monochrome() -> None:
    console = Console(width=80, file=io.StringIO(), no_color=True, record=True)
    console.print(card_text("R7"), card_text("WR+4"), card_text("GSE"))
    plain = console.export_text().replace("\u00a0", " ")
    assert "♥ 7" in plain and "✱ Wild Reverse +4" in plain and "♣ Skip Everyone" in plain


def test_play_deals_a_fresh_random_seed_and_shows_it(tmp_path: Path) -> None:
    from nomercy.cli.main import _play_config

    seeds = set()
    for _ in range(3):
        args = build_parser().parse_args(["play", "--fast", "--save-dir", str(tmp_path)])
        seeds.add(_play_config(args).table.game.seed)
    assert len(seeds) > 1  # three draws from a million seeds
    config = _play_config(build_parser().parse_args(["play", "--fast", "--seed", "31"]))
    assert config.table.game.seed == 31

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        assert "seed 31" in log_text(app).splitlines()[0]
        await pilot.press("q", "n")
        await pilot.pause()

    app = run(config, script)
    assert "nomercy play --seed 31" in str(app.return_value)


def test_after_a_typed_action_the_keys_work_again() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "R2", "G5"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("i")
        await pilot.pause()
        assert "esc Back to the list" in screen_text(app)
        await pilot.press(*"play R1", "enter")
        await pilot.pause()
        assert "P0: play R1" in log_text(app)
        assert isinstance(app.focused, ActionList)
        assert "q Quit" in screen_text(app)
        # it is P0's turn again (the slow bot has not moved: P1's turn); enter on an empty
        # box goes back to the list too
        await pilot.press("i", "enter")
        await pilot.pause()
        assert isinstance(app.focused, ActionList)

    run(slow(table), script)


def test_nm8_d_says_why_drawing_is_not_allowed_and_is_not_offered() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "G2"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        # The footer is drawn (its Quit key shows) before reading what it offers.
        await until(pilot, lambda: "q Quit" in screen_text(app))
        assert "d Draw" not in screen_text(app)  # not in the footer
        await pilot.press("d")
        await until(pilot, lambda: "You cannot draw now" in screen_text(app))
        text = screen_text(app)
        assert "You cannot draw now: you hold a playable card" in text
        assert "[NM-8, A03]" in text
        assert table.game.history == []

    run(slow(table), script)

    drawing = rigged(
        {
            "players": [{"hand": ["G1", "G2"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["Y1", "R2", "Y3"],
        },
        [None, "greedy"],
    )

    async def draws(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: "d Draw" in screen_text(app))
        await pilot.press("d")
        await until(pilot, lambda: "P0: draw" in log_text(app))

    run(slow(drawing), draws)


def test_players_panel_lists_everyone_turn_uno_and_known_cards_uncut() -> None:
    mine = ["R7", "B1", "B2", "B3", "B4", "B5", "B6", "G1", "G2", "G3", "G4", "G5", "Y1"]
    table = rigged(
        {
            "players": [
                {"hand": mine},
                {"hand": ["Y1", "Y2", "Y3", "Y4"]},
                {"hand": ["B8", "B9"]},
            ],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy", "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        text = screen_text(app)
        assert "▶ 0 P0 (you): 13 cards" in text
        assert "  1 P1: 4 cards" in text and "  2 P2: 2 cards" in text
        await choose(pilot, table, "play R7 2")
        text = screen_text(app)
        assert "▶ 1 P1: 4 cards" in text
        assert "2 P2: 12 cards" in text
        panel = text.split("Your hand")[0]
        assert "known:" in panel
        # every one of the 12 known cards is drawn whole (wrapped between cards, not cut)
        for code in mine[1:]:
            assert card_text(code).plain.replace("\u00a0", " ") in panel

    app = NomercyApp(slow(table))

    async def go() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.pause()
            await script(app, pilot)

    asyncio.run(go())


def test_the_uno_state_is_in_the_players_panel() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "R2"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await choose(pilot, table, "play R1 uno")
        assert "0 P0 (you): 1 card UNO called" in screen_text(app)

    run(slow(table), script)


def test_cl7_classic_shows_no_pending_stack() -> None:
    table = Table.new(3, bots=["greedy"], human=0, rules="classic", seed=2)

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        text = screen_text(app)
        assert "Pending stack" not in text
        assert "Mercy" not in text  # classic has no Mercy rule either

    run(slow(table), script)
    stacking = Table.new(
        3, bots=["greedy"], human=0, rules="classic", options={"classic_stacking": True}, seed=2
    )

    async def shown(app: NomercyApp, pilot: Pilot[Any]) -> None:
        assert "Pending stack: none" in screen_text(app)

    run(slow(stacking), shown)


# ---------------------------------------------------------------------- warnings
def test_nm24_a28_wild_reverse_four_into_a_two_player_stack_warns_you_are_the_target() -> None:
    # A28 "self" (the default, "opponent", sends a stacked Wild Reverse +4 on to the opponent).
    table = rigged(
        {
            "rules": {"preset": "no-mercy", "options": {"wrd4_two_player_in_stack": "self"}},
            "players": [
                {"hand": ["WR+4"] + [f"B{n}" for n in range(1, 10)] + ["G1", "G2"]},
                {"hand": ["Y1", "Y2", "Y3"]},
            ],
            "turn": 0,
            "discard": ["R3", "R+4"],
            "pending": {"total": 12, "last": 4},
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        assert "⚠" in screen_text(app)
        text = list_text(app)
        assert "⚠ you become the target: the whole 16-card penalty is yours" in text
        assert "[NM-24, A28]" in text
        # holding nothing to stack again, 11 + 16 cards knock you out
        assert "taking 16 reaches the 25-card Mercy limit and knocks you out" in text
        # taking the 12 now: 12 + 12 = 24 cards, one short of the limit: no warning
        assert "draw: take the penalty (total 12, last +4)" in text
        assert "Mercy limit: you are knocked out" not in text

    run(slow(table), script)


def test_nm33_taking_a_penalty_that_knocks_you_out_is_marked() -> None:
    table = rigged(
        {
            "players": [
                {"hand": [f"B{n}" for n in range(1, 10)] * 2 + ["G1", "G2"]},
                {"hand": ["Y1", "Y2", "Y3"]},
            ],
            "turn": 0,
            "discard": ["R3", "W+6"],
            "colour": "R",
            "pending": {"total": 6, "last": 6},
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        text = list_text(app)
        assert "⚠ taking 6 cards reaches the 25-card Mercy limit: you are knocked out" in text

    run(slow(table), script)


def test_nm31_a_seven_that_gives_you_a_big_hand_is_marked_in_the_target_choice() -> None:
    table = rigged(
        {
            "players": [
                {"hand": ["R7", "B1", "G5"]},
                {"hand": [f"Y{n}" for n in range(1, 10)] * 2 + ["G1", "G2"]},
                {"hand": ["B8", "B9"]},
            ],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy", "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("enter")
        await pilot.pause()
        text = screen_text(app)
        assert "⚠ this 7 gives you a 20-card hand (P1 gets your 2) [NM-31]" in text
        line = next(x for x in text.splitlines() if "swap with P2" in x)
        assert "⚠" not in line  # a swap for 2 cards is no surprise

    run(slow(table), script)


# ---------------------------------------------------------------------- the coach
async def ask_hint(app: NomercyApp, pilot: Pilot[Any]) -> None:
    """Press h and wait for the coach's search (a worker thread) to finish."""
    await pilot.press("escape", "h")
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def test_h_shows_the_coach_hint_without_playing_it() -> None:
    table = rigged(
        {
            "players": [
                {"hand": ["R+2", "G1", "Y3", "B7"]},
                {"hand": ["Y1", "Y2", "B4"]},
            ],
            "turn": 0,
            "discard": ["R3", "R+2"],
            "pending": {"total": 2, "last": 2},
            "draw_pile": ["G3", "G4", "G6", "G7", "G8", "G9", "B1", "B2", "B3", "Y4", "Y5"],
        },
        [None, "greedy"],
    )
    moves = len(table.game.history)

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await ask_hint(app, pilot)
        screen = table_screen(app)
        hint = screen.last_hint
        assert hint is not None
        assert hint.action in table.legal_actions(0)
        text = screen_text(app)
        assert "Hint: " in text
        assert f"estimated chance to win the hand: {round(100 * (hint.chance or 0))}%" in text
        assert f"why: {hint.reason.text}"[:60] in text
        # Nothing was played, and the hinted move is highlighted: enter plays it.
        assert len(table.game.history) == moves
        group = next(g for g in action_groups(table.legal_actions(0)) if hint.action in g)
        assert len(group) == 1  # a stack or a draw: one action per entry here
        assert screen.query_one(ActionList).highlighted_notation() == str(hint.action)
        await pilot.press("enter")
        await pilot.pause()
        assert table.game.history[moves] == hint.action
        # The hint of a past moment disappears once the game moves on.
        assert "Hint: " not in screen_text(app)

    run(slow(table), script)


def test_h_is_deterministic_and_the_stack_reason_names_the_target() -> None:
    position = {
        "players": [{"hand": ["R+2", "G1", "Y3", "B7"]}, {"hand": ["Y1", "Y2", "B4"]}],
        "turn": 0,
        "discard": ["R3", "R+2"],
        "pending": {"total": 2, "last": 2},
        "draw_pile": ["G3", "G4", "G6", "G7", "G8", "G9", "B1", "B2", "B3", "Y4", "Y5"],
        "seed": 99,
    }
    hints = []
    for _ in range(2):
        table = rigged(position, [None, "greedy"])

        async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
            await ask_hint(app, pilot)
            hints.append(table_screen(app).last_hint)

        # A budget the time cap never cuts short: the same moment gets the same hint.
        config = PlayConfig(table=table, human=0, speed=3600.0, hint_iterations=300)
        config.hint_max_time = 600.0
        run(config, script)
    first, second = hints
    assert first is not None and second is not None
    assert first.action == second.action and first.reason == second.reason
    assert str(first.action) in ("play R+2", "draw")
    if str(first.action) == "play R+2":
        assert first.reason.text.startswith("stacking passes the 4-card penalty on to P1")


def test_h_when_it_is_not_your_turn_says_so() -> None:
    table = rigged(
        {
            "players": [{"hand": ["G1", "Y3", "B7"]}, {"hand": ["Y1", "Y2", "B4"]}],
            "turn": 1,
            "discard": ["R3"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await ask_hint(app, pilot)
        assert "No hint now: it is not your turn" in screen_text(app)
        assert table_screen(app).last_hint is None

    run(slow(table), script)


# ---------------------------------------------------------------------- 80x24 (issue 27)
SMALL = (80, 24)


def flat(text: str) -> str:
    """Screen text with its lines joined (a warning wraps at 80 columns)."""
    return " ".join(text.split())


def test_a_warning_is_in_full_view_at_80x24() -> None:
    hand = [f"B{n}" for n in range(1, 10)] * 2 + ["G1", "G2", "G3", "G4"]
    table = rigged(
        {
            "players": [{"hand": hand}, {"hand": ["Y1", "Y2", "Y3"]}],
            "turn": 0,
            "discard": ["R3", "R+2"],
            "pending": {"total": 4, "last": 2},
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: "⚠ draw" in screen_text(app))
        text = flat(screen_text(app))
        assert (
            "⚠ draw: take the penalty: taking 4 cards reaches the 25-card Mercy limit: you are "
            "knocked out [NM-33]"
        ) in text
        assert "q Quit" in text  # the footer is still there: the warning fits above it

    run(slow(table), script, size=SMALL)


def test_at_80x24_the_other_warned_moves_are_named() -> None:
    table = rigged(
        {
            "players": [
                {"hand": ["R0", "R3", "G1"]},
                {"hand": ["Y1", "Y2"]},
                {"hand": ["B1"]},
            ],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy", "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: "⚠" in screen_text(app))
        text = flat(screen_text(app))
        assert table_screen(app).query_one(ActionList).highlighted_group()[0].card.code == "R0"  # type: ignore[attr-defined]
        assert "⚠ play ♥ 0 : this 0 passes every hand on: you get P2's only card [NM-29]" in text
        await pilot.press("down")  # another move highlighted: the 0 is still named, with why
        await until(pilot, lambda: "⚠ also play ♥ 0" in flat(screen_text(app)))
        assert "⚠ also play ♥ 0 : this 0 passes every hand on" in flat(screen_text(app))
        # one card, not "1 cards"
        assert "1 cards" not in text

    run(slow(table), script, size=SMALL)


def test_a_question_mark_in_the_action_box_opens_the_help() -> None:
    table = Table.new(2, bots=["greedy"], human=0, seed=3)

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("i", "question_mark")
        await until(pilot, lambda: not isinstance(app.screen, TableScreen))
        assert "Card notation" in screen_text(app)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TableScreen))
        text = screen_text(app)
        assert "unknown action" not in text and "Not allowed" not in text
        assert table_screen(app).query_one("#entry").value == ""  # type: ignore[attr-defined]

    run(slow(table), script, size=SMALL)


def _classic_wild_four() -> tuple[Table, int]:
    """Classic, played by first legal actions until a Wild +4 waits (seed 30); the seat that
    faces it is the human's."""
    from nomercy import new_game

    game = new_game(2, rules="classic", seed=30)
    while not game.view(game.to_act).wd4_challengeable:
        game.apply(str(game.legal_actions(game.to_act)[0]))
    seat = game.to_act
    position = Game.from_position(game.to_position())
    bots = [None if s == seat else SeatBot(make_bot("greedy", seed=s), seed=s) for s in range(2)]
    return Table(position, bots), seat


def test_classic_wild_four_speaks_classic_and_highlights_taking_at_80x24() -> None:
    table, seat = _classic_wild_four()

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: "Your turn" in screen_text(app))
        text = flat(screen_text(app))
        assert "Your turn (challenge or take)" in text
        assert "Penalty: 4 cards to take" in text
        assert "stack" not in text.lower()
        # Taking the cards is the first entry; the challenge names what failing costs.
        assert table_screen(app).query_one(ActionList).highlighted_notation() == "draw"
        assert "draw: take the 4 cards" in text
        assert "if the challenge fails you draw 6 cards instead of 4 [CL-8]" in flat(list_text(app))
        assert "⚠ also challenge the Wild +4: if the challenge fails you draw 6" in text
        hand = len(table.game.hands[seat])
        await pilot.press("enter")
        await until(pilot, lambda: len(table.game.history) > 0)
        assert str(table.game.history[-1]) == "draw"
        assert len(table.game.hands[seat]) == hand + 4

    run(PlayConfig(table=table, human=seat, speed=3600.0), script, size=SMALL)


def test_event_words_count_cards_in_english() -> None:
    assert (
        event_words("P1 draws 1 until a playable card and must play it [NM-9]")
        == "P1 draws 1 card, a playable one, and must play it [NM-9]"
    )
    assert (
        event_words("P1 draws 3 until a playable card and may play it [NM-9]")
        == "P1 draws 3 cards until a playable one and may play it [NM-9]"
    )
    assert event_words("P1 plays red 7 [NM-6]") == "P1 plays red 7 [NM-6]"


# ---------------------------------------------------------------------- wording (issue 45)
def test_the_quit_message_gives_the_full_command_that_deals_the_game_again() -> None:
    from nomercy.cli.main import _play_config

    argv = ["play", "--fast", "--seed", "12", "--preset", "classic", "--players", "3"]
    config = _play_config(build_parser().parse_args(argv))
    dealt = config.table.game.to_position()

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("q", "n")
        await pilot.pause()

    app = run(config, script)
    command = "nomercy play --seed 12 --preset classic --players 3"
    assert f"`{command}` deals this game again" in str(app.return_value)
    # The command deals the same game with the same seats: every flag that is not a default.
    again = _play_config(build_parser().parse_args([*command.split()[1:], "--fast"]))
    assert again.table.game.to_position() == dealt
    assert again.table.kinds == config.table.kinds
    argv = ["play", "--seed", "5", "--players", "3", "--bots", "hard,random", "--seat", "1",
            "--match", "--option", "stack_threshold=running_total",
            "--bot-uno-forget", "0.5"]  # fmt: skip
    table = _play_config(build_parser().parse_args(argv)).table
    assert play_command(table, 1) == (
        "nomercy play --seed 5 --players 3 --match --option stack_threshold=running_total "
        "--bots ismcts,random --seat 1 --bot-uno-forget 0.5"
    )


@pytest.mark.parametrize("preset", ["classic", "no-mercy"])
def test_the_help_lists_this_game_s_cards_and_actions(preset: str) -> None:
    from nomercy.tui.render import notation_help

    table = Table.new(2, bots=["greedy"], human=0, rules=preset, seed=3)
    cards, actions = notation_help(table.rules)
    if preset == "classic":  # CL-1: no No Mercy cards; a Wild +4 may be challenged (CL-8)
        for code in ("SE Skip Everyone", "DA Discard All", "W+6", "WCR", "+4,"):
            assert code not in cards, code
        assert "play W+4 G (a wild names its colour)" in actions
        assert "challenge (a Wild +4)" in actions and "play R7 2" not in actions
    else:
        assert "SE Skip Everyone" in cards and "WCR Colour Roulette" in cards
        assert "play W+6 G (a wild names its colour)" in actions
        assert "play R7 2 (a 7 swaps with seat 2)" in actions and "challenge" not in actions
    example = "play W+4 G" if preset == "classic" else "play W+6 G"

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("question_mark")
        await until(pilot, lambda: "Card notation" in screen_text(app))
        text = flat(screen_text(app))
        assert example in text
        assert ("W+6" in text) is (preset != "classic")

    run(slow(table), script)


def test_at_80x24_the_box_shows_the_highlighted_notation_whole() -> None:
    table = rigged(
        {
            "players": [{"hand": ["W+6", "R1", "G5"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        for _ in range(3):
            notation = table_screen(app).query_one(ActionList).highlighted_notation()
            assert notation
            await until(pilot, lambda n=notation: f"{n}: the highlighted" in screen_text(app))
            await pilot.press("down")

    run(slow(table), script, size=SMALL)


def test_the_colour_picker_says_a_shared_warning_once() -> None:
    """A Wild Reverse +4 with two players comes back to its player (NM-24) whatever colour it
    names: the warning is said once above the four colours, not on each."""
    table = rigged(
        {
            "players": [{"hand": ["WR+4", "R1", "G5"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["Y5"],
        },
        [None, "greedy"],
    )
    warning = "you become the target of its 4-card penalty unless you stack again"

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        groups = action_groups(table.legal_actions(0))
        index = next(i for i, g in enumerate(groups) if str(g[0]).startswith("play WR+4"))
        await pilot.press("escape", *["down"] * index, "enter")
        await until(pilot, lambda: isinstance(app.screen, VariantScreen))
        text = flat(screen_text(app))
        assert text.count(warning) == 1, text
        assert "Wild Reverse +4" in text

    run(slow(table), script, size=SMALL)


def test_a_refused_typed_action_is_selected_so_retyping_replaces_it() -> None:
    table = rigged(
        {
            "players": [{"hand": ["R1", "R2", "G5"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await type_action(pilot, "play R99")
        entry = table_screen(app).query_one("#entry", Input)
        assert "Not allowed" in screen_text(app)
        assert entry.value == "play R99" and entry.selected_text == "play R99"
        await pilot.press("p", "a", "s", "s")  # typing replaces the selection
        await pilot.pause()
        assert entry.value == "pass"

    run(slow(table), script, size=SMALL)


def test_the_log_names_each_bot_by_its_level_with_the_algorithm() -> None:
    table = Table.new(4, bots=["hard", "easy", "random"], human=0, seed=2)

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        first = log_text(app).splitlines()[0]
        assert first.endswith("bots: P1 Hard (ismcts), P2 Easy (greedy), P3 random"), first

    run(slow(table), script)


# ---------------------------------------------------------------------- the rules (issue 45)
def test_r_opens_the_rule_the_last_event_cites_and_rule_id_opens_any() -> None:
    from nomercy.tables import rulebook
    from nomercy.tui.app import RuleScreen

    table = rigged(
        {
            "players": [{"hand": ["R1", "R2", "G5"]}, {"hand": ["B1", "B2", "B3"]}],
            "turn": 0,
            "discard": ["R5"],
        },
        [None, "greedy"],
    )

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("enter")  # play R1 (the first move): the log cites NM-12
        await until(pilot, lambda: "P0: play R1" in log_text(app))
        cited = table_screen(app).last_cited()
        assert "NM-12" in cited  # "P0 plays red 1 [NM-12]"
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RuleScreen))
        text = screen_text(app)
        first = rulebook.rule(cited[0])
        assert f"{first.id} · {first.title}" in text
        assert "The rules the last event cites" in text
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, RuleScreen))
        # Typed: a rule by id, and a card's rules.
        await pilot.press("i", *"rule NM-30", "enter")
        await until(pilot, lambda: isinstance(app.screen, RuleScreen))
        assert "NM-30 · Wild Color Roulette" in screen_text(app)
        assert "v names one of red, yellow, green or blue" in screen_text(app)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, RuleScreen))
        await pilot.press("i", *"rule g7", "enter")
        await until(pilot, lambda: isinstance(app.screen, RuleScreen))
        assert "green 7 (G7): what it does" in screen_text(app)
        assert "NM-31 · 7" in screen_text(app)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, RuleScreen))
        # The help says how (r is not in the footer: an 80-column footer is full).
        await pilot.press("question_mark")
        await until(pilot, lambda: "r: the rules the last event cites" in screen_text(app))
        await pilot.press("escape")
        # An unknown id says so and keeps the box's text.
        await pilot.press("i", *"rule NM-99", "enter")
        await until(pilot, lambda: "no rule 'NM-99' in RULES.md" in screen_text(app), timeout=3)
        assert not isinstance(app.screen, RuleScreen)

    run(slow(table), script)


def test_classic_cards_tell_classic_rules() -> None:
    from nomercy.tui.app import RuleScreen

    table = Table.new(2, bots=["greedy"], human=0, seed=3, rules="classic")

    async def script(app: NomercyApp, pilot: Pilot[Any]) -> None:
        await pilot.press("i", *"rule W+4", "enter")
        await until(pilot, lambda: isinstance(app.screen, RuleScreen))
        text = screen_text(app)
        assert "CL-8 · Wild Draw Four challenge" in text and "NM-" not in text

    run(slow(table), script)
