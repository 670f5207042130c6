"""One interleaved run: the TypeScript No Mercy peer, our engine's paths and RLCard's game.

The peer is the No Mercy engine of ``rajatghate5/uno-no-mercy`` (its ``packages/engine``, a
pure reducer in TypeScript), run under Node by our driver ``benchmarks/peer/peer_random.ts``.
Its code is not ours and is never committed: it is fetched at bench time. Give a checkout with
``--peer DIR`` (or ``NOMERCY_PEER_DIR``), else this clones ``--peer-repo`` into ``--cache``
(default ``~/.cache/nomercy-bench``). The driver is bundled with esbuild, which ``npx`` fetches
from npm (``ESBUILD``), after linking ``node_modules/@mercy/engine`` to the checkout's
``packages/engine`` (what the peer's own ``bun install`` does). Without Node, npx or a
checkout the peer side is skipped with a message and the other sides still run
(``--require-peer`` makes that an error).

Sides, all playing random legal games (the seat to act picks uniformly among its legal
actions, seeded; dealing timed):

- ``peer``: the peer's ``createGame`` then ``reduce`` per action (Node);
- ``compiled-ids``, ``compiled-objects``, ``pure-ids``: our engine as
  ``bench_engine.py --path ids|objects`` plays (ids: events off), each in a child process on
  that build of ``nomercy.core``;
- ``rlcard``: RLCard's ``UnoGame``, one object reused across games (``init_game()`` per game,
  as its env does; ``bench_engine.make_rlcard``).

Every round times every side on the same seeds, in a rotating order (odd rounds reversed), so
other programs' load falls on all alike. Each side is timed by its own process's CPU time
(``--clock wall`` for wall time). Figures are medians over rounds; ratios are per round (both
sides timed in the same round), then median [min-max].

    python benchmarks/bench_peer.py --games 2000 --rounds 7 --players 4
    python benchmarks/bench_peer.py --peer ~/src/uno-no-mercy --players 2 --games 5000
    python benchmarks/bench_peer.py --sides compiled-ids,rlcard      # no peer

Needs the bench extra (``pip install -e '.[bench]'``) and, for the compiled sides,
``python -m nomercy.core.build``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench_engine import Run, make_build_side, make_rlcard, time_side

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "peer" / "peer_random.ts"
PEER_REPO = "https://github.com/rajatghate5/uno-no-mercy"
ESBUILD = os.environ.get("ESBUILD", "esbuild@0.25.12")
SIDES = ("peer", "compiled-ids", "compiled-objects", "pure-ids", "rlcard")

# Times one round of a side: (seeds, round) -> Run.
Timer = Callable[[range, int], Run]


class PeerUnavailable(RuntimeError):
    """The peer cannot run here (no Node, no npx, no checkout): the message says why."""


def _checkout(args: argparse.Namespace) -> Path:
    """The peer's checkout: ``--peer``, or a clone of ``--peer-repo`` in the cache."""
    if args.peer:
        root = Path(args.peer).expanduser()
        if not (root / "packages" / "engine" / "src").is_dir():
            raise PeerUnavailable(
                f"{root} holds no packages/engine/src (a checkout of {PEER_REPO})"
            )
        return root
    root = Path(args.cache).expanduser() / "uno-no-mercy"
    if not (root / "packages" / "engine" / "src").is_dir():
        if shutil.which("git") is None:
            raise PeerUnavailable("no --peer checkout and no git to clone one")
        root.parent.mkdir(parents=True, exist_ok=True)
        clone = subprocess.run(
            ["git", "clone", "--quiet", args.peer_repo, str(root)],
            capture_output=True,
            text=True,
            check=False,
        )
        if clone.returncode != 0:
            raise PeerUnavailable(f"git clone {args.peer_repo} failed: {clone.stderr.strip()}")
    if args.peer_ref:
        subprocess.run(["git", "-C", str(root), "checkout", "--quiet", args.peer_ref], check=True)
    return root


