#!/usr/bin/env bash
# Generates a real captured workload and the dump it goes with:
#   1. a private MariaDB server (own datadir and socket under a temp dir,
#      no TCP port; never the system service),
#   2. sysbench tables loaded into it (sysbench prepare),
#   3. the dump, taken before the capture starts
#      (mariadb-dump --single-transaction --databases sbtest),
#   4. autotune capture --dsn ... --for DURATION while sysbench
#      oltp_read_write runs against the server,
# then stops the server and removes the temp dir.
#
# Usage: examples/replay/generate.sh [OUTDIR]   (default: examples/replay)
# Environment (defaults give the small committed files):
#   TABLES=2 ROWS=2000 THREADS=4 DURATION=10 RATE=20 (sysbench --rate, tx/s;
#   0 = as fast as it goes) AUTOTUNE=autotune binary (default: go run).
# Needs mariadbd, mariadb-install-db, mariadb-dump and sysbench
# (scripts/install-deps.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$here}
mkdir -p "$out"
out=$(cd "$out" && pwd)
TABLES=${TABLES:-2} ROWS=${ROWS:-2000} THREADS=${THREADS:-4} DURATION=${DURATION:-10} RATE=${RATE:-20}
EXTRA=${EXTRA:-}

asroot=()
if [ "$(id -u)" = 0 ]; then asroot=(--user=root); fi
tmp=$(mktemp -d /tmp/at-replay-XXXXXX)
sock=$tmp/mysqld.sock
pid=
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

autotune=${AUTOTUNE:-}
if [ -z "$autotune" ]; then
	autotune=$tmp/autotune
	(cd "$root" && go build -o "$autotune" ./cmd/autotune)
fi

mariadb-install-db --no-defaults --datadir="$tmp/data" --auth-root-authentication-method=normal \
	--skip-test-db "${asroot[@]}" >"$tmp/install.log" 2>&1
mariadbd --no-defaults --datadir="$tmp/data" --socket="$sock" --skip-networking \
	--pid-file="$tmp/mysqld.pid" --log-error="$tmp/error.log" "${asroot[@]}" $EXTRA &
pid=$!
for i in $(seq 1 60); do
	mariadb --no-defaults -uroot --socket="$sock" -e 'SELECT 1' >/dev/null 2>&1 && break
	[ "$i" = 60 ] && { echo "the server did not start:" >&2; tail "$tmp/error.log" >&2; exit 1; }
	sleep 0.5
done

sb=(sysbench oltp_read_write --db-driver=mysql --mysql-socket="$sock" --mysql-user=root
	--mysql-db=sbtest --tables="$TABLES" --table-size="$ROWS")
mariadb --no-defaults -uroot --socket="$sock" -e 'CREATE DATABASE sbtest'
"${sb[@]}" --threads="$TABLES" prepare >/dev/null

# The dump first: the capture replays on the data as it was when it began.
mariadb-dump --no-defaults -uroot --socket="$sock" --single-transaction --databases sbtest |
	gzip -9 >"$out/dump.sql.gz"

# Capture while sysbench runs (it starts a moment after the capture, and
# the capture outlasts it).
"$autotune" capture --dsn "root@unix($sock)/" --for "$((DURATION + 2))s" --out "$out/workload.jsonl.gz" &
cap=$!
sleep 1
"${sb[@]}" --threads="$THREADS" --time="$DURATION" --rate="$RATE" --report-interval=0 run |
	tee "$out/sysbench-run.txt" | sed -n '/SQL statistics/,/Latency/p'
wait "$cap"
ls -l "$out/dump.sql.gz" "$out/workload.jsonl.gz"
