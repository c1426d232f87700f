#!/bin/sh
# First start on an empty data directory: initdb (UTF-8, as the official image; minbase has no locale, and SQL_ASCII
# would hand psycopg bytes) with POSTGRES_USER as superuser and POSTGRES_PASSWORD, create
# POSTGRES_DB, then serve; later starts serve what is there (the official image's behaviour).
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
USER_NAME=${POSTGRES_USER:-postgres}
DB=${POSTGRES_DB:-$USER_NAME}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$USER_NAME" --encoding=UTF8 --locale=C.UTF-8 --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$DB" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    createdb -U "$USER_NAME" "$DB"
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
fi
exec "$@"
