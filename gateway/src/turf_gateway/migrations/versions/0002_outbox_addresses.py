"""gateway outbox (player events) and geocoded home addresses

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("players", sa.Column("address_norm", sa.Text, nullable=True), schema="gateway")
    op.add_column("players", sa.Column("home_lat", sa.Float, nullable=True), schema="gateway")
    op.add_column("players", sa.Column("home_lon", sa.Float, nullable=True), schema="gateway")
    op.create_index("ix_gateway_players_address_norm", "players", ["address_norm"], schema="gateway")
    op.create_table(
        "outbox",
        sa.Column("seq", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("event_id", sa.String(64), nullable=False, unique=True),
        sa.Column("subject", sa.String(128), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True, index=True),
        schema="gateway",
    )


def downgrade() -> None:
    op.drop_table("outbox", schema="gateway")
    op.drop_index("ix_gateway_players_address_norm", "players", schema="gateway")
    for c in ("home_lon", "home_lat", "address_norm"):
        op.drop_column("players", c, schema="gateway")
