"""initial cards schema: players, cards, sagas, trades, season, outbox, inbox"""
from turf_common.migrations import create_and_drop

revision = "0001"
down_revision = None

TABLES = {
    "players": (
        "player_id varchar(64) PRIMARY KEY",
        "status varchar(16) NOT NULL",
        "verified_at timestamptz NOT NULL",
        "draws integer NOT NULL DEFAULT 0",
    ),
    "cards": (
        "id varchar(64) PRIMARY KEY",
        "player_id varchar(64) NOT NULL",
        "card_type varchar(16) NOT NULL",
        "state varchar(16) NOT NULL",
        "draw_index integer",
        "reason varchar(16) NOT NULL",
        "drawn_at timestamptz NOT NULL",
        "saga_id varchar(64)",
        "scheduled_for date",
        "updated_at timestamptz NOT NULL",
    ),
    "sagas": (
        "id varchar(64) PRIMARY KEY",
        "kind varchar(16) NOT NULL",
        "player_id varchar(64) NOT NULL",
        "card_type varchar(16) NOT NULL",
        "card_ids json NOT NULL",
        "subject varchar(64) NOT NULL",
        "command text NOT NULL",
        "trade_id varchar(64)",
        "state varchar(16) NOT NULL",
        "reply text",
        "created_at timestamptz NOT NULL",
        "updated_at timestamptz NOT NULL",
    ),
    "trades": (
        "id varchar(64) PRIMARY KEY",
        "proposer_id varchar(64) NOT NULL",
        "partner_id varchar(64) NOT NULL",
        "offer_territory_id varchar(16) NOT NULL",
        "want_territory_id varchar(16) NOT NULL",
        "state varchar(16) NOT NULL",
        "reason varchar(64)",
        "saga_id varchar(64)",
        "created_at timestamptz NOT NULL",
        "closed_at timestamptz",
    ),
    "season": (
        "season_id varchar(32) PRIMARY KEY",
        "commitment varchar(64) NOT NULL",
        "started boolean NOT NULL DEFAULT false",
        "ended boolean NOT NULL DEFAULT false",
    ),
}
INDEXES = (
    "CREATE INDEX ix_cards_player_state ON cards.cards (player_id, state)",
    "CREATE INDEX ix_sagas_state ON cards.sagas (state)",
    "CREATE INDEX ix_cards_trades_proposer_id ON cards.trades (proposer_id)",
    "CREATE INDEX ix_cards_trades_partner_id ON cards.trades (partner_id)",
)

upgrade, downgrade = create_and_drop("cards", TABLES, INDEXES, outbox=True, inbox=True)
