"""snapshots: each game's state kept with its log, so a read loads one row, not the whole log (T20, K16)"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"

S = "modes"


def upgrade() -> None:
    # games stored before have none: their first read replays the log, their next command writes one
    op.add_column("games", sa.Column("snapshot", sa.JSON, nullable=True), schema=S)
    op.add_column("games", sa.Column("snapshot_n", sa.BigInteger, nullable=False, server_default="0"), schema=S)


def downgrade() -> None:
    op.drop_column("games", "snapshot_n", schema=S)
    op.drop_column("games", "snapshot", schema=S)
