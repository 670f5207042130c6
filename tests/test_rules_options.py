"""The choice options' accepted values live in one place: the ``Literal`` types of
``core/rules.py``, which annotate the RuleSet fields and give the OptionSpec values."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from nomercy.core import rules
from nomercy.core.errors import RuleSetError

HINTS = typing.get_type_hints(rules.RuleSet)
CHOICES = [spec for spec in rules.OPTIONS if spec.kind == "choice"]


def test_every_choice_option_is_a_literal_field() -> None:
    assert len(CHOICES) == 32
    for spec in CHOICES:
        assert typing.get_origin(HINTS[spec.name]) is typing.Literal, spec.name


@pytest.mark.parametrize("spec", CHOICES, ids=lambda spec: spec.name)
def test_literal_and_option_values_agree(spec: rules.OptionSpec) -> None:
    assert typing.get_args(HINTS[spec.name]) == spec.values
    for preset, default in spec.defaults.items():
        assert default in spec.values, preset
    # The dataclass default (the neutral value for the other preset) is accepted too.
    field = {f.name: f for f in dataclasses.fields(rules.RuleSet)}[spec.name]
    assert field.default in spec.values


@pytest.mark.parametrize("spec", CHOICES, ids=lambda spec: spec.name)
def test_make_rules_accepts_exactly_the_literal_values(spec: rules.OptionSpec) -> None:
    preset = spec.presets[0]
    for value in typing.get_args(HINTS[spec.name]):
        options: dict[str, object] = {spec.name: value}
        if value == "custom":  # A35, CL-1: a custom deck comes with its counts
            options["deck_counts"] = rules.make_rules(preset).deck_table()
        assert getattr(rules.make_rules(preset, options), spec.name) == value
    with pytest.raises(RuleSetError, match=spec.name):
        rules.make_rules(preset, {spec.name: "not_a_value"})


def test_literal_types_are_exported() -> None:
    exported = {name for name in rules.__all__ if typing.get_origin(getattr(rules, name))}
    assert {typing.get_args(getattr(rules, name)) for name in exported} >= {
        spec.values for spec in CHOICES
    }
