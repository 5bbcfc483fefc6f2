// Package runner runs the real components of a trial: a sandboxed
// MySQL/MariaDB server (its own datadir, socket, loopback port and
// generated my.cnf, started as a child process in its own process group,
// never the system service), the dataset snapshot every trial starts from,
// an existing server reached by DSN (Existing), and what a benchmark driver
// shares: the per-interval sample (Interval), a run's settings (BenchRun)
// and failure (BenchError). The drivers live in sub-packages (sysbench,
// benchcmd). Server status, the InnoDB history list length and host CPU are
// sampled during a run by Poller and summarised per measurement window by
// WindowMetrics (metrics.go); SHOW ENGINE INNODB STATUS text is parsed by
// ParseInnoDBStatus (innodb_status.go).
//
// Measured costs on the reference 2-core machine (docs/measurement.md):
// datadir init ≈1 s, start 0.15-0.9 s, restore of a 1.1 GB snapshot ≈2 s,
// stop by SIGTERM 0.03-2 s.
package runner
