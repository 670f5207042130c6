"""Game records: rules, options, players, seed, deal version and actions reproduce a game."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from nomercy.core.dealing import DEAL_VERSION, DEAL_VERSIONS
from nomercy.core.errors import NotationError
from nomercy.core.game import Game, new_game

__all__ = ["GameRecord"]

RECORD_VERSION = 3
"""Version 2: the default of A28 ``wrd4_two_player_in_stack`` became ``"opponent"`` (S4).
Version 3: the record names its deal version (``deal_version``). Only a game dealt by a
version other than 1 is written as version 3: a deal version 1 record stays version 2, byte for
byte as before (every nomercy that reads version 2 replays it), while an older nomercy refuses a
version 3 record rather than deal it with the wrong generator."""

#: Option defaults that changed, by the record version that changed them: a record of an
#: earlier version replays with the old default unless it gave the option explicitly.
_OLD_DEFAULTS: tuple[tuple[int, str, str, Any], ...] = (
    (2, "no-mercy", "wrd4_two_player_in_stack", "self"),
)


def _whole(value: object, key: str) -> int:
    """A record's integer field, or a NotationError naming it (no silent ``int()``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotationError(f"the record's {key!r} must be an integer, not {value!r}")
    return value


@dataclass
class GameRecord:
    """A replayable record (PokerKit's HandHistory, PGN's spirit).

    Attributes:
        rules: the preset name.
        options: the options given explicitly.
        players: number of seats.
        seed: the ``new_game`` seed.
        deal_version: the ``new_game`` deal version (1 for a record that names none).
        actions: the actions in notation, in order.
        names: player names.
        start: the start position when the game did not begin with ``new_game``.
        result: free-form result data (winner, scores) written when the record is made.

    >>> g = new_game(2, seed=3)
    >>> _ = g.apply(g.legal_actions()[0])
    >>> rec = GameRecord.from_game(g)
    >>> GameRecord.loads(rec.dumps()).replay().to_position() == g.to_position()
    True
    """

    rules: str = "no-mercy"
    options: dict[str, Any] = field(default_factory=dict)
    players: int = 4
    seed: int = 0
    actions: list[str] = field(default_factory=list)
    names: list[str] | None = None
    start: dict[str, Any] | None = None
    result: dict[str, Any] = field(default_factory=dict)
    deal_version: int = DEAL_VERSION

    @classmethod
    def from_game(cls, game: Game) -> GameRecord:
        """The record of ``game`` so far.

        Raises:
            NoMercyError: the game let go of part of its past (``Game.forget``).
        """
        game.check_whole("a record")
        return cls(
            rules=game.rules.preset,
            options=dict(game.rules.given),
            players=game.n,
            seed=game.seed,
            # In-turn actions need no seat; out-of-turn ones (uno, catch, jump-in) carry it.
            actions=[str(a) for a in game.history],
            names=list(game.names),
            start=game.start,
            result={"winner": game.winner, "scores": list(game.scores), "over": game.is_over},
            deal_version=game.deal_version,
        )

    def start_game(self) -> Game:
        """The game as it stood before the first recorded action.

        Raises:
            NotationError / RuleSetError: the record's start cannot be built.
        """
        if self.start is not None:
            return Game.from_position(self.start)
        return new_game(
            self.players,
            rules=self.rules,
            options=self.options,
            seed=self.seed,
            names=self.names,
            deal_version=self.deal_version,
        )

    def replay(self) -> Game:
        """Play the recorded actions again and return the resulting game.

        Raises:
            IllegalActionError / NotationError: the record does not replay.
        """
        game = self.start_game()
        for text in self.actions:
            game.apply(text)
        return game

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        data: dict[str, Any] = {
            "format": "nomercy-record",
            "version": RECORD_VERSION if self.deal_version != DEAL_VERSION else 2,
            "rules": self.rules,
            "options": self.options,
            "players": self.players,
            "seed": self.seed,
            "names": self.names,
            "actions": self.actions,
            "result": self.result,
        }
        if self.deal_version != DEAL_VERSION:
            data["deal_version"] = self.deal_version
        if self.start is not None:
            data["start"] = self.start
        return data

    def dumps(self) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        """Read a record from JSON text.

        Raises:
            NotationError: not a record, a version this code does not read, or a field of
                the wrong type (named).
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise NotationError(f"a game record must be JSON: {exc}") from None
        if not isinstance(data, dict) or "actions" not in data:
            raise NotationError("not a nomercy game record (no 'actions')")
        kind = data.get("format", "nomercy-record")  # version 1 records may not say
        if kind != "nomercy-record":
            raise NotationError(f"not a nomercy game record (format {kind!r})")
        version = _whole(data.get("version", 1), "version")
        if not 1 <= version <= RECORD_VERSION:
            raise NotationError(
                f"record version {version} is not one this version of nomercy reads "
                f"(1 to {RECORD_VERSION}); a newer record needs a newer nomercy"
            )
        players = _whole(data.get("players", 4), "players")
        seed = _whole(data.get("seed", 0), "seed")
        # Every record before version 3 was dealt by deal version 1 and names none.
        deal_version = _whole(data.get("deal_version", DEAL_VERSION), "deal_version")
        if deal_version not in DEAL_VERSIONS:
            raise NotationError(
                f"the record's deal version {deal_version} is not one this version of nomercy "
                f"deals ({', '.join(map(str, DEAL_VERSIONS))}); a newer record needs a newer "
                "nomercy"
            )
        actions = data["actions"]
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise NotationError("the record's 'actions' must be a list of actions in notation")
        names = data.get("names")
        if names is not None and (
            not isinstance(names, list) or not all(isinstance(n, str) for n in names)
        ):
            raise NotationError("the record's 'names' must be a list of strings")
        for key, kind, what in (
            ("rules", str, "a string"),
            ("options", dict, "an object"),
            ("start", dict, "an object (a position)"),
            ("result", dict, "an object"),
        ):
            value = data.get(key)
            if value is not None and not isinstance(value, kind):
                raise NotationError(f"the record's {key!r} must be {what}, not {value!r}")
        try:
            rules = str(data.get("rules", "no-mercy"))
            options = dict(data.get("options") or {})
            start = data.get("start")
            for changed_in, preset, name, old in _OLD_DEFAULTS:
                if version < changed_in and rules == preset:
                    # The game was played under the old default: keep replaying it so.
                    options.setdefault(name, old)
                    if isinstance(start, dict) and isinstance(start.get("rules"), dict):
                        start_rules = dict(start["rules"])
                        start_rules["options"] = {name: old, **(start_rules.get("options") or {})}
                        start = {**start, "rules": start_rules}
                    elif isinstance(start, dict) and start.get("rules", preset) == preset:
                        start = {**start, "rules": {"preset": preset, "options": {name: old}}}
            return cls(
                rules=rules,
                options=options,
                players=players,
                seed=seed,
                actions=list(actions),
                names=names,
                start=start,
                result=dict(data.get("result") or {}),
                deal_version=deal_version,
            )
        except (TypeError, ValueError) as exc:
            raise NotationError(f"malformed game record: {exc}") from None

    def dump(self, fp: Any) -> None:
        """Write the record to a text file object."""
        fp.write(self.dumps())

    @classmethod
    def load(cls, fp: Any) -> GameRecord:
        """Read a record from a text file object."""
        return cls.loads(fp.read())
