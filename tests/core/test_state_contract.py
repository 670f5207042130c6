"""The core's modules read a game through its documented state contract (issue 44).

``Game``'s docstring lists the fields and methods that the modules working on a game read
(docs/architecture.md, "The state contract"); a ``_``-prefixed attribute of a game read from
another module is a private read. The ones left are named here, each with its count, so a
new private read fails this test and a removed one shrinks the list.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import nomercy.core
from nomercy import new_game

CORE = Path(nomercy.core.__file__).parent
#: A private attribute read on a game: the core's modules name a game ``g``, ``game`` or
#: (a copy made by the re-deal) ``t``.
PRIVATE = re.compile(r"\b(?:g|game|t)\.(_[a-z]\w*)")

#: The private reads that remain, by module: the draw pile's storage and the engine's own
#: procedures that dealing.py and positions.py run for it, and the re-deal's public log.
REMAINING = {
    "dealing.py": {
        "_emit": 14,
        "_draw": 11,
        "_shuffle": 3,
        "_reshuffle": 1,
        "_events": 1,
        "_draw_cards": 1,
        "_clear_pending": 1,
    },
    "positions.py": {"_draw": 2, "_shuffle": 1},
    "redeal.py": {"_draw": 4, "_public": 1},
}


def _private_reads(source: str) -> Counter[str]:
    code = "\n".join(line.split("#")[0] for line in source.splitlines())
    # Docstrings name the engine's methods (``Game._resolve``): only code counts.
    code = re.sub(r'"""(?:.|\n)*?"""', "", code)
    return Counter(PRIVATE.findall(code))


def test_the_core_reads_games_through_the_contract() -> None:
    found = {
        path.name: dict(reads)
        for path in sorted(CORE.glob("*.py"))
        if path.name != "game.py" and (reads := _private_reads(path.read_text(encoding="utf-8")))
    }
    assert found == REMAINING


def test_the_contract_names_exist_on_a_game() -> None:
    # Every name the docstring promises is an attribute (or method) of a game.
    game = new_game(3, seed=1)
    doc = (CORE / "game.py").read_text(encoding="utf-8")  # the compiled class has no __doc__
    section = doc.split("**The state contract.**")[1].split(">>>")[0]
    names = set(re.findall(r"``([a-z][a-z_]*)``", section))
    names |= set(re.findall(r":(?:meth|attr):`(\w+)`", section))
    modules = {"legality", "dealing", "positions", "views", "redeal", "diagnose", "playout"}
    names -= modules | {"decisions"}
    missing = sorted(name for name in names if not hasattr(game, name))
    assert not missing, missing
    assert len(names) > 50


def test_the_old_private_reads_are_caught() -> None:
    old = "two = g._two_player()\nif g._seven_zero and g._can_stack:\n    s = g._hand_start"
    assert _private_reads(old) == Counter(
        {"_two_player": 1, "_seven_zero": 1, "_can_stack": 1, "_hand_start": 1}
    )
