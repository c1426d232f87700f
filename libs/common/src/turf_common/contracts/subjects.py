"""Every NATS subject, in one place. Events: noun + past tense; commands: noun (plural) + imperative."""

# commands (request/reply)
GEO_LOCATE = "geo.locate"
CLAIMS_SUBMIT = "claims.submit"
CLAIMS_CHECK = "claims.check"
CLAIMS_STATE = "claims.state"          # read model for the gateway: territory ownership
CLAIMS_PLAYER = "claims.player"        # claims_left_today for GET /me
CLAIMS_FLAGS = "claims.flags"          # anti-spoofing flags for the organizer
CLOCK_SET = "clock.set"
CLOCK_GET = "clock.get"
SCORING_LEADERBOARD = "scoring.leaderboard"
SCORING_RESULTS = "scoring.results"


def health(service: str) -> str:
    return f"svc.{service}.health"


# events (JetStream)
CLAIM_ACCEPTED = "claim.accepted"
CLAIM_REJECTED = "claim.rejected"
FLAG_RAISED = "flag.raised"
TERRITORY_CHANGED = "territory.changed"
SCORE_UPDATED = "score.updated"
CLOCK_SEASON_STARTED = "clock.season_started"
CLOCK_WEEK_STARTED = "clock.week_started"
CLOCK_DAY_STARTED = "clock.day_started"
CLOCK_DAY_CLOSED = "clock.day_closed"
CLOCK_SEASON_ENDED = "clock.season_ended"
CLOCK_CHANGED = "clock.changed"
SEASON_FINAL_RESULTS = "season.final_results"

SERVICES = ("geo-verify", "claims", "cards", "scoring", "clock")
