"""The two builds of the rules engine: how one is chosen, and what must hold in both.

The core's own tests (scenarios, invariants, the golden corpus) run on whichever build
``nomercy.core`` chose; ``--core-build`` (tests/conftest.py) picks it. These tests check the
choice itself, in fresh interpreters, and the things the compiled build had to change in
the source: card interning, hashing, pickling and ``Game.copy``.
"""

from __future__ import annotations

import copy
import importlib.metadata
import json
import os
import pickle
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import nomercy
import nomercy.core as core
from nomercy.core.cards import ALL_CODES, Card, parse_card
from nomercy.core.errors import IllegalActionError, NotationError
from nomercy.core.records import GameRecord
from nomercy.core.rules import OPTIONS, make_rules

SRC = Path(__file__).resolve().parents[1] / "src"

_PROBE = (
    "import nomercy.core as c, nomercy.core.game as g, nomercy.core.cards as k; "
    "print(c.BUILD); print(c.BUILD_REASON); print(g.__file__); print(k.__file__)"
)


def _probe(pythonpath: Path | None = None, *, script: str = _PROBE, **env: str) -> list[str]:
    """Which build a fresh interpreter picks: [build, reason, game file, cards file] (or
    the lines another ``script`` prints)."""
    environ = {k: v for k, v in os.environ.items() if k != "NOMERCY_PURE"}
    environ.update(env)
    if pythonpath is not None:
        environ["PYTHONPATH"] = str(pythonpath)
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env=environ,
        cwd=pythonpath or SRC,
        timeout=60,
    )
    return out.stdout.splitlines()


def _compiled_is_current() -> bool:
    return _probe()[0] == "compiled"


def test_the_build_running_here_is_described() -> None:
    assert core.BUILD in ("compiled", "pure")
    assert core.build_description() == f"core: {core.BUILD} ({core.BUILD_REASON})"
    game_file = sys.modules["nomercy.core.game"].__file__ or ""
    if core.BUILD == "compiled":
        assert game_file.startswith(core.COMPILED_DIR)
    else:
        assert game_file.endswith("game.py")


def test_ci_tests_the_compiled_core() -> None:
    """CI builds the core (.ci/run); only an explicit NOMERCY_PURE may run it pure there."""
    if os.environ.get("CI") and os.environ.get("NOMERCY_PURE", "") in ("", "0"):
        assert core.BUILD == "compiled", core.BUILD_REASON


@pytest.mark.parametrize("value", ["1", "yes"])
def test_nomercy_pure_selects_the_pure_modules(value: str) -> None:
    build, reason, game_file, cards_file = _probe(NOMERCY_PURE=value)
    assert (build, reason) == ("pure", "NOMERCY_PURE is set")
    assert game_file.endswith(os.path.join("core", "game.py"))
    assert cards_file.endswith(os.path.join("core", "cards.py"))


@pytest.mark.parametrize("value", ["", "0"])
def test_an_empty_or_zero_nomercy_pure_does_not_force_pure(value: str) -> None:
    assert _probe(NOMERCY_PURE=value)[:2] == _probe()[:2]


def test_the_compiled_build_is_chosen_when_current() -> None:
    if not _compiled_is_current():
        pytest.skip(f"the core is not compiled here ({_probe()[1]}): python -m nomercy.core.build")
    build, _, game_file, cards_file = _probe()
    assert build == "compiled"
    for path in (game_file, cards_file):
        assert path.startswith(core.COMPILED_DIR) and not path.endswith(".py")


