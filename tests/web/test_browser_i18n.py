"""The browser client's translations (no browser needed).

Every language file has every key of the English one, with the same placeholders, and every
event kind the engine emits (``_emit(EventKind.X, ...)`` in core/game.py) has an English template.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import nomercy.core.game
from nomercy.core.events import EventKind
from nomercy.core.rules import OPTIONS

STATIC = Path(__file__).resolve().parents[2] / "src" / "nomercy" / "web" / "static"
I18N = STATIC / "i18n"
LANGUAGES = ["en", "fi", "ru", "de", "tr"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _load(code: str) -> dict[str, str]:
    data = json.loads((I18N / f"{code}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _emitted_kinds() -> set[str]:
    """The first argument of every ``self._emit(...)`` call in the engine."""
    # The source file beside the package's __init__ (game.__file__ is the extension when the
    # core runs compiled).
    source = Path(nomercy.core.__file__).with_name("game.py").read_text(encoding="utf-8")
    kinds = set()
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "_emit"
        ):
            first = node.args[0]
            # EventKind.PLAY (under any alias of EventKind, e.g. EK.PLAY)
            if isinstance(first, ast.Attribute) and first.attr in EventKind.__members__:
                kinds.add(EventKind[first.attr].value)
                continue
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                f"line {node.lineno}: an event kind that is neither EventKind.X nor a string"
            )
            kinds.add(first.value)
    return kinds


def test_language_files_are_the_supported_languages() -> None:
    assert sorted(p.stem for p in I18N.glob("*.json")) == sorted(LANGUAGES)
    js = (STATIC / "js" / "i18n.js").read_text(encoding="utf-8")
    assert 'LANGUAGES = ["en", "fi", "ru", "de", "tr"]' in js


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_every_language_has_every_english_key(code: str) -> None:
    en, other = _load("en"), _load(code)
    missing = sorted(set(en) - set(other))
    extra = sorted(set(other) - set(en))
    assert not missing, f"{code}.json lacks {missing}"
    assert not extra, f"{code}.json has keys English lacks: {extra}"
    for key, text in other.items():
        assert isinstance(text, str) and text.strip(), f"{code}.json {key!r} is empty"


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_translations_use_the_english_placeholders(code: str) -> None:
    en, other = _load("en"), _load(code)
    for key, text in en.items():
        want = set(PLACEHOLDER.findall(text))
        got = set(PLACEHOLDER.findall(other[key]))
        assert got == want, (
            f"{code}.json {key!r}: placeholders {sorted(got)}, English has {sorted(want)}"
        )


def test_every_engine_event_kind_has_an_english_template() -> None:
    en = _load("en")
    kinds = _emitted_kinds()
    assert {"play", "draw", "absorb", "knockout", "hand_end", "uno"} <= kinds
    missing = sorted(k for k in kinds if f"ev.{k}" not in en)
    assert not missing, f"en.json has no template for event kinds {missing}"


def test_every_variant_the_client_picks_has_an_english_template() -> None:
    """events.js names its template keys as string literals: each must exist in en.json."""
    en = _load("en")
    js = (STATIC / "js" / "events.js").read_text(encoding="utf-8")
    keys = set(re.findall(r'"(ev\.[a-z_]+(?:\.[a-z_]+)*)"', js))
    assert len(keys) > 30
    missing = sorted(k for k in keys if k not in en)
    assert not missing, f"events.js uses templates en.json lacks: {missing}"


def test_every_ui_key_the_pages_use_exists() -> None:
    en = _load("en")
    used: set[str] = set()
    for js in (STATIC / "js").glob("*.js"):
        used |= set(re.findall(r'\bt\("([\w.+-]+)"', js.read_text(encoding="utf-8")))
    for html in STATIC.glob("*.html"):
        used |= set(re.findall(r'data-i18n(?:-\w+)?="([^"]+)"', html.read_text(encoding="utf-8")))
    assert len(used) > 100
    missing = sorted(k for k in used if k not in en)
    assert not missing, f"keys used by the pages but missing from en.json: {missing}"


def test_option_explanations_are_the_engines_and_translated() -> None:
    """en.json's opt.<name> is the engine's help text (so it cannot drift), for every option."""
    en = _load("en")
    for spec in OPTIONS:
        assert en.get(f"opt.{spec.name}") == spec.help, spec.name
    names = {spec.name for spec in OPTIONS}
    stale = sorted(k for k in en if k.startswith("opt.") and k[4:] not in names)
    assert not stale, f"en.json explains options the engine no longer has: {stale}"


def test_every_option_and_choice_value_has_a_human_label() -> None:
    """The lobby shows labels, never raw names or values: optlabel.NAME, optval.NAME.VALUE."""
    en = _load("en")
    for spec in OPTIONS:
        assert en.get(f"optlabel.{spec.name}"), spec.name
        if spec.kind == "choice":
            for value in spec.values or ():
                assert en.get(f"optval.{spec.name}.{value}"), (spec.name, value)
    assert en["optval.true"] and en["optval.false"]


def test_every_advice_kind_has_a_template() -> None:
    """The server's advice kinds (tables/advice.py) are translated: advice.KIND."""
    source = (STATIC.parents[1] / "tables" / "advice.py").read_text(encoding="utf-8")
    kinds = set(re.findall(r'Advice\(\s*"(\w+)"', source)) | {"self_target", "self_target_stack"}
    consequences = {
        k
        for k in kinds
        if k
        not in (
            "must_play",
            "not_your_turn",
            "name_colour",
            "play_drawn",
            "finish_discard_all",
            "out",
            "over",
            "not_now",
        )
    }
    en = _load("en")
    missing = sorted(k for k in consequences if f"advice.{k}" not in en)
    assert not missing, f"en.json has no template for advice kinds {missing}"


def test_every_coach_reason_has_its_english_template() -> None:
    """The coach's reason kinds (tables/coach.py REASONS) are translated: coach.KIND, and the
    English template is the server's own (so the two cannot drift)."""
    from nomercy.tables.coach import REASONS

    en = _load("en")
    for kind, template in REASONS.items():
        assert en.get(f"coach.{kind}") == template, kind
    stale = sorted(
        k
        for k in en
        if k.startswith("coach.")
        and k[6:] not in REASONS
        and k[6:] not in ("thinking", "title", "chance", "others")
    )
    assert not stale, f"en.json has coach templates for no reason kind: {stale}"
