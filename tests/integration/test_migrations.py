"""Each service's Alembic migrations, run on an empty database, give exactly the tables its code declares
(what `alembic check` asks: no pending model change), and they ship inside the package, so an installed wheel
migrates too. A column added to a model without a migration fails here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, create_engine

from tests.support.pg import scratch_postgres
from turf_common.db import run_migrations, sqlalchemy_url


def _services() -> dict[str, tuple[Path, MetaData]]:
    from turf_cards import bootstrap as cards
    from turf_cards.adapters import tables as cards_tables
    from turf_claims import bootstrap as claims
    from turf_claims.adapters import tables as claims_tables
    from turf_clock import bootstrap as clock
    from turf_clock.adapters import tables as clock_tables
    from turf_gateway import main as gateway
    from turf_gateway.adapters import tables as gateway_tables

    return {"cards": (cards.MIGRATIONS, cards_tables.metadata),
            "claims": (claims.MIGRATIONS, claims_tables.metadata),
            "clock": (clock.MIGRATIONS, clock_tables.metadata),
            "gateway": (gateway.MIGRATIONS, gateway_tables.metadata)}


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with scratch_postgres(tmp_path_factory.mktemp("migrations")) as url:
        yield url


def _only(schema: str) -> Any:
    def include(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
        if type_ == "table":
            return bool(obj.schema == schema) and name != "alembic_version"
        return True
    return include


@pytest.mark.parametrize("service", ["cards", "claims", "clock", "gateway"])
def test_migrations_give_exactly_the_tables_the_code_declares(database: str, service: str) -> None:
    migrations, metadata = _services()[service]
    assert migrations.is_dir() and migrations.is_relative_to(Path(__import__(f"turf_{service}").__file__).parent)
    run_migrations(database, migrations, service)
    engine = create_engine(sqlalchemy_url(database))
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"include_schemas": True, "include_object": _only(service),
                                                         "compare_type": True})
            diff = compare_metadata(ctx, metadata)
    finally:
        engine.dispose()
    assert diff == [], f"{service}: the models and the migrations differ (write a migration): {diff}"


@pytest.mark.parametrize(("member", "package"), [("services/cards", "turf_cards"), ("services/claims", "turf_claims"),
                                                 ("services/clock", "turf_clock"), ("gateway", "turf_gateway")])
def test_a_wheel_carries_its_migrations(tmp_path: Path, member: str, package: str) -> None:
    """A non-editable install (the image's) finds the migrations where bootstrap looks: inside the package."""
    import subprocess
    import sys
    import zipfile

    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                        str(tmp_path), str(root / member)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    versions = sorted(p.name for p in (root / member / "src" / package / "migrations" / "versions").glob("0*.py"))
    assert versions and {f"{package}/migrations/versions/{v}" for v in versions} <= names
    assert {f"{package}/migrations/env.py", f"{package}/migrations/script.py.mako"} <= names


async def test_two_gateways_starting_together_make_one_organizer(database: str) -> None:
    """Two gateway replicas on a new database (the compose deployment) both ensure the organizer account at start:
    one makes it, the other finds it; neither start fails on the unique email (one did, in the compose e2e)."""
    import asyncio

    from sqlalchemy import text

    from turf_common.db import make_engine
    from turf_common.settings import Settings
    from turf_gateway.adapters.passwords import hash_password
    from turf_gateway.adapters.player_store import SqlPlayers
    from turf_gateway.bootstrap import MIGRATIONS

    async def same(_: str) -> bool:
        return True

    run_migrations(database, MIGRATIONS, "gateway")
    settings = Settings(organizer_email="Together@Example.org", organizer_password="a long organizer secret")
    engines = [make_engine(database), make_engine(database)]
    try:
        for _ in range(5):
            async with engines[0].begin() as conn:
                await conn.execute(text("DELETE FROM gateway.players WHERE email_norm = 'together@example.org'"))
            pw_hash = await hash_password(settings.organizer_password)
            await asyncio.gather(*(SqlPlayers(e).ensure_organizer(settings.organizer_email, pw_hash, same)
                                   for e in engines))
            async with engines[0].connect() as conn:
                n = (await conn.execute(text("SELECT count(*) FROM gateway.players "
                                             "WHERE email_norm = 'together@example.org'"))).scalar_one()
            assert n == 1
    finally:
        for e in engines:
            await e.dispose()


def test_r31_the_claims_boards_migration_keeps_the_rows_there_are_as_2026s(tmp_path: Path) -> None:
    """Migration 0009 (R31: each season has its own board): the territories, claims and War reclaim windows stored
    before it are the first season's, 2026's, unchanged otherwise; another season's board can then sit beside it."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from turf_claims import bootstrap as claims

    with scratch_postgres(tmp_path) as url:
        engine = create_engine(sqlalchemy_url(url))
        try:
            def upgrade(to: str) -> None:
                with engine.begin() as conn:
                    conn.execute(text("CREATE SCHEMA IF NOT EXISTS claims"))
                    cfg = Config()
                    cfg.set_main_option("script_location", str(claims.MIGRATIONS))
                    cfg.attributes["connection"] = conn
                    cfg.attributes["schema"] = "claims"
                    command.upgrade(cfg, to)

            upgrade("0008")
            with engine.begin() as conn:
                conn.execute(text("INSERT INTO claims.territories (id, owner_id, progress, last_claim_day, fortified,"
                                  " version) VALUES ('hoboken', 'ann', 3, '2026-10-07', true, 4)"))
                conn.execute(text(
                    "INSERT INTO claims.claims (id, player_id, territory_id, kind, normal, game_day, at, fix_time,"
                    " prev_progress, prev_fortified, flags) VALUES ('c1', 'ann', 'hoboken', 'take', true,"
                    " '2026-10-05', '2026-10-05T14:00Z', '2026-10-05T14:00Z', 0, false, '[]')"))
                conn.execute(text(
                    "INSERT INTO claims.war_windows (id, territory_id, holder_id, victim_id, steal_claim_id,"
                    " opened_at, until, state) VALUES ('w1', 'hoboken', 'bob', 'ann', 'c1', '2026-10-06T14:00Z',"
                    " '2026-10-06T16:00Z', 'open')"))
            upgrade("head")
            with engine.begin() as conn:
                assert conn.execute(text(
                    "SELECT season_id, id, owner_id, progress, fortified, version FROM claims.territories")).all() \
                    == [("2026", "hoboken", "ann", 3, True, 4)]
                assert conn.execute(text("SELECT season_id FROM claims.claims")).scalars().all() == ["2026"]
                assert conn.execute(text("SELECT season_id FROM claims.war_windows")).scalars().all() == ["2026"]
                # the next season's board beside it: the same territory, unowned
                conn.execute(text("INSERT INTO claims.territories (season_id, id, progress, fortified, version)"
                                  " VALUES ('2027', 'hoboken', 0, false, 0)"))
                assert conn.execute(text("SELECT count(*) FROM claims.territories")).scalar() == 2
        finally:
            engine.dispose()
