"""Game.redeal / Game.redealer / Game.from_view: re-deals consistent with one seat's knowledge."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from nomercy import Card, Game, Play, PlayerView, new_game
from nomercy.bots import make_bot, next_action
from nomercy.core.cards import ALL_CODES, COLOURS, Colour
from nomercy.core.errors import NoMercyError, NotationError
from nomercy.core.legality import is_playable
from nomercy.core.redeal import Deal, DealWeight, _Shuffle, infer_gaps, with_cards

#: Option sets that between them reach the phases a seat can be dealt in.
OPTION_SETS: list[tuple[int, str, dict[str, Any], int]] = [
    (2, "no-mercy", {}, 1),
    (4, "no-mercy", {}, 2),
    (6, "no-mercy", {"discard_all_mode": "optional_subset"}, 3),
    (3, "no-mercy", {"roulette_chooser": "player", "wild_colour_timing": "on_resolution"}, 4),
    (3, "no-mercy", {"discard_all_mode": "choose_top_and_fire", "voluntary_draw": "off"}, 5),
    (
        5,
        "no-mercy",
        {"voluntary_draw": "draw_one_may_pass", "scoring_enabled": True, "score_target": 100},
        6,
    ),
    (3, "classic", {}, 7),
    (4, "classic", {"classic_seven_zero": True, "classic_stacking": True}, 8),
]


def all_cards(g: Game) -> Counter[Card]:
    cards: Counter[Card] = Counter(g.discard)
    cards.update(g.draw_pile)
    cards.update(g.set_aside)
    for hand in g.hands:
        cards.update(hand)
    return cards


def states(
    players: int, preset: str, options: dict[str, Any], seed: int, every: int = 3
) -> list[Game]:
    """Copies of a bot game every ``every`` actions (any phase, any seat to act)."""
    g = new_game(players, rules=preset, options=options, seed=seed)
    bots = [make_bot("heuristic" if s % 2 else "random", seed=s) for s in range(players)]
    found: list[Game] = []
    while not g.is_over and len(g.history) < 300:
        if len(g.history) % every == 0:
            found.append(g.copy())
        g.apply(next_action(g, bots))
    return found


def twin(g: Game, seat: int, rng: random.Random) -> Game:
    """A game that differs from ``g`` only in what ``seat`` cannot see (built independently).

    The other hands keep their sizes and the cards ``seat`` knows they hold; every other hidden
    card is dealt again (another seat's drawn card too); the shuffle key changes; a Wild +4's
    guilt follows the new hand; what other seats know is dropped (``seat`` cannot see it).
    """
    pos = g.to_position()
    pool: list[str] = list(pos["draw_pile"]) + list(pos["set_aside"])
    keep: dict[int, list[str]] = {}
    for s, player in enumerate(pos["players"]):
        if s == seat:
            continue
        hand = list(player["hand"])
        kept = []
        for c in g.known.get((seat, s), []):
            hand.remove(c.code)
            kept.append(c.code)
        keep[s] = kept
        pool.extend(hand)
    rng.shuffle(pool)
    drawer = g.turn if g.drawn is not None and g.turn != seat else None
    if drawer is not None:
        # Another seat's drawn card is hidden too: any unseen card it may play (NM-9).
        pos["drawn"] = next(
            (c for c in pool if is_playable(g, Card(c)) and not g.restricted_cards[Card(c).index]),
            g.drawn.code,  # type: ignore[union-attr]
        )
        pool.remove(pos["drawn"])
    for s, player in enumerate(pos["players"]):
        if s != seat:
            take = len(player["hand"]) - len(keep[s]) - (s == drawer)
            player["hand"] = keep[s] + pool[:take] + ([pos["drawn"]] if s == drawer else [])
            del pool[:take]
    aside = len(pos["set_aside"])
    pos["set_aside"] = pool[:aside]
    pos["draw_pile"] = pool[aside:]
    pos["seed"] = rng.getrandbits(63)
    pos["known"] = {k: v for k, v in pos["known"].items() if k.split(",")[0] in (str(seat), "-1")}
    if pos["wd4"] and pos["wd4"]["seat"] != seat:
        named = pos["wd4"]["colour"]
        hand = pos["players"][pos["wd4"]["seat"]]["hand"]
        pos["wd4"]["guilty"] = bool(named) and any(Card(c).colour == named for c in hand)
    other = Game.from_position(pos)
    assert other.view(seat) == g.view(seat)
    return other


def from_log_start(view: PlayerView, start: int) -> PlayerView:
    """``view`` as if its game's log held ``start`` events before this hand."""
    return view._replace(bookkeeping=view.bookkeeping._replace(hand_log_start=start))


def check_consistent(g: Game, d: Game, seat: int, *, from_view: bool = False) -> None:
    """Everything ``seat`` knows about ``g`` holds in the re-deal ``d``.

    ``from_view``: ``d`` comes from a view, whose history starts at this hand's deal.
    """
    shown, real = d.view(seat), g.view(seat)
    if from_view:
        assert shown.bookkeeping.hand_log_start == 0
        shown = from_log_start(shown, real.bookkeeping.hand_log_start)
    assert shown == real  # the seat cannot tell them apart
    assert d.hands[seat] == g.hands[seat]
    assert [len(h) for h in d.hands] == [len(h) for h in g.hands]
    assert all_cards(d) == all_cards(g)  # the same cards, each somewhere
    assert d.discard == g.discard
    assert len(d.draw_pile) == len(g.draw_pile) and len(d.set_aside) == len(g.set_aside)
    for (viewer, holder), cards in g.known.items():
        if viewer in (seat, -1):
            # A view lists what the seat knows; public reveals are among it (NM-30).
            if viewer == seat or not from_view:
                assert d.known.get((viewer, holder), []) == cards
            assert not Counter(cards) - Counter(d.hands[holder])
        else:
            assert (viewer, holder) not in d.known  # what others know, this seat does not
    assert d.legal_actions(seat) == g.legal_actions(seat)
    if d.drawn is not None:
        assert d.turn is not None and d.drawn in d.hands[d.turn]
        # NM-9: the card being decided on was playable when drawn.
        assert any(
            isinstance(a, Play) and a.card is d.drawn for a in d.legal_actions(d.turn)
        ) == any(isinstance(a, Play) and a.card is g.drawn for a in g.legal_actions(g.turn))
    if d.wd4 is not None:
        accused = d.wd4.seat
        named = d.wd4.colour
        assert d.wd4.guilty == (
            named is not None and any(c.colour is named for c in d.hands[accused])
        )
    assert d.history == [] and d.start is None and d.seed == 0
    # A valid position that plays on to the end.
    Game.from_position(json.loads(json.dumps(d.to_position())))
    bots = [make_bot("random", seed=s) for s in range(d.n)]
    steps = 0
    while not d.is_over and steps < 150:
        d.apply(next_action(d, bots))
        steps += 1


@pytest.mark.parametrize(("players", "preset", "options", "seed"), OPTION_SETS)
def test_every_redeal_keeps_what_the_seat_knows(
    players: int, preset: str, options: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed)
    found = states(players, preset, options, seed)
    assert len(found) > 5
    for g in found:
        for seat in range(g.n):
            check_consistent(g, g.redeal(seat, rng), seat)


@pytest.mark.parametrize(("players", "preset", "options", "seed"), OPTION_SETS)
def test_a_redeal_never_depends_on_hidden_cards(
    players: int, preset: str, options: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed + 100)
    checked = 0
    for g in states(players, preset, options, seed, every=4):
        for seat in range(g.n):
            if g.out[seat]:
                continue
            other = twin(g, seat, rng)
            a = g.redeal(seat, 5)
            b = other.redeal(seat, 5)
            assert a.to_position() == b.to_position()
            assert (a.key, a.history, a.seed, a.start) == (b.key, b.history, b.seed, b.start)
            assert [e.to_dict() for e in a.log] == [e.to_dict() for e in b.log]
            checked += 1
    assert checked > 10


def test_the_same_seed_gives_the_same_redeal_and_seeds_vary() -> None:
    g = states(4, "no-mercy", {}, 21)[6]
    seat = (g.turn + 1) % 4  # type: ignore[operator]
    first = g.redeal(seat, 3).to_position()
    assert first == g.redeal(seat, random.Random(3)).to_position()
    assert first == g.redealer(seat).sample(3).to_position()
    rng_a, rng_b = random.Random(8), random.Random(8)
    redealer = g.redealer(seat)
    for _ in range(5):
        assert g.redeal(seat, rng_a).to_position() == redealer.sample(rng_b).to_position()
    other = (seat + 1) % 4
    hands = {tuple(g.redeal(seat, k).hands[other]) for k in range(20)}
    piles = {tuple(g.redeal(seat, k).draw_pile) for k in range(20)}
    keys = {g.redeal(seat, k).key for k in range(20)}
    assert len(hands) > 10 and len(piles) == 20 and len(keys) == 20


def test_a_redeal_leaves_the_game_alone() -> None:
    g = states(3, "no-mercy", {}, 4)[5]
    before = g.to_position()
    history = list(g.history)
    redealer = g.redealer(0)
    d = redealer.sample(1)
    d.apply(d.legal_actions()[0])
    assert g.to_position() == before and g.history == history
    g.apply(g.legal_actions()[0])
    # A redealer is a snapshot: the game moving on does not change its deals, which equal
    # those of the position it was taken at.
    again = redealer.sample(1).to_position()
    assert again == Game.from_position(before).redeal(0, 1).to_position()


def _now(g: Game) -> dict[str, Any]:
    """``g``'s position without its past (the log and where this hand's part starts)."""
    return {k: v for k, v in g.to_position().items() if k not in ("log", "hand_log_start")}


@pytest.mark.parametrize(("players", "preset", "options", "seed"), OPTION_SETS)
def test_a_search_copy_plays_on_like_a_copy(
    players: int, preset: str, options: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed)
    for g in states(players, preset, options, seed, every=7):
        a, b = g.copy(), g.search_copy()
        a.record_events = False
        assert (b.log, b.history, b.warnings, b.start, b.seed) == ([], [], [], None, 0)
        assert not b.record_events and b.public_history(whole_game=True) == []
        while not a.is_over and len(a.history) < 60:
            assert _now(a) == _now(b)
            assert a.legal_ids() == b.legal_ids()
            for s in range(a.n):  # out-of-turn ids too (UNO calls, catches, jump-ins)
                assert a.legal_ids(s) == b.legal_ids(s)
            ids = a.legal_ids()
            i = ids[rng.randrange(len(ids))]
            a.step(i)
            b.step(i)
        assert _now(a) == _now(b) and b.log == []
        assert len(b.history) == len(a.history) - len(g.history)


def test_a_search_copy_copies_every_field_copy_copies() -> None:
    # Every field of the game is in the search copy, equal to the original's but for the
    # past and the caches, and shared only where Game.copy shares it too (a field it
    # changes in play never is). Fails when a field is added to Game but not to
    # Game.search_copy.
    past = {"log", "_public", "hand_start", "warnings", "history", "start", "seed"}
    caches = {"record_events", "_events", "_lseat", "_lids", "_legal", "card_marks", "mark_epoch"}
    caches |= {"opening_events"}
    for g in states(4, "no-mercy", {"scoring_enabled": True}, 9, every=11):
        fields, plain, search = _fields(g), _fields(g.copy()), _fields(g.search_copy())
        assert fields.keys() == search.keys() == plain.keys()
        for name, value in fields.items():
            if name not in past | caches:
                assert search[name] == value, name
            if isinstance(value, (list, dict, set)) and value and search[name] is value:
                assert plain[name] is value, name  # shares nothing copy() does not share
        before = g.to_position()
        c = g.search_copy()
        while not c.is_over and len(c.history) < 80:
            c.step(c.legal_ids()[0])
        assert g.to_position() == before


def _fields(g: Game) -> dict[str, Any]:
    native = getattr(Game, "__mypyc_attrs__", None)
    if native is None:
        return dict(vars(g))
    return {name: getattr(g, name) for name in native if name != "__dict__"}


@pytest.mark.parametrize(("players", "preset", "options", "seed"), OPTION_SETS)
def test_a_deal_for_search_is_the_deal(
    players: int, preset: str, options: dict[str, Any], seed: int
) -> None:
    for g in states(players, preset, options, seed, every=5):
        for seat in range(g.n):
            redealer = g.redealer(seat)
            rng_a, rng_b = random.Random(seed + seat), random.Random(seed + seat)
            for _ in range(3):
                a, b = redealer.sample(rng_a), redealer.sample_for_search(rng_b)
                assert _now(a) == _now(b)
                assert not b.record_events and b.log == [] and b.history == []
            assert rng_a.getstate() == rng_b.getstate()


@pytest.mark.parametrize(("players", "preset", "options", "seed"), OPTION_SETS)
def test_a_deal_made_a_game_is_the_deal_for_search(
    players: int, preset: str, options: dict[str, Any], seed: int
) -> None:
    # Redealer.deal draws the generator as sample_for_search does and only defers the game:
    # game_of(deal(rng)) is sample_for_search(rng), the deal's hands are that game's, and
    # a deal made a game twice gives two equal, independent games.
    drawers = 0
    for g in states(players, preset, options, seed, every=5):
        for seat in range(g.n):
            redealer = g.redealer(seat)
            drawers += redealer._drawer >= 0
            rng_a, rng_b = random.Random(seed + seat), random.Random(seed + seat)
            for _ in range(3):
                made = redealer.deal(rng_a)
                a, b = redealer.game_of(made), redealer.sample_for_search(rng_b)
                assert _now(a) == _now(b)
                assert made.hands == a.hands and made.drawn == a.drawn and made.turn == a.turn
                again = redealer.game_of(made)
                assert _now(again) == _now(a)
                # Each game has its own hands: one growing leaves the next game as it was.
                again.give(seat, [Card("R1")])
                assert _now(redealer.game_of(made)) == _now(a)
            assert rng_a.getstate() == rng_b.getstate()
    if preset == "classic" and options:
        assert drawers  # a seat deciding on a card it drew: the deal is made as a game


@pytest.mark.parametrize("deferred", [False, True])
def test_the_shuffle_deals_every_unseen_card_alike(deferred: bool) -> None:
    # The unseen cards are shuffled (Fisher-Yates) only as far as the hands need, the rest
    # when the deal becomes a game, possibly after other deals drew from the generator (the
    # classic priors' resampling). Seat 1's hand and the draw pile's ends hold each kind
    # of card (the four colours and the wilds) in proportion to the unseen cards: a
    # chi-square test with 4 degrees of freedom, at p = 0.001 (18.47), on seeded deals.
    g = new_game(2, rules="classic", seed=3)
    redealer = g.redealer(0)
    rng = random.Random(11)
    kinds = ["R", "Y", "G", "B", None]

    def kind(c: Card) -> str | None:
        return c.colour.value if c.colour is not None else None

    unseen = Counter(kind(c) for c in g.hands[1] + g.draw_pile)
    total = sum(unseen.values())
    hands: Counter[str | None] = Counter()
    tops: Counter[str | None] = Counter()
    bottoms: Counter[str | None] = Counter()
    deals = 3000
    for _ in range(deals):
        if deferred:
            made = redealer.deal(rng)
            redealer.deal(rng)  # another deal draws in between
            d = redealer.game_of(made)
        else:
            d = redealer.sample(rng)
        hands.update(kind(c) for c in d.hands[1])
        tops[kind(d.draw_pile[-1])] += 1
        bottoms[kind(d.draw_pile[0])] += 1

    def chi2(seen: Counter[str | None], draws: int) -> float:
        expected = {k: draws * unseen[k] / total for k in kinds}
        return sum((seen[k] - expected[k]) ** 2 / expected[k] for k in kinds)

    assert chi2(hands, deals * len(g.hands[1])) < 18.47
    assert chi2(tops, deals) < 18.47
    assert chi2(bottoms, deals) < 18.47


def test_a_deal_weight_multiplies_the_priors_it_is_given() -> None:
    # DealWeight evaluates the classic deal priors (nomercy.bots.determinize) on a deal's
    # hands: seat 1 could not match a 5 (one R5 known in its hand), named green with one
    # green card played since, and chose among the cards that were red or a 5.
    def flags(test: Callable[[Card], bool]) -> list[bool]:
        return [test(Card(code)) for code in ALL_CODES]

    rng = random.Random(0)

    def deal(hand: list[str], drawn: str | None = None) -> Deal:
        cards = [Card(c) for c in hand]
        return Deal([[], cards], Card(drawn) if drawn else None, 1, None, _Shuffle([], rng), [])

    five = flags(lambda c: c.number == 5)
    seen = [1 if code == "R5" else 0 for code in ALL_CODES]
    ranks = DealWeight([(1, five, seen)], 0.001, [], 0.3, [])
    assert ranks.weight(deal(["R5", "G1"])) == 1.0  # the known R5
    assert ranks.weight(deal(["R5", "R5", "G1"])) == 0.001  # one more than known
    assert ranks.weight(deal(["R5", "R5", "G1"], drawn="R5")) == 1.0  # drawn after the hint
    assert ranks.weight(deal(["B5", "G5"])) == 0.001  # several: counted once

    green = COLOURS.index(Colour.GREEN)
    named = DealWeight([], 0.001, [(1, green, [0, 0, 1, 0])], 0.3, [])
    assert named.weight(deal(["R1", "R2", "G3", "W"])) == 1.0  # green level with red
    assert named.weight(deal(["R1", "R2", "R3", "G3"])) == 0.3

    fits = flags(lambda c: not c.is_wild and (c.colour is Colour.RED or c.number == 5))
    played = flags(lambda c: c.code == "G5")
    choices = DealWeight([], 0.001, [], 0.3, [(1, [(fits, played), (fits, played)])])
    # R1 (twice: one card), B5 and the G5 it played: three playable cards at each choice.
    assert choices.weight(deal(["R1", "R1", "B5", "W", "G2"])) == 1.0 / 3 / 3
    assert choices.weight(deal(["W", "G2"])) == 1.0  # only G5: one
    both = DealWeight([(1, five, seen)], 0.001, [(1, green, [0, 0, 0, 0])], 0.3, [])
    assert both.weight(deal(["B5", "R1"])) == 0.001 * 0.3


def test_a_player_who_drew_is_dealt_no_card_of_the_colour_it_lacked() -> None:
    # P1 draws on a red top (NM-9): it held no red and no wild, and the cards it drew
    # before the playable one were not red or wild either.
    g = Game.from_position(
        {
            "players": [
                {"hand": ["R8", "B2", "B3", "G7"]},
                {"hand": ["G1", "G2", "G3", "B6"]},
                {"hand": ["Y5", "Y9", "Y7"]},
            ],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["Y1", "Y2", "G9", "R9"],
        }
    )
    g.apply("play R8")
    g.apply("draw")
    g.apply("play R9")
    g.apply("play Y9")
    gaps = infer_gaps(g.rules, g.n, g.public_history(), g.direction)
    assert gaps.lacks[1] == {Card("R5").colour} and 1 in gaps.no_wild
    redealer = g.redealer(0)
    assert redealer.gaps.lacks[1] == gaps.lacks[1]
    rng = random.Random(4)
    for _ in range(50):
        d = redealer.sample(rng)
        assert all(c.colour is not None and c.colour.value != "R" for c in d.hands[1])
    # The same deal from the seat's view alone: the gaps come from the view's history.
    from_view = Game.from_view(json.loads(json.dumps(g.view(0).to_json(bookkeeping=True))))
    for _ in range(50):
        d = from_view.redeal(0, rng)
        assert all(c.colour is not None and c.colour.value != "R" for c in d.hands[1])
        check_consistent(g, d, 0)


def _second_draw_game(pile: list[str]) -> Game:
    """P1 draws R9 on red and plays it at once (NM-9), then P0 plays Y9: P1 to act."""
    g = Game.from_position(
        {
            "players": [
                {"hand": ["R8", "Y9", "B2", "B3", "G7"]},
                {"hand": ["G1", "G2", "G3", "B6"]},
            ],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["R9", *pile, "G8", "G9"],
        }
    )
    for move in ("play R8", "draw", "play R9", "play Y9"):
        g.apply(move)
    return g


def _lacks(g: Game, seat: int, deciding: int | None = None) -> set[str]:
    gaps = infer_gaps(g.rules, g.n, g.public_history(), g.direction, deciding)
    return {c.value for c in gaps.lacks[seat]}


def test_nm9_older_gaps_end_when_drawn_cards_stay_in_the_hand() -> None:
    # P1 showed no red, then draws R1 and Y3 on yellow and plays Y3: it now holds a red
    # card, so only the yellow gap holds (and still no wild: R1 was unplayable).
    g = _second_draw_game(["R1", "Y3"])
    g.apply("draw")
    g.apply("play Y3")
    assert Card("R1") in g.hands[1]
    assert _lacks(g, 1) == {"Y"}
    assert 1 in infer_gaps(g.rules, g.n, g.public_history(), g.direction).no_wild
    rng = random.Random(7)
    for _ in range(50):
        d = g.redeal(0, rng)
        assert not any(c.colour is not None and c.colour.value == "Y" for c in d.hands[1])
        check_consistent(g, d, 0)


def test_nm9_one_card_drawn_and_played_at_once_keeps_the_older_gaps() -> None:
    g = _second_draw_game(["Y3"])
    g.apply("draw")
    g.apply("play Y3")
    assert _lacks(g, 1) == {"R", "Y"}


def test_nm9_a_seat_deciding_on_its_drawn_card_is_read_apart_from_it() -> None:
    # P1 draws Y3 and must still play it: the rest of its hand is the one that showed no
    # red; the deals give it the drawn card apart, as a playable one.
    g = _second_draw_game(["Y3"])
    g.apply("draw")
    assert g.phase == "play_drawn" and g.to_act == 1
    assert _lacks(g, 1, deciding=1) == {"R", "Y"}
    assert _lacks(g, 1) == {"Y"}  # not told it is deciding: the card may stay in the hand
    redealer = g.redealer(0)
    assert {c.value for c in redealer.gaps.lacks[1]} == {"R", "Y"}
    rng = random.Random(3)
    for _ in range(50):
        d = redealer.sample(rng)
        assert d.drawn is not None and is_playable(d, d.drawn)
        rest = [c for c in d.hands[1] if c is not d.drawn]
        assert not any(c.colour is not None and c.colour.value in "RY" for c in rest)
    # With cards drawn before it, those stay: only the yellow gap holds.
    g = _second_draw_game(["R1", "Y3"])
    g.apply("draw")
    assert _lacks(g, 1, deciding=1) == {"Y"}


def test_a_classic_wild_four_gets_the_guilt_of_the_sampled_hand() -> None:
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [
                {"hand": ["R1", "R2", "R3", "G4"]},
                {"hand": ["W+4", "B2", "B3"]},
                {"hand": ["Y5", "Y6"]},
            ],
            "turn": 1,
            "discard": ["B5"],
        }
    )
    g.apply("play W+4 G")
    assert g.wd4 is not None and g.wd4.guilty
    seen = set()
    for k in range(40):
        d = g.redeal(2, k)
        assert d.wd4 is not None
        seen.add(d.wd4.guilty)
        check_consistent(g, d, 2)
    assert seen == {True, False}
    # The accused knows its own hand: its guilt stays.
    assert all(g.redeal(1, k).wd4.guilty for k in range(10))  # type: ignore[union-attr]


