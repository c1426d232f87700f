"""the organizer's corrections log (R28), append-only"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "corrections",
        sa.Column("seq", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("id", sa.String(64), nullable=False, unique=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("by", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("territory_id", sa.String(16), nullable=True),
        sa.Column("player_id", sa.String(64), nullable=True),
        sa.Column("request", sa.JSON, nullable=False),
        sa.Column("before", sa.JSON, nullable=False),
        sa.Column("after", sa.JSON, nullable=False),
        sa.Column("post_season", sa.Boolean, nullable=False),
        schema="gateway",
    )
    # append-only: the log can be read and added to, never changed
    op.execute("""
        CREATE FUNCTION gateway.corrections_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the corrections log is append-only'; END $$;
        CREATE TRIGGER corrections_append_only BEFORE UPDATE OR DELETE ON gateway.corrections
        FOR EACH ROW EXECUTE FUNCTION gateway.corrections_append_only();
    """)


def downgrade() -> None:
    op.execute("DROP TRIGGER corrections_append_only ON gateway.corrections")
    op.execute("DROP FUNCTION gateway.corrections_append_only()")
    op.drop_table("corrections", schema="gateway")
