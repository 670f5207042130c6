"""What a player should know before a move: its consequences that are not obvious, and why an
action (drawing) is not on offer. Shared by the terminal and the web apps.

Everything here is computed from what the seat may know: its view (:meth:`Game.view`: its own
hand, every hand size, the pending stack, the direction, the rule options) and the action. No
hidden information is used, so a warning never tells more than the seat could work out itself.

Each piece of advice is a :class:`Advice`: a ``kind`` with its ``data`` (numbers, names and
colour letters, for the web client's translated templates ``advice.KIND``), the rule ids it
rests on, and the English ``text``. Kinds: ``self_target``, ``self_target_stack``,
``self_target_knocks_out``, ``reverse_target``, ``absorb_knocks_out``, ``draw_knocks_out``,
``swap_grows``, ``zero_pass``, ``discard_all``, ``challenge_fails``; refusals
(:func:`draw_refusal`): ``must_play``, ``not_your_turn``, ``name_colour``, ``play_drawn``,
``finish_discard_all``, ``out``, ``over``, ``not_now``.

>>> from nomercy import Game
>>> rules = {"preset": "no-mercy", "options": {"wrd4_two_player_in_stack": "self"}}
>>> game = Game.from_position({"rules": rules, "players": [{"hand": ["WR+4", "R1"]},
...     {"hand": ["Y1", "Y2", "Y3", "Y4", "Y5"]}], "turn": 0, "discard": ["R3", "R+4"],
...     "pending": {"total": 12, "last": 4}})
>>> [a.text for a in consequences(parse_action("play WR+4 R", 0), game.view(0))]
['you become the target: the whole 16-card penalty is yours unless you stack again [NM-24, A28]']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nomercy.core.actions import Action, Challenge, Draw, Play, parse_action
from nomercy.core.base import Phase
from nomercy.core.cards import Card, Kind
from nomercy.core.rules import RuleSet
from nomercy.core.views import PlayerView

__all__ = ["Advice", "advice_for", "consequences", "draw_refusal", "rules_of"]


@dataclass(frozen=True)
class Advice:
    """One warning or explanation: ``kind`` and ``data`` for templates, ``text`` in English."""

    kind: str
    text: str
    rules: tuple[str, ...]
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "text", "rules", "data"}`` (for the web client)."""
        return {"kind": self.kind, "text": self.text, "rules": list(self.rules), "data": self.data}


def rules_of(view: PlayerView) -> RuleSet:
    """The rule set the view's game plays (:attr:`PlayerView.rules`)."""
    return view.rules


def _cite(ids: Sequence[str]) -> str:
    return f" [{', '.join(ids)}]"


def _mercy_limit(rules: RuleSet) -> int | None:
    return rules.facts.mercy_limit or None


def consequences(action: Action, view: PlayerView) -> list[Advice]:
    """What ``action`` (by the view's seat) will do that the player may not expect.

    - a Draw Card whose penalty the engine aims at its own player (a Wild Reverse +4 with two
      players, NM-24; in a stack A28), and says so when the player then cannot stack again
      and the penalty knocks them out;
    - one aimed at another seat than the next (a Wild Reverse +4 with three or more): who
      the reversed penalty hits;
    - taking a penalty (or drawing at one card below the limit) that reaches the Mercy limit
      knocks the player out (NM-33);
    - a 7 that leaves its player with a larger hand (NM-31); a 0 that passes every hand on
      and what the player receives (NM-29); a Discard All's other cards (NM-27);
    - a challenge of a Wild +4 that fails costs the challenger the penalty and 2 more (CL-8).

    A play of the player's last card ends the hand, so it has no such consequences.
    """
    rules = view.rules
    seat = view.seat
    if seat is None:
        return []  # a spectator makes no moves
    size = view.players[seat].hand_size
    limit = _mercy_limit(rules)
    pending = view.pending
    stacking = pending is not None and view.phase is Phase.STACK_OR_ABSORB
    out: list[Advice] = []
    if isinstance(action, Challenge) and pending is not None:
        total = pending.total
        out.append(
            Advice(
                "challenge_fails",
                f"if the challenge fails you draw {total + 2} cards instead of {total}"
                + _cite(["CL-8"]),
                ("CL-8",),
                {"cost": total + 2, "total": total},
            )
        )
        return out
    if isinstance(action, Draw):
        if limit is None:
            return out
        if stacking:
            assert pending is not None
            total = pending.total
            if size + total >= limit:
                out.append(
                    Advice(
                        "absorb_knocks_out",
                        f"taking {total} cards reaches the {limit}-card Mercy limit: "
                        f"you are knocked out" + _cite(["NM-33"]),
                        ("NM-33",),
                        {"total": total, "limit": limit},
                    )
                )
        elif size + 1 >= limit:
            out.append(
                Advice(
                    "draw_knocks_out",
                    f"one more card reaches the {limit}-card Mercy limit: drawing knocks you "
                    "out" + _cite(["NM-33"]),
                    ("NM-33",),
                    {"limit": limit},
                )
            )
        return out
    if not isinstance(action, Play) or size <= 1:
        return out
    card = action.card
    rest = list(view.hand)
    if card in rest:
        rest.remove(card)
    no_mercy = not rules.is_classic
    if card.draw_value:
        return out + _penalty_advice(action, view, seat, rest, stacking)
    sevens_zeros = rules.facts.seven_zero
    if card.kind is Kind.NUMBER and card.number == 7 and action.target is not None:
        swapper = view.players[action.target]
        theirs = swapper.hand_size
        if sevens_zeros and theirs > size - 1:
            out.append(
                Advice(
                    "swap_grows",
                    f"this 7 gives you a {theirs}-card hand ({swapper.name} gets your "
                    f"{size - 1})" + _cite(["NM-31"]),
                    ("NM-31",),
                    {"size": theirs, "name": swapper.name, "given": size - 1},
                )
            )
    elif card.kind is Kind.NUMBER and card.number == 0 and sevens_zeros:
        giver = view.zero_pass_giver()
        if giver != seat:
            p = view.players[giver]
            got = p.hand_size
            cards = "only card" if got == 1 else f"{got} cards"
            out.append(
                Advice(
                    "zero_pass",
                    f"this 0 passes every hand on: you get {p.name}'s {cards}" + _cite(["NM-29"]),
                    ("NM-29",),
                    {"name": p.name, "size": p.hand_size},
                )
            )
    elif card.kind is Kind.DISCARD_ALL and not stacking and no_mercy:
        same = view.cards_shed(card)[1:]  # NM-27, A09: what the engine sheds with it
        if same:
            word = card.colour.word if card.colour is not None else ""
            out.append(
                Advice(
                    "discard_all",
                    f"you also discard your {len(same)} other {word} card"
                    f"{'s' if len(same) != 1 else ''}; their effects do not apply"
                    + _cite(["NM-27"]),
                    ("NM-27",),
                    {"count": len(same), "colour": card.colour.value if card.colour else ""},
                )
            )
    return out


