package sysbench

// Parser for the text that sysbench prints on stdout and stderr while it runs
// a benchmark: the banner, the "Running the test with following options"
// block, the per-interval reports of --report-interval, the final (and
// checkpoint) reports, and the FATAL/ALERT lines of failed runs.
//
// Format facts come from the sysbench sources and from the reference cases
// (copied to testdata/sysbench):
//
//   - src/db_driver.c (1.0.x, db_report_intermediate): the C reporter prints
//     "[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f)
//     lat (ms,%u%%): %4.2f err/s: %4.2f reconn/s: %4.2f" and, with --rate,
//     a second "[ Ns ] queue length: N, concurrency: N" line for the same
//     timestamp.
//   - src/lua/internal/sysbench.lua (sysbench.report_default, used by Lua
//     scripts such as sysbench-tpcc and by 1.1): the same line but
//     "err/s %4.2f" without the colon (case sysbench-1x-intervals-summary).
//   - src/sysbench.c (sb_report_intermediate, non-SQL tests): "thds: %u eps:
//     %4.2f lat (ms,%u%%): %4.2f".
//   - sysbench 0.5 db_driver.c: "[%4.0fs] threads: %d, tps: %4.2f, reads:
//     %4.2f, writes: %4.2f, response time: %4.2fms (%u%%), errors: %4.2f,
//     reconnects: %5.2f".
//   - The final report: "SQL statistics:" / "General statistics:" /
//     "Latency (ms):" / "Threads fairness:" in 1.x (db_report_cumulative,
//     sb_report_cumulative), "OLTP test statistics:" / "Test execution
//     summary:" / "per-request statistics:" (0.4) or "response time:"
//     (0.5) in 0.4 and 0.5 (cases sysbench-04-summary and
//     sysbench-05-legacy-formats).
//   - src/drivers/mysql/drv_mysql.c: "%s returned error %u (%s) for query
//     '%s'", "MySQL error: %d \"%s\"", "error %d: %s" (connect); the Lua
//     error handler prints "`thread_run' function failed: ...: SQL error,
//     errno = N, state = 'S': msg" (case sysbench-run-with-errors).

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/autotune/autotune/runner"
)

// Summary is the final report that sysbench prints when a run ends
// normally (or a checkpoint report, see checkpoint). Fields that the report
// does not contain stay zero; which ones exist depends on the version:
//
//   - 1.x: "SQL statistics:", "General statistics:", "Latency (ms):" and
//     "Threads fairness:" (db_report_cumulative and sb_report_cumulative
//     in src/db_driver.c and src/sysbench.c).
//   - 0.4/0.5: "OLTP test statistics:" (with deadlocks, read/write
//     requests and other operations), "Test execution summary:" with
//     "per-request statistics:" in ms and "approx.  95 percentile:", and
//     "Threads fairness:" (case sysbench-04-summary).
type Summary struct {
	// Reads, Writes and Other are the numbers of queries by kind under
	// "queries performed:" (counts, not rates).
	Reads  int64 `json:"reads"`
	Writes int64 `json:"writes"`
	Other  int64 `json:"other"`
	// Transactions is the number of transactions ("transactions: N") and
	// TPS the rate sysbench printed next to it ("(X per sec.)"). This is
	// the score of a run; do not average interval lines instead. In 0.4
	// with BEGIN/COMMIT skipped a "transaction" is one query (case
	// sysbench-04-summary), so 0.4 and 1.x TPS are not comparable.
	Transactions int64   `json:"transactions"`
	TPS          float64 `json:"tps"`
	// Queries is the total number of queries ("queries: N" in 1.x, else
	// "total:" under "queries performed:") and QPS its rate per second
	// (1.x only).
	Queries int64   `json:"queries"`
	QPS     float64 `json:"qps"`
	// IgnoredErrors is the count of errors sysbench ignored because they
	// were in --mysql-ignore-errors (default 1213,1020,1205), and
	// IgnoredErrorsPS its rate per second (1.x, 0.5).
	IgnoredErrors   int64   `json:"ignored_errors"`
	IgnoredErrorsPS float64 `json:"ignored_errors_per_s"`
	// Reconnects is the number of reconnects after ignored connection
	// errors, ReconnectsPS its rate per second (1.x, 0.5).
	Reconnects   int64   `json:"reconnects"`
	ReconnectsPS float64 `json:"reconnects_per_s"`
	// Deadlocks and DeadlocksPS: "deadlocks: N (X per sec.)" (0.4 and
	// early 0.5).
	Deadlocks   int64   `json:"deadlocks"`
	DeadlocksPS float64 `json:"deadlocks_per_s"`
	// RWRequests and RWRequestsPS: "read/write requests: N (X per sec.)"
	// (0.4, 0.5).
	RWRequests   int64   `json:"rw_requests"`
	RWRequestsPS float64 `json:"rw_requests_per_s"`
	// OtherOperations and OtherOperationsPS: "other operations: N (X per
	// sec.)" (0.4, 0.5).
	OtherOperations   int64   `json:"other_operations"`
	OtherOperationsPS float64 `json:"other_operations_per_s"`
	// UnfinishedOnShutdown is "Number of unfinished transactions on forced
	// shutdown: N" (1.x with --forced-shutdown; src/sysbench.c).
	UnfinishedOnShutdown int64 `json:"unfinished_on_shutdown,omitempty"`
	// TotalTimeS is "total time: 30.0014s" in seconds.
	TotalTimeS float64 `json:"total_time_s"`
	// Events is "total number of events: N".
	Events int64 `json:"events"`
	// EventExecTimeS is "total time taken by event execution: N" in
	// seconds (0.4/0.5; printed without a unit there).
	EventExecTimeS float64 `json:"event_exec_time_s"`
	// LatMinMS, LatAvgMS and LatMaxMS are the latency min/avg/max in
	// milliseconds ("Latency (ms):" in 1.x; "per-request statistics:" in
	// 0.4 and "response time:" in 0.5, with an "ms" suffix).
	LatMinMS float64 `json:"lat_min_ms"`
	LatAvgMS float64 `json:"lat_avg_ms"`
	LatMaxMS float64 `json:"lat_max_ms"`
	// LatPct is the percentile rank of LatPctMS, from "%3dth percentile:"
	// (1.x) or "approx.  95 percentile:" (0.4/0.5); 0 when absent or when
	// sysbench printed "percentile stats: disabled" (--percentile=0).
	LatPct float64 `json:"lat_pct"`
	// LatPctMS is the latency at LatPct in milliseconds; nil when the
	// report has no percentile or says "percentile stats: disabled".
	LatPctMS *float64 `json:"lat_pct_ms"`
	// LatSumMS is "sum:" of all event latencies in milliseconds (1.x).
	LatSumMS float64 `json:"lat_sum_ms"`
	// HasFairness reports whether "Threads fairness:" lines were seen.
	HasFairness bool `json:"has_fairness"`
	// EventsAvg and EventsStddev are "events (avg/stddev): A/S", events
	// per thread.
	EventsAvg    float64 `json:"events_avg"`
	EventsStddev float64 `json:"events_stddev"`
	// ExecTimeAvgS and ExecTimeStddevS are "execution time (avg/stddev):
	// A/S", execution time per thread in seconds.
	ExecTimeAvgS    float64 `json:"exec_time_avg_s"`
	ExecTimeStddevS float64 `json:"exec_time_stddev"`

	printed sbOptional // which version-dependent count lines the report had
}

// sbOptional flags the count lines that only some versions print.
type sbOptional uint8

const (
	sbHasIgnoredErrors sbOptional = 1 << iota
	sbHasReconnects
	sbHasDeadlocks
	sbHasRWRequests
	sbHasOtherOperations
)

