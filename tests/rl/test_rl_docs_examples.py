"""Every code block of docs/rl.md and examples/*/README.md is run or checked by the suite
(issue 48).

- Python blocks: the recipes (``<!-- recipe: ... -->``) by tests/rl/test_rl_recipes.py; every
  other one here, as written.
- Shell commands: ``nomercy tournament`` and the example's ``train.py`` run here (``train.py``
  where PyTorch is installed, with the training cut to seconds: the page's own figures took ten
  minutes; without PyTorch the test says so and runs the example's torch-free side);
  ``pip install`` lines name extras that exist and the torch pin ``rl-train`` holds;
  ``pytest`` lines name test files that exist; ``python benchmarks/...`` lines use flags the
  script takes (benchmarks run for minutes: benchmarks/ measures, the suite checks the flags).

``test_every_block_is_covered`` fails on a block none of these reads.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from trainkit import needs

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rl.md"
EXAMPLES = sorted((ROOT / "examples").glob("*/README.md"))
PAGES = [DOC, *EXAMPLES]
BLOCK = re.compile(r"(?:<!-- recipe: ([\w-]+) \((?:env|train)\) -->\n)?```(\w+)\n(.*?)```", re.S)

#: The Python blocks outside the recipes, by a phrase each holds, and the test that runs it.
PYTHON_BLOCKS = {
    "# Every seat an agent (PettingZoo AEC).": "test_quick_start_runs",
    "result = nomercy.rl.evaluate(policy, opponents=": "test_measuring_block_runs",
    "SelfPlayVectorEnv(64, num_players=3)": "test_batched_self_play_block_runs",
}


def _blocks(page: Path) -> list[tuple[str | None, str, str]]:
    """``(recipe name or None, language, code)`` of every fenced block of ``page``."""
    return [(m[0] or None, m[1], m[2]) for m in BLOCK.findall(page.read_text())]


def _commands(page: Path) -> list[str]:
    """Every shell command of ``page``'s ``sh`` blocks: continuations joined, comments cut."""
    out = []
    for _, lang, code in _blocks(page):
        if lang != "sh":
            continue
        for line in code.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if line and not line.startswith("#"):
                out.append(" ".join(line.split()))
    return out


def _python_block(phrase: str) -> str:
    found = [code for _, lang, code in _blocks(DOC) if lang == "python" and phrase in code]
    assert len(found) == 1, phrase
    return found[0]


