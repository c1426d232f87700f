"""Where the tests' servers come from, behind one interface: ``servers()`` yields the three URLs.

* ``TURF_NATS_URL`` / ``TURF_DATABASE_URL`` / ``TURF_REDIS_URL`` set: those servers;
* ``TURF_TEST_BACKEND=containers`` (where Docker runs): testcontainers starts PostgreSQL (psycopg driver), Redis and
  NATS with JetStream;
* otherwise (the default): nothing here — the stack starts its embedded servers itself.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


@contextlib.contextmanager
def servers() -> Iterator[dict[str, str]]:
    """The ``TURF_*_URL`` variables the stack should use (empty: embedded servers)."""
    given = {k: os.environ[k] for k in ("TURF_NATS_URL", "TURF_DATABASE_URL", "TURF_REDIS_URL") if os.environ.get(k)}
    if os.environ.get("TURF_TEST_BACKEND") != "containers":
        yield given
        return
    with _containers() as urls:
        yield urls | given


@contextlib.contextmanager
def _containers() -> Iterator[dict[str, str]]:
    try:
        from testcontainers.community.nats import NatsContainer  # type: ignore[import-not-found]
        from testcontainers.community.postgres import PostgresContainer  # type: ignore[import-not-found]
        from testcontainers.community.redis import RedisContainer  # type: ignore[import-not-found]
    except ImportError:  # older testcontainers layout
        from testcontainers.nats import NatsContainer
        from testcontainers.postgres import PostgresContainer
        from testcontainers.redis import RedisContainer

    with PostgresContainer("postgres:16-alpine", driver="psycopg", username="postgres", password="postgres",
                           dbname="turfwar") as pg, \
            RedisContainer("redis:7-alpine") as redis, \
            NatsContainer("nats:2.10-alpine", jetstream=True) as nats:
        pg_url = pg.get_connection_url().replace("postgresql+psycopg://", "postgresql://")
        yield {
            "TURF_DATABASE_URL": pg_url,
            "TURF_REDIS_URL": f"redis://{redis.get_container_host_ip()}:{redis.get_exposed_port(6379)}/0",
            "TURF_NATS_URL": f"nats://{nats.get_container_host_ip()}:{nats.get_exposed_port(4222)}",
        }
