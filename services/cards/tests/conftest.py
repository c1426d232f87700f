"""Fixtures of the cards service's tests; cards_world.py (the use cases on fakes) is importable from every test
folder here."""

from __future__ import annotations

import pytest
from cards_world import World, world


@pytest.fixture
def w() -> World:
    """The cards use cases on fakes, the game clock at the season's first opening (R3)."""
    return world()
