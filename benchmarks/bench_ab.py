"""Two source trees of the engine side by side: the id path's steps/s, before and after a change.

Each tree (a ``src`` directory holding ``nomercy``, compiled with ``python -m
nomercy.core.build`` or not) plays in a child process of ``bench_engine.py --worker``
(``legal_ids``/``step``, ``record_events`` off, random legal ids, CPU time of the child);
the rounds alternate which tree goes first, and the report gives each tree's median steps/s
and the median (min-max) of the per-round ratio B/A. Both trees play the same seeds, so their
step counts agree unless the change altered a game.

    git worktree add /tmp/before main    # or copy the tree, then build it there
    python benchmarks/bench_ab.py /tmp/before/src src --games 400 --rounds 7
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH_ENGINE = Path(__file__).with_name("bench_engine.py")


class Tree:
    """One tree's worker: ``bench_engine.py --worker`` with that tree first on the path."""

    def __init__(self, src: str, build: str, players: int) -> None:
        env = {k: v for k, v in os.environ.items() if k != "NOMERCY_PURE"}
        env["PYTHONPATH"] = str(Path(src).resolve())
        if build == "pure":
            env["NOMERCY_PURE"] = "1"
        argv = [str(BENCH_ENGINE), "--worker", "--players", str(players), "--path", "ids"]
        self.proc = subprocess.Popen(
            [sys.executable, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.info: dict[str, Any] = self._read()
        if self.info["build"] != build:
            self.close()
            raise SystemExit(f"{src}: the {build} core is not loaded: {self.info['description']}")

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the worker exited ({self.proc.wait()})")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def ask(self, command: str, start: int, stop: int) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{command} {start} {stop}\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="the first tree's src directory (before)")
    parser.add_argument("b", help="the second tree's src directory (after)")
    parser.add_argument("--games", type=int, default=400, help="games per tree per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1000, help="first seed")
    parser.add_argument("--build", choices=("compiled", "pure"), default="compiled")
    args = parser.parse_args(argv)
    trees = {
        "A": Tree(args.a, args.build, args.players),
        "B": Tree(args.b, args.build, args.players),
    }
    seeds = (args.seed, args.seed + args.games)
    try:
        for tree in trees.values():
            tree.ask("warm", 0, max(1, args.games // 10))
        rates: dict[str, list[float]] = {"A": [], "B": []}
        steps: dict[str, int] = {}
        ratios = []
        for r in range(args.rounds):
            order = ["A", "B"] if r % 2 == 0 else ["B", "A"]
            for key in order:
                run = trees[key].ask("run", *seeds)
                rates[key].append(run["steps"] / run["seconds"])
                steps[key] = run["steps"]
            ratios.append(rates["B"][-1] / rates["A"][-1])
            print(f"round {r}: A {rates['A'][-1]:,.0f}  B {rates['B'][-1]:,.0f}", file=sys.stderr)
    finally:
        for tree in trees.values():
            tree.close()
    for key, src in (("A", args.a), ("B", args.b)):
        print(f"{key} {src}: {statistics.median(rates[key]):,.0f} steps/s ({steps[key]} steps)")
    print(f"B/A: {statistics.median(ratios):.3f} [{min(ratios):.3f}-{max(ratios):.3f}]")
    if steps["A"] != steps["B"]:
        print("warning: the trees played different games (step counts differ)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
