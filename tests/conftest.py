"""Fixtures shared by the cross-service tests: one real stack per test module (embedded servers unless
TURF_*_URL are set), an HTTP client and the organizer."""

from collections.abc import Iterator

import httpx
import pytest

from tests.support.client import Player, organizer
from tests.support.stackfix import running_stack
from turfwar.stack import Stack


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = str(item.fspath)
        if any(f"/{d}/" in path for d in ("e2e", "integration", "faults")):
            item.add_marker(pytest.mark.timeout(600))
        if any(f"/tests/{d}/" in path for d in ("faults", "browser")):   # the whole suite only
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def stack(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The module's stack; a module's ``STACK_ENV`` (a dict of TURF_* variables) is set for it, e.g.
    ``{"TURF_LAUNCH": "exec"}`` for services started by ``python -m`` rather than forked warm."""
    with running_stack(tmp_path_factory.mktemp("stack"), **getattr(request.module, "STACK_ENV", {})) as s:
        yield s


@pytest.fixture(scope="module")
def http(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.base_url, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def org(http: httpx.Client) -> Player:
    return organizer(http)
