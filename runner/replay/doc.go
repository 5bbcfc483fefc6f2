// Package replay is the replay benchmark driver (--workload replay:FILE):
// it loads a user's logical dump (mariadb-dump/mysqldump output) into the
// sandbox once, and each run replays a captured workload file (package
// workload) against the server: one database connection per captured
// connection, each running its statements in their captured order and
// schema, all connections at once, either at the captured pace (Speed > 0:
// statements issued at their captured offsets divided by Speed) or back
// to back (Speed 0). It reports per-second samples like every driver
// (statements/s as tps and qps, errors/s, the second's p95 latency) and
// counts statements and errors per kind in its summary (Summary).
//
// What a replay leaves out, and the rules for a workload shorter than a
// run, are in docs/workloads.md ("Replay").
package replay
