#!/bin/bash
# Entrypoint of the test image dockwright-test/postgres:15 (scripts/test-env.d/db-images.sh): does what the official
# postgres image does for POSTGRES_USER/POSTGRES_PASSWORD/POSTGRES_DB (and their *_FILE forms): on the first start it
# initialises $PGDATA, sets the password and creates the database; then it runs the server listening on all addresses.
# While initialising, the server listens only on a private socket, so `pg_isready` answers only once it is ready.
set -euo pipefail

file_env() {  # NAME: NAME_FILE's content becomes NAME (both set is an error, as in the official image)
  local var=$1 file_var="${1}_FILE"
  if [[ -n ${!file_var:-} ]]; then
    [[ -z ${!var:-} ]] || { echo "error: both $var and $file_var are set" >&2; exit 1; }
    export "$var=$(<"${!file_var}")"
  fi
  unset "$file_var"
}

if [[ ${1:-} == -* ]]; then set -- postgres "$@"; fi
if [[ ${1:-} != postgres ]]; then exec "$@"; fi
shift

export PGDATA=${PGDATA:-/var/lib/postgresql/data}
if [[ $(id -u) == 0 ]]; then
  file_env POSTGRES_PASSWORD; file_env POSTGRES_USER; file_env POSTGRES_DB
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  chmod 2777 /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi
file_env POSTGRES_PASSWORD; file_env POSTGRES_USER; file_env POSTGRES_DB
export POSTGRES_USER=${POSTGRES_USER:-postgres}
export POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}

if [[ ! -s $PGDATA/PG_VERSION ]]; then
  [[ -n ${POSTGRES_PASSWORD:-} ]] || { echo "error: the database is uninitialized and POSTGRES_PASSWORD is not set" >&2; exit 1; }
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  init_socket=$(mktemp -d)
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=$init_socket" -w start >/dev/null
  if [[ $POSTGRES_DB != postgres ]]; then
    # the name goes in as a psql variable (:"db" quotes it as an identifier), never spliced into SQL text
    psql -v ON_ERROR_STOP=1 -q -h "$init_socket" -U "$POSTGRES_USER" -d postgres -v db="$POSTGRES_DB" \
      <<<'CREATE DATABASE :"db";'
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case $f in
      *.sql) psql -v ON_ERROR_STOP=1 -q -h "$init_socket" -U "$POSTGRES_USER" -d "$POSTGRES_DB" -f "$f" ;;
      *.sh) PGHOST=$init_socket . "$f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  rmdir "$init_socket"
  echo "PostgreSQL init process complete; ready for start up."
fi
exec postgres -c listen_addresses='*' -c jit=off "$@"
