"""Test fixtures around the real stack: embedded servers unless TURF_*_URL are set, every service as a process.

With external servers, each stack gets a database, stream and Redis prefix of its own, so test runs never see
each other's state."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg

from tests.support.backends import servers
from turfwar.embedded import free_port
from turfwar.stack import Stack

# a password of 128 bits or more, which the accelerated-clock stacks require
ORGANIZER = ("organizer@test.turfwar", "Tq4-mW9zR2xK7vB3nJ8cL5hF6dG1")


def _fresh_database(url: str) -> str:
    base, _, _ = url.rpartition("/")
    name = "turf_t_" + uuid.uuid4().hex[:10]
    with psycopg.connect(base + "/postgres", autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    return f"{base}/{name}"


@contextlib.contextmanager
def running_stack(data_dir: Path, **extra_env: str) -> Iterator[Stack]:
    env = {
        "TURF_CLOCK": "manual",
        "TURF_CLOCK_START": "2026-10-05T05:00:00-04:00",
        "TURF_ORGANIZER_EMAIL": ORGANIZER[0],
        "TURF_ORGANIZER_PASSWORD": ORGANIZER[1],
        "TURF_STREAM": "T" + uuid.uuid4().hex[:8].upper(),
        "TURF_REDIS_PREFIX": "t" + uuid.uuid4().hex[:8] + ":",
        "TURF_LOG_LEVEL": "INFO",
        "TURF_RATE_LIMITS": "off",   # tests register and sign in many players from one address
        "TURF_STREAM_MAX_BYTES": str(512 * 1024**2),   # a stream per stack may share one NATS server
        # argon2id at one pass over 8 KiB (the suite hashes and verifies ~1,300 passwords, 0.2 s of CPU
        # each at the default); allowed for the manual clock on loopback only, so not in the accelerated races
        "TURF_PASSWORD_HASH": "fast",
    } | extra_env
    if not env["TURF_CLOCK"].startswith("manual") and "TURF_PASSWORD_HASH" not in extra_env:
        env.pop("TURF_PASSWORD_HASH")
    with servers() as given:   # external or container servers; none means embedded
        for k, v in given.urls.items():
            env.setdefault(k, v)
        if "TURF_DATABASE_URL" in given.urls and "TURF_DATABASE_URL" not in extra_env:
            env["TURF_DATABASE_URL"] = _fresh_database(given.urls["TURF_DATABASE_URL"])
        # a container's control: the fault tests' stop_server/start_server kill and restart it
        stack = Stack(data_dir=data_dir, env=env, http_port=free_port(), controls=given.controls)
        try:
            stack.start_servers()
            stack.start_services()
            yield stack
        finally:
            stack.stop()