def build_peer(args: argparse.Namespace) -> tuple[Path, str]:
    """Bundle the driver against the peer's engine; returns (the .mjs, what was built)."""
    for tool in ("node", "npx"):
        if shutil.which(tool) is None:
            raise PeerUnavailable(f"{tool} is not on PATH (the peer runs under Node 20+)")
    root = _checkout(args)
    build = Path(args.cache).expanduser() / "build"
    scope = build / "node_modules" / "@mercy"
    scope.mkdir(parents=True, exist_ok=True)
    link = scope / "engine"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(root / "packages" / "engine", target_is_directory=True)
    shutil.copy2(DRIVER, build / DRIVER.name)
    out = build / "dist" / "peer_random.mjs"
    bundle = subprocess.run(
        [
            *("npx", "--yes", ESBUILD, DRIVER.name, "--bundle", "--platform=node"),
            *("--format=esm", "--target=node20", f"--outfile={out}", "--log-level=warning"),
        ],
        cwd=build,
        capture_output=True,
        text=True,
        check=False,
    )
    if bundle.returncode != 0:
        raise PeerUnavailable(f"esbuild failed: {bundle.stderr.strip()[-2000:]}")
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return out, f"{root} at {head or 'an unknown commit'}"


def peer_side(
    bundle: Path, players: int, clock: str
) -> tuple[Timer, dict[str, Any], subprocess.Popen[str]]:
    """The peer's worker process; its timer sends one round and reads the Run back."""
    proc = subprocess.Popen(
        ["node", str(bundle), "worker", clock],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    info: dict[str, Any] = json.loads(stdout.readline())

    def timer(seeds: range, rep: int) -> Run:
        stdin.write(f"run {seeds.start} {seeds.stop} {players}\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the peer's worker exited ({proc.wait()})")
        r = json.loads(line)
        return Run("peer", rep, r["games"], r["steps"], r["seconds"], r["truncated"], 0)

    return timer, info, proc


def _mmm(xs: list[float]) -> dict[str, float]:
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs)}


def summarize(runs: dict[str, list[Run]]) -> dict[str, dict[str, Any]]:
    """Medians per side, and per-round ratios to RLCard and to the peer when they ran."""
    summary: dict[str, dict[str, Any]] = {}
    for name, rs in runs.items():
        summary[name] = {
            "steps_per_game": rs[0].steps / rs[0].games,
            "steps_per_s": _mmm([r.steps_per_s for r in rs]),
            "games_per_s": _mmm([r.games_per_s for r in rs]),
            "truncated": rs[0].truncated,
            "aborted": rs[0].aborted,
        }
    for base in ("rlcard", "peer"):
        if base not in runs:
            continue
        for name, rs in runs.items():
            pairs = list(zip(rs, runs[base], strict=True))
            summary[name][f"x_{base}_steps_per_s"] = _mmm(
                [r.steps_per_s / b.steps_per_s for r, b in pairs]
            )
            summary[name][f"x_{base}_games_per_s"] = _mmm(
                [r.games_per_s / b.games_per_s for r, b in pairs]
            )
    return summary


