"""Repeats of a flag between the same places merge into it (a count and the last time seen)"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.add_column("flags", sa.Column("count", sa.Integer, nullable=False, server_default=sa.text("1")),
                  schema="claims")
    op.add_column("flags", sa.Column("last_at", sa.DateTime(timezone=True), nullable=True), schema="claims")
    op.execute("UPDATE claims.flags SET last_at = at")
    op.alter_column("flags", "last_at", nullable=False, schema="claims")
    op.create_index("ix_flags_repeats", "flags", ["player_id", "kind", "at"], schema="claims")


def downgrade() -> None:
    op.drop_index("ix_flags_repeats", "flags", schema="claims")
    op.drop_column("flags", "last_at", schema="claims")
    op.drop_column("flags", "count", schema="claims")
