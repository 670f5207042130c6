"""A room's game flow: starting a game, moves, bots, the turn timer, grace periods, history.

A layer of :class:`~nomercy.web.room.Room` over :mod:`~nomercy.web.broadcast`. The server is
the only authority: every move goes through the room's :class:`~nomercy.tables.Table`
(``Table.submit``, the terminal's door: the engine judges it), is stored in the database in
the move's own transaction, and is sent to every connection. The table asks the bots in
:func:`~nomercy.core.decisions.decision_order`'s order, seeds them per move, and says what a
timed-out seat does; the room runs them as asyncio tasks (bots think in a worker thread,
without the room's lock) and retries a bot's or the timer's move the database refused until
it is stored. A person not connected for the grace period is away: the room's bot plays
their seat. Memory: the game lets go of its past as it goes (``EVENTS_HELD``,
``Game.forget``: the record is in the database), so a room holds the same however long its
game runs; a hand longer than that is replayed from the record when the whole of it is read
(:meth:`GameFlow.whole_table`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import secrets
from typing import Any, Self

from nomercy.core.actions import Action, CallUno, Catch, parse_action
from nomercy.core.errors import NoMercyError
from nomercy.core.events import Event
from nomercy.core.game import Game, new_game
from nomercy.core.records import GameRecord
from nomercy.tables.table import BotQuestion, Table, answer
from nomercy.web import messages
from nomercy.web.broadcast import HELLO_HISTORY, Broadcasting
from nomercy.web.protocol import ErrorCode, ProtocolError
from nomercy.web.roomstate import (
    BOT,
    HUMAN,
    OPEN,
    RoomLobby,
    SeatState,
    seat_json,
    unavailable,
)
from nomercy.web.sqlcore import LeaseLost, RoomRow, SeatRow
from nomercy.web.writer import StoreUnavailable

__all__ = ["EVENTS_HELD", "HISTORY_PAGE", "PRESENCE_WAIT", "RETRY_PAUSE", "GameFlow"]

log = logging.getLogger("nomercy.web")

#: Public history entries a ``history`` message carries at most (the client's older pages).
HISTORY_PAGE = 100
#: The current hand's newest events a room's game keeps when it lets go of its past
#: (``Game.forget``: every action and the older events, which are in the database), done
#: when it holds twice as many events or actions: a room's memory is bounded however long
#: its game runs (issue 43). At least ``HELLO_HISTORY``; a hand longer than this is read
#: whole (bots, hints, old history pages) from the game replayed off the event loop.
EVENTS_HELD = 500
#: Seconds between asking the other servers who is here, while a grace period has run out but
#: some live server has not said yet (``GameFlow._away``).
PRESENCE_WAIT = 0.5
#: Seconds a bot or the timer waits before retrying a move the database refused.
RETRY_PAUSE = 0.25


class GameFlow(Broadcasting):
    """A room's game: moves, bots, the turn timer, grace periods and the hand's history."""

    def __init__(self, lobby: RoomLobby[Self], row: RoomRow) -> None:
        super().__init__(lobby, row)
        self._timer_key: tuple[Any, ...] | None = None
        self._in_turn = 0  # in-turn actions so far: the timer restarts when this changes
        self._bot_task: asyncio.Task[None] | None = None
        self._timer_task: asyncio.Task[None] | None = None
        self._grace: dict[int, asyncio.Task[None]] = {}
        self._stuck: str | None = None

    # ------------------------------------------------------------------ starting
    async def start_game(self, game: Game | None = None) -> None:
        """Fill the open seats with bots, deal a new game and store it.

        ``game``: a game to play instead of a new deal (a position, e.g. to rig a test or
        resume an analysis); its record keeps the start position, so it replays like any.
        """
        seats = [s.row() for s in self.seats]
        for row in seats:
            if row.kind == OPEN:
                row.kind, row.bot, row.name = BOT, self.bot, f"Bot {row.seat}"
        names = [row.name or f"P{row.seat}" for row in seats]
        if game is None:
            # Dealing builds the deck: in a worker thread, so no room waits for it.
            game = await asyncio.to_thread(
                functools.partial(
                    new_game,
                    len(self.seats),
                    rules=self.preset,
                    options=self.options,
                    seed=self.config.seed_source(),
                    names=names,
                )
            )
        elif game.n != len(self.seats):
            raise ValueError(f"a {game.n}-player game for {len(self.seats)} seats")
        game_id = secrets.token_urlsafe(9)
        record = GameRecord.from_game(game)
        record.result = self._table_info(seats)
        notice = None
        if self.lobby.cluster is not None:
            text = record.dumps()
            notice = self.notice(
                "game",
                g=game_id,
                rec=text if len(text) < 6000 else None,  # NOTIFY's payload is under 8000 bytes
                seats=[
                    seat_json(SeatState(r.seat, r.name, r.kind, r.bot, r.token_hash)) for r in seats
                ],
            )
        await self.lobby.write(
            functools.partial(
                self.lobby.store.start_game,
                self.code,
                game_id,
                self.games_played + 1,
                record,
                seats,
                notice=notice,
            ),
            retry_for=self.config.action_retry,
        )
        for s, row in zip(self.seats, seats, strict=True):
            s.kind, s.bot, s.name = row.kind, row.bot, row.name
        self.game, self.game_id = game, game_id
        self.active = self.config.clock.monotonic()
        self.joined = True
        self.games_played += 1
        self._in_turn = 0
        self._timer_key = None
        log.info("room %s: game %s starts", self.code, game_id)
        self._presence()
        self._reschedule_timer()
        self.broadcast_state([], None, history=True)
        self._schedule()

    def _table_info(self, seats: list[SeatRow] | None = None) -> dict[str, Any]:
        rows = seats if seats is not None else [s.row() for s in self.seats]
        # Bots never forget UNO online.
        kinds = [s.kind if s.kind != BOT else (s.bot or self.bot) for s in rows]
        return {"room": self.code, "table": Table.seating(kinds, 0.0)}

    def _live_game(self, seat: int) -> Game:
        """The room's game, if it is under way and ``seat`` is still in this hand.

        Raises:
            ProtocolError: no game yet, the game is over, or the seat is knocked out (NM-34).
        """
        game = self.game
        if game is None:
            raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started")
        if game.is_over:
            raise ProtocolError(ErrorCode.GAME_OVER, "the game is over")
        if game.out[seat]:
            raise ProtocolError(ErrorCode.KNOCKED_OUT, "you are knocked out of this hand [NM-34]")
        return game

    # ------------------------------------------------------------------ moves
    async def act(self, seat: int | None, text: str) -> None:
        """A seat's action in notation: the engine judges it."""
        if seat is None:
            raise ProtocolError(ErrorCode.SPECTATOR, "spectators cannot act")
        game = self._live_game(seat)
        try:
            action = parse_action(text, seat)
        except NoMercyError as exc:
            raise ProtocolError(ErrorCode.ILLEGAL, str(exc)) from None
        if action.seat != seat:
            raise ProtocolError(
                ErrorCode.WRONG_SEAT, f"you hold seat {seat}, not seat {action.seat}"
            )
        try:
            await self.apply(action, retry_for=self.config.action_retry)
        except StoreUnavailable:
            raise unavailable("the move was not played") from None
        except NoMercyError as exc:  # IllegalActionError, NotationError, EngineError
            if game.to_act != seat and not isinstance(action, (CallUno, Catch)):
                turn = game.to_act
                raise ProtocolError(
                    ErrorCode.NOT_YOUR_TURN,
                    f"it is {game.names[turn] if turn is not None else 'nobody'}'s turn: {exc}",
                ) from None
            raise ProtocolError(ErrorCode.ILLEGAL, str(exc)) from None

    async def apply(self, action: Action, *, retry_for: float) -> list[Event]:
        """Submit ``action`` at the room's table (``Table.submit``, the terminal's door: the
        engine judges it), store it, and tell everyone. The caller holds the room's lock.

        Raises:
            NoMercyError: the engine refused the action; nothing changed.
            StoreUnavailable: the database refused the move for ``retry_for`` seconds; the game
                is as it was before.
            LeaseLost: another server owns the room now; the game is as it was before.
        """
        table = self.table
        assert table is not None and self.game_id is not None
        game = table.game
        turn = game.to_act
        before = game.copy()  # a few microseconds; the way back if the move cannot be stored
        # The one door for a move, as the terminal's: the table judges it (the engine's rules).
        events = table.submit(action.seat, action)
        index = game.moves - 1
        finished = self._result() if game.is_over else None
        try:
            await self.lobby.write(
                functools.partial(
                    self.lobby.store.append_action,
                    self.game_id,
                    index,
                    str(action),
                    finished=finished,
                    room=self.code,
                    notice=self.notice("act", g=self.game_id, i=index, a=str(action)),
                ),
                retry_for=retry_for,
            )
        except (StoreUnavailable, asyncio.CancelledError):
            # Cancelled: the room stands down (its bots' task is cancelled mid-write). The
            # move may be stored or not; the room is as it was, and a takeover or a reload
            # then finds the move in the database and sends it to the clients (kept, it
            # would look stored already, and this server's clients would never see it).
            self.game = before
            raise
        except LeaseLost:
            # Another server plays the room now (a handover or a failover): the caller sends
            # a person's move on to it (``handle``; forwarded ones: cluster.py), a bot lets go.
            self.game = before
            self.lost()
            raise
        self.active = self.config.clock.monotonic()
        if action.seat == turn:
            self._in_turn += 1
        if finished is not None:
            self.finished.append(self.game_id)
            log.info("room %s: game %s over, winner %s", self.code, self.game_id, game.winner)
        self._reschedule_timer()
        self.broadcast_state(events, action)
        self._bound()
        self._schedule()
        return events

    def _result(self) -> dict[str, Any]:
        game = self.game
        assert game is not None
        info = self._table_info()
        return {
            "winner": game.winner,
            "scores": list(game.scores),
            "over": game.is_over,
            **info,
            "bots": info["table"]["seats"],
        }

    def lost(self) -> None:
        """A write found another server owning the room: follow it from now on."""
        cluster = self.lobby.cluster
        if cluster is not None and self.owned:
            log.warning("room %s: another server took it over", self.code)
            self.owned = False
            asyncio.get_running_loop().create_task(cluster.demote(self))

    # ------------------------------------------------------------------ the hand's history
    async def whole_table(self) -> Table:
        """The room's table, its game with the whole hand's history: the table itself while
        its game holds it; else (a hand longer than ``EVENTS_HELD``) a table seated alike
        over the game replayed, in a worker thread, from its stored record up to this move.
        Bots, the timer's bot and hints read the hand's whole public history (the colours a
        draw proves a seat lacks, NM-9), so they decide exactly as in a room that keeps it.
        The caller holds the lock.

        Raises:
            StoreUnavailable: the database did not answer.
        """
        table = self.table
        assert table is not None and self.game_id is not None
        game = table.game
        if not game.hand_forgotten:
            return table
        moves, game_id = game.moves, self.game_id
        row = await self.lobby.write(
            functools.partial(self.lobby.store.load_game, game_id),
            retry_for=self.config.action_retry,
        )
        # A copy of the room may be behind its owner: its own move, not the database's last.
        if row is None or len(row.record.actions) < moves:
            raise RuntimeError(f"game {game_id}: the database lacks moves before {moves}")
        record = dataclasses.replace(row.record, actions=row.record.actions[:moves])
        return self._seat_table(await asyncio.to_thread(record.replay))

    def _bound(self) -> None:
        """Let the game go of its past when it holds ``2 * EVENTS_HELD`` events or actions:
        the room's memory stays bounded however long the game runs (issue 43); the record
        is in the database."""
        game = self.game
        keep = max(EVENTS_HELD, HELLO_HISTORY)  # a hello carries HELLO_HISTORY events
        if game is not None and max(len(game.log), len(game.history)) > 2 * keep:
            game.forget(keep)

    async def history_page(self, before: Any) -> dict[str, Any]:
        """A ``history`` message: the current hand's public events ``[from, before)``, at most
        ``HISTORY_PAGE`` of them, oldest first. The caller holds the lock. Events the game
        let go of (``EVENTS_HELD``) come from the game replayed (:meth:`whole_table`).

        Raises:
            ProtocolError: ``malformed`` (``before`` not an index), ``not_started``,
                ``unavailable`` (an old page, and the database does not answer).
        """
        if isinstance(before, bool) or not isinstance(before, int) or before < 0:
            raise ProtocolError(ErrorCode.MALFORMED, "'before' must be an event index (>= 0)")
        game = self.game
        if game is None:
            raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started")
        gone = game.hand_forgotten
        public = game.public_history()
        end = min(before, gone + len(public))
        start = max(0, end - HISTORY_PAGE)
        if start >= gone:
            page = public[start - gone : end - gone]
        else:
            try:
                whole = (await self.whole_table()).game
            except StoreUnavailable:
                raise unavailable("the older history is not at hand") from None
            page = whole.public_history()[start:end]
        return messages.history(self.game_id, game.hand_number, start, page)

    # ------------------------------------------------------------------ bots and the timer
    def _schedule(self) -> None:
        """Make sure the bot task runs if a bot may act."""
        if self.closed or not self.owned or not self.started or self._stuck == self.game_id:
            return
        if not any(self.robot(s.seat) for s in self.seats):
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.get_running_loop().create_task(self._bot_loop())

    def bot_questions(self) -> list[BotQuestion]:
        """The bot decisions to ask now (``Table.bot_questions``: in
        :func:`~nomercy.core.decisions.decision_order`'s order, the terminal's and the
        driver's, for the seats a bot plays now, each bot seeded for this move). The first
        answer that is an action is taken; each question can be answered away from the game
        (in a worker thread)."""
        table = self.table
        return [] if table is None else table.bot_questions()

    def bot_choice(self) -> Action | None:
        """The action a bot takes next, if any (see :meth:`bot_questions`)."""
        return answer(self.bot_questions())

    async def _bot_loop(self) -> None:
        # Bots think in a worker thread, without the room's lock: a slow bot (a search) keeps
        # neither this room's people nor other rooms waiting. Its answer is applied only if the
        # game has not moved on meanwhile; otherwise the bots are asked again.
        loop = asyncio.get_running_loop()
        delay = self.config.bot_delay
        try:
            while True:
                async with self.lock:
                    game, table = self.game, self.table
                    if self.closed or game is None or table is None:
                        return
                    if not table.bot_decisions():
                        return  # no bot has a decision to take: no need of the whole hand
                    try:
                        questions = (await self.whole_table()).bot_questions()
                    except StoreUnavailable:
                        questions = None  # an old hand's history is not at hand: wait
                    if questions == []:
                        return
                    moves, game_id = game.moves, self.game_id
                if questions is None:
                    await asyncio.sleep(RETRY_PAUSE)
                    continue
                began = loop.time()
                action = await asyncio.to_thread(answer, questions)
                await asyncio.sleep(max(0.0, delay - (loop.time() - began)))
                async with self.lock:
                    game = self.game
                    if self.closed or game is None:
                        return
                    if self.game_id != game_id or game.moves != moves:
                        continue  # someone acted meanwhile: ask again
                    if action is None:
                        return  # every bot lets its chance go; the next change asks again
                    if not self.robot(action.seat):
                        continue  # the seat's owner came back meanwhile
                    stored = await self._apply_robot(action)
                if not stored:
                    # The database refused the move: wait outside the lock, then ask again
                    # (the same seeded bot decides the same move), until it is stored.
                    await asyncio.sleep(RETRY_PAUSE)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: the bot task failed", self.code)

    async def _apply_robot(self, action: Action) -> bool:
        """Apply a bot's or the timer's action; if the engine refuses (A13's 'raise'), try
        the seat's other legal actions in order. ``False``: the database refused the move
        (nothing changed; the caller tries again)."""
        game = self.game
        assert game is not None
        retry = 2.0  # then the caller lets go of the lock for a moment and tries again
        try:
            await self.apply(action, retry_for=retry)
            return True
        except (StoreUnavailable, LeaseLost):  # lost: the new owner's bots play it
            return False
        except NoMercyError as exc:
            log.warning("room %s: %s refused: %s", self.code, action, exc)
        for other in game.legal_actions(action.seat):
            if other == action:
                continue
            try:
                await self.apply(other, retry_for=retry)
                return True
            except (StoreUnavailable, LeaseLost):
                return False
            except NoMercyError:
                continue
        log.error("room %s: seat %d has no action the engine accepts", self.code, action.seat)
        self._stuck = self.game_id  # stop the bots of this game; people may still act
        return True

    def _reschedule_timer(self) -> None:
        """(Re)start the turn timer when a person's seat gets a new decision."""
        game = self.game
        if (
            self.timer <= 0
            or game is None
            or game.is_over
            or game.to_act is None
            or self.robot(game.to_act)
        ):
            self._cancel_timer()
            return
        key = (self.game_id, game.to_act, self._in_turn)
        if key == self._timer_key and (self._timer_task is not None or not self.owned):
            return
        deadline = self.deadline if key == self._timer_key else None
        self._cancel_timer()
        self._timer_key = key
        self._deadline_seat = game.to_act
        # A room taken over from another server keeps the deadline its clients were shown.
        self.deadline = deadline if deadline is not None else self.config.clock.time() + self.timer
        if self.owned:  # the other servers only show the deadline; the owner enforces it
            self._timer_task = asyncio.get_running_loop().create_task(self._timer_wait(key))

    def _cancel_timer(self) -> None:
        if self._timer_task is not None:
            self._timer_task.cancel()
        self._timer_task = None
        self._timer_key = None
        self.deadline = None
        self._deadline_seat = None

    async def _timer_wait(self, key: tuple[Any, ...]) -> None:
        try:
            assert self.deadline is not None
            clock = self.config.clock
            await clock.sleep(max(0.0, self.deadline - clock.time()))
            while True:
                async with self.lock:
                    game = self.game
                    if self._timer_key != key or game is None or game.is_over:
                        return
                    seat = game.to_act
                    assert seat is not None
                    moves = game.moves
                    try:
                        decision: Action | BotQuestion | None = await self.timeout_decision(seat)
                    except StoreUnavailable:
                        decision = None  # an old hand's history is not at hand: wait
                if decision is None:
                    await asyncio.sleep(RETRY_PAUSE)
                    continue
                # A bot's decision is made in a worker thread, like the bots' own moves.
                if isinstance(decision, BotQuestion):
                    action = await asyncio.to_thread(answer, [decision])
                else:
                    action = decision
                async with self.lock:
                    game = self.game
                    if self._timer_key != key or game is None or game.is_over:
                        return
                    if game.moves != moves:
                        continue  # an out-of-turn action meanwhile: decide again
                    if action is None:
                        return
                    log.info("room %s: seat %d timed out: %s", self.code, seat, action)
                    task = self._timer_task
                    self._timer_task = None
                    self._timer_key = None
                    if await self._apply_robot(action):
                        return
                    # The database refused the move: the timer is still due; try again.
                    self._timer_task, self._timer_key = task, key
                await asyncio.sleep(RETRY_PAUSE)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: the timer failed", self.code)

    async def timeout_decision(self, seat: int) -> Action | BotQuestion:
        """What a seat whose time ran out does (``Table.timeout_question``): draw (or take the
        penalty), else pass, else the room's bot decides (a forced play, a colour, a Discard
        All choice, a challenge), from the whole hand (:meth:`whole_table`).

        Raises:
            StoreUnavailable: the hand's older history is not at hand.
        """
        table = self.table
        assert table is not None
        action, _ = table.timeout_choice(seat)
        if action is not None:
            return action
        return (await self.whole_table()).timeout_question(seat)

    # ------------------------------------------------------------------ grace periods
    def _presence(self) -> None:
        """Start or stop the grace period of each person's seat."""
        for s in self.seats:
            waiting = (
                self.owned
                and s.kind == HUMAN
                and not self.connected(s.seat)
                and not self.is_away(s.seat)
                and self.started
            )
            task = self._grace.get(s.seat)
            if waiting and (task is None or task.done()) and not self.closed:
                self._grace[s.seat] = asyncio.get_running_loop().create_task(self._away(s.seat))
            elif not waiting and task is not None:
                task.cancel()
                del self._grace[s.seat]

    async def _away(self, seat: int) -> None:
        try:
            await self.config.clock.sleep(self.config.grace)
            cluster = self.lobby.cluster
            while cluster is not None and self.owned and not cluster.presence_settled(self):
                # A person connected to any server is never handed to the bot (issue 43):
                # wait until every live server has said who it has here.
                cluster.ask_presence(self)
                await self.config.clock.sleep(PRESENCE_WAIT)
            async with self.lock:
                s = self.seats[seat]
                self._grace.pop(seat, None)
                if self.connected(seat) or not self.started or not self.owned:
                    return
                self._set_away(seat, True)
                log.info("room %s: seat %d is away; the bot plays it", self.code, seat)
                self.publish("seat", seat=seat_json(s, away=True))
                self.broadcast_room()
                self._reschedule_timer()
                self._schedule()
        except asyncio.CancelledError:
            raise

    async def stop_tasks(self) -> None:
        """Cancel the bots', the timer's and the grace periods' tasks."""
        tasks = [t for t in (self._bot_task, self._timer_task, *self._grace.values()) if t]
        self._grace = {}
        self._timer_task = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            if task is asyncio.current_task():
                continue
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
