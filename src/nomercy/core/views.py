"""Views: what one seat may know, as the JSON-serialisable view and as a compact snapshot.

:meth:`Game.view <nomercy.core.game.Game.view>` (bots, clients, the terminal app) and
:meth:`Game.snapshot <nomercy.core.game.Game.snapshot>` (encoders that run every step, RL)
are the public names. Both show a seat its own hand, every hand size, the discard pile and
the public state, and never another hand or the draw pile's order (STYLE.md habit 8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, NamedTuple

from nomercy.core.base import OVER, Phase, seat_arg
from nomercy.core.cards import COLOURS, Card, Colour

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = ["Snapshot", "snapshot", "view"]


class Snapshot(NamedTuple):
    """One seat's compact view (:meth:`Game.snapshot`); ``-1`` means none."""

    seat: int
    phase: Phase
    hand: list[int]
    """Card indices in hand order."""
    known: list[tuple[int, list[int]]]
    """(holder, card indices) the seat knows another seat holds (NM-30, swaps)."""
    hand_sizes: list[int]
    out: list[bool]
    uno: list[bool]
    """Whether each seat has called UNO for its one card (NM-37)."""
    uno_window: list[int]
    """Seats that may be caught, sorted (NM-37)."""
    direction: int
    draw_pile_size: int
    pending_total: int
    pending_last: int
    top: int
    colour: int
    drawn: int
    """The drawn card the seat may play now (phase ``play_drawn``)."""
    to_act: int
    wd4_challengeable: bool
    discard: list[Card]
    """The discard pile itself, bottom first (not a copy: read only)."""


_COLOUR_INDEX: Final[dict[Colour, int]] = {c: i for i, c in enumerate(COLOURS)}


def view(game: Game, seat: object, *, history: bool = True) -> dict[str, Any]:
    """:meth:`Game.view <nomercy.core.game.Game.view>` (documented there)."""
    n = game.n
    if seat is not None:
        seat = seat_arg(game, seat)
    r = game.rules
    players = []
    for s in range(n):
        size = len(game.hands[s])
        players.append(
            {
                "seat": s,
                "name": game.names[s],
                "hand_size": size,
                "out": game.out[s],
                "uno": game.uno_called[s],
                "mercy_distance": (r.mercy_threshold - size)
                if r.mercy_enabled and not game.out[s]
                else None,
                "score": game.scores[s],
            }
        )
    viewer = -1 if seat is None else seat
    known: dict[str, list[str]] = {}
    for s in range(n):
        cards = game.known.get((viewer, s))
        if cards and s != seat:
            known[str(s)] = [c.code for c in cards]
    pending = game.pending
    wd4_public = game.wd4 is not None
    return {
        "seat": seat,
        "rules": r.to_json(),
        "phase": game.phase.value,
        "to_act": game.to_act,
        "direction": game.direction,
        "top": game.discard[-1].code if game.discard else None,
        "colour": game.colour.value if game.colour else None,
        "discard": [c.code for c in game.discard],
        "draw_pile_size": len(game._draw),
        "set_aside_size": len(game.set_aside),
        "pending": pending,
        "hand": [c.code for c in game.hands[seat]] if seat is not None else [],
        "drawn": game.drawn.code if game.drawn is not None and seat == game.turn else None,
        "players": players,
        "known": known,
        "uno_window": sorted(game.uno_window),
        "wd4_challengeable": wd4_public,
        "dealer": game.dealer,
        "hand_number": game.hand_number,
        "scores": list(game.scores),
        "score_target": r.score_target,
        "winner": game.winner,
        "hand_winner": game.hand_winner,
        "history": game.public_history() if history else [],
        "engine": {
            "turn": game.turn,
            "draw_mode": game._draw_mode,
            "chain_wild": game.chain_wild,
            "pending_win": game.pending_win,
            "resume": game.resume,
            "roulette_colour": game.roulette_colour.value if game.roulette_colour else None,
            # CL-8: whether the Wild +4 was played dishonestly is hidden until challenged.
            "wd4": {k: v for k, v in game.wd4.items() if k != "guilty"} if game.wd4 else None,
            "total_cards": game.total_cards,
            "hand_log_start": game._hand_start,
        },
    }


def snapshot(game: Game, seat: object) -> Snapshot:
    """:meth:`Game.snapshot <nomercy.core.game.Game.snapshot>` (documented there)."""
    s = seat_arg(game, seat)
    n = game.n
    hands = game.hands
    known: list[tuple[int, list[int]]] = []
    if game.known:
        for t in range(n):
            cards = game.known.get((s, t))
            if cards and t != s:
                known.append((t, [c.index for c in cards]))
    colour = game.colour
    drawn = game.drawn
    turn = game.turn
    # tuple.__new__: a NamedTuple's own __new__ is a Python function, a step's worth.
    return tuple.__new__(
        Snapshot,
        (
            s,
            game.phase,
            [c.index for c in hands[s]],
            known,
            [len(h) for h in hands],
            list(game.out),
            list(game.uno_called),
            sorted(game.uno_window),
            game.direction,
            len(game._draw),
            game.pending_total,
            game.pending_last,
            game.discard[-1].index if game.discard else -1,
            _COLOUR_INDEX[colour] if colour is not None else -1,
            drawn.index if drawn is not None and s == turn else -1,
            -1 if turn is None or game.phase is OVER else turn,
            game.wd4 is not None,
            game.discard,
        ),
    )
