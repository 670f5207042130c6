"""Property: a re-deal depends on nothing a seat cannot see (S0: hands are private; NM-2).

Two real games that differ only in cards hidden from one seat (the other hands apart from the
cards the seat knows they hold, the card another seat drew and decides on, the draw and
set-aside piles, the shuffle key, a Wild +4's guilt, whether the last drawer held a playable
card (A03), what the other seats know) must look the
same to that seat (view, snapshot, legal ids) and give the same re-deals for the same key
(``Game.redeal``, ``Redealer.sample``, ``sample_for_search``, ``deal``). The positions come
from seeded random games under both presets and options that reach every phase, after swaps
(NM-31), passes (NM-29), reveals (NM-30), reshuffles (NM-35), challenges (CL-8) and draws
(NM-9, CL-5). ``--soak`` plays more games.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

from nomercy import Card, Game, new_game
from nomercy.core.legality import is_playable, wild_draw_allowed

SOAK = int(os.environ.get("NOMERCY_SOAK_FACTOR", "1"))

#: (players, preset, options): between them every phase, 7-0, Roulette, challenges, Mercy.
OPTION_SETS: list[tuple[int, str, dict[str, Any]]] = [
    (2, "no-mercy", {}),
    (4, "no-mercy", {}),
    (
        5,
        "no-mercy",
        {"discard_all_mode": "optional_subset", "eliminated_cards": "shuffle_into_draw_pile"},
    ),
    (3, "no-mercy", {"roulette_chooser": "player", "wild_colour_timing": "on_resolution"}),
    (3, "no-mercy", {"discard_all_mode": "choose_top_and_fire", "mercy_threshold": 15}),
    (4, "no-mercy", {"voluntary_draw": "draw_one_may_pass"}),
    (3, "classic", {}),
    (4, "classic", {"classic_seven_zero": True, "classic_stacking": True}),
    (2, "classic", {"classic_draw_until_playable": True}),
]


def positions(players: int, preset: str, options: dict[str, Any], seed: int) -> list[Game]:
    """Copies of a seeded random game after every action."""
    return [g for g, _ in steps(players, preset, options, seed)]


def steps(
    players: int, preset: str, options: dict[str, Any], seed: int
) -> list[tuple[Game, set[str]]]:
    """Copies of a seeded random game after every action, with the kinds of event it made."""
    g = new_game(players, rules=preset, options=options, seed=seed)
    rng = random.Random(seed)
    found = [(g.copy(), {e.kind.value for e in g.log})]
    while not g.is_over and len(g.history) < 400:
        # Now and then another seat's out-of-turn action (an UNO call or catch, a jump-in).
        seat = rng.randrange(g.n) if rng.random() < 0.1 else g.to_act
        ids = g.legal_ids(seat)
        if not ids:
            seat = g.to_act
            ids = g.legal_ids(seat)
        before = len(g.log)
        g.step(ids[rng.randrange(len(ids))], seat)
        found.append((g.copy(), {e.kind.value for e in g.log[before:]}))
    return found


def twin(g: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``g`` with everything ``seat`` cannot see dealt again: the other hands keep
    their sizes and the cards ``seat`` knows they hold; a card another seat drew and decides
    on becomes another unseen card it may play; the piles, the key and what the other seats
    know change; a Wild +4's guilt follows the new hand."""
    t = g.copy()
    drawer = g.turn if g.drawn is not None and g.turn != seat else None
    pool: list[Card] = list(g.draw_pile) + list(g.set_aside)
    keep: dict[int, list[Card]] = {}
    for s in range(g.n):
        if s == seat:
            continue
        hand = list(g.hands[s])
        if s == drawer:
            hand.remove(g.drawn)  # type: ignore[arg-type]
            pool.append(g.drawn)  # type: ignore[arg-type]
        kept = []
        for c in g.known.get((seat, s), ()):
            hand.remove(c)  # a known card is never the drawn one: it was there before
            kept.append(c)
        keep[s] = kept
        pool.extend(hand)
    rng.shuffle(pool)
    if drawer is not None:
        # The first unseen card it may play (a restricted wild draw, A34/CL-4, only if it was
        # the real one: whether it may be played depends on the rest of the hand).
        real = g.drawn
        assert real is not None
        fits = [c for c in pool if is_playable(g, c) and not g.restricted_cards[c.index]]
        t.drawn = fits[0] if fits else real
        pool.remove(t.drawn)
    hands = t.hands  # new lists, given back below
    for s, kept in keep.items():
        take = len(g.hands[s]) - len(kept) - (s == drawer)
        hands[s] = kept + pool[:take]
        del pool[:take]
        if s == drawer:
            hands[s].append(t.drawn)  # type: ignore[arg-type]
    t.hands = hands
    if drawer is not None and not wild_draw_allowed(t, drawer, t.drawn):  # type: ignore[arg-type]
        return twin(g, seat, rng)  # another deal: this hand could not play that wild
    aside = len(g.set_aside)
    t.set_aside = pool[:aside]
    t._draw = pool[aside:]
    t.key = rng.getrandbits(63)
    rules = g.rules
    if not (g.phase == "play_drawn" and g.turn == seat) and rules.voluntary_draw not in (
        "off",
        rules.no_playable_action,
    ):
        # Whether the last drawer held a playable card (A03): hidden from the seat.
        t.draw_mode = rng.choice([rules.voluntary_draw, rules.no_playable_action])
    t.known = {k: list(v) for k, v in g.known.items() if k[0] in (seat, -1)}
    if g.wd4 is not None and g.wd4.seat != seat:
        named = g.wd4.colour
        accused = t.hands[g.wd4.seat]
        t.wd4 = g.wd4._replace(guilty=named is not None and any(c.colour is named for c in accused))
    return t


