"""The public feed's history (territory history, player journals, replay), by stream sequence"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "feed_log",
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("territory_id", sa.String(16), nullable=True),
        sa.Column("players", postgresql.ARRAY(sa.String(64)), nullable=False),
        sa.Column("body", postgresql.JSONB, nullable=False),
        schema="gateway",
    )
    op.create_index("feed_log_territory", "feed_log", ["territory_id", "seq"], schema="gateway",
                    postgresql_where=sa.text("territory_id IS NOT NULL"))
    op.create_index("feed_log_at", "feed_log", ["at", "seq"], schema="gateway")
    op.create_index("feed_log_players", "feed_log", ["players"], schema="gateway", postgresql_using="gin")


def downgrade() -> None:
    op.drop_table("feed_log", schema="gateway")
