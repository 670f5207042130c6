"""The ``puct`` network's training (``nomercy.rl.train_puct``, docs/puct.md): a short run on
real self-play shards, interrupted and resumed, its export, ``--init`` and ``--plot``. Needs
torch (trainkit: skipped without it, failed under CI, which installs it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from trainkit import needs

from nomercy.bots.neural_features import MAX_PLAYERS, OBS_SIZE
from nomercy.bots.pvnet import load_pvnet
from nomercy.rl import puct_data


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One shard of 20 searched games (4 iterations a decision: seconds); torch first, so
    that without it no game is played for tests that skip."""
    needs("torch")
    out = tmp_path_factory.mktemp("shards")
    assert puct_data.main(["--out", str(out), "--shards", "1", "--iterations", "4"]) == 0
    return out


def _train(shards: Path, out: Path, *extra: str) -> int:
    from nomercy.rl import train_puct

    args = ["--data", str(shards), "--out", str(out), "--hidden", "32,32", "--batch", "64"]
    args += ["--lr", "1e-2"]  # few examples: a rate at which a few epochs show
    return train_puct.main([*args, *extra])


def _log(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]


def _figures(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]  # all but the clock


class Killed(Exception):
    """The run stopped right after a checkpoint (as a killed process would)."""


def test_an_interrupted_run_resumes_as_if_uninterrupted(
    shards: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch = needs("torch")
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    assert _train(shards, whole, "--epochs", "3") == 0
    save, saved = torch.save, []

    def save_then_die(obj: Any, path: Any) -> None:
        save(obj, path)
        saved.append(path)
        if len(saved) == 2:
            raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(torch, "save", save_then_die)
        with pytest.raises(Killed):
            _train(shards, parts, "--epochs", "3")
    assert [r["epoch"] for r in _log(parts)] == [1, 2]
    assert _train(shards, parts, "--epochs", "3") == 0  # resumes after epoch 2
    # The same figures and the same weights (shuffles and colour renamings included).
    assert _figures(_log(parts)) == _figures(_log(whole))
    nets = [torch.load(run / "checkpoint.pt")["net"] for run in (whole, parts)]
    assert all(torch.equal(nets[0][k], nets[1][k]) for k in nets[0])
    # It learns: the loss on its training examples falls (4-visit targets are flat, so
    # mostly the value head's).
    rows = _log(whole)
    assert rows[-1]["train_policy"] + rows[-1]["train_value"] < (
        rows[0]["train_policy"] + rows[0]["train_value"] - 0.03
    )


def test_the_export_is_the_network_the_bot_plays(shards: Path, tmp_path: Path) -> None:
    torch = needs("torch")
    from nomercy.rl.train_puct import Net

    run = tmp_path / "run"
    assert _train(shards, run, "--epochs", "2") == 0
    exported = load_pvnet(run / "puct.npz")
    # puct.npz holds the epoch of the best held-out loss, with that epoch's figures.
    saved = [r for r in _log(run) if r.get("saved")]
    assert saved and exported.meta["epoch"] == saved[-1]["epoch"]
    assert exported.meta["val_policy"] == saved[-1]["val_policy"]
    assert exported.meta["settings"]["batch"] == 64
    # The torch twin with these weights computes what the numpy network (the bot's) does.
    net = Net([32, 32])
    net.load(exported)
    obs = np.random.default_rng(0).random((6, OBS_SIZE), dtype=np.float32)
    with torch.no_grad():
        logits, values = net(torch.as_tensor(obs))
    assert np.allclose(exported.logits(obs), logits.numpy(), atol=1e-4)
    chances = torch.softmax(values[:, :3], dim=1).numpy()
    assert np.allclose(exported.win_chances(exported.body(obs), 3), chances, atol=1e-5)
    assert values.shape == (6, MAX_PLAYERS)


def test_init_starts_from_given_weights(shards: Path, tmp_path: Path) -> None:
    first, again = tmp_path / "first", tmp_path / "again"
    assert _train(shards, first, "--epochs", "2") == 0
    init = first / "puct.npz"
    # At a learning rate of 0 an epoch changes nothing: the export is the --init file.
    assert _train(shards, again, "--epochs", "1", "--init", str(init), "--lr", "0") == 0
    start, end = load_pvnet(init), load_pvnet(again / "puct.npz")
    for (w, b), (w2, b2) in zip(start.hidden, end.hidden, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    assert np.array_equal(start.policy_rows, end.policy_rows)
    assert np.array_equal(start.value[0], end.value[0])
    assert end.meta["settings"]["init"] == str(init)
    with pytest.raises(SystemExit):  # --hidden other than the file's widths
        _train(shards, tmp_path / "bad", "--init", str(init), "--hidden", "16")


def test_plot_draws_the_log(shards: Path, tmp_path: Path) -> None:
    from nomercy.rl import train_puct

    run = tmp_path / "run"
    assert _train(shards, run, "--epochs", "1") == 0
    png = tmp_path / "curve.png"
    assert train_puct.main(["--plot", str(run / "log.jsonl"), "--png", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