def _penalty_advice(
    action: Play, view: PlayerView, seat: int, rest: list[Card], stacking: bool
) -> list[Advice]:
    """Where a Draw Card's penalty goes when that is not the next player: the engine aims it
    (:meth:`PlayerView.penalty_target`: NM-24, A28, A29)."""
    card = action.card
    rules = view.rules
    limit = _mercy_limit(rules)
    pending = view.pending
    before = pending.total if stacking and pending is not None else 0
    total = before + card.draw_value
    target = view.penalty_target(card)
    if target == seat:  # NM-24: with two players a Wild Reverse +4 hits its own player
        ids = ["NM-24", "A28"] if stacking else ["NM-24"]
        if stacking:
            text = f"you become the target: the whole {total}-card penalty is yours"
        else:
            text = f"you become the target of its {total}-card penalty"
        text += " unless you stack again"
        kind = "self_target_stack" if stacking else "self_target"
        out = [Advice(kind, text + _cite(ids), tuple(ids), {"total": total})]
        after = view.players[seat].hand_size - 1 + total
        # Could the player stack again on its own card (NM-18, A04, A05, A07)?
        floor = view.stack_floor_after(card, before)
        again = any(view.answers_stack(c, floor, card, action.colour) for c in rest)
        if limit is not None and after >= limit and not again:
            out.append(
                Advice(
                    "self_target_knocks_out",
                    f"you hold no card to stack again: taking {total} reaches the "
                    f"{limit}-card Mercy limit and knocks you out" + _cite(["NM-33"]),
                    ("NM-33",),
                    {"total": total, "limit": limit},
                )
            )
        return out
    if target is None or target == view.seat_after(seat):
        return []  # the next player, as for any Draw Card (NM-16)
    # NM-24: a Wild Reverse +4 reverses the direction first: the player before this one.
    name = view.players[target].name
    return [
        Advice(
            "reverse_target",
            f"play reverses: {name} (before you) becomes the target of {total}" + _cite(["NM-24"]),
            ("NM-24",),
            {"target": target, "name": name, "total": total},
        )
    ]


def draw_refusal(view: PlayerView, legal: Sequence[Action]) -> Advice | None:
    """Why the view's seat cannot draw now, or ``None`` when drawing is on offer."""
    if any(isinstance(a, Draw) for a in legal):
        return None
    seat = view.seat
    to_act = view.to_act
    if to_act is None:
        return Advice("over", "the game is over", ())
    if seat is not None and view.players[seat].out:
        return Advice("out", "you are out of this hand" + _cite(["NM-34"]), ("NM-34",))
    if to_act != seat:
        name = view.players[to_act].name
        return Advice("not_your_turn", f"it is {name}'s turn, not yours", (), {"name": name})
    phase = view.phase
    rules = view.rules
    if phase is Phase.PLAY:
        ids = ["NM-8", "A03"] if not rules.is_classic else ["CL-5"]
        return Advice(
            "must_play",
            "you hold a playable card, and a player who can play must play (drawing instead "
            "is not allowed with these rules)" + _cite(ids),
            tuple(ids),
        )
    if phase is Phase.CHOOSE_COLOUR or phase is Phase.ROULETTE_COLOUR:
        ids = ["NM-30"] if phase is Phase.ROULETTE_COLOUR else ["NM-14"]
        return Advice("name_colour", "first name a colour" + _cite(ids), tuple(ids))
    if phase is Phase.PLAY_DRAWN:
        ids = ["NM-9", "A02"] if not rules.is_classic else ["CL-5"]
        return Advice(
            "play_drawn",
            "you have drawn already: play the drawn card (or pass, if the rules allow)"
            + _cite(ids),
            tuple(ids),
        )
    if phase is Phase.DISCARD_ALL_TOP or phase is Phase.DISCARD_ALL_SUBSET:
        return Advice(
            "finish_discard_all",
            "first finish the Discard All (play or pass)" + _cite(["A09"]),
            ("A09",),
        )
    return Advice("not_now", "drawing is not an action of this moment", ())


def advice_for(actions: Sequence[Action | str], view: PlayerView) -> dict[str, list[Advice]]:
    """Every action's consequences, by notation (only actions that have some)."""
    out: dict[str, list[Advice]] = {}
    for a in actions:
        action = parse_action(a, view.seat) if isinstance(a, str) else a
        found = consequences(action, view)
        if found:
            out[str(action)] = found
    return out
