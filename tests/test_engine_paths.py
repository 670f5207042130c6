"""The engine's fast paths play the same games: events off, lazily built texts, snapshots."""

from __future__ import annotations

import random
from typing import Any

import pytest

import nomercy
from nomercy import Event, Game
from nomercy.core.cards import ALL_CODES, COLOURS, Card

_SKIPPED = ("deck", "deck_variant", "deck_counts", "min_players", "max_players")


def random_game(k: int, *, seed_base: int = 7_000, wide: bool = False) -> Game:
    """Game ``k``: either preset, random option values on odd ``k``, 2 to 6 seats; with
    ``wide``, every fifth game seats 7 to 10 (A30, CL-1: beyond the stable id table)."""
    rng = random.Random(seed_base + k)
    preset = "classic" if k % 3 == 0 else "no-mercy"
    options: dict[str, Any] = {}
    if k % 2:
        for spec in nomercy.OPTIONS:
            usable = preset in spec.presets and spec.name not in _SKIPPED and spec.values
            if usable and spec.kind != "int" and rng.random() < 0.5:
                options[spec.name] = rng.choice(spec.values)
    players = rng.randint(2, 6)
    if wide and k % 5 == 0:
        players = rng.randint(7, 10)
        options["max_players"] = 10
    return nomercy.new_game(players, rules=preset, options=options, seed=k)


def _state(game: Game) -> dict[str, Any]:
    position = game.to_position()
    for key in ("log", "hand_log_start"):
        position.pop(key, None)
    return position


@pytest.mark.parametrize("k", range(60))
def test_events_off_plays_the_same_game(k: int) -> None:
    loud = random_game(k)
    quiet = loud.copy()
    quiet.record_events = False
    log_length = len(quiet.log)
    rng = random.Random(k)
    for _ in range(250):
        if loud.is_over:
            break
        seat = loud.to_act
        action = rng.choice(loud.legal_actions(seat))
        assert quiet.legal_actions(seat) == loud.legal_actions(seat)
        assert loud.apply(action)
        assert quiet.apply(action) == []
        assert _state(quiet) == _state(loud)
    assert quiet.is_over == loud.is_over
    assert len(quiet.log) == log_length  # nothing recorded while off


def test_events_off_survives_copy_and_can_be_turned_back_on() -> None:
    game = nomercy.new_game(3, seed=5)
    game.record_events = False
    clone = game.copy()
    assert clone.record_events is False
    assert clone.apply(clone.legal_actions()[0]) == []
    clone.record_events = True
    assert clone.apply(clone.legal_actions()[0])


def test_event_texts_formatted_on_first_read() -> None:
    event = Event("play", ("{} plays {} [{}]", "P0", "red 7", "NM-12"), 0, {"card": "R7"})
    assert event.text == "P0 plays red 7 [NM-12]"
    assert str(event) == event.text and event.to_dict()["text"] == event.text
    secret = Event("draw", ("P1 draws 1 ({}) [NM-9]", "R7"), 1, {}, True, ("P1 draws {} [NM-9]", 1))
    assert secret.for_seat(0).text == "P1 draws 1 [NM-9]"
    assert secret.for_seat(1).text == "P1 draws 1 (R7) [NM-9]"
    assert secret == Event("draw", "P1 draws 1 (R7) [NM-9]", 1, {}, True, "P1 draws 1 [NM-9]")


def test_classic_ids_are_mapped_when_the_text_is_read() -> None:
    # Public text first, then text: each is mapped once, whichever is read first.
    event = Event("uno", ("{} calls UNO [NM-37]", "P0"), 0, {}, True, "P0 calls [NM-37]", True)
    assert event.public_text == "P0 calls [CL-9]"
    assert event.text == "P0 calls UNO [CL-9]"
    assert event.text == "P0 calls UNO [CL-9]"


