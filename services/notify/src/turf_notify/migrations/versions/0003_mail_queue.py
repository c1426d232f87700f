"""R30: the mail queue (the mail channel's outbox)"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"

S = "notify"


def upgrade() -> None:
    op.create_table(
        "mails",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("key", sa.String(64), nullable=False, unique=True),
        sa.Column("to_addr", sa.String(320), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("html", sa.Text, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        schema=S,
    )
    op.create_index("ix_mails_due", "mails", ["status", "next_at"], schema=S)


def downgrade() -> None:
    op.drop_table("mails", schema=S)
