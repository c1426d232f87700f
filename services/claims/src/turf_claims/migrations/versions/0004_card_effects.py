"""card effects: command log, War reclaim windows, Freeze/Blockade protections, disqualified players"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "effect_commands",
        sa.Column("command_id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("response", sa.Text, nullable=False),
        sa.Column("detail", sa.JSON, nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        schema="claims",
    )
    op.create_table(
        "war_windows",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("territory_id", sa.String(16), nullable=False, index=True),
        sa.Column("holder_id", sa.String(64), nullable=False),
        sa.Column("victim_id", sa.String(64), nullable=False),
        sa.Column("steal_claim_id", sa.String(64), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("reclaim_claim_id", sa.String(64), nullable=True),
        schema="claims",
    )
    op.create_table(
        "protections",
        sa.Column("card_id", sa.String(64), primary_key=True),
        sa.Column("command_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("territory_id", sa.String(16), nullable=True),
        sa.Column("rival_id", sa.String(64), nullable=True),
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("scheduled_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        schema="claims",
    )
    op.create_index("ix_protections_day_state", "protections", ["day", "state"], schema="claims")
    # R15/R29: one Freeze per territory per day; R16: one Blockade per player and rival per day
    op.create_index("uq_protections_freeze", "protections", ["territory_id", "day"], unique=True, schema="claims",
                    postgresql_where=sa.text("kind = 'freeze' AND state IN ('scheduled', 'active')"))
    op.create_index("uq_protections_blockade", "protections", ["player_id", "rival_id", "day"], unique=True,
                    schema="claims",
                    postgresql_where=sa.text("kind = 'blockade' AND state IN ('scheduled', 'active')"))
    op.create_table(
        "excluded_players",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        schema="claims",
    )


def downgrade() -> None:
    op.drop_table("excluded_players", schema="claims")
    op.drop_table("protections", schema="claims")
    op.drop_table("war_windows", schema="claims")
    op.drop_table("effect_commands", schema="claims")
