"""``nomercy play``: the terminal app (Textual) to play No Mercy or classic against bots.

Shape (docs/contributing.md, "Interfaces are thin"): the :class:`TableScreen` owns a
:class:`~nomercy.tables.Table`; its widgets only render the human seat's view (attributes
down) and post messages up (:class:`ActionList.Chosen`); the screen submits actions to the
table and paces the bots with timers (or runs them at once with ``fast``). No rule logic
lives in the widgets: legality, errors and event texts all come from the engine.
"""

from __future__ import annotations

import json
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, OptionList, RichLog, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from nomercy.bots.levels import level_label, level_of
from nomercy.core.actions import Action, CallUno, Draw, Play
from nomercy.core.dealing import DEAL_VERSION, seed_label
from nomercy.core.errors import NoMercyError
from nomercy.core.events import Event, EventKind
from nomercy.core.rules import RuleSet
from nomercy.core.views import PlayerView
from nomercy.tables import Table, rulebook
from nomercy.tables.advice import consequences, draw_refusal
from nomercy.tables.coach import DEFAULT_ITERATIONS, DEFAULT_MAX_TIME, Coach, CoachError, Hint
from nomercy.tables.table import HUMAN, PLAY_UNO_FORGET, HintRefusal
from nomercy.tui.render import (
    COLOUR_LEGEND,
    HandSummary,
    action_groups,
    action_label,
    card_text,
    card_words,
    event_words,
    group_label,
    hand_summary,
    hand_text,
    notation_help,
    players_text,
    status_text,
)

__all__ = [
    "ActionList",
    "HandOverScreen",
    "HelpScreen",
    "NomercyApp",
    "PlayConfig",
    "QuitScreen",
    "TableScreen",
    "VariantScreen",
    "play_command",
]


@dataclass
class PlayConfig:
    """How the app plays: the table, the human seat, the bots' pace and where to save.

    Attributes:
        table: the table to play (new or resumed).
        human: the human seat.
        speed: seconds between two bot actions.
        fast: bots act at once (``speed`` is ignored).
        save_dir: where finished games (and games saved on quitting) are written; ``None``:
            finished games are not saved and a quit-save goes to the current directory.
        resume_path: the file the table was resumed from, if any (saving on quit rewrites it).
        hint_iterations / hint_max_time: the coach's search budget per hint (``h``).
    """

    table: Table
    human: int = 0
    speed: float = 0.6
    fast: bool = False
    save_dir: Path | None = None
    resume_path: Path | None = None
    hint_iterations: int = DEFAULT_ITERATIONS
    hint_max_time: float = DEFAULT_MAX_TIME


def bot_words(kind: str, preset: str) -> str:
    """A bot seat's kind for people: its level with the algorithm (``Hard (ismcts)``), or its
    registry name when no level plays it (``random``, ``ismcts:iterations=50``)."""
    level = level_of(kind, preset)
    return kind if level is None else level_label(level, preset)


def play_command(table: Table, human: int) -> str:
    """The ``nomercy play`` command that deals ``table``'s game again, with the same seats:
    its seed, and every flag that is not the default (the deal version, the preset, the
    players, the rule options, ``--match``, the bots, the human's seat, the bots' UNO
    forgetting).

    >>> play_command(Table.new(3, bots=["greedy"], rules="classic", seed=12), 0)
    'nomercy play --seed 12 --preset classic --players 3 --bot-uno-forget 0'
    """
    rules = table.rules
    parts = ["nomercy", "play", "--seed", str(table.seed)]
    if table.deal_version != DEAL_VERSION:
        parts += ["--deal-version", str(table.deal_version)]
    if rules.preset != "no-mercy":
        parts += ["--preset", rules.preset]
    if table.players != 4:
        parts += ["--players", str(table.players)]
    for name, value in sorted(rules.given.items()):
        if name == "scoring_enabled" and value is True:
            parts.append("--match")
            continue
        shown = json.dumps(value) if isinstance(value, (bool, dict, list)) else str(value)
        parts += ["--option", f"{name}={shown}"]
    bots = [kind for kind in table.kinds if kind != HUMAN]
    if bots and bots != ["greedy"] * len(bots):
        parts += ["--bots", bots[0] if len(set(bots)) == 1 else ",".join(bots)]
    if human != 0:
        parts += ["--seat", str(human)]
    forget = table.meta.get("bot_uno_forget", PLAY_UNO_FORGET)
    if bots and forget != PLAY_UNO_FORGET:
        parts += ["--bot-uno-forget", f"{forget:g}"]
    return " ".join(shlex.quote(p) for p in parts)


