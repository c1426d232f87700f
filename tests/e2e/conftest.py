from collections.abc import Iterator

import httpx
import pytest

from tests.support.client import Player, organizer
from tests.support.stackfix import running_stack
from turfwar.stack import Stack


@pytest.fixture(scope="package")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("stack")) as s:
        yield s


@pytest.fixture(scope="package")
def http(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.base_url, timeout=60) as c:
        yield c


@pytest.fixture(scope="package")
def org(http: httpx.Client) -> Player:
    return organizer(http)
