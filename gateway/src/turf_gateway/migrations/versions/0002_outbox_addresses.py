"""gateway outbox (player events) and geocoded home addresses"""
import sqlalchemy as sa
from alembic import op

from turf_common.migrations import create_outbox, drop_outbox

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.add_column("players", sa.Column("address_norm", sa.Text, nullable=True), schema="gateway")
    op.add_column("players", sa.Column("home_lat", sa.Float, nullable=True), schema="gateway")
    op.add_column("players", sa.Column("home_lon", sa.Float, nullable=True), schema="gateway")
    op.create_index("ix_gateway_players_address_norm", "players", ["address_norm"], schema="gateway")
    create_outbox("gateway")


def downgrade() -> None:
    drop_outbox("gateway")
    op.drop_index("ix_gateway_players_address_norm", "players", schema="gateway")
    for c in ("home_lon", "home_lat", "address_norm"):
        op.drop_column("players", c, schema="gateway")
