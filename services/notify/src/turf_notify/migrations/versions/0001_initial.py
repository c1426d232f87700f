"""initial notify schema: players, notifications, reads, subscriptions, pushes, posts, reminders, scores,
announcements, keys, outbox, inbox"""
import sqlalchemy as sa
from alembic import op

from turf_common.migrations import create_inbox, create_outbox, drop_inbox, drop_outbox

revision = "0001"
down_revision = None

S = "notify"


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("display_name", sa.String(128), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        schema=S,
    )
    op.create_table(
        "notifications",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        schema=S,
    )
    op.create_index("ix_notifications_player", "notifications", ["player_id", "id"], schema=S)
    op.create_table(
        "reads",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("up_to", sa.BigInteger, nullable=False),
        schema=S,
    )
    op.create_table(
        "subscriptions",
        sa.Column("endpoint", sa.String(2048), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False, index=True),
        sa.Column("p256dh", sa.String(256), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        schema=S,
    )
    op.create_table(
        "pushes",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False, index=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("not_before", sa.DateTime(timezone=True), nullable=False),
        sa.Column("hold_until", sa.DateTime(timezone=True), nullable=False),
        schema=S,
    )
    op.create_table(
        "posts",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True, index=True),
        schema=S,
    )
    op.create_table(
        "reminders",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("territory_id", sa.String(16), nullable=False),
        sa.Column("due", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("until", sa.DateTime(timezone=True), nullable=False),
        schema=S,
    )
    op.create_table(
        "scores",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("total", sa.BigInteger, nullable=False),
        schema=S,
    )
    op.create_table(
        "announcements",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("command_id", sa.String(64), nullable=False, unique=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        schema=S,
    )
    op.create_table(
        "keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        schema=S,
    )
    create_outbox(S)
    create_inbox(S)


def downgrade() -> None:
    drop_inbox(S)
    drop_outbox(S)
    for name in ("keys", "announcements", "scores", "reminders", "posts", "pushes",
                 "subscriptions", "reads", "notifications", "players"):
        op.drop_table(name, schema=S)
