"""Self-play data for the ``puct`` bot's network: ISMCTS games with their search statistics.

Every seat of a game is today's ``ismcts`` bot (``--teacher puct``: the ``puct`` bot, for a
second round of expert iteration). At each decision it searches, the position is
kept as a training example: the searching seat's observation (the ``neural`` bot's input,
:class:`~nomercy.bots.neural_features.FeatureEncoder`, from its view alone), the search's
visits of each root action (the policy target; the ids of :mod:`nomercy.core.ids`) and,
once the hand is over, which seat won it, relative to the searching seat (the value target;
a seat knocked out by the Mercy rule, NM-33, has lost), beside the search's own estimate of
the searching seat's chance (the mean reward of its most visited root action: a far less
noisy target than one game's outcome, which the trainer may blend in).

Games are written in shards of :data:`SHARD_GAMES` games (``DIR/shard-00012.npz``); a shard
is the same file whoever writes it and whenever (every seed derives from ``--seed`` and the
shard's index, :func:`~nomercy.core.seeds.derive_seed`), so generation resumes by skipping
the shards on disk and several processes share the work (``--jobs``).

Each game's table is drawn from a **mix** of tables (:data:`TABLES` by default; ``--mix``
chooses another, e.g. ``--mix targeted``, :data:`MIXES`, for the tables where the network
is weak, or ``--mix no-mercy:4=2,classic:2=1``). A shard records its mix, and a directory
holds the shards of one mix only.

    python -m nomercy.rl.puct_data --out runs/puct/data --hours 1 --jobs 2
    python -m nomercy.rl.puct_data --out runs/puct/weak --teacher puct --mix targeted --jobs 2
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from nomercy.bots.driver import Driver
from nomercy.bots.ismcts_bot import ISMCTSBot
from nomercy.bots.neural_features import NUM_ACTIONS, OBS_SIZE, FeatureEncoder
from nomercy.bots.registry import make_bot
from nomercy.core.cards import ALL_CODES, COLOURS, Card
from nomercy.core.game import Game, new_game
from nomercy.core.ids import (
    COLOUR_BASE,
    ID_CARD,
    ID_COLOUR,
    ID_JUMP,
    ID_KIND,
    ID_REL,
    ID_UNO,
    K_COLOUR,
    K_PLAY,
    play_id,
)
from nomercy.core.seeds import derive_seed
from nomercy.encoding.observations import OBS_LAYOUT

__all__ = [
    "MIXES",
    "SHARD_GAMES",
    "TABLES",
    "Example",
    "Shard",
    "Table",
    "colour_maps",
    "load_shards",
    "mix_label",
    "parse_mix",
    "play_game",
    "play_shard",
    "table_for",
]

#: Games per shard file.
SHARD_GAMES: Final = 20


class Table(NamedTuple):
    """A kind of table the self-play deals, with its share of the games."""

    preset: str
    players: int
    share: float


#: The tables of self-play: mostly heads-up No Mercy, the issue's four-player and classic
#: tables, and a few three-player games so that the network has seen an odd table.
TABLES: Final = (
    Table("no-mercy", 2, 0.50),
    Table("no-mercy", 3, 0.05),
    Table("no-mercy", 4, 0.25),
    Table("classic", 2, 0.20),
)


#: Named mixes of tables. ``targeted``: the tables where the network is weak, in proportion
#: to what the study of issue 46 estimated they need (about 10,000 four-player and 5,000
#: classic games): four-player No Mercy two parts, classic heads-up one. The heads-up No
#: Mercy data of the earlier rounds stays in the training set beside it (docs/puct.md).
MIXES: Final[dict[str, tuple[Table, ...]]] = {
    "default": TABLES,
    "targeted": (Table("no-mercy", 4, 2 / 3), Table("classic", 2, 1 / 3)),
}


def parse_mix(text: str) -> tuple[Table, ...]:
    """A mix by name (:data:`MIXES`) or as ``PRESET:PLAYERS=WEIGHT,...`` (weights scaled to
    shares that sum to 1).

    >>> [(t.preset, t.players, round(t.share, 3)) for t in parse_mix("no-mercy:4=2,classic:2=1")]
    [('no-mercy', 4, 0.667), ('classic', 2, 0.333)]

    Raises:
        ValueError: an unknown name, a bad entry, a table listed twice, or weights that are
            not positive.
    """
    text = text.strip()
    if text in MIXES:
        return MIXES[text]
    entries: list[tuple[str, int, float]] = []
    for part in text.split(","):
        where, sep, weight = part.strip().partition("=")
        preset, colon, players = where.partition(":")
        try:
            if not sep or not colon:
                raise ValueError
            entry = (preset.strip(), int(players), float(weight))
        except ValueError:
            raise ValueError(
                f"mix entry {part.strip()!r}: expected PRESET:PLAYERS=WEIGHT "
                f"(or a named mix: {', '.join(MIXES)})"
            ) from None
        if entry[0] not in ("no-mercy", "classic") or not 2 <= entry[1] <= 10:
            raise ValueError(f"mix entry {part.strip()!r}: not a table (no-mercy or classic, 2-10)")
        if not entry[2] > 0 or math.isinf(entry[2]):
            raise ValueError(f"mix entry {part.strip()!r}: the weight must be positive")
        if any(e[:2] == entry[:2] for e in entries):
            raise ValueError(f"mix {text!r} lists {entry[0]}:{entry[1]} twice")
        entries.append(entry)
    total = sum(w for _, _, w in entries)
    return tuple(Table(preset, players, w / total) for preset, players, w in entries)


def mix_label(mix: tuple[Table, ...]) -> str:
    """The mix as recorded in a shard: its name, or ``PRESET:PLAYERS=SHARE,...``.

    >>> mix_label(TABLES), mix_label(parse_mix("classic:2=1"))
    ('default', 'classic:2=1')
    """
    for name, tables in MIXES.items():
        if tables == mix:
            return name
    return ",".join(f"{t.preset}:{t.players}={t.share:.6g}" for t in mix)


def table_for(master: int, index: int, mix: tuple[Table, ...] = TABLES) -> Table:
    """The table of game ``index`` (a draw from ``mix`` by its derived seed)."""
    pick = random.Random(derive_seed(master, "table", index)).random()
    for table in mix:
        pick -= table.share
        if pick < 0:
            return table
    return mix[-1]


class Shard(NamedTuple):
    """The examples of a set of games, as arrays (one row per searched decision)."""

    obs: npt.NDArray[np.float32]  # (N, OBS_SIZE): the searching seat's observation
    visits: npt.NDArray[np.uint16]  # (N, NUM_ACTIONS): root visits by action id
    winner: npt.NDArray[np.int8]  # (N,): the hand's winner, seats after the searching one
    players: npt.NDArray[np.int8]  # (N,): seats at the table
    classic: npt.NDArray[np.bool_]  # (N,): classic rules
    game: npt.NDArray[np.int32]  # (N,): the game's index (for held-out splits)
    q: npt.NDArray[np.float32]  # (N,): the search's chance for the seat (NaN: not recorded)


def _winner(game: Game) -> int:
    winner = game.winner if game.winner is not None else game.hand_winner
    assert winner is not None  # a finished hand has a winner
    return winner


class Example(NamedTuple):
    """One searched decision (a row of a :class:`Shard`)."""

    obs: npt.NDArray[np.float32]
    visits: dict[int, int]
    winner: int
    players: int
    classic: bool
    q: float


#: The searching bots self-play can use (each an ISMCTSBot with ``root_visits``).
TEACHERS: Final = ("ismcts", "puct")


def play_game(
    master: int,
    index: int,
    iterations: int,
    teacher: str = "ismcts",
    mix: tuple[Table, ...] = TABLES,
) -> list[Example]:
    """Play game ``index`` with ``teacher`` (:data:`TEACHERS`) at every seat, at its table
    drawn from ``mix``; its examples."""
    table = table_for(master, index, mix)
    n = table.players
    game = new_game(n, rules=table.preset, seed=derive_seed(master, "game", index))
    bots = []
    for s in range(n):
        bot = make_bot(teacher, seed=derive_seed(master, "bot", index, s), iterations=iterations)
        assert isinstance(bot, ISMCTSBot)
        bots.append(bot)
    driver = Driver(bots)
    encoder = FeatureEncoder(game.rules, n)
    rows: list[tuple[npt.NDArray[np.float32], dict[int, int], int, float]] = []
    count = 0
    while not game.is_over:
        if count >= 20_000:
            raise RuntimeError(f"game {index} did not end within 20000 actions")
        action = driver.next_action(game)
        bot = bots[action.seat]
        root = bot.root_visits()
        if root:
            # The position the search saw: the game is unchanged until the action applies.
            obs = encoder.encode(game.view(action.seat, history=False))
            visits = {aid: v for aid, (v, _mean) in root.items()}
            q = max(root.values())[1]  # the most visited action's mean (ties: the better)
            rows.append((obs, visits, action.seat, q))
            bot.last_iterations = 0  # an out-of-turn answer next must not read it again
        game.apply(action)
        count += 1
    winner = _winner(game)
    classic = game.rules.is_classic
    return [
        Example(obs, visits, (winner - seat) % n, n, classic, q) for obs, visits, seat, q in rows
    ]


def play_shard(
    master: int,
    shard: int,
    iterations: int,
    out: Path,
    teacher: str = "ismcts",
    mix: tuple[Table, ...] = TABLES,
) -> int:
    """Play shard ``shard``'s games and write ``out/shard-NNNNN.npz``; its example count."""
    rows: list[Example] = []
    games: list[int] = []
    for index in range(shard * SHARD_GAMES, (shard + 1) * SHARD_GAMES):
        found = play_game(master, index, iterations, teacher, mix)
        rows += found
        games += [index] * len(found)
    size = len(rows)
    obs = np.zeros((size, OBS_SIZE), dtype=np.float32)
    visits = np.zeros((size, NUM_ACTIONS), dtype=np.uint16)
    for i, row in enumerate(rows):
        obs[i] = row.obs
        for aid, count in row.visits.items():
            visits[i, aid] = count
    path = out / f"shard-{shard:05d}.npz"
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        np.savez_compressed(
            fh,
            obs=obs,
            visits=visits,
            winner=np.array([r.winner for r in rows], dtype=np.int8),
            players=np.array([r.players for r in rows], dtype=np.int8),
            classic=np.array([r.classic for r in rows], dtype=np.bool_),
            game=np.array(games, dtype=np.int32),
            q=np.array([r.q for r in rows], dtype=np.float32),
            meta=np.array([master, iterations], dtype=np.int64),
            teacher=np.array(teacher),
            mix=np.array(mix_label(mix)),
        )
    os.replace(tmp, path)  # a shard on disk is always whole
    return size


