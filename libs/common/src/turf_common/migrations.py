"""The tables every service schema has, for its Alembic revisions to create and drop: the transactional outbox and
the idempotent inbox (:mod:`turf_common.outbox` reads and writes them).

Frozen: these are the tables as each service's first revision made them, not today's models
(:func:`turf_common.outbox.outbox_table`, :func:`~turf_common.outbox.inbox_table`). A change to them is a new
revision in each service, never an edit here: a database made before would not get it. The migrated schemas are held
to recorded dumps (``tests/integration/test_migrated_schemas.py``).

Call these inside a revision's ``upgrade``/``downgrade`` (they use :data:`alembic.op`)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


def create_outbox(schema: str) -> None:
    """Create ``<schema>.outbox``: ``seq`` (bigint identity, the key: the order rows are published in), ``event_id``
    (unique: the ``Nats-Msg-Id``), ``subject``, ``payload`` (the event's JSON text), ``created_at`` and
    ``published_at`` (timestamptz; null until the relay sent the row, indexed as ``ix_<schema>_outbox_published_at``
    for its sweep of the unsent)."""
    op.create_table(
        "outbox",
        sa.Column("seq", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("event_id", sa.String(64), nullable=False, unique=True),
        sa.Column("subject", sa.String(128), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True, index=True),
        schema=schema,
    )


def create_inbox(schema: str) -> None:
    """Create ``<schema>.inbox``: ``event_id`` (the key: an event handled once), ``subject`` and ``handled_at``
    (timestamptz)."""
    op.create_table(
        "inbox",
        sa.Column("event_id", sa.String(64), primary_key=True),
        sa.Column("subject", sa.String(128), nullable=False),
        sa.Column("handled_at", sa.DateTime(timezone=True), nullable=False),
        schema=schema,
    )


def drop_outbox(schema: str) -> None:
    """Drop ``<schema>.outbox`` with its index and identity sequence (what :func:`create_outbox` made)."""
    op.drop_table("outbox", schema=schema)


def drop_inbox(schema: str) -> None:
    """Drop ``<schema>.inbox`` (what :func:`create_inbox` made)."""
    op.drop_table("inbox", schema=schema)
