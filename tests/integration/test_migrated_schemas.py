"""Every service's Alembic revisions, run on an empty database, make exactly the schema recorded in
``schemas/<service>.txt`` (``pg_dump --schema-only``, its comments and settings left out), and go down to base again
leaving nothing but Alembic's version table.

Revisions are frozen: one edited in place, or a shared table helper (:mod:`turf_common.migrations`) making other
tables than the revisions used to write out, fails here. Each service is taken to the revision its dump was recorded
at, so a later revision does not change it. Record again (only when a new revision is added to the pinned set):
``.venv/bin/python -m tests.integration.test_migrated_schemas``."""

from __future__ import annotations

import importlib
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.support.pg import scratch_postgres
from turf_common.db import sqlalchemy_url

#: each service's schema and the revision its dump was recorded at
RECORDED = {"cards": "0001", "claims": "0007", "clock": "0001", "gateway": "0008", "modes": "0003", "notify": "0004"}
DUMPS = Path(__file__).parent / "schemas"


def migrate(url: str, service: str, verb: str, revision: str) -> None:
    """``alembic upgrade|downgrade <revision>`` of one service's schema, made if missing (as
    :func:`turf_common.db.run_migrations` does, to a revision of the caller's choosing)."""
    from alembic import command
    from alembic.config import Config

    engine = create_engine(sqlalchemy_url(url))
    try:
        with engine.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{service}"'))
            cfg = Config()
            package = Path(str(importlib.import_module(f"turf_{service}").__file__)).parent
            cfg.set_main_option("script_location", str(package / "migrations"))
            cfg.attributes["connection"] = conn
            cfg.attributes["schema"] = service
            getattr(command, verb)(cfg, revision)
    finally:
        engine.dispose()


def schema_dump(url: str, schema: str) -> str:
    """``pg_dump --schema-only`` of one schema, without owners, grants, comments, settings or blank lines: what the
    revisions made, in pg_dump's order (by kind and name, not by creation)."""
    from pgserver._commands import POSTGRES_BIN_PATH

    out = subprocess.run(
        [str(POSTGRES_BIN_PATH / "pg_dump"), "--schema-only", "--no-owner", "--no-privileges", "--schema", schema,
         "--dbname", url], capture_output=True, text=True, check=True, timeout=60).stdout
    kept = [line for line in out.splitlines()
            if line.strip() and not line.startswith(("--", "SET ", "SELECT pg_catalog.set_config"))]
    return "\n".join(kept) + "\n"


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with scratch_postgres(tmp_path_factory.mktemp("schemas")) as url:
        yield url


@pytest.mark.parametrize("service", sorted(RECORDED))
def test_each_service_migrated_to_its_recorded_revision_makes_the_recorded_schema(database: str,
                                                                                  service: str) -> None:
    migrate(database, service, "upgrade", RECORDED[service])
    assert schema_dump(database, service) == (DUMPS / f"{service}.txt").read_text()


@pytest.mark.parametrize("service", sorted(RECORDED))
def test_each_service_downgraded_to_base_leaves_only_the_version_table(database: str, service: str) -> None:
    migrate(database, service, "upgrade", RECORDED[service])
    migrate(database, service, "downgrade", "base")
    engine = create_engine(sqlalchemy_url(database))
    try:
        with engine.connect() as conn:
            left = conn.execute(text(
                "SELECT relname FROM pg_class WHERE relnamespace = CAST(:s AS regnamespace) "
                "UNION ALL SELECT proname FROM pg_proc WHERE pronamespace = CAST(:s AS regnamespace) ORDER BY 1"),
                {"s": service}).scalars().all()
    finally:
        engine.dispose()
    assert left == ["alembic_version", "alembic_version_pkc"]


def record() -> None:
    """Write ``schemas/<service>.txt`` from the revisions as they are now (a scratch server of its own)."""
    DUMPS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, scratch_postgres(Path(tmp)) as url:
        for service, revision in RECORDED.items():
            migrate(url, service, "upgrade", revision)
            (DUMPS / f"{service}.txt").write_text(schema_dump(url, service))


if __name__ == "__main__":
    record()
