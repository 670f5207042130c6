"""Determinization: a full game consistent with everything one seat has seen.

Information-set search (:mod:`nomercy.bots.ismcts_bot`) needs concrete games to play forward.
:func:`sample_position` deals the cards the seat has not seen (see
:func:`nomercy.bots.knowledge.read_view`) into the places it cannot see:

- the viewer keeps exactly its own hand (and its drawn card);
- every other seat keeps its hand size; the cards the viewer knows it holds (received in a
  swap or pass, revealed by a Roulette, NM-29…NM-31) go to it first, the rest are drawn
  from the unseen cards, avoiding the colours (and wilds) the seat showed it lacks while
  enough other cards remain;
- the discard pile, the active colour, direction, pending stack, UNO flags and the engine's
  public bookkeeping (``view["engine"]``) are copied from the view;
- the set-aside pile (NM-34) and the draw pile get the remaining unseen cards, in random
  order, with their public sizes;
- a classic Wild +4 awaiting a challenge (CL-8) gets the ``guilty`` flag that the sampled
  hand implies, since the view does not show it;
- the shuffle key of the new game comes from the caller's generator.

The result is a position for :meth:`Game.from_position`; :func:`sample_game` builds the
game. Nothing but the view is read, so a determinization never uses hidden state.
"""

from __future__ import annotations

import random
from typing import Any

from nomercy.bots.knowledge import Knowledge, read_view
from nomercy.core.cards import Card, Colour
from nomercy.core.game import Game

__all__ = ["sample_game", "sample_position"]


def sample_position(
    view: dict[str, Any], rng: random.Random, knowledge: Knowledge | None = None
) -> dict[str, Any]:
    """A full position consistent with ``view``, with hidden cards dealt at random.

    Args:
        view: ``Game.view(seat)`` of a seat (not a spectator); the history may be left out
            (``history=False``) when ``knowledge`` is given.
        rng: the generator for the deal and the new game's shuffle key.
        knowledge: :func:`read_view` of the same view, to reuse across many samples.

    Raises:
        ValueError: a spectator view, or a view whose card counts do not add up.
    """
    seat = view["seat"]
    if seat is None:
        raise ValueError("a determinization needs a seat's view, not a spectator's")
    k = knowledge if knowledge is not None else read_view(view)
    players = view["players"]
    n = len(players)
    pool: list[Card] = []
    for card, count in k.unseen.items():
        pool.extend([card] * count)
    rng.shuffle(pool)
    taken = [False] * len(pool)
    hands: list[list[str]] = [[] for _ in range(n)]
    hands[seat] = list(view["hand"])
    need: dict[int, int] = {}
    for s in range(n):
        if s == seat:
            continue
        known = k.known.get(s, [])
        size = int(players[s]["hand_size"])
        mine = [c.code for c in known[:size]]
        for extra in known[size:]:  # more known cards than the hand holds: stale, give back
            pool.append(extra)
            taken.append(False)
        hands[s] = mine
        need[s] = size - len(mine)
    # The most constrained seats choose first, so the constraints hold whenever they can.
    order = sorted(need, key=lambda s: (-(len(k.lacks.get(s, ())) + (s in k.lacks_wild)), s))
    for s in order:
        lacks: set[Colour] = k.lacks.get(s, set())
        no_wild = s in k.lacks_wild
        want = need[s]
        if want <= 0:
            continue
        picked: list[int] = []
        chosen: set[int] = set()
        for i, card in enumerate(pool):
            if len(picked) == want:
                break
            if taken[i]:
                continue
            if card.colour is None:
                if no_wild:
                    continue
            elif card.colour in lacks:
                continue
            picked.append(i)
            chosen.add(i)
        if len(picked) < want:  # not enough cards fit the gaps: the gaps give way
            for i in range(len(pool)):
                if len(picked) == want:
                    break
                if not taken[i] and i not in chosen:
                    picked.append(i)
        for i in picked:
            taken[i] = True
            hands[s].append(pool[i].code)
    rest = [c.code for i, c in enumerate(pool) if not taken[i]]
    set_aside_size = int(view["set_aside_size"])
    draw_size = int(view["draw_pile_size"])
    if len(rest) != set_aside_size + draw_size:
        raise ValueError(
            f"the view's card counts do not add up: {len(rest)} unseen cards left for a draw "
            f"pile of {draw_size} and a set-aside pile of {set_aside_size}"
        )
    engine = view["engine"]
    wd4 = engine.get("wd4")
    if wd4:
        accused = int(wd4["seat"])
        named = wd4.get("colour")
        guilty = bool(named) and any(Card(c).colour is Colour(named) for c in hands[accused])
        wd4 = {**wd4, "guilty": guilty}
    rules = view["rules"]
    if not rules.get("options"):
        rules = rules["preset"]  # a preset name: make_rules caches it
    return {
        "rules": rules,
        "players": [
            {
                "name": p["name"],
                "hand": hands[s],
                "out": p["out"],
                "uno": p["uno"],
            }
            for s, p in enumerate(players)
        ],
        "turn": engine["turn"],
        "direction": view["direction"],
        "discard": list(view["discard"]),
        "colour": view["colour"],
        "draw_pile": rest[set_aside_size:],
        "set_aside": rest[:set_aside_size],
        "pending": view["pending"],
        "seed": rng.getrandbits(63),
        "fill": "none",
        "phase": view["phase"],
        "drawn": view["drawn"],
        "draw_mode": engine["draw_mode"],
        "uno_window": list(view["uno_window"]),
        "chain_wild": engine["chain_wild"],
        "wd4": wd4,
        "pending_win": engine["pending_win"],
        "resume": engine["resume"],
        "roulette_colour": engine["roulette_colour"],
        "dealer": view["dealer"],
        "scores": list(view["scores"]),
        "hand_number": view["hand_number"],
        "hand_winner": view["hand_winner"],
        "winner": view["winner"],
        "total_cards": engine["total_cards"],
    }


def sample_game(
    view: dict[str, Any], rng: random.Random, knowledge: Knowledge | None = None
) -> Game:
    """A :class:`Game` built from :func:`sample_position` (same arguments)."""
    return Game.from_position(sample_position(view, rng, knowledge))
