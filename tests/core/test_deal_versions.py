"""Deal versions: which generator shuffles a seed's games (NM-2..NM-5, NM-35, A38; issue 42).

Version 1 draws from ``random.Random(key)`` (MT19937) as CPython's ``random.shuffle`` does;
version 2 from ``DealStream`` (xoshiro128++ seeded by SplitMix64, Lemire's bounded draws) with
our own Fisher-Yates. Version 2's output is pinned here against the generator authors'
reference C code and as exact deals, so no library can change what a seed deals; it runs on
whichever build ``--core-build`` picks (tests/test_core_build.py compares the two builds).
Records, positions and copies carry the version; everything without one is version 1.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

import nomercy.core
from nomercy import Game, new_game
from nomercy.core.dealing import DEAL_VERSION, DealStream, next_key
from nomercy.core.errors import NotationError, RuleSetError
from nomercy.core.records import RECORD_VERSION, GameRecord

#: From the reference C of xoshiro128++ 1.0 and splitmix64 (prng.di.unimi.it), seeded with
#: the first two splitmix64 outputs from state ``key``, low word first: key -> state, outputs.
REFERENCE = {
    0: (
        (2065550767, 3793791033, 2713282036, 1853398634),
        [1179900579, 1938959192, 3089844957, 3657088315, 1015453891, 479942911],
    ),
    1: (
        (2298633409, 2433363436, 1703865447, 3203108257),
        [2146930148, 2585199205, 3670091704, 2556029204, 1296777651, 3123379047],
    ),
    12345: (
        (2849051040, 571572824, 4145281261, 879680741),
        [3385349263, 298465146, 210322161, 1883478081, 2133724542, 1020870855],
    ),
    2**64 - 1: (
        (459615264, 3839455607, 3690365641, 3919575143),
        [2650238882, 1278636629, 2532285648, 588492107, 1360811846, 56605594],
    ),
}


def test_next_key_is_splitmix64_on_whole_words() -> None:
    """next_key works on 32-bit halves (machine words when compiled): it must give every bit
    of SplitMix64 written with Python's integers, for any key (read modulo 2**64)."""

    def splitmix64(key: int) -> int:
        z = (key + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        return z ^ (z >> 31)

    rng = random.Random(64)
    keys = [0, 1, -1, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 2**64, 2**90 + 3, -(2**70)]
    keys += [rng.getrandbits(64) for _ in range(3000)]
    for key in keys:
        assert next_key(key) == splitmix64(key), key


@pytest.mark.parametrize("key", sorted(REFERENCE))
def test_the_version_2_generator_is_the_reference_xoshiro128pp(key: int) -> None:
    state, outputs = REFERENCE[key]
    stream = DealStream(key)
    assert (stream.a, stream.b, stream.c, stream.d) == state
    assert [stream.next32() for _ in outputs] == outputs
    # A key is read modulo 2**64, as new_game reads a seed.
    assert DealStream(key + 2**64).next32() == outputs[0]


def test_bounded_draws_and_the_shuffle_match_the_reference() -> None:
    # Lemire's multiply-shift: n = 3 * 2**29 rejects a quarter of its draws (these 12 take
    # 18 outputs), n = 7 rarely.
    big = DealStream(0)
    assert [big.below(3 << 29) for _ in range(12)] == [
        1158691858, 179978591, 1287690842, 250969832, 1494626904, 271116439,
        748471928, 749947597, 76721645, 330045220, 1405639046, 973644354,
    ]  # fmt: skip
    fresh = DealStream(0)
    assert big.next32() == [fresh.next32() for _ in range(19)][-1]  # 6 of 18 rejected
    small = DealStream(7)
    assert [small.below(7) for _ in range(12)] == [0, 0, 2, 2, 0, 5, 2, 5, 3, 0, 1, 5]
    cards = list(range(20))
    DealStream(12345).shuffle(cards)
    assert cards == [5, 4, 19, 9, 17, 12, 14, 8, 2, 10, 13, 6, 11, 18, 3, 16, 7, 0, 1, 15]
    with pytest.raises(ValueError, match="1 <= n < 2\\*\\*31"):
        DealStream(0).below(0)
    with pytest.raises(ValueError, match="1 <= n < 2\\*\\*31"):
        DealStream(0).below(2**31)


def _pile_digest(codes: list[str]) -> str:
    return hashlib.sha256(" ".join(codes).encode()).hexdigest()[:16]


#: (preset, players, seed) -> dealer, hands, discard, the draw pile's top 8 and the digest
#: of the whole pile (top first): the exact card order version 2 deals.
DEALS: dict[tuple[str, int, int], tuple[int, list[str], list[str], str, str]] = {
    ("no-mercy", 4, 0): (
        0,
        [
            "B2 G3 WCR YS WR+4 BR WCR",
            "G+4 Y1 G+4 R5 Y1 R+2 G+2",
            "RS RSE Y7 BR B3 Y+4 B0",
            "G0 R4 R5 Y0 YS WR+4 GS",
        ],
        ["B8"],
        "Y6 Y+2 W+10 Y7 G2 BSE YR GDA",
        "f0bff8a377ec6160",
    ),
    # NM-4: a Discard All is flipped, then covered by a number card.
    ("no-mercy", 2, 2026): (
        0,
        ["Y3 Y9 B3 G6 G0 RDA G+4", "W+6 RR Y0 W+6 B6 GR R5"],
        ["YDA", "R8"],
        "G2 B+4 Y1 G8 Y4 WR+4 Y8 B1",
        "554a9f0027442166",
    ),
    # CL-2: the dealer is the highest card drawn.
    ("classic", 3, 7): (
        1,
        ["G9 G+2 Y6 YS G5 R8 B7", "W W+4 G7 R3 YS R6 R7", "W+4 Y7 W+4 Y4 Y0 B1 RS"],
        ["R1"],
        "R7 B2 B5 R4 G3 BS R1 G0",
        "d895b29d313a6f28",
    ),
}


@pytest.mark.parametrize("setup", sorted(DEALS))
def test_nm2_version_2_deals_exactly_these_cards(setup: tuple[str, int, int]) -> None:
    preset, players, seed = setup
    dealer, hands, discard, top, digest = DEALS[setup]
    game = new_game(players, rules=preset, seed=seed, deal_version=2)
    position = game.to_position()
    assert game.dealer == dealer
    assert [" ".join(p["hand"]) for p in position["players"]] == hands
    assert position["discard"] == discard
    assert " ".join(position["draw_pile"][:8]) == top
    assert _pile_digest(position["draw_pile"]) == digest


def test_a38_version_2_chooses_every_dealer_evenly() -> None:
    counts = [0] * 4
    for seed in range(2000):
        counts[new_game(4, seed=seed, deal_version=2).dealer] += 1
    # Chi-square with 3 degrees of freedom: 16.3 is its 0.1% point.
    assert sum((c - 500) ** 2 / 500 for c in counts) < 16.3


def _played_out(game: Game, seed: int) -> Game:
    choose = random.Random(seed).choice
    while not game.is_over:
        game.apply(choose(game.legal_actions()))
    return game


def _digest(game: Game) -> str:
    position = game.to_position()
    position.pop("log")
    return hashlib.sha256(json.dumps(position, sort_keys=True).encode()).hexdigest()[:16]


def test_nm35_version_2_reshuffles_are_pinned_too() -> None:
    game = _played_out(new_game(2, rules="classic", seed=0, deal_version=2), 0)
    assert (len(game.history), game.tally.reshuffles, game.winner) == (454, 2, 1)
    assert _digest(game) == "f23ce63085c0bf29"


def test_version_1_stays_the_default_and_a_seed_deals_otherwise_under_version_2() -> None:
    assert DEAL_VERSION == 1
    default, one = new_game(4, seed=9), new_game(4, seed=9, deal_version=1)
    two = new_game(4, seed=9, deal_version=2)
    assert default.deal_version == one.deal_version == 1 and two.deal_version == 2
    assert default.to_position() == one.to_position()
    assert default.hands != two.hands
    # A version 1 position names no version: positions written before versions read the same.
    assert "deal_version" not in default.to_position()
    assert two.to_position()["deal_version"] == 2


@pytest.mark.parametrize(("value", "error"), [(0, RuleSetError), (3, RuleSetError)])
def test_an_unknown_deal_version_is_refused(value: int, error: type[Exception]) -> None:
    with pytest.raises(error, match=f"deal version {value} is not one"):
        new_game(2, deal_version=value)


@pytest.mark.parametrize("value", ["2", 2.0])
def test_a_deal_version_that_is_not_an_integer_is_a_type_error(value: Any) -> None:
    with pytest.raises(TypeError):
        new_game(2, deal_version=value)


def test_a_bool_deal_version_is_read_as_new_game_reads_a_bool_player_count() -> None:
    # As for ``players``: the pure build names the bool; the compiled build's argument
    # check reads it as the int it is (True is 1), as Python's own int() does.
    if nomercy.core.BUILD == "pure":
        with pytest.raises(TypeError, match="deal_version must be an integer, not True"):
            new_game(2, deal_version=True)
    else:
        assert new_game(2, deal_version=True).deal_version == 1


def test_records_name_their_deal_version_and_replay_with_it() -> None:
    game = _played_out(new_game(3, seed=11, deal_version=2), 11)
    record = GameRecord.from_game(game)
    data = record.to_dict()
    assert data["version"] == RECORD_VERSION == 3 and data["deal_version"] == 2
    loaded = GameRecord.loads(record.dumps())
    assert loaded.deal_version == 2
    assert loaded.replay().to_position() == game.to_position()
    # A deal version 1 record is written as before (version 2, no deal_version), so every
    # nomercy that reads version 2 replays it; it reads back as deal version 1.
    plain = GameRecord.from_game(new_game(2, seed=1))
    assert plain.to_dict()["version"] == 2 and "deal_version" not in plain.to_dict()
    assert GameRecord.loads(plain.dumps()).deal_version == 1


def test_a_record_without_a_deal_version_is_dealt_by_version_1() -> None:
    game = _played_out(new_game(2, seed=4), 4)
    data = GameRecord.from_game(game).to_dict()
    assert "deal_version" not in data
    for version in (2, 3):  # (version 1 pins an old A28 default: test_rules_audit.py)
        data["version"] = version
        record = GameRecord.loads(json.dumps(data))
        assert record.deal_version == 1
        assert record.replay().to_position() == game.to_position()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (3, "the record's deal version 3 is not one this version of nomercy deals"),
        ("2", "the record's 'deal_version' must be an integer"),
        (True, "the record's 'deal_version' must be an integer"),
    ],
)
def test_a_record_with_a_bad_deal_version_is_a_notation_error(value: object, message: str) -> None:
    data = GameRecord.from_game(new_game(2, seed=1, deal_version=2)).to_dict()
    data["deal_version"] = value
    with pytest.raises(NotationError, match=message):
        GameRecord.loads(json.dumps(data))


