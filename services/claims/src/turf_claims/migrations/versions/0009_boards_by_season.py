"""R31: each season has its own board. The territories' rows are keyed by season (``(season_id, id)``), and the
claims log and the War reclaim windows say which season's board they moved; every existing row is the first
season's, ``2026`` (the configuration file's season, the first of every catalog)."""
from alembic import op

revision = "0009"
down_revision = "0008"

FIRST_SEASON = "2026"
TABLES = ("territories", "claims", "war_windows")


def upgrade() -> None:
    for table in TABLES:
        # the default writes the first season into the rows there are, then goes: every writer names its season
        op.execute(f"ALTER TABLE claims.{table} ADD COLUMN season_id varchar(32) NOT NULL DEFAULT '{FIRST_SEASON}'")
        op.execute(f"ALTER TABLE claims.{table} ALTER COLUMN season_id DROP DEFAULT")
    op.execute("ALTER TABLE claims.territories DROP CONSTRAINT territories_pkey")
    op.execute("ALTER TABLE claims.territories ADD CONSTRAINT territories_pkey PRIMARY KEY (season_id, id)")
    # a season's log (claims.list of a season, a correction's later moves) and a season's windows
    op.execute("CREATE INDEX ix_claims_season_territory ON claims.claims (season_id, territory_id)")


def downgrade() -> None:
    # the older schema holds one board: the other seasons' rows cannot stay
    op.execute("DROP INDEX claims.ix_claims_season_territory")
    op.execute(f"DELETE FROM claims.territories WHERE season_id <> '{FIRST_SEASON}'")
    op.execute(f"DELETE FROM claims.war_windows WHERE season_id <> '{FIRST_SEASON}'")
    op.execute(f"DELETE FROM claims.claims WHERE season_id <> '{FIRST_SEASON}'")
    op.execute("ALTER TABLE claims.territories DROP CONSTRAINT territories_pkey")
    op.execute("ALTER TABLE claims.territories ADD CONSTRAINT territories_pkey PRIMARY KEY (id)")
    for table in TABLES:
        op.execute(f"ALTER TABLE claims.{table} DROP COLUMN season_id")
