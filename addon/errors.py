"""uvnest's error policy, in one place.

Every bad input to the public API - a value, shape, dtype, index or option
value - raises ``ValueError``: ``InputError`` (a subclass) for the checks
below and the ones built on them, with a message that starts with or names
the argument.  Unknown keyword names stay ``TypeError``, as everywhere in
Python.  Files that cannot be read raise ``MeshIOError`` (also a
``ValueError``; ``UnsupportedFormatError`` for formats and features uvnest
does not handle) with a message naming the file.  ``RuntimeError`` is
reserved for uvnest's own bugs, never for input.

The checks are shared by every entry point, so that the same argument gets
the same answer everywhere.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

__all__ = ["InputError", "CannotFitError", "MeshIOError", "UnsupportedFormatError", "number", "flag", "whole",
           "seconds", "requirement", "INVALID", "REQUIRES", "NO_ROOM", "CANNOT_FIT"]

#: Error codes (``InputError.code``): callers branch on these, never on messages.
#: A value of the wrong type, or out of its range or choices.
INVALID = "invalid"
#: An option that only works with another (``InputError.requires`` names it).
REQUIRES = "requires"
#: The margin and padding leave no room in the target.
NO_ROOM = "no_room"
#: The islands cannot fit (``CannotFitError``).
CANNOT_FIT = "cannot_fit"


class InputError(ValueError):
    """A bad argument to the public API.

    Attributes:
        argument: the argument's name (the message starts with or names it).
        code: what is wrong: :data:`INVALID`, :data:`REQUIRES`,
            :data:`NO_ROOM` or :data:`CANNOT_FIT`.
        requires: with :data:`REQUIRES`, what ``argument`` needs, as the
            Python API spells it (``'texture_size'``, ``"scale='fixed'"``).
    """

    def __init__(self, message: str, argument: str = "", code: str = INVALID, requires: str = "") -> None:
        super().__init__(message)
        self.argument = argument
        self.code = code
        self.requires = requires


def requirement(argument: str, requires: str, why: str = "") -> InputError:
    """The error for ``argument`` given without ``requires`` (code :data:`REQUIRES`)."""
    return InputError(f"{argument} needs {requires}{why}", argument, REQUIRES, requires)


class CannotFitError(InputError):
    """The islands cannot fit the target with these options (the margin,
    the padding, the locked islands or the number of tiles leave no room);
    code :data:`CANNOT_FIT`."""

    def __init__(self, message: str = "the islands cannot fit the target (the margin, the locked islands or the "
                                      "number of tiles leave no room)") -> None:
        super().__init__(message, "uvs", CANNOT_FIT)


class MeshIOError(ValueError):
    """A mesh file could not be read: the one-line message names the file and the reason."""


class UnsupportedFormatError(MeshIOError):
    """The file uses a format or feature uvnest cannot read or write back.

    The message names the file and, for glTF, the mesh and primitive.
    """


def _is_real(value: Any) -> bool:
    """A real number (not a bool, not complex, not a string)."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))


def number(value: Any, name: str, low: Optional[float] = 0.0) -> float:
    """``value`` as a finite float >= ``low`` (any finite number when ``low`` is None)."""
    if not (_is_real(value) and math.isfinite(value) and (low is None or value >= low)):
        bound = "" if low is None else f" >= {low:g}"
        raise InputError(f"{name} must be a finite number{bound}, got {value!r}", name)
    return float(value)


def flag(value: Any, name: str) -> bool:
    """A yes/no option: a bool (or 0 / 1), never a truthy string."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
        return bool(value)
    raise InputError(f"{name} must be True or False, got {value!r}", name)


def whole(value: Any, name: str, low: int, high: Optional[int] = None) -> int:
    """An integer from ``low`` (to ``high``, exclusive)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < low or (high is not None and value >= high):
        span = f"from {low} to {high - 1}" if high is not None else f">= {low}"
        raise InputError(f"{name} must be an integer {span}, got {value!r}", name)
    return int(value)


def seconds(value: Any, name: str) -> Optional[float]:
    """A duration: None, or a finite number of seconds >= 0."""
    if value is None:
        return None
    if not (_is_real(value) and math.isfinite(value) and value >= 0):
        raise InputError(f"{name} must be a finite number of seconds >= 0 or None, got {value!r}", name)
    return float(value)
