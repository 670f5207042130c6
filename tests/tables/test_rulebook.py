"""The rule text the apps show (nomercy.tables.rulebook): one source, every cited id found."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from nomercy import new_game
from nomercy.core.rules import OPTIONS
from nomercy.tables.rulebook import RULE_ID, UnknownRuleError, cited, rule, rule_ids, source

ROOT = Path(__file__).resolve().parents[2]


def test_docs_rules_md_is_the_package_copy() -> None:
    # One source: the package's RULES.md; docs/RULES.md is its copy (scripts/sync-rules).
    docs = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    note, _, body = docs.partition("\n")
    assert note.startswith("<!-- A copy of src/nomercy/tables/data/RULES.md")
    assert body == source(), "docs/RULES.md differs from the package's: run scripts/sync-rules"


def test_the_rule_text_ships_as_package_data() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"tables/data/*.md"' in pyproject
    assert source().startswith("# RULES.md")


def test_every_numbered_rule_option_and_example_has_a_text() -> None:
    ids = rule_ids()
    assert [i for i in ids if i.startswith("NM-")] == [f"NM-{n}" for n in range(1, 42)]
    assert [i for i in ids if i.startswith("CL-")] == [f"CL-{n}" for n in range(1, 15)]
    assert [i for i in ids if i.startswith("EX-")] == [f"EX-{n:02}" for n in range(1, 32)]
    assert {f"A{n:02}" for n in range(1, 41)} <= set(ids)
    assert {f"C{n:02}" for n in range(1, 9)} <= set(ids)
    for rid in ids:
        assert rule(rid).text.strip(), rid


def test_every_option_s_rule_id_has_a_text() -> None:
    for option in OPTIONS:
        for rid in RULE_ID.findall(option.rule):
            assert rule(rid).text, (option.name, rid)


def test_every_id_an_event_cites_has_a_text() -> None:
    # The ids seeded games cite (both presets), each found in RULES.md.
    seen: set[str] = set()
    for preset in ("no-mercy", "classic"):
        for seed in range(40):
            game = new_game(3, rules=preset, seed=seed)
            rng = random.Random(seed)
            for event in game.opening_events:
                seen.update(cited(event.text))
            for _ in range(400):
                if game.is_over:
                    break
                seat = game.to_act
                assert seat is not None
                for event in game.apply(rng.choice(game.legal_actions(seat))):
                    seen.update(cited(event.text))
    assert len(seen) >= 15 and {"NM-4", "NM-12", "CL-5"} <= seen, sorted(seen)
    for rid in seen:
        assert rule(rid).text, rid


def test_nm30_the_roulette_rule_reads_as_in_rules_md() -> None:
    r = rule("NM-30")
    assert (r.id, r.title, r.section) == ("NM-30", "Wild Color Roulette", "E. Card effects")
    assert "v names one of red, yellow, green or blue" in r.plain
    assert "**" not in r.plain and "`" not in r.plain
    assert r.to_json()["plain"] == r.plain


def test_a_rule_without_a_bold_title_is_named_by_its_first_clause() -> None:
    assert rule("NM-3").title == "The remaining cards form the face-down draw pile"
    assert rule("NM-3").text.startswith("The remaining cards")


def test_options_and_examples_read_from_their_tables_and_sections() -> None:
    a24 = rule("a24")
    assert a24.title == "Mercy timing during a Roulette reveal"
    assert "Default: " in a24.plain and "Option: " in a24.plain
    assert rule(" C04 ").title == "Common house rules"
    ex = rule("EX-19")
    assert ex.title.startswith("Wild Color Roulette")
    assert ex.section.startswith("4. Worked examples")
    cl = rule("CL-3")
    assert "| Reverse |" in cl.text  # the item's table comes with it


@pytest.mark.parametrize("bad", ["NM-99", "ZZ-1", "", "NM-30; drop table"])
def test_an_unknown_rule_is_a_clear_error(bad: str) -> None:
    with pytest.raises(UnknownRuleError, match=r"no rule .* in RULES.md: ids look like NM-30"):
        rule(bad)


def test_cited_finds_ids_in_order_once() -> None:
    assert cited("P1 reveals 2 ... [NM-30, A24] then [NM-30]") == ["NM-30", "A24"]
    assert cited("Hand 1: no rule here") == []
    assert re.fullmatch(RULE_ID, "CX-01")