@pytest.mark.parametrize(("players", "preset", "options", "seed"), OPTION_SETS)
def test_from_view_shows_the_same_view(
    players: int, preset: str, options: dict[str, Any], seed: int
) -> None:
    for g in states(players, preset, options, seed, every=5):
        for seat in range(g.n):
            typed = g.view(seat)
            view = json.loads(json.dumps(typed.to_json(bookkeeping=True)))
            v = Game.from_view(view)
            shown = v.view(seat)
            # The view holds this hand's history only, so the rebuilt log starts at this deal.
            assert shown.bookkeeping.hand_log_start == 0
            assert from_log_start(shown, typed.bookkeeping.hand_log_start) == typed
            assert Game.from_view(typed).view(seat) == shown  # the typed view, directly
            assert all_cards(v) == all_cards(g)
            d = v.redeal(seat, seed)
            check_consistent(g, d, seat, from_view=True)


def test_bad_arguments_get_clear_errors() -> None:
    g = new_game(3, seed=1)
    with pytest.raises(NoMercyError, match="no seat 3"):
        g.redeal(3, 1)
    with pytest.raises(NoMercyError, match="no seat"):
        g.redealer(True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"random\.Random or an int"):
        g.redeal(0, "seed")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"random\.Random or an int"):
        g.redealer(0).sample_for_search(True)
    assert _now(g.redealer(0).sample_for_search(4)) == _now(g.redeal(0, 4))
    with pytest.raises(NotationError, match="spectator"):
        Game.from_view(g.view(None))
    with pytest.raises(NotationError, match="do not add up"):
        Game.from_view(g.view(0)._replace(draw_pile_size=g.draw_size + 1))
    view = g.view(0).to_json(bookkeeping=True)
    view["draw_pile_size"] += 1
    with pytest.raises(NotationError, match="do not add up"):
        Game.from_view(view)
    with pytest.raises(NotationError, match="malformed view"):
        Game.from_view(g.view(0).to_json())  # without the bookkeeping
    with pytest.raises(NotationError, match="JSON object"):
        Game.from_view([])  # type: ignore[arg-type]


