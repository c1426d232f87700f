"""R30: players' confirmed email addresses and the single-use tokens sent by mail (stored as hashes)"""
import sqlalchemy as sa
from alembic import op

from turf_common.migrations import create_tables, drop_tables

revision = "0008"
down_revision = "0007"

S = "gateway"
TABLES = {
    "account_tokens": (
        "token_hash varchar(64) PRIMARY KEY",
        "player_id varchar(64) NOT NULL",
        "purpose varchar(32) NOT NULL",
        "email varchar(320) NOT NULL",
        "expires_at timestamptz NOT NULL",
        "used_at timestamptz",
    ),
}
INDEXES = (
    "CREATE INDEX ix_gateway_account_tokens_player_id ON gateway.account_tokens (player_id)",
)


def upgrade() -> None:
    op.add_column("players", sa.Column("email_confirmed", sa.Boolean, nullable=False, server_default="false"),
                  schema=S)
    op.add_column("players", sa.Column("announcements_by_mail", sa.Boolean, nullable=False, server_default="true"),
                  schema=S)
    create_tables(S, TABLES, INDEXES)


def downgrade() -> None:
    drop_tables(S, TABLES)
    op.drop_column("players", "announcements_by_mail", schema=S)
    op.drop_column("players", "email_confirmed", schema=S)