def _run(code: str, name: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": f"docs_block_{name}"}
    exec(compile(code, f"{DOC}:{name}", "exec"), namespace)
    return namespace


# ---------------------------------------------------------------------- coverage
COMMANDS = {
    "pip install": "test_pip_lines_name_real_extras",
    "pytest ": "test_pytest_lines_name_real_files",
    "python benchmarks/": "test_benchmark_lines_use_real_flags",
    "nomercy tournament ": "test_tournament_command_runs",
    "python examples/train_masked_policy/train.py": "test_example_commands_run",
}


def test_every_block_is_covered() -> None:
    from test_rl_recipes import RECIPES  # beside this file

    for page in PAGES:
        for recipe, lang, code in _blocks(page):
            if lang == "python":
                if recipe is not None:
                    assert recipe in RECIPES, recipe
                else:
                    assert sum(p in code for p in PYTHON_BLOCKS) == 1, code[:200]
            else:
                assert lang == "sh", f"{page}: a {lang} block"
        for command in _commands(page):
            assert any(command.startswith(c) for c in COMMANDS), f"{page}: {command}"


# ---------------------------------------------------------------------- Python blocks
def test_quick_start_runs() -> None:
    namespace = _run(_python_block("# Every seat an agent (PettingZoo AEC)."), "quick-start")
    env = namespace["env"]
    assert env.opponents == ["heuristic", "random"]
    env.step(env.action_space.sample())  # gym.make's env as it comes: a legal blind sample


def test_measuring_block_runs(capsys: pytest.CaptureFixture[str]) -> None:
    namespace = _run(_python_block("result = nomercy.rl.evaluate(policy"), "measuring")
    result = namespace["result"]
    assert result["games"] == 400 and result["players"] == 4
    assert re.fullmatch(r"\d+\.\d% \[\d+\.\d%, \d+\.\d%\]\n", capsys.readouterr().out)


def test_batched_self_play_block_runs() -> None:
    namespace = _run(_python_block("SelfPlayVectorEnv(64, num_players=3)"), "batched")
    assert namespace["envs"].num_envs == 64


# ---------------------------------------------------------------------- shell commands
def _all_commands() -> list[str]:
    return [c for page in PAGES for c in _commands(page)]


def test_pip_lines_name_real_extras() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    lines = [c for c in _all_commands() if c.startswith("pip install")]
    assert lines
    for line in lines:
        found = re.fullmatch(r"pip install -e '\.\[([\w,-]+)\]'", line)
        if found:
            assert set(found[1].split(",")) <= set(extras), line
            continue
        pin = re.fullmatch(r"pip install (torch==[\d.]+)", line)
        assert pin, f"an install line the test does not know: {line}"
        assert pin[1] in extras["rl-train"], line
    # The example needs torch, and rl-train installs it (issue 48).
    assert any(d.startswith("torch==") for d in extras["rl-train"])


def test_pytest_lines_name_real_files() -> None:
    lines = [c for c in _all_commands() if c.startswith("pytest ")]
    assert lines
    for line in lines:
        for arg in shlex.split(line)[1:]:
            if not arg.startswith("-"):
                assert (ROOT / arg).exists(), line


def test_benchmark_lines_use_real_flags() -> None:
    lines = [c for c in _all_commands() if c.startswith("python benchmarks/")]
    assert lines
    helps: dict[str, str] = {}
    for line in lines:
        args = shlex.split(line)
        script = args[1]
        if script not in helps:
            done = subprocess.run(
                [sys.executable, str(ROOT / script), "--help"],
                capture_output=True,
                text=True,
                timeout=300,
                cwd=ROOT,
            )
            assert done.returncode == 0, done.stderr
            helps[script] = done.stdout
        for arg in args[2:]:
            if arg.startswith("--"):
                assert re.search(rf"{re.escape(arg)}\b", helps[script]), f"{line}: {arg}"


def test_tournament_command_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The command as written, with the module it names: a callable policy at mypkg.agents.
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (tmp_path / "mypkg" / "agents.py").write_text(
        "import numpy as np\n\n\ndef model(obs, mask):\n    return int(np.flatnonzero(mask)[0])\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), *sys.path]))
    (line,) = [c for c in _all_commands() if c.startswith("nomercy tournament ")]
    report = tmp_path / "t.json"
    from nomercy.cli.main import main

    assert main([*shlex.split(line)[1:], "--quiet", "--json", str(report)]) == 0
    assert '"policy:mypkg.agents:model"' in report.read_text()


def _load_example_envs() -> Any:
    path = ROOT / "examples" / "train_masked_policy" / "masked_envs.py"
    spec = importlib.util.spec_from_file_location("masked_envs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_environment_side_runs_without_torch() -> None:
    # What train.py trains and evaluates on, played with masked random ids.
    envs_module = _load_example_envs()
    envs = envs_module.make_envs(envs_module.names("random,greedy"), 4, "no-mercy")
    scale = envs_module.obs_scale(envs[0])
    rng = np.random.default_rng(0)
    ended = 0
    for i, env in enumerate(envs):
        obs, _ = env.reset(seed=i)
        for _ in range(300):
            assert np.all(np.abs(obs["observation"] / scale) <= 1)
            action = rng.choice(np.flatnonzero(obs["action_mask"]))
            obs, _, term, trunc, _ = env.step(action)
            if term or trunc:
                ended += 1
                obs, _ = env.reset()
    assert ended > 4
    with pytest.raises(Exception, match="unknown bot"):
        envs_module.names("nobody")


def test_example_commands_run(tmp_path: Path) -> None:
    # train.py's commands need torch; their torch-free side runs in the test above.
    needs("torch")
    lines = [c for c in _all_commands() if c.startswith("python examples/")]
    assert len(lines) == 2  # train and evaluate, then evaluate the saved policy
    # Cut to seconds: as written they train for 10 minutes and play 1,000 games per pair.
    quick = ["--eval-games", "16", "--envs", "4", "--rollout", "16", "--minibatch", "64"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for line in lines:
        args = shlex.split(line)[1:]
        args[0] = str(ROOT / args[0])  # run in tmp_path, where it writes its files
        if "--minutes" in args and args[args.index("--minutes") + 1] != "0":
            args[args.index("--minutes") + 1] = "0.05"
        done = subprocess.run(
            [sys.executable, *args, *quick],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        assert "trained vs random:" in done.stdout and "uniform vs random:" in done.stdout
    assert (tmp_path / "results.json").exists() and (tmp_path / "policy.pt").exists()
