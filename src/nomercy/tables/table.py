"""A table: one game, its seats (human or bot) and its turn flow, for every interface.

The :class:`Table` owns the :class:`~nomercy.core.game.Game`. Interfaces never touch the game:
they read :meth:`Table.view` (the engine's :class:`~nomercy.core.views.PlayerView`) and
:meth:`Table.legal_actions` for their seat and the table's public facts (:attr:`Table.rules`,
:attr:`Table.seed`, :attr:`Table.names`, :attr:`Table.moves`, ...), send the seat's choices
through :meth:`Table.submit`, and advance the bots one action at a time with
:meth:`Table.bot_step` (at whatever pace they like), which asks the seats in
:func:`~nomercy.core.decisions.decision_order`'s order. Bots see only their seat's view and
legal actions. A hint for a moment is seeded by :func:`hint_seed` in every interface.

The table holds the seating of its game: which seats are people and which bots (by registry
name), which people are away, and the bot (:attr:`Table.stand_in`) that plays an away
person's seat (:meth:`Table.set_away`, :meth:`Table.robot`). A bot seated by name decides each
move afresh, seeded by :func:`bot_seed` from the game's seed, the move and the seat, so a
resumed game (a restarted server, a loaded record) decides as the uninterrupted one would,
in every interface. The web's rooms play their games at a table: they put its questions
(:meth:`Table.bot_questions`) to the bots in a worker thread and apply the answer themselves
(it must be stored first), and share its timeout (:meth:`Table.timeout_question`), hint
gating (:meth:`Table.hint_refusal`) and the record's seating block (:meth:`Table.seating`).

Saving is a :class:`~nomercy.core.records.GameRecord` (the record JSON) whose ``result``
carries the seating under ``"table"``; resuming replays it (:meth:`Table.from_record`).

>>> table = Table.new(3, bots=["greedy", "greedy"], human=0, seed=4)
>>> while table.to_act != 0 and table.bot_step() is not None:
...     pass
>>> events = table.submit(0, table.legal_actions(0)[0])
>>> bool(events)
True
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from nomercy.bots import Bot, OutOfTurnBot
from nomercy.bots.levels import resolve_level
from nomercy.bots.spec import BotSpec, check_preset, for_table, parse_bot_spec
from nomercy.core.actions import Action, CallUno, Catch, Draw, Pass, Play, parse_action
from nomercy.core.dealing import DEAL_VERSION
from nomercy.core.decisions import Decision, decision_order
from nomercy.core.errors import IllegalActionError, NoMercyError, NotationError
from nomercy.core.events import Event
from nomercy.core.game import Game, new_game
from nomercy.core.records import GameRecord
from nomercy.core.rules import RuleSet
from nomercy.core.views import PlayerView

__all__ = [
    "HUMAN",
    "BotQuestion",
    "BotStep",
    "HintRefusal",
    "SeatBot",
    "Table",
    "TableError",
    "answer",
    "bot_seed",
    "hint_seed",
]

#: The seat kind written for a human seat in a record's ``result["table"]["seats"]``.
HUMAN = "human"
#: How often the terminal app's bots forget to call UNO unless told (``nomercy play
#: --bot-uno-forget``): a human has someone to catch.
PLAY_UNO_FORGET = 0.2


def hint_seed(game_seed: int, move: int, seat: int) -> int:
    """The seed of the coach's search for ``seat`` after ``move`` actions of the game seeded
    ``game_seed``: every interface (the web, the terminal app, ``nomercy analyse``) and every
    request for that moment gets the same hint, a restarted server too.

    >>> hint_seed(1, 2, 3) == hint_seed(1, 2, 3) != hint_seed(1, 3, 3)
    True
    """
    digest = hashlib.sha256(f"hint:{game_seed}:{move}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def bot_seed(game_seed: int, move: int, seat: int) -> int:
    """The seed of the bot deciding move ``move`` (actions so far) for ``seat`` in the game
    seeded ``game_seed``: a resumed game (a restarted server, a loaded record) decides the same.

    >>> bot_seed(1, 2, 3) == bot_seed(1, 2, 3) != bot_seed(1, 3, 3)
    True
    """
    digest = hashlib.sha256(f"{game_seed}:{move}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _nobody(seat: int) -> bool:
    return False


class HintRefusal(StrEnum):
    """Why a seat has nothing for the coach to decide now (:meth:`Table.hint_refusal`)."""

    OVER = "over"
    """The game is over."""
    OUT = "out"
    """The seat is knocked out of this hand (NM-34)."""
    NOT_YOUR_TURN = "not_your_turn"
    """Another seat is to act and this one has no UNO call or catch (NM-37)."""


class TableError(ValueError):
    """A table cannot be set up or resumed (bad seating, unreadable record)."""


@dataclass(frozen=True)
class BotStep:
    """One bot action and the events it produced (unfiltered: censor with ``for_seat``)."""

    action: Action
    events: list[Event]


@dataclass(frozen=True)
class BotQuestion:
    """One bot decision to make: in turn (``choose_action``) or out of turn. It holds its own
    view and legal list, so it can be answered away from the game (in a worker thread)."""

    seat: int
    bot: Bot
    view: PlayerView
    legal: list[Action]
    in_turn: bool


def answer(questions: Sequence[BotQuestion]) -> Action | None:
    """The first action the bots choose, asking in order (``None``: every bot declined)."""
    for q in questions:
        if q.in_turn:
            return q.bot.choose_action(q.view, q.legal)
        assert isinstance(q.bot, OutOfTurnBot)
        action = q.bot.choose_out_of_turn(q.view, q.legal)
        if action is not None:
            return action
    return None


#: Mixed into a move's seed for its UNO-forgetting roll, apart from the bot's own draws.
_FORGET_SALT = 0x5EED_F0A6


@dataclass
class _Forgetting:
    """A seat bot's UNO forgetting: its generator, and the decision for the UNO chance on
    offer (``None``: none on offer)."""

    rng: random.Random
    forgetting: bool | None = None


class SeatBot:
    """A table's wrapper around a bot: it forgets UNO at a rate and catches anyone it can.

    - **Forgetting** (NM-37): at each UNO chance (a ``play ... uno`` variant or ``N:uno`` on
      offer) the bot decides once, with probability ``uno_forget``, to forget; while it
      forgets it plays the variant without ``uno`` and lets ``N:uno`` go. The decision holds
      until no UNO chance is on offer. A :meth:`named` bot rolls it from the seed of the move
      where the chance begins (:meth:`for_move`), any other from its own
      ``random.Random(seed)``.
    - **Catching**: in turn it first catches an opponent who did not call UNO; out of turn it
      does what the wrapped bot does (if it acts out of turn at all), and otherwise catches.
      So every bot catches, whatever the wrapped bot would do.

    >>> from nomercy.bots import make_bot
    >>> SeatBot(make_bot("random"), uno_forget=0.5).name
    'random'
    """

    def __init__(self, bot: Bot, *, uno_forget: float = 0.0, seed: int = 0) -> None:
        if not 0.0 <= uno_forget <= 1.0:
            raise TableError(f"the UNO forget rate must be between 0 and 1, not {uno_forget}")
        self.bot = bot
        self.name = bot.name
        self.uno_forget = uno_forget
        self._memory = _Forgetting(random.Random(seed))
        #: The seed of the move this copy decides (:meth:`for_move`), which also rolls the
        #: forgetting at a chance's start: a resumed game forgets as the uninterrupted one.
        self._move_seed: int | None = None
        #: The registry name the bot is made from again for each move (:meth:`named`).
        self.kind: str | None = None
        self._spec: BotSpec | None = None  # what kind parses to: rebuilt for each move

    @classmethod
    def named(
        cls,
        kind: str,
        *,
        uno_forget: float = 0.0,
        seed: int = 0,
        table: tuple[str, int] | None = None,
    ) -> SeatBot:
        """A seat bot made from registry name ``kind`` again for each move (:meth:`for_move`,
        with :func:`bot_seed`); ``seed`` seeds its UNO forgetting. ``table`` (preset, players):
        ``best`` is the strongest bot there (:func:`~nomercy.bots.spec.for_table`).

        Raises:
            TableError: an unknown bot name or a bad forget rate.
        """
        try:
            spec = parse_bot_spec(kind)
            if table is not None:
                spec = for_table(spec, *table)
            bot = spec.build(0)
        except ValueError as exc:
            raise TableError(str(exc)) from None
        seat_bot = cls(bot, uno_forget=uno_forget, seed=seed)
        seat_bot.kind = kind
        seat_bot._spec = spec
        return seat_bot

    def for_move(self, seed: int) -> SeatBot:
        """This seat's bot for one move: a :meth:`named` bot made afresh with ``seed``, sharing
        this one's UNO forgetting (a question answered in a worker thread holds its own bot);
        any other bot is itself, keeping its state."""
        if self._spec is None:
            return self
        bot = copy.copy(self)
        bot.bot = self._spec.build(seed)
        bot._move_seed = seed
        return bot

    def __repr__(self) -> str:
        return f"SeatBot({self.bot!r}, uno_forget={self.uno_forget})"

    def _decide(self, legal: list[Action]) -> bool:
        """Whether the bot forgets UNO now (rolled once per UNO chance)."""
        chance = any(isinstance(a, CallUno) or (isinstance(a, Play) and a.uno) for a in legal)
        memory = self._memory
        if not chance:
            memory.forgetting = None
            return False
        if memory.forgetting is None:
            # A named bot rolls from its move's seed (bot_seed), not from a stream a resumed
            # game would restart: the same game forgets the same, saved and resumed or not
            # (unless saved in the middle of a chance, whose roll is not in the record).
            rng = memory.rng
            if self._move_seed is not None:
                rng = random.Random(self._move_seed ^ _FORGET_SALT)
            memory.forgetting = self.uno_forget > 0 and rng.random() < self.uno_forget
        return memory.forgetting

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        """A catch if one is on offer, else the wrapped bot's choice (no UNO call if it forgets).

        A catch does not end the turn, so the bot still plays afterwards.
        """
        catches = [a for a in legal if isinstance(a, Catch)]
        if catches:
            return min(catches, key=lambda a: a.target)
        if not self._decide(legal):
            return self.bot.choose_action(view, legal)
        offered = [a for a in legal if not isinstance(a, CallUno)] or legal
        action = self.bot.choose_action(view, offered)
        if isinstance(action, Play) and action.uno:
            silent = replace(action, uno=False)
            if silent in legal:
                return silent
        return action

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        """The wrapped bot's out-of-turn choice, else a catch; no UNO call when it forgets."""
        forgetting = self._decide(legal)
        offered = [a for a in legal if not (forgetting and isinstance(a, CallUno))]
        if not offered:
            return None
        action: Action | None = None
        if isinstance(self.bot, OutOfTurnBot):
            action = self.bot.choose_out_of_turn(view, offered)
        if action is None:
            catches = [a for a in offered if isinstance(a, Catch)]
            if catches:
                action = min(catches, key=lambda a: a.target)
        return action