def test_nm35_a_position_continues_with_its_deal_version() -> None:
    # Played until the next action reshuffles (or the game ends): the position taken before
    # it must reshuffle as the game it came from does.
    game = new_game(2, rules="classic", seed=0, deal_version=2)
    choose = random.Random(0).choice
    while game.tally.reshuffles == 0 and not game.is_over:
        action = choose(game.legal_actions())
        before = game.to_position()
        game.apply(action)
    assert game.tally.reshuffles == 1
    resumed = Game.from_position(before)
    assert resumed.deal_version == 2
    resumed.apply(action)
    assert resumed.tally.reshuffles == 1
    assert resumed.to_position()["draw_pile"] == game.to_position()["draw_pile"]


def test_a_filled_position_shuffles_with_its_deal_version() -> None:
    base = {"players": [{"hand": ["R1"]}, {"hand": ["B2"]}], "discard": ["G3"], "seed": 5}
    one = Game.from_position(base)
    two = Game.from_position({**base, "deal_version": 2})
    assert one.deal_version == 1 and two.deal_version == 2
    assert "deal_version" not in one.to_position() and two.to_position()["deal_version"] == 2
    # The same cards fill the pile, in another order; both advance the key the same way.
    one_pile, two_pile = one.to_position()["draw_pile"], two.to_position()["draw_pile"]
    assert sorted(one_pile) == sorted(two_pile) and one_pile != two_pile
    assert one.key == two.key == next_key(5)


@pytest.mark.parametrize("value", [0, 3, "2", True])
def test_a_position_with_a_bad_deal_version_is_a_notation_error(value: object) -> None:
    base = {"players": [{"hand": ["R1"]}, {"hand": ["B2"]}], "discard": ["G3"]}
    with pytest.raises(NotationError, match="'deal_version' must be one of 1, 2"):
        Game.from_position({**base, "deal_version": value})


def test_copies_and_redeals_keep_the_deal_version() -> None:
    game = new_game(3, seed=2, deal_version=2)
    assert game.copy().deal_version == 2
    assert game.search_copy().deal_version == 2
    assert game.redeal(game.to_act, 5).deal_version == 2