# ---------------------------------------------------------------------- with_cards
@pytest.mark.parametrize(("players", "preset", "options", "seed"), OPTION_SETS[:4])
def test_with_cards_gives_the_seat_those_cards_and_loses_none(
    players: int, preset: str, options: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed)
    for g in states(players, preset, options, seed, every=7):
        if g.is_over:
            continue
        viewer = g.to_act if g.to_act is not None else 0
        others = [s for s in range(players) if s != viewer and not g.out[s] and g.hands[s]]
        if not others:
            continue
        seat = rng.choice(others)
        before = g.to_position()
        # Cards from the unseen places: the draw pile and the other seats' hands (not the
        # cards some seat is known to hold, which stay where they are).
        pinned = {t for (_, t) in g.known}
        unseen = list(g.draw_pile) + [
            c for s in others if s != seat and s not in pinned for c in g.hands[s]
        ]
        size = len(g.hands[seat])
        wanted = rng.sample(unseen, min(size, len(unseen), 3)) + g.hands[seat][:1]
        wanted = wanted[:size]
        for copy_of in (g, g.search_copy()):
            h = with_cards(copy_of, seat, wanted, keep=(viewer,))
            assert not Counter(wanted) - Counter(h.hands[seat])
            assert len(h.hands[seat]) == size
            assert h.hands[viewer] == g.hands[viewer]
            assert all_cards(h) == all_cards(g)
            assert h.record_events is copy_of.record_events
            assert h.discard == g.discard and h.turn == g.turn and h.phase == g.phase
            h.legal_ids(h.turn if h.turn is not None else 0)  # a consistent game to play on
        assert g.to_position() == before  # the game itself is untouched


