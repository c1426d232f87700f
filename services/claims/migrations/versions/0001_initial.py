"""initial claims schema

Revision ID: 0001
Revises:
"""
from alembic import op

from turf_claims.adapters.tables import metadata

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


# the tables as they stood at this revision; later revisions add theirs explicitly
TABLES = ("territories", "claims", "player_days", "idempotency", "outbox", "inbox")


def _tables() -> list:
    return [t for t in metadata.sorted_tables if t.name in TABLES]


def upgrade() -> None:
    metadata.create_all(bind=op.get_bind(), tables=_tables())


def downgrade() -> None:
    metadata.drop_all(bind=op.get_bind(), tables=_tables())