// MarshalJSON encodes a Summary; "lat_pct" is null when LatPctMS is nil
// ("percentile stats: disabled" or no percentile line), as the case
// sysbench-1x-intervals-summary requires, instead of a misleading 0. The
// version-dependent counts (ignored errors, reconnects, deadlocks,
// read/write requests, other operations) and their rates are null when
// the report has no such line and the count is 0: early 0.5 prints no
// "ignored errors:", late 0.5 and 1.x no "deadlocks:" (case
// sysbench-05-legacy-formats).
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	opt := func(flag sbOptional, n int64, rate float64) (*int64, *float64) {
		if n == 0 && rate == 0 && s.printed&flag == 0 {
			return nil, nil
		}
		return &n, &rate
	}
	var v struct {
		plain
		LatPct            *float64 `json:"lat_pct"`
		IgnoredErrors     *int64   `json:"ignored_errors"`
		IgnoredErrorsPS   *float64 `json:"ignored_errors_per_s"`
		Reconnects        *int64   `json:"reconnects"`
		ReconnectsPS      *float64 `json:"reconnects_per_s"`
		Deadlocks         *int64   `json:"deadlocks"`
		DeadlocksPS       *float64 `json:"deadlocks_per_s"`
		RWRequests        *int64   `json:"rw_requests"`
		RWRequestsPS      *float64 `json:"rw_requests_per_s"`
		OtherOperations   *int64   `json:"other_operations"`
		OtherOperationsPS *float64 `json:"other_operations_per_s"`
	}
	v.plain, v.LatPct = plain(s), sbPctOrNil(s.LatPct, s.LatPctMS)
	v.IgnoredErrors, v.IgnoredErrorsPS = opt(sbHasIgnoredErrors, s.IgnoredErrors, s.IgnoredErrorsPS)
	v.Reconnects, v.ReconnectsPS = opt(sbHasReconnects, s.Reconnects, s.ReconnectsPS)
	v.Deadlocks, v.DeadlocksPS = opt(sbHasDeadlocks, s.Deadlocks, s.DeadlocksPS)
	v.RWRequests, v.RWRequestsPS = opt(sbHasRWRequests, s.RWRequests, s.RWRequestsPS)
	v.OtherOperations, v.OtherOperationsPS = opt(sbHasOtherOperations, s.OtherOperations, s.OtherOperationsPS)
	return json.Marshal(v)
}

func sbPctOrNil(pct float64, v *float64) *float64 {
	if v == nil {
		return nil
	}
	return &pct
}

// checkpoint is a report printed because of --report-checkpoints: the line
// "[ Ns ] Checkpoint report:" followed by a full report (src/sysbench.c,
// checkpoints_thread_proc). It is not the final report of the run.
type checkpoint struct {
	// TimeS is the checkpoint time in seconds since the threads started.
	TimeS float64 `json:"t"`
	// Summary is the report printed at the checkpoint; its counters cover
	// the time since the previous checkpoint.
	Summary Summary `json:"summary"`
}

// Failure is a line that reports an error that stops sysbench: "FATAL:" and
// "ALERT:" lines (sysbench log levels, src/sb_logger.c), "invalid option:"
// and "Unrecognized command line argument:" (src/sysbench.c, exit code 1).
type Failure struct {
	// line is the 1-based line number in the output.
	line int
	// Text is the line as printed, without the trailing newline and
	// surrounding spaces; when a FATAL/ALERT marker was glued to the end
	// of another line (interleaved stdout and stderr), the text from the
	// marker on.
	Text string
	// mysqlErrno is the MySQL/MariaDB error number the line reports, 0
	// when it reports none. Error 0 can be reported (case
	// sysbench-run-with-errors, "returned error 0 ()"); hasErrno tells it
	// from "no number".
	mysqlErrno int
	// hasErrno reports whether the line carries an error number, so that
	// "errno = 0" is not mistaken for "no error number".
	hasErrno bool
	// sqlState is the SQLSTATE from "state = 'S'" ("" when absent).
	sqlState string
	// phase is the Lua hook named by "`thread_init' function failed"
	// ("thread_init", "thread_run", "init", "done", ...), "thread_init"
	// for "Thread initialization failed!", or "" when the line names none.
	phase string
}

// outputLine is a line of sysbench output with its 1-based line number.
type outputLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// legacyTestMode is the built-in test mode that sysbench 0.4/0.5 print
// before the run ("Doing OLTP test.", "Running simple OLTP test", "Doing
// read-only test", "Skipping BEGIN/COMMIT", "Using Uniform distribution";
// case sysbench-04-summary). Results of different modes and major versions
// must not be ranked against each other.
type legacyTestMode struct {
	// Test is the built-in test, e.g. "oltp" from "Doing OLTP test.".
	Test string `json:"test"`
	// OLTPMode is "simple", "complex" or "nontrx" from "Running <mode>
	// OLTP test".
	OLTPMode string `json:"oltp_mode,omitempty"`
	// ReadOnly is true after "Doing read-only test".
	ReadOnly bool `json:"read_only"`
	// SkipTrx is true after "Skipping BEGIN/COMMIT".
	SkipTrx bool `json:"skip_trx"`
	// Distribution is the random distribution from "Using <name>
	// distribution", e.g. "Uniform".
	Distribution string `json:"distribution,omitempty"`
}

// maxUnrecognizedLines caps Output.unrecognized so that a chatty Lua
// script cannot grow the parser without bound.
const maxUnrecognizedLines = 100

// Output is everything parsed from one run's stdout+stderr.
type Output struct {
	// Version is the sysbench version from the banner ("sysbench 1.0.20
	// (using ...)", "sysbench 0.4.12:  multi-threaded ..."), found
	// anywhere in the output since stderr may overtake the buffered
	// banner (case sysbench-run-with-errors, b); "" when no banner.
	Version string
	// threads is "Number of threads: N"; 0 when the output does not show
	// it (take it from the invocation then).
	threads int
	// reportIntervalS is "Report intermediate results every N second(s)"
	// in seconds; 0 when absent.
	reportIntervalS int
	// targetRateTPS is "Target transaction rate: N/sec" (--rate), in
	// transactions per second; 0 when absent.
	targetRateTPS int
	// legacyMode is the 0.4/0.5 test mode; nil when none was printed.
	legacyMode *legacyTestMode
	// threadsStarted is true once "Threads started!" was printed, i.e.
	// the workload began.
	threadsStarted bool
	// intervals are the per-interval reports in output order; empty (not
	// nil) when there are none, e.g. 0.4 has no --report-interval. Every
	// reporter's lines (1.x, both 0.5 layouts) give the same runner.Interval.
	intervals []runner.Interval
	// intervalLayout is the layout of the first interval line: layout1x,
	// layout05Early, layout05Late or layoutCSV; "" without interval lines.
	intervalLayout string
	// discarded are interval lines that cannot be measurements (see
	// discardedInterval), in output order; they are not in Intervals and
	// Feed does not return them.
	discarded []discardedInterval
	// tail are the intervals after the run's end: past the invocation's
	// --time (not returned by Feed), or, seen by Output, from the first
	// one with fewer threads than the run had when more than one interval
	// follows it (threads stuck in the server while the others exited:
	// sysbench then prints zero-throughput lines until killed,
	// akopytov/sysbench #279). They are not measurements.
	tail []runner.Interval
	// Summary is the final report; nil when the run printed none (killed,
	// failed). A report cut off mid-way is returned as far as it goes.
	Summary *Summary
	// checkpoints are the --report-checkpoints reports, in order.
	checkpoints []checkpoint
	// Failures are the FATAL/ALERT/invalid-option lines, in order; empty
	// (not nil) when there are none.
	Failures []Failure
	// warnings are "WARNING:" lines and libmysqlclient's "Error in
	// my_thread_global_end(): N threads didn't exit"; they do not make a
	// run fail by themselves.
	warnings []Failure
	// unrecognized are non-blank lines the parser does not know (e.g.
	// "DB SCHEMA sbtest" printed by a Lua script), at most
	// maxUnrecognizedLines of them; they are ignored, not errors.
	unrecognized []outputLine
}

// Interval line layouts (Output.intervalLayout).
const (
	// layout1x: "[ 10s ] thds: N tps: X qps: X (r/w/o: ...) lat (ms,P%): X
	// err/s: X reconn/s: X" (sysbench 1.x, C and Lua reporters).
	layout1x = "1.x"
	// layout05Early: "[  10s] threads: N, tps: X, reads/s: X, writes/s: X
	// response time: Xms (P%)" (early sysbench 0.5).
	layout05Early = "0.5-early"
	// layout05Late: "[  10s] threads: N, tps: X, reads: X, writes: X,
	// response time: Xms (P%), errors: X, reconnects: X" (later 0.5).
	layout05Late = "0.5-late"
	// layoutCSV: "time,threads,tps,qps,reads/s,writes/s,other/s,
	// latency_pct_ms,errors/s,reconnects/s" rows of --report-csv (1.x),
	// no header.
	layoutCSV = "csv"
)