# ---------------------------------------------------------------------- widgets
class _CardsPanel(Static):
    """A panel that draws cards: it lays them out for its width (again when resized), so a
    line breaks between two cards, never inside one."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._view: PlayerView | None = None

    def show(self, view: PlayerView) -> None:
        self._view = view
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if self._view is not None:
            width = self.content_size.width or max(self.app.size.width - 4, 20)
            self.update(self.text(self._view, width))

    def text(self, view: PlayerView, width: int) -> Text:
        """The panel's text for ``width`` cells."""
        raise NotImplementedError


class HandView(_CardsPanel):
    """The human's hand, sorted, drawn as cards, with the colour symbols' legend."""

    def text(self, view: PlayerView, width: int) -> Text:
        text = Text(f"Your hand ({len(view.hand)}):", style="bold")
        text.append(f"   {COLOUR_LEGEND}", style="dim")
        text.append("\n")
        text.append_text(hand_text([c.code for c in view.hand], width=width))
        if view.drawn is not None:
            text.append("\njust drawn: ")
            text.append_text(card_text(view.drawn.code))
        return text


class StatusView(Static):
    """Whose turn, top card, colour, direction, pending stack and Mercy distance."""

    def show(self, view: PlayerView, *, scoring: bool) -> None:
        self.update(status_text(view, scoring=scoring))


class PlayersView(_CardsPanel):
    """Every seat (you too): turn marker, hand size, UNO state, out, known cards."""

    def text(self, view: PlayerView, width: int) -> Text:
        return players_text(view, width=width)


class ActionList(OptionList):
    """The human's legal actions, one entry per action or per card with variants.

    Choosing an entry posts :class:`ActionList.Chosen` (one action) or
    :class:`ActionList.Ask` (the variants of one card: colour, 7 target, UNO) up.
    """

    class Chosen(Message):
        """The human picked ``action`` from the list."""

        def __init__(self, action: Action) -> None:
            super().__init__()
            self.action = action

    class Ask(Message):
        """The human picked a card with several variants: one must be chosen."""

        def __init__(self, variants: list[Action]) -> None:
            super().__init__()
            self.variants = variants

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._groups: list[list[Action]] = []
        self._plain: list[str] = []

    def show(self, actions: list[Action], view: PlayerView) -> None:
        """Replace the list with ``actions`` (already legal), highlighting the first.

        The same actions as before leave the list (and the highlight) as it is.
        """
        groups = action_groups(actions)
        labels = [group_label(g, view) for g in groups]
        plain = [label.plain for label in labels]
        if groups == self._groups and plain == self._plain:
            return
        self._groups = groups
        self._plain = plain
        self.clear_options()
        self.add_options([Option(label) for label in labels])
        if self._groups:
            self.highlighted = 0

    def highlight_action(self, action: Action) -> None:
        """Highlight the entry that holds ``action`` (the coach's hint), if any."""
        for index, group in enumerate(self._groups):
            if action in group:
                self.highlighted = index
                return

    def highlighted_group(self) -> list[Action]:
        """The highlighted entry's actions (empty when nothing is highlighted)."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self._groups):
            return []
        return list(self._groups[index])

    def groups(self) -> list[list[Action]]:
        """Every entry's actions, in list order."""
        return [list(g) for g in self._groups]

    def highlighted_notation(self) -> str | None:
        """The notation of the highlighted entry (its first variant), for the typed box."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self._groups):
            return None
        return str(self._groups[index][0])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._groups):
            group = self._groups[event.option_index]
            if len(group) == 1:
                self.post_message(self.Chosen(group[0]))
            else:
                self.post_message(self.Ask(list(group)))


# ---------------------------------------------------------------------- modal screens
class HandOverScreen(ModalScreen[bool]):
    """End of a hand or of the game: winner, how, points, totals. Dismisses True to go on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "next", "Continue"),
        Binding("space", "next", "Continue", show=False),
        Binding("q", "quit_game", "Quit"),
    ]

    def __init__(self, summary: HandSummary, *, saved: str | None = None) -> None:
        super().__init__()
        self.summary = summary
        self.saved = saved

    def compose(self) -> ComposeResult:
        s = self.summary
        lines = [f"{s.winner} wins the hand: {s.how}"]
        if s.scored:
            if s.points is not None:
                lines.append(f"Points: {s.points}")
            lines += [f"  {line}" for line in s.lines]
            if s.totals:
                lines.append("Running totals: " + ", ".join(s.totals))
            lines.append(s.text)
        else:
            lines += [f"  {line}" for line in s.lines]
        if s.match_over:
            who = s.match_winner or s.winner
            lines.append(f"GAME OVER: {who} wins")
            if self.saved:
                lines.append(f"Record saved to {self.saved} (nomercy replay FILE)")
            lines.append("[enter] or [q]: quit")
        else:
            lines.append("[enter]: next hand   [q]: quit")
        with Vertical(id="panel"):
            yield Static("\n".join(lines), id="summary", markup=False)

    def action_next(self) -> None:
        self.dismiss(not self.summary.match_over)

    def action_quit_game(self) -> None:
        self.dismiss(False)


