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


#: the images of the containers backend; a machine without a registry names local equivalents (e.g. the ones
#: deploy/ci builds on a Debian base) with these variables
IMAGES = {"postgres": os.environ.get("TURF_TEST_IMAGE_POSTGRES", "postgres:16-alpine"),
          "redis": os.environ.get("TURF_TEST_IMAGE_REDIS", "redis:7-alpine"),
          "nats": os.environ.get("TURF_TEST_IMAGE_NATS", "nats:2.10-alpine")}
RYUK = "testcontainers/ryuk:0.8.1"   # testcontainers' reaper, which removes the containers of a dead test run


def missing_images() -> list[str]:
    """The backend's images this Docker engine does not have. With no registry reachable, the backend cannot run
    without them (a pull would only time out)."""
    import docker  # type: ignore[import-untyped]

    client = docker.from_env()
    missing = []
    for image in IMAGES.values():
        try:
            client.images.get(image)
        except docker.errors.ImageNotFound:
            missing.append(image)
    return missing


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

    import docker

    try:
        docker.from_env().images.get(RYUK)
    except docker.errors.ImageNotFound:   # no reaper image and no registry: the fixtures stop what they start
        os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")
    with PostgresContainer(IMAGES["postgres"], driver="psycopg", username="postgres", password="postgres",
                           dbname="turfwar") as pg, \
            RedisContainer(IMAGES["redis"]) as redis, \
            NatsContainer(IMAGES["nats"], jetstream=True) as nats:
        pg_url = pg.get_connection_url().replace("postgresql+psycopg://", "postgresql://")
        yield {
            "TURF_DATABASE_URL": pg_url,
            "TURF_REDIS_URL": f"redis://{redis.get_container_host_ip()}:{redis.get_exposed_port(6379)}/0",
            "TURF_NATS_URL": f"nats://{nats.get_container_host_ip()}:{nats.get_exposed_port(4222)}",
        }
