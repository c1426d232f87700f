"""initial modes schema: games, actions, resolutions, outbox, inbox"""
import sqlalchemy as sa
from alembic import op

from turf_common.migrations import create_inbox, create_outbox, drop_inbox, drop_outbox

revision = "0001"
down_revision = None

S = "modes"


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("command_id", sa.String(64), nullable=False, unique=True),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_by", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("seed_commitment", sa.String(64), nullable=False),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("turn", sa.Integer, nullable=False),
        sa.Column("next_at", sa.DateTime(timezone=True), nullable=True),
        schema=S,
    )
    op.create_index("ix_modes_games_next_at", "games", ["next_at"], schema=S)
    op.create_table(
        "actions",
        sa.Column("game_id", sa.String(64), sa.ForeignKey(f"{S}.games.game_id"), primary_key=True),
        sa.Column("seq", sa.BigInteger, primary_key=True),
        sa.Column("action", sa.JSON, nullable=False),
        schema=S,
    )
    op.create_table(
        "resolutions",
        sa.Column("game_id", sa.String(64), sa.ForeignKey(f"{S}.games.game_id"), primary_key=True),
        sa.Column("turn", sa.Integer, primary_key=True),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=False),
        schema=S,
    )
    create_outbox(S)
    create_inbox(S)


def downgrade() -> None:
    drop_inbox(S)
    drop_outbox(S)
    for name in ("resolutions", "actions", "games"):
        op.drop_table(name, schema=S)