def test_with_cards_refuses_what_the_seat_cannot_have_held() -> None:
    g = new_game(3, seed=5)
    with pytest.raises(ValueError, match="fewer than those asked"):
        with_cards(g, 1, g.hands[1] + g.hands[2][:1])
    # A card only the kept seat holds cannot move: here every other copy of one of its cards
    # is under the discard pile (still accounted for, out of reach).
    position = g.to_position()
    code = position["players"][0]["hand"][0]
    pile = position["draw_pile"]
    for player in position["players"][1:]:
        hand = player["hand"]
        for i, held in enumerate(hand):
            if held == code:
                hand[i] = next(c for c in pile if c != code)
                pile.remove(hand[i])
                position["discard"].insert(0, code)
    while code in pile:
        pile.remove(code)
        position["discard"].insert(0, code)
    g = Game.from_position(position)
    only_0 = Card(code)
    with pytest.raises(ValueError, match="nowhere"):
        with_cards(g, 1, [only_0], keep=(0,))
    assert only_0 in with_cards(g, 1, [only_0]).hands[1]  # unless it is not kept
    with pytest.raises(NoMercyError):
        with_cards(g, 7, [])


# ---------------------------------------------------------------------- the drawn card
def _drew_a_known_code(drawn: str) -> Game:
    """Classic (CL-5): P1, known to P0 to hold an R5 (``known``), draws ``drawn`` on R3
    and decides on it (phase ``play_drawn``)."""
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [
                {"hand": ["Y1", "Y2", "Y3"]},
                {"hand": ["R5", "G1", "B2"]},
                {"hand": ["G4", "G5", "B6"]},
            ],
            "turn": 1,
            "discard": ["R3"],
            "draw_pile": [drawn, "G9", "B9", "Y9", "R7", "R8"],
            "known": {"0,1": ["R5"]},
        }
    )
    g.apply("draw")
    assert g.phase == "play_drawn" and g.drawn == Card(drawn)
    return g