// discardedInterval is an interval line that cannot be a measurement: a
// rate above maxPlausibleRate, or (known once the final report is read)
// above the run's total number of events. It never enters a mean or a
// maximum.
type discardedInterval struct {
	// Time and Line are the interval's time (s) and 1-based line number.
	Time float64 `json:"t"`
	Line int     `json:"line"`
	// Reason says what is implausible and where the line was printed.
	Reason string `json:"reason"`
	// Interval is the line as parsed.
	Interval runner.Interval `json:"interval"`
}

// runStatus classifies a parsed run (columns of expected.tsv in case
// sysbench-run-with-errors).
type runStatus string

const (
	// statusOK is a run with a final report, no failure line, and an
	// ignored-error ratio at or below the threshold.
	statusOK runStatus = "ok"
	// statusOKWithErrors is a completed run whose ignored errors per
	// transaction exceed the threshold: keep the score, but flag it.
	statusOKWithErrors runStatus = "ok_with_errors"
	// statusOKWithWarnings is a completed run from which implausible
	// interval lines were discarded (Output.discarded): the score (the
	// final report) stands.
	statusOKWithWarnings runStatus = "ok_with_warnings"
	// statusFailed is a run with any failure line (even after intervals
	// or a report), or one that never ran (no interval, no report).
	// Never score it as tps=0.
	statusFailed runStatus = "failed"
	// statusIncomplete is a run that measured (intervals) but printed no
	// final report and no failure line: it was killed or cut off, e.g.
	// threads stuck in the server past --time (see Output.StuckThreads).
	// Like a failed run it has no score.
	statusIncomplete runStatus = "incomplete"
)

// defaultMaxIgnoredErrorRatio is the ignored errors per transaction above
// which Status reports statusOKWithErrors. It is a policy choice: 1 %
// keeps the cases' 1/59880 and 21/4484 (0.47 %) runs "ok" and flags
// 28512/218215 (13 %) (cases sysbench-1x-intervals-summary and
// sysbench-run-with-errors, e).
const defaultMaxIgnoredErrorRatio = 0.01

// failed reports whether the run failed: any failure line, or no final
// report.
func (o Output) failed() bool {
	return len(o.Failures) > 0 || o.Summary == nil
}

// status classifies the run with defaultMaxIgnoredErrorRatio.
func (o Output) status() runStatus {
	return o.statusWithMaxErrorRatio(defaultMaxIgnoredErrorRatio)
}

// statusWithMaxErrorRatio classifies the run: statusIncomplete when it
// measured but has neither a final report nor a failure line, statusFailed
// when otherwise failed, statusOKWithErrors when ignored errors per transaction exceed
// maxRatio (or there are ignored errors but no transactions),
// statusOKWithWarnings when interval lines were discarded, else statusOK.
func (o Output) statusWithMaxErrorRatio(maxRatio float64) runStatus {
	if o.failed() {
		if len(o.Failures) == 0 && (len(o.intervals) > 0 || len(o.tail) > 0) {
			return statusIncomplete
		}
		return statusFailed
	}
	s := o.Summary
	if s.IgnoredErrors > 0 {
		if s.Transactions <= 0 || float64(s.IgnoredErrors)/float64(s.Transactions) > maxRatio {
			return statusOKWithErrors
		}
	}
	if len(o.discarded) > 0 {
		return statusOKWithWarnings
	}
	return statusOK
}

// mysqlErrno returns the MySQL error number of the first failure that
// carries one; ok is false when no failure does. 0 with ok=true means
// sysbench reported "error 0" (a server or proxy error without a code).
func (o Output) mysqlErrno() (errno int, ok bool) {
	for _, f := range o.Failures {
		if f.hasErrno {
			return f.mysqlErrno, true
		}
	}
	return 0, false
}

// stuckThreads reports, for a run whose threads wound down before it
// ended (Output.tail), how many were still running in its last interval
// and how many it had; ok is false when no interval shows fewer threads.
func (o Output) stuckThreads() (running, of int, ok bool) {
	of = o.threads
	for _, iv := range o.intervals {
		of = max(of, iv.Threads)
	}
	if len(o.tail) == 0 {
		return 0, of, false
	}
	last := o.tail[len(o.tail)-1].Threads
	return last, of, last > 0 && last < of
}

// connectionLost are client errors of a lost or refused connection
// (CR_CONNECTION_ERROR 2002, CR_CONN_HOST_ERROR 2003, CR_SERVER_GONE_ERROR
// 2006, CR_SERVER_LOST 2013, CR_SERVER_LOST_EXTENDED 2055).
var connectionLost = map[int]bool{2002: true, 2003: true, 2006: true, 2013: true, 2055: true}

// serverLimit are server errors of a limit a configuration sets, which a
// workload's threads can exceed at initialisation: ER_MAX_PREPARED_STMT_
// COUNT_REACHED 1461 (max_prepared_stmt_count), ER_CON_COUNT_ERROR 1040
// (max_connections), ER_TOO_MANY_USER_CONNECTIONS 1203
// (max_user_connections), ER_CANT_CREATE_THREAD 1135.
var serverLimit = map[int]string{1461: "max_prepared_stmt_count", 1040: "max_connections", 1203: "max_user_connections", 1135: "threads the server can create"}

// explain says why a run has no score, in one line for a trial's failure
// text: the phase (the workload never ran, or failed while running), the
// MySQL error number and SQLSTATE the failure lines carry (errno 0 is "an
// error without a code"), the failure line itself, and what it points to:
// a server limit the configuration sets (a thread_init failure with 1461,
// 1040, ...), a lost connection (2013, ..., or reconnects in the last
// intervals: the server restarted or went away), or threads stuck past
// the end. It returns "" for a run with a score.
func (o Output) explain() string {
	if !o.failed() {
		return ""
	}
	if len(o.Failures) == 0 {
		msg := "no final report"
		if len(o.intervals)+len(o.tail) == 0 {
			return msg + " and no interval: the workload never ran"
		}
		if run, of, ok := o.stuckThreads(); ok {
			return fmt.Sprintf("%s: %d of %d threads were still running after the run's end (stuck in the server)", msg, run, of)
		}
		return msg + ": the run was cut off"
	}
	first := o.Failures[0]
	for _, f := range o.Failures {
		if f.hasErrno {
			first = f
			break
		}
	}
	var b strings.Builder
	switch ph := o.phase(); ph {
	case phaseInit, phaseThreadInit:
		b.WriteString("failed in " + ph + " (the workload never ran)")
	case phaseRun:
		b.WriteString("failed while running")
	default:
		b.WriteString("failed before the workload started")
	}
	errno, hasErrno := o.mysqlErrno()
	if hasErrno {
		fmt.Fprintf(&b, ", MySQL error %d", errno)
		for _, f := range o.Failures {
			if f.sqlState != "" {
				fmt.Fprintf(&b, " (SQLSTATE %s)", f.sqlState)
				break
			}
		}
		if errno == 0 {
			b.WriteString(" (an error without a code, from the server or a proxy)")
		}
	}
	b.WriteString(": " + first.Text)
	reconnects := false
	for _, iv := range append(append([]runner.Interval(nil), o.intervals...), o.tail...) {
		reconnects = reconnects || iv.ReconnPS > 0
	}
	switch {
	case hasErrno && o.phase() == phaseThreadInit && serverLimit[errno] != "":
		b.WriteString("; a server limit (" + serverLimit[errno] + ") is too low for this workload's threads: the configuration is invalid for the workload, not slow")
	case hasErrno && connectionLost[errno], reconnects:
		b.WriteString("; the connection to the server was lost during the run (the server restarted, crashed or dropped connections)")
	}
	return b.String()
}

// Run phases returned by Output.phase.
const (
	// phaseInit is a failure of the script's global init hook.
	phaseInit = "init"
	// phaseThreadInit is a failure while worker threads initialised
	// (connect, prepare): the workload never ran; often the candidate
	// configuration is invalid for it (e.g. max_prepared_stmt_count,
	// max_connections).
	phaseThreadInit = "thread_init"
	// phaseRun means the workload ran (threads started, intervals or a
	// report), whether or not it later failed.
	phaseRun = "run"
)

