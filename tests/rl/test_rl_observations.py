"""Observations: layout, bounds, nothing hidden, and sound public-history features."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rlkit import random_options, random_states, rehide

from nomercy.core.cards import COLOURS, Card
from nomercy.core.game import Game
from nomercy.encoding.observations import CARD_KINDS
from nomercy.rl import OBS_LAYOUT, OBS_SIZE, ObservationEncoder, PublicTracker, action_mask
from nomercy.rl._common import apply_tracked, start_tracking


def test_layout_is_contiguous_and_covers_the_vector() -> None:
    end = 0
    for name, part in OBS_LAYOUT.items():
        assert part.start == end, name
        end = part.stop
    assert end == OBS_SIZE
    assert len(CARD_KINDS) == 70


def test_hand_counts_use_the_deck_table() -> None:
    from nomercy import new_game

    g = new_game(2, seed=3)
    enc = ObservationEncoder(g.rules, 2)
    high = enc.high[OBS_LAYOUT["hand"]]
    assert high[CARD_KINDS.index("WR+4")] == 8  # NM168_COUNTS, not an assumed 2
    assert high[CARD_KINDS.index("R0")] == 2
    obs = enc.encode(g.view(0, history=False))
    hand = obs[OBS_LAYOUT["hand"]]
    codes = [c.code for c in g.view(0).hand]
    for code in set(codes):
        assert hand[CARD_KINDS.index(code)] == codes.count(code)
    assert hand.sum() == len(g.hands[0])


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_snapshot_encoding_equals_view_encoding(preset: str) -> None:
    """The envs encode Game.snapshot(seat); bots and users encode views: one vector."""
    by_view: dict[int, ObservationEncoder] = {}
    by_snap: dict[int, ObservationEncoder] = {}
    checked = 0
    for game, _ in random_states(preset, 40, seed=12):
        if id(game) not in by_view:
            by_view.clear()
            by_snap.clear()
            by_view[id(game)] = ObservationEncoder(game.rules, game.n)
            by_snap[id(game)] = ObservationEncoder(game.rules, game.n)
        for seat in range(game.n):
            expected = by_view[id(game)].encode(game.view(seat, history=False))
            got = by_snap[id(game)].encode_snapshot(game.snapshot(seat))
            np.testing.assert_array_equal(got, expected)
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_observations_stay_inside_the_box(preset: str) -> None:
    encoders: dict[int, ObservationEncoder] = {}
    for game, _ in random_states(preset, 30, seed=11):
        enc = encoders.get(id(game))
        if enc is None:
            encoders.clear()
            enc = encoders[id(game)] = ObservationEncoder(game.rules, game.n)
        for seat in range(game.n):
            obs = enc.encode(game.view(seat, history=False))
            assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
            bad = np.flatnonzero((obs < enc.low) | (obs > enc.high))
            assert not bad.size, [(i, obs[i], enc.low[i], enc.high[i]) for i in bad]
            # The incremental discard counts equal a count from scratch.
            discard = [c.code for c in game.view(seat).discard]
            counts = obs[OBS_LAYOUT["discard"]]
            assert counts.sum() == len(discard)
            assert all(counts[CARD_KINDS.index(c)] == discard.count(c) for c in set(discard))


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_observations_contain_nothing_hidden(preset: str) -> None:
    checked = 0
    changed = 0
    for k, (game, rng) in enumerate(random_states(preset, 40, seed=5)):
        if k % 3:
            continue
        seat = rng.randrange(game.n)
        position = game.to_position()
        other = Game.from_position(rehide(position, seat, rng))
        changed += (
            any(other.hands[o] != game.hands[o] for o in range(game.n) if o != seat)
            or other.draw_pile != game.draw_pile
        )
        a = ObservationEncoder(game.rules, game.n).encode(game.view(seat, history=False))
        b = ObservationEncoder(other.rules, other.n).encode(other.view(seat, history=False))
        np.testing.assert_array_equal(a, b)
        if seat == game.to_act:
            np.testing.assert_array_equal(
                action_mask(game.legal_actions(seat), seat, game.n),
                action_mask(other.legal_actions(seat), seat, other.n),
            )
        checked += 1
    assert checked > 300
    assert changed > checked * 0.8  # the hidden cards really differed


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_void_flags_are_sound(preset: str) -> None:
    """A colour flagged as not held by a seat is truly not in its hand."""
    flagged = 0
    tracker: PublicTracker | None = None
    current: Game | None = None
    rng = random.Random(3)
    from nomercy import new_game

    for k in range(80):
        # Random options half the time; voluntary draws off so that draws prove something.
        options = random_options(preset, rng) if k % 2 else {}
        options["voluntary_draw"] = "off"
        game = new_game(rng.randint(2, 6), rules=preset, options=options, seed=k)
        tracker = PublicTracker(game.rules, game.n)
        start_tracking(game, tracker)
        current = game
        for _ in range(500):
            if current.is_over:
                break
            apply_tracked(current, rng.choice(current.legal_actions()), tracker)
            for s in range(current.n):
                for i, c in enumerate(COLOURS):
                    if tracker.void[s][i] and not current.out[s]:
                        flagged += 1
                        assert not any(card.colour is c for card in current.hands[s]), (
                            s,
                            c,
                            [str(x) for x in current.hands[s]],
                        )
    assert flagged > 500


def test_tracker_reads_only_public_events() -> None:
    from nomercy import new_game

    rng = random.Random(0)
    game = new_game(3, seed=9)
    a = PublicTracker(game.rules, 3)
    b = PublicTracker(game.rules, 3)
    while not game.is_over:
        colour = game.colour.value if game.colour else None
        phase = game.phase.value
        events = game.apply(rng.choice(game.legal_actions()))
        after = game.phase.value
        a.update(events, colour=colour, phase=phase, next_phase=after)
        b.update([e.for_seat(None) for e in events], colour=colour, phase=phase, next_phase=after)
        assert a.void == b.void
    assert Card("R1").colour is COLOURS[0]
