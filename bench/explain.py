"""Reasons and next steps for goals a run does not meet, written from the profiles of the runs (the live profile
of the run is printed under each). Keep these in step with what the profiles show."""

from __future__ import annotations

from typing import Any

ANALYSIS: dict[str, str] = {
    "claims": (
        "**Reason.** The claims path is CPU-bound in Python, across several processes that share the machine's two "
        "cores: per accepted claim the claims service spends its time building SQLAlchemy Core statements "
        "(expression construction and cache keys), in psycopg and greenlet switches for about a dozen SQL "
        "statements inside the claim's transaction, then in the outbox relay; the gateway spends it in FastAPI's "
        "request handling, the per-request token lookup, two NATS requests (geo.locate, claims.submit), the "
        "rate limiter's Redis calls and forwarding each `score.updated` (with the whole leaderboard) to the "
        "spectator hub; the scoring service rebuilds the full leaderboard for every change; the cards service "
        "consumes every `territory.changed`. The /proc CPU split in the notes above is the measured budget. "
        "PostgreSQL itself is a small share: pgbench on the same server commits thousands of single-row updates "
        "per second, so the database is not the limit.\n\n"
        "**Done here.** Concurrent claims share one outbox flush instead of each running its own (two "
        "transactions and a publish per claim, one after another under the relay's lock); the claimant's day "
        "facts and the anti-spoofing screen are one SQL round trip each instead of five.\n\n"
        "**Next steps**, biggest first: (1) build the claim's statements once (bound parameters, or `text()`) "
        "instead of per call, and fold the card facts (War window, Freeze, Blockade: three queries) into the "
        "territory query; (2) the scoring service should keep the leaderboard incrementally (a Redis sorted set "
        "per total and side quest) and publish only the changed standings, which also shrinks what the gateway "
        "validates and fans out; (3) a session cache in the gateway with explicit invalidation on status changes; "
        "(4) run services on their own cores (replicas in the `claims` queue group): the 1 → 2 replica rows show "
        "how far a second replica helps on a machine that is already CPU-bound."
    ),
    "scoring": (
        "**Reason.** The incremental handler rescores only the two players a change touches (the networkx part "
        "is hundreds of times cheaper than recomputing everyone: see the row above), but it then rebuilds the "
        "whole leaderboard from Redis on every event (HGETALL of every score, JSON decode of each, the side "
        "quests over every owned territory, a pydantic model of every standing) and publishes it whole. That "
        "rebuild is O(players) and dominates the handler, so the ratio against a full recompute is capped near "
        "(full networkx + rebuild) / rebuild. The same O(players) message is then validated, named and fanned out "
        "by the gateway, which is what the feed latency measures.\n\n"
        "**Next step.** Keep totals in a Redis sorted set updated by the two rescored players (ranks come from "
        "ZREVRANK), keep side-quest leaders incrementally, and publish a delta (the changed standings and the "
        "ranks that moved); spectators then get small messages and the handler becomes O(log players)."
    ),
    "fan-out": (
        "**Reason.** Every `score.updated` carries the whole named leaderboard; the gateway validates it, adds "
        "display names and serialises it once, then writes it to every client. With many spectators the "
        "per-update cost is the number of clients times the message size, all in one Python event loop.\n\n"
        "**Next step.** Send deltas (see scoring), and give the spectator feed its own gateway replicas (NATS "
        "core subscriptions fan out to every replica at no cost to the services)."
    ),
    "board": (
        "**Reason.** The build is one single-threaded process; its CPU time is in the note of the row. When the "
        "wall time is far above the CPU time the machine was oversubscribed by other work during the run.\n\n"
        "**Next step.** The overlap/gap resolution and adjacency steps are per-territory and could run in a "
        "process pool."
    ),
    "geo": (
        "**Reason / next step.** See the profile; the point index is in `turf_common.board.loader`."
    ),
}

def scale(sections: list[Any]) -> str:
    """The scale-out paragraph, with the run's own per-replica figures."""
    rows = {r.metric: r for sec in sections for r in sec.rows}
    one = rows.get("accepted claims/s, 1 claims replica")
    two = rows.get("accepted claims/s, 2 claims replicas")
    r1 = one.ours if one and one.ours else None
    r2 = two.ours if two and two.ours else None
    figures = ""
    if r1:
        figures = (
            f"\n\nMeasured here: **{r1:,.0f} accepted claims/s with one claims replica**"
            + (f" and **{r2:,.0f}/s with two** ({r2 / r1:.2f}×)" if r2 else "")
            + ", all on the same two cores as PostgreSQL, NATS, Redis, the gateway, scoring, cards and the load "
            "generator. A second replica helps only as far as there is idle CPU: here the stack is CPU-bound, so "
            "the second replica mostly takes CPU from the others; on separate cores each replica would bring "
            "about the one-replica figure, up to PostgreSQL's commit rate (the pgbench row) divided by the "
            "statements per claim.\n\n"
            "For a 100,000-player season: R6 gives each player one claim a game day and R10 locks a territory "
            "for the day once claimed, so with 448 territories at most a few hundred claims a day are *accepted*, "
            "but every player may *submit*. A season-opening rush is up to 100,000 submissions within minutes of "
            "06:00, most of them refused (`locked_today`, `no_claims_left`). A refusal was not measured on its own; "
            "it takes the same locks, reads the same facts and records the fix, but publishes only "
            "`claim.rejected` (no scoring, no cards, no feed), so from the CPU split above it costs roughly the "
            "claims and gateway shares of an acceptance. At the measured one-replica rate, 100,000 submissions "
            f"take about {100_000 / r1 / 60:,.0f} minutes to absorb with one replica; clearing them in 10 minutes "
            f"(≈ {100_000 / 600:,.0f} submissions/s) needs about {100_000 / 600 / r1:,.0f} replicas' worth of this "
            "per-replica figure on cores of their own (fewer once refusals are counted at their lower cost), "
            "with the gateway, geo-verify and PostgreSQL scaled alongside: PostgreSQL's single-row commit rate on "
            "this machine (pgbench, 16 clients) is the ceiling for one database, which is where partitioning "
            "claims by territory across databases (or a claims schema per territory range) comes in. Replica "
            "count is the blunt tool; the per-claim CPU cuts listed above multiply whatever the replicas give."
        )
    return (
        "Scale beyond one machine is by replicas: every service subscribes to its commands in a NATS queue group "
        "named after it (`claims`, `geo-verify`, …), so a second process of the same service shares the requests "
        "with no configuration; events are published once through each service's outbox and consumed by "
        "durable JetStream consumers. The claims service serialises decisions per territory with a row lock (and "
        "per player with an advisory lock), so replicas never decide one territory twice at once; partitioning "
        "by territory (a subject per territory range, or consistent hashing of territory ids to replicas) keeps a "
        "territory's claims on one replica and removes cross-replica lock waits." + figures
    )


SCALE = scale([])  # without figures
