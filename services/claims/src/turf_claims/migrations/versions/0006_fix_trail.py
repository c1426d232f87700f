"""R7.1 (amended): the trail of every fix the server sees is read newest first per player"""
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    # each claim and check reads the player's latest fixes (the trail) and no longer looks up identical ones
    op.execute("CREATE INDEX IF NOT EXISTS ix_fixes_trail ON claims.fixes (player_id, id)")
    op.execute("DROP INDEX IF EXISTS claims.ix_fixes_same")


def downgrade() -> None:
    op.execute("CREATE INDEX IF NOT EXISTS ix_fixes_same ON claims.fixes (player_id, lat, lon, accuracy_m)")
    op.execute("DROP INDEX IF EXISTS claims.ix_fixes_trail")
