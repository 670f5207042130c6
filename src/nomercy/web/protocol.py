"""The web protocol's vocabulary: limits, error codes, message checks, room settings.

docs/web-protocol.md is the prose version of this module; keep them together.
"""

from __future__ import annotations

import json
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from nomercy.bots import BOTS
from nomercy.bots.levels import LEVELS, algorithm, level_bot, resolve_level
from nomercy.core.errors import NoMercyError
from nomercy.core.game import new_game
from nomercy.core.rules import OPTIONS, PRESETS, RuleSet, make_rules
from nomercy.web import messages
from nomercy.web.messages import PROTOCOL_VERSION

__all__ = [
    "HARD_MAX_BYTES",
    "LANGUAGES",
    "MAX_DECK_CARDS",
    "MAX_MESSAGE_BYTES",
    "MODES",
    "OPTION_LIMITS",
    "PROTOCOL_VERSION",
    "ErrorCode",
    "ProtocolError",
    "RoomSettings",
    "TokenBucket",
    "check_deal",
    "check_name",
    "check_option_bounds",
    "loads",
    "meta",
    "parse_client_message",
    "parse_room_request",
    "same_name",
]

#: A client frame larger than this gets ``too_large`` (the connection stays).
MAX_MESSAGE_BYTES = 4096
#: A frame larger than this closes the connection (the WebSocket server's frame limit).
HARD_MAX_BYTES = 65536
#: UI languages of the browser client.
LANGUAGES = ("en", "fi", "ru", "de", "tr")
#: ``hand``: one hand (scoring off); ``match``: hands until ``score_target`` (scoring on).
MODES = ("hand", "match")
#: Longest display and room names, in characters.
MAX_NAME = 24
MAX_ROOM_NAME = 40
#: Deepest nesting of arrays and objects a request may hold (a room request needs 3).
MAX_DEPTH = 16
#: The largest value this server accepts for each option whose size scales the work of a
#: game (cards dealt, drawn and held, hands in a match). The engine allows more; a public
#: server does not build a ten-million-card deck because a request asked for one.
OPTION_LIMITS: dict[str, int] = {
    "min_players": 10,
    "max_players": 10,
    "hand_size": 50,
    "mercy_threshold": 100,
    "uno_penalty_cards": 20,
    "score_target": 10000,
    "knockout_bonus": 10000,
}
#: Most cards a custom deck (``deck_counts``) may hold in all; the standard decks have 168
#: (No Mercy) and 108 (classic).
MAX_DECK_CARDS = 1000
#: Letters that show nothing (Hangul fillers, the braille blank): a name of them is invisible.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")


class ErrorCode(StrEnum):
    """Why a request was refused (the ``code`` of an ``error`` message, ``error`` of a 4xx)."""

    MALFORMED = "malformed"
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    UNKNOWN_TYPE = "unknown_type"
    HELLO_FIRST = "hello_first"
    BAD_TOKEN = "bad_token"
    NOT_HOST = "not_host"
    NOT_STARTED = "not_started"
    ALREADY_STARTED = "already_started"
    SPECTATOR = "spectator"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_SEAT = "wrong_seat"
    ILLEGAL = "illegal"
    GAME_OVER = "game_over"
    KNOCKED_OUT = "knocked_out"
    UNKNOWN_ROOM = "unknown_room"
    SERVER_ERROR = "server_error"
    HINTS_OFF = "hints_off"
    HINT_BUSY = "hint_busy"
    NO_HINT = "no_hint"
    REACTIONS_OFF = "reactions_off"
    BAD_REACTION = "bad_reaction"
    TOO_SOON = "too_soon"
    # HTTP API only
    BAD_REQUEST = "bad_request"
    BAD_NAME = "bad_name"
    BAD_OPTIONS = "bad_options"
    BAD_SEATS = "bad_seats"
    BAD_BOT = "bad_bot"
    BAD_TIMER = "bad_timer"
    BAD_MODE = "bad_mode"
    BAD_HINTS = "bad_hints"
    ROOM_FULL = "room_full"
    NAME_TAKEN = "name_taken"
    UNKNOWN_GAME = "unknown_game"
    UNKNOWN_RULE = "unknown_rule"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    BAD_HOST = "bad_host"
    # both
    UNAVAILABLE = "unavailable"
    ROOM_CROWDED = "room_crowded"
    SERVER_FULL = "server_full"
    BAD_SEAT = "bad_seat"
    REMOVED = "removed"


#: The longest error message sent: a request's huge value is quoted up to here.
_MAX_ERROR_TEXT = 300


