#!/bin/bash
# Entrypoint of the test image dockwright-test/mariadb:10.11 (scripts/test-env.d/db-images.sh): does what the official
# mariadb image does for MARIADB_ROOT_PASSWORD/MARIADB_USER/MARIADB_PASSWORD/MARIADB_DATABASE (their MYSQL_* aliases and
# *_FILE forms): on the first start it initialises /var/lib/mysql, sets root's password, creates the database and the
# user; then it runs the server on port 3306 of all addresses. While initialising, the server has no network and a
# private socket, so `mariadb-admin ping` answers only once it is ready.
set -euo pipefail

file_env() {  # NAME [ALIAS]: NAME_FILE's content becomes NAME; ALIAS (MYSQL_*) fills NAME when NAME is unset
  local var=$1 file_var="${1}_FILE" alias=${2:-}
  if [[ -n $alias && -z ${!var:-} && -z ${!file_var:-} ]]; then
    local alias_file="${alias}_FILE"
    if [[ -n ${!alias:-} ]]; then export "$var=${!alias}"; elif [[ -n ${!alias_file:-} ]]; then export "$file_var=${!alias_file}"; fi
  fi
  if [[ -n ${!file_var:-} ]]; then
    [[ -z ${!var:-} ]] || { echo "error: both $var and $file_var are set" >&2; exit 1; }
    export "$var=$(<"${!file_var}")"
  fi
  unset "$file_var"
}

if [[ ${1:-} == -* ]]; then set -- mariadbd "$@"; fi
if [[ ${1:-} != mariadbd && ${1:-} != mysqld ]]; then exec "$@"; fi
shift

DATADIR=/var/lib/mysql
for v in ROOT_PASSWORD USER PASSWORD DATABASE; do file_env "MARIADB_$v" "MYSQL_$v"; done
if [[ $(id -u) == 0 ]]; then
  mkdir -p "$DATADIR" /run/mysqld
  chown mysql:mysql "$DATADIR" /run/mysqld
  exec setpriv --reuid=mysql --regid=mysql --init-groups "$0" mariadbd "$@"
fi

sql_string() {  # a value as a quoted SQL string literal
  local s=${1//\\/\\\\}
  printf "'%s'" "${s//\'/\\\'}"
}
sql_name() {  # a value as a quoted SQL identifier
  printf '`%s`' "${1//\`/\`\`}"
}

if [[ ! -d $DATADIR/mysql ]]; then
  [[ -n ${MARIADB_ROOT_PASSWORD:-} ]] || { echo "error: the database is uninitialized and MARIADB_ROOT_PASSWORD is not set" >&2; exit 1; }
  mariadb-install-db --datadir="$DATADIR" --auth-root-authentication-method=normal --skip-test-db \
    --skip-name-resolve --rpm >/dev/null
  init_socket=/run/mysqld/init.sock
  mariadbd --datadir="$DATADIR" --skip-networking --socket="$init_socket" &
  init_pid=$!
  for _ in $(seq 1 300); do
    mariadb --no-defaults --socket="$init_socket" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
    kill -0 "$init_pid" 2>/dev/null || { echo "error: mariadbd exited while initialising" >&2; exit 1; }
    sleep 0.1
  done
  # the statements (with the passwords) go in on stdin, never in an argument
  {
    echo "SET @@SESSION.SQL_LOG_BIN=0;"
    echo "DELETE FROM mysql.global_priv WHERE User='' OR (User='root' AND Host NOT IN ('localhost'));"
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY $(sql_string "$MARIADB_ROOT_PASSWORD");"
    echo "CREATE USER 'root'@'%' IDENTIFIED BY $(sql_string "$MARIADB_ROOT_PASSWORD");"
    echo "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
    if [[ -n ${MARIADB_DATABASE:-} ]]; then
      echo "CREATE DATABASE IF NOT EXISTS $(sql_name "$MARIADB_DATABASE");"
    fi
    if [[ -n ${MARIADB_USER:-} && -n ${MARIADB_PASSWORD:-} ]]; then
      echo "CREATE USER $(sql_string "$MARIADB_USER")@'%' IDENTIFIED BY $(sql_string "$MARIADB_PASSWORD");"
      if [[ -n ${MARIADB_DATABASE:-} ]]; then
        echo "GRANT ALL ON $(sql_name "$MARIADB_DATABASE").* TO $(sql_string "$MARIADB_USER")@'%';"
      fi
    fi
    echo "FLUSH PRIVILEGES;"
  } | mariadb --no-defaults --socket="$init_socket" -uroot
  for f in /docker-entrypoint-initdb.d/*; do
    case $f in
      *.sql) MYSQL_PWD=$MARIADB_ROOT_PASSWORD mariadb --no-defaults --socket="$init_socket" -uroot "${MARIADB_DATABASE:-mysql}" <"$f" ;;
      *.sh) . "$f" ;;
    esac
  done
  kill "$init_pid"
  wait "$init_pid" || true
  echo "MariaDB init process done. Ready for start up."
fi
exec mariadbd --datadir="$DATADIR" --bind-address=0.0.0.0 --port=3306 --socket=/run/mysqld/mysqld.sock --skip-name-resolve "$@"
