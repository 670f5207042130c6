"""``opp_void`` (``PublicTracker``) against the core's reading of the same history
(``nomercy.core.redeal.infer_gaps``, which the bots and the re-deal use).

Both live in ``nomercy.core.gaps`` and read ``RuleSet.facts.draw_proves_gap``, but they
answer different questions: the tracker's flag says
a seat holds *no* card of a colour (a flagged colour is never in the hand), the core's gaps
say which colours are missing from the part of the hand the viewer has not seen (what a
re-deal must respect). So the core's gaps may name a colour the seat holds: a card it drew
and decides on (phase ``play_drawn``, NM-9), cards a Roulette revealed (NM-30) or a 7-swap
or 0-pass showed (NM-29, NM-31). What holds is that every tracker flag is one of the core's
gaps; these tests pin both facts, so a change to either reading shows here.
"""

from __future__ import annotations

import random

import pytest

from nomercy import new_game
from nomercy.core.base import Phase
from nomercy.core.cards import COLOURS
from nomercy.core.redeal import infer_gaps
from nomercy.core.rules import make_rules
from nomercy.encoding.observations import PublicTracker
from nomercy.rl._common import start_tracking


@pytest.mark.parametrize("preset", ["no-mercy", "classic"])
def test_every_void_flag_is_a_gap_the_core_reads(preset: str) -> None:
    rules = make_rules(preset)
    flags = 0
    wider: dict[str, int] = {}
    for i in range(40):
        n = 2 + i % 4
        g = new_game(n, rules=rules, seed=i)
        tracker = PublicTracker(rules, n)
        start_tracking(g, tracker)
        rng = random.Random(i)
        while not g.is_over and len(g.history) < 300:
            colour, phase = g.colour, g.phase.value
            events = g.apply(rng.choice(g.legal_actions()))
            tracker.update(
                events,
                colour=colour.value if colour is not None else None,
                phase=phase,
                next_phase=g.phase.value,
            )
            if g.is_over:
                break
            view = g.view(None)
            deciding = view.to_act if view.phase is Phase.PLAY_DRAWN else None
            gaps = infer_gaps(rules, n, view.history, view.direction, deciding)
            for s in range(n):
                held = {c.colour for c in g.hands[s]}
                for ci, c in enumerate(COLOURS):
                    if tracker.void[s][ci]:
                        flags += 1
                        assert c in gaps.lacks[s], (s, c, g.to_position())
                        assert c not in held
                    elif c in gaps.lacks[s] and c in held:
                        key = view.phase.value
                        wider[key] = wider.get(key, 0) + 1
    if preset == "no-mercy":
        assert flags > 500, flags
        # The core's gaps speak about the unseen cards only: the drawn card decided on, and
        # cards shown (a reveal, a swap) may be of a colour it names.
        assert wider.get("play_drawn", 0) > 20 and wider.get("play", 0) > 10, wider
    else:
        assert flags == 0 and not wider, (flags, wider)  # classic: a draw proves nothing (A03)
