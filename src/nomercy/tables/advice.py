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

>>> rules = {"preset": "no-mercy", "options": {"wrd4_two_player_in_stack": "self"}}
>>> view = {"seat": 0, "rules": rules, "phase":
...     "stack_or_absorb", "to_act": 0, "direction": 1, "hand": ["WR+4", "R1"],
...     "pending": {"total": 12, "last": 4}, "players": [
...     {"seat": 0, "name": "Ann", "hand_size": 2, "out": False},
...     {"seat": 1, "name": "Bob", "hand_size": 5, "out": False}]}
>>> [a.text for a in consequences(parse_action("play WR+4 R", 0), view)]
['you become the target: the whole 16-card penalty is yours unless you stack again [NM-24, A28]']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nomercy.core.actions import Action, Challenge, Draw, Play, parse_action
from nomercy.core.cards import Card, Kind, parse_card
from nomercy.core.rules import RuleSet, make_rules

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


def rules_of(view: dict[str, Any]) -> RuleSet:
    """The rule set the view's game plays (its preset and options)."""
    info = view["rules"]
    return make_rules(info["preset"], info.get("options") or {})


def _cite(ids: Sequence[str]) -> str:
    return f" [{', '.join(ids)}]"


def _active(view: dict[str, Any]) -> list[int]:
    return [p["seat"] for p in view["players"] if not p["out"]]


def _two_player(view: dict[str, Any], rules: RuleSet) -> bool:
    """Whether the two-player rules apply now (A29: active or initial players)."""
    if rules.two_player_basis == "initial":
        return len(view["players"]) == 2
    return len(_active(view)) == 2


def _next_active(view: dict[str, Any], seat: int, direction: int) -> int:
    n = len(view["players"])
    q = (seat + direction) % n
    while view["players"][q]["out"]:
        q = (q + direction) % n
    return q


def _mercy_limit(rules: RuleSet) -> int | None:
    return rules.mercy_threshold if rules.mercy_enabled else None


def _stack_answers(hand: Sequence[Card], last: int) -> bool:
    """Whether ``hand`` holds a Draw Card of value >= ``last`` (NM-18, the default threshold)."""
    return any(c.draw_value >= last and c.draw_value > 0 for c in hand)


def consequences(action: Action, view: dict[str, Any]) -> list[Advice]:
    """What ``action`` (by the view's seat) will do that the player may not expect.

    - a Wild Reverse +4 with two players makes its player the target (NM-24; in a stack A28),
      and says so when the player then cannot stack again and the penalty knocks them out;
    - with three or more, it names who the reversed penalty hits;
    - taking a penalty (or drawing at one card below the limit) that reaches the Mercy limit
      knocks the player out (NM-33);
    - a 7 that leaves its player with a larger hand (NM-31); a 0 that passes every hand on
      and what the player receives (NM-29); a Discard All's other cards (NM-27);
    - a challenge of a Wild +4 that fails costs the challenger the penalty and 2 more (CL-8).

    A play of the player's last card ends the hand, so it has no such consequences.
    """
    rules = rules_of(view)
    seat = view["seat"]
    me = view["players"][seat]
    size = int(me["hand_size"])
    limit = _mercy_limit(rules)
    pending = view.get("pending") or None
    stacking = pending is not None and view.get("phase") == "stack_or_absorb"
    out: list[Advice] = []
    if isinstance(action, Challenge) and pending is not None:
        total = int(pending["total"])
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
            total = int(pending["total"])
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
    hand = [parse_card(c) for c in view["hand"]]
    rest = list(hand)
    if card in rest:
        rest.remove(card)
    no_mercy = rules.preset == "no-mercy"
    if card.kind is Kind.WILD_REVERSE_DRAW_FOUR:
        total = (int(pending["total"]) if stacking and pending else 0) + card.draw_value
        if _two_player(view, rules) and rules.two_player_rules:
            if stacking and rules.wrd4_two_player_in_stack != "self":
                return out
            ids = ["NM-24", "A28"] if stacking else ["NM-24"]
            if stacking:
                text = f"you become the target: the whole {total}-card penalty is yours"
            else:
                text = f"you become the target of its {total}-card penalty"
            text += " unless you stack again"
            kind = "self_target_stack" if stacking else "self_target"
            out.append(Advice(kind, text + _cite(ids), tuple(ids), {"total": total}))
            after = size - 1 + total
            if limit is not None and after >= limit and not _stack_answers(rest, card.draw_value):
                out.append(
                    Advice(
                        "self_target_knocks_out",
                        f"you hold no card to stack again: taking {total} reaches the "
                        f"{limit}-card Mercy limit and knocks you out" + _cite(["NM-33"]),
                        ("NM-33",),
                        {"total": total, "limit": limit},
                    )
                )
        else:
            target = _next_active(view, seat, -int(view["direction"]))
            name = view["players"][target]["name"]
            out.append(
                Advice(
                    "reverse_target",
                    f"play reverses: {name} (before you) becomes the target of {total}"
                    + _cite(["NM-24"]),
                    ("NM-24",),
                    {"target": target, "name": name, "total": total},
                )
            )
        return out
    sevens_zeros = no_mercy or rules.classic_seven_zero
    if card.kind is Kind.NUMBER and card.number == 7 and action.target is not None:
        target = view["players"][action.target]
        theirs = int(target["hand_size"])
        if sevens_zeros and theirs > size - 1:
            out.append(
                Advice(
                    "swap_grows",
                    f"this 7 gives you a {theirs}-card hand ({target['name']} gets your "
                    f"{size - 1})" + _cite(["NM-31"]),
                    ("NM-31",),
                    {"size": theirs, "name": target["name"], "given": size - 1},
                )
            )
    elif card.kind is Kind.NUMBER and card.number == 0 and sevens_zeros:
        giver = _next_active(view, seat, -int(view["direction"]))
        if giver != seat:
            p = view["players"][giver]
            got = int(p["hand_size"])
            cards = "only card" if got == 1 else f"{got} cards"
            out.append(
                Advice(
                    "zero_pass",
                    f"this 0 passes every hand on: you get {p['name']}'s {cards}"
                    + _cite(["NM-29"]),
                    ("NM-29",),
                    {"name": p["name"], "size": int(p["hand_size"])},
                )
            )
    elif card.kind is Kind.DISCARD_ALL and not stacking and no_mercy:
        same = [c for c in rest if c.colour is card.colour]
        if same and rules.discard_all_mode == "bury_no_effects":
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


