"""Reasons and next steps for goals a run does not meet, written from the profiles of the runs (the live profile
of the run is printed under each). Keep these in step with what the profiles show."""

from __future__ import annotations

from typing import Any

ANALYSIS: dict[str, str] = {
    "claims": (
        "**Reason.** Throughput is bounded by CPU, not by PostgreSQL: the note above splits the CPU per accepted "
        "claim by process (from /proc), and on the same server pgbench commits far more single-row updates per "
        "second than we accept claims. An accepted claim is an HTTP request through the gateway's middleware "
        "(session, rate limit, trace, metrics, access log), one NATS request to the claims service, one PostgreSQL "
        "transaction, three events through the outbox and JetStream (`claim.accepted`, `territory.changed`, then "
        "`score.updated`), and the durable consumers that act on them: scoring (Redis), cards (trades), notify "
        "(the victim's notification, its push and Discord line, `notification.created`), the gateway's feed and "
        "its feed log. That is about ten Python process hops, each a fraction of a millisecond of interpreter "
        "time in FastStream, SQLAlchemy, psycopg and pydantic, on two cores shared with PostgreSQL, NATS, Redis "
        "and the load generator. Two cores give at most 2,000 ms / (CPU per claim) claims per second; 350 "
        "claims/s needs at most 5.7 ms across every process, and the profiles below show no single hot spot left "
        "that large: what remains is the per-message and per-request cost of the frameworks, paid once per hop. "
        "Even the stack at rest costs CPU (every durable consumer's pull every 0.1 s, every outbox's sweep, "
        "notify's timer: about 0.1 core here), which a loaded run divides among its claims.\n\n"
        "**The other rows of this section.** CPU per accepted claim is the same story counted the other way "
        "(the split is in the notes). The latency at 80 % of the measured rate is still queueing: the "
        "closed-loop rounds measure what the gateway and the claims service accept while the consumers "
        "(scoring, notify, cards, the feed log) trail behind and catch up in the next round, so 80 % of that "
        "rate already keeps both cores busy with the load generator beside them, and an open-loop arrival "
        "process then builds a queue (p50 and p99 in the row's note); at a calm pace (the paced row) a claim "
        "takes tens of milliseconds.\n\n"
        "**Why the goal matters less than it reads.** R10 locks a territory for the rest of the game day once a "
        "normal claim has been made on it, so a game day has at most one accepted normal claim per territory: "
        "448 on this board, whatever the number of players (War reclaims and Joker awards aside, bounded by the "
        "cards dealt). The opening bell's crowd is therefore almost all *refusals*: everyone after the first "
        "claimant of a town is refused `locked_today`. The refused-claims row measures exactly that crowd; its CPU "
        "per claim is a fraction of an acceptance's (no territory write, no scoring, cards, notify or feed work), "
        "and *Scaling out* below turns both figures into the cores a 100,000-player opening needs.\n\n"
        "**Done here** (the A/B section at the end has the before/after run of the same benchmark): "
        "claims decided in groups (one transaction, one outbox flush, the locks of a group taken up front in one "
        "statement each, a failed group decided claim by claim); the accepted claim's statement cached again "
        "(its multi-row `VALUES` made SQLAlchemy compile it for every claim: a fifth of the claims CPU); claims "
        "located on the gateway's own board index (no geo-verify hop); sessions cached in the gateway for 5 s "
        "with eviction on every replica; the gateway's pool sized so a burst stops reconnecting (0.175 → 0.001 "
        "scram handshakes per claim) and FastAPI's native OpenTelemetry off (it doubled our own span per request "
        "and added one per dependency); scoring, notify and the feed log take their events in batches (one "
        "rescore, one Redis round trip for the changes and one `score.updated` per run of changes; one "
        "transaction, one inbox statement, one names lookup and one outbox flush per notify batch; one insert "
        "per feed-log batch); outbox flushes publish their rows with acknowledgements awaited together; notify "
        "skips events that tell nobody anything; the idle sweeps do half the work; no request or batch pays a "
        "thread hop any more (FastAPI ran the gateway's plain-`def` state dependency in its thread pool on every "
        "request, and fast_depends the consumers' batch parameter; a test walks every route's dependencies); "
        "scoring's batch costs two Redis round trips instead of six.\n\n"
        "**Next steps**, biggest first: (1) cores: services are stateless between requests and claims are "
        "serialised per territory by row locks, so replicas on cores of their own multiply the one-replica figure "
        "(see *Scaling out*); on this machine the second replica and the second gateway find no idle CPU, so "
        "those rows stay flat or fall; (2) a cheaper HTTP edge: the gateway's request path is mostly Starlette and "
        "FastAPI machinery around a few microseconds of our own work, and the claim route could be served by a "
        "plain ASGI handler (or the middlewares folded into one); (3) push consumers instead of pulls for the hot "
        "durable consumers (the 0.1 s pull wait is both idle CPU and latency); (4) raw psycopg for the claims "
        "service's five statements (SQLAlchemy's execute path is a third of its remaining time)."
    ),
    "scoring": (
        "**Reason.** This row times three process hops in a chain: the claims service's outbox publishes "
        "`territory.changed`; scoring fetches it from its durable consumer, applies it and publishes "
        "`score.updated`; the gateway's ordered consumer relays that to the websocket. Each hop is a JetStream "
        "delivery (about 1.3 ms at rest from publish to fetch, measured alone), FastStream's decode and "
        "middlewares, our handler, and a publish awaited for its acknowledgement, on two cores that the same "
        "event wakes four other consumers on at the same instant (notify, cards, the feed log, the gateway's "
        "own relay of the change itself). The median is now about 19 ms, of which scoring's part (change → "
        "`score.updated`) is the row above and the gateway's relay the rest. The p99 of 150 samples is the "
        "second-worst delivery and moves by tens of ms between runs of the same code on this machine (the A/B "
        "section of this session: 70.8 ms before, 40.0 ms after, while the median moved 22.2 → 19.3 ms).\n\n"
        "**Done here.** Found by timing each step of scoring's handler at a paced 5 claims/s: fast_depends ran "
        "the durable consumers' `batch: Batch` context parameter in a worker thread (a thread hop and a GIL "
        "handoff per batch: 3.3 ms p50, 11.7 ms p90 between the fetch and the handler; now about 1.9 ms), and a "
        "batch of changes cost six Redis round trips (now two: one transaction applies the changes and reads "
        "what the delta needs, one pipeline writes the scores and swaps the side-quest bonuses; a third only "
        "when a bonus moved for a player the change did not touch).\n\n"
        "**Next steps.** (1) Push consumers for scoring and the gateway's feed instead of a fetch per round; "
        "(2) the gateway's relay validates each event against its contract and re-serialises it: "
        "about a millisecond that a compiled validator would halve; (3) side-quest totals kept per player in "
        "Redis, so a change no longer reads every owner (`HGETALL`, about 1 ms here). (The map itself moves "
        "sooner: the gateway relays `territory.changed` as it comes; this row times the standings' "
        "`score.updated` that follows it.)"
    ),
    "fan-out": (
        "**Reason.** The profile below: most of the gateway's busy samples during the fan-out are uvicorn's "
        "websocket `send` (one socket write per client per message) and the wake-ups of a thousand writer tasks, "
        "in one event loop on two cores shared with the rest of the stack and with the benchmark's own thousand "
        "clients (their CPU is in the note). Per-message deflate is off and a `score.updated` is a small delta, "
        "so what remains is per-client work: a message reaches the last of a thousand clients after a thousand "
        "socket writes.\n\n"
        "**Next step.** Put spectators on gateway replicas of their own (a NATS core subscription reaches every "
        "replica at no cost to the services), or write each frame once and hand the same bytes to every "
        "client's transport."
    ),
    "board": (
        "**Reason.** The build is one single-threaded process; its CPU time is in the row's note. When the wall "
        "time is far above the CPU time the machine was oversubscribed by other work during the run.\n\n"
        "**Next step.** The overlap/gap resolution and adjacency steps are per territory and could use a process "
        "pool."
    ),
    "geo": "**Reason / next step.** See the profile; the point index is in `turf_common.board.loader`.",
}


