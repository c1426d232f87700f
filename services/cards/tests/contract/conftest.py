"""The cards store's contract: every case runs on the memory fake (turf_cards.testing) and on the
PostgreSQL store (adapters/store.py). One embedded PostgreSQL per session, migrated once with the service's Alembic
migrations; each case starts on empty tables."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.support.pg import emptied, migrated_engine
from turf_cards.adapters import tables as t
from turf_cards.adapters.store import SqlCardsStore
from turf_cards.bootstrap import MIGRATIONS
from turf_cards.ports import CardsStore
from turf_cards.testing import MemoryCardsStore


@pytest.fixture(scope="session")
async def cards_engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[AsyncEngine]:
    async with migrated_engine(tmp_path_factory.mktemp("cards-contract"), MIGRATIONS, t.SCHEMA) as engine:
        yield engine


@pytest.fixture(params=["memory", "postgres"])
async def store(request: pytest.FixtureRequest, cards_engine: AsyncEngine) -> CardsStore:
    if request.param == "memory":
        return MemoryCardsStore()
    return SqlCardsStore(await emptied(cards_engine, t.metadata))
