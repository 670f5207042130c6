"""The bot driver's hot loop: fixed seeded games played by ``Driver.play_out``, for side-by-side
runs (another checkout's ``src`` on ``PYTHONPATH``) and instruction counts under callgrind.

Game *i* deals seed ``1000 + i`` at a table of ``--players`` seats, each seat a bot of the
comma-separated ``BOTS`` in turn (seeded ``10 i + seat``). It prints the steps, the process's
CPU time per step and a digest of every game's actions, so two sides that play the same games
print the same digest. CPU time moves with the machine's load; instruction counts do not:

    python benchmarks/bench_driver.py heuristic --games 30
    PYTHONPATH=/tmp/other/src python benchmarks/bench_driver.py greedy --games 100
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python benchmarks/bench_driver.py heuristic --games 10   # minus a --games 0 run
"""

from __future__ import annotations

import argparse
import hashlib
import time

import nomercy
from nomercy import new_game
from nomercy.bots import make_bot
from nomercy.bots.driver import Driver
from nomercy.core import BUILD


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bots", help="comma-separated bot names, one per seat in turn")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    names = args.bots.split(",")
    digest = hashlib.sha256()
    steps = 0
    start = time.process_time()
    for i in range(args.games):
        game = new_game(args.players, seed=1000 + i)
        bots = [make_bot(names[s % len(names)], seed=i * 10 + s) for s in range(args.players)]
        steps += Driver(bots).play_out(game)
        digest.update(" ".join(str(a) for a in game.history).encode())
    cpu = time.process_time() - start
    where = nomercy.__file__.rsplit("/src/", 1)[0]
    print(
        f"{where} core {BUILD}: {args.bots} x{args.players}, {args.games} games, {steps} steps, "
        f"{1e6 * cpu / max(steps, 1):.2f} us/step CPU, digest {digest.hexdigest()[:16]}"
    )


if __name__ == "__main__":
    main()
