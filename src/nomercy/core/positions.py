"""Positions: a whole game state as a JSON-serialisable dict, and a game from one.

:meth:`Game.to_position <nomercy.core.game.Game.to_position>` and
:meth:`Game.from_position <nomercy.core.game.Game.from_position>` are the public names; the
format is documented in docs/notation.md. ``from_position`` checks every key and names the
one that is wrong (an inconsistent position is a :class:`NotationError`, never a game that
misbehaves later).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from nomercy.core.base import (
    CHOOSE_COLOUR,
    DISCARD_ALL_SUBSET,
    DISCARD_ALL_TOP,
    K_DISCARD_ALL,
    K_REVERSE,
    K_SKIP,
    K_WILD_COLOUR_ROULETTE,
    K_WILD_DRAW_FOUR,
    OVER,
    PLAY,
    PLAY_DRAWN,
    ROULETTE_COLOUR,
    STACK_OR_ABSORB,
    Phase,
    Wd4,
    check_deal,
)
from nomercy.core.cards import Card, Colour, parse_card, parse_colour
from nomercy.core.dealing import DEAL_VERSION, DEAL_VERSIONS
from nomercy.core.errors import NoMercyError, NotationError
from nomercy.core.events import Event
from nomercy.core.legality import holds_colour, is_playable
from nomercy.core.rules import OPTIONS, RuleSet, make_rules

if TYPE_CHECKING:
    from nomercy.core.game import Game

__all__ = ["PLAYER_KEYS", "POSITION_KEYS", "from_position", "to_position"]


def to_position(game: Game) -> dict[str, Any]:
    """:meth:`Game.to_position <nomercy.core.game.Game.to_position>` (documented there)."""
    game.check_whole("a position")  # its log is the whole game's
    pending = game.pending
    position: dict[str, Any] = {
        "rules": game.rules.to_json(),
        "players": [
            {
                "name": game.names[s],
                "hand": [c.code for c in game.hand_of(s)],
                "out": game.out[s],
                "uno": game.uno_called[s],
            }
            for s in range(game.n)
        ],
        "turn": game.turn,
        "direction": game.direction,
        "discard": [c.code for c in game.discard],
        "colour": game.colour.value if game.colour else None,
        "draw_pile": [c.code for c in reversed(game._draw)],
        "set_aside": [c.code for c in game.set_aside],
        "pending": None if pending is None else pending.to_json(),
        "seed": game.key,
        "fill": "none",
        "phase": game.phase.value,
        "drawn": game.drawn.code if game.drawn else None,
        "draw_mode": game.draw_mode,
        "uno_window": sorted(game.uno_window),
        "chain_wild": game.chain_wild,
        "wd4": None if game.wd4 is None else game.wd4.to_json(),
        "pending_win": game.pending_win,
        "resume": game.resume,
        "roulette_colour": game.roulette_colour.value if game.roulette_colour else None,
        "known": {f"{v},{s}": [c.code for c in cards] for (v, s), cards in game.known.items()},
        "dealer": game.dealer,
        "scores": list(game.scores),
        "hand_number": game.hand_number,
        "hand_winner": game.hand_winner,
        "winner": game.winner,
        "total_cards": game.total_cards,
        "log": game.public_history(whole_game=True),
        "hand_log_start": game.hand_start,
    }
    if game.deal_version != DEAL_VERSION:
        # Only another version is named: a position without the key is version 1's, so
        # every position written before deal versions existed reads (and prints) as it was.
        position["deal_version"] = game.deal_version
    return position


def from_position(cls: type[Game], position: Mapping[str, Any] | str) -> Game:
    """:meth:`Game.from_position <nomercy.core.game.Game.from_position>` (documented there)."""
    if isinstance(position, str):
        try:
            position = json.loads(position)
        except json.JSONDecodeError as exc:
            raise NotationError(f"a position string must be JSON: {exc}") from None
    if not isinstance(position, Mapping):
        raise NotationError("a position must be a JSON object")
    try:
        return _build(cls, position)
    except NoMercyError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise NotationError(f"malformed position: {exc!r}") from None


#: Every key a position may hold (docs/notation.md): those a person writes and those
#: ``to_position`` adds. ``colour_chooser`` was written before 2026-11-29 and is read as
#: nothing (the seat to act names the colour), so stored positions still load.
POSITION_KEYS: Final = frozenset(
    {
        "rules", "players", "turn", "direction", "discard", "colour", "draw_pile", "set_aside",
        "pending", "seed", "fill", "phase", "drawn", "draw_mode", "uno_window", "chain_wild",
        "wd4", "pending_win", "resume", "roulette_colour", "known", "dealer", "scores",
        "hand_number", "hand_winner", "winner", "total_cards", "log", "hand_log_start",
        "colour_chooser", "deal_version",
    }
)  # fmt: skip
#: Every key of a position's player.
PLAYER_KEYS: Final = frozenset({"name", "hand", "out", "uno"})


def _check_keys(keys: Iterable[object], known: frozenset[str], where: str) -> None:
    """A key the format does not have is a typo, not something to ignore."""
    for key in keys:
        if key not in known:
            close = difflib.get_close_matches(str(key), sorted(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise NotationError(f"unknown key {key!r} in {where}{hint}")


def _build(cls: type[Game], pos: Mapping[str, Any]) -> Game:  # noqa: C901, PLR0915 (measured in tests/test_complexity.py)
    _check_keys(pos, POSITION_KEYS, "the position")
    rules_value = pos.get("rules", "no-mercy")
    rules = make_rules(rules_value)
    if rules.scoring_enabled:
        check_deal(rules)  # a match deals again after this hand
    players = pos.get("players")
    if not isinstance(players, list) or len(players) < 2:
        raise NotationError("'players' must list at least two players")
    for i, p in enumerate(players):
        if not isinstance(p, Mapping):
            raise NotationError(f"players[{i}] must be an object with 'hand', 'out', 'uno'")
        _check_keys(p, PLAYER_KEYS, f"players[{i}]")
    names = [p.get("name", f"P{i}") for i, p in enumerate(players)]
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise NotationError(f"'players[{i}].name' must be a string, not {name!r}")
    g = cls(rules, names)
    n = g.n

    def cards(value: Any, what: str) -> list[Card]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise NotationError(f"'{what}' must be a list of card codes")
        return [parse_card(str(c)) for c in value]

    def flag(value: Any, what: str) -> bool:
        if not isinstance(value, bool):
            raise NotationError(f"'{what}' must be true or false, not {value!r}")
        return value

    g.hands = [cards(p.get("hand", []), f"players[{i}].hand") for i, p in enumerate(players)]
    g.out = [flag(p.get("out", False), f"players[{i}].out") for i, p in enumerate(players)]
    g.uno_called = [flag(p.get("uno", False), f"players[{i}].uno") for i, p in enumerate(players)]
    for i in range(n):
        if g.out[i] and g.hand_of(i):
            # NM-34.1: a knocked-out hand is set aside, never held.
            raise NotationError(f"players[{i}] is out but holds cards: put them in 'set_aside'")
    g.n_active = n - sum(g.out)
    if g.n_active < 1:
        raise NotationError("at least one player must be in the game")
    g.discard = cards(pos.get("discard"), "discard")
    draw_top_first = cards(pos.get("draw_pile", []), "draw_pile")
    g.set_aside = cards(pos.get("set_aside", []), "set_aside")
    g.key, g.deal_version = _shuffle_state(pos)
    fill = pos.get("fill", "draw_pile")
    if fill not in ("draw_pile", "none"):
        raise NotationError(f"'fill' must be 'draw_pile' or 'none', not {fill!r}")
    table = rules.deck_table()
    placed: dict[Card, int] = {}
    for group in (*g.hands, g.discard, draw_top_first, g.set_aside):
        for c in group:
            placed[c] = placed.get(c, 0) + 1
    for c, count in placed.items():
        if count > table.get(c.code, 0):
            raise NotationError(
                f"the position has {count} copies of {c.code} but the deck "
                f"holds {table.get(c.code, 0)}"
            )
    rest: list[Card] = []
    if fill == "draw_pile":
        for code, count in table.items():
            card = Card(code)
            rest.extend([card] * (count - placed.get(card, 0)))
        g._shuffle(rest)
    # internal pile: top at the end; the filled cards go under the listed pile
    g._draw = rest + draw_top_first[::-1]
    held = sum(placed.values()) + len(rest)
    g.total_cards = _int_key(pos, "total_cards", held)
    if g.total_cards != held:
        raise NotationError(f"'total_cards' is {g.total_cards} but the position holds {held} cards")
    if not g.discard:
        raise NotationError("the discard pile must hold at least one card")
    if "colour" in pos:  # null is kept: a wild's colour may still be owed (A18)
        g.colour = _colour_key(pos, "colour")
    else:
        g.colour = g.discard[-1].colour
    direction = pos.get("direction", 1)
    if direction not in (1, -1) or isinstance(direction, bool):
        raise NotationError(f"'direction' must be 1 or -1, not {direction!r}")
    g.direction = direction
    turn = pos.get("turn", 0)
    phase_value = pos.get("phase", "play")
    try:
        phase = Phase(phase_value)
    except ValueError:
        raise NotationError(
            f"'phase' must be one of {', '.join(p.value for p in Phase)}, not {phase_value!r}"
        ) from None
    pending = pos.get("pending")
    chain_given = False  # whether the position lists the stack's Draw Cards
    if pending:
        if not isinstance(pending, Mapping):
            raise NotationError("'pending' must be null or an object with 'total', 'last'")
        g.pending_total = _int_key(pending, "total", None, minimum=1, where="pending.")
        g.pending_last = _int_key(pending, "last", g.pending_total, minimum=1, where="pending.")
        if g.pending_last > g.pending_total:
            raise NotationError("'pending.last' must not exceed 'pending.total'")
        chain = pending.get("chain")
        chain_given = bool(chain)
        if chain is not None and not isinstance(chain, list):
            raise NotationError("'pending.chain' must be a list of Draw Card values")
        g.pending_chain = (
            [_int_value(v, "pending.chain", 1) for v in chain]
            if chain
            else ([g.pending_total] if g.pending_total == g.pending_last else [])
        )
        if "phase" not in pos:
            phase = STACK_OR_ABSORB
        if phase is not STACK_OR_ABSORB:
            raise NotationError(
                f"a pending penalty needs phase 'stack_or_absorb', not {phase.value!r}"
            )
    elif phase is STACK_OR_ABSORB:
        raise NotationError("phase 'stack_or_absorb' needs a 'pending' penalty (NM-17)")
    g.phase = phase
    if phase is not OVER:
        if _seat_value(turn, "turn", n) is None or g.out[turn]:
            raise NotationError(f"'turn' must be an active seat, not {turn!r}")
        if g.n_active < 2:
            raise NotationError(
                "only one player is in the game: the phase must be 'over' (NM-34.5)"
            )
        if g.colour is None and phase not in (CHOOSE_COLOUR, STACK_OR_ABSORB):
            raise NotationError("'colour' must name the active colour (R, Y, G or B)")
    else:
        turn = _seat_key(pos, "turn", n)
    g.turn = turn
    drawn = pos.get("drawn")
    g.drawn = parse_card(str(drawn)) if drawn else None
    if g.drawn is not None and phase is not PLAY_DRAWN:
        raise NotationError(
            f"'drawn' is the card drawn in phase 'play_drawn' (NM-9), not in {phase.value!r}"
        )
    if phase is PLAY_DRAWN:
        if g.drawn is None:
            raise NotationError("phase 'play_drawn' needs the 'drawn' card (NM-9)")
        if g.drawn not in g.hand_of(turn):
            raise NotationError(
                f"the 'drawn' card {g.drawn.code} is not in the hand of seat {turn}"
            )
    if phase in (DISCARD_ALL_TOP, DISCARD_ALL_SUBSET) and (g.discard[-1].kind is not K_DISCARD_ALL):
        raise NotationError(f"phase {phase.value!r} needs a Discard All on top (A09)")
    draw_mode = pos.get("draw_mode", "draw_until_playable")
    if draw_mode not in _DRAW_MODES:
        raise NotationError(
            f"'draw_mode' must be one of {', '.join(_DRAW_MODES)}, not {draw_mode!r}"
        )
    g.draw_mode = draw_mode
    window = pos.get("uno_window", [])
    if not isinstance(window, list):
        raise NotationError("'uno_window' must be a list of seats")
    g.uno_window = set()
    for s in window:
        seat = _seat_value(s, "uno_window", n)
        if seat is None or g.out[seat]:
            raise NotationError(f"'uno_window' must list active seats, not {s!r}")
        g.uno_window.add(seat)
    g.chain_wild = _seat_key(pos, "chain_wild", n)
    if (
        g.colour is None
        and phase is STACK_OR_ABSORB
        and (
            g.chain_wild is None
            or rules.wild_colour_timing != "on_resolution"
            or not (g.discard[-1].is_wild or g.discard[-1].draw_value)
        )
    ):
        # A18 on_resolution: only then is a colour still owed, by the seat that owes it, for
        # the wild on top or under the Draw Cards stacked on it (any other card names one).
        raise NotationError(
            "'colour' may be null in a stack only with wild_colour_timing='on_resolution', "
            "'chain_wild' naming who owes it and a wild or Draw Card on top, not "
            f"{g.discard[-1].code} (A18)"
        )
    g.wd4 = _wd4_key(pos, rules, n)
    g.pending_win = _seat_key(pos, "pending_win", n)
    g.resume = _seat_key(pos, "resume", n)
    if phase is CHOOSE_COLOUR and g.resume is not None and g.out[g.resume]:
        raise NotationError(f"'resume' must be an active seat, not {g.resume}")
    g.roulette_colour = _colour_key(pos, "roulette_colour")
    g.known = _known_key(pos, g.hands, cards)
    default_dealer = (turn - 1) % n if isinstance(turn, int) else 0
    dealer = _seat_key(pos, "dealer", n)
    g.dealer = default_dealer if dealer is None else dealer
    scores = pos.get("scores")
    if scores is not None and (not isinstance(scores, list) or len(scores) != n):
        raise NotationError(f"'scores' must list {n} integers")
    g.scores = [_int_value(v, "scores", None) for v in scores] if scores else [0] * n
    g.hand_number = _int_key(pos, "hand_number", 1, minimum=1)
    g.hand_winner = _seat_key(pos, "hand_winner", n)
    g.winner = _seat_key(pos, "winner", n)
    log = pos.get("log", [])
    if not isinstance(log, list) or not all(
        isinstance(e, Mapping) and "kind" in e and "text" in e for e in log
    ):
        raise NotationError("'log' must be a list of events with 'kind' and 'text'")
    try:
        g.log = [Event.from_dict(dict(e)) for e in log]
    except ValueError as exc:  # EventKind refuses an unknown kind
        raise NotationError(f"'log': {exc}") from None
    g.hand_start = _int_key(pos, "hand_log_start", 0)
    if not 0 <= g.hand_start <= len(g.log):
        raise NotationError(f"'hand_log_start' must be between 0 and {len(g.log)}")
    _check_reachable(g, chain_given)
    g.start = dict(pos)
    g.start.pop("log", None)
    g.start.pop("history", None)
    return g


def _check_colour_owed(g: Game, top: Card) -> None:
    """Phase ``choose_colour`` names a colour still owed: the opening Wild's (CL-3) or the
    wild's of a resolved stack, under the Draw Cards stacked on it (A18 ``on_resolution``).
    Until it is named there is no colour (a random-play scan of both presets under random
    options found none in that phase)."""
    if not (top.is_wild or (top.draw_value and g.rules.wild_colour_timing == "on_resolution")):
        raise NotationError(
            f"phase 'choose_colour' needs a wild on top, not {top.code} (CL-3, A18)"
        )
    if g.colour is not None:
        raise NotationError(
            "phase 'choose_colour' names the colour still owed: 'colour' must be null, not "
            f"{g.colour.value!r} (CL-3, A18)"
        )


def _check_reachable(g: Game, chain_given: bool) -> None:  # noqa: C901 (measured in tests/test_complexity.py)
    """Refuse a well-formed position the engine cannot reach (NotationError naming it).

    Each check is a fact the engine's transitions keep (random-play scans of both presets
    under random options, tests/core/test_positions_reachable.py); what play does reach
    stays legal: an empty hand handed over by a last-card 7 or 0 (A16), a hand over the
    Mercy limit on its own turn under a deferred check (A14), ``chain_wild`` and ``resume``
    left over after their stack or colour choice.
    """
    rules = g.rules
    n = g.n
    phase = g.phase
    over = phase is OVER
    top = g.discard[-1]
    turn = g.turn
    if any(score < 0 for score in g.scores):
        raise NotationError(f"'scores' must not be negative, not {g.scores} (NM-40, CL-13)")
    if over:
        if g.winner is None:
            raise NotationError("phase 'over' needs the 'winner' (NM-38)")
    else:
        if g.winner is not None or g.hand_winner is not None:
            raise NotationError(
                "'winner' and 'hand_winner' are set when a hand ends: the phase is 'over' (NM-38)"
            )
    if g.set_aside and not any(g.out):
        raise NotationError(
            "'set_aside' holds the hands of knocked-out players: nobody is out (NM-34)"
        )
    limit = g.rules.facts.mercy_limit
    for s in range(n):
        size = len(g.hand_ids[s])
        if g.uno_called[s] and size > 1:
            raise NotationError(
                f"players[{s}] has called UNO holding {size} cards: a call is for one card (NM-37)"
            )
        if s in g.uno_window and (size != 1 or g.uno_called[s]):
            raise NotationError(
                f"'uno_window' lists seat {s}, which holds {size} card(s)"
                f"{' and has called UNO' if g.uno_called[s] else ''}: only a one-card hand that "
                "has not called may be caught (NM-37)"
            )
        if over or g.out[s]:
            continue
        if (
            limit
            and size > limit
            and not (
                rules.mercy_timing != "immediate" and s == turn and phase is not STACK_OR_ABSORB
            )
        ):
            # A14: only a deferred check leaves the seat to act over the limit until its
            # action ends; anyone else would be out already. A hand exactly at the limit is
            # accepted alone (a scenario's next Mercy check knocks it out).
            raise NotationError(
                f"players[{s}] holds {size} cards, over the Mercy limit {limit}: "
                "it would be out (NM-33)"
            )
        if (
            not size
            and s != g.pending_win
            and not (rules.last_card_effect == "resolve_effects" and g.seven_zero)
        ):
            # Only a last card whose effect still resolves (pending_win), or a last-card 7 or
            # 0 handing the empty hand over (A16 resolve_effects, NM-29, NM-31), leaves an
            # active player without cards.
            raise NotationError(
                f"players[{s}] holds no cards but is in the game: the hand would be over "
                "(NM-38), or name it in 'pending_win'"
            )
    active = [s for s in range(n) if not g.out[s]]
    if limit and not over and all(len(g.hand_ids[s]) >= limit for s in active):
        raise NotationError(
            f"every player in the game holds at least the Mercy limit {limit}: all would be "
            "out (NM-33)"
        )
    if phase is STACK_OR_ABSORB:
        values = {Card(code).draw_value for code, k in rules.deck_table().items() if k}
        if chain_given:
            chain = g.pending_chain
            text = "[" + ", ".join(map(str, chain)) + "]"
            for v in chain:
                if v not in values:
                    raise NotationError(
                        f"'pending.chain' {text}: {v} is no Draw Card value of the deck (NM-15)"
                    )
            if sum(chain) != g.pending_total or chain[-1] != g.pending_last:
                raise NotationError(
                    f"'pending.chain' {text} does not add up to total {g.pending_total} with "
                    f"last {g.pending_last} (NM-16)"
                )
        elif g.pending_last not in values:
            raise NotationError(
                f"'pending.last' {g.pending_last} is no Draw Card value of the deck (NM-15)"
            )
        if not g.can_stack and (len(g.pending_chain) > 1 or g.pending_total != g.pending_last):
            raise NotationError(
                "a stack of several Draw Cards needs stacking (classic_stacking, C04)"
            )
    if g.wd4 is not None and top.kind is not K_WILD_DRAW_FOUR:
        raise NotationError(
            f"'wd4' waits for a challenge of the Wild +4 on top, not {top.code} (CL-8)"
        )
    if phase is ROULETTE_COLOUR and top.kind is not K_WILD_COLOUR_ROULETTE:
        raise NotationError(
            f"phase 'roulette_colour' needs a Colour Roulette on top, not {top.code} (NM-30)"
        )
    if g.roulette_colour is not None and phase not in (ROULETTE_COLOUR, OVER):
        raise NotationError(
            "'roulette_colour' is named for a Roulette's reveal: phase 'roulette_colour' (A21)"
        )
    if phase is CHOOSE_COLOUR:
        _check_colour_owed(g, top)
    if (
        not over
        and g.colour is not None
        and top.colour is not None
        and g.colour is not top.colour
        and not (
            rules.chain_colour_source == "last_wild_named"
            and (top.draw_value or (g.deflect and top.kind in (K_SKIP, K_REVERSE)))
        )
    ):
        # NM-11: a coloured card sets its colour; A18 last_wild_named keeps a wild's colour
        # under the cards stacked on it.
        raise NotationError(
            f"'colour' {g.colour.value} under {top.code}: a coloured top card sets its "
            "colour (NM-11)"
        )
    if g.pending_win is not None and not over:
        if phase in (PLAY, PLAY_DRAWN, DISCARD_ALL_TOP, DISCARD_ALL_SUBSET):
            raise NotationError(
                f"'pending_win' is a last card whose effect still resolves: not in phase "
                f"{phase.value!r} (A16, A17)"
            )
        if g.out[g.pending_win] or g.hand_of(g.pending_win):
            raise NotationError(
                f"'pending_win' names seat {g.pending_win}, which must be in the game with no "
                "cards (A16, A17)"
            )
    if phase is PLAY_DRAWN and turn is not None:
        drawn = g.drawn
        assert drawn is not None
        if not is_playable(g, drawn):
            raise NotationError(
                f"the 'drawn' card {drawn.code} does not match {top.code}: a card drawn to be "
                "played was playable (NM-9, CL-5)"
            )
    if (
        phase in (DISCARD_ALL_TOP, DISCARD_ALL_SUBSET)
        and turn is not None
        and not holds_colour(g, turn, top.colour)
    ):
        raise NotationError(
            f"phase {phase.value!r} needs a card of the Discard All's colour in hand (A09)"
        )
    for (viewer, s), cards in g.known.items():
        # (Cards known about an out seat are refused above: they are not in its empty hand.)
        if phase is PLAY_DRAWN and s == turn and cards:
            rest = list(g.hand_of(s))
            rest.remove(g.drawn)  # type: ignore[arg-type]
            for c in cards:
                if c not in rest:
                    raise NotationError(
                        f"'known.{viewer},{s}' lists the card seat {s} just drew: known cards "
                        "were in the hand before the draw (NM-9)"
                    )
                rest.remove(c)


#: Every value ``draw_mode`` may hold: how the last draw was made (A02, A03, CL-5).
_DRAW_MODES: tuple[str, ...] = tuple(
    dict.fromkeys(
        v
        for spec in OPTIONS
        if spec.name in ("no_playable_action", "voluntary_draw")
        for v in spec.values or ()
        if v != "off"
    )
)


def _int_value(value: Any, what: str, minimum: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotationError(f"'{what}' must be an integer, not {value!r}")
    if minimum is not None and value < minimum:
        raise NotationError(f"'{what}' must be at least {minimum}, not {value}")
    return value


def _int_key(
    data: Mapping[str, Any],
    key: str,
    default: int | None,
    *,
    minimum: int | None = None,
    where: str = "",
) -> int:
    """An integer position key (``default`` when absent; ``None``: the key is required)."""
    if key not in data or data[key] is None:
        if default is None:
            raise NotationError(f"'{where}{key}' is required")
        return default
    return _int_value(data[key], where + key, minimum)


def _shuffle_state(data: Mapping[str, Any]) -> tuple[int, int]:
    """The key of the next shuffle (``seed``) and the generator it seeds (``deal_version``,
    version 1 when absent), or a NotationError naming the key that is wrong."""
    value = data.get("deal_version", DEAL_VERSION)
    if isinstance(value, bool) or not isinstance(value, int) or value not in DEAL_VERSIONS:
        raise NotationError(
            f"'deal_version' must be one of {', '.join(map(str, DEAL_VERSIONS))}, not {value!r}"
        )
    return _int_key(data, "seed", 0), value


def _seat_value(value: Any, what: str, n: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
        raise NotationError(f"'{what}' must be a seat from 0 to {n - 1} or null, not {value!r}")
    return value


def _known_key(
    pos: Mapping[str, Any], hands: list[list[Card]], cards: Callable[[Any, str], list[Card]]
) -> dict[tuple[int, int], list[Card]]:
    """The position's ``known``: (viewer, seat) -> cards of that seat's hand (NM-29..31)."""
    n = len(hands)
    found: dict[tuple[int, int], list[Card]] = {}
    known = pos.get("known") or {}
    if not isinstance(known, Mapping):
        raise NotationError("'known' must map 'viewer,seat' to card codes")
    for k, v in known.items():
        try:
            viewer, s = (int(x) for x in str(k).split(","))
        except ValueError:
            raise NotationError(f"'known' keys are 'viewer,seat', not {k!r}") from None
        if not (-1 <= viewer < n and 0 <= s < n) or viewer == s:
            raise NotationError(f"'known' key {k!r} names no other seat")
        known_cards = cards(v, f"known.{k}")
        left = list(hands[s])
        for c in known_cards:
            if c not in left:
                raise NotationError(f"'known.{k}' lists {c.code}, not in seat {s}'s hand")
            left.remove(c)
        found[viewer, s] = known_cards
    return found


def _seat_key(data: Mapping[str, Any], key: str, n: int) -> int | None:
    return _seat_value(data.get(key), key, n)


def _colour_key(data: Mapping[str, Any], key: str) -> Colour | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise NotationError(f"'{key}' must be a colour (R, Y, G or B) or null, not {value!r}")
    try:
        return parse_colour(value)
    except NotationError as exc:
        raise NotationError(f"'{key}': {exc}") from None


def _wd4_key(pos: Mapping[str, Any], rules: RuleSet, n: int) -> Wd4 | None:
    """CL-8: the classic Wild +4 awaiting a challenge: who played it, honestly or not."""
    wd4 = pos.get("wd4")
    if not wd4:
        return None
    if not rules.is_classic or not isinstance(wd4, Mapping):
        raise NotationError("'wd4' is a classic Wild +4 awaiting a challenge (CL-8) or null")
    seat = _seat_value(wd4.get("seat"), "wd4.seat", n)
    guilty = wd4.get("guilty")
    if seat is None or not isinstance(guilty, bool):
        raise NotationError("'wd4' needs 'seat' (the player of the Wild +4) and 'guilty' (bool)")
    if pos.get("phase", "stack_or_absorb") != "stack_or_absorb" or seat == pos.get("turn"):
        raise NotationError("'wd4' waits for its target's stack decision: phase 'stack_or_absorb'")
    colour = _colour_key(wd4, "colour")
    return Wd4(seat, guilty, colour)
