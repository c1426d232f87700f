"""Embedded Redis and NATS servers for a test module or a contract suite that needs one alone (no stack): started in
a fresh folder of the session's temporary tree, stopped after, their URL yielded. PostgreSQL's is ``pg.py``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from turfwar import embedded


@contextlib.contextmanager
def redis_server(tmp: pytest.TempPathFactory, name: str) -> Iterator[str]:
    """A password-protected Redis (``embedded.start_redis``) in ``tmp``'s folder ``name``; its URL."""
    srv = embedded.start_redis(tmp.mktemp(name))
    try:
        yield srv.url
    finally:
        srv.stop()


@contextlib.contextmanager
def nats_server(tmp: pytest.TempPathFactory, name: str) -> Iterator[str]:
    """NATS with JetStream and the project's users (``embedded.start_nats``) in ``tmp``'s folder ``name``; the
    ``admin`` user's URL."""
    srv = embedded.start_nats(tmp.mktemp(name))
    try:
        yield srv.url
    finally:
        srv.stop()
