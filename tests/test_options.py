"""One options model (issue 29, point 4): ``uvnest.PackOptions`` declares
every packing option's default, choices and range once, and every
interface - ``pack``, ``Packer``, the command line, the live session's
settings - agrees with it; bad values raise ValueError naming the argument
from each interface, with an error code.  (The Blender properties are
checked against the model in real Blender: tests/test_blender_options.py.)
"""
from __future__ import annotations

import argparse
import dataclasses
import inspect
from typing import Any, Dict, List

import numpy as np
import pytest

import uvnest
from uvnest import errors, live
from uvnest.cli.arguments import build_parser
from uvnest.cli.pack import _check_options
from uvnest.options import AXIS_ROTATIONS, BLENDER_DEFAULTS, OPTIONS, PackOptions

SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
FACE = [[0, 1, 2, 3]]


def pack_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["pack"]


def cli_actions() -> Dict[str, argparse.Action]:
    return {flag: a for a in pack_parser()._actions for flag in a.option_strings}


# --------------------------------------------------------------- the model


def test_the_model_declares_every_field_once_with_its_default() -> None:
    fields = {f.name: f.default for f in dataclasses.fields(PackOptions)}
    assert list(fields) == list(OPTIONS)
    assert {name: o.default for name, o in OPTIONS.items()} == fields
    defaults = PackOptions()
    for name, option in OPTIONS.items():
        assert getattr(defaults, name) == option.default, name
        assert option.help and "{" not in option.describe(), name


def test_pack_and_packer_list_every_option_with_the_model_default() -> None:
    for call in (uvnest.pack, uvnest.Packer):
        params = inspect.signature(call).parameters
        assert not any(p.kind is p.VAR_KEYWORD for p in params.values()), call
        for name, option in OPTIONS.items():
            assert name in params and params[name].kind is params[name].KEYWORD_ONLY, (call, name)
            assert params[name].default == option.default, (call, name)
    assert inspect.signature(uvnest.pack).parameters["time_limit"].default == 2.0
    assert "margin" in (uvnest.pack.__doc__ or "") and "PackOptions" in (uvnest.pack.__doc__ or "")


def test_the_packer_keeps_its_validated_options() -> None:
    packer = uvnest.Packer(SQUARE, FACE, texture_size=64, margin_px=2, stack_similar=0.01, seed=3)
    assert packer.options == PackOptions(texture_size=(64, 64), margin_px=2.0, stack_similar=0.01, seed=3)
    assert packer.options.resolved().margin == 2 / 64


def _out_of_range(option: Any) -> List[Any]:
    """Values just outside ``option``'s range (and a wrong type)."""
    bad: List[Any] = ["a"]
    if option.kind == "choice":
        return ["bogus", 1]
    if option.kind == "flag":
        return ["yes", 2]
    if option.low is not None:
        bad.append(option.low if option.low_open else (option.low - 1 if option.kind == "whole" else
                                                       option.low - 1e-3))
    if option.high is not None:
        bad.append(option.high + 1 if option.kind == "whole" else option.high + 1e-3)
    return bad


CHECKED = [name for name, o in OPTIONS.items() if o.kind != "value"]
#: What an option needs besides itself to be valid.
CONTEXT: Dict[str, Dict[str, Any]] = {"margin_px": {"texture_size": 64}, "block_align": {"texture_size": 64},
                                      "texel_density": {"texture_size": 64, "scale": "fixed"}}


def _with(name: str, value: Any) -> Dict[str, Any]:
    return {**CONTEXT.get(name, {}), name: value}


@pytest.mark.parametrize("name", CHECKED)
def test_bad_values_are_input_errors_naming_the_option_from_the_api(name: str) -> None:
    option = OPTIONS[name]
    for value in _out_of_range(option):
        for make in (lambda: PackOptions(**_with(name, value)),
                     lambda: uvnest.pack(SQUARE, FACE, time_limit=0.1, **_with(name, value))):
            with pytest.raises(errors.InputError) as info:
                make()
            assert info.value.argument == name and info.value.code == errors.INVALID, (value, info.value)
            assert str(info.value).startswith(name), str(info.value)
    # the ends of a closed range are accepted
    for value in (option.low, option.high):
        if value is not None and not (value == option.low and option.low_open):
            typed = float(value) if option.kind == "number" else int(value)
            assert getattr(PackOptions(**_with(name, typed)), name) == value


def test_unknown_names_stay_type_errors() -> None:
    with pytest.raises(TypeError, match="bogus"):
        PackOptions(bogus=1)
    with pytest.raises(TypeError, match="bogus"):
        uvnest.pack(SQUARE, FACE, bogus=1)


