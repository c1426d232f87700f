"""initial cards schema: players, cards, sagas, trades, season, outbox, inbox"""
import sqlalchemy as sa
from alembic import op

from turf_common.migrations import create_inbox, create_outbox, drop_inbox, drop_outbox

revision = "0001"
down_revision = None

S = "cards"


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("verified_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("draws", sa.Integer, nullable=False, server_default="0"),
        schema=S,
    )
    op.create_table(
        "cards",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("card_type", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("draw_index", sa.Integer, nullable=True),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("drawn_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("saga_id", sa.String(64), nullable=True),
        sa.Column("scheduled_for", sa.Date, nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        schema=S,
    )
    op.create_index("ix_cards_player_state", "cards", ["player_id", "state"], schema=S)
    op.create_table(
        "sagas",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("card_type", sa.String(16), nullable=False),
        sa.Column("card_ids", sa.JSON, nullable=False),
        sa.Column("subject", sa.String(64), nullable=False),
        sa.Column("command", sa.Text, nullable=False),
        sa.Column("trade_id", sa.String(64), nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("reply", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        schema=S,
    )
    op.create_index("ix_sagas_state", "sagas", ["state"], schema=S)
    op.create_table(
        "trades",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("proposer_id", sa.String(64), nullable=False, index=True),
        sa.Column("partner_id", sa.String(64), nullable=False, index=True),
        sa.Column("offer_territory_id", sa.String(16), nullable=False),
        sa.Column("want_territory_id", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(64), nullable=True),
        sa.Column("saga_id", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        schema=S,
    )
    op.create_table(
        "season",
        sa.Column("season_id", sa.String(32), primary_key=True),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("started", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("ended", sa.Boolean, nullable=False, server_default=sa.false()),
        schema=S,
    )
    create_outbox(S)
    create_inbox(S)


def downgrade() -> None:
    drop_inbox(S)
    drop_outbox(S)
    for name in ("season", "trades", "sagas", "cards", "players"):
        op.drop_table(name, schema=S)
