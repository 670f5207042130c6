"""Train a small masked policy on No Mercy with PPO, then evaluate it against bots.

The learner plays one seat of a 2-player game (``nomercy.rl.NoMercyEnv``) against bots drawn
from ``--train-opponents``; illegal actions are removed by the action mask (their logits are
set to a large negative number before the softmax), so the policy never picks one. After
``--minutes`` of training it plays ``--eval-games`` games against each of ``--opponents``
(greedy choice among legal ids) and prints win rates with 95% confidence intervals.

    pip install -e '.[rl-train]'        # PyTorch (torch==2.13.0, the CPU build) and more
    python examples/train_masked_policy/train.py --minutes 10
    python examples/train_masked_policy/train.py --load policy.pt --minutes 0 \
        --opponents random,greedy
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from masked_envs import make_envs, names, obs_scale  # beside this script: no torch needed

from nomercy.bots.registry import BOTS
from nomercy.rl import NUM_ACTIONS, OBS_SIZE, NoMercyEnv

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - depends on the install
    raise SystemExit(
        "train.py needs PyTorch: pip install -e '.[rl-train]' (torch==2.13.0, the CPU build)"
    ) from None

HIDDEN = 256


class Policy(nn.Module):
    """An MLP with a policy head over every action id and a value head."""

    def __init__(self, scale: np.ndarray) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32))
        self.body = nn.Sequential(
            nn.Linear(OBS_SIZE, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, HIDDEN), nn.Tanh()
        )
        self.pi = nn.Linear(HIDDEN, NUM_ACTIONS)
        self.v = nn.Linear(HIDDEN, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(obs / self.scale)
        logits = self.pi(h).masked_fill(~mask, -1e9)
        return logits, self.v(h).squeeze(-1)


def batch(obs: list[dict[str, np.ndarray]]) -> tuple[torch.Tensor, torch.Tensor]:
    o = torch.as_tensor(np.stack([x["observation"] for x in obs]))
    m = torch.as_tensor(np.stack([x["action_mask"] for x in obs])).bool()
    return o, m


def train(args: argparse.Namespace) -> Policy:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    envs = make_envs(args.train_opponents, args.envs, args.preset)
    policy = Policy(obs_scale(envs[0]))
    if args.load:
        policy.load_state_dict(torch.load(args.load))
    opt = torch.optim.Adam(policy.parameters(), lr=args.lr)
    obs = [env.reset(seed=args.seed * 100_003 + i)[0] for i, env in enumerate(envs)]
    deadline = time.monotonic() + args.minutes * 60
    update = episodes = wins = 0
    recent: list[float] = []
    while time.monotonic() < deadline:
        buf_o, buf_m, buf_a, buf_logp, buf_v, buf_r, buf_d = [], [], [], [], [], [], []
        for _ in range(args.rollout):
            o, m = batch(obs)
            with torch.no_grad():
                logits, value = policy(o, m)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
            rewards, dones = [], []
            for i, env in enumerate(envs):
                nxt, r, term, trunc, _ = env.step(int(action[i]))
                if term or trunc:
                    episodes += 1
                    wins += r > 0
                    recent.append(float(r > 0))
                    nxt, _ = env.reset()
                obs[i] = nxt
                rewards.append(r)
                dones.append(term or trunc)
            buf_o.append(o)
            buf_m.append(m)
            buf_a.append(action)
            buf_logp.append(dist.log_prob(action))
            buf_v.append(value)
            buf_r.append(torch.tensor(rewards, dtype=torch.float32))
            buf_d.append(torch.tensor(dones, dtype=torch.float32))
        with torch.no_grad():
            _, last_v = policy(*batch(obs))
        # Generalised advantage estimation over the rollout (episodes end on done flags).
        adv = torch.zeros(args.rollout, args.envs)
        gae = torch.zeros(args.envs)
        for t in reversed(range(args.rollout)):
            next_v = last_v if t == args.rollout - 1 else buf_v[t + 1]
            nonterminal = 1.0 - buf_d[t]
            delta = buf_r[t] + args.gamma * next_v * nonterminal - buf_v[t]
            gae = delta + args.gamma * args.lam * nonterminal * gae
            adv[t] = gae
        ret = adv + torch.stack(buf_v)
        flat = {
            "o": torch.cat(buf_o),
            "m": torch.cat(buf_m),
            "a": torch.cat(buf_a),
            "logp": torch.cat(buf_logp),
            "adv": adv.reshape(-1),
            "ret": ret.reshape(-1),
        }
        size = flat["a"].shape[0]
        for _ in range(args.epochs):
            perm = torch.randperm(size)
            for start in range(0, size, args.minibatch):
                idx = perm[start : start + args.minibatch]
                logits, value = policy(flat["o"][idx], flat["m"][idx])
                dist = torch.distributions.Categorical(logits=logits)
                logp = dist.log_prob(flat["a"][idx])
                a = flat["adv"][idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                ratio = torch.exp(logp - flat["logp"][idx])
                clip = torch.clamp(ratio, 1 - args.clip, 1 + args.clip)
                loss_pi = -torch.min(ratio * a, clip * a).mean()
                loss_v = ((value - flat["ret"][idx]) ** 2).mean()
                # Entropy over legal actions only (masked logits have ~0 probability).
                loss = loss_pi + 0.5 * loss_v - args.entropy * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
                opt.step()
        update += 1
        recent = recent[-500:]
        if update % 10 == 0:
            left = max(0.0, deadline - time.monotonic())
            print(
                f"update {update}: {episodes} episodes, win rate (last {len(recent)}) "
                f"{np.mean(recent) if recent else 0:.3f}, {left / 60:.1f} min left",
                file=sys.stderr,
                flush=True,
            )
    print(f"trained {update} updates, {episodes} episodes", file=sys.stderr)
    return policy


def evaluate(
    policy: Policy, opponent: str, games: int, preset: str, seed: int, *, sample: bool = False
) -> dict[str, object]:
    """``policy`` against ``opponent`` over ``games`` 2-player games, 16 in lockstep.

    The policy's most likely legal id is played (``sample``: an id drawn from its
    distribution, seeded).
    """
    gen = torch.Generator().manual_seed(seed)
    lanes = min(16, games)
    envs = [NoMercyEnv([opponent], preset=preset, learner_seat=None) for _ in range(lanes)]
    started = 0
    obs: list[dict[str, np.ndarray] | None] = []
    for env in envs:
        obs.append(env.reset(seed=seed + started)[0])
        started += 1
    wins = done = 0
    while done < games:
        live = [i for i, o in enumerate(obs) if o is not None]
        o, m = batch([obs[i] for i in live])  # type: ignore[misc]
        with torch.no_grad():
            logits, _ = policy(o, m)
            if sample:
                choice = torch.multinomial(torch.softmax(logits, -1), 1, generator=gen)[:, 0]
            else:
                choice = logits.argmax(-1)
        for k, i in enumerate(live):
            nxt, r, term, trunc, _ = envs[i].step(int(choice[k]))
            obs[i] = nxt
            if term or trunc:
                done += 1
                wins += r > 0
                if started < games:
                    obs[i] = envs[i].reset(seed=seed + started)[0]
                    started += 1
                else:
                    obs[i] = None
    rate = wins / games
    half = 1.96 * math.sqrt(rate * (1 - rate) / games)
    return {"opponent": opponent, "games": games, "wins": wins, "win_rate": rate, "ci95": half}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="training time (0: none)")
    parser.add_argument(
        "--train-opponents",
        type=names,
        default=["random", "greedy"],
        help="bots to train against, comma-separated (default random,greedy)",
    )
    parser.add_argument(
        "--opponents",
        type=names,
        default=None,
        help="bots to evaluate against (default: random and heuristic if "
        "registered, else random and greedy)",
    )
    parser.add_argument("--eval-games", type=int, default=1000, help="games per opponent")
    parser.add_argument("--preset", default="no-mercy", choices=["no-mercy", "classic"])
    parser.add_argument("--envs", type=int, default=32, help="environments stepped in lockstep")
    parser.add_argument("--rollout", type=int, default=64, help="steps per environment per update")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatch", type=int, default=512)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--load", type=Path, help="start from this checkpoint")
    parser.add_argument("--save", type=Path, default=Path("policy.pt"), help="checkpoint path")
    parser.add_argument("--json", type=Path, help="write the evaluation figures here")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also evaluate a uniform random masked policy, for comparison",
    )
    args = parser.parse_args(argv)
    if args.opponents is None:
        args.opponents = ["random", "heuristic" if "heuristic" in BOTS else "greedy"]
    if args.minutes > 0:
        policy = train(args)
        torch.save(policy.state_dict(), args.save)
    else:
        env = NoMercyEnv(["random"], preset=args.preset)
        policy = Policy(obs_scale(env))
        if args.load:
            policy.load_state_dict(torch.load(args.load))
    policy.eval()
    players = {"trained": policy}
    if args.baseline:
        uniform = Policy(policy.scale.numpy())
        for p in (uniform.pi, uniform.v):  # zero logits: uniform over the legal ids
            nn.init.zeros_(p.weight)
            nn.init.zeros_(p.bias)
        players["uniform"] = uniform
    results = []
    for label, player in players.items():
        for k, opponent in enumerate(args.opponents):
            # The same deals for every policy (seed per opponent).
            res = evaluate(
                player,
                opponent,
                args.eval_games,
                args.preset,
                10**9 + k * 10**6,
                sample=label == "uniform",
            )
            res = {"policy": label, **res}
            results.append(res)
            print(
                f"{label} vs {opponent}: {res['wins']}/{res['games']} won, "
                f"{100 * res['win_rate']:.1f}% ± {100 * res['ci95']:.1f} (95% CI)",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