def test_card_index_is_its_place_in_all_codes() -> None:
    assert [Card(code).index for code in ALL_CODES] == list(range(len(ALL_CODES)))


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_snapshot_agrees_with_the_view(preset: str) -> None:
    rng = random.Random(3)
    for k in range(20):
        game = nomercy.new_game(2 + k % 5, rules=preset, seed=k)
        for _ in range(120):
            if game.is_over:
                break
            for seat in range(game.n):
                view = game.view(seat, history=False)
                snap = game.snapshot(seat)
                assert tuple(Card(ALL_CODES[i]) for i in snap.hand) == view.hand
                assert {
                    t: tuple(Card(ALL_CODES[i]) for i in c) for t, c in snap.known
                } == view.known
                assert snap.hand_sizes == [p.hand_size for p in view.players]
                assert snap.out == [p.out for p in view.players]
                assert snap.uno == [p.uno for p in view.players]
                assert tuple(snap.uno_window) == view.uno_window
                assert snap.phase is view.phase and snap.direction == view.direction
                assert snap.draw_pile_size == view.draw_pile_size
                pending = view.pending
                assert (snap.pending_total, snap.pending_last) == (
                    (0, 0) if pending is None else (pending.total, pending.last)
                )
                assert snap.top == (-1 if view.top is None else view.top.index)
                assert snap.colour == (-1 if view.colour is None else COLOURS.index(view.colour))
                assert snap.drawn == (-1 if view.drawn is None else view.drawn.index)
                assert snap.to_act == (-1 if view.to_act is None else view.to_act)
                assert snap.wd4_challengeable == view.wd4_challengeable
                assert tuple(snap.discard) == view.discard
            game.apply(rng.choice(game.legal_actions()))


def test_snapshot_refuses_a_bad_seat() -> None:
    game = nomercy.new_game(2, seed=1)
    for bad in (2, -1, "0", None, True):
        with pytest.raises(nomercy.NoMercyError, match="no seat"):
            game.snapshot(bad)


@pytest.mark.parametrize("k", range(0, 60, 3))
def test_out_of_turn_possible_is_false_only_when_only_the_seat_to_act_may_act(k: int) -> None:
    game = random_game(k)
    rng = random.Random(k)
    for _ in range(300):
        if game.is_over:
            break
        possible = game.out_of_turn_possible()
        others = [s for s in range(game.n) if s != game.to_act and game.legal_actions(s)]
        if not possible:
            assert not others
            assert not any(isinstance(a, nomercy.CallUno) for a in game.legal_actions())
        game.apply(rng.choice(game.legal_actions()))


def test_the_inlined_shuffle_draws_like_random_shuffle() -> None:
    from nomercy.core import dealing as game_module

    # On the Pythons we support the inlined shuffle is the one in use; it must deal exactly
    # what random.shuffle deals, or every seeded game would change.
    assert game_module.shuffle_as_random is game_module.fisher_yates
    rng = random.Random(99)
    for _ in range(300):
        seed = rng.getrandbits(64)
        cards = list(range(rng.randrange(0, 400)))
        expected = list(cards)
        random.Random(seed).shuffle(expected)
        game_module.fisher_yates(cards, random.Random(seed))
        assert cards == expected


def test_deal_version_1s_native_generator_is_random_random() -> None:
    """Compiled, version 1 shuffles and draws A38's dealer with Mt19937 (MT19937 as native
    code, two seedings in one pass for a first deal): for any key a game can hold it must
    draw every word random.Random(key) draws, past a twist too, shuffle as random.shuffle
    does and draw as randrange does, or every seeded game would change. The pure build keeps
    the library's (this runs the same class as Python there)."""
    from nomercy.core import dealing

    assert dealing._NATIVE_V1 is (nomercy.core.BUILD == "compiled")
    rng = random.Random(2024)
    keys = [0, 1, 2**32 - 1, 2**32, 2**64 - 1] + [rng.getrandbits(64) for _ in range(60)]
    for key in keys:
        words = dealing.Mt19937(key)
        reference = random.Random(key)
        assert [words.next32() for _ in range(1300)] == [
            reference.getrandbits(32) for _ in range(1300)
        ]
        cards = list(range(rng.randrange(0, 400)))
        expected = list(cards)
        random.Random(key).shuffle(expected)
        dealing.Mt19937(key).shuffle(cards)
        assert cards == expected
        sizes = [rng.randrange(1, 2**31) for _ in range(5)] + [1, 2, 3, 4, 6, 10]
        words, reference = dealing.Mt19937(key), random.Random(key)
        assert [words.below(n) for n in sizes] == [reference.randrange(n) for n in sizes]
        # A first deal: its shuffle and A38's dealer draw, both generators seeded at once.
        after = dealing.next_key(key)
        deck, expected = list(range(168)), list(range(168))
        random.Random(key).shuffle(expected)
        n = rng.randrange(2, 11)
        assert dealing.shuffle_then_below(deck, key, n, 1) == random.Random(after).randrange(n)
        assert deck == expected
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="Mt19937"):
            dealing.Mt19937(bad)
    for bad in (0, 2**31):
        with pytest.raises(ValueError, match=r"Mt19937\.below"):
            dealing.Mt19937(0).below(bad)


