"""The Blender properties that are packing options take their defaults,
ranges and descriptions from ``uvnest.PackOptions`` (issue 29, point 4),
read from Blender's RNA in real Blender (bpy 5.0.1)."""
from __future__ import annotations

import math
import re

import pytest

from tests.test_blender import run_script
from uvnest.options import BLENDER_DEFAULTS, OPTIONS

pytestmark = pytest.mark.blender

#: Blender property -> option of the model.
PROPERTIES = {"rotation_step": "rotation_step", "flip": "flip", "stack_similar": "stack_similar",
              "max_scale_ratio": "max_scale_ratio", "margin_pixels": "margin_px", "padding": "padding",
              "seed": "seed", "threads": "threads"}
#: Where Blender's properties must differ, and why: a pixel margin needs a
#: number (the model's default is None), threads 0 stands for None.
BLENDER_OWN = {"margin_pixels": {"default": 2.0}, "threads": {"default": 0, "min": 0}}
#: A float32 property holds about 7 digits.
REL = 1e-6


def test_the_properties_read_the_model() -> None:
    rna = run_script("options_rna.py")
    for prop, name in PROPERTIES.items():
        option, got = OPTIONS[name], rna[prop]
        angle = math.radians if prop == "rotation_step" else float
        expected = {"default": BLENDER_DEFAULTS.get(name, option.default)}
        if option.low is not None:
            expected["min"] = option.low
        if option.high is not None:
            expected["max"] = min(option.high, 2**31 - 1)
        elif got["type"] in ("INT", "FLOAT"):   # no maximum: Blender's largest value
            assert got["max"] >= (2**31 - 1 if got["type"] == "INT" else 1e38), (prop, got["max"])
        if option.soft_high is not None:
            expected["soft_max"] = option.soft_high
        expected.update(BLENDER_OWN.get(prop, {}))
        for key, value in expected.items():
            want = value if isinstance(value, bool) else angle(value) if key != "soft_max" else value
            assert got[key] == pytest.approx(want, rel=REL), (prop, key, got[key], want)
        if prop not in ("stack_similar", "threads"):   # their text speaks of Blender's own controls
            # the help text, capitalised, other options' names as the add-on shows them
            pattern = ".+".join(re.escape(part) for part in re.split(r"\{\w+\}", option.help))
            text = got["description"]
            assert re.fullmatch(pattern, text[:1].lower() + text[1:]) and text[:1].isupper(), (prop, text)
    # Blender's own Merge Overlapping keeps Blender's default, recorded in the model
    assert rna["merge_overlap"]["default"] is BLENDER_DEFAULTS["merge_overlapping"] is False
