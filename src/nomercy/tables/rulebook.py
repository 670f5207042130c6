"""The rule text every interface shows: RULES.md, read by rule id.

The package holds the one source of the rules' text, ``nomercy/tables/data/RULES.md`` (package
data, so an installed ``nomercy`` has it); ``docs/RULES.md`` is its copy for readers of the
repository, kept identical by a test (``tests/tables/test_rulebook.py``). Events and warnings
cite ids (``[NM-30]``); :func:`rule` gives the text behind one:

- a numbered rule, ``NM-*`` (No Mercy, §2) or ``CL-*`` (classic, §5.1): its item with the
  lines under it;
- an option or reading, ``A*`` (§3) or ``C*`` (§5.2): its table row (the point, what the
  sources say, the default, the option);
- a worked example, ``EX-*`` (§4) or ``CX-*`` (§5.3): its section.

>>> r = rule("nm-30")
>>> r.id, r.title
('NM-30', 'Wild Color Roulette')
>>> "reveal" in r.plain
True
>>> cited("the colour is red [NM-30, A24]")
['NM-30', 'A24']
>>> card_rules("G7", "no-mercy")
('NM-31',)
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

from nomercy.core.cards import ALL_CODES, Kind, parse_card
from nomercy.core.errors import NoMercyError

__all__ = [
    "RULE_ID",
    "RuleText",
    "UnknownRuleError",
    "card_rules",
    "card_rules_table",
    "cited",
    "rule",
    "rule_ids",
    "source",
]

#: A rule id as the engine cites it: ``NM-30``, ``CL-8``, ``A24``, ``C04``, ``EX-19``, ``CX-01``.
RULE_ID = re.compile(r"\b(?:NM-\d{1,2}|CL-\d{1,2}|EX-\d{2}|CX-\d{2}|A\d{2}|C\d{2})\b")

_ITEM = re.compile(r"^- \*\*((?:NM|CL)-\d+)\.\s*(.*)$")
_ROW = re.compile(r"^\| ([AC]\d{2}) \|")
_EXAMPLE = re.compile(r"^#{3,4} ((?:EX|CX)-\d+): (.*)$")
_HEADING = re.compile(r"^#{2,4} ")


class UnknownRuleError(KeyError):
    """No rule has this id (the message names it)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown rule"


@dataclass(frozen=True, slots=True)
class RuleText:
    """One rule's text, as RULES.md gives it."""

    id: str
    """The rule's id (``"NM-30"``)."""
    title: str
    """Its short name: the bold lead of an item, an example's title, an option's point."""
    section: str
    """The heading it stands under (``"E. Card effects"``)."""
    text: str
    """Its text in RULES.md's Markdown (emphasis and code marks kept)."""

    @property
    def plain(self) -> str:
        """The text without Markdown marks (``**``, backticks), for a terminal or a page."""
        return _plain(self.text)

    def to_json(self) -> dict[str, str]:
        """The wire form (``GET /api/rules/{id}``): id, title, section, text and plain."""
        return {
            "id": self.id,
            "title": self.title,
            "section": self.section,
            "text": self.text,
            "plain": self.plain,
        }


def _plain(text: str) -> str:
    return re.sub(r"\*\*|`", "", text)


def source() -> str:
    """RULES.md's whole text (the package's copy, the one source)."""
    return resources.files("nomercy.tables").joinpath("data/RULES.md").read_text(encoding="utf-8")


def _lead(lead: str) -> tuple[str, str]:
    """An item's title and first line: its bold lead (``Wild Color Roulette** (wild): ...``
    gives ``Wild Color Roulette``), or, for an item with none (``** The remaining cards
    ...``), its first clause."""
    if lead.startswith("**"):
        text = lead[2:].strip()
        first = re.split(r"[.:;(]", _plain(text), maxsplit=1)[0].strip()
        return (first if len(first) <= 60 else first[:57].rstrip() + "..."), text
    head = lead.split("**", 1)[0] if "**" in lead else lead
    return _plain(head).strip().rstrip(".:").strip(), lead


@functools.cache
def _rules() -> dict[str, RuleText]:
    found: dict[str, RuleText] = {}
    lines = source().splitlines()
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        example = _EXAMPLE.match(line)
        if example:
            rid, title = example.groups()
            body, i = _until(lines, i + 1, lambda s: bool(_HEADING.match(s)))
            found[rid] = RuleText(rid, _plain(title).strip(), section, body)
            continue
        if _HEADING.match(line):
            section = _plain(line.lstrip("#")).strip()
            i += 1
            continue
        item = _ITEM.match(line)
        if item:
            rid, lead = item.groups()
            title, first = _lead(lead)
            # The item's lines: its own, then those indented under it (sub-items, a table).
            body, i = _until(lines, i + 1, lambda s: bool(s) and not s.startswith(" "))
            text = "\n".join([first, body]).strip()
            found.setdefault(rid, RuleText(rid, title, section, text))
            continue
        row = _ROW.match(line)
        if row:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rid, point, sources, default, option = (cells + [""] * 5)[:5]
            parts = [point, f"Sources: {sources}", f"Default: {default}"]
            if option and option != "–":
                parts.append(f"Option: {option}")
            found.setdefault(rid, RuleText(rid, _plain(point), section, "\n\n".join(parts)))
        i += 1
    return found