@pytest.mark.parametrize("options, argument, code, requires", [
    ({"margin_px": 2}, "margin_px", errors.REQUIRES, "texture_size"),
    ({"block_align": 4}, "block_align", errors.REQUIRES, "texture_size"),
    ({"tiles": [1001]}, "tiles", errors.REQUIRES, "scale='fixed'"),
    ({"max_scale_ratio": 2.0, "scale": "fixed"}, "max_scale_ratio", errors.REQUIRES, "scale='fit'"),
    ({"target": [SQUARE * 0.5], "scale": "fixed"}, "target", errors.REQUIRES, "scale='fit'"),
    ({"margin": 0.2, "padding": 0.5}, "margin", errors.NO_ROOM, ""),
    ({"texture_size": (64, 0)}, "texture_size", errors.INVALID, ""),
    ({"stack_similar": 0.5}, "stack_similar", errors.INVALID, ""),
    ({"target": (0, 0, 0, 1)}, "target", errors.INVALID, ""),
])
def test_combinations_fail_with_a_code(options: Dict[str, Any], argument: str, code: str, requires: str) -> None:
    with pytest.raises(errors.InputError) as info:
        PackOptions(**options)
    assert (info.value.argument, info.value.code, info.value.requires) == (argument, code, requires)


def test_the_options_are_frozen_and_replace_validates() -> None:
    options = PackOptions(margin=0.01)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.margin = 0.02  # type: ignore[misc]
    assert options.replace(seed=4).seed == 4 and options.replace(seed=4).margin == 0.01
    with pytest.raises(errors.InputError):
        options.replace(seed=-1)
    assert PackOptions(**options.as_kwargs()) == options


# ----------------------------------------------------------- command line


def test_the_command_line_takes_defaults_choices_and_help_from_the_model() -> None:
    actions = cli_actions()
    for name, option in OPTIONS.items():
        if option.cli is None:
            continue
        action = actions[option.cli]
        if name == "merge_overlapping":   # spelled as its negation
            assert action.default is False and action.const is True
            continue
        expected = {"target": None}.get(name, option.default)
        assert action.default == expected, name
        if option.kind == "choice":
            assert tuple(action.choices) == option.choices + (tuple(AXIS_ROTATIONS) if name == "rotation" else ()), name
        if option.kind == "flag":
            assert action.const is True and action.default is False, name


@pytest.mark.parametrize("name", [n for n in CHECKED if OPTIONS[n].cli and OPTIONS[n].kind in ("number", "whole")])
def test_the_command_line_refuses_what_the_model_refuses(name: str, capsys: Any) -> None:
    option = OPTIONS[name]
    parser = pack_parser()
    for value in _out_of_range(option):
        with pytest.raises(SystemExit):
            parser.parse_args(["x.obj", option.cli, str(value)])
        assert option.cli in capsys.readouterr().err, (name, value)
    for value in (option.low, option.high):
        if value is not None and not (value == option.low and option.low_open):
            args = parser.parse_args(["x.obj", option.cli, str(int(value) if option.kind == "whole" else value)])
            assert getattr(args, name) == value


@pytest.mark.parametrize("options, message", [
    ({"margin": 1.0}, "--margin and --padding"),
    ({"max_scale_ratio": 2.0, "scale": "fixed", "tiles": [1001]}, "--max-scale-ratio needs packing into the tile"),
    ({"target": (0.5, 0.0, 1.5, 1.0), "scale": "fixed"}, "--target: with scale='fixed'"),
    ({"stack_similar": 0.5}, "--stack-similar must be True, False or a tolerance"),
])
def test_the_command_line_checks_the_combination_by_the_model(options: Dict[str, Any], message: str) -> None:
    assert message in (_check_options(options) or "")
    assert _check_options({"margin": 0.01, "rotation": "axis"}) is None


# ----------------------------------------------------------- live session


def test_live_settings_default_as_the_model() -> None:
    settings = live.PackSettings()
    for name in live.SHARED_OPTIONS:
        assert getattr(settings, name) == BLENDER_DEFAULTS.get(name, OPTIONS[name].default), name
    assert settings.texture_size is None and settings.rotation == OPTIONS["rotation"].default
    assert set(live.ROTATION_MODES) == set(OPTIONS["rotation"].choices + tuple(AXIS_ROTATIONS))
    assert BLENDER_DEFAULTS == {"merge_overlapping": False}


@pytest.mark.parametrize("name", [n for n in live.SHARED_OPTIONS if n in CHECKED])
def test_live_settings_refuse_what_the_model_refuses(name: str) -> None:
    for value in _out_of_range(OPTIONS[name]):
        with pytest.raises(errors.InputError) as info:
            live.PackSettings(**{name: value})
        assert info.value.argument == name and str(info.value).startswith(name)


def test_a_layout_that_cannot_fit_has_its_own_code() -> None:
    with pytest.raises(errors.CannotFitError) as info:
        uvnest.pack(SQUARE * 3, FACE, scale="fixed", tiles=[1001], time_limit=0.2)
    assert info.value.code == errors.CANNOT_FIT and isinstance(info.value, ValueError)


def test_the_command_line_check_packs_nothing() -> None:
    """Options a packer would refuse only with data (texel_density without
    positions) pass the check: it validates the options, it does not pack."""
    assert _check_options({"texel_density": 8.0, "texture_size": (64, 64), "scale": "fixed"}) is None
    with pytest.raises(errors.InputError) as info:
        uvnest.pack(SQUARE, FACE, texel_density=8.0, texture_size=64, scale="fixed", time_limit=0.2)
    assert (info.value.argument, info.value.code, info.value.requires) == ("texel_density", errors.REQUIRES,
                                                                           "positions")
