"""The package's lazy names: listed by ``dir``, importable, and declared
for type checkers (the ``TYPE_CHECKING`` imports name exactly the lazy
names, so the two lists cannot drift apart)."""
from __future__ import annotations

import ast
from pathlib import Path

import uvnest


def test_dir_lists_every_lazy_name_and_each_resolves() -> None:
    names = dir(uvnest)
    for name in uvnest._LAZY:
        assert name in names
        assert getattr(uvnest, name) is not None


def test_type_checkers_see_the_lazy_names() -> None:
    tree = ast.parse(Path(uvnest.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    declared = {alias.asname or alias.name for node in block.body for alias in node.names}
    assert declared == set(uvnest._LAZY)