// phase returns how far the run got: phaseInit or phaseThreadInit when a
// failure names that hook (or "Thread initialization failed!"), phaseRun
// when the workload started, and "" when the output shows neither (e.g.
// "invalid option:" before anything ran).
func (o Output) phase() string {
	for _, f := range o.Failures {
		switch f.phase {
		case phaseInit, phaseThreadInit:
			return f.phase
		}
	}
	if o.threadsStarted || len(o.intervals) > 0 || len(o.tail) > 0 || o.Summary != nil || len(o.checkpoints) > 0 {
		return phaseRun
	}
	for _, f := range o.Failures {
		if f.phase != "" {
			return phaseRun
		}
	}
	return ""
}

// malformedLineError reports a line that has the shape of a known sysbench
// line (an interval report, a queue-length line, a report or option line)
// but whose values cannot be parsed. Such lines are never silently dropped.
type malformedLineError struct {
	// Line is the 1-based line number.
	Line int
	// Text is the whole line.
	Text string
	// Reason says what is wrong.
	Reason string
}

// Error implements error.
func (e *malformedLineError) Error() string {
	return fmt.Sprintf("sysbench output line %d: %s: %q", e.Line, e.Reason, e.Text)
}

// Report sections (1.x and 0.4/0.5 headers).
const (
	sbSecNone = iota
	sbSecSQL
	sbSecGeneral
	sbSecLatency
	sbSecFairness
	sbSecHistogram
)

// Subsections.
const (
	sbSubNone = iota
	sbSubQueries
	sbSubPerRequest
)

// Parser parses sysbench output line by line, so a runner can stream
// per-second samples while the benchmark runs. It is not safe for
// concurrent use.
type Parser struct {
	line int
	out  Output
	inv  invocation
	tail bool // the run passed its time limit or its threads wound down

	section, sub int
	cur          *Summary // report being read
	curSections  map[int]bool
	curCkpt      *float64 // time of the checkpoint cur belongs to
	pendingCkpt  *float64 // "[ Ns ] Checkpoint report:" seen, report not begun
}

// NewParser returns a parser with no input consumed, for output of an
// unknown invocation (the thread count then comes from "Number of
// threads:").
func NewParser() *Parser {
	return &Parser{}
}

// invocation is what sysbench was asked to do, as far as reading its
// output needs it. Zero fields are unknown.
type invocation struct {
	// threads is --threads; when 0, "Number of threads: N" of the output
	// stands in.
	threads int
	// timeS is --time in seconds: intervals after it are tail.
	timeS float64
	// percentile is --percentile, the rank of the latency column of CSV
	// reports (which do not print it); 0 means sysbench's default, 95.
	percentile float64
}

// newParserFor returns a parser for the output of a run launched as inv:
// interval lines after inv.TimeS, or with fewer threads than asked for,
// are the run's tail (Output.tail), not measurements.
func newParserFor(inv invocation) *Parser {
	return &Parser{inv: inv}
}

var (
	// "[ 10s ] " (1.x log_timestamp) or "[  10s] " (0.5).
	sbReTimestamp = regexp.MustCompile(`^\[\s*(\d{1,12}(?:\.\d{1,9})?)s\s*\]\s*(.*)$`)
	sbReQueue     = regexp.MustCompile(`^queue length: (\d{1,18}), concurrency: (\d{1,18})$`)
	sbReBanner    = regexp.MustCompile(`^sysbench (\d[^\s:]*):?(?:\s|$)`)
	sbReCount     = regexp.MustCompile(`^(\d{1,19})$`)
	sbReCountRate = regexp.MustCompile(`^(\d{1,19})\s*\(\s*(\d+(?:\.\d+)?) per sec\.\)$`)
	sbReNumber    = regexp.MustCompile(`^\d+(?:\.\d+)?$`)
	sbReAvgStddev = regexp.MustCompile(`^(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)$`)
	sbRePctLabel  = regexp.MustCompile(`^(?:(\d{1,3})th percentile|approx\. (\d{1,3}) percentile)$`)
	sbReSpaces    = regexp.MustCompile(`\s+`)

	// Header lines.
	sbReThreads      = regexp.MustCompile(`^Number of threads: (.*)$`)
	sbReRate         = regexp.MustCompile(`^Target transaction rate: (.*)/sec$`)
	sbReReportEvery  = regexp.MustCompile(`^Report intermediate results every (.*) second\(s\)$`)
	sbReLegacyRun    = regexp.MustCompile(`^Running (\w+) OLTP test$`)
	sbReLegacyDist   = regexp.MustCompile(`^Using (\w+) distribution`)
	sbReLastRepeated = regexp.MustCompile(`^\(last message repeated \d+ times\)$`)
	sbReUnfinished   = regexp.MustCompile(`^Number of unfinished transactions on forced shutdown: (.*)$`)
	sbReHistRow      = regexp.MustCompile(`^(?:value\s+-+ distribution -+\s+count|\d+(?:\.\d+)?\s+\|\**\s+\d+)$`)

	// Error numbers in failure lines, tried in this order.
	sbReErrReturned = regexp.MustCompile(`returned error (\d{1,9})\b`)                // drv_mysql.c check_error
	sbReErrErrno    = regexp.MustCompile(`errno = (\d{1,9})(?:, state = '([^']*)')?`) // Lua SQL error
	sbReErrMySQL    = regexp.MustCompile(`MySQL error: (\d{1,9})\b`)                  // drv_mysql.c prepare/bind
	sbReErrGeneric  = regexp.MustCompile(`(?i)\berror:?\s+(\d{1,9})\b`)               // fallback: "error 2002: ..." (mysql_drv_connect), other "error N"
	sbReErrState    = regexp.MustCompile(`state = '([^']*)'`)                         // SQLSTATE anywhere
	sbRePhase       = regexp.MustCompile("`(\\w+)' function failed")                  // Lua hook errors (case sysbench-run-with-errors)
	sbReInitFailed  = regexp.MustCompile(`Thread initialization failed!|Worker threads failed to initialize`)
)

// Feed consumes one line (without trailing newline). It returns a
// non-nil *runner.Interval when the line is an interval report that is a measurement (not one
// discarded as implausible, Output.discarded, nor one past the run's
// --time, Output.tail); an error for a malformed interval line.
//
// The returned interval is a copy. A following "[ Ns ] queue length: ..."
// line (--rate) is added to the stored interval of the same timestamp and
// Feed returns nil for it. A line that is not an interval report (banner,
// report, failure, unknown Lua output) returns nil, nil, as does a line with
// a timestamp but no known interval label. Errors are *malformedLineError;
// parsing may continue after one.
func (p *Parser) Feed(line string) (*runner.Interval, error) {
	p.line++
	line = strings.TrimRight(line, "\r\n")
	return p.feed(line)
}

func (p *Parser) feed(line string) (*runner.Interval, error) {
	trimmed := strings.TrimSpace(line)
	if trimmed == "" {
		p.section, p.sub = sbSecNone, sbSubNone
		return nil, nil
	}

	// Failure lines. A FATAL written by another thread (stderr) may be
	// glued to the end of a stdout line; the part before it is parsed
	// on its own.
	if i := sbIndexFailure(line); i >= 0 {
		p.addFailure(strings.TrimSpace(line[i:]))
		if head := strings.TrimSpace(line[:i]); head != "" {
			return p.feed(head)
		}
		return nil, nil
	}
	if strings.HasPrefix(trimmed, "invalid option:") ||
		strings.HasPrefix(trimmed, "Unrecognized command line argument:") {
		p.addFailure(trimmed)
		return nil, nil
	}
	if strings.HasPrefix(trimmed, "WARNING:") || strings.HasPrefix(trimmed, "Error in my_thread_global_end()") {
		p.out.warnings = append(p.out.warnings, p.failure(trimmed))
		return nil, nil
	}
	if strings.HasPrefix(trimmed, "DEBUG:") {
		return nil, nil // --debug / --mysql-debug chatter
	}

	if m := sbReTimestamp.FindStringSubmatch(trimmed); m != nil {
		iv, handled, err := p.timestamped(trimmed, m[1], m[2])
		if handled || err != nil {
			return iv, err
		}
		p.unrecognized(trimmed)
		return nil, nil
	}

	if sbReCSVStart.MatchString(trimmed) {
		iv, err := sbParseCSV(trimmed, cmp.Or(p.inv.percentile, 95))
		if err != nil {
			return nil, p.malformed(trimmed, "malformed CSV report row: %v", err)
		}
		return p.addInterval(iv.Time, iv, layoutCSV), nil
	}

	if m := sbReBanner.FindStringSubmatch(trimmed); m != nil {
		if p.out.Version == "" {
			p.out.Version = m[1]
		}
		return nil, nil
	}

	if p.section == sbSecHistogram {
		if sbReHistRow.MatchString(trimmed) {
			return nil, nil
		}
		p.section = sbSecNone
	}

	if handled, err := p.reportLine(trimmed); handled || err != nil {
		return nil, err
	}
	if handled, err := p.headerLine(trimmed); handled || err != nil {
		return nil, err
	}
	p.unrecognized(trimmed)
	return nil, nil
}

