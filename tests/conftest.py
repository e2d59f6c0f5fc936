"""Test-session policy shared by every test module.

With ``UVNEST_REQUIRE_PEERS=1`` (set by ``.ci/run``) a test skipped because
real Blender or the homedecor corpus could not be fetched fails instead: CI
must not pass without the peers and assets the issues name.
"""
from __future__ import annotations

import os
from typing import Any, Generator

import pytest

#: Skip reasons (prefixes) that mean "a required peer or asset is missing".
PEER_SKIP_MARKERS = ("real Blender", "homedecor corpus unavailable")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or os.environ.get("UVNEST_REQUIRE_PEERS") != "1":
        return
    reason = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr)
    if any(marker in reason for marker in PEER_SKIP_MARKERS):
        report.outcome = "failed"
        report.longrepr = f"UVNEST_REQUIRE_PEERS=1 and a required peer is missing: {reason}"
