"""R28: corrections recorded with their command id before the owning service is asked (Idempotency-Key)"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "correction_requests",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("by", sa.String(64), nullable=False),
        sa.Column("idempotency_key", sa.String(200), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("post_season", sa.Boolean, nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("request", sa.JSON, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("refusal", sa.JSON, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("by", "idempotency_key", name="correction_requests_key"),
        schema="gateway",
    )


def downgrade() -> None:
    op.drop_table("correction_requests", schema="gateway")