def _until(lines: list[str], start: int, stop: object) -> tuple[str, int]:
    """The lines from ``start`` up to the first that ``stop`` accepts (trailing blanks cut)."""
    end = start
    while end < len(lines) and not stop(lines[end]):  # type: ignore[operator]
        end += 1
    return "\n".join(lines[start:end]).strip("\n"), end


def rule_ids() -> tuple[str, ...]:
    """Every id RULES.md gives a text, in its order."""
    return tuple(_rules())


def rule(rule_id: str) -> RuleText:
    """The text of rule ``rule_id`` (case and surrounding spaces ignored: ``" nm-30"``).

    Raises:
        UnknownRuleError: RULES.md has no rule with that id.
    """
    key = rule_id.strip().upper()
    found = _rules().get(key)
    if found is None:
        shown = rule_id.strip()[:20]
        raise UnknownRuleError(
            f"no rule {shown!r} in RULES.md: ids look like NM-30, CL-8, A24, C04, EX-19"
        )
    return found


def cited(text: str) -> list[str]:
    """The rule ids ``text`` cites, in order, each once (``"... [NM-30, A24]"``)."""
    return list(dict.fromkeys(RULE_ID.findall(text)))


# What each card does, by rule set: the rules a card's own info shows (its effect first).
# No Mercy's numbers: 0 passes hands (NM-29), 7 swaps (NM-31), the others do nothing (NM-22).
_NO_MERCY_CARDS: dict[Kind, tuple[str, ...]] = {
    Kind.NUMBER: ("NM-22",),
    Kind.SKIP: ("NM-23",),
    Kind.REVERSE: ("NM-25",),
    Kind.DRAW_TWO: ("NM-28", "NM-18"),
    Kind.DRAW_FOUR: ("NM-28", "NM-13", "NM-18"),
    Kind.SKIP_EVERYONE: ("NM-26",),
    Kind.DISCARD_ALL: ("NM-27",),
    Kind.WILD_REVERSE_DRAW_FOUR: ("NM-24", "NM-18"),
    Kind.WILD_DRAW_SIX: ("NM-28", "NM-18"),
    Kind.WILD_DRAW_TEN: ("NM-28", "NM-18"),
    Kind.WILD_COLOUR_ROULETTE: ("NM-30", "NM-15"),
}
_NO_MERCY_NUMBERS = {0: ("NM-29",), 7: ("NM-31",)}
# Classic: every action card is CL-6; a Wild Draw Four may be challenged (CL-8).
_CLASSIC_CARDS: dict[Kind, tuple[str, ...]] = {
    Kind.NUMBER: ("CL-4",),
    Kind.SKIP: ("CL-6",),
    Kind.REVERSE: ("CL-6", "CL-12"),
    Kind.DRAW_TWO: ("CL-6", "CL-7"),
    Kind.WILD: ("CL-6",),
    Kind.WILD_DRAW_FOUR: ("CL-6", "CL-4", "CL-8"),
}


def card_rules(code: str, preset: str) -> tuple[str, ...]:
    """The rule ids that say what card ``code`` does under ``preset`` (``"no-mercy"`` or
    ``"classic"``), its effect first; ``()`` for a card the preset does not have.

    Raises:
        UnknownRuleError: ``code`` is no card code.
    """
    try:
        card = parse_card(code)
    except NoMercyError:
        raise UnknownRuleError(f"{code[:20]!r} is no card code (R7, G+2, W+6, WCR)") from None
    if preset == "classic":
        return _CLASSIC_CARDS.get(card.kind, ())
    if card.kind is Kind.NUMBER and card.number in _NO_MERCY_NUMBERS:
        return _NO_MERCY_NUMBERS[card.number]
    return _NO_MERCY_CARDS.get(card.kind, ())


def card_rules_table() -> dict[str, dict[str, list[str]]]:
    """:func:`card_rules` for every face code (``"7"``, ``"+2"``, ``"WCR"``) of each preset,
    for clients that look a card up themselves (``GET /api/rules``)."""
    table: dict[str, dict[str, list[str]]] = {}
    for preset in ("no-mercy", "classic"):
        faces: dict[str, list[str]] = {}
        for code in ALL_CODES:
            ids = card_rules(code, preset)
            if ids:
                faces.setdefault(parse_card(code).face, list(ids))
        table[preset] = faces
    return table