// sbIndexFailure returns the index of a "FATAL:" or "ALERT:" marker, or -1.
func sbIndexFailure(line string) int {
	i := strings.Index(line, "FATAL:")
	if j := strings.Index(line, "ALERT:"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	return i
}

func (p *Parser) unrecognized(text string) {
	if len(p.out.unrecognized) < maxUnrecognizedLines {
		p.out.unrecognized = append(p.out.unrecognized, outputLine{Line: p.line, Text: text})
	}
}

func (p *Parser) malformed(text, format string, args ...any) *malformedLineError {
	return &malformedLineError{Line: p.line, Text: text, Reason: fmt.Sprintf(format, args...)}
}

func (p *Parser) addFailure(text string) {
	p.out.Failures = append(p.out.Failures, p.failure(text))
}

// failure extracts the error number, SQLSTATE and phase of a failure line.
func (p *Parser) failure(text string) Failure {
	f := Failure{line: p.line, Text: text}
	for _, re := range []*regexp.Regexp{sbReErrReturned, sbReErrErrno, sbReErrMySQL, sbReErrGeneric} {
		if m := re.FindStringSubmatch(text); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				f.mysqlErrno, f.hasErrno = n, true
			}
			break
		}
	}
	if m := sbReErrState.FindStringSubmatch(text); m != nil {
		f.sqlState = m[1]
	}
	if m := sbRePhase.FindStringSubmatch(text); m != nil {
		f.phase = m[1]
	} else if sbReInitFailed.MatchString(text) {
		f.phase = phaseThreadInit
	}
	return f
}

// timestamped handles a line that starts with "[ Ns ]". handled is false
// when the body is no known timestamped line (the caller records it as
// unrecognized).
func (p *Parser) timestamped(line, ts, body string) (*runner.Interval, bool, error) {
	t, err := strconv.ParseFloat(ts, 64)
	if err != nil {
		return nil, true, p.malformed(line, "bad timestamp %q", ts)
	}
	switch {
	case strings.HasPrefix(body, "thds:"):
		iv, err := sbParseInterval1x(body)
		if err != nil {
			return nil, true, p.malformed(line, "malformed interval line: %v", err)
		}
		return p.addInterval(t, iv, layout1x), true, nil
	case strings.HasPrefix(body, "threads:"):
		iv, layout, err := sbParseInterval05(body)
		if err != nil {
			return nil, true, p.malformed(line, "malformed interval line: %v", err)
		}
		return p.addInterval(t, iv, layout), true, nil
	case strings.HasPrefix(body, "queue length:"):
		m := sbReQueue.FindStringSubmatch(body)
		if m == nil {
			return nil, true, p.malformed(line, "malformed queue length line")
		}
		q, err1 := strconv.ParseInt(m[1], 10, 64)
		c, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, true, p.malformed(line, "queue length or concurrency out of range")
		}
		n := len(p.out.intervals)
		if n == 0 || p.out.intervals[n-1].Time != t || p.out.intervals[n-1].QueueLength != nil {
			return nil, true, p.malformed(line, "queue length line without an interval line of the same time")
		}
		p.out.intervals[n-1].QueueLength = &q
		p.out.intervals[n-1].Concurrency = &c
		return nil, true, nil
	case body == "Checkpoint report:":
		p.closeReport()
		p.pendingCkpt = &t
		return nil, true, nil
	}
	return nil, false, nil
}

// addInterval files an interval line of the given layout. An interval
// line inside a report being read (a section still open: sysbench 0.5
// printed one after "OLTP test statistics:" at the end of a run) is
// interleaved and leaves the report open; otherwise it ends any report (a
// checkpoint report is followed by more intervals). An interval with an
// implausible value is discarded (Output.discarded) and not returned.
func (p *Parser) addInterval(t float64, iv runner.Interval, layout string) *runner.Interval {
	inReport := p.cur != nil && p.section != sbSecNone
	if !inReport {
		p.closeReport()
	}
	iv.Time = t
	iv.Line = p.line
	if p.out.intervalLayout == "" {
		p.out.intervalLayout = layout
	}
	if why := sbImplausible(iv); why != "" {
		if inReport {
			why += "; printed after the final report started"
		}
		p.out.discarded = append(p.out.discarded, discardedInterval{Time: t, Line: p.line, Reason: why, Interval: iv})
		return nil
	}
	if p.tail || (p.inv.timeS > 0 && t > p.inv.timeS) {
		p.tail = true
		p.out.tail = append(p.out.tail, iv)
		return nil
	}
	p.out.intervals = append(p.out.intervals, iv)
	cp := iv
	return &cp
}

// sbWoundDown returns the index of the first interval of a wound-down
// run's tail, or len(ivs): the first interval with fewer threads than the
// run had (threads, or the most any earlier interval shows), when more
// than one interval follows it. One interval with a thread fewer is the
// normal end of a run (a thread finished its last event early, seen at
// the last second of real 1.0.20 runs); intervals that go on with fewer
// threads are threads stuck in the server after the others exited.
func sbWoundDown(ivs []runner.Interval, threads int) int {
	most := threads
	for i, iv := range ivs {
		if most > 0 && iv.Threads > 0 && iv.Threads < most {
			if len(ivs)-i-1 > 1 {
				return i
			}
			return len(ivs)
		}
		most = max(most, iv.Threads)
	}
	return len(ivs)
}

// sbReCSVStart matches the start of a --report-csv row: a number and a
// comma ("1,2,76.79,...").
var sbReCSVStart = regexp.MustCompile(`^\d+(?:\.\d+)?,`)

// sbCSVColumns are the columns of a --report-csv row, which has no header
// (sysbench 1.0.20 src/lua/internal/sysbench.lua, sysbench.report_csv).
var sbCSVColumns = []string{"time", "threads", "tps", "qps", "reads/s", "writes/s", "other/s", "latency_pct_ms", "errors/s", "reconnects/s"}

// sbParseCSV parses a --report-csv row by position into the same Interval
// as the text reporters give; pct is the latency column's percentile rank.
func sbParseCSV(line string, pct float64) (runner.Interval, error) {
	var iv runner.Interval
	f := strings.Split(line, ",")
	if len(f) != len(sbCSVColumns) {
		return iv, fmt.Errorf("%d columns, want %d (%s)", len(f), len(sbCSVColumns), strings.Join(sbCSVColumns, ","))
	}
	var v [10]float64
	for i, x := range f {
		n, err := sbParseFloatStrict(strings.TrimSpace(x))
		if err != nil {
			return iv, fmt.Errorf("%s: %v", sbCSVColumns[i], err)
		}
		v[i] = n
	}
	if v[1] != float64(int(v[1])) {
		return iv, fmt.Errorf("threads: %q is not a thread count", f[1])
	}
	lat := v[7]
	iv = runner.Interval{Time: v[0], Threads: int(v[1]), TPS: v[2], QPS: v[3], Reads: v[4], Writes: v[5], Other: v[6],
		LatPct: pct, LatMS: &lat, ErrPS: v[8], ReconnPS: v[9]}
	return iv, nil
}

// maxPlausibleRate bounds every per-second rate of an interval line (tps,
// qps, reads, writes, other, errors, reconnects): no server runs 10^12
// transactions per second. sysbench 0.5 printed ~1.8e19 tps at the end of
// a run (an unsigned counter that went below zero, akopytov/sysbench #14).
const maxPlausibleRate = 1e12

// sbImplausible returns why an interval cannot be a measurement, or "".
func sbImplausible(iv runner.Interval) string {
	for _, f := range []struct {
		name string
		v    float64
	}{{"tps", iv.TPS}, {"qps", iv.QPS}, {"reads", iv.Reads}, {"writes", iv.Writes}, {"other", iv.Other}, {"err/s", iv.ErrPS}, {"reconn/s", iv.ReconnPS}} {
		if !(f.v >= 0 && f.v <= maxPlausibleRate) {
			return fmt.Sprintf("implausible value: %s %.3g per second (more than %.0e: a counter that went below zero)", f.name, f.v, maxPlausibleRate)
		}
	}
	return ""
}

