"""Fixtures of the notify service's tests; notify_world.py (the service on fakes) is importable from every test
folder here."""

from __future__ import annotations

import pytest
from notify_world import World, world


@pytest.fixture
def w() -> World:
    """The notify use cases on fakes, the game clock at noon on the season's first day."""
    return world()