class ProtocolError(Exception):
    """A refused request: ``code`` (an :class:`ErrorCode`) and a message naming the problem."""

    def __init__(
        self, code: ErrorCode, message: str, status: int = 400, retry_after: float | None = None
    ) -> None:
        if len(message) > _MAX_ERROR_TEXT:  # a huge value quoted back is not an answer
            message = message[: _MAX_ERROR_TEXT - 3] + "..."
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        #: Seconds after which the same request may succeed (HTTP ``Retry-After``).
        self.retry_after = retry_after

    def to_message(self) -> dict[str, Any]:
        """The WebSocket ``error`` message."""
        return messages.error(self.code.value, self.message)


class TokenBucket:
    """A token bucket: ``capacity`` messages of burst, ``rate`` per second sustained.

    :meth:`take` admits a message now or not at all; :meth:`reserve` schedules it instead (a
    throttle): the tokens may go below zero, each message waiting its turn at ``rate``, up to
    ``max_delay`` seconds. :meth:`credit` gives back time the server was not reading (a
    stall), so that messages sent at an allowed rate and delivered in a burst pass.

    >>> bucket = TokenBucket(capacity=2, rate=1.0, clock=lambda: 0.0)
    >>> [bucket.take() for _ in range(3)]
    [True, True, False]
    >>> bucket = TokenBucket(capacity=2, rate=10.0, clock=lambda: 0.0)
    >>> [bucket.reserve(0.0, max_delay=0.25) for _ in range(6)]
    [0.0, 0.0, 0.1, 0.2, None, None]
    """

    def __init__(self, capacity: float, rate: float, clock: Any = time.monotonic) -> None:
        self.capacity = capacity
        self.rate = rate
        self.clock = clock
        self.tokens = capacity
        self.stamp = clock()
        #: Most tokens a credit may add above ``capacity`` (30 s at ``rate``).
        self.max_credit = 30.0 * rate

    def _refill(self, now: float) -> None:
        if self.tokens < self.capacity:  # credit above capacity is kept, not clipped
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = max(self.stamp, now)

    def take(self) -> bool:
        """Spend one token if there is one."""
        self._refill(self.clock())
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def reserve(self, now: float, max_delay: float) -> float | None:
        """Book one token for a message that arrived at ``now``: the seconds it must wait for
        its turn (0: at once), or ``None`` (nothing booked) if that would be over
        ``max_delay``."""
        self._refill(now)
        delay = max(0.0, (1.0 - self.tokens) / self.rate)
        if delay > max_delay:
            return None
        self.tokens -= 1.0
        return delay

    def credit(self, now: float, seconds: float) -> None:
        """Add ``seconds`` worth of tokens at ``now``, above ``capacity`` if need be (the refill
        stops at ``capacity``: time the server spent not reading must not count as the
        client's silence)."""
        if seconds > 0:
            self._refill(now)
            self.tokens = min(self.tokens + seconds * self.rate, self.capacity + self.max_credit)


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and dicts (iterative: no recursion limit to hit).

    Raises:
        ValueError: a string (a key or a value) that is not valid Unicode text: JSON's
            ``\\ud800`` escapes make lone surrogates, which no UTF-8 encoder (a database, a
            log, a JSON response) accepts.
    """
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            _encodable(*item)
            item = list(item.values())
        elif isinstance(item, str):
            _encodable(item)
            continue
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in item)
    return deepest


def _encodable(*texts: str) -> None:
    for text in texts:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                "a string holds a lone surrogate (\\ud800-\\udfff): not valid Unicode text"
            ) from None


def loads(text: str | bytes) -> Any:
    """Parse JSON from a client: ``ValueError`` with a short reason for anything unusable.

    Besides syntax, refuses what would make the server fail later: nesting deeper than
    ``MAX_DEPTH`` (the parser's recursion limit, and every ``repr`` after it) and integers
    longer than Python's conversion limit (4,300 digits), and strings that are not valid
    Unicode (lone surrogates), so every string from a client can be stored, logged and echoed.

    >>> loads('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> loads("[" * 5000)
    Traceback (most recent call last):
    ...
    ValueError: JSON nested too deeply (at most 16 levels)
    >>> loads('{"token": "\\ud800"}')
    Traceback (most recent call last):
    ...
    ValueError: a string holds a lone surrogate (\ud800-\udfff): not valid Unicode text
    """
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError(f"JSON nested too deeply (at most {MAX_DEPTH} levels)") from None
    except json.JSONDecodeError as exc:
        raise ValueError(str(exc)) from None
    except ValueError as exc:  # an integer past sys.get_int_max_str_digits, bad UTF-8
        raise ValueError(str(exc).split(";")[0]) from None
    if _depth(data) > MAX_DEPTH:
        raise ValueError(f"JSON nested too deeply (at most {MAX_DEPTH} levels)")
    return data


def parse_client_message(text: str | bytes | None) -> dict[str, Any]:
    """Check one client frame: a JSON object with a string ``type``, within the size limit.

    Raises:
        ProtocolError: ``too_large`` or ``malformed``.
    """
    if text is None:
        raise ProtocolError(ErrorCode.MALFORMED, "send JSON text frames")
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"a message may hold at most {MAX_MESSAGE_BYTES} bytes, not {size}"
        )
    try:
        data = loads(text)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.MALFORMED, f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.MALFORMED, "a message must be a JSON object")
    if not isinstance(data.get("type"), str):
        raise ProtocolError(ErrorCode.MALFORMED, "a message needs a string 'type'")
    return data


def check_name(value: Any, what: str, limit: int = MAX_NAME) -> str:
    """A display or room name: NFC-normalised, runs of spaces made one, 1 to ``limit``
    characters, none of them control, format or invisible, at least one letter, digit,
    punctuation mark or symbol.

    >>> check_name("  Ann ", "name")
    'Ann'
    >>> check_name("Jose\u0301", "name") == "Jos\u00e9"
    True

    Raises:
        ProtocolError: ``bad_name``.
    """
    if not isinstance(value, str):
        raise ProtocolError(ErrorCode.BAD_NAME, f"the {what} must be a string")
    name = unicodedata.normalize("NFC", " ".join(value.split()))
    if not 1 <= len(name) <= limit:
        raise ProtocolError(ErrorCode.BAD_NAME, f"the {what} must have 1 to {limit} characters")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for ch in name):
        raise ProtocolError(ErrorCode.BAD_NAME, f"the {what} may not hold control characters")
    if any(ch in _INVISIBLE for ch in name) or unicodedata.category(name[0]) in ("Mn", "Me"):
        raise ProtocolError(ErrorCode.BAD_NAME, f"the {what} may not hold invisible characters")
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):
        raise ProtocolError(ErrorCode.BAD_NAME, f"the {what} must show a letter, digit or sign")
    return name


def same_name(a: str, b: str) -> bool:
    """Whether two checked names would look alike to people (compared case-insensitively,
    after compatibility normalisation: "Ａnn" and "ann" are the same name).

    >>> same_name("Ann", "aNN"), same_name("Ann", "Anna")
    (True, False)
    """
    return (
        unicodedata.normalize("NFKC", a).casefold() == unicodedata.normalize("NFKC", b).casefold()
    )


@dataclass(frozen=True)
class RoomSettings:
    """What ``POST /api/rooms`` asked for, checked."""

    name: str
    host_name: str
    preset: str
    options: dict[str, Any]
    seats: int
    bot: str
    timer: int
    mode: str
    rules: RuleSet = field(compare=False, repr=False)
    hints: bool = True


def check_option_bounds(options: Mapping[str, Any]) -> None:
    """Refuse an option value past this server's limit (``OPTION_LIMITS``, ``MAX_DECK_CARDS``)
    before anything is built from it; the engine checks everything else.

    >>> check_option_bounds({"hand_size": 7})
    >>> try:
    ...     check_option_bounds({"hand_size": 10_000_000})
    ... except ProtocolError as exc:
    ...     print(exc.message)
    option 'hand_size' is at most 50 on this server, not 10000000

    Raises:
        ProtocolError: ``bad_options``, naming the option and its limit.
    """
    for name, limit in OPTION_LIMITS.items():
        value = options.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > limit:
            raise ProtocolError(
                ErrorCode.BAD_OPTIONS,
                f"option {name!r} is at most {limit} on this server, not {value}",
            )
    counts = options.get("deck_counts")
    if isinstance(counts, Mapping):
        total = sum(
            n for n in counts.values() if isinstance(n, int) and not isinstance(n, bool) and n > 0
        )
        if total > MAX_DECK_CARDS:
            raise ProtocolError(
                ErrorCode.BAD_OPTIONS,
                f"option 'deck_counts' may hold at most {MAX_DECK_CARDS} cards on this server, "
                f"not {total}",
            )


def check_deal(settings: RoomSettings) -> None:
    """A dry run: rules that cannot deal a game (a custom deck too small for the hands) are
    refused when the room is created, not at its start. It builds a game: servers call it in
    a worker thread, never in the event loop.

    Raises:
        ProtocolError: ``bad_options``.
    """
    try:
        new_game(settings.seats, rules=settings.preset, options=settings.options, seed=0)
    except NoMercyError as exc:
        raise ProtocolError(
            ErrorCode.BAD_OPTIONS, f"these rules cannot deal a game: {exc}"
        ) from None


def parse_room_request(body: Any, timers: tuple[int, ...]) -> RoomSettings:
    """Check a room creation request (docs/web-protocol.md): every option within the server's
    bounds (``check_option_bounds``), then through the engine's rules. Builds no game (see
    :func:`check_deal`).

    Raises:
        ProtocolError: a 400 naming the first problem found.
    """
    if not isinstance(body, Mapping):
        raise ProtocolError(ErrorCode.BAD_REQUEST, "the body must be a JSON object")
    known = {"name", "host_name", "preset", "options", "seats", "bot", "timer", "mode", "hints"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise ProtocolError(
            ErrorCode.BAD_REQUEST,
            f"unknown keys {unknown}; expected some of {sorted(known)}",
        )
    host_name = check_name(body.get("host_name"), "host name")
    name = check_name(body.get("name", f"{host_name}'s room"), "room name", MAX_ROOM_NAME)
    preset = body.get("preset", PRESETS[0])
    if preset not in PRESETS:
        raise ProtocolError(
            ErrorCode.BAD_OPTIONS, f"unknown preset {preset!r}: valid presets are {list(PRESETS)}"
        )
    options = body.get("options", {})
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise ProtocolError(ErrorCode.BAD_OPTIONS, "options must be a JSON object of name: value")
    options = dict(options)
    mode = body.get("mode", "hand")
    if mode not in MODES:
        raise ProtocolError(ErrorCode.BAD_MODE, f"mode must be one of {list(MODES)}, not {mode!r}")
    scoring = mode == "match"
    if "scoring_enabled" in options and options["scoring_enabled"] is not scoring:
        raise ProtocolError(
            ErrorCode.BAD_OPTIONS,
            f"mode {mode!r} sets scoring_enabled={'true' if scoring else 'false'}; "
            "leave scoring_enabled out of the options",
        )
    options["scoring_enabled"] = scoring
    check_option_bounds(options)
    try:
        rules = make_rules(preset, options)
    except NoMercyError as exc:
        raise ProtocolError(ErrorCode.BAD_OPTIONS, str(exc)) from None
    seats = body.get("seats", 4)
    if isinstance(seats, bool) or not isinstance(seats, int):
        raise ProtocolError(ErrorCode.BAD_SEATS, "seats must be an integer")
    if not rules.min_players <= seats <= rules.max_players:
        raise ProtocolError(
            ErrorCode.BAD_SEATS,
            f"{seats} seats is outside {rules.min_players}-{rules.max_players} for preset "
            f"{preset!r} (NM-1, A30: the option max_players raises the limit up to 10)",
        )
    bot = body.get("bot", "greedy")
    if isinstance(bot, str):
        # A level (easy ... expert) seats its bot for this preset: the room names the bot.
        bot = resolve_level(bot, preset)
    if not isinstance(bot, str) or bot not in BOTS:
        raise ProtocolError(
            ErrorCode.BAD_BOT,
            f"unknown bot {bot!r}; valid bots: {', '.join(sorted(BOTS))}, or a level: "
            f"{', '.join(LEVELS)}",
        )
    timer = body.get("timer", 0)
    if isinstance(timer, bool) or not isinstance(timer, int) or timer not in timers:
        raise ProtocolError(
            ErrorCode.BAD_TIMER, f"timer must be one of {list(timers)} seconds, not {timer!r}"
        )
    hints = body.get("hints", True)
    if not isinstance(hints, bool):
        raise ProtocolError(
            ErrorCode.BAD_HINTS, f"hints must be true or false (the coach on or off), not {hints!r}"
        )
    return RoomSettings(
        name, host_name, preset, options, seats, bot, int(timer), mode, rules, hints
    )


def meta(timers: tuple[int, ...]) -> dict[str, Any]:
    """``GET /api/meta``: presets, options, bots, timers, languages and seat limits."""
    options = []
    for spec in OPTIONS:
        entry: dict[str, Any] = {
            "name": spec.name,
            "rule": spec.rule,
            "help": spec.help,
            "kind": spec.kind,
            "values": list(spec.values) if spec.values is not None else None,
            "defaults": dict(spec.defaults),
        }
        if spec.kind == "int":
            entry["minimum"] = spec.minimum
            if spec.name in OPTION_LIMITS:
                entry["maximum"] = OPTION_LIMITS[spec.name]
        options.append(entry)
    limits = {p: make_rules(p) for p in PRESETS}
    return {
        "protocol": PROTOCOL_VERSION,
        "presets": list(PRESETS),
        "options": options,
        "bots": sorted(BOTS),
        # Each level's bot by preset (the lobby offers levels first, the algorithm shown).
        "levels": {p: {lv: algorithm(level_bot(lv, p), p) for lv in LEVELS} for p in PRESETS},
        "timers": list(timers),
        "modes": list(MODES),
        "languages": list(LANGUAGES),
        "min_seats": min(r.min_players for r in limits.values()),
        "max_seats": 10,
        "max_seats_by_preset": {p: r.max_players for p, r in limits.items()},
        "max_message_bytes": MAX_MESSAGE_BYTES,
        "max_deck_cards": MAX_DECK_CARDS,
    }
