"""A PostgreSQL server of its own for a test that needs the database alone (no stack): embedded, in ``data_dir``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

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