def print_table(summary: dict[str, dict[str, Any]], header: str) -> None:
    def cell(m: dict[str, float] | None, fmt: str) -> str:
        if m is None:
            return "-"
        return f"{m['median']:{fmt}} [{m['min']:{fmt}}-{m['max']:{fmt}}]"

    print(f"\n{header}")
    print(
        "| side | steps/game | steps/s | games/s | x RLCard steps/s | x peer steps/s "
        "| x peer games/s |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, s in summary.items():
        flags = (
            f" (truncated {s['truncated']}, aborted {s['aborted']})"
            if (s["truncated"] or s["aborted"])
            else ""
        )
        print(
            f"| {name}{flags} | {s['steps_per_game']:.1f} | {cell(s['steps_per_s'], ',.0f')} | "
            f"{cell(s['games_per_s'], ',.0f')} | {cell(s.get('x_rlcard_steps_per_s'), '.2f')} | "
            f"{cell(s.get('x_peer_steps_per_s'), '.2f')} | "
            f"{cell(s.get('x_peer_games_per_s'), '.2f')} |"
        )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2000, help="games per side per round")
    p.add_argument("--rounds", type=int, default=7, help="rounds (medians are reported)")
    p.add_argument("--players", type=int, default=4, help="seats at every side's tables")
    p.add_argument("--seed", type=int, default=1, help="first seed; game i uses seed+i")
    p.add_argument("--warmup", type=int, default=200, help="untimed games per side first")
    p.add_argument(
        "--sides", default=",".join(SIDES), help=f"comma-separated, of {', '.join(SIDES)}"
    )
    p.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    p.add_argument("--peer", default=os.environ.get("NOMERCY_PEER_DIR"), help="peer checkout")
    p.add_argument("--peer-repo", default=PEER_REPO, help="cloned when --peer is not given")
    p.add_argument("--peer-ref", default=None, help="commit or branch to check out")
    p.add_argument("--cache", default="~/.cache/nomercy-bench", help="clone and bundle here")
    p.add_argument("--require-peer", action="store_true", help="fail if the peer cannot run")
    p.add_argument("--json", default=None, help="also write every run to this JSON file")
    p.add_argument(
        "--deal-version",
        type=int,
        choices=(1, 2),
        default=1,
        help="the generator our sides' games are shuffled with (docs/notation.md; default 1)",
    )
    args = p.parse_args(argv)
    args.sides = [s for s in args.sides.split(",") if s]
    unknown = set(args.sides) - set(SIDES)
    if unknown:
        p.error(f"unknown sides {sorted(unknown)}; choose from {', '.join(SIDES)}")
    if args.games < 1 or args.rounds < 1:
        p.error("--games and --rounds must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    timers: dict[str, Timer] = {}
    infos: dict[str, Any] = {}
    procs: list[subprocess.Popen[str]] = []
    if "peer" in args.sides:
        try:
            bundle, built = build_peer(args)
        except PeerUnavailable as exc:
            if args.require_peer:
                print(f"error: the peer cannot run: {exc}", file=sys.stderr)
                return 2
            print(f"# peer skipped: {exc}", flush=True)
        else:
            timer, info, proc = peer_side(bundle, args.players, args.clock)
            timers["peer"], infos["peer"] = timer, {**info, "built": built}
            procs.append(proc)
    for name in args.sides:
        if name in ("peer", "rlcard"):
            continue
        build, path = name.split("-")
        try:
            side = make_build_side(build, args.players, path, name, args.clock, args.deal_version)
        except RuntimeError as exc:
            print(f"error: {exc}; build it with python -m nomercy.core.build", file=sys.stderr)
            return 2
        assert side.timer is not None
        timers[name], infos[name] = side.timer, {"label": side.label, "version": side.version}
    if "rlcard" in args.sides:
        rl = make_rlcard(args.players)

        def rl_timer(seeds: range, rep: int, side: Any = rl) -> Run:
            return time_side(side, seeds, rep, args.clock)

        timers["rlcard"], infos["rlcard"] = rl_timer, {"label": rl.label, "version": rl.version}

    print(f"# load average at start: {os.getloadavg()}; {args.clock} clock", flush=True)
    for name, info in infos.items():
        print(f"# {name}: {info}", flush=True)
    names = list(timers)
    for name in names:
        timers[name](range(args.seed, args.seed + args.warmup), -1)
    seeds = range(args.seed, args.seed + args.games)
    runs: dict[str, list[Run]] = {name: [] for name in names}
    for r in range(args.rounds):
        k = r % len(names)
        order = names[k:] + names[:k]
        for name in order if r % 2 == 0 else order[::-1]:
            run = timers[name](seeds, r)
            runs[name].append(run)
            print(
                f"round {r + 1}/{args.rounds} {name:<17} {run.steps:>9,} steps "
                f"{run.seconds:7.3f}s {run.steps_per_s:>10,.0f} steps/s "
                f"{run.games_per_s:>8,.1f} games/s",
                flush=True,
            )
        print(f"# load average after round {r + 1}: {os.getloadavg()}", flush=True)
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=30)
    summary = summarize(runs)
    print_table(
        summary,
        f"{args.players} players, {args.games} games a side a round (seeds {seeds.start}.."
        f"{seeds.stop - 1}), {args.rounds} rounds, {args.clock} clock; median [min-max] over "
        "rounds; ratios per round",
    )
    if args.json:
        record = {
            "config": vars(args),
            "infos": infos,
            "summary": summary,
            "runs": {k: [asdict(r) for r in v] for k, v in runs.items()},
        }
        Path(args.json).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
