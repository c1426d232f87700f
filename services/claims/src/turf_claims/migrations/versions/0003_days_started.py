"""game days whose day-start work is done (R5)"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "days_started",
        sa.Column("game_day", sa.Date, primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        schema="claims",
    )


def downgrade() -> None:
    op.drop_table("days_started", schema="claims")
