"""push subscriptions keyed by (player, endpoint), with the time each was last saved (the per-player cap
replaces the least recently saved)"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

S = "notify"


def upgrade() -> None:
    op.add_column("subscriptions", sa.Column("saved_at", sa.DateTime(timezone=True), nullable=True), schema=S)
    op.execute(f"UPDATE {S}.subscriptions SET saved_at = created_at")
    op.alter_column("subscriptions", "saved_at", nullable=False, schema=S)
    op.drop_constraint("subscriptions_pkey", "subscriptions", schema=S)
    op.drop_index("ix_notify_subscriptions_player_id", "subscriptions", schema=S)
    op.create_primary_key("subscriptions_pkey", "subscriptions", ["player_id", "endpoint"], schema=S)


def downgrade() -> None:
    # the endpoint alone becomes the key again: of an endpoint several players saved, the last saved stays
    op.execute(f"DELETE FROM {S}.subscriptions a USING {S}.subscriptions b "
               "WHERE a.endpoint = b.endpoint AND (a.saved_at, a.player_id) < (b.saved_at, b.player_id)")
    op.drop_constraint("subscriptions_pkey", "subscriptions", schema=S)
    op.create_primary_key("subscriptions_pkey", "subscriptions", ["endpoint"], schema=S)
    op.create_index("ix_notify_subscriptions_player_id", "subscriptions", ["player_id"], schema=S)
    op.drop_column("subscriptions", "saved_at", schema=S)