// sbParseInterval1x parses the body of a 1.x interval line by its labels:
// "thds: N tps: X qps: X (r/w/o: R/W/O) lat (ms,P%): X err/s[:] X
// reconn/s: X", or the non-SQL "thds: N eps: X lat (ms,P%): X".
func sbParseInterval1x(body string) (runner.Interval, error) {
	var iv runner.Interval
	sc := &sbScanner{s: body}
	seen := map[string]bool{}
	for {
		sc.skipSpaces()
		if sc.done() {
			break
		}
		var label string
		switch {
		case sc.eat("thds:"):
			label = "thds"
			v, err := sc.number()
			if err != nil {
				return iv, fmt.Errorf("thds: %v", err)
			}
			n, err := strconv.Atoi(v)
			if err != nil || strings.Contains(v, ".") {
				return iv, fmt.Errorf("thds: %q is not a thread count", v)
			}
			iv.Threads = n
		case sc.eat("tps:"):
			label = "tps"
			if err := sc.float(&iv.TPS); err != nil {
				return iv, fmt.Errorf("tps: %v", err)
			}
		case sc.eat("eps:"):
			label = "eps"
			if err := sc.float(&iv.TPS); err != nil {
				return iv, fmt.Errorf("eps: %v", err)
			}
		case sc.eat("qps:"):
			label = "qps"
			if err := sc.float(&iv.QPS); err != nil {
				return iv, fmt.Errorf("qps: %v", err)
			}
		case sc.eat("(r/w/o:"):
			label = "r/w/o"
			if err := sc.float(&iv.Reads); err != nil {
				return iv, fmt.Errorf("r/w/o reads: %v", err)
			}
			if !sc.eatExact("/") {
				return iv, fmt.Errorf("r/w/o: want '/' after reads at column %d", sc.pos+1)
			}
			if err := sc.float(&iv.Writes); err != nil {
				return iv, fmt.Errorf("r/w/o writes: %v", err)
			}
			if !sc.eatExact("/") {
				return iv, fmt.Errorf("r/w/o: want '/' after writes at column %d", sc.pos+1)
			}
			if err := sc.float(&iv.Other); err != nil {
				return iv, fmt.Errorf("r/w/o other: %v", err)
			}
			if !sc.eatExact(")") {
				return iv, fmt.Errorf("r/w/o: want ')' at column %d", sc.pos+1)
			}
		case sc.eat("lat (ms,"):
			label = "lat"
			if err := sc.float(&iv.LatPct); err != nil {
				return iv, fmt.Errorf("lat percentile: %v", err)
			}
			if !sc.eatExact("%):") {
				return iv, fmt.Errorf("lat: want '%%):' at column %d", sc.pos+1)
			}
			var v float64
			if err := sc.float(&v); err != nil {
				return iv, fmt.Errorf("lat: %v", err)
			}
			if iv.LatPct > 0 {
				iv.LatMS = &v
			}
		case sc.eat("err/s:"), sc.eat("err/s"):
			label = "err/s"
			if err := sc.float(&iv.ErrPS); err != nil {
				return iv, fmt.Errorf("err/s: %v", err)
			}
		case sc.eat("reconn/s:"):
			label = "reconn/s"
			if err := sc.float(&iv.ReconnPS); err != nil {
				return iv, fmt.Errorf("reconn/s: %v", err)
			}
		default:
			return iv, fmt.Errorf("unknown field at column %d: %q", sc.pos+1, sc.rest())
		}
		if seen[label] {
			return iv, fmt.Errorf("duplicate field %q", label)
		}
		seen[label] = true
	}
	var required []string
	switch {
	case seen["tps"] && seen["eps"]:
		return iv, errors.New("both tps and eps")
	case seen["tps"]:
		required = []string{"thds", "qps", "r/w/o", "lat", "err/s", "reconn/s"}
	case seen["eps"]:
		required = []string{"thds", "lat"}
		for _, l := range []string{"qps", "r/w/o", "err/s", "reconn/s"} {
			if seen[l] {
				return iv, fmt.Errorf("field %q in an eps line", l)
			}
		}
	default:
		return iv, errors.New("missing field \"tps\"")
	}
	for _, l := range required {
		if !seen[l] {
			return iv, fmt.Errorf("missing field %q", l)
		}
	}
	return iv, nil
}

// sbRe05Label finds the labels of a 0.5 interval line. Fields are found
// by their labels, not by the commas between them: early 0.5 prints no
// comma before "response time" (case sysbench-05-legacy-formats).
var sbRe05Label = regexp.MustCompile(`(?:^|[\s,])(threads|tps|reads/s|reads|writes/s|writes|response time|errors|reconnects):`)

// sbParseInterval05 parses the body of a 0.5 interval line: "threads: N,
// tps: X, reads: X, writes: X, response time: Xms (P%), errors: X,
// reconnects: X" (late 0.5, db_driver.c of the 0.5 branch) or "threads: N,
// tps: X, reads/s: X, writes/s: X response time: Xms (P%)" (early 0.5:
// per-second labels, no comma before the response time, no errors or
// reconnects, which are then not reported: NoErrorRates). The layout is
// returned as "0.5-late" or "0.5-early".
func sbParseInterval05(body string) (runner.Interval, string, error) {
	var iv runner.Interval
	locs := sbRe05Label.FindAllStringSubmatchIndex(body, -1)
	if len(locs) == 0 || strings.TrimSpace(body[:locs[0][2]]) != "" {
		return iv, "", fmt.Errorf("want \"threads: N, tps: X, ...\", got %q", body)
	}
	seen := map[string]bool{}
	perSecond := false
	for k, loc := range locs {
		label := body[loc[2]:loc[3]]
		end := len(body)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		val := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body[loc[1]:end]), ","))
		var err error
		switch label {
		case "threads":
			iv.Threads, err = sbParseIntStrict(val)
		case "tps":
			iv.TPS, err = sbParseFloatStrict(val)
		case "reads", "reads/s":
			perSecond = perSecond || label == "reads/s"
			label = "reads"
			iv.Reads, err = sbParseFloatStrict(val)
		case "writes", "writes/s":
			perSecond = perSecond || label == "writes/s"
			label = "writes"
			iv.Writes, err = sbParseFloatStrict(val)
		case "errors":
			iv.ErrPS, err = sbParseFloatStrict(val)
		case "reconnects":
			iv.ReconnPS, err = sbParseFloatStrict(val)
		case "response time":
			v, pct, ok := strings.Cut(val, "ms (")
			if !ok || !strings.HasSuffix(pct, "%)") {
				return iv, "", fmt.Errorf("response time: want \"Xms (P%%)\", got %q", val)
			}
			var ms float64
			if ms, err = sbParseFloatStrict(v); err == nil {
				iv.LatPct, err = sbParseFloatStrict(strings.TrimSuffix(pct, "%)"))
				if err == nil && iv.LatPct > 0 {
					iv.LatMS = &ms
				}
			}
		}
		if err != nil {
			return iv, "", fmt.Errorf("%s: %v", label, err)
		}
		if seen[label] {
			return iv, "", fmt.Errorf("duplicate field %q", label)
		}
		seen[label] = true
	}
	for _, l := range []string{"threads", "tps", "reads", "writes", "response time"} {
		if !seen[l] {
			return iv, "", fmt.Errorf("missing field %q", l)
		}
	}
	if seen["errors"] != seen["reconnects"] {
		return iv, "", errors.New("errors and reconnects: want both or neither")
	}
	iv.NoErrorRates = !seen["errors"]
	if perSecond || iv.NoErrorRates {
		return iv, layout05Early, nil
	}
	return iv, layout05Late, nil
}

// sbScanner walks an interval line body.
type sbScanner struct {
	s   string
	pos int
}

func (sc *sbScanner) done() bool   { return sc.pos >= len(sc.s) }
func (sc *sbScanner) rest() string { return sc.s[sc.pos:] }

func (sc *sbScanner) skipSpaces() {
	for sc.pos < len(sc.s) && (sc.s[sc.pos] == ' ' || sc.s[sc.pos] == '\t') {
		sc.pos++
	}
}

// eat consumes prefix (after optional spaces) when it follows.
func (sc *sbScanner) eat(prefix string) bool {
	sc.skipSpaces()
	return sc.eatExact(prefix)
}

