"""R31: hands per season. The players of each season (those who joined it) apart from the accounts (verified or
disqualified, shared by all seasons); every card in one season's hand. Existing rows belong to the season the
service played until now: the one whose seed commitment it recorded (the configuration file's, ``2026``)."""
from alembic import op

revision = "0002"
down_revision = "0001"

S = "cards"
#: the season of the rows written before seasons were data: the one recorded at the first start (R12.1), else 2026
OLD_SEASON = f"COALESCE((SELECT min(season_id) FROM {S}.season), '2026')"


def upgrade() -> None:
    # the accounts keep what player.verified / player.disqualified said; every player known until now took part
    # in the old season (R31: every player registered then joined it), with their draw index there
    op.execute(f"CREATE TABLE {S}.accounts (player_id varchar(64) PRIMARY KEY, status varchar(16) NOT NULL, "
               "verified_at timestamptz NOT NULL)")
    op.execute(f"INSERT INTO {S}.accounts (player_id, status, verified_at) "
               f"SELECT player_id, status, verified_at FROM {S}.players")
    op.execute(f"ALTER TABLE {S}.players ADD COLUMN season_id varchar(32)")
    op.execute(f"UPDATE {S}.players SET season_id = {OLD_SEASON}")
    op.execute(f"ALTER TABLE {S}.players ALTER COLUMN season_id SET NOT NULL")
    op.execute(f"ALTER TABLE {S}.players DROP CONSTRAINT players_pkey")
    op.execute(f"ALTER TABLE {S}.players ADD PRIMARY KEY (season_id, player_id)")
    op.execute(f"ALTER TABLE {S}.players RENAME COLUMN verified_at TO joined_at")
    op.execute(f"ALTER TABLE {S}.players DROP COLUMN status")
    op.execute(f"ALTER TABLE {S}.cards ADD COLUMN season_id varchar(32)")
    op.execute(f"UPDATE {S}.cards SET season_id = {OLD_SEASON}")
    op.execute(f"ALTER TABLE {S}.cards ALTER COLUMN season_id SET NOT NULL")
    op.execute(f"DROP INDEX {S}.ix_cards_player_state")
    op.execute(f"CREATE INDEX ix_cards_season_player_state ON {S}.cards (season_id, player_id, state)")


def downgrade() -> None:
    # one season's state only: the old season's (later seasons' hands and players are dropped)
    op.execute(f"DELETE FROM {S}.cards WHERE season_id <> {OLD_SEASON}")
    op.execute(f"DROP INDEX {S}.ix_cards_season_player_state")
    op.execute(f"CREATE INDEX ix_cards_player_state ON {S}.cards (player_id, state)")
    op.execute(f"ALTER TABLE {S}.cards DROP COLUMN season_id")
    op.execute(f"DELETE FROM {S}.players WHERE season_id <> {OLD_SEASON}")
    op.execute(f"ALTER TABLE {S}.players ADD COLUMN status varchar(16)")
    op.execute(f"UPDATE {S}.players p SET status = a.status FROM {S}.accounts a WHERE a.player_id = p.player_id")
    op.execute(f"INSERT INTO {S}.players (season_id, player_id, joined_at, draws, status) "
               f"SELECT {OLD_SEASON}, a.player_id, a.verified_at, 0, a.status FROM {S}.accounts a "
               f"WHERE NOT EXISTS (SELECT 1 FROM {S}.players p WHERE p.player_id = a.player_id)")
    op.execute(f"UPDATE {S}.players SET status = 'verified' WHERE status IS NULL")
    op.execute(f"ALTER TABLE {S}.players ALTER COLUMN status SET NOT NULL")
    op.execute(f"ALTER TABLE {S}.players RENAME COLUMN joined_at TO verified_at")
    op.execute(f"ALTER TABLE {S}.players DROP CONSTRAINT players_pkey")
    op.execute(f"ALTER TABLE {S}.players ADD PRIMARY KEY (player_id)")
    op.execute(f"ALTER TABLE {S}.players DROP COLUMN season_id")
    op.execute(f"DROP TABLE {S}.accounts")