def test_a_stale_or_partial_build_falls_back_to_pure(tmp_path: Path) -> None:
    """A copy of the package with the build: edit the source, or lose a module, and it's pure."""
    if not _compiled_is_current():
        pytest.skip("the core is not compiled here: python -m nomercy.core.build")
    shutil.copytree(SRC / "nomercy", tmp_path / "nomercy", ignore=shutil.ignore_patterns("*.pyc"))
    assert _probe(tmp_path)[0] == "compiled"
    source = tmp_path / "nomercy" / "core" / "game.py"
    source.write_text(source.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    build, reason, game_file, _ = _probe(tmp_path)
    assert (build, reason) == ("pure", "the source changed since it was compiled: rebuild it")
    assert game_file == str(tmp_path / "nomercy" / "core" / "game.py")
    compiled = tmp_path / "nomercy" / "core" / "_compiled"
    next(compiled.glob("events.*")).unlink()
    assert _probe(tmp_path)[:2] == [
        "pure",
        "the compiled build does not cover every module: rebuild it",
    ]
    shutil.rmtree(compiled)
    assert _probe(tmp_path)[:2] == ["pure", "not compiled (python -m nomercy.core.build)"]


_COMPANION_PROBE = (
    "import nomercy.core as c, nomercy.encoding.fast as f, nomercy.encoding.observations as o; "
    "print(c.BUILD); print(f.__file__); print(o.__file__)"
)


def test_the_observation_writer_follows_the_cores_build(tmp_path: Path) -> None:
    """nomercy.encoding.fast (core.COMPANION_FILES) is compiled with the core, pure with it."""
    assert core.COMPANION_FILES == ("encoding/fast.py", "bots/playouts.py", "bots/fastplay.py")
    build, fast_file, observations_file = _probe(script=_COMPANION_PROBE, NOMERCY_PURE="1")
    assert build == "pure" and fast_file.endswith(os.path.join("encoding", "fast.py"))
    if not _compiled_is_current():
        pytest.skip("the core is not compiled here: python -m nomercy.core.build")
    build, fast_file, observations_file = _probe(script=_COMPANION_PROBE)
    assert build == "compiled"
    assert fast_file.startswith(os.path.join(core.COMPILED_DIR, "encoding", "fast."))
    # The rest of the package is never compiled: it loads from its own directory.
    assert observations_file.endswith(os.path.join("encoding", "observations.py"))
    # Edit the companion and the whole build is stale; lose its extension and it is partial.
    shutil.copytree(SRC / "nomercy", tmp_path / "nomercy", ignore=shutil.ignore_patterns("*.pyc"))
    source = tmp_path / "nomercy" / "encoding" / "fast.py"
    original = source.read_text(encoding="utf-8")
    source.write_text(original + "\n# edited\n", encoding="utf-8")
    assert _probe(tmp_path)[:2] == ["pure", "the source changed since it was compiled: rebuild it"]
    assert _probe(tmp_path, script=_COMPANION_PROBE)[1] == str(source)
    source.write_text(original, encoding="utf-8")
    assert _probe(tmp_path)[0] == "compiled"
    next((tmp_path / "nomercy" / "core" / "_compiled" / "encoding").glob("fast.*")).unlink()
    assert _probe(tmp_path)[:2] == [
        "pure",
        "the compiled build does not cover every module: rebuild it",
    ]


_PLAYOUTS_PROBE = (
    "import nomercy.core as c, nomercy.bots.playouts as p, nomercy.bots.ismcts_bot as i, "
    "nomercy.bots.fastplay as f; print(c.BUILD); print(p.__file__); print(i.__file__); "
    "print(f.__file__)"
)


def test_the_search_playouts_follow_the_cores_build() -> None:
    """nomercy.bots.playouts and the simulator's loop nomercy.bots.fastplay
    (core.COMPANION_FILES) are compiled with the core, pure with it; the other bots always
    load from their own directory."""
    build, playouts, ismcts, fastplay = _probe(script=_PLAYOUTS_PROBE, NOMERCY_PURE="1")
    assert build == "pure" and playouts.endswith(os.path.join("bots", "playouts.py"))
    assert fastplay.endswith(os.path.join("bots", "fastplay.py"))
    if not _compiled_is_current():
        pytest.skip("the core is not compiled here: python -m nomercy.core.build")
    build, playouts, ismcts, fastplay = _probe(script=_PLAYOUTS_PROBE)
    assert build == "compiled"
    assert playouts.startswith(os.path.join(core.COMPILED_DIR, "bots", "playouts."))
    assert fastplay.startswith(os.path.join(core.COMPILED_DIR, "bots", "fastplay."))
    assert ismcts.endswith(os.path.join("bots", "ismcts_bot.py"))


#: Deals of both versions in a fresh interpreter: the generator's first outputs, a shuffle,
#: whole deals and a game played out (the reshuffles and A38's dealer draw included).
_DEALS_PROBE = """
import hashlib, json, random
import nomercy.core as c
from nomercy import new_game
from nomercy.core.dealing import DealStream
print(c.BUILD)
for key in (0, 1, 2**64 - 1):
    s = DealStream(key)
    cards = list(range(168))
    DealStream(key).shuffle(cards)
    print([s.next32() for _ in range(4)], [s.below(n) for n in (1, 7, 3 << 29)], cards[-9:])
for version in (1, 2):
    for preset, players, seed in (("no-mercy", 4, 0), ("classic", 2, 0), ("no-mercy", 6, 5)):
        g = new_game(players, rules=preset, seed=seed, deal_version=version)
        choose = random.Random(seed).choice
        while not g.is_over and len(g.history) < 2000:
            g.apply(choose(g.legal_actions()))
        digest = hashlib.sha256(json.dumps(g.to_position(), sort_keys=True).encode())
        print(version, preset, g.dealer, g.tally.reshuffles, digest.hexdigest())
"""


def test_both_builds_deal_every_version_alike() -> None:
    """Deal version 2 is our code (DealStream, machine words compiled): the pure and the
    compiled build must draw the same bits, as version 1's must (tests/core pins the deals)."""
    pure = _probe(script=_DEALS_PROBE, NOMERCY_PURE="1")
    assert pure[0] == "pure"
    if not _compiled_is_current():
        pytest.skip("the core is not compiled here: python -m nomercy.core.build")
    compiled = _probe(script=_DEALS_PROBE)
    assert compiled[0] == "compiled"
    assert compiled[1:] == pure[1:]


def _run(pythonpath: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in a fresh interpreter on ``pythonpath`` (NOMERCY_PURE cleared)."""
    environ = {k: v for k, v in os.environ.items() if k != "NOMERCY_PURE"}
    environ["PYTHONPATH"] = str(pythonpath)
    environ.update(env)
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        check=True,
        env=environ,
        cwd=pythonpath,
        timeout=60,
    )


def _copy_of_the_build(tmp_path: Path) -> Path:
    if not _compiled_is_current():
        pytest.skip("the core is not compiled here: python -m nomercy.core.build")
    shutil.copytree(SRC / "nomercy", tmp_path / "nomercy", ignore=shutil.ignore_patterns("*.pyc"))
    return tmp_path


def test_the_manifest_records_what_the_build_needs_of_librt() -> None:
    if not _compiled_is_current():
        pytest.skip("the core is not compiled here: python -m nomercy.core.build")
    data = json.loads(Path(core.COMPILED_DIR, "build.json").read_text(encoding="utf-8"))
    assert data["librt_version"] == importlib.metadata.version("librt")
    abi, api = data["librt_vecs_abi_api"]
    assert abi == 1 and api >= 1
    expected = f"mypyc {data['mypy_version']}, built with librt {data['librt_version']}"
    assert expected == _probe()[1]  # a fresh interpreter: this one may run pure on purpose


# A librt.vecs whose C API capsule claims other ABI/API versions than the installed one's: the
# real extension's functions, so the pure writer (and a compiled one that accepts the claim)
# still run on it. It shadows the installed module in the librt namespace package.
_FAKE_VECS = """\
import ctypes, importlib.machinery, importlib.util, os

_real_path = os.environ["REAL_LIBRT_VECS"]
_loader = importlib.machinery.ExtensionFileLoader(__name__, _real_path)
_real = importlib.util.module_from_spec(
    importlib.util.spec_from_file_location(__name__, _real_path, loader=_loader)
)
_loader.exec_module(_real)
globals().update({k: v for k, v in vars(_real).items() if not k.startswith("__")})
_get = ctypes.pythonapi.PyCapsule_GetPointer
_get.restype, _get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
_new = ctypes.pythonapi.PyCapsule_New
_new.restype, _new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
# The capsule keeps a pointer to its name: a buffer that lives as long as the module.
_NAME = ctypes.create_string_buffer(b"librt.vecs._C_API")
# abi_version, api_version, then the 9 pointers a header of API version 1 reads.
_table = (ctypes.c_void_p * 11).from_buffer_copy(
    (ctypes.c_void_p * 11).from_address(_get(_real._C_API, _NAME.value))
)
_VERSION = ctypes.CFUNCTYPE(ctypes.c_int)
_abi = _VERSION(lambda: int(os.environ["FAKE_VECS_ABI"]))
_api = _VERSION(lambda: int(os.environ["FAKE_VECS_API"]))
_table[0] = ctypes.cast(_abi, ctypes.c_void_p).value
_table[1] = ctypes.cast(_api, ctypes.c_void_p).value
_C_API = _new(ctypes.addressof(_table), ctypes.addressof(_NAME), None)
"""

_WRITER_PROBE = (
    "import warnings; warnings.simplefilter('default'); "
    "import nomercy.core as c, nomercy.encoding as e, nomercy.encoding.fast as f; "
    "print(c.BUILD); print(e.WRITER_BUILD); print(e.WRITER_REASON); print(f.__file__)"
)


@pytest.mark.parametrize(
    ("abi", "api", "loads"),
    [(1, 99, True), (2, 99, False), (1, 0, False)],
    ids=["newer-api", "other-abi", "older-api"],
)
def test_the_compiled_core_loads_with_any_librt_of_its_abi(
    tmp_path: Path, abi: int, api: int, loads: bool
) -> None:
    """What a compiled extension really needs of librt: the vecs ABI version it was built for
    and an API version at least as new (mypyc checks both as it loads), not the release the
    manifest records. The core's own modules use librt.vecs (its packed tables): a refusal
    leaves the core pure, the writer with it, and says so."""
    root = _copy_of_the_build(tmp_path / "tree")
    fake = tmp_path / "fake" / "librt"
    fake.mkdir(parents=True)
    (fake / "vecs.py").write_text(_FAKE_VECS, encoding="utf-8")
    import librt.vecs

    env = {
        "PYTHONPATH": f"{tmp_path / 'fake'}{os.pathsep}{root}",
        "REAL_LIBRT_VECS": str(librt.vecs.__file__),
        "FAKE_VECS_ABI": str(abi),
        "FAKE_VECS_API": str(api),
    }
    manifest = root / "nomercy" / "core" / "_compiled" / "build.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["librt_version"] = "0.0.0"  # the release it was built beside does not matter
    manifest.write_text(json.dumps(data), encoding="utf-8")
    out = _run(root, "-c", _WRITER_PROBE, **env)
    core_build, writer_build, reason, fast_file = out.stdout.splitlines()
    if loads:
        assert core_build == "compiled"
        assert (writer_build, reason) == ("compiled", "with the core")
        assert fast_file.startswith(str(root / "nomercy" / "core" / "_compiled" / "encoding"))
        assert "CompiledCoreWarning" not in out.stderr
    else:
        conflict = "ABI" if abi != 1 else "API"
        assert (core_build, writer_build, reason) == ("pure", "pure", "with the core")
        assert fast_file == str(root / "nomercy" / "encoding" / "fast.py")
        assert "CompiledCoreWarning: nomercy: the rules engine (nomercy.core) runs as pure" in (
            out.stderr
        )
        assert f"{conflict} version conflict for librt.vecs" in out.stderr
        version = _run(root, "-m", "nomercy", "--version", **env).stdout.splitlines()
        assert version[1].startswith(
            f"core: pure (the compiled build cannot load: ValueError: {conflict} version conflict"
        )
        assert version[2] == "observation writer: pure (with the core)"


_WARNING_PROBE = (
    "import warnings; warnings.simplefilter('default'); "
    "import nomercy.core as c, nomercy.core.game as g; "
    "print(c.BUILD); print(c.BUILD_REASON); print(g.__file__)"
)


def test_a_core_that_cannot_load_runs_pure_and_says_so(tmp_path: Path) -> None:
    """A damaged extension: the core notices at import, runs every module pure, warns."""
    root = _copy_of_the_build(tmp_path)
    compiled = root / "nomercy" / "core" / "_compiled"
    next(compiled.glob("seeds.*")).write_bytes(b"not a shared library")
    out = _run(root, "-c", _WARNING_PROBE)
    build, reason, game_file = out.stdout.splitlines()
    assert build == "pure" and reason.startswith("the compiled build cannot load: ImportError: ")
    assert game_file == str(root / "nomercy" / "core" / "game.py")
    assert "CompiledCoreWarning: nomercy: the rules engine (nomercy.core) runs as pure" in (
        out.stderr
    )
    version = _run(root, "-m", "nomercy", "--version").stdout.splitlines()
    assert version[1] == f"core: pure ({reason})"
    # The pure build runs whole: every core module from the source.
    play = _run(
        root, "-c", "import nomercy; g = nomercy.new_game(3, seed=4); print(g.to_position())"
    )
    assert play.stdout.strip()


def test_only_a_chosen_or_absent_build_is_quiet(tmp_path: Path) -> None:
    """The warning comes whenever a build exists or was tried but does not run."""
    root = _copy_of_the_build(tmp_path)
    quiet = _run(root, "-c", _WARNING_PROBE, NOMERCY_PURE="1")
    assert quiet.stdout.splitlines()[:2] == ["pure", "NOMERCY_PURE is set"]
    assert "Warning" not in quiet.stderr
    source = root / "nomercy" / "core" / "game.py"
    source.write_text(source.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    stale = _run(root, "-c", _WARNING_PROBE)
    assert "CompiledCoreWarning" in stale.stderr and "rebuild it" in stale.stderr
    compiled = root / "nomercy" / "core" / "_compiled"
    shutil.rmtree(compiled)
    absent = _run(root, "-c", _WARNING_PROBE)
    assert absent.stdout.splitlines()[:2] == ["pure", "not compiled (python -m nomercy.core.build)"]
    assert "Warning" not in absent.stderr
    compiled.mkdir()
    (compiled / "build-error.txt").write_text("no C compiler ('cc' is not on PATH)\n")
    failed = _run(root, "-c", _WARNING_PROBE)
    assert (
        failed.stdout.splitlines()[1]
        == "not compiled at install: no C compiler ('cc' is not on PATH)"
    )
    assert "CompiledCoreWarning" in failed.stderr


def test_nomercy_version_names_the_build() -> None:
    for env in ({}, {"NOMERCY_PURE": "1"}):
        environ = {k: v for k, v in os.environ.items() if k != "NOMERCY_PURE"} | env
        out = subprocess.run(
            [sys.executable, "-m", "nomercy", "--version"],
            capture_output=True,
            text=True,
            check=True,
            env=environ,
            timeout=60,
        ).stdout
        expected = "pure (NOMERCY_PURE is set)" if env else _probe()[0]
        assert out.startswith(f"nomercy {nomercy.__version__}\ncore: {expected}")


def test_build_help() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "nomercy.core.build", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert "mypyc" in out and "NOMERCY_PURE" in out


# ---------------------------------------------------------------- what the source had to keep


def test_cards_are_interned_in_this_build() -> None:
    assert len(ALL_CODES) == 70 and ALL_CODES[0] == "R0" and ALL_CODES[-1] == "W+4"
    for code in ALL_CODES:
        card = Card(code)
        assert card is Card(code) is parse_card(code.lower()) is Card(f" {code.lower()} ")
        assert card.code == code and str(card) == code and repr(card) == f"Card({code!r})"
        assert pickle.loads(pickle.dumps(card)) is card
        assert copy.copy(card) is card and copy.deepcopy([card])[0] is card
        assert hash(card) == object.__hash__(card)
        assert card == Card(code) and {card: 1}[Card(code)] == 1
    assert sorted([Card("W+4"), Card("B9"), Card("R0")]) == [Card("R0"), Card("B9"), Card("W+4")]
    assert Card("Y7").points == 7 and Card("GSE").points == 20 and Card("W+6").points == 50
    assert Card("B+2").name == "blue +2" and Card("WCR").colour is None


@pytest.mark.parametrize("bad", ["X9", "", 5, None])
def test_unknown_cards_are_notation_errors(bad: object) -> None:
    with pytest.raises(NotationError, match="unknown card code"):
        Card(bad)
    with pytest.raises(NotationError, match="unknown card code"):
        parse_card(bad)


def test_cards_are_immutable() -> None:
    with pytest.raises(AttributeError):
        Card("R7").code = "R8"


def test_a_game_copy_has_every_field_and_plays_on_identically() -> None:
    game = nomercy.new_game(4, seed=11)
    for _ in range(40):
        game.apply(game.legal_actions()[0])
    twin = game.copy()
    if core.BUILD == "pure":
        assert vars(twin).keys() == vars(game).keys()
    assert twin.to_position() == game.to_position()
    assert twin.hands is not game.hands and twin.hands[0] is not game.hands[0]
    while not game.is_over:
        action = game.legal_actions()[-1]
        assert str(twin.legal_actions()[-1]) == str(action)
        assert [e.text for e in twin.apply(str(action))] == [e.text for e in game.apply(action)]
    assert twin.is_over and twin.to_position() == game.to_position()


_CLONES: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
}


@pytest.mark.parametrize("how", sorted(_CLONES))
def test_engine_values_copy_and_pickle_alike_in_both_builds(how: str) -> None:
    clone = _CLONES[how]
    rules = make_rules("no-mercy", {"hand_size": 5, "mercy_threshold": 20})
    assert clone(rules) == rules and clone(OPTIONS[0]) == OPTIONS[0]
    assert hash(clone(make_rules("classic"))) == hash(make_rules("classic"))
    game = nomercy.new_game(3, seed=2, options={"hand_size": 5})
    event = game.apply(game.legal_actions()[0])[0]
    assert clone(game).to_position() == game.to_position()
    assert clone(event) == event and clone(event).to_dict() == event.to_dict()
    error = clone(IllegalActionError("illegal 'draw'", "NM-18"))
    assert isinstance(error, IllegalActionError) and error.rule == "NM-18"
    assert str(error) == "illegal 'draw' [NM-18]"
    record = GameRecord.from_game(game)
    assert clone(record) == record
    play = game.legal_actions()[0]
    assert clone(play) == play
