"""Text for the terminal app: cards, the table, actions and hand results, from a seat's view.

Pure functions from the JSON view of :meth:`nomercy.Game.view` (and actions and events) to
:class:`rich.text.Text`. Cards are drawn as faces (their colour as the background, the value or
the action's name on it), never as notation; every colour also has a symbol (R ♥, Y ★, G ♣,
B ♠, wild ✱) so the table reads the same for colour-blind players and in monochrome terminals.
No rule logic here: what is legal comes from the engine and a move's consequences from
:mod:`nomercy.tables.advice`; these functions only describe them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from nomercy.core.actions import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColour,
    Draw,
    Pass,
    Play,
)
from nomercy.core.base import Phase
from nomercy.core.cards import Card, parse_card
from nomercy.core.events import Event, EventKind
from nomercy.core.rules import RuleSet
from nomercy.core.views import PlayerView, SeatInfo, Stack
from nomercy.tables.advice import Advice, consequences
from nomercy.tables.wording import event_words

__all__ = [
    "COLOUR_LEGEND",
    "COLOUR_STYLES",
    "COLOUR_SYMBOLS",
    "FACE_STYLES",
    "HandSummary",
    "action_groups",
    "action_label",
    "card_text",
    "card_words",
    "event_words",
    "face_label",
    "group_label",
    "hand_summary",
    "hand_text",
    "notation_help",
    "pending_text",
    "phase_words",
    "players_text",
    "stacking_rules",
    "status_text",
]

#: A symbol per colour code ("W" for wilds), so colour is never the only cue.
COLOUR_SYMBOLS = {"R": "♥", "Y": "★", "G": "♣", "B": "♠", "W": "✱"}
#: The terminal style per colour code (text in that colour).
COLOUR_STYLES = {
    "R": "bold red",
    "Y": "bold yellow",
    "G": "bold green",
    "B": "bold dodger_blue1",
    "W": "bold magenta",
}
#: A card's face: its colour as the background, with a contrasting text colour.
FACE_STYLES = {
    "R": "bold white on red3",
    "Y": "bold black on gold1",
    "G": "bold white on green4",
    "B": "bold white on dodger_blue3",
    "W": "bold white on grey15",
}
_COLOUR_WORDS = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
NBSP = "\u00a0"
#: One line explaining the colour symbols (shown under the hand and in the help).
COLOUR_LEGEND = "♥ red  ★ yellow  ♣ green  ♠ blue  ✱ wild"


def _colour_key(card: Card) -> str:
    return card.colour.value if card.colour is not None else "W"


def face_label(code: str) -> str:
    """What is printed on a card, without its colour: ``7``, ``Skip``, ``Wild +6``."""
    card = parse_card(code)
    if card.colour is None:
        return card.name
    return card.name.split(" ", 1)[1]  # "red Skip Everyone" -> "Skip Everyone"


def card_text(code: str) -> Text:
    """One card as a player sees it: a coloured face with its symbol and value or action.

    ``7`` of red is `` ♥ 7 `` on red; ``W+6`` is `` ✱ Wild +6 `` on black. The symbol keeps the
    colour readable in monochrome; the notation (``R7``) is in the help and the typed box.
    """
    card = parse_card(code)
    key = _colour_key(card)
    # No-break spaces: a hand wraps between cards, never inside one.
    face = f" {COLOUR_SYMBOLS[key]} {face_label(code)} ".replace(" ", NBSP)
    return Text(face, style=FACE_STYLES[key])


def card_words(code: str) -> str:
    """A card in words with its notation, for the help: ``red 7 (R7)``, ``Wild +6 (W+6)``."""
    return f"{parse_card(code).name} ({code})"


def colour_text(code: str | None) -> Text:
    """An active colour, e.g. ``♣ green``."""
    if code is None:
        return Text("none")
    return Text(f"{COLOUR_SYMBOLS[code]} {_COLOUR_WORDS[code]}", style=COLOUR_STYLES[code])


def hand_text(
    codes: Sequence[Card | str], *, width: int | None = None, start: int = 0, indent: int = 0
) -> Text:
    """A hand, sorted by colour and face, cards separated by spaces.

    With ``width``, the cards are broken into lines of at most ``width`` cells between two
    cards (never inside one): the first line starts at column ``start`` (after a label), the
    next ones are indented by ``indent``.
    """
    cards = sorted(c if isinstance(c, Card) else parse_card(c) for c in codes)
    text = Text()
    column = start
    for i, card in enumerate(cards):
        face = card_text(card.code)
        if i:
            if width is not None and column + 1 + face.cell_len > width:
                text.append("\n" + " " * indent)
                column = indent
            else:
                text.append(" ")
                column += 1
        text.append_text(face)
        column += face.cell_len
    return text


#: The coloured faces in the help, in this order, with their words.
_FACE_HELP = (("S", "Skip"), ("R", "Reverse"), ("+2", "+2"), ("+4", "+4"), ("SE", "Skip Everyone"),
              ("DA", "Discard All"))  # fmt: skip


def notation_help(rules: RuleSet) -> tuple[str, str]:
    """The help's card and action notation for ``rules``: the codes of the cards its deck
    holds (classic: no Skip Everyone, Discard All or Wild +6) and the actions it has (a wild
    of this deck in the example; the 7's target only where 7 swaps, NM-31 or C04; a
    challenge only where a Wild +4 may be challenged, CL-8), each one line for the help's
    panel to wrap.

    >>> from nomercy.core.rules import make_rules
    >>> cards, actions = notation_help(make_rules("classic"))
    >>> print(cards)
      colour letter R Y G B + face: 0-9, S Skip, R Reverse, +2; wilds: W, W+4
    >>> "play W+4 G" in actions, "challenge" in actions, "play R7 2" in actions
    (True, True, False)
    """
    deck = rules.deck_table()
    faces = {code[1:] for code in deck if not code.startswith("W")}
    named = [f"{face} {word}" if face != word else face for face, word in _FACE_HELP
             if face in faces]  # fmt: skip
    wilds = sorted(
        (c for c in deck if c.startswith("W")), key=lambda c: (parse_card(c).draw_value, len(c))
    )
    wild_words = [code if parse_card(code).name in ("Wild", f"Wild {code[1:]}") else
                  f"{code} {parse_card(code).name}" for code in wilds]  # fmt: skip
    cards = _wrapped(
        f"colour letter R Y G B + face: 0-9, {', '.join(named)}; wilds: {', '.join(wild_words)}"
    )
    example = next((w for w in ("W+6", "W+4", "W") if w in deck), wilds[0] if wilds else "W")
    actions = [
        "play R7",
        f"play {example} G (a wild names its colour)",
        "play G3 uno (and call UNO)",
    ]
    if rules.facts.seven_zero:  # NM-31, C04: 7-0 in force
        actions.append("play R7 2 (a 7 swaps with seat 2)")
    actions += ["draw", "pass", "colour G", "uno", "catch 2"]
    if rules.is_classic and rules.wd4_challenge:
        actions.append("challenge (a Wild +4)")
    return cards, _wrapped(" · ".join(actions))


def _wrapped(text: str) -> str:
    """``text`` indented two columns (the help's panel wraps it to its width)."""
    return "  " + text


def pending_text(pending: Stack | None) -> str:
    """The pending stack as the rules speak of it: ``total 16, last +6`` (or ``none``)."""
    if pending is None:
        return "none"
    return f"total {pending.total}, last +{pending.last}"


def _direction(direction: int) -> str:
    return "clockwise ↻ (seat numbers up)" if direction == 1 else "counter-clockwise ↺"


def status_text(view: PlayerView, *, scoring: bool = False) -> Text:
    """Whose turn, top card, active colour, direction, pending stack, Mercy distance, scores.

    ``scoring``: a match to the target score is on, so the running totals are shown.
    """
    seat = view.seat
    players = view.players
    text = Text()
    to_act = view.to_act
    if to_act is None:
        text.append("Game over", style="bold")
    elif to_act == seat:
        text.append(f"Your turn ({phase_words(view)})", style="bold reverse")
    else:
        text.append(f"{players[to_act].name} to act", style="bold")
    text.append("\nTop card: ")
    if view.top is not None:
        text.append_text(card_text(view.top.code))
    text.append("   Colour: ")
    text.append_text(colour_text(view.colour.value if view.colour is not None else None))
    text.append(f"\nDirection: {_direction(view.direction)}")
    if view.stacking:
        text.append(f"\nPending stack: {pending_text(view.pending)}")
    elif view.pending is not None:
        # Classic without stacking: a penalty to take (or a Wild +4 to challenge), no stack.
        text.append(f"\nPenalty: {view.pending.total} cards to take")
    if seat is not None:
        me = players[seat]
        distance = me.mercy_distance
        if me.out:
            text.append("\nYou are out (knocked out by the Mercy rule)", style="bold red")
        elif distance is not None:
            limit = distance + me.hand_size
            text.append(f"\nMercy: {distance} cards to the {limit}-card limit")
    text.append(f"\nDraw pile: {view.draw_pile_size}   Hand {view.hand_number}")
    if scoring:
        scores = ", ".join(f"{p.name} {p.score}" for p in players)
        text.append(f"\nScores (to {view.score_target}): {scores}")
    return text


def players_text(view: PlayerView, *, width: int | None = None) -> Text:
    """One entry per seat (you included): turn marker, name, hand size, UNO, out, known cards.

    Known cards (seen in a swap, a pass or a reveal) follow on their own lines, drawn as cards
    and (given the panel's ``width``) wrapped between cards, never cut.
    """
    seat = view.seat
    text = Text("Players", style="bold")
    for p in view.players:
        turn = p.seat == view.to_act
        text.append("\n")
        text.append("▶ " if turn else "  ", style="bold")
        who = f"{p.seat} {p.name}" + (" (you)" if p.seat == seat else "")
        text.append(f"{who}: ", style="bold" if turn else "")
        if p.out:
            text.append("OUT", style="bold red")
        else:
            n = p.hand_size
            text.append(f"{n} card{'s' if n != 1 else ''}")
            if p.uno:
                text.append(" UNO called", style="bold")
            elif n == 1:
                text.append(" (1 card, no UNO!)", style="bold")
        known = view.known.get(p.seat)
        if known and p.seat != seat:
            text.append("\n    known: ")
            text.append_text(hand_text(known, width=width, start=11, indent=11))
    return text


def phase_words(view: PlayerView) -> str:
    """The decision of the moment in words; a penalty without stacking rules is no stack."""
    phase = view.phase
    if phase is Phase.STACK_OR_ABSORB and not view.stacking:
        return "challenge or take" if view.wd4_challengeable else "take the penalty"
    return phase.value.replace("_", " ")


def stacking_rules(view: PlayerView) -> bool:
    """Whether the view's rules have draw stacks (:attr:`PlayerView.stacking`: No Mercy, or
    classic with C04 ``classic_stacking``)."""
    return view.stacking


def _warnings(text: Text, advice: Sequence[Advice]) -> None:
    for a in advice:
        text.append(f"\n  ⚠ {a.text}", style="bold yellow")


def action_label(action: Action, view: PlayerView, *, warn: bool = True) -> Text:
    """What ``action`` does, its cards drawn as cards, and (``warn``) its consequences that
    are not obvious (:func:`nomercy.tables.advice.consequences`), marked ⚠."""
    players = view.players
    text = Text(str(action).split(":", 1)[-1] if isinstance(action, (CallUno, Catch)) else "")
    if isinstance(action, Play):
        text = Text("play ")
        text.append_text(card_text(action.card.code))
        if action.colour is not None:
            text.append(" → ")
            text.append_text(colour_text(action.colour.value))
        if action.target is not None:
            target = players[action.target]
            text.append(f" ⇄ swap with {target.name} ({target.hand_size} cards)")
        if action.uno:
            text.append(" + call UNO", style="bold")
        if action.jump:
            text.append(" (jump in out of turn)")
    elif isinstance(action, Draw):
        pending = view.pending
        facing = pending is not None and view.phase is Phase.STACK_OR_ABSORB
        if facing and pending is not None and not view.stacking:
            text = Text(f"draw: take the {pending.total} cards")
        elif facing:
            text = Text(f"draw: take the penalty ({pending_text(pending)})")
        else:
            text = Text("draw a card")
    elif isinstance(action, ChooseColour):
        text = Text("name colour ")
        text.append_text(colour_text(action.colour.value))
    elif isinstance(action, Pass):
        text = Text("pass")
    elif isinstance(action, Challenge):
        text = Text("challenge the Wild +4")
    elif isinstance(action, CallUno):
        text = Text("call UNO", style="bold")
    elif isinstance(action, Catch):
        text = Text(f"catch {players[action.target].name}: they did not call UNO")
    if warn and action.seat == view.seat:
        _warnings(text, consequences(action, view))
    return text


def action_groups(actions: Sequence[Action]) -> list[list[Action]]:
    """Group the plays of one card (its colour, target and UNO variants); others stand alone.

    Groups keep the engine's order, except that a challenge comes after taking the cards:
    the first (highlighted) entry is never the gamble that costs 2 more (CL-8). Within a
    group the variants that call UNO come first.
    """
    groups: list[list[Action]] = []
    by_card: dict[tuple[str, bool], list[Action]] = {}
    for action in actions:
        if isinstance(action, Play):
            key = (action.card.code, action.jump)
            group = by_card.get(key)
            if group is None:
                group = by_card[key] = []
                groups.append(group)
            group.append(action)
        else:
            groups.append([action])
    groups.sort(key=lambda g: isinstance(g[0], Challenge))
    return [sorted(g, key=lambda a: not (isinstance(a, Play) and a.uno)) for g in groups]


def group_label(group: Sequence[Action], view: PlayerView) -> Text:
    """The list entry for a group: the action itself, or its card and what it will ask."""
    if len(group) == 1:
        return action_label(group[0], view)
    first = group[0]
    assert isinstance(first, Play)
    asks = []
    if any(isinstance(a, Play) and a.colour is not None for a in group):
        asks.append("a colour")
    if any(isinstance(a, Play) and a.target is not None for a in group):
        asks.append("a player to swap with")
    if any(isinstance(a, Play) and a.uno for a in group):
        asks.append("UNO or not")
    text = Text("play ")
    text.append_text(card_text(first.card.code))
    text.append(f" … choose {' and '.join(asks)}")
    if not any(isinstance(a, Play) and a.target is not None for a in group):
        # The colour or UNO variants share their consequences; a 7's differ by target (shown
        # when the target is chosen).
        _warnings(text, consequences(first, view))
    return text


@dataclass(frozen=True)
class HandSummary:
    """The end of a hand, read from a ``hand_end`` event (and ``match_end``)."""

    winner: str
    how: str
    points: int | None
    lines: list[str]
    totals: list[str]
    text: str
    match_over: bool
    match_winner: str | None
    scored: bool = True


def hand_summary(
    events: Sequence[Event],
    names: Sequence[str],
    *,
    over: bool,
    scored: bool = True,
    players: Sequence[SeatInfo] | None = None,
) -> HandSummary:
    """Summarise the ``hand_end`` event in ``events`` (the last one) for the results panel.

    ``scored``: the game scores hands (a match); otherwise the summary has no points or
    totals, and its lines say what each player was left holding (from ``players``, the view's
    player entries: hand size and out).

    Raises:
        ValueError: no ``hand_end`` event.
    """
    end = next((e for e in reversed(events) if e.kind is EventKind.HAND_END), None)
    if end is None:
        raise ValueError("no hand_end event")
    data = end.data
    winner = names[int(data["winner"])]
    how = (
        "last player standing (everyone else was knocked out)"
        if data["how"] == "last standing"
        else "emptied their hand"
    )
    if not scored:
        left = []
        for p in players or []:
            if p.out:
                left.append(f"{p.name}: knocked out")
            else:
                n = p.hand_size
                left.append(f"{p.name}: {n} card{'s' if n != 1 else ''} left")
        return HandSummary(
            winner=winner,
            how=how,
            points=None,
            lines=left,
            totals=[],
            text="",
            match_over=over,
            match_winner=None,
            scored=False,
        )
    lines = [f"{names[int(s)]}: {p} in card points" for s, p in data.get("cards", {}).items()]
    knocked = int(data.get("knocked_out") or 0)
    points = data.get("points")
    if knocked and points is not None:
        bonus = int(points) - sum(int(p) for p in data.get("cards", {}).values())
        lines.append(f"{knocked} knock-out(s): {bonus} bonus points ({bonus // knocked} each)")
    scores = data.get("scores") or []
    totals = [f"{names[s]} {score}" for s, score in enumerate(scores)]
    match_end = next((e for e in events if e.kind is EventKind.MATCH_END), None)
    return HandSummary(
        winner=winner,
        how=how,
        points=points,
        lines=lines,
        totals=totals,
        text=end.text,
        match_over=over,
        match_winner=names[match_end.seat] if match_end and match_end.seat is not None else None,
    )
