#!/bin/sh
# Compose's one-shot `db-setup`, run as the PostgreSQL superuser at every `up` (idempotent; a changed
# password in deploy/.env takes effect here). Each service gets its own role, with no superuser, CREATEDB,
# CREATEROLE or replication, owning its own schema (its migrations run in it) and reaching no other schema; the
# backup gets a read-only role (pg_read_all_data). Nobody but these roles may connect (PUBLIC's CONNECT and TEMP
# are revoked). A deployment made before the per-service roles (every table the superuser's) hands each schema's tables over.
set -eu
for svc in gateway claims cards clock notify modes backup; do
  var=TURF_DB_PASSWORD_$(echo "$svc" | tr 'a-z' 'A-Z')
  eval "[ -n \"\${$var:-}\" ]" || { echo "db-setup: $var is not set" >&2; exit 1; }
  psql -v ON_ERROR_STOP=1 -q -v role="turf_$svc" -v schema="$svc" -v pwvar="$var" <<'SQL'
\getenv pw :pwvar
SET client_min_messages = warning;
SELECT format('CREATE ROLE %I', :'role') WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
ALTER ROLE :"role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'pw';
REVOKE ALL ON DATABASE turfwar FROM PUBLIC;
GRANT CONNECT ON DATABASE turfwar TO :"role";
SELECT :'role' = 'turf_backup' AS is_backup \gset
\if :is_backup
GRANT pg_read_all_data TO turf_backup;
\else
CREATE SCHEMA IF NOT EXISTS :"schema" AUTHORIZATION :"role";
ALTER SCHEMA :"schema" OWNER TO :"role";
SELECT format('ALTER TABLE %I.%I OWNER TO %I', n.nspname, c.relname, :'role')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = :'schema' AND c.relkind IN ('r', 'p') AND pg_get_userbyid(c.relowner) <> :'role' \gexec
\endif
SQL
done
echo "db-setup: roles turf_gateway, turf_claims, turf_cards, turf_clock, turf_notify, turf_modes, turf_backup ready"
