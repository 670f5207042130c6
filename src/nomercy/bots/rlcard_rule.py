"""RLCard's rule-based UNO agent (``uno-rule-v1``) as a bot: an outside anchor for strength.

RLCard (Zha et al., 2019; the ``bench`` extra pins ``rlcard==1.2.0``) ships a rule-based
agent for its own classic UNO, ``rlcard.models.uno_rule_models.UNORuleAgentV1``. This
adapter lets it play our **classic** preset through the bot protocol, giving it exactly
what RLCard's environment would give it and nothing else:

- its ``raw_obs``: its hand, the ``target`` (the top card, a wild shown in the active
  colour), the ``played_cards`` (our discard pile), every seat's card count, the number of
  players and the seat to act, all in RLCard's card strings (``r-5``, ``g-skip``,
  ``b-reverse``, ``y-draw_2``, ``r-wild``, ``r-wild_draw_4``), read from our view only;
- its ``raw_legal_actions``: our legal plays mapped to those strings under RLCard's own
  legality, which the agent was written for: a Wild +4 is offered only when no other card
  can be played, and ``draw`` only when no card can be played (our classic rules also allow
  drawing with a playable card, CL-5, and an unrestricted Wild +4 under a challenge, CL-8;
  offering those would make the agent draw or throw its Wild +4 at every turn, which it
  never does in RLCard). A wild's colour is part of the action (``g-wild``).

What RLCard's game decides without asking the agent is done the way RLCard does it: a
drawn card that can be played is played (RLCard plays it at once; a drawn wild's colour is
then the agent's choice among the four, as for any wild), a penalty is taken (RLCard has no
stacking and no challenge, CL-8), UNO is always called (RLCard has no UNO call, so it can
never be caught, NM-37/CL-11) and nobody is caught, and an opening wild's colour (CL-3) is
drawn at random. The agent draws its random choices from numpy's global generator; the
adapter seeds that generator from its own ``random.Random(seed)`` for each decision and
restores its state afterwards, so a seed gives the same games and nothing else is disturbed.

Only the classic preset is supported: RLCard's agent knows none of No Mercy's cards.
"""

from __future__ import annotations

import random
from typing import Any

from nomercy.core.actions import Action, CallUno, Draw, Pass, Play
from nomercy.core.base import Phase
from nomercy.core.cards import Card, Kind
from nomercy.core.views import PlayerView

__all__ = ["RLCardRuleBot", "rlcard_action", "rlcard_card", "rlcard_state"]

_TRAITS = {
    Kind.SKIP: "skip",
    Kind.REVERSE: "reverse",
    Kind.DRAW_TWO: "draw_2",
    Kind.WILD: "wild",
    Kind.WILD_DRAW_FOUR: "wild_draw_4",
}


def _missing() -> ImportError:
    return ImportError(
        "the rlcard-rule bot needs RLCard: pip install 'rlcard==1.2.0' "
        "(or this package's bench extra, pip install -e '.[bench]')"
    )


def rlcard_card(card: Card, colour: str | None = None) -> str:
    """RLCard's string for ``card`` (a wild in ``colour``, a letter ``r``/``y``/``g``/``b``).

    A wild in hand has no colour in our game; RLCard's deck paints each wild a colour that
    its agent ignores (it filters wilds out before counting colours), so ``r`` is used.

    Raises:
        ValueError: a card RLCard's classic deck does not have (No Mercy cards).
    """
    if card.is_number:
        trait = str(card.number)
    else:
        trait = _TRAITS.get(card.kind, "")
        if not trait:
            raise ValueError(f"RLCard's UNO has no card like {card.code}: classic preset only")
    if card.colour is not None:
        return f"{card.colour.value.lower()}-{trait}"
    return f"{(colour or 'r').lower()}-{trait}"


def rlcard_action(action: Play) -> str:
    """RLCard's action string for a play (a wild carries the colour it names)."""
    colour = action.colour.value if action.colour is not None else None
    return rlcard_card(action.card, colour)


