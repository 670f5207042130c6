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
from nomercy.core.errors import NoMercyError
from nomercy.core.game import new_game
from nomercy.core.rules import OPTIONS, PRESETS, RuleSet, make_rules

__all__ = [
    "HARD_MAX_BYTES",
    "LANGUAGES",
    "MAX_MESSAGE_BYTES",
    "MODES",
    "PROTOCOL_VERSION",
    "ErrorCode",
    "ProtocolError",
    "RoomSettings",
    "TokenBucket",
    "check_name",
    "meta",
    "parse_client_message",
    "parse_room_request",
]

PROTOCOL_VERSION = 1
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
    # HTTP API only
    BAD_REQUEST = "bad_request"
    BAD_NAME = "bad_name"
    BAD_OPTIONS = "bad_options"
    BAD_SEATS = "bad_seats"
    BAD_BOT = "bad_bot"
    BAD_TIMER = "bad_timer"
    BAD_MODE = "bad_mode"
    ROOM_FULL = "room_full"
    UNKNOWN_GAME = "unknown_game"


class ProtocolError(Exception):
    """A refused request: ``code`` (an :class:`ErrorCode`) and a message naming the problem."""

    def __init__(self, code: ErrorCode, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def to_message(self) -> dict[str, Any]:
        """The WebSocket ``error`` message."""
        return {"type": "error", "code": self.code.value, "message": self.message}


class TokenBucket:
    """A token bucket: ``capacity`` messages of burst, ``rate`` per second sustained.

    >>> bucket = TokenBucket(capacity=2, rate=1.0, clock=lambda: 0.0)
    >>> [bucket.take() for _ in range(3)]
    [True, True, False]
    """

    def __init__(self, capacity: float, rate: float, clock: Any = time.monotonic) -> None:
        self.capacity = capacity
        self.rate = rate
        self.clock = clock
        self.tokens = capacity
        self.stamp = clock()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


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
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError(ErrorCode.MALFORMED, f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.MALFORMED, "a message must be a JSON object")
    if not isinstance(data.get("type"), str):
        raise ProtocolError(ErrorCode.MALFORMED, "a message needs a string 'type'")
    return data


def check_name(value: Any, what: str, limit: int = MAX_NAME) -> str:
    """A display or room name: a string of 1 to ``limit`` characters, no control characters.

    >>> check_name("  Ann ", "name")
    'Ann'

    Raises:
        ProtocolError: ``bad_name``.
    """
    if not isinstance(value, str):
        raise ProtocolError(ErrorCode.BAD_NAME, f"the {what} must be a string")
    name = " ".join(value.split())
    if not 1 <= len(name) <= limit:
        raise ProtocolError(ErrorCode.BAD_NAME, f"the {what} must have 1 to {limit} characters")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in name):
        raise ProtocolError(ErrorCode.BAD_NAME, f"the {what} may not hold control characters")
    return name


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


def parse_room_request(body: Any, timers: tuple[int, ...]) -> RoomSettings:
    """Check a room creation request (docs/web-protocol.md); every option through the engine.

    Raises:
        ProtocolError: a 400 naming the first problem found.
    """
    if not isinstance(body, Mapping):
        raise ProtocolError(ErrorCode.BAD_REQUEST, "the body must be a JSON object")
    known = {"name", "host_name", "preset", "options", "seats", "bot", "timer", "mode"}
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
    if not isinstance(bot, str) or bot not in BOTS:
        raise ProtocolError(
            ErrorCode.BAD_BOT, f"unknown bot {bot!r}; valid bots: {', '.join(sorted(BOTS))}"
        )
    timer = body.get("timer", 0)
    if isinstance(timer, bool) or timer not in timers:
        raise ProtocolError(
            ErrorCode.BAD_TIMER, f"timer must be one of {list(timers)} seconds, not {timer!r}"
        )
    # A dry run: a custom deck or hand size that cannot be dealt is refused now, not at start.
    try:
        new_game(seats, rules=preset, options=options, seed=0)
    except NoMercyError as exc:
        raise ProtocolError(
            ErrorCode.BAD_OPTIONS, f"these rules cannot deal a game: {exc}"
        ) from None
    return RoomSettings(name, host_name, preset, options, seats, bot, int(timer), mode, rules)


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
        options.append(entry)
    limits = {p: make_rules(p) for p in PRESETS}
    return {
        "protocol": PROTOCOL_VERSION,
        "presets": list(PRESETS),
        "options": options,
        "bots": sorted(BOTS),
        "timers": list(timers),
        "modes": list(MODES),
        "languages": list(LANGUAGES),
        "min_seats": min(r.min_players for r in limits.values()),
        "max_seats": 10,
        "max_seats_by_preset": {p: r.max_players for p, r in limits.items()},
        "max_message_bytes": MAX_MESSAGE_BYTES,
    }