class Table:
    """A game with its seats: ``bots[s]`` plays seat ``s``, ``None`` marks a human seat.

    A :meth:`SeatBot.named` bot is made afresh for each move (:func:`bot_seed`); any other bot
    keeps its own state through the game (as ``nomercy selfplay``'s do).

    Args:
        game: the game, owned by the table from now on.
        bots: one entry per seat: a bot, or ``None`` for a human seat.
        meta: how the table was made (bot names, forget rate), written into saved records.
        stand_in: the registry name of the bot that plays a person's seat while they are away
            (:meth:`set_away`) or when their time runs out (:meth:`timeout_question`); ``None``:
            people are never away.

    Raises:
        TableError: the number of entries is not the number of seats, or an unknown stand-in.
    """

    def __init__(
        self,
        game: Game,
        bots: Sequence[Bot | None],
        *,
        meta: Mapping[str, Any] | None = None,
        stand_in: str | None = None,
    ) -> None:
        if len(bots) != game.n:
            raise TableError(f"{len(bots)} seats given for a {game.n}-player game")
        if stand_in is not None:
            # an unknown name fails now, not at the first absence
            SeatBot.named(stand_in, table=(game.rules.preset, game.n))
        self.game = game
        self.bots: list[Bot | None] = list(bots)
        self.meta: dict[str, Any] = dict(meta or {})
        self.stand_in = stand_in
        self._away = [False] * game.n

    # ------------------------------------------------------------------ making
    @classmethod
    def new(
        cls,
        players: int,
        *,
        bots: Sequence[str],
        human: int | None = 0,
        rules: str = "no-mercy",
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        uno_forget: float = 0.0,
        names: Sequence[str] | None = None,
        deal_version: int = DEAL_VERSION,
    ) -> Table:
        """A new game with one human seat (or none) and the named bots in the other seats.

        ``bots`` lists one registry name or level (``easy`` ... ``expert``,
        :mod:`nomercy.bots.levels`) per bot seat in seat order; a single name fills every
        bot seat. Each bot decides each move afresh, seeded by :func:`bot_seed` (as the web's
        bots); its UNO forgetting is seeded ``seed * 100 + s + 50`` for seat ``s``.
        ``deal_version`` chooses the shuffles' generator (``new_game``); the table's record
        names it, so a resumed game deals on as it began.

        Raises:
            TableError: a bad seat, bot list or forget rate.
            RuleSetError: a bad preset, option or player count (from :func:`new_game`).
        """
        game = new_game(
            players,
            rules=rules,
            options=options,
            seed=seed,
            names=list(names) if names is not None else None,
            deal_version=deal_version,
        )
        if human is not None and not 0 <= human < players:
            raise TableError(f"seat {human} is not a seat of a {players}-player game")
        bot_seats = [s for s in range(players) if s != human]
        wanted = list(bots)
        if len(wanted) == 1:
            wanted *= len(bot_seats)
        if len(wanted) != len(bot_seats):
            raise TableError(f"{len(wanted)} bots listed for {len(bot_seats)} bot seats")
        kinds: list[str] = [HUMAN] * players
        for seat, name in zip(bot_seats, wanted, strict=True):
            kinds[seat] = name
        return cls._seated(game, kinds, seed=seed, uno_forget=uno_forget)

    @classmethod
    def _seated(cls, game: Game, kinds: Sequence[str], *, seed: int, uno_forget: float) -> Table:
        """The table of ``game`` with ``kinds`` seated (a new table's and a resumed one's),
        each bot checked against the preset (``rlcard-rule`` plays classic only)."""
        seated: list[Bot | None] = []
        # A level (easy ... expert) plays its bot for this preset; the table and its record
        # name that bot, so a saved game replays with it.
        kinds = [k if k == HUMAN else resolve_level(k, game.rules.preset) for k in kinds]
        for seat, kind in enumerate(kinds):
            if kind == HUMAN:
                seated.append(None)
                continue
            try:
                check_preset(parse_bot_spec(kind).name, game.rules.preset)
            except ValueError as exc:
                raise TableError(str(exc)) from None
            seated.append(
                SeatBot.named(
                    kind,
                    uno_forget=uno_forget,
                    seed=seed * 100 + seat + 50,
                    table=(game.rules.preset, game.n),
                )
            )
        meta = {"seats": list(kinds), "bot_uno_forget": uno_forget}
        return cls(game, seated, meta=meta)

    @classmethod
    def from_record(cls, record: GameRecord, *, uno_forget: float | None = None) -> Table:
        """Resume a saved table: replay the record and seat the recorded bots again.

        A record without table data (e.g. from ``nomercy selfplay``) seats a human at seat 0
        and greedy bots elsewhere. The bots decide each move, and roll their UNO forgetting,
        as they would have in the uninterrupted game (:func:`bot_seed`); only a chance to
        call UNO open at the moment of saving is rolled again.

        Raises:
            TableError: the record does not replay or names an unknown bot.
        """
        try:
            game = record.replay()
        except (NoMercyError, TypeError) as exc:
            raise TableError(f"the record does not replay: {exc}") from None
        info = record.result.get("table")
        kinds: list[str]
        if isinstance(info, dict) and isinstance(info.get("seats"), list):
            kinds = [str(k) for k in info["seats"]]
            rate = info.get("bot_uno_forget", 0.0)
            if isinstance(rate, bool) or not isinstance(rate, (int, float)):
                raise TableError(f"the record's bot_uno_forget must be a number, not {rate!r}")
        elif isinstance(info, dict) and "seats" in info:
            raise TableError(f"the record's seats must be a list, not {info['seats']!r}")
        else:
            kinds = [HUMAN] + ["greedy"] * (game.n - 1)
            rate = 0.0
        if len(kinds) != game.n:
            raise TableError(f"the record seats {len(kinds)} players in a {game.n}-player game")
        return cls._seated(
            game,
            kinds,
            seed=record.seed,
            uno_forget=float(rate) if uno_forget is None else uno_forget,
        )

    # ------------------------------------------------------------------ reading
    @property
    def humans(self) -> list[int]:
        """The human seats."""
        return [s for s, bot in enumerate(self.bots) if bot is None]

    @property
    def kinds(self) -> list[str]:
        """Each seat's kind: ``"human"`` or its bot's registry name."""
        return [
            HUMAN if bot is None else (getattr(bot, "kind", None) or bot.name) for bot in self.bots
        ]

    def is_away(self, seat: int) -> bool:
        """Whether ``seat`` is a person's who is away (the :attr:`stand_in` plays it)."""
        return self._away[seat]

    def set_away(self, seat: int, away: bool) -> None:
        """Mark a person away (the :attr:`stand_in` bot plays their seat) or back.

        Raises:
            TableError: ``seat`` is a bot's, or the table has no stand-in.
        """
        if away and self.bots[seat] is not None:
            raise TableError(f"seat {seat} is a bot's: only a person is away")
        if away and self.stand_in is None:
            raise TableError("this table has no bot to play an away person's seat")
        self._away[seat] = away

    def take_over(self, seat: int) -> None:
        """A person takes ``seat`` over from its bot: from its next decision on, the seat is
        theirs (a bot's answer being worked out now is dropped by the caller, which asks
        :meth:`robot` before applying it). The game and its seeding are untouched.

        Raises:
            TableError: ``seat`` is already a person's.
        """
        if self.bots[seat] is None:
            raise TableError(f"seat {seat} is a person's already")
        self.bots[seat] = None
        self._away[seat] = False
        if isinstance(self.meta.get("seats"), list):
            self.meta["seats"][seat] = HUMAN

    def robot(self, seat: int) -> bool:
        """Whether a bot plays ``seat`` now: a bot's seat, or a person's while away."""
        return self.bots[seat] is not None or self._away[seat]

    def bot_seed(self, seat: int) -> int:
        """:func:`bot_seed` for ``seat`` now."""
        return bot_seed(self.game.seed, self.game.moves, seat)

    def seat_bot(self, seat: int) -> Bot:
        """The bot that decides for ``seat`` now: its own (a :meth:`SeatBot.named` one made
        afresh for this move), or, for a person's seat, the :attr:`stand_in` for this move.

        Raises:
            TableError: a person's seat at a table without a stand-in.
        """
        bot = self.bots[seat]
        if bot is None:
            if self.stand_in is None:
                raise TableError(f"seat {seat} is a person's and the table has no stand-in")
            bot = SeatBot.named(self.stand_in, table=(self.game.rules.preset, self.game.n))
        if isinstance(bot, SeatBot):
            return bot.for_move(self.bot_seed(seat))
        return bot

    def view(self, seat: int | None, *, history: bool = True) -> PlayerView:
        """What ``seat`` may see (``Game.view``; ``None``: a spectator)."""
        return self.game.view(seat, history=history)

    @property
    def rules(self) -> RuleSet:
        """The game's rules."""
        return self.game.rules

    @property
    def seed(self) -> int:
        """The game's seed (``nomercy play --seed`` deals the game again)."""
        return self.game.seed

    @property
    def deal_version(self) -> int:
        """The game's deal version: with the seed, what deals the game again."""
        return self.game.deal_version

    @property
    def players(self) -> int:
        """The number of seats."""
        return self.game.n

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' display names."""
        return tuple(self.game.names)

    @property
    def moves(self) -> int:
        """The actions played so far in the game (every hand)."""
        return self.game.moves

    @property
    def hand_number(self) -> int:
        """The current hand's number (a match deals several, NM-41)."""
        return self.game.hand_number

    @property
    def to_act(self) -> int | None:
        """The seat whose decision the game waits for (``None``: over)."""
        return self.game.to_act

    @property
    def is_over(self) -> bool:
        """Whether the game (the match, with scoring) is over."""
        return self.game.is_over

    def opening_events(self, seat: int | None) -> list[Event]:
        """The deal's events (before the first action) as ``seat`` saw them."""
        return [e.for_seat(seat) for e in self.game.opening_events]

    def hint_seed(self, seat: int) -> int:
        """:func:`hint_seed` for ``seat`` now."""
        return hint_seed(self.game.seed, self.game.moves, seat)

    def hint_refusal(self, seat: int) -> HintRefusal | None:
        """Why ``seat`` gets no hint now (``None``: it has a decision the coach may search):
        hints are for the seat to act, and for a UNO call or a catch out of turn (NM-37)."""
        game = self.game
        if game.is_over:
            return HintRefusal.OVER
        if game.out[seat]:
            return HintRefusal.OUT
        if game.to_act != seat and not any(
            isinstance(a, (CallUno, Catch)) for a in game.legal_actions(seat)
        ):
            return HintRefusal.NOT_YOUR_TURN
        return None

    @staticmethod
    def seating(kinds: Sequence[str], uno_forget: float = 0.0) -> dict[str, Any]:
        """A record's seating block (``result["table"]``): each seat's kind (``"human"`` or a
        bot's registry name) and the bots' UNO forget rate; :meth:`from_record` reads it."""
        return {"seats": list(kinds), "bot_uno_forget": float(uno_forget)}

    def legal_actions(self, seat: int) -> list[Action]:
        """What ``seat`` may do now, in turn or out of turn (empty once it is out)."""
        if self.game.is_over or self.game.out[seat]:
            return []
        return self.game.legal_actions(seat)

    # ------------------------------------------------------------------ acting
    def parse(self, seat: int, text: str) -> Action:
        """Parse notation typed for ``seat`` (without a prefix, ``seat`` acts).

        Raises:
            NotationError: the text does not parse.
            IllegalActionError: the text names another seat.
        """
        action = parse_action(text, seat)
        if action.seat != seat:
            raise IllegalActionError(f"seat {seat} cannot act for seat {action.seat}")
        return action

    def submit(self, seat: int, action: Action | str) -> list[Event]:
        """Apply ``seat``'s action (an action or its notation); return the events.

        Raises:
            NotationError / IllegalActionError: the action does not parse or is not legal;
                the game is unchanged.
        """
        if isinstance(action, str):
            action = self.parse(seat, action)
        if not isinstance(action, Action):
            raise NotationError(f"not an action: {action!r}")
        if action.seat != seat:
            raise IllegalActionError(f"seat {seat} cannot act for seat {action.seat}")
        if self.game.is_over:
            raise IllegalActionError("the game is over")
        return self.game.apply(action)

    def bot_step(self) -> BotStep | None:
        """Let the bots take one action, if any bot acts now; ``None`` means a human's turn.

        The seats are asked in :func:`~nomercy.core.decisions.decision_order`'s order (the
        web's and the driver's), as :meth:`bot_questions` puts them: a seat to act that may
        call UNO alone (NM-37), else seats that may call UNO, then the other seats'
        out-of-turn actions (catches), then the seat to act. If the seat to act is a person's
        and no bot acts out of turn, nothing happens.

        Raises:
            RuntimeError: a bot chose an illegal action.
        """
        for question in self.bot_questions():
            bot = question.bot
            if question.in_turn:
                action: Action | None = bot.choose_action(question.view, question.legal)
            else:
                assert isinstance(bot, OutOfTurnBot)
                action = bot.choose_out_of_turn(question.view, question.legal)
            if action is not None:
                return self._apply(bot, action, question.legal)
        return None

    def _asks_out_of_turn(self, seat: int) -> bool:
        bot = self.bots[seat]
        return self._away[seat] if bot is None else isinstance(bot, OutOfTurnBot)

    def bot_questions(self) -> list[BotQuestion]:
        """The decisions to put to the bots now, in
        :func:`~nomercy.core.decisions.decision_order`'s order, for the seats a bot plays
        (:meth:`robot`; out of turn, only bots that act out of turn): the first that takes an
        action acts (:func:`answer`). A person to act who may call UNO is asked alone (NM-37:
        no bot may catch them first); a person's seat is left out.
        """
        return [
            BotQuestion(d.seat, self.seat_bot(d.seat), self.game.view(d.seat), d.legal, d.in_turn)
            for d in self.bot_decisions()
        ]

    def bot_decisions(self) -> list[Decision]:
        """The decisions :meth:`bot_questions` puts to the bots, without their views (whether
        any bot has one to take)."""
        if self.game.is_over:
            return []
        return [
            d for d in decision_order(self.game, asked=self._asks_out_of_turn) if self.robot(d.seat)
        ]

    def questions(self, robot: Callable[[int], bool]) -> list[Decision]:
        """The decisions to put to the seats ``robot`` names, in
        :func:`~nomercy.core.decisions.decision_order`'s order (a seat to act that ``robot``
        rejects is left out: its person decides); :meth:`bot_questions` asks the table's own
        seating."""
        return [d for d in decision_order(self.game, asked=robot) if robot(d.seat)]

    def timeout_choice(self, seat: int) -> tuple[Action | None, list[Action]]:
        """What the seat to act does when its time runs out: draw (or take the penalty), else
        pass (``(action, [])``); else ``(None, legal)``: a bot chooses among its in-turn
        actions (a forced play, a colour, a Discard All choice, a challenge).

        Raises:
            TableError: ``seat`` is not to act.
        """
        mine = decision_order(self.game, asked=_nobody)
        if not mine or mine[-1].seat != seat:
            raise TableError(f"seat {seat} is not to act")
        legal = mine[-1].legal
        for kind in (Draw, Pass):
            for action in legal:
                if type(action) is kind:
                    return action, []
        return None, [a for a in legal if not isinstance(a, (CallUno, Catch))] or legal

    def timeout_question(self, seat: int) -> Action | BotQuestion:
        """What ``seat`` (to act) does when its time runs out: :meth:`timeout_choice`'s
        action, else the question for its bot (:meth:`seat_bot`: a person's seat gets the
        stand-in) among its in-turn actions.

        Raises:
            TableError: ``seat`` is not to act, or a person's seat without a stand-in.
        """
        action, in_turn = self.timeout_choice(seat)
        if action is not None:
            return action
        return BotQuestion(seat, self.seat_bot(seat), self.game.view(seat), in_turn, True)

    def _apply(self, bot: Bot, action: Action, legal: list[Action]) -> BotStep:
        if action not in legal:
            raise RuntimeError(f"bot {bot.name!r} chose {action!r}, which is not legal")
        return BotStep(action, self.game.apply(action))

    # ------------------------------------------------------------------ saving
    def record(self) -> GameRecord:
        """The game so far as a record, with the seating under ``result["table"]``."""
        record = GameRecord.from_game(self.game)
        seats = self.meta.get("seats") or self.kinds
        record.result["table"] = self.seating(seats, self.meta.get("bot_uno_forget", 0.0))
        record.result["bots"] = list(seats)
        return record

    def dumps(self) -> str:
        """The record as JSON text (``nomercy replay`` narrates it)."""
        return self.record().dumps()

    @classmethod
    def loads(cls, text: str) -> Table:
        """Resume from record JSON text.

        Raises:
            TableError: not a record, or it does not replay.
        """
        try:
            record = GameRecord.loads(text)
        except NotationError as exc:
            raise TableError(str(exc)) from None
        return cls.from_record(record)