class VariantScreen(ModalScreen[Action | None]):
    """Choose one variant of a card: the wild's colour, the 7's target, UNO or not."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Back")]

    def __init__(self, variants: list[Action], view: PlayerView) -> None:
        super().__init__()
        self.variants = variants
        self.view = view

    def compose(self) -> ComposeResult:
        view = self.view
        warnings = [[a.text for a in consequences(v, view)] for v in self.variants]
        # A warning every variant shares (a Wild +4 coming back, whatever colour it names)
        # is said once above the list; a variant's own warnings stay on its line.
        shared = warnings[0] if warnings and all(w == warnings[0] for w in warnings) else []
        with Vertical(id="panel"):
            yield Static("Choose (enter), or escape to go back:", markup=False)
            if shared:
                yield Static(Text("⚠ " + "; ".join(shared), style="bold yellow"), id="shared")
            labels = [action_label(v, view, warn=not shared) for v in self.variants]
            yield OptionList(*labels, id="variants")

    def on_mount(self) -> None:
        options = self.query_one("#variants", OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.variants[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """The keys, the colour symbols and the card and action notation (for the typed box)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
    ]

    def __init__(self, hand: list[str], rules: RuleSet) -> None:
        super().__init__()
        self.hand = hand
        self.rules = rules

    def compose(self) -> ComposeResult:
        text = Text("Keys\n", style="bold")
        text.append(
            "  arrows + enter: play the highlighted move   d: draw or take the penalty\n"
            "  u: call UNO   i: type an action   escape: back to the list   q: quit   ?: help\n"
            "  h: the coach's hint (its move, its estimated chance to win, why; not played)\n"
            "  r: the rules the last event cites; type 'rule NM-30' for a rule, 'rule R7' for\n"
            "     what a card does\n"
        )
        text.append("\nColours\n", style="bold")
        text.append(f"  {COLOUR_LEGEND}\n")
        cards, actions = notation_help(self.rules)  # this game's deck and actions
        text.append("\nCard notation (for the typed box)\n", style="bold")
        text.append(cards + "\n")
        if self.hand:
            text.append("  Your hand: ")
            text.append(", ".join(card_words(c) for c in sorted(set(self.hand))))
            text.append("\n")
        text.append("\nActions\n", style="bold")
        text.append(actions + "\n")
        text.append("  The highlighted move's notation is shown in the typed box.\n")
        text.append("\n[escape] close", style="dim")
        with Vertical(id="panel"):
            yield Static(text, id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)


