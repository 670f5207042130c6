"""The single-table API (``nomercy.rl.table.LearnerTable``) that ``NoMercy-v0`` and its vector
env both play, and the compiled batch step (``nomercy.encoding.fast.advance_tables``)."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from nomercy.encoding.actions import NUM_ACTIONS  # noqa: E402
from nomercy.encoding.fast import advance_tables  # noqa: E402
from nomercy.encoding.observations import OBS_SIZE  # noqa: E402
from nomercy.rl import NoMercyEnv  # noqa: E402
from nomercy.rl._common import IllegalActionIdError  # noqa: E402
from nomercy.rl.table import LearnerTable  # noqa: E402


def _rows(k: int) -> tuple[object, object, list[memoryview], list[memoryview]]:
    raw = np.zeros((k, OBS_SIZE), dtype=np.float32)
    masks = np.zeros((k, NUM_ACTIONS), dtype=np.int8)
    return raw, masks, [r.data for r in raw], [m.data for m in masks]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"opponents": ["random"]},
        {"opponents": ["random", "greedy"], "preset": "classic"},
        {"opponents": ["random"] * 3, "learner_seat": None, "knockout_bonus": 0.5},
    ],
)
def test_a_table_plays_the_single_envs_episodes(kwargs: dict[str, object]) -> None:
    """Seeded alike and given the same ids, a table writes the observations and masks, and
    returns the rewards and flags, that ``NoMercy-v0`` returns (Dict format)."""
    table = LearnerTable(**kwargs)  # type: ignore[arg-type]
    env = NoMercyEnv(**kwargs)  # type: ignore[arg-type]
    raw, masks, rows, mask_rows = _rows(1)
    rng = np.random.default_rng(0)
    episodes = 0
    for seed in range(6):
        table.reset(seed)
        table.write(rows[0], mask_rows[0])
        obs, info = env.reset(seed=seed)
        assert table.seat == info["seat"] == env.seat
        for _ in range(400):
            np.testing.assert_array_equal(raw[0], obs["observation"])
            np.testing.assert_array_equal(masks[0], obs["action_mask"])
            assert sorted(table.legal) == np.flatnonzero(masks[0]).tolist()
            action = int(rng.choice(np.flatnonzero(masks[0])))
            moved = table.step(action, rows[0], mask_rows[0])
            obs, reward, terminated, truncated, info = env.step(action)
            assert moved == (reward, terminated, truncated, None)
            if terminated or truncated:
                np.testing.assert_array_equal(raw[0], obs["observation"])
                assert not masks[0].any()  # nothing is legal once the episode is over
                assert table.info(True) == {k: v for k, v in info.items() if k != "action_mask"}
                episodes += 1
                break
        assert table.game is not None and env.game is not None
        assert table.game.history == env.game.history
    assert episodes == 6


def test_advance_tables_moves_only_the_tables_it_may() -> None:
    """The batch step advances a fast table given a legal id, writing its row as the table's
    own write does; it leaves a table given an illegal id, and a table with another bot, as
    they were, for the caller's general step."""
    fast = LearnerTable(["random"])
    illegal = LearnerTable(["random"])
    greedy = LearnerTable(["greedy"])
    tables = [fast, illegal, greedy]
    for i, table in enumerate(tables):
        table.reset(40 + i)
    raw, masks, rows, mask_rows = _rows(3)
    before = [t.game.to_position() for t in tables]  # type: ignore[union-attr]
    wrong = next(a for a in range(NUM_ACTIONS) if a not in illegal.legal)
    actions = [fast.legal[0], wrong, greedy.legal[0]]
    untouched: list[int] = []
    settle = advance_tables([t.core for t in tables], actions, rows, mask_rows, untouched)
    assert untouched == [1, 2]
    assert [t.game.to_position() for t in tables][1:] == before[1:]  # type: ignore[union-attr]
    assert fast.game.to_position() != before[0]  # type: ignore[union-attr]
    if settle:  # the move ended the episode or knocked a seat out: nothing written yet
        assert settle == [0]
        fast.settle(fast.observer.out_before, rows[0], mask_rows[0])
    np.testing.assert_array_equal(raw[0], fast.observation())
    np.testing.assert_array_equal(masks[0], fast.mask())
    assert not raw[1:].any() and not masks[1:].any()  # nothing written for the others