def scale(sections: list[Any]) -> str:
    """The scale-out paragraph, with the run's own per-replica figures and the arithmetic for a
    100,000-player league."""
    rows = {r.metric: r for sec in sections for r in sec.rows}

    def ours(metric: str) -> float | None:
        r = rows.get(metric)
        return r.ours if r is not None and r.ours else None

    r1 = ours("accepted claims/s, 1 claims replica")
    r2 = ours("accepted claims/s, 2 claims replicas")
    r2g = ours("accepted claims/s, 2 claims replicas behind 2 gateways")
    ca = ours("CPU per accepted claim, whole stack (1 replica)")
    cr = ours("CPU per refused claim, whole stack (1 replica)")
    pg = ours("pgbench single-row update, 1 / 4 / 16 clients")
    figures = ""
    if r1:
        figures = (
            f"\n\nMeasured here: **{r1:,.0f} accepted claims/s with one claims replica**"
            + (f", {r2:,.0f}/s with two" if r2 else "")
            + (f" and {r2g:,.0f}/s with two replicas behind two gateways" if r2g else "")
            + ", all on the same two cores as PostgreSQL, NATS, Redis, every other service and the load "
            "generator. A replica helps only as far as there is idle CPU: here the stack is CPU-bound, so a second "
            "process mostly takes CPU from the others (and adds its own idle cost); on cores of its own each "
            "replica brings about the one-replica figure."
        )
    if ca and cr:
        players, territories, window = 100_000, 448, 600
        cpu_s = (territories * ca + (players - territories) * cr) / 1000
        figures += (
            f"\n\n**A 100,000-player league at the opening bell.** R6 gives each player one normal "
            f"claim a game day and R10 lets a territory take one normal claim a day, so of {players:,} players "
            f"claiming at 06:00 at most {territories} are accepted and the rest are refused `locked_today` (or "
            f"accepted War reclaims and Joker awards, bounded by the cards dealt). With this run's figures, "
            f"{ca:.1f} ms of CPU per acceptance and {cr:.1f} ms per refusal across the whole stack, the crowd "
            f"costs {territories} × {ca:.1f} + {players - territories:,} × {cr:.1f} ms ≈ {cpu_s:,.0f} CPU-seconds: "
            f"if they all claim within {window // 60} minutes, {cpu_s / window:.1f} cores busy on average "
            f"({players / window:,.0f} submissions/s), about {cpu_s / window / 2:.1f}× this machine's two cores; "
            f"within one minute, {cpu_s / 60:.0f} cores. The arithmetic of the parts: gateways and claims "
            "replicas scale out behind NATS queue groups (no configuration); on a 3-node NATS cluster the "
            "stream's R3 replication costs each event three writes, and the crowd puts about one event per "
            "refusal (`claim.rejected`) and four per acceptance on it, "
            f"≈ {(players - territories + 4 * territories) / window:,.0f} events/s over ten minutes, far below "
            "what one NATS node moves (hundreds of thousands of small messages a second); PostgreSQL commits one "
            f"transaction per claim, ≈ {players / window:,.0f}/s against the "
            + (f"{pg:,.0f}" if pg else "measured")
            + " single-row commits/s of one client on this machine (pgbench row). Claims partitioned by territory "
            "(`claims.submit` split by territory range into per-partition subjects, each partition's queue group "
            "on its own replicas) keep one town's crowd on one replica, where they queue on the territory's row "
            "lock in turn anyway: a popular town taking 5 % of the crowd is 5,000 claims in ten minutes, 8 a "
            "second on one row lock held for about a millisecond. So the league's opening needs a handful of "
            "cores for gateways and claims replicas, one PostgreSQL and a small NATS cluster; the throughput the "
            "rules allow to be *accepted* (448 a day) is never the limit."
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
