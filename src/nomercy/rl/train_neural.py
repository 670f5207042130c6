"""Train the ``neural`` bot: masked PPO by self-play on the PettingZoo env (docs/neural.md).

    python -m nomercy.rl.train_neural --seed 0 --hours 2 --out runs/neural
    python -m nomercy.rl.train_neural --plot runs/neural --png curve.png
    python -m nomercy.rl.train_neural --plot docs/neural/eval-s0.jsonl --png curve.png

Needs torch (CPU, one thread; not in any extra) besides the ``rl`` extra. The learner plays
lanes of games whose tables and opponents :class:`~nomercy.rl.selfplay.TableMix` draws
(mostly 2-player No Mercy; 3-6 players and classic too), against itself, past selves from a
pool, ``heuristic`` and ``random``. Every ``--eval-minutes`` the policy, exported to numpy,
plays the shipped bot's code against ``heuristic`` (2 and 4 players) and ``random``; the
figures go to ``OUT/eval.jsonl`` and the weights to ``OUT/weights/``. ``OUT/checkpoint.pt``
is written every ``--checkpoint-minutes``; running the same command again resumes from it
until the total training time reaches ``--hours`` (a resumed run deals new games, so it is
not bit-identical to an uninterrupted one; ``--updates`` bounds the run by updates instead).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

try:
    import torch
    from torch import nn
except ImportError as _exc:  # pragma: no cover - depends on the install
    raise SystemExit(
        "training needs torch (CPU build): pip install torch, then run this command again"
    ) from _exc

from nomercy.bots.neural_bot import Policy
from nomercy.bots.neural_features import NUM_ACTIONS, OBS_SIZE
from nomercy.rl.selfplay import KINDS, Finished, Lane, TableMix, evaluate, gae


class Net(nn.Module):
    """The torch twin of :class:`~nomercy.bots.neural_bot.Policy` (tanh MLP, two heads)."""

    def __init__(self, hidden: list[int]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = OBS_SIZE
        for h in hidden:
            layers += [nn.Linear(width, h), nn.Tanh()]
            width = h
        self.body = nn.Sequential(*layers)
        self.pi = nn.Linear(width, NUM_ACTIONS)
        self.v = nn.Linear(width, 1)
        nn.init.orthogonal_(self.pi.weight, 0.01)
        nn.init.zeros_(self.pi.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(obs)
        logits = self.pi(h).masked_fill(~mask, -1e9)
        return logits, self.v(h).squeeze(-1)

    def export(self, meta: dict[str, Any]) -> Policy:
        """The numpy policy with these weights."""
        linear = [m for m in self.body if isinstance(m, nn.Linear)] + [self.pi, self.v]
        layers = [
            (m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linear
        ]
        return Policy(layers, meta)


def _batch(
    trajectories: list[Finished], net: Net, gamma: float, lam: float
) -> dict[str, torch.Tensor]:
    obs = torch.as_tensor(np.stack([o for t in trajectories for o in t.obs]))
    mask = torch.as_tensor(np.stack([m for t in trajectories for m in t.masks])).bool()
    with torch.no_grad():
        _, values = net(obs, mask)
    adv, ret = gae(
        [t.reward for t in trajectories],
        values.numpy(),
        [len(t.actions) for t in trajectories],
        gamma,
        lam,
    )
    return {
        "obs": obs,
        "mask": mask,
        "action": torch.as_tensor([a for t in trajectories for a in t.actions]),
        "logp": torch.as_tensor([p for t in trajectories for p in t.logps], dtype=torch.float32),
        "adv": torch.as_tensor(adv),
        "ret": torch.as_tensor(ret),
    }


def _ppo(
    net: Net, opt: torch.optim.Optimizer, data: dict[str, torch.Tensor], args: Any
) -> dict[str, float]:
    size = data["action"].shape[0]
    # Advantages normalised over the whole batch (a minibatch may be a single decision).
    adv = data["adv"]
    data = {**data, "adv": (adv - adv.mean()) / (adv.std(unbiased=False) + 1e-8)}
    stats = {"loss_pi": 0.0, "loss_v": 0.0, "entropy": 0.0, "kl": 0.0}
    steps = 0
    for _ in range(args.epochs):
        perm = torch.randperm(size)
        for start in range(0, size, args.minibatch):
            idx = perm[start : start + args.minibatch]
            logits, value = net(data["obs"][idx], data["mask"][idx])
            dist = torch.distributions.Categorical(logits=logits)
            logp = dist.log_prob(data["action"][idx])
            a = data["adv"][idx]
            ratio = torch.exp(logp - data["logp"][idx])
            clipped = torch.clamp(ratio, 1 - args.clip, 1 + args.clip)
            loss_pi = -torch.min(ratio * a, clipped * a).mean()
            loss_v = ((value - data["ret"][idx]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = loss_pi + 0.5 * loss_v - args.entropy * entropy
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
            with torch.no_grad():
                stats["kl"] += float((data["logp"][idx] - logp).mean())
            stats["loss_pi"] += loss_pi.item()
            stats["loss_v"] += loss_v.item()
            stats["entropy"] += entropy.item()
            steps += 1
    return {k: v / max(steps, 1) for k, v in stats.items()}


class Trainer:
    """State of one training run (everything the checkpoint holds)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.out: Path = args.out
        self.net = Net(args.hidden)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=args.lr)
        self.pool: list[Policy] = []
        self.updates = 0
        self.decisions = 0
        self.games = 0
        self.elapsed = 0.0  # training seconds over all sessions of this run
        self.rng = random.Random(args.seed)
        self.torch_gen = torch.Generator().manual_seed(args.seed)

    # ------------------------------------------------------------------ checkpoints
    def save(self) -> None:
        state = {
            "net": self.net.state_dict(),
            "opt": self.opt.state_dict(),
            "pool": [p.arrays() for p in self.pool],
            "updates": self.updates,
            "decisions": self.decisions,
            "games": self.games,
            "elapsed": self.elapsed,
            "rng": self.rng.getstate(),
            "torch_rng": self.torch_gen.get_state(),
            "hidden": self.args.hidden,
            "seed": self.args.seed,
        }
        tmp = self.out / "checkpoint.pt.tmp"
        torch.save(state, tmp)
        tmp.replace(self.out / "checkpoint.pt")

    def load(self, path: Path) -> None:
        state = torch.load(path, weights_only=False)
        if state["hidden"] != self.args.hidden:
            raise SystemExit(f"{path} has hidden layers {state['hidden']}, not {self.args.hidden}")
        self.net.load_state_dict(state["net"])
        self.opt.load_state_dict(state["opt"])
        self.pool = [_policy_of(arrays) for arrays in state["pool"]]
        self.updates = state["updates"]
        self.decisions = state["decisions"]
        self.games = state["games"]
        self.elapsed = state["elapsed"]
        self.rng.setstate(state["rng"])
        self.torch_gen.set_state(state["torch_rng"])

    def meta(self) -> dict[str, Any]:
        return {
            "seed": self.args.seed,
            "updates": self.updates,
            "decisions": self.decisions,
            "games": self.games,
            "train_seconds": round(self.elapsed),
            "hidden": self.args.hidden,
            "command": "python -m nomercy.rl.train_neural " + " ".join(self.args.argv),
        }

    def policy(self) -> Policy:
        return self.net.export(self.meta())

    # ------------------------------------------------------------------ training
    def _pool_pick(self, rng: random.Random) -> Policy | None:
        return rng.choice(self.pool) if self.pool else None

    def run(self) -> None:
        args = self.args
        mix = TableMix()
        lanes = [
            Lane(
                random.Random(self.rng.randrange(2**63)),
                mix,
                self._pool_pick,
                self.rng.randrange(2**31),
            )
            for _ in range(args.lanes)
        ]
        for lane in lanes:
            lane.advance()
        started = time.monotonic()
        base_elapsed = self.elapsed
        last_eval = last_ckpt = time.monotonic()
        if self.updates == 0:
            self.evaluate()
        waiting: list[Finished] = []
        while True:
            self.elapsed = base_elapsed + time.monotonic() - started
            if self.elapsed >= args.hours * 3600 or (args.updates and self.updates >= args.updates):
                break
            # Collect whole trajectories until the batch is full.
            while sum(len(t.actions) for t in waiting) < args.batch:
                obs = torch.as_tensor(np.stack([lane.pending[1] for lane in lanes]))  # type: ignore[index]
                mask = torch.as_tensor(np.stack([lane.pending[2] for lane in lanes])).bool()  # type: ignore[index]
                with torch.no_grad():
                    logits, _ = self.net(obs, mask)
                    dist = torch.distributions.Categorical(logits=logits)
                    probs = dist.probs
                    action = torch.multinomial(probs, 1, generator=self.torch_gen)[:, 0]
                    logp = dist.log_prob(action)
                for i, lane in enumerate(lanes):
                    lane.act(int(action[i]), float(logp[i]))
                    lane.advance()
                    waiting.extend(lane.take_finished())
            batch, waiting = waiting, []
            data = _batch(batch, self.net, args.gamma, args.lam)
            stats = _ppo(self.net, self.opt, data, args)
            self.updates += 1
            self.decisions += int(data["action"].shape[0])
            self.games = sum(lane.games for lane in lanes) + self._games_before
            by_kind = {
                k: round(float(np.mean([t.reward > 0 for t in batch if t.kind == k])), 3)
                for k in KINDS
                if any(t.kind == k for t in batch)
            }
            self.elapsed = base_elapsed + time.monotonic() - started
            record = {
                "update": self.updates,
                "decisions": self.decisions,
                "games": self.games,
                "seconds": round(self.elapsed, 1),
                "won_by_kind": by_kind,
                **{k: round(v, 4) for k, v in stats.items()},
            }
            with open(self.out / "log.jsonl", "a") as fh:
                fh.write(json.dumps(record) + "\n")
            if self.updates % args.pool_every == 0:
                self.pool.append(self.policy())
                del self.pool[: -args.pool_size]
            now = time.monotonic()
            if now - last_eval >= args.eval_minutes * 60:
                self.evaluate()
                last_eval = time.monotonic()
            if now - last_ckpt >= args.checkpoint_minutes * 60:
                self.save()
                last_ckpt = time.monotonic()
            print(
                f"update {self.updates}: {self.decisions} decisions, {self.games} games, "
                f"{self.elapsed / 60:.1f} min, won {by_kind}",
                file=sys.stderr,
                flush=True,
            )
        self.evaluate()
        self.save()

    _games_before = 0

    def evaluate(self) -> None:
        """Evaluate the current policy and export its weights (module docstring)."""
        args = self.args
        policy = self.policy()
        weights = self.out / "weights"
        weights.mkdir(exist_ok=True)
        policy.save(weights / f"u{self.updates:05d}.npz")
        policy.save(self.out / "neural.npz")
        row: dict[str, Any] = {
            "update": self.updates,
            "decisions": self.decisions,
            "seconds": round(self.elapsed, 1),
        }
        t0 = time.monotonic()
        # Fixed deals, away from the training seeds, the same at every evaluation.
        for label, opponent, players, games in (
            ("heuristic_2p", "heuristic", 2, args.eval_games),
            ("heuristic_4p", "heuristic", 4, args.eval_games // 2),
            ("random_2p", "random", 2, args.eval_games // 2),
        ):
            res = evaluate(policy, opponent, games, players=players, seed=10**9 + players)
            row[label] = {k: res[k] for k in ("games", "wins", "win_rate", "low", "high")}
        row["eval_seconds"] = round(time.monotonic() - t0, 1)
        with open(self.out / "eval.jsonl", "a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(f"eval {json.dumps(row)}", file=sys.stderr, flush=True)


def _policy_of(arrays: dict[str, Any]) -> Policy:
    layers = []
    i = 0
    while f"h{i}_w" in arrays:
        layers.append((arrays[f"h{i}_w"], arrays[f"h{i}_b"]))
        i += 1
    layers += [(arrays["pi_w"], arrays["pi_b"]), (arrays["v_w"], arrays["v_b"])]
    return Policy(layers, json.loads(str(arrays["meta"])))


def plot(run: Path, png: Path) -> None:
    """Win rates against ``heuristic`` (2 and 4 players) and ``random`` over training time,
    from ``run/eval.jsonl`` (or ``run`` itself when it is that file)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    source = run if run.is_file() else run / "eval.jsonl"
    rows = [json.loads(line) for line in source.read_text().splitlines() if line]
    fig, ax = plt.subplots(figsize=(7, 4))
    hours = [r["seconds"] / 3600 for r in rows]
    for key, label in (
        ("heuristic_2p", "vs heuristic, 2 players"),
        ("heuristic_4p", "vs 3 heuristic, 4 players"),
        ("random_2p", "vs random, 2 players"),
    ):
        rate = [r[key]["win_rate"] for r in rows]
        ax.plot(hours, rate, marker="o", label=label)
        ax.fill_between(
            hours, [r[key]["low"] for r in rows], [r[key]["high"] for r in rows], alpha=0.2
        )
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.axhline(0.25, color="grey", lw=0.5, ls="--")
    ax.set_xlabel("training time (hours, 1 CPU thread, nice 15)")
    ax.set_ylabel("win rate (Wilson 95%)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title(f"neural: evaluation during training ({source})")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        prog="python -m nomercy.rl.train_neural", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--out", type=Path, help="run directory (checkpoint, logs, weights)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hours", type=float, default=2.0, help="total training time")
    parser.add_argument("--updates", type=int, default=0, help="stop after this many updates")
    parser.add_argument("--lanes", type=int, default=64, help="games stepped in lockstep")
    parser.add_argument("--batch", type=int, default=8192, help="decisions per update (at least)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--minibatch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.995)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument(
        "--hidden", type=lambda s: [int(x) for x in s.split(",")], default=[256, 256]
    )
    parser.add_argument("--pool-every", type=int, default=10, help="updates between pool snapshots")
    parser.add_argument("--pool-size", type=int, default=20)
    parser.add_argument("--eval-minutes", type=float, default=10.0)
    parser.add_argument("--eval-games", type=int, default=1000, help="2-player games vs heuristic")
    parser.add_argument("--checkpoint-minutes", type=float, default=5.0)
    parser.add_argument(
        "--plot",
        type=Path,
        help="plot this run directory's (or this file's) eval.jsonl; no training",
    )
    parser.add_argument("--png", type=Path, help="with --plot: the picture to write")
    args = parser.parse_args(argv)
    if args.plot:
        if not args.png:
            parser.error("--plot needs --png")
        plot(args.plot, args.png)
        return 0
    if not args.out:
        parser.error("--out is required")
    args.argv = argv
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    trainer = Trainer(args)
    ckpt = args.out / "checkpoint.pt"
    if ckpt.exists():
        trainer.load(ckpt)
        trainer._games_before = trainer.games
        print(f"resuming from {ckpt}: update {trainer.updates}", file=sys.stderr)
    trainer.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
