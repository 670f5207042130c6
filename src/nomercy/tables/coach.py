"""The coach: the strongest bot's move for one seat, its estimated chance to win the hand,
the estimates of the alternatives, and a one-line reason. Shared by the terminal app (``h``),
the web server (the Hint button) and ``nomercy analyse``.

Everything is computed from what the seat may know: its view (``Game.view(seat)``) and its
legal actions, exactly what a bot receives. The estimates are the root statistics of an
information-set search (:meth:`ISMCTSBot.root_statistics
<nomercy.bots.ismcts_bot.ISMCTSBot.root_statistics>`): the search deals the cards the seat
cannot see at random, consistently with its view, thousands of times, and an action's
estimate is its mean result (1 for a won hand, 0 for a lost one; a position the search did
not play to the end is scored by hand sizes and Mercy distances). So the chance is an
estimate, close for the moves the search tried often (``visits``), rough for the others.

The reason is picked by the situation the move is in (:data:`REASONS` lists every kind with
its English template): ``kind`` and ``data`` (numbers, names, colour letters, card codes)
fill the web client's translated template ``coach.KIND``; ``text`` is the English.

>>> from nomercy import new_game
>>> g = new_game(2, seed=4)
>>> hint = Coach(seed=1, iterations=60, max_time=30).hint(g.view(g.to_act),
...                                                      g.legal_actions(g.to_act))
>>> hint.action in g.legal_actions(g.to_act), 0.0 <= hint.chance <= 1.0
(True, True)
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nomercy.bots.ismcts_bot import ActionStats, ISMCTSBot
from nomercy.bots.knowledge import read_view
from nomercy.bots.registry import BEST, make_bot
from nomercy.core.actions import Action, CallUno, Catch, Challenge, ChooseColour, Draw, Pass, Play
from nomercy.core.base import Phase
from nomercy.core.cards import COLOURS, Card, Colour, Kind, parse_card
from nomercy.core.rules import CLASSIC_RULE_IDS
from nomercy.core.views import PlayerView, Stack
from nomercy.tables.advice import consequences

__all__ = [
    "CALIBRATED_WEIGHTS",
    "CALIBRATION",
    "DEFAULT_ITERATIONS",
    "DEFAULT_MAX_TIME",
    "REASONS",
    "Coach",
    "CoachError",
    "Estimate",
    "Hint",
    "Reason",
    "calibrated",
    "certain_chance",
    "reason_for",
]

#: Search iterations per hint: about 0.15-0.3 s with the compiled engine on the team's machine.
DEFAULT_ITERATIONS = 1500
#: The wall-clock cap of one hint's search, in seconds (a slower machine gets fewer iterations).
DEFAULT_MAX_TIME = 0.5

#: The ``puct`` coach's chances are its search's means put through ``sigmoid(a * logit(p) +
#: b)``, with ``(a, b)`` by table (classic?, seats): the network's value is not equally sure
#: of itself at every table (issue 29: the chance shown must come true). Fitted on games no
#: held-out figure uses (``python benchmarks/bench_calibration.py --seed 7 --games 480 --raw
#: --fit``; docs/coach.md) for the weights whose SHA-256 begins with
#: :data:`CALIBRATED_WEIGHTS`: refit when the weights change (a test checks). Tables not
#: listed (No Mercy with 5 or 6 seats, classic with 3 or more) show the mean as it is.
CALIBRATION: dict[tuple[bool, int], tuple[float, float]] = {
    (True, 2): (1.1154, -0.155),
    (False, 2): (0.9713, -0.1031),
    (False, 3): (1.2039, -0.1784),
    (False, 4): (1.0988, 0.0875),
}
#: The first hex digits of the SHA-256 of the ``puct.npz`` that :data:`CALIBRATION` fits.
CALIBRATED_WEIGHTS = "285b69379d9fd071"


def calibrated(chance: float, classic: bool, seats: int) -> float:
    """The chance the ``puct`` coach shows for its search's mean ``chance`` at a table
    (:data:`CALIBRATION`)."""
    fit = CALIBRATION.get((classic, seats))
    if fit is None or chance in (0.0, 1.0):
        return chance  # a hand every deal won (or lost) stays sure
    a, b = fit
    p = min(max(chance, 1e-4), 1 - 1e-4)
    return 1.0 / (1.0 + math.exp(-(a * math.log(p / (1 - p)) + b)))


#: Every reason kind with its English template (the web client's ``coach.KIND``).
REASONS: dict[str, str] = {
    "forced": "it is your only move",
    "win": "play your last card and win the hand",
    "call_uno": "call UNO now, or an opponent who catches you first makes you draw {penalty}",
    "catch": "{name} did not call UNO: catching them makes them draw {penalty}",
    "stack": "stacking passes the {total}-card penalty on to {name} instead of taking it",
    "stack_knockout": (
        "stacking passes {total} cards to {name}, who is {distance} from the Mercy limit: "
        "it knocks them out"
    ),
    "absorb": (
        "take the {total} cards now: stacking rates lower ({alt_chance}% chance to win with "
        "{alt_card}), the penalty would likely come back bigger"
    ),
    "attack": "{card} makes {name} ({size} cards) draw {value}",
    "attack_knockout": (
        "{card} can knock {name} out: they are {distance} cards from the Mercy limit"
    ),
    "attack_leader": "{card} slows down {name}, who holds only {size} cards",
    "roulette": "the Colour Roulette makes {name} turn up cards until their colour shows",
    "discard_all": "the Discard All sheds {count} {colour} cards at once",
    "swap": "swap hands with {name}: you get their {size} cards for your {given}",
    "zero": "the 0 passes every hand on: you get {name}'s {size} cards for your {given}",
    "again": "{card} gives you another turn",
    "skip": "{card} skips {name}, who holds only {size} cards",
    "keep_wild": "play {card} and keep your wild cards for later",
    "colour_most": "{card} keeps to {colour}, the colour you hold most ({count} more)",
    "wild_colour": "the wild names {colour}, the colour you hold most ({count} cards)",
    "wild_lack": "the wild names {colour}: {name}, who plays next, showed they have none",
    "shed_points": "{card} sheds the most points ({points})",
    "name_colour": "name {colour}: you hold {count} {colour} cards",
    "roulette_colour": (
        "name {colour}: {count} of the unseen cards are {colour}, so the reveal should stop soon"
    ),
    "keep_drawn": "keep the drawn card: playing it rates lower ({alt_chance}% chance to win)",
    "stop_discard": "stop here: discarding more rates lower ({alt_chance}% chance to win)",
    "draw": "draw: the best play rates lower ({alt_chance}% chance to win with {alt_card})",
    "challenge": (
        "challenge the Wild +4: {name} likely held a {colour} card, the colour it replaced"
    ),
    "accept": (
        "take the cards: challenging rates lower ({alt_chance}% chance to win after a challenge)"
    ),
    "best": (
        "the search rates it best: {chance}% chance to win against {alt_chance}% for {alt_card}"
    ),
    "close": (
        "the search tried it most; {alt_card} rates about as well ({alt_chance}% against "
        "{chance}% chance to win)"
    ),
}


class CoachError(ValueError):
    """The coach cannot give a hint now (not the seat's decision, a spectator's view)."""


@dataclass(frozen=True)
class Reason:
    """Why the coach suggests a move: ``kind`` and ``data`` for templates, ``text`` in English."""

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    rules: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "text", "data", "rules"}``."""
        return {"kind": self.kind, "text": self.text, "data": self.data, "rules": list(self.rules)}


