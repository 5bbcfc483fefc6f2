#!/bin/bash
# Writes the real MariaDB logs of workload/testdata: starts a throw-away
# mariadbd (the one on PATH or in /usr/sbin) with the slow log at
# long_query_time=0 and the general log on, runs the "shop" sessions
# (three connections, one overlapping another) and a small sysbench
# oltp_read_write run (prepared statements over the binary protocol),
# and copies both logs here. Times and thread ids change at every run;
# the golden files then change with them (go test ./workload -update).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mysqld=$(command -v mariadbd || echo /usr/sbin/mariadbd)
dir=$(mktemp -d /tmp/at-logs.XXXXXX)
trap 'kill $(cat "$dir/pid" 2>/dev/null) 2>/dev/null || true; sleep 1; rm -rf "$dir"' EXIT
mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal --skip-test-db >/dev/null
start() {
	"$mysqld" --no-defaults --user="$(id -un)" --datadir="$dir/data" --socket="$dir/s" --skip-networking \
		--pid-file="$dir/pid" --log-error="$dir/err.log" --innodb-buffer-pool-size=32M \
		--slow-query-log=1 --slow-query-log-file="$dir/$1-slow.log" --long-query-time=0 \
		--general-log=1 --general-log-file="$dir/$1-general.log" &
	for _ in $(seq 100); do [ -S "$dir/s" ] && return; sleep 0.1; done
	echo "server did not start" >&2; cat "$dir/err.log" >&2; exit 1
}
stop() { kill "$(cat "$dir/pid")"; while [ -S "$dir/s" ]; do sleep 0.1; done; sleep 0.5; }
sql() { mariadb -S "$dir/s" -uroot "$@"; }

start shop
# the account is made before the lines the logs keep
sql -e "CREATE USER app@localhost; GRANT ALL ON *.* TO app@localhost" >/dev/null
lines_slow=$(wc -l <"$dir/shop-slow.log"); lines_gen=$(wc -l <"$dir/shop-general.log")
{
	# connection A: no schema at connect, then one set by the client's use
	# (COM_INIT_DB), a sleep that B overlaps
	sql -uapp <<'SQL' &
CREATE DATABASE shop;
USE shop;
CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(8,2));
INSERT INTO items VALUES (1,'apple',1.50),(2,'pear',2.25),(3,'it''s',0.5);
SELECT SLEEP(1.5);
SELECT COUNT(*) FROM items;
SQL
	a=$!
	sleep 0.7
	# connection B: schema given at connect, a statement over three lines
	sql -uapp shop <<'SQL'
SELECT name
  FROM items
 WHERE id = 1;
UPDATE items SET price = price * 1.1 WHERE name = 'it\'s';
SQL
	wait $a
	sleep 1
	# connection C
	sql -uapp shop <<'SQL'
SELECT SUM(price) FROM items;
DELETE FROM items WHERE id = 2;
SQL
} >/dev/null
stop
# the file header, then the lines of the sessions
{ head -3 "$dir/shop-slow.log"; tail -n +$((lines_slow + 1)) "$dir/shop-slow.log"; } >"$here/mariadb-10.11-slow.log"
{ head -3 "$dir/shop-general.log"; tail -n +$((lines_gen + 1)) "$dir/shop-general.log"; } >"$here/mariadb-10.11-general.log"

# sysbench: prepared statements (binary protocol), BEGIN/COMMIT, 2 threads;
# a restart in the middle writes the file header again.
start sysbench
sql -e "CREATE DATABASE sbtest"
sb() { sysbench oltp_read_write --mysql-socket="$dir/s" --mysql-user=root --tables=1 --table-size=10 "$@"; }
sb prepare >/dev/null
sb --threads=2 --events=4 run >/dev/null
stop
start sysbench
sb --threads=1 --events=1 run >/dev/null
stop
cp "$dir/sysbench-slow.log" "$here/mariadb-10.11-sysbench-slow.log"
cp "$dir/sysbench-general.log" "$here/mariadb-10.11-sysbench-general.log"
