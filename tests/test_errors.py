"""One error policy (issue 26, point 8): every bad input to the public API
raises ValueError (uvnest.errors.InputError where uvnest checks it) with a
message that names the argument; unknown keyword names stay TypeError; no
IndexError, TypeError, OverflowError or message of the engine's insides
reaches the caller, and nothing bad is accepted silently."""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import uvnest
from uvnest import errors, geometry
from uvnest.io import MeshIOError, UnsupportedFormatError
from uvnest.tiles import pack_pow2_squares

SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
FACE = [[0, 1, 2, 3]]
TWO = np.vstack([SQUARE, SQUARE * 0.5 + [2.0, 0.0]])
TWO_FACES = [[0, 1, 2, 3], [4, 5, 6, 7]]


def pack(**kw: Any) -> Any:
    args = {"uvs": SQUARE, "faces": FACE, "time_limit": 0.2, **kw}
    return uvnest.pack(args.pop("uvs"), args.pop("faces"), **args)


BAD_INPUTS = {  # what the caller passes -> the argument the message must name
    "index_out_of_range": (lambda: pack(faces=[[0, 1, 2, 7]]), "faces"),
    "negative_index": (lambda: pack(faces=[[0, 1, 2, -1]]), "faces"),
    "float_face_array": (lambda: pack(faces=np.array([[0, 1, 2, 3.0]])), "faces"),
    "bool_face_array": (lambda: pack(faces=np.array([[True, False, True]])), "faces"),
    "faces_as_a_string": (lambda: pack(faces="0 1 2"), "faces"),
    "faces_none": (lambda: pack(faces=None), "faces"),
    "face_with_a_float": (lambda: pack(faces=[[0, 1, 2.5]]), "faces"),
    "face_index_beyond_int64": (lambda: pack(faces=[[0, 1, 2**70]]), "faces"),
    "mesh_faces_as_a_string": (lambda: pack(mesh_faces="abc"), "mesh_faces"),
    "uvs_of_strings": (lambda: pack(uvs=np.array([["0", "a"]] * 4)), "uvs"),
    "uvs_ragged": (lambda: pack(uvs=[[0, 0], [1]]), "uvs"),
    "uvs_complex": (lambda: pack(uvs=SQUARE + 1j), "uvs"),
    "uvs_at_1e200": (lambda: pack(uvs=SQUARE * 1e200), "uvs"),
    "uvs_at_1e-200": (lambda: pack(uvs=SQUARE * 1e-200), "uvs"),
    "anneal_max_2_40": (lambda: pack(anneal_max=2**40), "anneal_max"),
    "tiles_1001_5": (lambda: pack(scale="fixed", tiles=[1001.5]), "tiles"),
    "tiles_none": (lambda: pack(scale="fixed", tiles=[None]), "tiles"),
    "tiles_string": (lambda: pack(scale="fixed", tiles="1001"), "tiles"),
    "groups_unhashable": (lambda: pack(uvs=TWO, faces=TWO_FACES, scale="fixed", groups=[{}, {}]), "groups"),
    "cache_mb_string": (lambda: pack(cache_mb="a"), "cache_mb"),
    "positions_of_strings": (lambda: pack(scale="fixed", texel_density=1.0, texture_size=64,
                                          positions=np.array([["a", "b", "c"]] * 4)), "positions"),
    "target_ring_complex": (lambda: pack(target=[SQUARE * 2 + 1j]), "target ring 0"),
    "geometry_margin_string": (lambda: geometry.cfr([SQUARE], [], [SQUARE], "a"), "margin"),
    "geometry_tolerance_string": (lambda: geometry.simplify([SQUARE], "a", 4), "tolerance"),
    "geometry_max_vertices_float": (lambda: geometry.simplify([SQUARE], 0.1, 4.5), "max_vertices"),
    "geometry_r_string": (lambda: geometry.point_at([SQUARE], "a"), "r"),
    "geometry_ring_string": (lambda: geometry.nfp("a", [SQUARE]), "a ring 0"),
    "geometry_complex_ring": (lambda: geometry.ifp([SQUARE + 1j], [SQUARE]), "container"),
    "geometry_rings_int": (lambda: geometry.convex_hull(3), "rings"),
    "geometry_placed_array": (lambda: geometry.cfr([SQUARE], np.zeros(3), [SQUARE]), "placed"),
    "geometry_outline_index": (lambda: geometry.outline(SQUARE, [[0, 1, 9]]), "faces"),
    "find_islands_index": (lambda: uvnest.find_islands(SQUARE, [[0, 1, 9]]), "faces"),
    "pow2_layer_float": (lambda: pack_pow2_squares([1, 2], 4.0), "layer_size"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_raises_value_error_naming_the_argument(case: str) -> None:
    call, argument = BAD_INPUTS[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ComplexWarning would mean the input was cut, not refused
        with pytest.raises(ValueError) as info:
            call()
    assert type(info.value) is not ValueError or case.startswith("geometry_") and "ring" in str(info.value) \
        or case in ("geometry_complex_ring", "target_ring_complex"), f"{case}: a plain ValueError where uvnest checks: {info.value}"
    assert argument in str(info.value), f"{case}: {info.value}"
    assert "area must be > 0" not in str(info.value)


def test_the_checks_raise_input_error_with_the_argument() -> None:
    with pytest.raises(errors.InputError) as info:
        pack(anneal_max=2**40)
    assert info.value.argument == "anneal_max"
    assert isinstance(info.value, ValueError)


def test_unknown_keyword_names_stay_type_error() -> None:
    with pytest.raises(TypeError, match="bogus"):
        pack(bogus=1)
    with pytest.raises(TypeError, match="bogus"):
        uvnest.Packer(SQUARE, FACE, bogus=1)
    with pytest.raises(TypeError, match="bogus"):
        geometry.cfr([SQUARE], [], [SQUARE], bogus=1)


def test_geometry_and_packing_share_one_number_check() -> None:
    # geometry raised TypeError for a string margin where packing raised ValueError
    messages = []
    for call in (lambda: geometry.overlaps([SQUARE], [SQUARE], "a"), lambda: pack(margin="a")):
        with pytest.raises(errors.InputError) as info:
            call()
        messages.append(str(info.value))
    assert messages[0] == messages[1] == "margin must be a finite number >= 0, got 'a'"


def test_mixed_type_group_keys_stay_apart_and_pack() -> None:
    # numpy turns [1, "1"] into two equal strings, and [1, None] could not be sorted (TypeError)
    for keys in ([1, "1"], [1, None]):
        result = pack(uvs=TWO, faces=TWO_FACES, scale="fixed", groups=keys, margin=0.01)
        assert len(result.uvs) == len(TWO)


def test_no_fit_is_a_cannot_fit_error() -> None:
    with pytest.raises(errors.CannotFitError, match=r"island 0 \(.*\) is larger than a tile"):
        pack(uvs=SQUARE * 3, scale="fixed", tiles=[1001])
    with pytest.raises(errors.CannotFitError, match="cannot fit the target"):
        uvnest.Packer(TWO, TWO_FACES, locked=[0], target=(0, 0, 1.5, 1.5), margin=0.6)
    assert issubclass(errors.CannotFitError, ValueError)


def test_file_errors_are_value_errors_defined_in_errors() -> None:
    assert MeshIOError is errors.MeshIOError and UnsupportedFormatError is errors.UnsupportedFormatError
    assert issubclass(MeshIOError, ValueError)


@pytest.mark.parametrize("scale", [1e-130, 1e140])
def test_uvs_at_the_ends_of_the_supported_range_pack(scale: float) -> None:
    result = pack(uvs=TWO * scale, faces=TWO_FACES)
    assert np.isfinite(result.uvs).all() and 0 < result.coverage <= 1


def test_unused_uvs_outside_the_range_are_ignored() -> None:
    uvs = np.vstack([SQUARE, [[1e300, np.nan]]])
    assert np.isfinite(pack(uvs=uvs).uvs[:4]).all()