@dataclass(frozen=True)
class Estimate:
    """One searched action: its estimated chance to win the hand and how often it was tried."""

    action: Action
    chance: float
    visits: int

    def to_json(self) -> dict[str, Any]:
        """``{"action": notation, "chance", "visits"}``."""
        return {"action": str(self.action), "chance": round(self.chance, 4), "visits": self.visits}


@dataclass(frozen=True)
class Hint:
    """The coach's advice for one decision.

    Attributes:
        seat: the seat advised.
        action: the suggested action (one of the seat's legal actions).
        chance: the estimated chance to win the hand after it (``None`` when the seat is not
            to act: an UNO call or a catch out of turn, which the search does not weigh).
        reason: why, in one line.
        estimates: every searched action, best first (the suggestion's in-turn move first;
            empty when nothing was searched).
        iterations: search iterations run; seconds: the time the hint took.
    """

    seat: int
    action: Action
    chance: float | None
    reason: Reason
    estimates: list[Estimate]
    iterations: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """The hint as JSON data (docs/web-protocol.md, ``hint``)."""
        return {
            "seat": self.seat,
            "action": str(self.action),
            "chance": None if self.chance is None else round(self.chance, 4),
            "reason": self.reason.to_json(),
            "estimates": [e.to_json() for e in self.estimates],
            "iterations": self.iterations,
            "seconds": round(self.seconds, 3),
        }

    def line(self) -> str:
        """One line in English: the move, the chance and the reason."""
        chance = "" if self.chance is None else f" (estimated chance to win: {_pct(self.chance)}%)"
        return f"{self.action}{chance}: {self.reason.text}"