func (sc *sbScanner) eatExact(prefix string) bool {
	if strings.HasPrefix(sc.s[sc.pos:], prefix) {
		sc.pos += len(prefix)
		return true
	}
	return false
}

// number consumes an unsigned decimal number "D+[.D+]" after optional
// spaces; sysbench prints rates with "%4.2f" (no sign, no exponent).
func (sc *sbScanner) number() (string, error) {
	sc.skipSpaces()
	start := sc.pos
	for sc.pos < len(sc.s) && sbIsDigit(sc.s[sc.pos]) {
		sc.pos++
	}
	if sc.pos == start {
		return "", fmt.Errorf("want a number at column %d, got %q", start+1, sc.rest())
	}
	if sc.pos < len(sc.s) && sc.s[sc.pos] == '.' {
		sc.pos++
		fracStart := sc.pos
		for sc.pos < len(sc.s) && sbIsDigit(sc.s[sc.pos]) {
			sc.pos++
		}
		if sc.pos == fracStart {
			return "", fmt.Errorf("want digits after '.' at column %d", fracStart+1)
		}
	}
	if sc.pos < len(sc.s) && sc.s[sc.pos] != ' ' && sc.s[sc.pos] != '\t' &&
		sc.s[sc.pos] != '/' && sc.s[sc.pos] != ')' && sc.s[sc.pos] != '%' {
		return "", fmt.Errorf("unexpected %q after number at column %d", sc.s[sc.pos], sc.pos+1)
	}
	return sc.s[start:sc.pos], nil
}

func (sc *sbScanner) float(dst *float64) error {
	v, err := sc.number()
	if err != nil {
		return err
	}
	f, err := sbParseFloatStrict(v)
	if err != nil {
		return err
	}
	*dst = f
	return nil
}

func sbIsDigit(c byte) bool { return c >= '0' && c <= '9' }

// sbParseFloatStrict accepts only "D+[.D+]" and finite values, so that
// "NaN", "Inf" or exponents (which sysbench never prints) are rejected.
func sbParseFloatStrict(s string) (float64, error) {
	if !sbReNumber.MatchString(s) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q out of range", s)
	}
	return f, nil
}

func sbParseIntStrict(s string) (int, error) {
	if !sbReCount.MatchString(s) {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q out of range", s)
	}
	return n, nil
}

func sbParseCount(s string) (int64, error) {
	if !sbReCount.MatchString(s) {
		return 0, fmt.Errorf("%q is not a count", s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q out of range", s)
	}
	return n, nil
}

// sbParseCountRate parses "N  (X per sec.)"; sysbench pads N with "%-6" so
// one or many spaces precede "(".
func sbParseCountRate(s string) (int64, float64, error) {
	m := sbReCountRate.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, fmt.Errorf("want \"N (X per sec.)\", got %q", s)
	}
	n, err := sbParseCount(m[1])
	if err != nil {
		return 0, 0, err
	}
	r, err := sbParseFloatStrict(m[2])
	if err != nil {
		return 0, 0, err
	}
	return n, r, nil
}

// sbParseUnit parses a number with an optional unit suffix.
func sbParseUnit(s, unit string) (float64, error) {
	return sbParseFloatStrict(strings.TrimSpace(strings.TrimSuffix(s, unit)))
}

// headerLine handles the banner-to-"Threads started!" block and the 0.4
// mode lines. handled is false for unknown lines.
func (p *Parser) headerLine(line string) (bool, error) {
	switch line {
	case "Running the test with following options:",
		"Initializing random number generator from current time",
		"Initializing worker threads...",
		"Debug mode enabled.",
		"Additional request validation enabled.",
		"Time limit exceeded, exiting...",
		"Done.",
		"Using auto_inc on the id column",
		"Using \"BEGIN\" for starting transactions",
		"Using \"LOCK TABLES WRITE\" for starting transactions",
		"Using \"LOCK TABLES READ\" for starting transactions":
		return true, nil
	case "Threads started!":
		p.out.threadsStarted = true
		return true, nil
	case "Doing OLTP test.":
		p.legacy().Test = "oltp"
		return true, nil
	case "Doing read-only test":
		p.legacy().ReadOnly = true
		return true, nil
	case "Skipping BEGIN/COMMIT":
		p.legacy().SkipTrx = true
		return true, nil
	case "Latency histogram (values are in milliseconds)":
		p.section, p.sub = sbSecHistogram, sbSubNone
		return true, nil
	}
	if m := sbReThreads.FindStringSubmatch(line); m != nil {
		n, err := sbParseIntStrict(m[1])
		if err != nil {
			return true, p.malformed(line, "number of threads: %v", err)
		}
		p.out.threads = n
		return true, nil
	}
	if m := sbReRate.FindStringSubmatch(line); m != nil {
		n, err := sbParseIntStrict(m[1])
		if err != nil {
			return true, p.malformed(line, "target transaction rate: %v", err)
		}
		p.out.targetRateTPS = n
		return true, nil
	}
	if m := sbReReportEvery.FindStringSubmatch(line); m != nil {
		n, err := sbParseIntStrict(m[1])
		if err != nil {
			return true, p.malformed(line, "report interval: %v", err)
		}
		p.out.reportIntervalS = n
		return true, nil
	}
	if m := sbReLegacyRun.FindStringSubmatch(line); m != nil {
		p.legacy().OLTPMode = m[1]
		return true, nil
	}
	if m := sbReLegacyDist.FindStringSubmatch(line); m != nil {
		p.legacy().Distribution = m[1]
		return true, nil
	}
	if sbReLastRepeated.MatchString(line) ||
		strings.HasPrefix(line, "Initializing random number generator from seed") ||
		line == "Initializing random number generator from timer." ||
		strings.HasPrefix(line, "Random number generator seed is ") ||
		strings.HasPrefix(line, "Report checkpoint(s) at ") ||
		strings.HasPrefix(line, "Forcing shutdown in ") ||
		strings.HasPrefix(line, "No DB drivers specified, using ") ||
		strings.HasPrefix(line, "Maximum number of requests for OLTP test is limited to ") {
		return true, nil
	}
	return false, nil
}

func (p *Parser) legacy() *legacyTestMode {
	if p.out.legacyMode == nil {
		p.out.legacyMode = &legacyTestMode{}
	}
	return p.out.legacyMode
}

