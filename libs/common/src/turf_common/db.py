"""Engine factories and migrations. No engine exists at import time."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine


def sqlalchemy_url(url: str) -> str:
    """Turn ``postgresql://…`` into the psycopg 3 dialect URL SQLAlchemy needs."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    raise ValueError(f"not a PostgreSQL URL: {url!r}")


def make_engine(url: str, pool_size: int = 10, max_overflow: int = 20) -> AsyncEngine:
    """An async engine over psycopg 3. Size ``pool_size`` for the connections the process holds at once under
    load: beyond it, each burst opens and closes overflow connections, a PostgreSQL connect each.

    Connections are not pinged when taken from the pool (the ping was a round trip before every
    transaction of every service): after a PostgreSQL restart the first statement on a dead connection fails (503
    ``unavailable`` to its caller, a redelivery for a consumer), and SQLAlchemy then invalidates every connection
    the pool made before that moment, so one request per process pays for a restart."""
    return create_async_engine(sqlalchemy_url(url), pool_size=pool_size, max_overflow=max_overflow)


def run_migrations(database_url: str, migrations_dir: Path, schema: str) -> None:
    """Upgrade one service's schema to head with Alembic (blocking; call before serving).

    Each service keeps its own ``alembic_version`` table inside its own schema.
    """
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, text

    eng = create_engine(sqlalchemy_url(database_url))
    with eng.begin() as conn:
        # Services start concurrently; the advisory lock keeps two Alembic runs from racing on one database.
        conn.execute(text("SELECT pg_advisory_xact_lock(724501)"))
        # a deployment's role owns its schema, made beforehand, and may create none (CREATE SCHEMA IF NOT
        # EXISTS checks that right before it looks)
        if conn.execute(text("SELECT 1 FROM pg_namespace WHERE nspname = :s"), {"s": schema}).first() is None:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        cfg = Config()
        cfg.set_main_option("script_location", str(migrations_dir))
        cfg.attributes["connection"] = conn
        cfg.attributes["schema"] = schema
        command.upgrade(cfg, "head")
    eng.dispose()
