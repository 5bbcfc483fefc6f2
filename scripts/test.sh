#!/usr/bin/env bash
# Runs every test, the real-server ones included (AUTOTUNE_REQUIRE_REAL=1
# turns a missing server, sysbench or Chromium into a failure, not a skip).
# Prints one line per package, the fault-injection tally, and the details
# of any failure; the full verbose log is kept in test.log.
set -u
log=${TEST_LOG:-test.log}
AUTOTUNE_REQUIRE_REAL=1 go test -v -timeout 40m -count=1 ./... > "$log" 2>&1
rc=$?
grep -E '^(ok|FAIL|panic:)|fault tally' "$log"
if [ $rc -ne 0 ]; then
  echo "--- failures (full log: $log) ---"
  grep -B2 -A60 -E -- '^\s*--- FAIL' "$log" | head -600
fi
exit $rc
