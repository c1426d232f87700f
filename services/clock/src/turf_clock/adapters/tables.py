"""The clock service's tables (schema ``clock``): the last boundary emitted, and the outbox."""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Integer, MetaData, Table

from turf_common.outbox import outbox_table

SCHEMA = "clock"
metadata = MetaData(schema=SCHEMA)

cursor = Table(
    "cursor", metadata,
    Column("id", Integer, primary_key=True),
    Column("emitted_upto", DateTime(timezone=True), nullable=False),
)
outbox = outbox_table(metadata, SCHEMA)
