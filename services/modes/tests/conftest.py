"""Fixtures of the modes service's tests; modes_world.py (the service on fakes) is importable from every test folder
here."""

from __future__ import annotations

import pytest
from modes_world import World, world


@pytest.fixture
def w() -> World:
    """The modes use cases on fakes, the game clock at noon New York on the season's first day."""
    return world()
