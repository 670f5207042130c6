"""docs/rl.md's training recipes, run as written and timed: the figures of docs/rl.md.

Each recipe's env block and then its train block run in one namespace (as
``tests/rl/test_rl_recipes.py`` runs them); the train block's wall and CPU time (this process
and its threads) and its ``result`` (what ``nomercy.rl.evaluate`` reported) are printed.

    python benchmarks/bench_rl_recipes.py                        # every training recipe
    python benchmarks/bench_rl_recipes.py self-play              # one
    python benchmarks/bench_rl_recipes.py self-play --steps 200000   # another budget

``--steps`` replaces the ``total_timesteps=`` of the train block (to measure a longer run of
the same recipe); ``--also heuristic`` evaluates the trained policy once more, against that
bot at every other seat (400 games, seed 20,000).

Needs the rl-train extra: ``pip install -e '.[rl,rl-train]'``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[1] / "docs" / "rl.md"
TRAINED = ("self-play", "sb3-mlp", "supersuit-black-death")


def blocks() -> dict[tuple[str, str], str]:
    found = re.findall(
        r"<!-- recipe: ([\w-]+) \((env|train)\) -->\n```python\n(.*?)```", DOC.read_text(), re.S
    )
    return {(name, part): code for name, part, code in found}


def run(name: str, steps: int | None) -> dict[str, Any]:
    code = blocks()
    train = code[name, "train"]
    if steps is not None:
        train, count = re.subn(r"total_timesteps=[\d_]+", f"total_timesteps={steps}", train)
        assert count == 1, f"{name}: expected one total_timesteps= in the train block"
    namespace: dict[str, Any] = {"__name__": f"recipe_{name.replace('-', '_')}"}
    exec(compile(code[name, "env"], f"{DOC}:{name}:env", "exec"), namespace)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(train, f"{DOC}:{name}:train", "exec"), namespace)
    return {
        "recipe": name,
        "steps": namespace["model"].num_timesteps,
        "wall_s": round(time.perf_counter() - wall, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
        "result": namespace.get("result"),
        "model": namespace["model"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recipes", nargs="*", help=f"some of {', '.join(TRAINED)} (default: all)")
    parser.add_argument("--steps", type=int, default=None, help="replace total_timesteps")
    parser.add_argument("--also", default=None, help="a bot to evaluate the policy against too")
    args = parser.parse_args(argv)
    unknown = set(args.recipes) - set(TRAINED)
    if unknown:
        parser.error(f"unknown recipe(s) {', '.join(sorted(unknown))}; known: {', '.join(TRAINED)}")
    for name in args.recipes or TRAINED:
        out = run(name, args.steps)
        r = out["result"]
        line = (
            f"{name}: {out['steps']} steps, train+eval {out['wall_s']} s wall, {out['cpu_s']} s CPU"
        )
        if r is not None:
            line += (
                f"; {r['wins']}/{r['games']} = {r['win_rate']:.1%} "
                f"[{r['low']:.1%}, {r['high']:.1%}] vs {','.join(r['opponents'])} "
                f"({r['players']} players)"
            )
        print(line, flush=True)
        if args.also and r is not None:
            import nomercy.rl

            extra = nomercy.rl.evaluate(
                out["model"], opponents=args.also, players=r["players"], games=400, seed=20_000
            )
            print(
                f"  vs {args.also}: {extra['wins']}/400 = {extra['win_rate']:.1%} "
                f"[{extra['low']:.1%}, {extra['high']:.1%}]",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