def test_a_table_refuses_what_it_cannot_take() -> None:
    _, _, rows, mask_rows = _rows(1)
    table = LearnerTable(["random"], illegal_action="raise")
    with pytest.raises(RuntimeError, match="reset"):
        table.step(0, rows[0], mask_rows[0])
    table.reset(3)
    wrong = next(a for a in range(NUM_ACTIONS) if a not in table.legal)
    position = table.game.to_position()  # type: ignore[union-attr]
    with pytest.raises(IllegalActionIdError, match="seat 0"):
        table.step(wrong, rows[0], mask_rows[0])
    assert table.game.to_position() == position  # type: ignore[union-attr]
    assert table.explain(wrong, "seat 0") is not None
    assert table.explain(table.legal[0], "seat 0") is None
    with pytest.raises(ValueError, match="reward"):
        LearnerTable(["random"], reward="money")


def test_a_tables_random_opponents_are_seeded_from_its_generator() -> None:
    """Episode after episode, a table of ``random`` opponents (re-seeded in place, not built
    anew) deals the game and plays the bots' moves that the table's seed names: the
    learner's seat, each bot's seed and the game's seed drawn from its generator in that
    order, each bot choosing as a new ``RandomBot`` with its seed would."""
    from gymnasium.utils import seeding

    from nomercy.bots.random_bot import RandomBot
    from nomercy.core.game import new_game

    table = LearnerTable(["random", "random"], learner_seat=None)
    rng, _ = seeding.np_random(7)
    pools: list[set[int]] = []
    for episode in range(8):
        table.reset(7 if episode == 0 else None)
        seat = int(rng.integers(0, 3))
        others = [s for s in range(3) if s != seat]
        seeds = [int(rng.integers(0, 2**31)) for _ in others]
        game = new_game(3, rules=table.rules, seed=int(rng.integers(0, 2**63)))
        bots = {s: RandomBot(seed=b) for s, b in zip(others, seeds, strict=True)}
        assert table.seat == seat
        assert {s: bot.seed for s, bot in table.bots.items()} == dict(
            zip(others, seeds, strict=True)
        )
        pools.append({id(bot) for bot in table.bots.values()})
        while game.to_act is not None and game.to_act != seat:
            turn = game.to_act
            game.step(bots[turn].choose_id(game.legal_ids(turn)), turn)
        assert table.game is not None  # the same state (the table's game keeps no log)
        ours, theirs = table.game.to_position(), game.to_position()
        assert {**ours, "log": None} == {**theirs, "log": None}
        assert table.legal == game.legal_ids(seat)
    assert all(pool == pools[0] for pool in pools)  # the same two bots every episode


def test_draw_game_seed_draws_what_integers_draws() -> None:
    """``draw_game_seed`` takes a PCG64's raw bits for ``integers(0, 2**63)``: the same
    numbers, between 31-bit draws (which keep half a raw draw) as alone; other bit
    generators go through ``integers``."""
    from nomercy.rl._common import draw_game_seed

    for bits in (np.random.PCG64, np.random.MT19937, np.random.Philox):
        ours, theirs = np.random.Generator(bits(3)), np.random.Generator(bits(3))
        for k in range(300):
            if k % 3:
                assert int(ours.integers(0, 2**31)) == int(theirs.integers(0, 2**31))
            assert draw_game_seed(ours) == int(theirs.integers(0, 2**63))


def test_a_pickled_or_copied_table_deals_what_a_new_one_deals() -> None:
    """A table's reseeded bots and the choosers its compiled step calls share their
    generators through pickling and copying: after ``reset(seed)`` a restored table plays
    the episodes a new table plays."""
    import copy
    import pickle

    table = LearnerTable(["random", "random"])
    table.reset(3)
    raw, masks, rows, mask_rows = _rows(2)
    for twin in (pickle.loads(pickle.dumps(table)), copy.deepcopy(table)):
        fresh = LearnerTable(["random", "random"])
        for seed in (5, 6):
            twin.reset(seed)
            fresh.reset(seed)
            while twin.legal:
                action = twin.legal[0]
                moved = twin.step(action, rows[0], mask_rows[0])
                assert moved == fresh.step(action, rows[1], mask_rows[1])
                np.testing.assert_array_equal(raw[0], raw[1])
                np.testing.assert_array_equal(masks[0], masks[1])
                if moved[1] or moved[2]:
                    break
            assert twin.game is not None and fresh.game is not None
            assert twin.game.history == fresh.game.history
