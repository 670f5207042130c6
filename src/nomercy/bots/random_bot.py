"""RandomBot: a uniform choice over the legal actions."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from nomercy.core.actions import Action
from nomercy.core.dealing import SeededChoice, seeded_choices
from nomercy.core.views import PlayerView

__all__ = ["RandomBot"]


class RandomBot:
    """Pick uniformly among the legal actions, with a private seeded generator.

    It never acts out of turn; UNO calls and catches are among its choices when it is to act.

    >>> from nomercy import new_game
    >>> g = new_game(2, seed=1)
    >>> bot = RandomBot(seed=7)
    >>> bot.choose_action(g.view(g.to_act), g.legal_actions()) in g.legal_actions()
    True
    """

    name = "random"
    #: It never reads the view, so the driver need not build one (nomercy.bots.driver).
    view_mode = "none"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        # random.Random(seed).choice, draw for draw, as one native call in the compiled core.
        self._choice = SeededChoice(seed)

    def reseed(self, seed: int) -> None:
        """Start over as ``RandomBot(seed=seed)`` would (its generator is its only state;
        :meth:`id_chooser` s made before keep drawing from it): what an env reusing its bots
        across episodes calls instead of building new ones."""
        self.seed = seed
        self._choice.reseed(seed)

    def choose_action(self, view: PlayerView | None, legal: list[Action]) -> Action:
        """A uniformly random element of ``legal``."""
        if not legal:
            raise ValueError("choose_action needs at least one legal action")
        # choice(seq) is seq[randbelow(len(seq))], exactly what randrange(len(seq)) indexed,
        # so the choices are unchanged, minus randrange's argument checks.
        return self._choice(legal)

    def choose_id(self, legal_ids: Sequence[int]) -> int:
        """The id :meth:`choose_action` would pick: legal ids come in the order of the legal
        actions (``Game.legal_ids``), so the same generator draws the same choice."""
        if not legal_ids:
            raise ValueError("choose_id needs at least one legal id")
        return self._choice(legal_ids)

    def id_chooser(self) -> Callable[[Sequence[int]], int]:
        """:meth:`choose_id` without its checks, as one call (the simulator's loop)."""
        return self._choice

    @staticmethod
    def id_choosers(seeds: Sequence[int]) -> list[Callable[[Sequence[int]], int]]:
        """``[RandomBot(seed).id_chooser() for seed in seeds]`` without the bots, their
        generators seeded two at a time (``seeded_choices``; cheaper compiled): the
        simulator's line-ups of random bots."""
        return list(seeded_choices(seeds))

    def __repr__(self) -> str:
        return f"RandomBot(seed={self.seed})"
