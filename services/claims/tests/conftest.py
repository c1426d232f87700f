"""Fixtures of the claims service's tests: the World of the use-case tests (claims_world.py, importable from every
test folder here), and for the contract suite the stores it compares (tests/contract/conftest.py)."""

from __future__ import annotations

import pytest
from claims_world import World, world


@pytest.fixture
async def w() -> World:
    """A started World (DAY1 open, board seeded)."""
    return await world()
