"""R31: medals and the day's standings per season (each season has its own scores and medals; a player's medals of
every season stay): ``season_id`` in ``medal_changes``, ``medal_awards`` and ``scores``, part of the key of the last
two. Every row before seasons is the 2026 season's (the configuration file's, the first of every catalog)."""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"

S = "notify"
FIRST = "2026"
#: table → its key after (before: without season_id)
KEYED = {"medal_awards": ["season_id", "player_id", "medal", "tier"], "scores": ["season_id", "player_id"]}


def upgrade() -> None:
    for table in ("medal_changes", *KEYED):
        op.add_column(table, sa.Column("season_id", sa.String(32), nullable=False, server_default=FIRST), schema=S)
        op.alter_column(table, "season_id", server_default=None, schema=S)
    for table, key in KEYED.items():
        op.drop_constraint(f"{table}_pkey", table, schema=S)
        op.create_primary_key(f"{table}_pkey", table, key, schema=S)
    op.create_index("ix_medal_changes_season", "medal_changes", ["season_id", "seq"], schema=S)


def downgrade() -> None:
    # one season again: the first one's rows stay, a later season's go
    op.drop_index("ix_medal_changes_season", "medal_changes", schema=S)
    for table, key in KEYED.items():
        op.execute(f"DELETE FROM {S}.{table} WHERE season_id <> '{FIRST}'")
        op.drop_constraint(f"{table}_pkey", table, schema=S)
        op.create_primary_key(f"{table}_pkey", table, key[1:], schema=S)
    op.execute(f"DELETE FROM {S}.medal_changes WHERE season_id <> '{FIRST}'")
    for table in ("medal_changes", *KEYED):
        op.drop_column(table, "season_id", schema=S)
