"""Train the ``puct`` bot's policy-value network on self-play shards (docs/puct.md).

    python -m nomercy.rl.puct_data --out runs/puct/data --hours 1 --jobs 2   # the games
    python -m nomercy.rl.train_puct --data runs/puct/data --out runs/puct/net    # the net
    python -m nomercy.rl.train_puct --plot runs/puct/net/log.jsonl --png curve.png

The policy head learns the root visit distribution of each searched decision (cross-entropy
over the ids the search considered), the value head the hand's winner (cross-entropy over
the table's seats, counted from the searching seat). One game in ten (by its index) is held
out for validation; the weights with the best validation loss are written to
``OUT/puct.npz`` (:class:`~nomercy.bots.pvnet.PVNet`), the figures of every epoch to
``OUT/log.jsonl``, and ``OUT/checkpoint.pt`` after each epoch: the same command again
resumes from it until ``--epochs`` are done. ``--init FILE`` starts a new run from a committed
network (e.g. the shipped ``src/nomercy/bots/data/puct.npz``) instead of random weights: a
new round of self-play then refines it (the widths are the file's).

Needs torch (CPU, one thread) besides numpy.
"""

from __future__ import annotations

import argparse
import json
import math
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

from nomercy.bots.neural_features import MAX_PLAYERS, NUM_ACTIONS, OBS_SIZE
from nomercy.bots.pvnet import PVNet, load_pvnet
from nomercy.rl.puct_data import colour_maps, load_shards

__all__ = ["Net", "main"]