def draw_refusal(view: dict[str, Any], legal: Sequence[Action]) -> Advice | None:
    """Why the view's seat cannot draw now, or ``None`` when drawing is on offer."""
    if any(isinstance(a, Draw) for a in legal):
        return None
    seat = view["seat"]
    to_act = view["to_act"]
    if to_act is None:
        return Advice("over", "the game is over", ())
    if view["players"][seat]["out"]:
        return Advice("out", "you are out of this hand" + _cite(["NM-34"]), ("NM-34",))
    if to_act != seat:
        name = view["players"][to_act]["name"]
        return Advice("not_your_turn", f"it is {name}'s turn, not yours", (), {"name": name})
    phase = view["phase"]
    rules = rules_of(view)
    if phase == "play":
        ids = ["NM-8", "A03"] if rules.preset == "no-mercy" else ["CL-5"]
        return Advice(
            "must_play",
            "you hold a playable card, and a player who can play must play (drawing instead "
            "is not allowed with these rules)" + _cite(ids),
            tuple(ids),
        )
    if phase in ("choose_colour", "roulette_colour"):
        ids = ["NM-30"] if phase == "roulette_colour" else ["NM-14"]
        return Advice("name_colour", "first name a colour" + _cite(ids), tuple(ids))
    if phase == "play_drawn":
        ids = ["NM-9", "A02"] if rules.preset == "no-mercy" else ["CL-5"]
        return Advice(
            "play_drawn",
            "you have drawn already: play the drawn card (or pass, if the rules allow)"
            + _cite(ids),
            tuple(ids),
        )
    if phase in ("discard_all_top", "discard_all_subset"):
        return Advice(
            "finish_discard_all",
            "first finish the Discard All (play or pass)" + _cite(["A09"]),
            ("A09",),
        )
    return Advice("not_now", "drawing is not an action of this moment", ())


def advice_for(actions: Sequence[Action | str], view: dict[str, Any]) -> dict[str, list[Advice]]:
    """Every action's consequences, by notation (only actions that have some)."""
    out: dict[str, list[Advice]] = {}
    for a in actions:
        action = parse_action(a, view["seat"]) if isinstance(a, str) else a
        found = consequences(action, view)
        if found:
            out[str(action)] = found
    return out
