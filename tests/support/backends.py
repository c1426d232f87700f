"""Where the tests' servers come from, behind one interface: ``servers()`` yields their URLs and, for the servers a
test may kill and start again that the stack does not start itself, their controls.

* ``TURF_NATS_URL`` / ``TURF_DATABASE_URL`` / ``TURF_REDIS_URL`` set: those servers (no controls);
* ``TURF_TEST_BACKEND=containers`` (where Docker runs): PostgreSQL, Redis and NATS with JetStream in containers
  (``tests/support/containers.py``), each with its control, so the fault tests' ``stack.stop_server`` /
  ``start_server`` kill and restart a container as they do an embedded server;
* otherwise (the default): nothing here — the stack starts its embedded servers itself.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from turfwar.stack import ServerControl

VARS = {"nats": "TURF_NATS_URL", "postgres": "TURF_DATABASE_URL", "redis": "TURF_REDIS_URL"}


@dataclass
class Servers:
    urls: dict[str, str] = field(default_factory=dict)   # the TURF_*_URL variables (empty: embedded servers)
    controls: dict[str, ServerControl] = field(default_factory=dict)   # by server name: nats, postgres, redis


@contextlib.contextmanager
def servers() -> Iterator[Servers]:
    """The servers the stack should use."""
    given = {var: os.environ[var] for var in VARS.values() if os.environ.get(var)}
    if os.environ.get("TURF_TEST_BACKEND") != "containers":
        yield Servers(given)
        return
    from tests.support.containers import containers

    with containers() as (urls, controls):
        # a server given by its URL replaces its container, and so is not the container's to kill
        yield Servers(urls | given, {name: c for name, c in controls.items() if VARS[name] not in given})
