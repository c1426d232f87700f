"""A PostgreSQL server of its own for a test that needs the database alone (no stack): embedded, in ``data_dir``;
and what the stores' contract suites share."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from sqlalchemy import MetaData, TextClause, text
from sqlalchemy.ext.asyncio import AsyncEngine

from turfwar import embedded


@contextlib.contextmanager
def scratch_postgres(data_dir: Path) -> Iterator[str]:
    """Start one, yield its URL (the services' role, password auth), stop it after."""
    embedded.private_dir(data_dir)
    pg = embedded.start_postgres(data_dir)
    try:
        yield pg.url
    finally:
        pg.stop()


@contextlib.contextmanager
def migrated_postgres(data_dir: Path, migrations: Path, schema: str) -> Iterator[str]:
    """:func:`scratch_postgres` with one service's Alembic migrations run (its ``schema`` made): a contract suite's
    server, started once per session."""
    from turf_common.db import run_migrations

    with scratch_postgres(data_dir) as url:
        run_migrations(url, migrations, schema)
        yield url


def truncate_all(metadata: MetaData) -> TextClause:
    """The statement that empties every table of ``metadata`` (identities restarted): a fresh store for each
    contract case in a few milliseconds, where a database per case would take a second."""
    return text("TRUNCATE " + ", ".join(f"{tb.schema}.{tb.name}" for tb in metadata.sorted_tables)
                + " RESTART IDENTITY")


@contextlib.asynccontextmanager
async def migrated_engine(data_dir: Path, migrations: Path, schema: str) -> AsyncIterator[AsyncEngine]:
    """An engine on :func:`migrated_postgres` (a small pool: a contract case holds one or two connections), disposed
    and the server stopped after: a contract suite's session fixture."""
    from turf_common.db import make_engine

    with migrated_postgres(data_dir, migrations, schema) as url:
        engine = make_engine(url, pool_size=2, max_overflow=2)
        try:
            yield engine
        finally:
            await engine.dispose()


async def emptied(engine: AsyncEngine, metadata: MetaData) -> AsyncEngine:
    """``engine`` after every table of ``metadata`` is emptied (:func:`truncate_all`): a contract case's fresh store."""
    async with engine.begin() as conn:
        await conn.execute(truncate_all(metadata))
    return engine
