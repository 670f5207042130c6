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
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nomercy
import nomercy.core
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


def _take(game: Game, text: str, path: str) -> list[Event]:
    """Apply one recorded action on the object path or the id path; its events."""
    if path == "ids":
        action = parse_action(text, game.to_act)
        before = len(game.log)
        game.step(action_id(action, game.n), action.seat)
        return game.log[before:]
    return game.apply(text)


def first_difference(entry: dict[str, Any], *, path: str = "objects") -> int | None:
    """The first step (0 for the deal) whose digest differs from the recording, or ``None``."""
    want = entry["digests"]
    game = new(entry)
    digest = start_digest(game)
    if digest != want[:DIGEST_CHARS]:
        return 0
    for i, text in enumerate(entry["actions"], start=1):
        digest = step_digest(digest, game, _take(game, text, path))
        if digest != want[i * DIGEST_CHARS : (i + 1) * DIGEST_CHARS]:
            return i
    return None


def step_text(entry: dict[str, Any], step: int, *, path: str = "objects") -> str:
    """A playthrough of one step, as OpenSpiel's playthroughs show a game: the position
    before, the action, the events it gave, and every position key it changed.

    Step 0 is the deal (its opening events and position).
    """
    game = new(entry)
    for text in entry["actions"][: max(step - 1, 0)]:
        _take(game, text, path)
    before = game.to_position()
    if step == 0:
        action, events, after = "(the deal)", game.opening_events, before
    else:
        action = entry["actions"][step - 1]
        events = _take(game, action, path)
        after = game.to_position()
    lines = [f"step {step}: {action}", "events:"]
    lines += [f"  {e.kind} seat={e.seat} {e.text!r} data={e.data}" for e in events] or ["  -"]
    lines.append("position before:")
    lines += [f"  {key} = {json.dumps(v)}" for key, v in sorted(before.items()) if key != "log"]
    lines.append("changed by the step:")
    changed = [
        f"  {key}: {json.dumps(before.get(key))} -> {json.dumps(after.get(key))}"
        for key in sorted(set(before) | set(after))
        if key != "log" and before.get(key) != after.get(key)
    ]
    lines += changed or ["  (nothing)"]
    return "\n".join(lines)


def _other_build(entry: dict[str, Any], step: int, path: str) -> str:
    """What the other build of the core (compiled or pure) says of the same step, run in a
    child process because a process imports one build only."""
    env = dict(os.environ)
    if nomercy.core.BUILD == "compiled":
        env["NOMERCY_PURE"] = "1"
    else:
        env.pop("NOMERCY_PURE", None)
    job = json.dumps({"entry": entry, "step": step, "path": path})
    result = subprocess.run(
        [sys.executable, __file__, "--show-step"],
        input=job,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if result.returncode != 0:
        return f"(the other build could not replay it: {result.stderr.strip()[-500:]})"
    return result.stdout


def check(entry: dict[str, Any], *, path: str = "objects") -> None:
    """Replay one entry; raise AssertionError at the first step whose digest differs.

    ``path="objects"`` applies each action's notation (``Game.apply``); ``path="ids"`` turns
    it into its id and takes the id path (``Game.step``), reading the step's events from the
    game's log, so both paths must give the same positions and the same events.

    The error is a playthrough of the differing step (:func:`step_text`) and what the other
    build of the core makes of that step, so a broken rule shows where and how it broke.
    """
    step = first_difference(entry, path=path)
    if step is None:
        return
    where = f"golden game seed={entry['seed']} {entry['preset']} {entry['players']} players"
    what = "the deal differs" if step == 0 else f"action {step} gives a different game"
    other = _other_build(entry, step, path)
    raise AssertionError(
        f"{where} ({path} path, {nomercy.core.BUILD} core): {what}\n"
        f"options: {json.dumps(entry['options'], sort_keys=True)}\n"
        f"--- this build ({nomercy.core.BUILD}):\n{step_text(entry, step, path=path)}\n"
        f"--- the other build:\n{other}"
    )


def _show_step() -> int:
    """``--show-step``: read {entry, step, path} on stdin, print the build and its step."""
    job = json.load(sys.stdin)
    entry, step, path = job["entry"], job["step"], job["path"]
    differs = first_difference(entry, path=path)
    agrees = "differs from the recording" if differs == step else "matches the recording"
    if differs is not None and differs < step:
        agrees = f"already differs at step {differs}"
    print(f"({nomercy.core.BUILD} core: this step {agrees})")
    print(step_text(entry, step, path=path))
    return 0


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:] == ["--show-step"]:
        return _show_step()
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
