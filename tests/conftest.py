"""Test-session policy shared by every test module.

With ``UVNEST_REQUIRE_PEERS=1`` (set by ``.ci/run``) a test skipped because
real Blender or the homedecor corpus could not be fetched fails instead: CI
must not pass without the peers and assets the issues name.

Tests marked ``background`` have their work started right after collection,
at the lowest CPU priority, and run last (tests/background.py).
"""
from __future__ import annotations

import os
from typing import Any, Generator

import pytest

from tests.background import JOBS_KEY, Jobs

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


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """Tests whose work runs in the background (tests/background.py) go
    last, so the serial tests run while their work does."""
    items[:] = ([i for i in items if i.get_closest_marker("background") is None]
                + [i for i in items if i.get_closest_marker("background") is not None])


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the selected background tests' work, module by module."""
    marked: dict = {}
    for item in session.items:
        if item.get_closest_marker("background") is not None:
            marked.setdefault(item.module, []).append(item)
    if not marked or session.config.option.collectonly:
        return
    jobs = Jobs()
    session.config.stash[JOBS_KEY] = jobs
    for module, items in marked.items():
        module.start_background(jobs, items)


def pytest_sessionfinish(session: pytest.Session) -> None:
    jobs = session.config.stash.get(JOBS_KEY, None)
    if jobs is not None:
        jobs.close()


@pytest.fixture(scope="session")
def background_jobs(request: pytest.FixtureRequest) -> Jobs:
    """The session's background work (see tests/background.py)."""
    return request.config.stash[JOBS_KEY]
