"""Hidden information: ``Game.view(seat)`` and ``Event.for_seat`` (NM-2 hands are private).

A view holds the seat's own hand, public piles and counts, and cards the seat was shown
(``known``), never another seat's hand nor the draw-pile order.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

import nomercy
from nomercy import Event, EventKind, Game

PRESETS = ("no-mercy", "classic")
#: Events that name cards only their own seat may see (draws, penalties, a shown hand).
SECRET_KINDS = (
    EventKind.DRAW,
    EventKind.ABSORB,
    EventKind.CATCH,
    EventKind.REVEAL_HAND,
    EventKind.CHALLENGE,
)


def random_positions(preset: str, count: int, *, seed0: int = 0) -> list[dict[str, Any]]:
    """Positions from random play with no known cards and no drawn card pending.

    Without ``known`` entries and a pending drawn card, every card in another seat's hand or
    the draw pile is hidden from the observer, so it may be moved without breaking the state.
    """
    found: list[dict[str, Any]] = []
    seed = seed0
    while len(found) < count:
        rng = random.Random(seed)
        g = nomercy.new_game(rng.randint(2, 6), rules=preset, seed=seed)
        for _ in range(rng.randrange(0, 40)):
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_actions()))
        position = g.to_position()
        if not g.is_over and not position["known"] and position["drawn"] is None:
            found.append(position)
        seed += 1
    return found


def random_games(preset: str, count: int) -> Iterator[Game]:
    """Games of seeds ``0..count-1``, each after up to 80 random legal actions (2-6 seats)."""
    for seed in range(count):
        rng = random.Random(seed)
        g = nomercy.new_game(rng.randint(2, 6), rules=preset, seed=seed)
        for _ in range(rng.randrange(0, 80)):
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_actions()))
        yield g


def reshuffle_hidden(position: dict[str, Any], observer: int, rng: random.Random) -> dict[str, Any]:
    """The same position with every card the observer cannot see redistributed.

    The cards of the other seats' hands and of the draw pile are shuffled together and dealt
    back keeping every hand size and the draw-pile size.
    """
    other = copy_position(position)
    seats = [s for s, p in enumerate(other["players"]) if s != observer and not p["out"]]
    pool = [c for s in seats for c in other["players"][s]["hand"]] + other["draw_pile"]
    rng.shuffle(pool)
    for s in seats:
        size = len(other["players"][s]["hand"])
        other["players"][s]["hand"], pool = pool[:size], pool[size:]
    other["draw_pile"] = pool
    return other


def copy_position(position: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(position))
    return result


@pytest.mark.parametrize("preset", PRESETS)
def test_view_identical_when_only_hidden_cards_differ(preset: str) -> None:
    rng = random.Random(7)
    changed = 0
    for position in random_positions(preset, 40):
        n = len(position["players"])
        for observer in range(n):
            other = reshuffle_hidden(position, observer, rng)
            a, b = Game.from_position(position), Game.from_position(other)
            assert b.hands[observer] == a.hands[observer]
            if b.to_position() != a.to_position():
                changed += 1
            assert a.view(observer) == b.view(observer)
        # A spectator sees no hand at all.
        other = reshuffle_hidden(position, -1, rng)
        assert Game.from_position(position).view(None) == Game.from_position(other).view(None)
    assert changed > 0


@pytest.mark.parametrize("preset", PRESETS)
def test_view_identical_for_two_player_exchange_between_other_hands(preset: str) -> None:
    # The brief's narrow form: exchange cards between two OTHER hands and permute the pile.
    rng = random.Random(11)
    checked = 0
    for position in random_positions(preset, 60, seed0=1000):
        n = len(position["players"])
        if n < 3:
            continue
        observer = rng.randrange(n)
        p, q = rng.sample([s for s in range(n) if s != observer], 2)
        other = copy_position(position)
        hp, hq = other["players"][p]["hand"], other["players"][q]["hand"]
        k = min(len(hp), len(hq))
        if k == 0:
            continue
        hp[:k], hq[:k] = hq[:k], hp[:k]
        rng.shuffle(other["draw_pile"])
        a, b = Game.from_position(position), Game.from_position(other)
        assert a.view(observer) == b.view(observer)
        checked += 1
    assert checked > 10


def _visible_codes(g: Game, seat: int) -> set[str]:
    view = g.view(seat)
    visible = {c.code for c in view.hand} | {c.code for c in view.discard}
    for cards in view.known.values():
        visible |= {c.code for c in cards}
    return visible


@pytest.mark.parametrize("preset", PRESETS)
def test_view_json_has_no_hidden_card_codes(preset: str) -> None:
    # A weak check: a card code only present in hidden places never appears quoted in the view.
    for g in random_games(preset, 60):
        for seat in range(g.n):
            typed = g.view(seat)
            view = typed.to_json()
            assert json.loads(json.dumps(view)) == view
            history = view.pop("history")
            text = json.dumps(view) + json.dumps(typed.bookkeeping_json())
            visible = _visible_codes(g, seat)
            hidden = {c.code for c in g.draw_pile}
            for s in range(g.n):
                if s != seat:
                    hidden |= {c.code for c in g.hands[s]}
            for code in hidden - visible:
                assert f'"{code}"' not in text, (g.seed, seat, code)
            assert typed.hand == tuple(g.hands[seat])
            assert typed.draw_pile_size == len(g.draw_pile)
            assert [p.hand_size for p in typed.players] == [len(h) for h in g.hands]
            assert "draw_pile" not in view
            for entry in history:
                assert {"kind", "text", "seat"} <= set(entry)
                if entry["kind"] in SECRET_KINDS:
                    assert not {"cards", "hand", "card"} & set(entry), entry


def test_view_history_does_not_name_drawn_cards() -> None:
    # EX-01-like: P0 draws R3, Y5, then B2. Others read the count, not the cards.
    g = Game.from_position(
        {
            "rules": "no-mercy",
            "players": [
                {"name": "P0", "hand": ["R1", "G4", "Y7", "R9", "G0"]},
                {"name": "P1", "hand": ["R2", "Y2"]},
                {"name": "P2", "hand": ["B5", "G5"]},
            ],
            "turn": 0,
            "discard": ["B8"],
            "draw_pile": ["R3", "Y5", "B2"],
        }
    )
    events = g.apply("draw")
    draw = next(e for e in events if e.kind is EventKind.DRAW)
    assert draw.data["cards"] == ["R3", "Y5", "B2"]
    for seat in (1, 2, None):
        seen = draw.for_seat(seat)
        assert "cards" not in seen.data
        assert "R3" not in seen.text and "Y5" not in seen.text
        assert seen.data.get("count") == 3
    assert draw.for_seat(0) == draw
    text = json.dumps(g.view(1).to_json()["history"])
    assert "R3" not in text and "Y5" not in text
    assert g.view(1).drawn is None
    assert g.view(0).drawn == nomercy.parse_card("B2")


def test_event_for_seat_censors_absorbed_penalty() -> None:
    g = Game.from_position(
        {
            "rules": "no-mercy",
            "players": [
                {"name": "P0", "hand": ["R+2", "G4", "Y7"]},
                {"name": "P1", "hand": ["G2", "Y2"]},
                {"name": "P2", "hand": ["B5", "G5"]},
            ],
            "turn": 0,
            "discard": ["R8"],
            "draw_pile": ["Y9", "B3", "G7"],
        }
    )
    g.apply("play R+2")
    events = g.apply("draw")
    absorb = next(e for e in events if e.kind == "absorb")
    assert absorb.seat == 1
    assert absorb.data["cards"] == ["Y9", "B3"]
    assert absorb.for_seat(1).data["cards"] == ["Y9", "B3"]
    for seat in (0, 2, None):
        seen = absorb.for_seat(seat)
        assert "cards" not in seen.data
        assert seen.data["count"] == 2
        assert "Y9" not in seen.text and "B3" not in seen.text
    for seat in (0, 2):
        assert "Y9" not in json.dumps(g.view(seat).to_json())


def test_event_for_seat_censors_classic_draw_and_challenge_reveal() -> None:
    g = Game.from_position(
        {
            "rules": "classic",
            "players": [
                {"name": "P0", "hand": ["W+4", "R1", "G9"]},
                {"name": "P1", "hand": ["Y1", "Y2"]},
                {"name": "P2", "hand": ["G7", "G8"]},
            ],
            "turn": 0,
            "discard": ["R5"],
            "draw_pile": ["Y5", "Y6", "Y7", "Y8", "B1"],
        }
    )
    g.apply("play W+4 B")
    events = g.apply("challenge")
    reveal = next(e for e in events if e.kind == "reveal_hand")
    assert "R1" in reveal.for_seat(1).text
    for seat in (2, None):
        seen = reveal.for_seat(seat)
        assert "hand" not in seen.data
        assert "R1" not in seen.text and "G9" not in seen.text
    penalty = next(e for e in events if e.kind == "challenge")
    for seat in (1, 2):
        assert "cards" not in penalty.for_seat(seat).data
        assert "Y5" not in penalty.for_seat(seat).text
    assert "R1" not in json.dumps(g.view(2).to_json())
    assert g.view(1).to_json()["known"] == {
        "0": ["R1", "G9"]
    }  # the hand shown, not the 4 drawn after
    # P1 draws one card: only P1 reads it.
    events = g.apply("draw")
    draw = next(e for e in events if e.kind is EventKind.DRAW)
    assert draw.for_seat(1).data["cards"] == ["B1"]
    assert "cards" not in draw.for_seat(0).data
    assert "B1" not in draw.for_seat(0).text


def test_event_for_seat_public_events_unchanged() -> None:
    event = Event("play", "P0 plays red 5 [NM-12]", 0, {"card": "R5"})
    assert event.for_seat(1) is event
    assert event.for_seat(None) is event


@pytest.mark.parametrize("preset", PRESETS)
def test_random_play_events_censored_for_other_seats(preset: str) -> None:
    # Every secret event (draws, absorptions, catches) hides its cards from the other seats.
    secret_kinds: set[str] = set()
    for seed in range(30):
        rng = random.Random(seed)
        g = nomercy.new_game(rng.randint(2, 5), rules=preset, seed=seed)
        while not g.is_over:
            for event in g.apply(rng.choice(g.legal_actions())):
                for seat in (*range(g.n), None):
                    seen = event.for_seat(seat)
                    if seat == event.seat:
                        assert seen == event
                    elif event.kind in SECRET_KINDS:
                        secret_kinds.add(event.kind)
                        assert "cards" not in seen.data, (seed, event)
                        for code in event.data.get("cards", []):
                            assert f"({code}" not in seen.text, (seed, event)
    assert {"draw", "absorb"} <= secret_kinds


def test_view_without_history_and_engine_bookkeeping() -> None:
    g = nomercy.new_game(3, seed=4)
    full = g.view(1)
    lean = g.view(1, history=False)
    assert lean.history == () and full.history
    assert lean._replace(history=full.history) == full
    assert full.bookkeeping.turn == g.turn
    assert full.bookkeeping.total_cards == 168
    assert "engine" not in full.to_json()  # the bookkeeping is the re-deal API's, not the view's


@pytest.mark.parametrize("preset", PRESETS)
def test_view_json_form_round_trips(preset: str) -> None:
    # PlayerView.from_json rebuilds the typed view a server sent (the web's JSON form).
    checked = 0
    for g in random_games(preset, 40):
        for seat in [None, *range(g.n)]:
            view = g.view(seat)
            wire = json.loads(json.dumps(view.to_json(bookkeeping=True)))
            assert nomercy.PlayerView.from_json(wire) == view
            public = nomercy.PlayerView.from_json(json.loads(json.dumps(view.to_json())))
            assert public == view._replace(bookkeeping=None)
            checked += 1
    assert checked > 100


def test_view_json_form_errors_are_clear() -> None:
    g = nomercy.new_game(3, seed=4)
    wire = g.view(0).to_json()
    del wire["hand"]
    with pytest.raises(nomercy.NotationError, match="malformed view"):
        nomercy.PlayerView.from_json(wire)
    with pytest.raises(nomercy.NotationError, match="malformed view"):
        nomercy.PlayerView.from_json({**g.view(0).to_json(), "phase": "nap"})
    # A view without the engine's bookkeeping can be read, not searched.
    public = nomercy.PlayerView.from_json(g.view(0).to_json())
    assert public.hand == tuple(g.hands[0])
    with pytest.raises(nomercy.NotationError, match="no engine bookkeeping"):
        Game.from_view(public)