def test_the_inlined_choice_and_randbelow_draw_like_random() -> None:
    """RandomBot, the simulator and the search's rollouts draw through these: each must take
    exactly the values Random.choice and Random.randrange take, from the same state."""
    from nomercy.core.dealing import RandomChoice, choice_as_random, randbelow

    rng = random.Random(7)
    for _ in range(300):
        seed = rng.getrandbits(64)
        size = rng.randrange(1, 600)
        seq = list(range(size))
        mine, theirs = random.Random(seed), random.Random(seed)
        choose = choice_as_random(mine)
        assert isinstance(choose, RandomChoice)  # the inlined one is in use here
        for _ in range(4):
            assert choose(seq) == theirs.choice(seq)
            assert randbelow(mine, size) == theirs.randrange(size)
            assert mine.random() == theirs.random()  # one shared state, left alike
    with pytest.raises(IndexError):
        choice_as_random(random.Random(1))([])
    for bad in (0, -3):
        with pytest.raises(ValueError, match="empty range"):
            randbelow(random.Random(1), bad)


def test_a_random_choice_pickles_with_its_generator() -> None:
    import pickle

    from nomercy.bots.random_bot import RandomBot

    bot = RandomBot(seed=5)
    ids = list(range(40))
    for _ in range(10):
        bot.choose_id(ids)
    twin = pickle.loads(pickle.dumps(bot))
    assert [twin.choose_id(ids) for _ in range(50)] == [bot.choose_id(ids) for _ in range(50)]
    # Its generator is its own: the library's for a seed the native one does not take.
    for seed in (-7, 2**64, 2**64 - 1, 0):
        bot, library = RandomBot(seed=seed), random.Random(seed)
        assert [bot.choose_id(ids) for _ in range(700)] == [library.choice(ids) for _ in range(700)]
        twin = pickle.loads(pickle.dumps(bot))
        assert [twin.choose_id(ids) for _ in range(9)] == [library.choice(ids) for _ in range(9)]
        chooser = bot.id_chooser()
        bot.reseed(3)  # in place: a chooser made before follows it
        three = random.Random(3)
        assert [chooser(ids) for _ in range(5)] == [three.choice(ids) for _ in range(5)]


def test_random_bots_seeded_two_at_a_time_draw_as_one_by_one() -> None:
    """The simulator's random line-ups (RandomBot.id_choosers) pair their seedings: each
    chooser still draws exactly as random.Random(seed).choice, odd counts and seeds the
    native generator does not take included."""
    from nomercy.bots.random_bot import RandomBot

    ids = list(range(37))
    rng = random.Random(11)
    lines = [[rng.getrandbits(64) for _ in range(n)] for n in (1, 2, 3, 4, 5, 6)]
    lines += [[-7, 5, 2**64, 9], [0, 2**64 - 1, -1]]
    for seeds in lines:
        choosers = RandomBot.id_choosers(seeds)
        assert len(choosers) == len(seeds)
        for seed, chooser in zip(seeds, choosers, strict=True):
            library = random.Random(seed)
            assert [chooser(ids) for _ in range(700)] == [library.choice(ids) for _ in range(700)]
