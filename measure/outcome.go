package measure

// Sample is one per-second benchmark report.
type Sample struct {
	// T is seconds since the benchmark started (1, 2, 3, ...).
	T float64
	// Warmup is true for samples taken before the measurement window.
	Warmup bool
	// TPS and QPS are transactions and queries per second.
	TPS, QPS float64
	// Reads, Writes and Other are queries per second by kind.
	Reads, Writes, Other float64
	// LatMS is the latency percentile (LatPct, e.g. 95) in milliseconds;
	// 0 with LatPct 0 when the benchmark did not report one.
	LatPct, LatMS float64
	// ErrPS and ReconnPS are errors and reconnects per second.
	ErrPS, ReconnPS float64
	// Threads is the client thread count of the run the sample belongs to
	// (0 when unknown); T restarts at 1 for each thread level.
	Threads int
	// HLL is the InnoDB history list length sampled during this second;
	// nil when it was not sampled.
	HLL *float64
}

// Outcome is what one trial's measurement produced.
type Outcome struct {
	// Score is the objective value (higher is better), see ScoreRule.
	Score float64
	// MeanTPS and StdTPS are the mean and sample standard deviation of the
	// per-second tps of the measurement window.
	MeanTPS, StdTPS float64
	// P95MS is the median over the measurement window of the per-second
	// latency percentile, in milliseconds (0 when not reported).
	P95MS float64
	// Samples holds every per-second sample, warm-up included.
	Samples []Sample
	// Summary is the benchmark's own final report as JSON (may be empty).
	Summary string
	// ServerVersion is SELECT VERSION() of the server that ran the trial.
	ServerVersion string
	// Restarted reports whether the server was (re)started for the trial.
	Restarted bool
	// Phases holds how long each phase took: restore, start, warmup,
	// measure, stop (seconds).
	Phases map[string]float64
	// Failure is non-empty when the trial failed (config refused, server
	// crash, benchmark error) or was rejected; it names the cause.
	Failure string
	// Rejected marks a trial refused before a server started (with the
	// reason in Failure): it ends in state Rejected.
	Rejected bool
	// Pruned marks a trial stopped early as clearly worse than the
	// incumbent: it ends in state Pruned, scored on its partial window.
	Pruned bool
	// ErrorLog is an excerpt of the server's error log for this start when
	// the trial failed (the [ERROR] lines and the last lines).
	ErrorLog string
	// PoolLoad says whether the server's buffer pool loaded the dataset's
	// page list before the trial was measured: "" when no load was asked
	// for (a cold start, an existing server), "loaded", or why the trial
	// ran cold ("cold: " and the server's Innodb_buffer_pool_load_status).
	PoolLoad string
	// AIOBackend is the asynchronous I/O backend the server reported at
	// start (runner.AIOIOUring, runner.AIOLibaio, runner.AIOSimulated; ""
	// when unknown or not started for the trial).
	AIOBackend string
	// Measurement holds the warm-up, score components and thread levels.
	Measurement
}
