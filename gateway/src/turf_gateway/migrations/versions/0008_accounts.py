"""R30: players' confirmed email addresses and the single-use tokens sent by mail (stored as hashes)"""
import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"

S = "gateway"


def upgrade() -> None:
    op.add_column("players", sa.Column("email_confirmed", sa.Boolean, nullable=False, server_default="false"),
                  schema=S)
    op.add_column("players", sa.Column("announcements_by_mail", sa.Boolean, nullable=False, server_default="true"),
                  schema=S)
    op.create_table(
        "account_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False, index=True),
        sa.Column("purpose", sa.String(32), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        schema=S,
    )


def downgrade() -> None:
    op.drop_table("account_tokens", schema=S)
    op.drop_column("players", "announcements_by_mail", schema=S)
    op.drop_column("players", "email_confirmed", schema=S)
