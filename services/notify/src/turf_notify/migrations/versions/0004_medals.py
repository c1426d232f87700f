"""medals: the public territory changes they are counted from, in stream order, and the tiers awarded (each once)"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"

S = "notify"


def upgrade() -> None:
    op.create_table(
        "medal_changes",
        sa.Column("seq", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("event_id", sa.String(64), nullable=False, unique=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("territory_id", sa.String(16), nullable=False),
        sa.Column("owner_id", sa.String(64), nullable=True),
        sa.Column("previous_owner_id", sa.String(64), nullable=True),
        sa.Column("fortified", sa.Boolean, nullable=False),
        sa.Column("cause", sa.String(32), nullable=False),
        schema=S,
    )
    op.create_index("ix_medal_changes_owner", "medal_changes", ["owner_id"], schema=S)
    op.create_index("ix_medal_changes_previous_owner", "medal_changes", ["previous_owner_id"], schema=S)
    op.create_table(
        "medal_awards",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("medal", sa.String(32), primary_key=True),
        sa.Column("tier", sa.String(16), primary_key=True),
        sa.Column("value", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        schema=S,
    )


def downgrade() -> None:
    op.drop_table("medal_awards", schema=S)
    op.drop_table("medal_changes", schema=S)
