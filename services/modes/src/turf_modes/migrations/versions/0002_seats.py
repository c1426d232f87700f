"""seats: who sits in which unfinished game (K19 rooms per player; T23, K21 departures of a removed player)"""
from turf_common.migrations import create_and_drop

revision = "0002"
down_revision = "0001"

TABLES = {
    "seats": (
        "game_id varchar(64) REFERENCES modes.games (game_id)",
        "player_id varchar(64)",
        "mode varchar(16) NOT NULL",
        "PRIMARY KEY (game_id, player_id)",
    ),
}
INDEXES = (
    "CREATE INDEX ix_modes_seats_player_id ON modes.seats (player_id)",
)

upgrade, downgrade = create_and_drop("modes", TABLES, INDEXES)
