"""seats: who sits in which unfinished game (K19 rooms per player; T23, K21 departures of a removed player)"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

S = "modes"


def upgrade() -> None:
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(64), sa.ForeignKey(f"{S}.games.game_id"), primary_key=True),
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("mode", sa.String(16), nullable=False),
        schema=S,
    )
    op.create_index("ix_modes_seats_player_id", "seats", ["player_id"], schema=S)


def downgrade() -> None:
    op.drop_table("seats", schema=S)
