"""The shared body of every service's Alembic ``env.py``: online mode only, on the connection handed in
by :func:`turf_common.db.run_migrations`, version table inside the service's schema."""

from __future__ import annotations

from typing import Any


def run(context: Any) -> None:
    conn = context.config.attributes["connection"]
    schema = context.config.attributes["schema"]
    context.configure(connection=conn, version_table_schema=schema, include_schemas=True)
    with context.begin_transaction():
        context.run_migrations()