def consistent(g: Game, d: Game, seat: int) -> None:
    """A sampled game agrees with what ``seat`` knows of ``g``."""
    assert d.view(seat) == g.view(seat)
    assert d.hands[seat] == g.hands[seat]
    assert [len(h) for h in d.hands] == [len(h) for h in g.hands]
    for s in range(g.n):
        rest = Counter(d.hands[s])
        if d.drawn is not None and d.turn == s:
            rest[d.drawn] -= 1
            assert rest[d.drawn] >= 0
        for viewer in (seat, -1):
            # Every card the seat knows s holds is in the hand beside the drawn card.
            assert not Counter(g.known.get((viewer, s), ())) - rest
    if d.drawn is not None:
        assert d.turn is not None and is_playable(d, d.drawn)
    if d.phase in ("discard_all_top", "discard_all_subset"):
        # A09: the seat choosing under its Discard All holds a card of its colour.
        assert d.turn is not None
        assert any(c.colour is d.discard[-1].colour for c in d.hands[d.turn])


def test_a_redeal_depends_on_nothing_the_seat_cannot_see() -> None:
    games = 4 * SOAK
    phases: Counter[str] = Counter()
    checked = drawn_by_others = challenges = 0
    for players, preset, options in OPTION_SETS:
        for seed in range(games):
            rng = random.Random(seed)
            for g in positions(players, preset, options, seed)[:: 2 if SOAK == 1 else 1]:
                if g.is_over:
                    continue
                seat = rng.choice([s for s in range(g.n) if not g.out[s]])
                other = twin(g, seat, rng)
                assert other.view(seat) == g.view(seat)
                assert other.snapshot(seat) == g.snapshot(seat)
                assert other.legal_ids(seat) == g.legal_ids(seat)
                key = rng.getrandbits(32)
                a, b = g.redeal(seat, key), other.redeal(seat, key)
                assert a.to_position() == b.to_position()
                assert (a.key, a.history, a.seed, a.start) == (b.key, b.history, b.seed, b.start)
                consistent(g, a, seat)
                ra, rb = g.redealer(seat), other.redealer(seat)
                sa, sb = ra.sample_for_search(key + 1), rb.sample_for_search(key + 1)
                assert sa.to_position() == sb.to_position()
                da, db = ra.deal(key + 2), rb.deal(key + 2)
                assert (da.hands, da.drawn, da.turn) == (db.hands, db.drawn, db.turn)
                assert ra.game_of(da).to_position() == rb.game_of(db).to_position()
                phases[g.phase.value] += 1
                checked += 1
                challenges += g.wd4 is not None  # a classic Wild +4 awaiting a challenge (CL-8)
                if g.drawn is not None and g.turn != seat:
                    drawn_by_others += 1
    assert checked > 2000 * SOAK
    # Every phase a seat can be re-dealt in, and other seats deciding on drawn cards.
    assert set(phases) == {
        "play", "play_drawn", "stack_or_absorb", "choose_colour", "roulette_colour",
        "discard_all_top", "discard_all_subset",
    }, phases  # fmt: skip
    assert drawn_by_others > 50 and challenges > 20


def test_a_redeal_after_a_swap_pass_reveal_and_reshuffle_depends_on_nothing_hidden() -> None:
    # The same property right after the events that move or show cards: NM-31 swaps, NM-29
    # passes, NM-30 reveals, NM-35 reshuffles, CL-8 challenges, NM-9 draws.
    kinds: Counter[str] = Counter()
    wanted = {"swap", "pass_hands", "reveal", "reshuffle", "challenge", "draw"}
    for players, preset, options in OPTION_SETS:
        for seed in range(100, 100 + 2 * SOAK):
            rng = random.Random(seed)
            for g, made in steps(players, preset, options, seed):
                if g.is_over or not made & wanted:
                    continue
                kinds.update(made & wanted)
                for seat in range(g.n):
                    if g.out[seat]:
                        continue
                    other = twin(g, seat, rng)
                    assert other.view(seat) == g.view(seat)
                    key = rng.getrandbits(32)
                    a, b = g.redeal(seat, key), other.redeal(seat, key)
                    assert a.to_position() == b.to_position()
                    consistent(g, a, seat)
    assert wanted <= set(kinds), kinds
