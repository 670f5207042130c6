"""Shared helpers for the bot tests: views, checked play, twins that differ in secrets."""

from __future__ import annotations

import json
import random
from typing import Any

from nomercy import Action, Game, PlayerView
from nomercy.bots import Bot, OutOfTurnBot


def json_view(g: Game, seat: int) -> PlayerView:
    """What a bot may receive: the seat's view (a frozen picture that JSON can hold)."""
    view = g.view(seat)
    json.dumps(view.to_json())
    return view


def play_checked(g: Game, bots: list[Bot], limit: int = 3000) -> int:
    """Play to the end (or ``limit`` actions) with views only; every choice must be legal."""
    count = 0
    while not g.is_over and count < limit:
        turn = g.to_act
        assert turn is not None
        chosen: Action | None = None
        for seat in [*range(turn + 1, g.n), *range(turn)]:
            bot = bots[seat]
            if g.out[seat] or not isinstance(bot, OutOfTurnBot):
                continue
            legal = g.legal_actions(seat)
            if legal:
                chosen = bot.choose_out_of_turn(json_view(g, seat), list(legal))
                if chosen is not None:
                    assert chosen in legal, f"{bot.name} chose {chosen} out of turn"
                    break
        if chosen is None:
            legal = g.legal_actions()
            chosen = bots[turn].choose_action(json_view(g, turn), list(legal))
            assert chosen in legal, f"{bots[turn].name} chose {chosen}, not in {legal}"
        g.apply(chosen)
        count += 1
    return count


def reshuffle_secrets(g: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``g`` that differs only in what ``seat`` cannot see.

    The other hands keep their sizes and the cards ``seat`` knows they hold; every other
    hidden card (theirs, the draw pile, the set-aside pile) is dealt again at random, and the
    shuffle key changes.
    """
    pos = g.to_position()
    known = g.view(seat).known
    pool: list[str] = list(pos["draw_pile"]) + list(pos["set_aside"])
    keep: dict[int, list[str]] = {}
    for s, player in enumerate(pos["players"]):
        if s == seat:
            continue
        hand = list(player["hand"])
        kept: list[str] = []
        for code in [c.code for c in known.get(s, ())]:
            if code in hand:
                hand.remove(code)
                kept.append(code)
        keep[s] = kept
        pool.extend(hand)
    rng.shuffle(pool)
    for s, player in enumerate(pos["players"]):
        if s == seat:
            continue
        size = len(player["hand"])
        take = size - len(keep[s])
        player["hand"] = keep[s] + pool[:take]
        del pool[:take]
    aside = len(pos["set_aside"])
    pos["set_aside"] = pool[:aside]
    pos["draw_pile"] = pool[aside:]
    pos["seed"] = rng.getrandbits(63)
    pos["known"] = {k: v for k, v in pos["known"].items() if k.startswith(f"{seat},")}
    other = Game.from_position(pos)
    assert json_view(other, seat) == json_view(g, seat)
    return other


#: Option sets that between them reach every decision phase a bot can face.
OPTION_SETS: list[tuple[str, dict[str, Any]]] = [
    ("no-mercy", {}),
    ("no-mercy", {"discard_all_mode": "choose_top_and_fire", "drawn_card_must_be_played": False}),
    ("no-mercy", {"discard_all_mode": "optional_subset", "stack_threshold": "running_total"}),
    (
        "no-mercy",
        {
            "roulette_chooser": "player",
            "wild_colour_timing": "on_resolution",
            "voluntary_draw": "draw_one_may_pass",
            "stack_deflection": "skip_reverse_deflect",
        },
    ),
    ("classic", {}),
    (
        "classic",
        {
            "classic_stacking": True,
            "classic_seven_zero": True,
            "classic_jump_in": True,
            "classic_draw_until_playable": True,
        },
    ),
]
