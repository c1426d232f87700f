"""R31: migration 0002 keeps what the cards service held before seasons were data as the configuration file's
season's (2026): its players stay 2026 players with their draw index, their cards stay in 2026's hands, the accounts
keep their status; a new season starts with no hands."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, text

from tests.integration.test_migrated_schemas import migrate
from tests.support.pg import scratch_postgres
from turf_cards.adapters.store import SqlCardsStore
from turf_common.db import make_engine, sqlalchemy_url

T0 = datetime(2026, 10, 5, 10, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with scratch_postgres(tmp_path_factory.mktemp("cards-migration")) as url:
        yield url


async def test_r31_the_migration_keeps_2026_rows_as_2026(database: str) -> None:
    migrate(database, "cards", "upgrade", "0001")
    engine = create_engine(sqlalchemy_url(database))
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO cards.season (season_id, commitment, started, ended) "
                          "VALUES ('2026', 'abc', true, false)"))
        conn.execute(text("INSERT INTO cards.players (player_id, status, verified_at, draws) VALUES "
                          "('ann', 'verified', :t, 4), ('bob', 'disqualified', :t, 3)"), {"t": T0})
        conn.execute(text("INSERT INTO cards.cards (id, player_id, card_type, state, draw_index, reason, drawn_at, "
                          "updated_at) VALUES ('c1', 'ann', 'war', 'ready', 0, 'verification', :t, :t), "
                          "('c2', 'ann', 'joker', 'consumed', 1, 'verification', :t, :t)"), {"t": T0})
    engine.dispose()
    migrate(database, "cards", "upgrade", "head")

    aengine = make_engine(database)
    try:
        store = SqlCardsStore(aengine)
        assert [c.id for c in await store.hand("2026", "ann")] == ["c1"]
        assert await store.hand("2027", "ann") == []
        async with store.begin() as tx:
            assert await tx.players.verified_players("2026") == ["ann"]      # bob stays disqualified
            assert await tx.players.joined("2026", "bob") is True
            assert await tx.players.draws_for_update("2026", "ann") == 4     # the next 2026 draw is #4
            assert await tx.players.verified_players("2027") == []
            assert [await tx.players.is_verified(p) for p in ("ann", "bob")] == [True, False]
            assert (await tx.hands.card_for_update("c2")).season_id == "2026"  # type: ignore[union-attr]
    finally:
        await aengine.dispose()
    migrate(database, "cards", "downgrade", "0001")   # and back: one season's state again
    engine = create_engine(sqlalchemy_url(database))
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT player_id, status, draws FROM cards.players ORDER BY player_id")).all()
    engine.dispose()
    assert [tuple(r) for r in rows] == [("ann", "verified", 4), ("bob", "disqualified", 3)]
