"""initial clock schema

Revision ID: 0001
Revises:
"""
from alembic import op

from turf_clock.adapters.tables import metadata

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    metadata.create_all(bind=op.get_bind())


def downgrade() -> None:
    metadata.drop_all(bind=op.get_bind())
