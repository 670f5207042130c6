"""The RL environments deal with a chosen deal version (NM-2..NM-5, NM-35; issue 42).

Every environment takes ``deal_version`` (1 by default), checks it as ``new_game`` does and
deals every game with it, at every reset and autoreset, through ``new_game`` (the core's one
deal). The digests below pin what each env plays for a seed under each version, on whichever
build ``--core-build`` picks (CI runs both, so both builds play the same episodes); version 1's
are the digests of the envs before they took a deal version, so a seed plays the episodes it
always has.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

gym = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")

from gymnasium.vector import AutoresetMode  # noqa: E402
from rlkit import rehide  # noqa: E402

import nomercy.rl  # noqa: E402,F401 (registers NoMercy-v0)
from nomercy.core.errors import RuleSetError  # noqa: E402
from nomercy.core.game import Game  # noqa: E402
from nomercy.core.records import GameRecord  # noqa: E402
from nomercy.rl import NoMercyEnv, SelfPlayEnv, env, parallel_env, raw_env  # noqa: E402
from nomercy.rl.batched import SelfPlayVectorEnv  # noqa: E402
from nomercy.rl.sb3 import NoMercySB3VecEnv  # noqa: E402
from nomercy.rl.vector_env import NoMercyVectorEnv  # noqa: E402


class Run:
    """A digest of everything an env hands out (arrays as bytes, containers item by item,
    scalars as reprs: nothing that numpy's printing could change), and every game it dealt."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.games: list[Game] = []

    def feed(self, value: Any) -> None:
        if isinstance(value, np.ndarray) and value.dtype != object:
            self.hash.update(f"{value.dtype}{value.shape}".encode())
            self.hash.update(value.tobytes())
        elif isinstance(value, (tuple, list, np.ndarray)):  # an object array item by item
            self.hash.update(b"[")
            for item in value:
                self.feed(item)
            self.hash.update(b"]")
        elif isinstance(value, np.generic):  # its Python value: numpy's reprs vary
            self.feed(value.item())
        elif isinstance(value, dict):
            for key in sorted(value, key=repr):
                self.feed(key)
                self.feed(value[key])
        else:
            self.hash.update(repr(value).encode())

    def dealt(self, game: Game | None) -> None:
        """A game the env may have just dealt: its position pins the cards (the draw pile's
        order included) the first time it is seen."""
        assert game is not None
        if not any(g is game for g in self.games):
            self.games.append(game)
            self.feed(json.dumps(game.to_position(), sort_keys=True))

    def digest(self) -> str:
        return self.hash.hexdigest()[:16]


def _pick(mask: Any, rng: random.Random) -> int:
    ids = np.flatnonzero(mask).tolist()
    return ids[rng.randrange(len(ids))] if ids else 1


def _single(run: Run, **kwargs: Any) -> None:
    e = NoMercyEnv(opponents=["random"], obs_format="flat", **kwargs)
    rng = random.Random(1)
    obs, info = e.reset(seed=7)
    run.dealt(e.game)
    for _ in range(120):
        obs, reward, terminated, truncated, info = e.step(_pick(info["action_mask"], rng))
        run.feed((reward, terminated, truncated, info))
        run.feed(obs)
        if terminated or truncated:
            obs, info = e.reset()
            run.dealt(e.game)


def _vector(run: Run, mode: AutoresetMode, **kwargs: Any) -> None:
    envs = NoMercyVectorEnv(
        4, opponents=["random"], obs_format="flat", autoreset_mode=mode, **kwargs
    )
    rng = random.Random(2)
    obs, info = envs.reset(seed=11)
    for _ in range(60):
        for table in envs.tables:
            run.dealt(table.game)
        actions = np.array([_pick(m, rng) for m in info["action_mask"]])
        obs, rewards, terminated, truncated, info = envs.step(actions)
        run.feed((rewards, terminated, truncated, obs, info))


def _aec(run: Run, **kwargs: Any) -> None:
    e = raw_env(num_players=3, **kwargs)
    rng = random.Random(3)
    e.reset(seed=5)
    for _ in range(200):
        run.dealt(e.game)
        if not e.agents:
            e.reset()
            continue
        obs, reward, terminated, truncated, info = e.last()
        run.feed((e.agent_selection, reward, terminated, truncated, info, obs))
        e.step(None if terminated or truncated else _pick(obs["action_mask"], rng))


def _self_play(run: Run, **kwargs: Any) -> None:
    e = SelfPlayEnv(opponents=["random"], **kwargs)
    rng = random.Random(4)
    obs, info = e.reset(seed=9)
    run.dealt(e.aec.game)
    for _ in range(80):
        obs, reward, terminated, truncated, info = e.step(_pick(info["action_mask"], rng))
        run.feed((reward, terminated, truncated, info, obs))
        if terminated or truncated:
            obs, info = e.reset()
            run.dealt(e.aec.game)


def _batched(run: Run, **kwargs: Any) -> None:
    envs = SelfPlayVectorEnv(3, num_players=2, **kwargs)
    rng = random.Random(5)
    obs, masks, agents = envs.reset(seed=13)
    for _ in range(60):
        for game in envs.games:
            run.dealt(game)
        obs, masks, agents, *rest = envs.step([_pick(m, rng) for m in masks])
        run.feed((obs, masks, agents, *rest))


ENVS: dict[str, Callable[..., None]] = {
    "NoMercy-v0": _single,
    "vector, next step": lambda run, **kw: _vector(run, AutoresetMode.NEXT_STEP, **kw),
    "vector, same step": lambda run, **kw: _vector(run, AutoresetMode.SAME_STEP, **kw),
    "AEC": _aec,
    "SelfPlayEnv": _self_play,
    "SelfPlayVectorEnv": _batched,
}

#: Each env's digest per deal version. Version 1's were computed on the envs before they
#: took ``deal_version`` (the commit before it), and must never change.
DIGESTS: dict[str, dict[int, str]] = {
    "NoMercy-v0": {1: "5b992441ac9ebd5d", 2: "59daa8dd97d237a6"},
    "vector, next step": {1: "da507cfa961bccc7", 2: "1c27d4ecc605480c"},
    "vector, same step": {1: "9176d6fc949df809", 2: "50f12cffff104c5c"},
    "AEC": {1: "84bc56bb3ac9cf75", 2: "6ee1fee9c2d69113"},
    "SelfPlayEnv": {1: "91be73a5a1077421", 2: "f129fec94d7bc786"},
    "SelfPlayVectorEnv": {1: "c44e35436bd475f4", 2: "98f3a27addecc87b"},
}


def _play(name: str, **kwargs: Any) -> Run:
    run = Run()
    ENVS[name](run, **kwargs)
    return run


def _unlogged(game: Game) -> dict[str, Any]:
    """The game's position without its event log (the envs play with events off)."""
    position = game.to_position()
    del position["log"]
    return position


@pytest.mark.parametrize("name", sorted(ENVS))
def test_nm2_a_seed_plays_the_same_episodes_under_each_deal_version(name: str) -> None:
    default = _play(name)
    assert default.digest() == DIGESTS[name][1]  # as before deal versions reached the envs
    assert _play(name, deal_version=1).digest() == DIGESTS[name][1]
    two = _play(name, deal_version=2)
    assert two.digest() == DIGESTS[name][2]
    # Every game dealt, autoresets included, is version 2's deal of its seed by the core's
    # one deal (new_game), followed by the moves played: its record replays it exactly.
    assert len(two.games) > 2
    for game in two.games:
        assert game.deal_version == 2
        replayed = GameRecord.from_game(game).replay()
        assert _unlogged(replayed) == _unlogged(game)
    assert all(game.deal_version == 1 for game in default.games)


def test_the_envs_report_their_deal_version() -> None:
    assert NoMercyEnv().deal_version == 1
    single = gym.make("NoMercy-v0", deal_version=2)
    assert single.unwrapped.deal_version == 2
    assert single.spec is not None and single.spec.kwargs["deal_version"] == 2
    vector = gym.make_vec("NoMercy-v0", num_envs=2, deal_version=2)
    assert vector.deal_version == 2
    assert vector.spec is not None and vector.spec.kwargs["deal_version"] == 2
    assert all(table.deal_version == 2 for table in vector.tables)
    assert raw_env(deal_version=2).deal_version == 2
    assert env(deal_version=2).deal_version == 2
    assert SelfPlayEnv(deal_version=2).deal_version == 2
    assert SelfPlayVectorEnv(2, deal_version=2).deal_version == 2
    assert NoMercySB3VecEnv(2, deal_version=2).venv.deal_version == 2


def test_the_parallel_env_and_the_cycles_env_deal_the_aec_envs_games() -> None:
    reference = raw_env(num_players=3, deal_version=2)
    reference.reset(seed=21)
    parallel = parallel_env(num_players=3, deal_version=2)
    parallel.reset(seed=21)
    game = parallel.aec_env.game  # type: ignore[attr-defined]
    assert game.deal_version == 2
    assert game.to_position() == reference.game.to_position()
    cycles = parallel_env(num_players=3, max_cycles=10, deal_version=2)
    cycles.reset(seed=21)
    assert cycles.aec_env.game.to_position() == reference.game.to_position()  # type: ignore[attr-defined]


BUILDERS: dict[str, Callable[[Any], Any]] = {
    "NoMercy-v0": lambda v: gym.make("NoMercy-v0", deal_version=v),
    "vector": lambda v: gym.make_vec("NoMercy-v0", num_envs=3, deal_version=v),
    "AEC": lambda v: raw_env(deal_version=v),
    "parallel": lambda v: parallel_env(deal_version=v),
    "SelfPlayEnv": lambda v: SelfPlayEnv(deal_version=v),
    "SelfPlayVectorEnv": lambda v: SelfPlayVectorEnv(2, deal_version=v),
}


@pytest.mark.parametrize("builder", sorted(BUILDERS))
@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (0, RuleSetError, "deal version 0 is not one this version of nomercy deals \\(1, 2\\)"),
        (3, RuleSetError, "deal version 3 is not one"),
        ("2", TypeError, "deal_version must be an integer, not '2'"),
        (2.0, TypeError, "deal_version must be an integer, not 2.0"),
        (True, TypeError, "deal_version must be an integer, not True"),
        (None, TypeError, "deal_version must be an integer, not None"),
    ],
)
def test_a_bad_deal_version_is_refused_and_nothing_changes(
    builder: str, value: Any, error: type[Exception], message: str
) -> None:
    # A live env beside the refused one keeps dealing its games: the check comes before
    # anything is built, and touches nothing shared.
    live = NoMercyEnv(deal_version=2)
    before = live.reset(seed=3)[0]["observation"]
    with pytest.raises(error, match=message) as caught:
        BUILDERS[builder](value)
    # Caught as the envs' other bad options are: a ValueError, or a TypeError for the type.
    assert isinstance(caught.value, ValueError if error is RuleSetError else TypeError)
    np.testing.assert_array_equal(live.reset(seed=3)[0]["observation"], before)
    assert live.game is not None and live.game.deal_version == 2


def test_a_numpy_integer_names_a_deal_version() -> None:
    e = NoMercyEnv(deal_version=np.int64(2))
    assert e.deal_version == 2 and type(e.deal_version) is int


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_version_2_deals_show_the_learner_nothing_hidden(preset: str) -> None:
    """The learner's observation under version 2 is the same whatever the cards it cannot
    see: with every unseen card (opponents' unknown cards, the draw pile) dealt anew, the
    env's observer writes the same vector."""
    e = NoMercyEnv(opponents=["random", "random"], preset=preset, deal_version=2)
    rng = random.Random(6)
    checked = changed = 0
    obs, _ = e.reset(seed=17)
    for _ in range(150):
        game = e.game
        assert game is not None
        seat = e.seat
        other = Game.from_position(rehide(game.to_position(), seat, rng))
        changed += any(other.hands[o] != game.hands[o] for o in range(game.n) if o != seat)
        np.testing.assert_array_equal(e.table.observer.vector(other, seat), obs["observation"])
        checked += 1
        obs, _, terminated, truncated, _ = e.step(_pick(obs["action_mask"], rng))
        if terminated or truncated:
            obs, _ = e.reset()
    assert changed > checked * 0.8  # the hidden cards really differed
