"""initial claims schema: territories, claims, player days, idempotency, outbox, inbox

Frozen: the tables as they stood at this revision, written out (not today's models; the outbox and inbox by
turf_common.migrations, frozen too), so that a database made here and brought to head by the later revisions is the
one the code declares (tests/integration/test_migrations.py)."""
from turf_common.migrations import create_and_drop

revision = "0001"
down_revision = None

TABLES = {
    "claims": (
        "id varchar(64) PRIMARY KEY",
        "player_id varchar(64) NOT NULL",
        "territory_id varchar(16) NOT NULL",
        "kind varchar(16) NOT NULL",
        "normal boolean NOT NULL",
        "game_day date NOT NULL",
        "at timestamptz NOT NULL",
        "lat double precision NOT NULL",
        "lon double precision NOT NULL",
        "accuracy_m double precision NOT NULL",
        "fix_time timestamptz NOT NULL",
        "border_distance_m double precision",
        "previous_owner_id varchar(64)",
        "prev_progress integer NOT NULL",
        "prev_last_claim_day date",
        "prev_fortified boolean NOT NULL",
        "undone_by varchar(16)",
        "flags json NOT NULL",
    ),
    "idempotency": (
        "player_id varchar(64)",
        "key varchar(200)",
        "response text NOT NULL",
        "at timestamptz NOT NULL",
        "PRIMARY KEY (player_id, key)",
    ),
    "player_days": (
        "player_id varchar(64)",
        "game_day date",
        "extra_claims integer NOT NULL",
        "replacement_claims integer NOT NULL",
        "PRIMARY KEY (player_id, game_day)",
    ),
    "territories": (
        "id varchar(16) PRIMARY KEY",
        "owner_id varchar(64)",
        "progress integer NOT NULL",
        "last_claim_day date",
        "fortified boolean NOT NULL",
        "version integer NOT NULL",
    ),
}
INDEXES = (
    "CREATE INDEX ix_claims_day_player ON claims.claims (game_day, player_id)",
    "CREATE INDEX ix_claims_day_territory ON claims.claims (game_day, territory_id)",
    "CREATE INDEX ix_claims_territories_owner_id ON claims.territories (owner_id)",
)

upgrade, downgrade = create_and_drop("claims", TABLES, INDEXES, outbox=True, inbox=True)