class RuleScreen(ModalScreen[None]):
    """Rule texts from RULES.md (``nomercy.tables.rulebook``): those an event cited, a card's,
    or one asked for by id (``rule NM-30`` in the typed box)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("r", "close", "Close", show=False),
    ]

    def __init__(self, ids: list[str], heading: str = "") -> None:
        super().__init__()
        self.ids = ids
        self.heading = heading

    def compose(self) -> ComposeResult:
        text = Text()
        if self.heading:
            text.append(f"{self.heading}\n\n", style="bold")
        for rid in self.ids:
            found = rulebook.rule(rid)
            title = f"{rid} · {found.title}" if found.title else rid
            text.append(f"{title}\n", style="bold")
            text.append(f"{found.section}\n", style="dim")
            text.append(f"{found.plain}\n\n")
        if not self.ids:
            text.append("No rule is cited yet.\n\n")
        text.append("All the rules: docs/RULES.md, or /rules on the web server.\n", style="dim")
        text.append("[escape] close", style="dim")
        with VerticalScroll(id="panel"):
            yield Static(text, id="rule-text")

    def action_close(self) -> None:
        self.dismiss(None)


class QuitScreen(ModalScreen[str]):
    """Quitting mid-game: save (``"save"``), quit without saving (``"quit"``) or go back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "choose('save')", "Save and quit"),
        Binding("n", "choose('quit')", "Quit without saving"),
        Binding("escape", "choose('back')", "Keep playing"),
    ]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(id="panel"):
            yield Static(
                f"Quit the game?\n[y] save to {self.path} and quit\n"
                "[n] quit without saving\n[esc] keep playing",
                id="quit-question",
                markup=False,
            )

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)


