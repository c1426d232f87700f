"""R31: seasons as data (the organizer's catalog, each season's R1 configuration and R26 prizes as JSON) and which
players joined which season. The season of the configuration file (2026) is written at the gateway's start, with
every player then registered joined to it (turf_gateway.adapters.season_store.SqlSeasons.ensure)."""
from turf_common.migrations import create_and_drop

revision = "0009"
down_revision = "0008"

S = "gateway"
TABLES = {
    "seasons": (
        "id varchar(32) PRIMARY KEY",
        "name varchar(80) NOT NULL",
        "config jsonb NOT NULL",
        "prizes jsonb NOT NULL",
        "seed_commitment varchar(64) NOT NULL",
        "rehearsal boolean NOT NULL DEFAULT false",
        "created_at timestamptz NOT NULL",
        "created_by varchar(64) NOT NULL",
        "updated_at timestamptz NOT NULL",
    ),
    "season_players": (
        "season_id varchar(32) NOT NULL",
        "player_id varchar(64) NOT NULL",
        "joined_at timestamptz NOT NULL",
        # R31/R27: the home address the player confirmed when joining (a changed one needs verifying again)
        "home_address text NOT NULL",
        "PRIMARY KEY (season_id, player_id)",
    ),
}
INDEXES = (
    "CREATE INDEX ix_gateway_season_players_player_id ON gateway.season_players (player_id)",
)


upgrade, downgrade = create_and_drop(S, TABLES, INDEXES)
