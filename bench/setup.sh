#!/usr/bin/env bash
# Anchors for the benchmarks: PostGIS in the machine's PostgreSQL 15 and pgbench.
# Idempotent. Exits 0 even when an anchor cannot be installed; the benchmark then prints why it skips that anchor.
set -u
PGHOST=${BENCH_PGHOST:-127.0.0.1}
PGPORT=${BENCH_PGPORT:-5432}
PGUSER=${BENCH_PGUSER:-postgres}

say() { echo "bench/setup: $*" >&2; }

if ! command -v psql >/dev/null 2>&1; then
  say "no psql on this machine: the PostGIS and pgbench anchors will be skipped"
  exit 0
fi
if ! psql -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d postgres -Atqc 'select 1' >/dev/null 2>&1; then
  say "no PostgreSQL at $PGHOST:$PGPORT (user $PGUSER, trust auth): the PostGIS and pgbench anchors will be skipped"
  exit 0
fi
major=$(psql -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d postgres -Atqc 'show server_version_num' | cut -c1-2)
have_postgis() {
  psql -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d postgres -Atqc \
    "select count(*) from pg_available_extensions where name='postgis'" 2>/dev/null | grep -q '^1$'
}
if ! have_postgis; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing postgresql-${major}-postgis-3"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-${major}-postgis-3") \
      >/tmp/bench-setup-apt.log 2>&1 || say "apt-get install failed (see /tmp/bench-setup-apt.log)"
  else
    say "PostGIS missing and not root (or no apt-get): install postgresql-${major}-postgis-3 by hand"
  fi
fi
if have_postgis; then say "PostGIS available"; else say "PostGIS unavailable: the geo anchors will be skipped"; fi
if ! command -v pgbench >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-contrib" >/dev/null 2>&1 || true
  fi
fi
command -v pgbench >/dev/null 2>&1 && say "pgbench available" || say "pgbench unavailable: the claims anchor will be skipped"
# py-spy: the profiles kept in bench/results.md for goals not met (the benchmarks run without it, minus profiles)
VENV="$(cd "$(dirname "$0")/.." && pwd)/.venv"
if [ -x "$VENV/bin/pip" ] && [ ! -x "$VENV/bin/py-spy" ]; then
  "$VENV/bin/pip" install -q py-spy >/dev/null 2>&1 && say "py-spy installed" || say "py-spy could not be installed: no profiles"
fi
exit 0
