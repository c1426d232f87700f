"""The ports' implementations and whatever else talks to a server or a library with state: PostgreSQL (the tables
and the stores), Redis (rate limits, idempotency keys), NATS (the services, the feed stream, session revocation),
argon2, the geocoder, matplotlib; and the in-process caches (sessions, the board's body)."""