@pytest.mark.parametrize("drawn", ["R5", "R7"])
def test_cl5_a_drawn_card_of_a_known_code_stays_hidden(drawn: str) -> None:
    # S0 (hands are private), NM-9 / CL-5: the card another seat drew is hidden, even when
    # its code is one P0 knows P1 holds. Redeals and samples must not tell an R5 drawn from
    # an R7 drawn, and the known R5 stays in the hand beside whatever is drawn.
    g = _drew_a_known_code(drawn)
    other = _drew_a_known_code("R7" if drawn == "R5" else "R5")
    assert g.view(0) == other.view(0)
    redealer = g.redealer(0)
    seen: Counter[str] = Counter()
    for k in range(60):
        for d in (g.redeal(0, k), redealer.sample(k), redealer.sample_for_search(k)):
            assert d.drawn is not None and is_playable(d, d.drawn)
            rest = Counter(d.hands[1])
            rest[d.drawn] -= 1
            assert rest[Card("R5")] >= 1  # the known R5 is not the drawn card
            if d.record_events:
                check_consistent(g, d, 0)
        seen[g.redeal(0, k).drawn.code] += 1  # type: ignore[union-attr]
        assert _now(g.redeal(0, k)) == _now(other.redeal(0, k))
        made = redealer.deal(k)
        assert made.drawn == other.redealer(0).deal(k).drawn
    assert len(seen) > 3  # the drawn card is any playable unseen card