class Net(nn.Module):
    """The torch twin of :class:`~nomercy.bots.pvnet.PVNet` (ReLU MLP, two heads)."""

    def __init__(self, hidden: list[int]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = OBS_SIZE
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.body = nn.Sequential(*layers)
        self.pi = nn.Linear(width, NUM_ACTIONS)
        self.v = nn.Linear(width, MAX_PLAYERS)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(obs)
        return self.pi(h), self.v(h)

    def load(self, weights: PVNet) -> None:
        """Take the weights of a numpy network of the same widths (:meth:`export`'s inverse).

        Raises:
            ValueError: other widths.
        """
        linears = [m for m in self.body if isinstance(m, nn.Linear)]
        if [m.out_features for m in linears] != [w.shape[1] for w, _ in weights.hidden]:
            raise ValueError("the weights have other hidden widths")
        pairs = [
            *zip(linears, weights.hidden, strict=True),
            (self.pi, (weights.policy_rows.T, weights.policy_bias)),
            (self.v, weights.value),
        ]
        with torch.no_grad():
            for m, (w, b) in pairs:
                m.weight.copy_(torch.as_tensor(np.ascontiguousarray(w.T)))
                m.bias.copy_(torch.as_tensor(b))

    def export(self, meta: dict[str, Any]) -> PVNet:
        """The numpy network with these weights."""

        def pair(m: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
            return m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()

        hidden = [pair(m) for m in self.body if isinstance(m, nn.Linear)]
        return PVNet(hidden, pair(self.pi), pair(self.v), meta)


def losses(
    net: Net,
    obs: torch.Tensor,
    visits: torch.Tensor,
    value_target: torch.Tensor,
    seats: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-example policy and value cross-entropies, and whether the policy's top id is the
    most visited one. ``value_target`` is a distribution over the seats (:func:`value_targets`),
    ``seats`` the mask of the table's seats."""
    logits, vlogits = net(obs)
    considered = visits > 0
    logits = logits.masked_fill(~considered, -1e9)
    target = visits / visits.sum(dim=1, keepdim=True)
    policy = -(target * torch.log_softmax(logits, dim=1)).sum(dim=1)
    vlogits = vlogits.masked_fill(~seats, -1e9)
    value = -(value_target * torch.log_softmax(vlogits, dim=1)).sum(dim=1)
    top = logits.argmax(dim=1) == visits.argmax(dim=1)
    return policy, value, top


def value_targets(
    winner: torch.Tensor, players: torch.Tensor, q: torch.Tensor, weight: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """The value head's target: the hand's winner (one-hot over the seats counted from the
    searching seat), blended with ``weight`` of the search's own estimate where the shard
    has one (``q`` for the seat, the rest shared by the others); and the mask of the seats."""
    seats = torch.arange(MAX_PLAYERS).unsqueeze(0) < players.unsqueeze(1)
    onehot = nn.functional.one_hot(winner, MAX_PLAYERS).float()
    known = ~torch.isnan(q)
    qs = torch.where(known, q, torch.zeros_like(q)).unsqueeze(1)
    others = (1 - qs) / (players.unsqueeze(1) - 1).float()
    search = torch.where(torch.arange(MAX_PLAYERS).unsqueeze(0) == 0, qs, others) * seats
    w = (known.float() * weight).unsqueeze(1)
    return (1 - w) * onehot + w * search, seats


def _tensors(paths: list[Path], q_weight: float) -> dict[str, torch.Tensor]:
    shard = load_shards(paths)
    target, seats = value_targets(
        torch.as_tensor(shard.winner.astype(np.int64)),
        torch.as_tensor(shard.players.astype(np.int64)),
        torch.as_tensor(shard.q),
        q_weight,
    )
    outcome, _ = value_targets(
        torch.as_tensor(shard.winner.astype(np.int64)),
        torch.as_tensor(shard.players.astype(np.int64)),
        torch.as_tensor(shard.q),
        0.0,
    )
    return {
        "obs": torch.as_tensor(shard.obs),
        "visits": torch.as_tensor(shard.visits.astype(np.float32)),
        "target": target,
        "outcome": outcome,
        "seats": seats,
        "game": torch.as_tensor(shard.game.astype(np.int64)),
    }


def _evaluate(net: Net, data: dict[str, torch.Tensor], batch: int = 4096) -> dict[str, float]:
    """Mean policy loss, value loss against the outcome alone, and top-1 agreement."""
    total = {"policy": 0.0, "value": 0.0, "top1": 0.0}
    size = len(data["obs"])
    with torch.no_grad():
        for i in range(0, size, batch):
            part = slice(i, i + batch)
            p, v, t = losses(
                net,
                data["obs"][part],
                data["visits"][part],
                data["outcome"][part],
                data["seats"][part],
            )
            total["policy"] += float(p.sum())
            total["value"] += float(v.sum())
            total["top1"] += float(t.float().sum())
    return {k: v / max(1, size) for k, v in total.items()}


def plot(log: Path, png: Path) -> None:
    """The losses and the policy's top-1 agreement per epoch of ``log`` (a ``log.jsonl``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    epochs = [r["epoch"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    for key, style in (("policy", "-"), ("value", "--")):
        left.plot(epochs, [r[f"train_{key}"] for r in rows], style, label=f"{key}, training")
        left.plot(epochs, [r[f"val_{key}"] for r in rows], style, label=f"{key}, held out")
    left.set_xlabel("epoch")
    left.set_ylabel("cross-entropy")
    left.legend(fontsize=8)
    right.plot(epochs, [r["train_top1"] for r in rows], label="training")
    right.plot(epochs, [r["val_top1"] for r in rows], label="held out")
    right.set_xlabel("epoch")
    right.set_ylabel("top-1 = most visited")
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def _resume(
    ckpt: Path, net: Net, opt: torch.optim.Optimizer, gen: torch.Generator, size: int
) -> tuple[int, float]:
    """The epochs done and the best held-out score so far: ``(0, inf)`` for a new run, else
    read from ``ckpt`` with the network's, the optimiser's and the generator's states."""
    if not ckpt.exists():
        return 0, math.inf
    state = torch.load(ckpt)
    net.load_state_dict(state["net"])
    opt.load_state_dict(state["opt"])
    epoch, best = int(state["epoch"]), float(state["best"])
    # The shuffles and colour renamings go on as in an uninterrupted run.
    if "gen" in state:
        gen.set_state(state["gen"])
    else:  # a checkpoint written before the generator was saved: the shuffles only
        for _ in range(epoch):
            torch.randperm(size, generator=gen)
    print(f"resumed after epoch {epoch}", flush=True)
    return epoch, best


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m nomercy.rl.train_puct",
        description="Train the puct bot's policy-value network on self-play shards.",
    )
    parser.add_argument(
        "--data",
        type=Path,
        nargs="+",
        help="the shard directories (several: their shards together, e.g. two rounds)",
    )
    parser.add_argument("--out", type=Path, help="the run directory")
    parser.add_argument("--plot", type=Path, help="plot this log.jsonl instead of training")
    parser.add_argument("--png", type=Path, help="with --plot: the picture to write")
    parser.add_argument(
        "--hidden", default=None, help="hidden layer widths (default: 256,256, or --init's)"
    )
    parser.add_argument(
        "--init", type=Path, help="start from these weights (a puct.npz, e.g. the shipped one)"
    )
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--value-weight", type=float, default=1.0)
    parser.add_argument(
        "--q-weight",
        type=float,
        default=0.5,
        help="share of the search's estimate in the value target (the rest: the outcome)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--holdout", type=int, default=10, help="one game in N is validation")
    parser.add_argument(
        "--no-augment", action="store_true", help="do not rename colours (colour_maps)"
    )
    parser.add_argument(
        "--temperature", type=float, default=1.0, help="policy target: visits ** (1 / T)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """The command line (module docstring)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.plot:
        plot(args.plot, args.png or args.plot.with_suffix(".png"))
        return 0
    if args.data is None or args.out is None:
        parser.error("--data and --out are required to train")
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    paths = [p for d in args.data for p in sorted(d.glob("shard-*.npz"))]
    if not paths:
        raise SystemExit(f"no shards in {' '.join(map(str, args.data))}")
    data = _tensors(paths, args.q_weight)
    held = data["game"] % args.holdout == 0
    train = {k: v[~held] for k, v in data.items()}
    val = {k: v[held] for k, v in data.items()}
    start_from = None if args.init is None else load_pvnet(args.init)
    if start_from is not None:
        widths = [w.shape[1] for w, _ in start_from.hidden]
        if args.hidden is not None and [int(x) for x in args.hidden.split(",")] != widths:
            parser.error(f"--hidden {args.hidden} is not --init's widths {widths}")
        hidden = widths
    else:
        hidden = [int(x) for x in (args.hidden or "256,256").split(",")]
    net = Net(hidden)
    if start_from is not None:
        net.load(start_from)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt = args.out / "checkpoint.pt"
    gen = torch.Generator().manual_seed(args.seed)
    epoch, best = _resume(ckpt, net, opt, gen, len(train["obs"]))
    size = len(train["obs"])
    steps = args.epochs * math.ceil(size / args.batch)
    settings = {
        "shards": len(paths),
        "epochs": args.epochs,
        "batch": args.batch,
        "lr": args.lr,
        "weight_decay": args.weight_decay,
        "value_weight": args.value_weight,
        "q_weight": args.q_weight,
        "seed": args.seed,
        "holdout": args.holdout,
        "augment": not args.no_augment,
        "temperature": args.temperature,
        "init": None if args.init is None else str(args.init),
    }
    print(f"{size} training examples, {len(val['obs'])} held out, {len(paths)} shards", flush=True)
    obs_maps, action_maps = (torch.as_tensor(m) for m in colour_maps())
    if args.temperature != 1.0:
        for part in (train, val):
            part["visits"] = part["visits"] ** (1.0 / args.temperature)
    while epoch < args.epochs:
        start = time.monotonic()
        order = torch.randperm(size, generator=gen)
        net.train()
        for j, i in enumerate(range(0, size, args.batch)):
            step = epoch * math.ceil(size / args.batch) + j
            for group in opt.param_groups:  # cosine decay to a tenth
                group["lr"] = args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * step / steps)))
            idx = order[i : i + args.batch]
            obs, visits = train["obs"][idx], train["visits"][idx]
            if not args.no_augment:  # each example with its colours renamed at random
                k = torch.randint(len(obs_maps), (len(idx),), generator=gen)
                obs = torch.gather(obs, 1, obs_maps[k])
                visits = torch.gather(visits, 1, action_maps[k])
            p, v, _ = losses(net, obs, visits, train["target"][idx], train["seats"][idx])
            loss = p.mean() + args.value_weight * v.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        epoch += 1
        net.eval()
        figures = {"epoch": epoch, "seconds": round(time.monotonic() - start, 1)}
        figures |= {f"train_{k}": round(x, 4) for k, x in _evaluate(net, train).items()}
        figures |= {f"val_{k}": round(x, 4) for k, x in _evaluate(net, val).items()}
        score = figures["val_policy"] + args.value_weight * figures["val_value"]
        if score < best:
            best = score
            meta = {"hidden": hidden, "epoch": epoch, "examples": size, **figures}
            meta["settings"] = settings  # what reproduces it (model card: the command)
            net.export(meta).save(args.out / "puct.npz")
            figures["saved"] = True
        with open(args.out / "log.jsonl", "a") as fh:
            fh.write(json.dumps(figures) + "\n")
        print(json.dumps(figures), flush=True)
        state = {"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "best": best}
        torch.save({**state, "gen": gen.get_state()}, ckpt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
