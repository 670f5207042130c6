"""The golden corpus: seeded games whose every step the engine must reproduce exactly.

Recorded with the engine as it stood after the rules audit (issue 11), before the engine is
rewritten for speed (issue 12, the OpenSpiel/Pgx golden-playthrough habit). Each game is a seed,
a preset, an option set, a player count and the actions taken (random legal play, in-turn and
out-of-turn), with a chained digest after every action: the digest of step ``i`` hashes the
digest of step ``i - 1``, the position after the action (``to_position()`` without its event
log) and the events the action returned (kind, text, seat, data, public text). A divergence
therefore shows at the first step that differs and at every step after it.

Regenerate (only when a rule change is meant to change recorded games, and say so in the
commit): ``python tests/golden/corpus.py --games 2400``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nomercy
from nomercy import Event, Game, RuleSetError
from nomercy.core.actions import parse_action
from nomercy.core.ids import action_id

CORPUS = Path(__file__).with_name("corpus.jsonl.gz")
#: Hex characters kept of each chained step digest (chaining makes 16 bits per step ample).
DIGEST_CHARS = 4
#: Longest recorded game prefix (random option sets need not end quickly).
MAX_ACTIONS = 300
_SKIPPED = ("deck", "deck_variant", "deck_counts", "min_players", "max_players")


def option_set(rng: random.Random, preset: str, players: int) -> dict[str, Any]:
    """Random values for about half the options of ``preset``, integers included."""
    options: dict[str, Any] = {}
    for spec in nomercy.OPTIONS:
        if preset not in spec.presets or spec.name in _SKIPPED or rng.random() < 0.5:
            continue
        if spec.kind in ("choice", "bool") and spec.values:
            options[spec.name] = rng.choice(spec.values)
    if preset == "no-mercy" and players > 6:
        options["max_players"] = 10
    if rng.random() < 0.5:
        options["hand_size"] = rng.randint(1, 9)
    if preset == "no-mercy" and rng.random() < 0.5:
        options["mercy_threshold"] = options.get("hand_size", 7) + rng.randint(1, 15)
    if rng.random() < 0.3:
        options["uno_penalty_cards"] = rng.randint(1, 6)
    if options.get("scoring_enabled"):
        options["score_target"] = rng.choice((50, 200, 500))
    return options


def step_digest(previous: str, game: Game, events: list[Event]) -> str:
    """The chained digest after one action (see the module docstring)."""
    position = game.to_position()
    position.pop("log")
    said = [[e.kind, e.text, e.seat, e.data, e.public_text] for e in events]
    text = json.dumps([previous, position, said], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_CHARS]


def start_digest(game: Game) -> str:
    """The digest of the deal, before any action."""
    return step_digest("", game, game.opening_events)


def new(entry: dict[str, Any]) -> Game:
    """The game an entry starts from."""
    return nomercy.new_game(
        entry["players"],
        rules={"preset": entry["preset"], "options": entry["options"]},
        seed=entry["seed"],
    )


def record(seed: int) -> dict[str, Any] | None:
    """One corpus entry: a random game from ``seed`` (``None``: its option set deals no game)."""
    rng = random.Random(seed)
    preset = "classic" if seed % 4 == 0 else "no-mercy"
    players = rng.randint(2, 10) if rng.random() < 0.3 else rng.randint(2, 6)
    options = option_set(rng, preset, players)
    entry: dict[str, Any] = {"preset": preset, "options": options, "players": players}
    entry["seed"] = seed
    try:
        game = new(entry)
    except RuleSetError:
        return None
    digest = start_digest(game)
    actions: list[str] = []
    digests = [digest]
    while not game.is_over and len(actions) < MAX_ACTIONS:
        own = game.legal_actions()
        others = [a for s in range(game.n) if s != game.to_act for a in game.legal_actions(s)]
        action = rng.choice(others) if others and rng.random() < 0.25 else rng.choice(own)
        text = str(action)
        try:
            events = game.apply(text)
        except nomercy.EngineError:
            break  # A13 exhaustion_fallback="raise": the recorded prefix ends here
        actions.append(text)
        digest = step_digest(digest, game, events)
        digests.append(digest)
    entry["actions"] = actions
    entry["digests"] = "".join(digests)
    return entry


def load() -> Iterator[dict[str, Any]]:
    """Every corpus entry, in order."""
    with gzip.open(CORPUS, "rt", encoding="utf-8") as fp:
        for line in fp:
            yield json.loads(line)


def check(entry: dict[str, Any], *, path: str = "objects") -> None:
    """Replay one entry; raise AssertionError at the first step whose digest differs.

    ``path="objects"`` applies each action's notation (``Game.apply``); ``path="ids"`` turns
    it into its id and takes the id path (``Game.step``), reading the step's events from the
    game's log, so both paths must give the same positions and the same events.
    """
    want = entry["digests"]
    game = new(entry)
    digest = start_digest(game)
    where = f"golden game seed={entry['seed']} {entry['preset']} {entry['players']} players"
    assert digest == want[:DIGEST_CHARS], f"{where}: the deal differs"
    for i, text in enumerate(entry["actions"], start=1):
        if path == "ids":
            action = parse_action(text, game.to_act)
            before = len(game.log)
            game.step(action_id(action, game.n), action.seat)
            events = game.log[before:]
        else:
            events = game.apply(text)
        digest = step_digest(digest, game, events)
        got = want[i * DIGEST_CHARS : (i + 1) * DIGEST_CHARS]
        assert digest == got, f"{where}: action {i} ({text!r}) gives a different game"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2400, help="seeds 0..N-1 (default 2400)")
    args = parser.parse_args(argv)
    kept = 0
    with gzip.open(CORPUS, "wt", encoding="utf-8", compresslevel=9) as fp:
        for seed in range(args.games):
            entry = record(seed)
            if entry is not None:
                fp.write(json.dumps(entry, separators=(",", ":")) + "\n")
                kept += 1
            if seed % 200 == 0:
                print(f"{seed}/{args.games} seeds, {kept} games", file=sys.stderr)
    print(f"wrote {kept} games to {CORPUS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
