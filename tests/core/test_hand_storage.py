"""The hands' packed storage (issue 42): ``Game.hand_ids`` holds each seat's cards as
``Card.index`` values in hand order; ``hands`` and ``hand_of`` make ``Card`` lists of them.

librt's vectors share a buffer between a vector and what ``append``/``pop``/``remove`` made
of it, so every copy of a game must own its rows: the tests below play a copy and the game
apart and check that neither sees the other's cards.
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from nomercy import Card, Game, new_game


def test_hands_are_card_lists_made_on_each_read() -> None:
    g = new_game(3, seed=4)
    before = g.hands
    assert [len(h) for h in before] == [7, 7, 7]
    assert all(isinstance(c, Card) for h in before for c in h)
    assert [[c.index for c in h] for h in before] == [list(h) for h in g.hand_ids]
    assert g.hand_of(1) == before[1]
    g.hands[0].append(Card("R1"))  # a new list: the game is unchanged
    assert g.hands == before


def test_hands_are_set_whole_or_given_to() -> None:
    g = new_game(3, seed=4)
    g.hands = [[Card("R1"), Card("W")], [], [Card("B+2")]]
    assert g.hands == [[Card("R1"), Card("W")], [], [Card("B+2")]]
    g.give(1, [Card("G5"), Card("G5")])
    assert g.hand_of(1) == [Card("G5"), Card("G5")]
    assert g.hand_of(0) == [Card("R1"), Card("W")]


def test_bad_hands_are_refused_and_change_nothing() -> None:
    g = new_game(3, seed=4)
    before = g.hands
    with pytest.raises(ValueError, match="2 hands for 3 seats"):
        g.hands = [[], []]
    with pytest.raises(TypeError, match="Card objects"):
        g.hands = [[Card("R1")], ["R2"], []]  # type: ignore[list-item]
    with pytest.raises(TypeError, match="Card objects"):
        g.give(0, [Card("R1"), "R2"])  # type: ignore[list-item]
    assert g.hands == before


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_copies_own_their_hands(preset: str) -> None:
    # Every way of copying a game, taken at every step of several games and played on apart:
    # each copy ends as a copy of a copy played the same way, and the game is unchanged.
    for seed in range(6):
        rng = random.Random(seed)
        g = new_game(4, rules=preset, seed=seed)
        g.record_events = False
        while not g.is_over and g.moves < 150:
            hands = g.hands
            for make in (
                Game.copy,
                Game.search_copy,
                copy.deepcopy,
                lambda game: pickle.loads(pickle.dumps(game)),
            ):
                c = make(g)
                twin = c.copy()
                assert c.hands == hands
                pick = random.Random(g.moves)
                for _ in range(4):
                    if c.is_over:
                        break
                    ids = c.legal_ids()
                    chosen = ids[pick.randrange(len(ids))]
                    c.step(chosen)
                    c.give(0, [Card("R1")])  # appends into whatever buffer the row has
                    twin.step(chosen)
                    twin.give(0, [Card("R1")])
                assert c.hands == twin.hands
                assert g.hands == hands
            g.step(rng.choice(g.legal_ids()))
