"""Each rule fact is derived once per rule set (``RuleSet.facts``, issue 44) and read there.

Whether 7-0 is in force, the Mercy limit, whether a penalty may be stacked and on what
floor (A04), which wild draw cards are restricted, what a draw proves about colours and the
map from No Mercy rule ids to classic ones are worked out in ``nomercy/core/rules.py`` only.
Every other module, the core's included, reads :class:`~nomercy.core.rules.RuleFacts` or
:data:`~nomercy.core.rules.CLASSIC_RULE_IDS`; the scan below fails on a restatement, and the
old expressions it replaced are checked to be caught.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import nomercy
from nomercy.core.rules import CLASSIC_RULE_IDS, RuleFacts, make_rules

SRC = Path(nomercy.__file__).parent
HOME = SRC / "core" / "rules.py"
MODULES = sorted(p for p in SRC.rglob("*.py") if p != HOME and "_compiled" not in p.parts)

#: The options each fact is derived from, read outside rules.py: a restated fact.
FORBIDDEN = {
    "7-0 in force (RuleFacts.seven_zero)": re.compile(r"\.classic_seven_zero\b"),
    "the Mercy limit (RuleFacts.mercy_limit)": re.compile(r"\.mercy_(threshold|enabled)\b"),
    "stacking allowed (RuleFacts.can_stack)": re.compile(r"\.classic_stacking\b"),
    "the stack floor (RuleFacts.stack_floor, A04)": re.compile(
        r"\.stack_threshold\b(?!\s*\()|stack_threshold\s*[!=]="
    ),
    "restricted wild draws (RuleFacts.wild_draw_restricted)": re.compile(
        r"\.(wd4_restriction|wild_draw_restriction)\b"
    ),
    "what a draw proves (RuleFacts.draw_proves_gap)": re.compile(
        r"voluntary_draw\s*==\s*[\"']off[\"']|no_playable_action\s*!=\s*[\"']draw_one_pass"
    ),
    "a map of rule ids to classic ones (CLASSIC_RULE_IDS)": re.compile(
        r"[\"']NM-\d+[\"']\s*:\s*[\"'](CL-\d+|C\d\d)[\"']"
    ),
}


def restatements(source: str) -> list[str]:
    """The rule facts ``source`` works out again instead of reading ``RuleSet.facts``."""
    code = "\n".join(line.split("#")[0] for line in source.splitlines())  # not comments
    return [
        f"{what}: line {code.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
        for what, pattern in FORBIDDEN.items()
        for m in pattern.finditer(code)
    ]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_restates_a_rule_fact(path: Path) -> None:
    assert not restatements(path.read_text(encoding="utf-8"))


#: The restatements as they stood before RuleFacts (commit 1fc7676): each must be caught.
OLD = [
    # game.py (twice), legality.py, playout.py, heuristic_bot.py, advice.py: 7-0
    "        self._seven_zero = not self._classic or r.classic_seven_zero  # NM-29, NM-31, C04",
    "    seven_zero = not r.is_classic or r.classic_seven_zero",
    "    return mercy, not rules.is_classic or rules.classic_seven_zero",
    "        seven_zero = not ctx.rules.is_classic or ctx.rules.classic_seven_zero",
    "    sevens_zeros = no_mercy or rules.classic_seven_zero",
    # game.py, playout.py, advice.py, observations.py, fast.py, views.py: the Mercy limit
    "        self._mercy_limit = r.mercy_threshold if r.mercy_enabled else 0",
    "    mercy = rules.mercy_threshold if rules.mercy_enabled else _NO_MERCY",
    "    return rules.mercy_threshold if rules.mercy_enabled else None",
    "    threshold = float(rules.mercy_threshold) if rules.mercy_enabled else 0.0",
    # game.py, legality.py, diagnose.py: the A04 floor
    '        self._stack_on_total = r.stack_threshold == "running_total"  # A04',
    '    return total + value if rules.stack_threshold == "running_total" else value',
    '            g.pending_total if g.rules.stack_threshold == "running_total" else g.pending_last',
    # game.py, diagnose.py: stacking in classic
    "        self._can_stack = not self._classic or r.classic_stacking  # NM-18, C04",
    "        if g._classic and not g.rules.classic_stacking:",
    # legality.py, redeal.py: restricted wild draws; redeal.py: what a draw proves
    "        (rules.is_classic and rules.wd4_restriction and not rules.wd4_challenge)",
    "        or (not rules.is_classic and rules.wild_draw_restriction)",
    '    return rules.voluntary_draw == "off" and rules.no_playable_action != "draw_one_pass"',
    '    infer = rules.voluntary_draw == "off"',
    # events.py and coach.py: two maps of rule ids that disagreed on NM-9
    '_CLASSIC_IDS: Final = {\n    "NM-2": "CL-2",\n    "NM-9": "C04",\n}',
    '_CLASSIC_RULES = {"NM-9": "CL-5", "NM-14": "CL-6", "NM-17": "CL-6", "NM-37": "CL-9"}',
]


@pytest.mark.parametrize("snippet", OLD)
def test_the_old_restatements_are_caught(snippet: str) -> None:
    assert restatements(snippet)


def test_the_facts_follow_the_options() -> None:
    nm, cl = make_rules("no-mercy"), make_rules("classic")
    assert nm.facts == RuleFacts(True, 25, False, True, False, False, True)
    assert cl.facts == RuleFacts(False, 0, False, False, False, False, False)
    house = make_rules("classic", {"classic_seven_zero": True, "classic_stacking": True})
    assert house.facts.seven_zero and house.facts.can_stack
    off = make_rules("no-mercy", {"mercy_enabled": False, "stack_threshold": "running_total"})
    assert off.facts.mercy_limit == 0 and off.facts.stack_floor(10, 4) == 10
    assert nm.facts.stack_floor(10, 4) == 4
    late = make_rules("no-mercy", {"mercy_timing": "end_of_turn"})
    assert late.facts.mercy_deferred and not nm.facts.mercy_deferred
    assert make_rules("no-mercy", {"wild_draw_restriction": True}).facts.wild_draw_restricted
    strict = make_rules("classic", {"wd4_restriction": True, "wd4_challenge": False})
    assert strict.facts.wild_draw_restricted  # CL-4 without the CL-8 challenge
    assert not make_rules("classic", {"wd4_restriction": True}).facts.wild_draw_restricted
    assert not make_rules("no-mercy", {"voluntary_draw": "draw_one_may_pass"}).facts.draw_proves_gap
    assert not make_rules("no-mercy", {"no_playable_action": "draw_one_pass"}).facts.draw_proves_gap


def test_classic_cites_its_own_drawing_rule() -> None:
    # NM-9 is No Mercy's drawing rule; classic's is CL-5 (a classic draw-until-playable, the
    # C04 house rule, is cited as C04 by the engine itself).
    assert CLASSIC_RULE_IDS["NM-9"] == "CL-5"
    game = nomercy.new_game(
        2, rules="classic", options={"classic_draw_until_playable": True}, seed=3
    )
    texts = []
    while not game.is_over and len(game.history) < 400:
        before = len(game.log)
        game.apply(game.legal_actions()[0])  # a play if any: a draw only when none is playable
        texts += [e.text for e in game.log[before:]]
    until = [t for t in texts if re.search(r" draws \d+ .*(may play|must play|looking for)", t)]
    assert until and all(t.endswith("[C04]") for t in until), until