class Coach:
    """Hints from the information-set search, for one seat's view at a time.

    Args:
        seed: seeds each hint's search; the same seed and view give the same hint (as long as
            ``max_time`` does not cut the search short).
        iterations: search iterations per hint.
        max_time: the wall-clock cap of one search, in seconds.
        bot: the search: ``"puct"`` (the default where numpy is installed:
            :data:`~nomercy.bots.registry.BEST`) or ``"ismcts"``.
        calibrated: show ``puct``'s chances through :data:`CALIBRATION` (``False``: the
            search's means as they are, for fitting it).

    Raises:
        ValueError: a non-positive budget, or another bot.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        iterations: int = DEFAULT_ITERATIONS,
        max_time: float = DEFAULT_MAX_TIME,
        bot: str = BEST,
        calibrated: bool = True,
    ) -> None:
        if bot not in ("puct", "ismcts"):
            raise ValueError(f"the coach searches with 'puct' or 'ismcts', not {bot!r}")
        self.bot = bot
        self.calibrated = calibrated and bot == "puct"
        self.seed = seed
        self.iterations = iterations
        self.max_time = max_time
        self._bot(seed)  # the search checks the budget: a bad one fails here, not at a hint

    def _bot(self, seed: int | None) -> ISMCTSBot:
        # The strongest bot's search (BEST: puct, or ismcts without numpy); both are
        # ISMCTSBot and give the same root statistics.
        bot = make_bot(
            self.bot,
            seed=self.seed if seed is None else seed,
            iterations=self.iterations,
            max_time=self.max_time,
        )
        assert isinstance(bot, ISMCTSBot)
        return bot

    def estimates(
        self,
        view: PlayerView,
        legal: Sequence[Action],
        *,
        include: Sequence[Action] = (),
        seed: int | None = None,
    ) -> tuple[list[Estimate], int]:
        """The search's estimate of each in-turn action of the seat to act, best first, and
        the iterations run. ``include``: actions to estimate too (e.g. the move a player made,
        for ``nomercy analyse``) even if the search would leave them out (a play without its
        UNO call). ``seed`` overrides the coach's seed for this search.

        Raises:
            CoachError: the view's seat is not to act.
        """
        seat = view.seat
        if seat is None or view.to_act != seat:
            raise CoachError("the coach estimates only the decisions of the seat to act")
        bot = self._bot(seed)
        candidates = bot.search_candidates(list(legal), view)
        for action in include:
            if action not in candidates and action in legal:
                candidates.append(action)
        if not candidates:
            raise CoachError("no in-turn action to estimate")
        stats = bot.root_statistics(view, candidates)
        ranked = _ranked(stats)
        if self.calibrated:
            # Monotone at a table: the order of the estimates stays the search's.
            classic, seats = view.rules.is_classic, len(view.players)
            ranked = [
                Estimate(e.action, calibrated(e.chance, classic, seats), e.visits) for e in ranked
            ]
        # A certain outcome is shown exactly, never as a sampled figure.
        ranked = [_exact(e, view) for e in ranked]
        return ranked, bot.last_iterations

    def hint(self, view: PlayerView, legal: Sequence[Action], *, seed: int | None = None) -> Hint:
        """The coach's hint for the view's seat, from its view and legal actions only.

        UNO calls and catches come first (the search always makes them, NM-37); otherwise the
        seat must be to act, and the hint is the searched action the search rates best.

        Raises:
            CoachError: a spectator's view, no legal action, or nothing to decide (another
                seat is to act and this one has no UNO call or catch).
        """
        start = time.perf_counter()
        seat = view.seat
        if seat is None:
            raise CoachError("a spectator has no moves to advise")
        legal = list(legal)
        to_act = view.to_act == seat
        if not legal:
            if view.to_act is not None and not to_act:
                raise CoachError("it is not this seat's decision now")
            raise CoachError("there is no legal action to advise")
        estimates: list[Estimate] = []
        iterations = 0
        urgent = _urgent(legal)
        if to_act:
            try:
                estimates, iterations = self.estimates(view, legal, seed=seed)
            except CoachError:
                if urgent is None:
                    raise
                # Only the UNO call or the catch is on offer: nothing to search.
        if urgent is not None:
            chance = estimates[0].chance if estimates else None
            reason = _cited(_urgent_reason(urgent, view), view)
            return Hint(
                seat, urgent, chance, reason, estimates, iterations, time.perf_counter() - start
            )
        if not to_act:
            raise CoachError("it is not this seat's decision now")
        best = estimates[0]
        reason = reason_for(best.action, view, estimates)
        seconds = time.perf_counter() - start
        return Hint(seat, best.action, best.chance, reason, estimates, iterations, seconds)


# ---------------------------------------------------------------------- helpers
def _ranked(stats: list[ActionStats]) -> list[Estimate]:
    """Best first: the most visited (the search's choice), then the better mean."""
    ordered = sorted(stats, key=lambda s: (-s.visits, -s.mean))
    return [Estimate(s.action, s.mean, s.visits) for s in ordered]


#: The consequences (tables/advice.py) that knock the player out for certain (NM-33).
_KNOCKS_OUT = frozenset({"absorb_knocks_out", "draw_knocks_out", "self_target_knocks_out"})


def certain_chance(action: Action, view: PlayerView) -> float | None:
    """The chance to win the hand after ``action`` when the rules fix it, whatever the
    hidden cards: 0 for a move that knocks the player out (NM-33: taking a penalty or drawing
    up to the Mercy limit, a self-aimed penalty it cannot pass on), 1 for a play that empties
    the hand and wins at once (NM-38; A16 ``win_immediately``, or a card without a penalty
    when the last card's effect is not resolved first). ``None`` otherwise.

    >>> from nomercy import Game
    >>> g = Game.from_position({"players": [{"hand": ["R5"]}, {"hand": ["B1", "B2"]}],
    ...     "turn": 0, "discard": ["R1"]})
    >>> certain_chance(g.legal_actions(0)[0], g.view(0))
    1.0
    """
    if any(a.kind in _KNOCKS_OUT for a in consequences(action, view)):
        return 0.0
    if isinstance(action, Play) and view.seat is not None:
        card = action.card
        if len(view.cards_shed(card)) >= len(view.hand):
            effect = view.rules.last_card_effect
            if effect == "win_immediately" or (effect != "resolve_effects" and not card.draw_value):
                return 1.0
    return None


def _exact(estimate: Estimate, view: PlayerView) -> Estimate:
    """``estimate`` with its chance made exact when the rules fix it (:func:`certain_chance`)."""
    sure = certain_chance(estimate.action, view)
    if sure is None or sure == estimate.chance:
        return estimate
    return Estimate(estimate.action, sure, estimate.visits)


def _pct(chance: float) -> int:
    return round(100 * chance)


def _urgent(legal: Sequence[Action]) -> Action | None:
    """An UNO call, else a catch (the lowest seat), if one is on offer."""
    for a in legal:
        if isinstance(a, CallUno):
            return a
    catches = [a for a in legal if isinstance(a, Catch)]
    return min(catches, key=lambda a: a.target) if catches else None


def _fill(kind: str, data: dict[str, Any], rules: tuple[str, ...] = ()) -> Reason:
    """A reason of ``kind``: the English text from :data:`REASONS` with ``data`` in words."""
    words = dict(data)
    for key in ("card", "alt_card"):
        if isinstance(words.get(key), str) and words[key]:
            words[key] = _card_words(words[key])
    if isinstance(words.get("colour"), str) and words["colour"]:
        words["colour"] = Colour(words["colour"]).word
    # The templates say "{size} cards": one card reads "1 card" ("P3's 1 card").
    text = _ONE_CARDS.sub("1 card", REASONS[kind].format(**words))
    return Reason(kind, text, data, rules)


_ONE_CARDS = re.compile(r"\b1 cards\b")


#: The classic rule behind a No Mercy rule id a reason cites (no entry: not cited in
#: classic): the core's one map, which event texts read too.
_CLASSIC_RULES = CLASSIC_RULE_IDS


def _cited(reason: Reason, view: PlayerView) -> Reason:
    """The reason with its rule ids (the classic ones under classic rules) after its text."""
    rules = reason.rules
    if view.rules.is_classic:
        # A classic id (CL-8, the challenge) stays; a No Mercy id maps to its classic rule.
        rules = tuple(
            r if r.startswith("CL-") else _CLASSIC_RULES[r]
            for r in rules
            if r.startswith("CL-") or r in _CLASSIC_RULES
        )
    text = reason.text + (f" [{', '.join(rules)}]" if rules else "")
    return Reason(reason.kind, text, reason.data, rules)


def _card_words(text: str) -> str:
    """A card code (``R7``) in words (``the red 7``); other text (``draw``) as it is."""
    try:
        return f"the {parse_card(text).name}"
    except ValueError:
        return text


def _urgent_reason(action: Action, view: PlayerView) -> Reason:
    penalty = view.rules.uno_penalty_cards
    if isinstance(action, CallUno):
        return _fill("call_uno", {"penalty": penalty}, ("NM-37",))
    assert isinstance(action, Catch)
    name = view.players[action.target].name
    return _fill("catch", {"name": name, "penalty": penalty, "target": action.target}, ("NM-37",))


def _colour_counts(cards: Sequence[Card]) -> Counter[Colour]:
    return Counter(c.colour for c in cards if c.colour is not None)


def _alternative(
    estimates: Sequence[Estimate], chosen: Action, pick: Any = None
) -> Estimate | None:
    """The best estimate other than ``chosen`` (among those ``pick`` accepts)."""
    for e in estimates:
        if e.action != chosen and (pick is None or pick(e.action)):
            return e
    return None


def _alt_data(alt: Estimate | None) -> dict[str, Any]:
    if alt is None:
        return {"alt_chance": 0, "alt_card": ""}
    action = alt.action
    card = action.card.code if isinstance(action, Play) else str(action)
    return {"alt_chance": _pct(alt.chance), "alt_card": card, "alt": str(action)}


def reason_for(action: Action, view: PlayerView, estimates: Sequence[Estimate]) -> Reason:
    """Why ``action`` is the move for the view's seat: the first situation that fits.

    ``estimates`` are the search's (best first); a reason that compares with an alternative
    quotes the best other one's estimate. Only the view is read.
    """
    return _cited(_reason(action, view, estimates), view)


def _reason(action: Action, view: PlayerView, estimates: Sequence[Estimate]) -> Reason:
    seat = view.seat
    assert seat is not None
    others = [e for e in estimates if e.action != action]
    chosen = next((e for e in estimates if e.action == action), None)
    if not others:
        return _fill("forced", {})
    phase = view.phase
    pending = view.pending
    hand = list(view.hand)
    players = view.players
    if isinstance(action, Play):
        return _play_reason(action, view, estimates, chosen, hand, pending, phase)
    if isinstance(action, Draw):
        alt = _alternative(estimates, action, lambda a: isinstance(a, Play))
        if phase is Phase.STACK_OR_ABSORB and pending is not None:
            if any(isinstance(e.action, Challenge) for e in estimates):
                alt = _alternative(estimates, action)
                return _compared("accept", {}, ("CL-8",), chosen, alt)
            return _compared("absorb", {"total": pending.total}, ("NM-17",), chosen, alt)
        alt = alt or _alternative(estimates, action)
        return _compared("draw", {}, ("NM-9",), chosen, alt)
    if isinstance(action, Pass):
        alt = _alternative(estimates, action)
        if phase is Phase.DISCARD_ALL_TOP or phase is Phase.DISCARD_ALL_SUBSET:
            return _compared("stop_discard", {}, ("A09",), chosen, alt)
        return _compared("keep_drawn", {}, ("NM-9",), chosen, alt)
    if isinstance(action, ChooseColour):
        colour = action.colour
        if phase is Phase.ROULETTE_COLOUR:
            knowledge = read_view(view)
            count = knowledge.unseen_of(colour)
            return _fill("roulette_colour", {"colour": colour.value, "count": count}, ("NM-30",))
        count = _colour_counts(hand)[colour]
        return _fill("name_colour", {"colour": colour.value, "count": count}, ("NM-14",))
    if isinstance(action, Challenge):
        play = view.wd4_play
        if play is None:  # nothing says who played the Wild +4: no reason about them
            return _best(action, estimates, chosen)
        # The colour the Wild +4 replaced: holding one makes its play illegal (CL-4).
        replaced = play.colour if play.colour else view.colour
        data = {"name": players[play.seat].name, "colour": replaced.value if replaced else ""}
        return _fill("challenge", data, ("CL-8",))
    return _best(action, estimates, chosen)


def _best(action: Action, estimates: Sequence[Estimate], chosen: Estimate | None) -> Reason:
    return _compared("best", {}, (), chosen, _alternative(estimates, action))


def _compared(
    kind: str,
    data: dict[str, Any],
    rules: tuple[str, ...],
    chosen: Estimate | None,
    alt: Estimate | None,
) -> Reason:
    """A reason that compares the move with the best other one, ``alt``: ``kind`` when the
    move rates higher; ``close`` when ``alt`` rates as high or higher (the search's choice is
    its most tried move, whose mean can trail a less tried one's), so the text never says
    "rates lower" of a higher figure."""
    data = {**data, "chance": _pct(chosen.chance) if chosen else 0, **_alt_data(alt)}
    if chosen is not None and alt is not None and _pct(alt.chance) >= _pct(chosen.chance):
        return _fill("close", data)
    return _fill(kind, data, rules)


def _play_reason(  # noqa: C901 (measured in tests/test_complexity.py)
    action: Play,
    view: PlayerView,
    estimates: Sequence[Estimate],
    chosen: Estimate | None,
    hand: list[Card],
    pending: Stack | None,
    phase: Phase,
) -> Reason:
    seat = view.seat
    assert seat is not None
    players = view.players
    card = action.card
    code = card.code
    if len(hand) == 1:
        return _fill("win", {"card": code})
    rest = list(hand)
    if card in rest:
        rest.remove(card)
    # A move with a consequence the advice warns about (a Wild Reverse +4 coming back with
    # two players) gets the plain comparison, not a reason that would mislead.
    if any(a.kind.startswith("self_target") for a in consequences(action, view)):
        return _best(action, estimates, chosen)
    # The seat a Draw Card's penalty hits (NM-16, NM-24: the engine aims it), else the next.
    target = view.penalty_target(card)
    victim = view.seat_after(seat) if target is None else target
    vp = players[victim]
    if card.draw_value > 0:
        if phase is Phase.STACK_OR_ABSORB and pending is not None:
            total = pending.total + card.draw_value
            distance = vp.mercy_distance or 0
            data = {"card": code, "total": total, "name": vp.name, "distance": distance}
            if view.rules.facts.mercy_limit and 0 < distance <= total:
                return _fill("stack_knockout", data, ("NM-18", "NM-33"))
            return _fill("stack", data, ("NM-18",))
        distance = vp.mercy_distance or 0
        data = {
            "card": code,
            "value": card.draw_value,
            "name": vp.name,
            "size": vp.hand_size,
            "distance": distance,
        }
        if view.rules.facts.mercy_limit and 0 < distance <= card.draw_value:
            return _fill("attack_knockout", data, ("NM-33",))
        if vp.hand_size <= 3:
            return _fill("attack_leader", data, ("NM-17",))
        return _fill("attack", data, ("NM-17",))
    if card.kind is Kind.WILD_COLOUR_ROULETTE:
        return _fill("roulette", {"card": code, "name": vp.name}, ("NM-30",))
    if card.kind is Kind.DISCARD_ALL:
        shed = view.cards_shed(card)  # NM-27, A09: what the engine takes from the hand
        if len(shed) > 1:
            colour = card.colour.value if card.colour else ""
            return _fill("discard_all", {"count": len(shed), "colour": colour}, ("NM-27",))
    if card.kind is Kind.NUMBER and card.number == 7 and action.target is not None:
        tp = players[action.target]
        data = {"name": tp.name, "size": tp.hand_size, "given": len(rest)}
        return _fill("swap", data, ("NM-31",))
    if card.kind is Kind.NUMBER and card.number == 0 and phase is Phase.PLAY:
        giver = view.zero_pass_giver(seat)  # NM-29, A26
        if giver != seat:
            gp = players[giver]
            data = {"name": gp.name, "size": gp.hand_size, "given": len(rest)}
            return _fill("zero", data, ("NM-29",))
    if view.seat_after_play(card, seat) == seat:  # NM-23, NM-25, NM-26, A29: the engine's
        return _fill("again", {"card": code})
    if card.kind is Kind.SKIP and vp.hand_size <= 3:
        return _fill("skip", {"card": code, "name": vp.name, "size": vp.hand_size})
    counts = _colour_counts(rest)
    if card.is_wild and action.colour is not None:
        colour = action.colour
        most = max(counts.values()) if counts else 0
        if counts[colour] and counts[colour] == most:
            return _fill("wild_colour", {"colour": colour.value, "count": counts[colour]})
        lacks = read_view(view).lacks.get(victim, set())
        if colour in lacks:
            return _fill("wild_lack", {"colour": colour.value, "name": vp.name})
        return _best(action, estimates, chosen)
    wild_playable = any(
        isinstance(e.action, Play) and e.action.card.is_wild and e.action != action
        for e in estimates
    )
    if not card.is_wild and wild_playable:
        return _fill("keep_wild", {"card": code})
    if card.colour is not None:
        most = max(counts[c] for c in COLOURS)
        if counts[card.colour] and counts[card.colour] == most:
            return _fill(
                "colour_most",
                {"card": code, "colour": card.colour.value, "count": counts[card.colour]},
            )
    plays = [e.action.card for e in estimates if isinstance(e.action, Play)]
    if plays and card.points >= max(c.points for c in plays) and card.points > 0:
        return _fill("shed_points", {"card": code, "points": card.points})
    return _best(action, estimates, chosen)