def rlcard_state(view: PlayerView, legal: list[Action]) -> tuple[dict[str, Any], list[str]]:
    """The ``raw_obs`` and ``raw_legal_actions`` RLCard would give the agent in ``view``.

    Raises:
        ValueError: the view is not of the classic preset.
    """
    if not view.rules.is_classic:
        raise ValueError("the rlcard-rule bot plays the classic preset only")
    hand = [rlcard_card(card) for card in view.hand]
    top = view.top if view.top is not None else view.discard[-1]
    target = rlcard_card(top, view.colour.value if view.colour is not None else None)
    played = [rlcard_card(card) for card in view.discard]
    plays = [a for a in legal if isinstance(a, Play) and not a.jump]
    others = [a for a in plays if a.card.kind is not Kind.WILD_DRAW_FOUR]
    offered = others or plays  # RLCard: a Wild +4 only when nothing else can be played
    actions = list(dict.fromkeys(rlcard_action(a) for a in offered))
    if not actions and any(isinstance(a, Draw) for a in legal):
        actions = ["draw"]
    raw_obs = {
        "hand": hand,
        "target": target,
        "played_cards": played,
        "legal_actions": list(actions),
        "num_cards": [p.hand_size for p in view.players],
        "num_players": len(view.players),
        "current_player": view.seat,
    }
    return raw_obs, actions


class RLCardRuleBot:
    """RLCard's ``uno-rule-v1`` agent on the classic preset (see the module docstring).

    Raises:
        ImportError: RLCard is not installed (the message says how to install it).
    """

    name = "rlcard-rule"
    #: The presets it plays (RLCard's UNO is the classic game): the apps refuse the others
    #: before a game starts (nomercy.bots.spec.check_preset).
    presets = ("classic",)
    #: It reads the position only, never the event history (nomercy.bots.driver).
    view_mode = "no_history"

    def __init__(self, seed: int = 0) -> None:
        try:
            import numpy
            from rlcard.models.uno_rule_models import UNORuleAgentV1
        except ImportError:
            raise _missing() from None
        self.seed = seed
        self._rng = random.Random(seed)
        self._np_random = numpy.random
        self._agent = UNORuleAgentV1()

    def __repr__(self) -> str:
        return f"RLCardRuleBot(seed={self.seed})"

    def choose_action(self, view: PlayerView, legal: list[Action]) -> Action:
        """The agent's choice, mapped back to one of ``legal``."""
        if not legal:
            raise ValueError("choose_action needs at least one legal action")
        for action in legal:
            if isinstance(action, CallUno):
                return action  # RLCard has no UNO call: it never forgets one
        phase = view.phase
        if phase is Phase.CHOOSE_COLOUR:
            # CL-3: RLCard's game paints an opening wild a random colour itself.
            options = [a for a in legal if not isinstance(a, Draw | Pass)]
            return options[self._rng.randrange(len(options))]
        if phase is Phase.STACK_OR_ABSORB:
            for action in legal:
                if isinstance(action, Draw):
                    return action  # RLCard applies a penalty at once: no stack, no challenge
        raw_obs, actions = rlcard_state(view, legal)
        if not actions:
            for action in legal:
                if isinstance(action, Pass | Draw):
                    return action
            return legal[0]
        choice = self._step(raw_obs, actions)
        if choice == "draw":
            return next(a for a in legal if isinstance(a, Draw))
        matches = [a for a in legal if isinstance(a, Play) and not a.jump]
        matches = [a for a in matches if rlcard_action(a) == choice]
        if not matches:
            raise RuntimeError(f"RLCard's agent chose {choice!r}, which is not among {actions}")
        with_uno = [a for a in matches if a.uno]
        return with_uno[0] if with_uno else matches[0]

    def choose_out_of_turn(self, view: PlayerView, legal: list[Action]) -> Action | None:
        """Call UNO when offered (RLCard has no UNO call to forget); never catch or jump in."""
        for action in legal:
            if isinstance(action, CallUno):
                return action
        return None

    def _step(self, raw_obs: dict[str, Any], actions: list[str]) -> str:
        np_random = self._np_random
        saved = np_random.get_state()
        np_random.seed(self._rng.randrange(1 << 32))
        try:
            choice = self._agent.step({"raw_obs": raw_obs, "raw_legal_actions": list(actions)})
        finally:
            np_random.set_state(saved)
        return str(choice)