// reportLine handles report headers and "label: value" lines inside a
// report. handled is false for lines that are neither.
func (p *Parser) reportLine(line string) (bool, error) {
	switch line {
	case "SQL statistics:", "OLTP test statistics:":
		p.beginSection(sbSecSQL)
		return true, nil
	case "General statistics:", "Test execution summary:":
		p.beginSection(sbSecGeneral)
		return true, nil
	case "Latency (ms):":
		p.beginSection(sbSecLatency)
		return true, nil
	case "Threads fairness:":
		p.beginSection(sbSecFairness)
		return true, nil
	case "queries performed:":
		if p.section == sbSecSQL {
			p.sub = sbSubQueries
			return true, nil
		}
		return false, nil
	case "per-request statistics:":
		if p.section == sbSecGeneral {
			p.sub = sbSubPerRequest
			return true, nil
		}
		return false, nil
	}
	if m := sbReUnfinished.FindStringSubmatch(line); m != nil {
		n, err := sbParseCount(m[1])
		if err != nil {
			return true, p.malformed(line, "unfinished transactions: %v", err)
		}
		p.report().UnfinishedOnShutdown = n
		return true, nil
	}
	if p.section == sbSecNone || p.cur == nil {
		return false, nil
	}
	rawLabel, val, ok := strings.Cut(line, ":")
	if !ok {
		return false, nil
	}
	label := sbReSpaces.ReplaceAllString(strings.TrimSpace(rawLabel), " ")
	val = strings.TrimSpace(val)
	s := p.cur
	bad := func(err error) (bool, error) {
		return true, p.malformed(line, "%s: %v", label, err)
	}
	var err error
	switch p.section {
	case sbSecSQL:
		switch label {
		case "read", "write", "other", "total":
			if p.sub != sbSubQueries {
				return false, nil
			}
			var n int64
			if n, err = sbParseCount(val); err != nil {
				return bad(err)
			}
			switch label {
			case "read":
				s.Reads = n
			case "write":
				s.Writes = n
			case "other":
				s.Other = n
			case "total":
				s.Queries = n
			}
		case "transactions":
			s.Transactions, s.TPS, err = sbParseCountRate(val)
		case "queries":
			s.Queries, s.QPS, err = sbParseCountRate(val)
		case "ignored errors":
			s.IgnoredErrors, s.IgnoredErrorsPS, err = sbParseCountRate(val)
			s.printed |= sbHasIgnoredErrors
		case "reconnects":
			s.Reconnects, s.ReconnectsPS, err = sbParseCountRate(val)
			s.printed |= sbHasReconnects
		case "deadlocks":
			s.Deadlocks, s.DeadlocksPS, err = sbParseCountRate(val)
			s.printed |= sbHasDeadlocks
		case "read/write requests":
			s.RWRequests, s.RWRequestsPS, err = sbParseCountRate(val)
			s.printed |= sbHasRWRequests
		case "other operations":
			s.OtherOperations, s.OtherOperationsPS, err = sbParseCountRate(val)
			s.printed |= sbHasOtherOperations
		default:
			return false, nil
		}
	case sbSecGeneral, sbSecLatency:
		switch label {
		case "total time":
			if p.section != sbSecGeneral {
				return false, nil
			}
			s.TotalTimeS, err = sbParseUnit(val, "s")
		case "total number of events":
			if p.section != sbSecGeneral {
				return false, nil
			}
			s.Events, err = sbParseCount(val)
		case "total time taken by event execution":
			if p.section != sbSecGeneral {
				return false, nil
			}
			s.EventExecTimeS, err = sbParseUnit(val, "s")
		case "response time":
			// 0.5: "response time:" opens the latency block that 0.4
			// calls "per-request statistics:".
			if p.section != sbSecGeneral || val != "" {
				return false, nil
			}
			p.sub = sbSubPerRequest
		default:
			if p.section != sbSecLatency && p.sub != sbSubPerRequest {
				return false, nil
			}
			switch label {
			case "min":
				s.LatMinMS, err = sbParseUnit(val, "ms")
			case "avg":
				s.LatAvgMS, err = sbParseUnit(val, "ms")
			case "max":
				s.LatMaxMS, err = sbParseUnit(val, "ms")
			case "sum":
				s.LatSumMS, err = sbParseUnit(val, "ms")
			case "percentile stats":
				if val != "disabled" {
					return bad(fmt.Errorf("want \"disabled\", got %q", val))
				}
				s.LatPct, s.LatPctMS = 0, nil
			default:
				m := sbRePctLabel.FindStringSubmatch(label)
				if m == nil {
					return false, nil
				}
				pct := m[1] + m[2]
				var v float64
				if v, err = sbParseUnit(val, "ms"); err != nil {
					return bad(err)
				}
				s.LatPct, _ = strconv.ParseFloat(pct, 64)
				s.LatPctMS = &v
			}
		}
	case sbSecFairness:
		var a, b float64
		switch label {
		case "events (avg/stddev)", "execution time (avg/stddev)":
			m := sbReAvgStddev.FindStringSubmatch(val)
			if m == nil {
				return bad(fmt.Errorf("want \"avg/stddev\", got %q", val))
			}
			a, _ = strconv.ParseFloat(m[1], 64)
			b, _ = strconv.ParseFloat(m[2], 64)
			if !sbFinite(a) || !sbFinite(b) {
				return bad(fmt.Errorf("%q out of range", val))
			}
		default:
			return false, nil
		}
		s.HasFairness = true
		if label == "events (avg/stddev)" {
			s.EventsAvg, s.EventsStddev = a, b
		} else {
			s.ExecTimeAvgS, s.ExecTimeStddevS = a, b
		}
	default:
		return false, nil
	}
	if err != nil {
		return bad(err)
	}
	return true, nil
}

func sbFinite(f float64) bool { return f-f == 0 }

// report returns the report being read, starting one if needed.
func (p *Parser) report() *Summary {
	if p.cur == nil {
		p.cur = &Summary{}
		p.curSections = map[int]bool{}
		p.curCkpt, p.pendingCkpt = p.pendingCkpt, nil
	}
	return p.cur
}

// beginSection starts a report section; a section that the current report
// already has starts a new report.
func (p *Parser) beginSection(sec int) {
	if p.cur != nil && p.curSections[sec] {
		p.closeReport()
	}
	p.report()
	p.curSections[sec] = true
	p.section, p.sub = sec, sbSubNone
}

// closeReport files the current report as a checkpoint or the final
// summary.
func (p *Parser) closeReport() {
	p.section, p.sub = sbSecNone, sbSubNone
	if p.cur == nil {
		return
	}
	if p.curCkpt != nil {
		p.out.checkpoints = append(p.out.checkpoints, checkpoint{TimeS: *p.curCkpt, Summary: *p.cur})
	} else {
		s := *p.cur
		p.out.Summary = &s
	}
	p.cur, p.curSections, p.curCkpt = nil, nil, nil
}

// Output returns everything parsed so far. The result does not share
// memory with the parser; a report still being read is included. Two
// judgements need what came later, so Output makes them, not Feed: when
// the run's threads wound down and more than one interval followed (see
// Output.tail), those intervals move to the tail; once a final report
// gives the run's total events, intervals whose tps exceeds it move to
// Output.discarded.
func (p *Parser) Output() Output {
	o := p.out
	o.intervals = append([]runner.Interval{}, p.out.intervals...)
	o.Failures = append([]Failure{}, p.out.Failures...)
	o.checkpoints = append([]checkpoint(nil), p.out.checkpoints...)
	o.warnings = append([]Failure(nil), p.out.warnings...)
	o.unrecognized = append([]outputLine(nil), p.out.unrecognized...)
	o.discarded = append([]discardedInterval(nil), p.out.discarded...)
	o.tail = append([]runner.Interval(nil), p.out.tail...)
	for i := range o.tail {
		o.tail[i].LatMS = sbCopyPtr(o.tail[i].LatMS)
		o.tail[i].QueueLength = sbCopyPtr(o.tail[i].QueueLength)
		o.tail[i].Concurrency = sbCopyPtr(o.tail[i].Concurrency)
	}
	if p.out.legacyMode != nil {
		m := *p.out.legacyMode
		o.legacyMode = &m
	}
	if p.out.Summary != nil {
		s := *p.out.Summary
		o.Summary = &s
	}
	if p.cur != nil {
		s := *p.cur
		if p.curCkpt != nil {
			o.checkpoints = append(o.checkpoints, checkpoint{TimeS: *p.curCkpt, Summary: s})
		} else {
			o.Summary = &s
		}
	}
	if i := sbWoundDown(o.intervals, cmp.Or(p.inv.threads, o.threads)); i < len(o.intervals) {
		o.tail = append(append([]runner.Interval(nil), o.intervals[i:]...), o.tail...)
		o.intervals = o.intervals[:i]
	}
	// A per-second rate above the run's total number of events cannot be
	// (known only once the final report is read; a final report after
	// checkpoints covers only the time since the last one, so not then).
	if s := o.Summary; s != nil && s.Events > 0 && len(o.checkpoints) == 0 {
		kept := o.intervals[:0]
		for _, iv := range o.intervals {
			if iv.TPS > float64(s.Events) {
				o.discarded = append(o.discarded, discardedInterval{Time: iv.Time, Line: iv.Line, Interval: iv,
					Reason: fmt.Sprintf("implausible value: tps %.6g per second, more than the %d events of the whole run", iv.TPS, s.Events)})
				continue
			}
			kept = append(kept, iv)
		}
		o.intervals = kept
	}
	// Deep-copy pointer fields so callers cannot modify parser state.
	for i := range o.intervals {
		o.intervals[i].LatMS = sbCopyPtr(o.intervals[i].LatMS)
		o.intervals[i].QueueLength = sbCopyPtr(o.intervals[i].QueueLength)
		o.intervals[i].Concurrency = sbCopyPtr(o.intervals[i].Concurrency)
	}
	for i := range o.discarded {
		iv := &o.discarded[i].Interval
		iv.LatMS, iv.QueueLength, iv.Concurrency = sbCopyPtr(iv.LatMS), sbCopyPtr(iv.QueueLength), sbCopyPtr(iv.Concurrency)
	}
	if o.Summary != nil {
		o.Summary.LatPctMS = sbCopyPtr(o.Summary.LatPctMS)
	}
	for i := range o.checkpoints {
		o.checkpoints[i].Summary.LatPctMS = sbCopyPtr(o.checkpoints[i].Summary.LatPctMS)
	}
	return o
}

func sbCopyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
