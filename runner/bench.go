package runner

import (
	"encoding/json"
	"time"
)

// Interval is one per-interval report line of a benchmark (sysbench --report-interval and every other driver).
//
// Source: db_report_intermediate in sysbench src/db_driver.c (C reporter,
// "err/s:"), sysbench.report_default in src/lua/internal/sysbench.lua (Lua
// reporter, "err/s" without colon), and the 0.5 reporter ("threads: N, tps:
// ..."). All rates are averages over the interval that ends at Time.
type Interval struct {
	// Time is the end of the interval in seconds since the threads
	// started, from "[ 10s ]" (1.x) or "[  10s]" (0.5).
	Time float64 `json:"t"`
	// Threads is the number of running worker threads ("thds:" in 1.x,
	// "threads:" in 0.5); it drops below --threads while a run winds down.
	Threads int `json:"thds"`
	// TPS is transactions (events) per second ("tps:"; "eps:" for the
	// non-SQL tests of 1.x, which report events per second).
	TPS float64 `json:"tps"`
	// QPS is queries per second ("qps:"). 0.5 and the non-SQL reporter
	// print no qps, and it is left 0 there.
	QPS float64 `json:"qps"`
	// Reads, Writes and Other are queries per second by kind, from
	// "(r/w/o: R/W/O)" in 1.x and "reads:"/"writes:" in 0.5 (which
	// prints no "other").
	Reads  float64 `json:"reads"`
	Writes float64 `json:"writes"`
	Other  float64 `json:"other"`
	// LatPct is the percentile rank of LatMS, e.g. 95 from "lat
	// (ms,95%)" or 99 from "response time: 3.1ms (99%)"; 0 when the line
	// has none or sysbench ran with --percentile=0.
	LatPct float64 `json:"lat_pct"`
	// LatMS is the latency at the LatPct percentile in milliseconds; nil
	// when not reported. With --percentile=0 sysbench 1.0 still prints
	// "lat (ms,0%): 0.00" but never fills the histogram (sb_event_stop in
	// src/sysbench.c), so that value is dropped as not reported.
	LatMS *float64 `json:"lat_ms"`
	// ErrPS is ignored errors per second ("err/s:", "err/s", 0.5
	// "errors:").
	ErrPS float64 `json:"err_s"`
	// ReconnPS is reconnects per second ("reconn/s:", 0.5 "reconnects:").
	ReconnPS float64 `json:"reconn_s"`
	// NoErrorRates is set when the reporter prints no error and reconnect
	// rates (early sysbench 0.5: "reads/s:", "writes/s:" and nothing
	// after the response time): ErrPS and ReconnPS are then 0 and encode
	// as null, "not reported" rather than "none".
	NoErrorRates bool `json:"-"`
	// QueueLength and Concurrency come from the "[ Ns ] queue length: N,
	// concurrency: N" line that sysbench prints after the interval line
	// of the same timestamp when --rate is set; nil without --rate. Since
	// that line follows the interval line, the *Interval returned by Feed
	// for the interval line never has them; Output has.
	QueueLength *int64 `json:"queue_length,omitempty"`
	Concurrency *int64 `json:"concurrency,omitempty"`
	// Line is the 1-based line number of the interval line in the output.
	Line int `json:"line"`
}

// MarshalJSON encodes an Interval; "lat_pct" is null when LatMS is nil, so
// a missing percentile is never stored as rank 0, and "err_s" and
// "reconn_s" are null when NoErrorRates is set.
func (iv Interval) MarshalJSON() ([]byte, error) {
	type plain Interval
	pct := pctOrNil(iv.LatPct, iv.LatMS)
	if !iv.NoErrorRates {
		return json.Marshal(struct {
			plain
			LatPct *float64 `json:"lat_pct"`
		}{plain(iv), pct})
	}
	return json.Marshal(struct {
		plain
		LatPct   *float64 `json:"lat_pct"`
		ErrPS    *float64 `json:"err_s"`
		ReconnPS *float64 `json:"reconn_s"`
	}{plain(iv), pct, nil, nil})
}

func pctOrNil(pct float64, v *float64) *float64 {
	if v == nil {
		return nil
	}
	return &pct
}

// BenchRun is what one benchmark run is asked to do: the per-run settings
// that the trial engine decides (thread level, length, placement), as
// opposed to a driver's own settings (workload, dataset), which it was
// built with.
type BenchRun struct {
	// Threads is the client thread count (concurrency) of this run.
	Threads int
	// Duration is the longest the run may take; drivers round it up to
	// whole seconds. The engine may cancel the run earlier.
	Duration time.Duration
	// Binary, when not empty, replaces the driver's executable for this
	// run (the benchmark_build knob).
	Binary string
	// TCP connects over TCP to 127.0.0.1 and the server's port instead of
	// its unix socket (the benchmark_connection knob).
	TCP bool
	// Launch wraps the client process (CPU placement).
	Launch Launch
}

// MinExitGrace is the shortest ExitGrace.
const MinExitGrace = 15 * time.Second

// ExitGrace is how long a benchmark client asked to run for run may take
// beyond it to exit before its driver kills it as overrun: a tenth of run,
// at least MinExitGrace. The final report of 512 sysbench threads takes a
// few seconds; threads stuck in the server keep a client printing
// zero-throughput lines forever (akopytov/sysbench #279, #280). Case
// sysbench-overrun-and-csv: --time=30, killed at 45 s.
func ExitGrace(run time.Duration) time.Duration { return max(MinExitGrace, run/10) }

// BenchResult is what a finished benchmark run reports besides its
// per-interval samples.
type BenchResult struct {
	// Summary is the benchmark's own final report, JSON-encodable (nil
	// when it printed none).
	Summary any
	// Version is the benchmark's version text ("" when unknown).
	Version string
}

// BenchError is a failed benchmark run: the client exited non-zero,
// printed fatal lines, or reported no interval.
type BenchError struct {
	// Reason is a short cause.
	Reason string
	// Output is the end of the client's output (its last lines).
	Output string
}

func (e *BenchError) Error() string { return "benchmark failed: " + e.Reason }