_PER_CARD: Final = ("hand", "drawn", "top", "opp_known", "discard")  # blocks of one entry per card
_PER_COLOUR: Final = ("colour", "opp_void")  # blocks of one entry per colour


def colour_maps() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Index maps of the 24 ways to rename the four colours, for data augmentation.

    Both presets treat the colours alike (every colour has the same cards, RULES.md §1), so
    an example with its colours renamed is as good an example. Row ``k`` of each map renames
    by the ``k``-th permutation: ``obs[..., obs_map[k]]`` is the observation of the renamed
    position and ``visits[..., action_map[k]]`` its visits (a play of a renamed card, a
    renamed colour choice). Row 0 is the identity.
    """
    import itertools

    letters = [c.value for c in COLOURS]
    obs_maps = []
    action_maps = []
    for perm in itertools.permutations(range(len(COLOURS))):
        # The renaming sends colour i to perm[i]; entry j of the renamed example is entry
        # back(j) of the original.
        back = {COLOURS[perm[i]]: COLOURS[i] for i in range(len(COLOURS))}
        card_back = []
        for code in ALL_CODES:
            if code[0] in letters:
                code = back[COLOURS[letters.index(code[0])]].value + code[1:]
            card_back.append(Card(code).index)
        obs_map = np.arange(OBS_SIZE)
        for name in _PER_CARD:
            block = OBS_LAYOUT[name]
            for start in range(block.start, block.stop, len(ALL_CODES)):
                obs_map[start : start + len(ALL_CODES)] = start + np.array(card_back)
        for name in _PER_COLOUR:
            block = OBS_LAYOUT[name]
            for start in range(block.start, block.stop, len(COLOURS)):
                for i, entry in enumerate(COLOURS):
                    obs_map[start + i] = start + COLOURS.index(back[entry])
        action_map = np.arange(NUM_ACTIONS)
        for aid in range(NUM_ACTIONS):
            kind = ID_KIND[aid]
            named = ID_COLOUR[aid]
            if kind == K_COLOUR and named is not None:
                action_map[aid] = COLOUR_BASE + COLOURS.index(back[named])
            elif kind == K_PLAY:
                card = ID_CARD[aid]
                assert card is not None
                renamed = Card(ALL_CODES[card_back[card.index]])
                named_back = None if named is None else back[named]
                action_map[aid] = play_id(
                    renamed, named_back, ID_REL[aid], ID_UNO[aid], ID_JUMP[aid]
                )
        obs_maps.append(obs_map)
        action_maps.append(action_map)
    return np.stack(obs_maps), np.stack(action_maps)


def load_shards(paths: list[Path]) -> Shard:
    """The examples of ``paths`` (shard files), concatenated."""
    parts: dict[str, list[npt.NDArray[np.generic]]] = {k: [] for k in Shard._fields}
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            for key in Shard._fields:
                if key == "q" and key not in data:  # a shard from before q was kept
                    parts[key].append(np.full(len(data["winner"]), np.nan, dtype=np.float32))
                else:
                    parts[key].append(data[key])
    return Shard(*(np.concatenate(parts[k]) for k in Shard._fields))


def _other_settings(
    out: Path, master: int, iterations: int, teacher: str, mix: str = "default"
) -> str:
    """The settings of a shard in ``out`` that differ from these, or "" (a resumed run must
    not mix its shards with another's). A shard without a recorded mix has the default."""
    for path in sorted(out.glob("shard-*.npz"))[:1]:
        with np.load(path, allow_pickle=False) as data:
            seed, its = (int(x) for x in data["meta"])
            who = str(data["teacher"]) if "teacher" in data else "ismcts"
            its_mix = str(data["mix"]) if "mix" in data else "default"
        if (seed, its, who, its_mix) != (master, iterations, teacher, mix):
            return f"{path.name}: --seed {seed} --iterations {its} --teacher {who} --mix {its_mix}"
    return ""


def main(argv: list[str] | None = None) -> int:
    """The command line (module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m nomercy.rl.puct_data",
        description="Play ismcts self-play games and keep their search statistics.",
    )
    parser.add_argument("--out", type=Path, required=True, help="the shard directory")
    parser.add_argument("--seed", type=int, default=0, help="the master seed")
    parser.add_argument("--iterations", type=int, default=400, help="the teacher's iterations")
    parser.add_argument(
        "--teacher", choices=TEACHERS, default="ismcts", help="the bot at every seat"
    )
    parser.add_argument(
        "--mix",
        default="default",
        help=f"the tables' mix: a name ({', '.join(MIXES)}) or PRESET:PLAYERS=WEIGHT,...",
    )
    parser.add_argument("--shards", type=int, default=1000, help="shards to have at the end")
    parser.add_argument("--first", type=int, default=0, help="the first shard index")
    parser.add_argument("--hours", type=float, default=0.0, help="stop after this long (0: none)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args(argv)
    try:
        mix = parse_mix(args.mix)
    except ValueError as exc:
        parser.error(str(exc))
    args.out.mkdir(parents=True, exist_ok=True)
    mixed = _other_settings(args.out, args.seed, args.iterations, args.teacher, mix_label(mix))
    if mixed:
        parser.error(f"{args.out} holds shards of other settings ({mixed}): use another --out")
    todo = [
        k
        for k in range(args.first, args.first + args.shards)
        if not (args.out / f"shard-{k:05d}.npz").exists()
    ]
    deadline = time.monotonic() + args.hours * 3600 if args.hours > 0 else float("inf")
    start = time.monotonic()
    done = examples = 0
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        pending: dict[Future[int], int] = {}
        queue = iter(todo)
        while True:
            while len(pending) < args.jobs and time.monotonic() < deadline:
                k = next(queue, None)
                if k is None:
                    break
                job = pool.submit(
                    play_shard, args.seed, k, args.iterations, args.out, args.teacher, mix
                )
                pending[job] = k
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                k = pending.pop(future)
                examples += future.result()
                done += 1
                rate = done * SHARD_GAMES / (time.monotonic() - start)
                print(
                    f"shard {k}: {done}/{len(todo)} shards, {examples} examples, "
                    f"{rate * 60:.0f} games/min",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
