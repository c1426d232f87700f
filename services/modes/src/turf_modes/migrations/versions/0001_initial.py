"""initial modes schema: games, actions, resolutions, outbox, inbox"""
from turf_common.migrations import create_and_drop

revision = "0001"
down_revision = None

TABLES = {
    "games": (
        "game_id varchar(64) PRIMARY KEY",
        "command_id varchar(64) NOT NULL UNIQUE",
        "mode varchar(16) NOT NULL",
        "status varchar(16) NOT NULL",
        "created_by varchar(64) NOT NULL",
        "created_at timestamptz NOT NULL",
        "seed text NOT NULL",
        "seed_commitment varchar(64) NOT NULL",
        "config json NOT NULL",
        "turn integer NOT NULL",
        "next_at timestamptz",
    ),
    "actions": (
        "game_id varchar(64) REFERENCES modes.games (game_id)",
        "seq bigint",
        "action json NOT NULL",
        "PRIMARY KEY (game_id, seq)",
    ),
    "resolutions": (
        "game_id varchar(64) REFERENCES modes.games (game_id)",
        "turn integer",
        "resolved_at timestamptz NOT NULL",
        "PRIMARY KEY (game_id, turn)",
    ),
}
INDEXES = (
    "CREATE INDEX ix_modes_games_next_at ON modes.games (next_at)",
)

upgrade, downgrade = create_and_drop("modes", TABLES, INDEXES, outbox=True, inbox=True)
