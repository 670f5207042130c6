"""The Ray backend against a real local Ray cluster: results identical to the local run.

The fixture starts a one-node cluster (``ray start --head --block`` on 127.0.0.1, two CPUs,
no dashboard) in a subprocess and stops exactly that process group afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nomercy.arena.parallel import ArenaError, Chunk, run_chunks
from nomercy.arena.runner import BotSpec, GameSetup
from nomercy.arena.simulate import run_simulation
from nomercy.arena.tournament import lineups, run_tournament
from nomercy.cli.main import main
from ports import free_port

#: Environment of the test cluster and of this process, set before Ray is imported (Ray reads
#: it at import): no token authentication (a token left in ~/.ray by another Ray run would
#: otherwise be required), no usage reporting, and Ray's single-machine mode, in which the
#: node's address is 127.0.0.1 rather than the machine's network address (so all traffic
#: stays on loopback).
RAY_ENV = {
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
}
assert "ray" not in sys.modules, "Ray was imported before this module could configure it"
os.environ.update(RAY_ENV)
os.environ.pop("RAY_ADDRESS", None)
ray = pytest.importorskip("ray", reason="the ray extra is part of dev; CI installs it")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The address of a Ray head started for these tests (and stopped after them)."""
    port = free_port()
    exe = shutil.which("ray", path=str(Path(sys.executable).parent)) or shutil.which("ray")
    assert exe, "the ray command is not installed"
    proc = subprocess.Popen(
        [
            exe,
            *("start", "--head", "--block", f"--port={port}", "--num-cpus=2"),
            *("--include-dashboard=false", "--disable-usage-stats"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, for the fallback below
    )
    try:
        deadline = time.monotonic() + 300  # only catches a hang: Ray starts slowly under load
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the Ray head did not start") from None
                time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        # `ray start --block` stops the node it started when it gets SIGTERM; if it
        # hangs, its process group (and only that) is killed.
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_tournament_and_simulation_on_ray_equal_the_local_run(cluster: str) -> None:
    bots = [BotSpec("greedy"), BotSpec("random")]
    setup = GameSetup.make(4, seed=21)
    local_t = run_tournament(bots, setup, 24, jobs=1)
    compare = ("stack_threshold", ["last_card", "running_total"])
    local_s = run_simulation([BotSpec("random")], setup, 12, compare=compare, jobs=1)
    # Both on one connection: connecting costs seconds, so the test keeps it open.
    ray.init(address=cluster, log_to_driver=False)
    try:
        seen: list[int] = []
        remote_t = run_tournament(
            bots, setup, 24, backend="ray", address=cluster, progress=seen.append
        )
        assert sum(seen) == 24
        remote_s = run_simulation(
            [BotSpec("random")], setup, 12, compare=compare, backend="ray", address=cluster
        )
        assert ray.is_initialized()  # a connection the caller made is left open
        # a failing game names itself
        bad = GameSetup.make(4, seed=21, max_actions=3)
        chunk = Chunk(bad, tuple(lineups(bots, 4)), 0, 2)
        with pytest.raises(ArenaError, match="game 0 failed: game 0 did not end within 3"):
            run_chunks([chunk], backend="ray", address=cluster)
    finally:
        ray.shutdown()
    assert remote_t.to_json() == local_t.to_json()
    assert remote_s.to_csv() == local_s.to_csv()
    assert remote_s.summary() == local_s.summary()


def test_cli_on_ray_writes_the_local_report(
    cluster: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["tournament", "--bots", "random,greedy", "--games", "6", "--seed", "2", "-q"]
    assert main([*argv, "--jobs", "1", "--json", str(tmp_path / "local.json")]) == 0
    code = main(
        [*argv, "--backend", "ray", "--address", cluster, "--json", str(tmp_path / "r.json")]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert not ray.is_initialized()  # the command disconnects what it connected
    local = json.loads((tmp_path / "local.json").read_text())
    assert json.loads((tmp_path / "r.json").read_text()) == local