# ---------------------------------------------------------------------- the table
class TableScreen(Screen[None]):
    """The game table: status, players, hand, legal actions, notation input and the log."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "draw", "Draw"),
        # d when drawing is not on offer: say why (hidden from the footer).
        Binding("d", "why_no_draw", "Draw", show=False),
        Binding("u", "uno", "Call UNO"),
        Binding("i", "type_action", "Type an action"),
        Binding("h", "hint", "Hint"),
        # Listed in the help (?), not the footer: an 80-column footer has no room left.
        Binding("r", "rules", "Rules", show=False),
        Binding("escape", "to_list", "Back to the list"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_game", "Quit"),
    ]

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config
        self.table = config.table
        self.human = config.human
        self._timer: Timer | None = None
        self._waiting = False  # a modal panel is open: bots wait
        self.saved_path: Path | None = None
        self.log_lines: list[str] = []
        #: The last hint shown (``None`` before the first ``h``).
        self.last_hint: Hint | None = None
        self._hint_for: tuple[int, int] | None = None  # (hand, move) the running hint is for
        self._hint_shown: tuple[int, int] | None = None  # (hand, move) of the hint on screen

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield StatusView(id="status")
            yield PlayersView(id="opponents")
        yield HandView(id="hand")
        with Horizontal(id="middle"):
            yield ActionList(id="actions")
            yield RichLog(id="log", wrap=True, markup=False, min_width=40)
        yield Input(placeholder=self._placeholder(None), id="entry")
        yield Static("", id="advice", markup=False)
        yield Static("", id="message", markup=False)
        yield Static("", id="hint", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.table
        intro = (
            f"{table.rules.preset}, {table.players} players, "
            f"{seed_label(table.seed, table.deal_version)}; you are seat "
            f"{self.human} ({table.names[self.human]})"
        )
        # Each bot by its level, the algorithm shown (docs/bots.md#levels), or its name.
        preset = table.rules.preset
        bots = [
            f"{table.names[s]} {bot_words(kind, preset)}"
            for s, kind in enumerate(table.kinds)
            if kind != HUMAN
        ]
        self._log(intro + (f"; bots: {', '.join(bots)}" if bots else ""))
        if table.moves:
            self._log(f"Resumed after {table.moves} actions")
            self._log_replayed()
        else:
            for event in table.opening_events(self.human):
                self._log(event_words(event.text))
        self.query_one(ActionList).focus()
        self._refresh()
        self._advance()

    def _log_replayed(self) -> None:
        """The log of a resumed game as it was: every action and its events, as this seat saw
        them (its own drawn cards included), by replaying the record from its start."""
        record = self.table.record()
        try:
            game = record.start_game()
            if record.start is None:
                for event in game.opening_events:
                    self._log(event_words(event.for_seat(self.human).text))
            for text in record.actions:
                events = game.apply(text)
                self._show_events(game.history[-1], events)
        except NoMercyError as exc:  # the table replayed it already; this cannot fail
            self._log(f"(the earlier log cannot be rebuilt: {exc})")

    # ------------------------------------------------------------------ rendering
    def _log(self, line: str) -> None:
        self.log_lines.append(line)
        self.query_one(RichLog).write(Text(line))

    def _refresh(self) -> None:
        view = self.table.view(self.human)
        scoring = self.table.rules.scoring_enabled
        self.query_one(StatusView).show(view, scoring=scoring)
        self.query_one(PlayersView).show(view)
        self.query_one(HandView).show(view)
        actions = self.query_one(ActionList)
        actions.show(self.table.legal_actions(self.human), view)
        self.query_one(Input).placeholder = self._placeholder(actions.highlighted_notation())
        self._show_advice()
        self.refresh_bindings()  # d is offered only when drawing is legal
        if self._hint_shown is not None and self._hint_shown != self._moment():
            self._hint_shown = None  # the game moved on: the hint is stale
            self._show_hint("")

    @staticmethod
    def _placeholder(notation: str | None) -> str:
        # The notation first: at 80 columns the box shows about 70 characters.
        hint = "i: type an action in notation (? for help)"
        return f"{notation}: the highlighted move · {hint}" if notation else hint

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if isinstance(event.option_list, ActionList):
            notation = event.option_list.highlighted_notation()
            self.query_one(Input).placeholder = self._placeholder(notation)
            self._show_advice()

    def _show_advice(self) -> None:
        """The highlighted move's warnings in full, in a line of their own above the footer
        (in the list they may be cut on a small terminal), and which other moves have some."""
        actions = self.query_one(ActionList)
        view = self.table.view(self.human)
        box = self.query_one("#advice", Static)
        text = advice_text(actions.highlighted_group(), actions.groups(), view)
        box.update(text)
        box.display = bool(text.plain)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``d`` draws when drawing is legal, else explains why not; escape only from the box."""
        if action in ("draw", "why_no_draw"):
            can = any(isinstance(a, Draw) for a in self.table.legal_actions(self.human))
            return can if action == "draw" else not can
        if action == "to_list":
            return self.query_one(Input).has_focus
        return True

    def _say(self, message: str) -> None:
        box = self.query_one("#message", Static)
        box.update(message)
        box.display = bool(message)  # an empty line would take a row from the move list

    def _show_events(self, action: Action, events: list[Event]) -> None:
        self._log(f"{self.table.names[action.seat]}: {action}")
        for event in events:
            self._log("    " + event_words(event.for_seat(self.human).text))

    # ------------------------------------------------------------------ turn flow
    def _after(self, events: list[Event]) -> bool:
        """Open the results panel if a hand ended; return whether the bots must wait."""
        if not any(e.kind is EventKind.HAND_END for e in events):
            return False
        table = self.table
        saved = None
        if table.is_over:
            try:
                saved = self._save_finished()
            except OSError as exc:
                self._say(f"Cannot save the finished game: {exc}")
        view = self.table.view(self.human)
        summary = hand_summary(
            events,
            list(table.names),
            over=table.is_over,
            scored=table.rules.scoring_enabled,
            players=view.players,
        )
        self._waiting = True
        self._refresh()
        self.app.push_screen(HandOverScreen(summary, saved=saved), self._hand_closed)
        return True

    def _hand_closed(self, go_on: bool | None) -> None:
        self._waiting = False
        if not go_on:
            self.app.exit(self._exit_message())
            return
        self._refresh()
        self._advance()

    def _advance(self) -> None:
        """Let the bots act: all at once with ``fast``, else one per timer tick."""
        if self._waiting or self.table.is_over:
            return
        if self.config.fast:
            while (step := self.table.bot_step()) is not None:
                self._show_events(step.action, step.events)
                if self._after(step.events):
                    return
            self._refresh()
            return
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(max(self.config.speed, 0.0), self._tick)

    def _tick(self) -> None:
        self._timer = None
        if self._waiting:
            return
        step = self.table.bot_step()
        if step is None:
            self._refresh()
            return
        self._show_events(step.action, step.events)
        if self._after(step.events):
            return
        self._refresh()
        self._advance()

    def act(self, action: Action | str) -> bool:
        """Submit the human's action (object or notation); errors are shown, nothing changes."""
        if self._waiting:
            return False
        try:
            if isinstance(action, str):
                action = self.table.parse(self.human, action)
            events = self.table.submit(self.human, action)
        except NoMercyError as exc:
            self._say(f"Not allowed: {exc}")
            return False
        self._say("")
        self._show_events(action, events)
        if not self._after(events):
            self._refresh()
            self._advance()
        return True

    # ------------------------------------------------------------------ input
    def on_action_list_chosen(self, message: ActionList.Chosen) -> None:
        self.act(message.action)

    def on_action_list_ask(self, message: ActionList.Ask) -> None:
        if self._waiting:
            return
        view = self.table.view(self.human)

        def chosen(action: Action | None) -> None:
            if action is not None:
                self.act(action)

        self.app.push_screen(VariantScreen(message.variants, view), chosen)

    def on_input_changed(self, message: Input.Changed) -> None:
        # The box's placeholder promises "? for help": a lone ? opens it (and leaves no
        # "unknown action" behind).
        if message.value.strip() == "?":
            message.input.value = ""
            self._say("")
            self.action_help()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        text = message.value.strip()
        if text in ("?", "help"):
            message.input.value = ""
            self.action_help()
            return
        if text and text.split(maxsplit=1)[0].lower() in ("rule", "rules"):
            if self.show_rule(text.split(maxsplit=1)[1] if " " in text else ""):
                message.input.value = ""
                self.query_one(ActionList).focus()  # the keys work again once it closes
            return
        if not text:  # enter on an empty box: back to the list
            self.query_one(ActionList).focus()
            return
        if self.act(text):
            message.input.value = ""
            # Back to the list, so the keys (d, u, q, enter) work again at once.
            self.query_one(ActionList).focus()
        else:
            # Refused: the text stays to be corrected, selected, so typing replaces it.
            message.input.select_all()

    def action_draw(self) -> None:
        legal = self.table.legal_actions(self.human)
        draw = next((a for a in legal if isinstance(a, Draw)), None)
        if draw is None:
            self.action_why_no_draw()
            return
        self.act(draw)

    def action_why_no_draw(self) -> None:
        """Say why drawing is not on offer, with the rule."""
        view = self.table.view(self.human)
        reason = draw_refusal(view, self.table.legal_actions(self.human))
        self._say(f"You cannot draw now: {reason.text}" if reason else "")

    # ------------------------------------------------------------------ the coach
    def _moment(self) -> tuple[int, int]:
        return (self.table.hand_number, self.table.moves)

    def action_hint(self) -> None:
        """Ask the coach for the human seat's move (searched in a thread; nothing is played)."""
        if self._hint_for is not None:
            return  # one hint at a time
        view = self.table.view(self.human)
        legal = self.table.legal_actions(self.human)
        moment = self._moment()
        # Seeded by the game, the move and the seat (hint_seed): the same moment gets the
        # same hint here, in the web and in `nomercy analyse`.
        coach = Coach(
            seed=self.table.hint_seed(self.human),
            iterations=self.config.hint_iterations,
            max_time=self.config.hint_max_time,
        )
        try:
            coach_check(self.table, self.human)
        except CoachError as exc:
            self._show_hint(f"No hint now: {exc}")
            return
        self._hint_for = moment
        self._show_hint("The coach is thinking…")
        self.run_worker(
            lambda: coach.hint(view, legal), name="hint", thread=True, exit_on_error=False
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name != "hint" or event.state not in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
        ):
            return
        moment, self._hint_for = self._hint_for, None
        if event.state is WorkerState.ERROR:
            self._show_hint(f"No hint now: {event.worker.error}")
            return
        hint = event.worker.result
        assert isinstance(hint, Hint)
        if moment != self._moment():
            self._show_hint("The game moved on while the coach was thinking: press h again")
            return
        self.last_hint = hint
        self._hint_shown = moment
        self._show_hint(hint_text(hint, self.table.view(self.human)))
        self.query_one(ActionList).highlight_action(hint.action)

    def _show_hint(self, text: str | Text) -> None:
        box = self.query_one("#hint", Static)
        box.update(text)
        box.display = bool(str(text))

    def action_help(self) -> None:
        hand = self.table.view(self.human, history=False).hand
        self.app.push_screen(HelpScreen([c.code for c in hand], self.table.rules))

    def last_cited(self) -> list[str]:
        """The rule ids the newest log line that cites any cites (``[NM-30, A24]``)."""
        for line in reversed(self.log_lines):
            ids = rulebook.cited(line)
            if ids:
                return ids
        return []

    def action_rules(self) -> None:
        """The rules the last event cited (r)."""
        self.show_rule("")

    def show_rule(self, what: str) -> bool:
        """Show rule ``what`` (an id: ``NM-30``), a card's rules (``R7``), or with ``""`` the
        rules the last event cited; ``False`` (and a message) when there is no such rule."""
        what = what.strip()
        heading = ""
        try:
            if not what:
                ids, heading = self.last_cited(), "The rules the last event cites"
            elif rulebook.RULE_ID.fullmatch(what.upper()):
                ids = [rulebook.rule(what).id]
            else:
                ids = list(rulebook.card_rules(what.upper(), self.table.rules.preset))
                heading = f"{card_words(what.upper())}: what it does"
        except rulebook.UnknownRuleError as exc:
            self._say(f"{exc}; or a card code (rule R7)")
            return False
        self._say("")
        self.app.push_screen(RuleScreen(ids, heading))
        return True

    def action_uno(self) -> None:
        legal = self.table.legal_actions(self.human)
        call = next((a for a in legal if isinstance(a, CallUno)), None)
        if call is None:
            hand = len(self.table.view(self.human, history=False).hand)
            if hand == 2 and self.table.to_act == self.human:
                self._say(
                    "No UNO to call now: with two cards, choose a 'play … + call UNO' action "
                    "(or type 'play CARD uno')"
                )
            else:  # UNO is called with one card left, or with the play that leaves it
                self._say(f"No UNO to call now: you hold {hand} cards")
            return
        self.act(call)

    def action_type_action(self) -> None:
        self.query_one(Input).focus()
        self.refresh_bindings()

    def action_to_list(self) -> None:
        self.query_one(ActionList).focus()
        self.refresh_bindings()

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    # ------------------------------------------------------------------ saving
    def default_save_path(self) -> Path:
        """Where quitting mid-game saves: the resumed file, else a new file under the save dir.

        The name has the seed and the time, and a counter when that file exists already, so
        an earlier save is never overwritten.
        """
        if self.config.resume_path is not None:
            return self.config.resume_path
        folder = self.config.save_dir or Path.cwd()
        return _unique(folder, f"nomercy-saved-seed{self.table.seed}")

    def save(self, path: Path) -> Path:
        """Write the table's record to ``path`` (its folder is created)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.table.dumps() + "\n", encoding="utf-8")
        self.saved_path = path
        return path

    def _save_finished(self) -> str | None:
        folder = self.config.save_dir
        if folder is None:
            return None
        return str(self.save(_unique(folder, f"nomercy-game-seed{self.table.seed}")))

    def _exit_message(self) -> str:
        if self.saved_path is not None:
            if self.table.is_over:
                return f"Game saved to {self.saved_path} (`nomercy replay {self.saved_path}`)"
            return (
                f"Game saved to {self.saved_path}: `nomercy play --resume {self.saved_path}` "
                "continues it"
            )
        return f"Goodbye ({self._seed_note()})"

    def _seed_note(self) -> str:
        seed = seed_label(self.table.seed, self.table.deal_version)
        return f"{seed}: `{play_command(self.table, self.human)}` deals this game again"

    def action_quit_game(self) -> None:
        if self.table.is_over:
            self.app.exit(self._exit_message())
            return
        path = self.default_save_path()
        self._waiting = True

        def chosen(choice: str | None) -> None:
            self._waiting = False
            if choice == "save":
                try:
                    self.save(path)
                except OSError as exc:
                    self._say(f"Cannot save to {path}: {exc}")
                    self._advance()
                    return
                self.app.exit(self._exit_message())
            elif choice == "quit":
                self.app.exit(f"Quit without saving ({self._seed_note()})")
            else:
                self._advance()

        self.app.push_screen(QuitScreen(path), chosen)


#: What the terminal says when a seat gets no hint (``Table.hint_refusal``).
_NO_HINT = {
    HintRefusal.OVER: "the game is over",
    HintRefusal.OUT: "you are out of this hand",
    HintRefusal.NOT_YOUR_TURN: "it is not your turn",
}


def coach_check(table: Table, seat: int) -> None:
    """Raise :class:`CoachError` when the seat has nothing to decide now (no search needed)."""
    refusal = table.hint_refusal(seat)
    if refusal is not None:
        raise CoachError(_NO_HINT[refusal])


def advice_text(highlighted: list[Action], groups: list[list[Action]], view: PlayerView) -> Text:
    """The highlighted entry's consequences (``⚠ draw: taking 4 cards ...``), then the other
    entries that carry a warning, named; empty text when there is nothing to warn about."""
    text = Text()
    mine = _warnings_of(highlighted, view)
    if mine:
        text.append("⚠ ", style="bold yellow")
        text.append_text(_entry_name(highlighted, view))
        text.append(": " + "; ".join(mine), style="bold yellow")
    for group in groups:
        if group == highlighted:
            continue
        theirs = _warnings_of(group, view)
        if not theirs:
            continue
        # Each other move with what it warns of, not only its name.
        if text.plain:
            text.append("\n")
        text.append("⚠ also ", style="yellow")
        text.append_text(_entry_name(group, view))
        text.append(": " + "; ".join(theirs), style="yellow")
    return text


def _warnings_of(group: list[Action], view: PlayerView) -> list[str]:
    seen: list[str] = []
    for action in group:
        if action.seat != view.seat:
            continue
        for advice in consequences(action, view):
            if advice.text not in seen:
                seen.append(advice.text)
    return seen


def _entry_name(group: list[Action], view: PlayerView) -> Text:
    first = group[0]
    if isinstance(first, Play):
        text = Text("play ")
        text.append_text(card_text(first.card.code))
        return text
    label = action_label(first, view, warn=False)
    return Text(label.plain.split(" (", 1)[0])


def hint_text(hint: Hint, view: PlayerView) -> Text:
    """The hint for the screen: the move, its estimated chance, the reason, the runners-up."""
    text = Text("Hint: ", style="bold")
    text.append_text(action_label(hint.action, view, warn=False))
    if hint.chance is not None:
        text.append(f"   estimated chance to win the hand: {round(100 * hint.chance)}%")
    text.append(f"\n  why: {hint.reason.text}")
    others = [e for e in hint.estimates if e.action != hint.action][:3]
    if others:
        text.append("\n  other moves: ")
        for i, e in enumerate(others):
            if i:
                text.append(", ")
            text.append_text(action_label(e.action, view, warn=False))
            text.append(f" {round(100 * e.chance)}%")
    return text


def _unique(folder: Path, stem: str) -> Path:
    """``folder/STEM-YYYYmmdd-HHMMSS.json``, with ``-2``, ``-3``... if that file exists."""
    name = f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    path = folder / f"{name}.json"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"{name}-{n}.json"
    return path


# ---------------------------------------------------------------------- the app
class NomercyApp(App[str]):
    """The terminal app; ``run()`` returns a line to print on exit (e.g. where it saved)."""

    TITLE = "nomercy"
    CSS = """
    #top { height: auto; max-height: 16; }
    #status { width: 2fr; height: auto; padding: 0 1; border: round $primary; }
    #opponents {
        width: 1fr; height: auto; max-height: 16; overflow-y: auto;
        padding: 0 1; border: round $secondary;
    }
    #hand { height: auto; padding: 0 1; border: round $accent; }
    #middle { height: 1fr; }
    #actions { width: 2fr; height: 1fr; }
    #log { width: 3fr; height: 1fr; border: round $panel; }
    #entry { height: 3; }
    #advice { height: auto; max-height: 4; padding: 0 1; display: none; }
    #message { height: auto; color: $error; padding: 0 1; display: none; }
    #hint { height: auto; color: $success; padding: 0 1; display: none; }
    HandOverScreen, QuitScreen, VariantScreen, HelpScreen, RuleScreen { align: center middle; }
    RuleScreen #panel { max-height: 90%; }
    #variants { height: auto; max-height: 20; }
    #panel { width: 80%; height: auto; border: thick $accent; background: $surface; padding: 1 2; }
    """

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config

    def on_mount(self) -> None:
        self.push_screen(TableScreen(self.config))
