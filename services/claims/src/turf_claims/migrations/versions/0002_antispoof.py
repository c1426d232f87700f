"""fixes and flags for anti-spoofing review"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "fixes",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False, index=True),
        sa.Column("lat", sa.Float, nullable=False),
        sa.Column("lon", sa.Float, nullable=False),
        sa.Column("accuracy_m", sa.Float, nullable=False),
        sa.Column("fix_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claim_id", sa.String(64), nullable=True),
        schema="claims",
    )
    op.create_index("ix_fixes_same", "fixes", ["player_id", "lat", "lon", "accuracy_m"], schema="claims")
    op.create_table(
        "flags",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False, index=True),
        sa.Column("claim_id", sa.String(64), nullable=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("evidence", sa.JSON, nullable=False),
        schema="claims",
    )


def downgrade() -> None:
    op.drop_table("flags", schema="claims")
    op.drop_table("fixes", schema="claims")
