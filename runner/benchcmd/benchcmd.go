// Package benchcmd is the driver of a user's own benchmark command
// (--bench-cmd): any program that prints per-interval throughput lines.
package benchcmd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/shlex"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/runner/benchcmd/tpccmysql"
	"github.com/autotune/autotune/runner/sysbench"
)

// BenchPlaceholders are the words replaced in every argument of a
// --bench-cmd before it runs.
var BenchPlaceholders = map[string]string{
	"{socket}":     "unix socket path of the sandboxed server",
	"{host}":       "127.0.0.1",
	"{port}":       "TCP port of the sandboxed server",
	"{user}":       "root (no password)",
	"{db}":         "sbtest, the schema of the prepared dataset",
	"{threads}":    "client threads of this run (one --threads level)",
	"{seconds}":    "run length in whole seconds (--warmup cap + --duration + 2 s slack)",
	"{tables}":     "--tables",
	"{table_size}": "--table-size",
}

var reBrace = regexp.MustCompile(`\{[a-z_]+\}`)

// Command runs a user command that prints per-interval throughput
// lines (--bench-cmd). The command line is split into arguments with
// POSIX-shell-like quoting (github.com/google/shlex: 'single', "double",
// backslash escapes) and run without a shell; placeholders
// (BenchPlaceholders) are replaced in each argument.
//
// Every output line (stdout and stderr) is read as:
//
//   - a sysbench interval report ("[ 5s ] thds: 16 tps: 512.3 qps: ...",
//     any version the sysbench parser knows), so sysbench Lua scripts such
//     as TPC-C-like ones pass through sysbench unchanged; or
//   - an interval line of tpcc-mysql's tpcc_start (runner/benchcmd/tpccmysql: the
//     2016+ layout with "95%:" or "95:", and the pre-2016 one): TPS is
//     New-Order transactions per second (tpmC / 60), QPS all five types per
//     second, the latency New-Order's first percentile (95th, or 90th
//     before 2016). From tpcc_start's first own line on (banner, RAMP-UP
//     TIME, MEASURING START) its parser reads the output, and a sysbench
//     or key=value interval line fails the run (mixed output). An "error
//     at ..." line stops the command (at the next line, the client error
//     that caused it) and fails the run; so does a report (printed only
//     when the command ends before autotune stops it) whose transaction-mix
//     check is [NG]. The result's Summary is a TPCCMySQLSummary; or
//   - a key=value line: whitespace-separated pairs, tps= required, from
//     t= (seconds since start; default: the line's ordinal), tps=, qps=,
//     lat_ms= (latency percentile in ms), lat_pct= (its rank, default 95),
//     err_s=, reconn_s=. Example: "t=3 tps=512.5 qps=10250 lat_ms=41.2".
//
// Any other line is ignored. A line that has the shape of an interval
// line of the format being read but does not parse fails the run; so does
// a non-zero exit status or a run without interval lines.
type Command struct {
	// Args is the split command line, placeholders not yet replaced.
	Args []string
	// Tables and TableSize fill {tables} and {table_size}.
	Tables, TableSize int
	// Loader prepares the dataset (sysbench prepare of the sbtest tables).
	Loader sysbench.Bench
}

// ParseBenchCmd splits a --bench-cmd value into arguments and checks its
// placeholders. It returns an error naming the problem for an empty
// command, unbalanced quotes, or an unknown {placeholder}.
func ParseBenchCmd(s string) ([]string, error) {
	args, err := shlex.Split(s)
	if err != nil {
		return nil, fmt.Errorf("--bench-cmd %q: %w", s, err)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("--bench-cmd %q: empty command", s)
	}
	for _, a := range args {
		for _, m := range reBrace.FindAllString(a, -1) {
			if _, ok := BenchPlaceholders[m]; !ok {
				names := make([]string, 0, len(BenchPlaceholders))
				for k := range BenchPlaceholders {
					names = append(names, k)
				}
				return nil, fmt.Errorf("--bench-cmd: unknown placeholder %s in %q (known: %s)", m, a, strings.Join(slices.Sorted(slices.Values(names)), " "))
			}
		}
	}
	return args, nil
}

// expand returns the arguments with placeholders replaced.
func (c Command) expand(srv *runner.Server, threads, secs int) []string {
	r := strings.NewReplacer(
		"{socket}", srv.Socket, "{host}", "127.0.0.1", "{port}", strconv.Itoa(srv.Port),
		"{user}", "root", "{db}", "sbtest", "{threads}", strconv.Itoa(threads),
		"{seconds}", strconv.Itoa(secs), "{tables}", strconv.Itoa(c.Tables), "{table_size}", strconv.Itoa(c.TableSize))
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		out[i] = r.Replace(a)
	}
	return out
}

// Run runs the command for r.Duration (whole seconds, {seconds}) with
// {threads} = r.Threads under r.Launch and calls onSample for every
// interval line as it arrives. It returns a *runner.BenchError when the
// run failed, ctx.Err() when cancelled (the command gets SIGTERM, then
// SIGKILL after 5 s). The result's Summary is the sysbench report when the
// command is sysbench.
func (c Command) Run(ctx context.Context, srv *runner.Server, r runner.BenchRun, onSample func(runner.Interval)) (runner.BenchResult, error) {
	secs := int((r.Duration + time.Second - 1) / time.Second)
	args := c.expand(srv, r.Threads, secs)
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	cmd := r.Launch.CommandContext(cctx, args[0], args[1:]...)
	cmd.SysProcAttr = runner.ChildProcAttr(false)
	cmd.Cancel = func() error { return runner.Terminate(cmd.Process) }
	cmd.WaitDelay = 5 * time.Second
	rd := newOutputReader()
	text, err := runner.StreamLines(cmd, func(line string) {
		if iv := rd.feed(line); iv != nil && onSample != nil {
			onSample(*iv)
		}
		if rd.tpccFailed {
			stop() // tpcc_start lost a thread or its run: no use measuring on
		}
	})
	so := rd.sb.Output()
	res := runner.BenchResult{Version: so.Version}
	if so.Summary != nil {
		res.Summary = so.Summary
	}
	tpccFailure := "" // why tpcc_start's output fails the run
	if rd.tpcc {
		var sum TPCCMySQLSummary
		sum, tpccFailure = summariseTPCCMySQL(rd.tp.Output())
		res.Summary = sum
	}
	if tpccFailure != "" {
		return res, &runner.BenchError{Reason: tpccFailure, Output: text}
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	parseErr, ivs := rd.parseErr, rd.ivs
	switch {
	case err != nil:
		reason := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			reason = args[0] + " " + ee.ProcessState.String()
		}
		if len(so.Failures) > 0 {
			reason += ": " + so.Failures[0].Text
		}
		return res, &runner.BenchError{Reason: reason, Output: text}
	case parseErr != nil:
		return res, &runner.BenchError{Reason: "unparseable output: " + parseErr.Error(), Output: text}
	case len(ivs) == 0:
		return res, &runner.BenchError{Reason: "no interval lines in the output of " + args[0] + " (see docs/measurement.md, custom benchmarks, for the format)", Output: text}
	}
	return res, nil
}

// Definition returns what the command measures: the command line as
// given (placeholders not replaced) and the sysbench dataset it runs on;
// the command's own version is unknown (Version "").
func (c Command) Definition(ctx context.Context) (benchdef.Definition, error) {
	return benchdef.Definition{Driver: "command", Options: map[string]string{
		"command":  shellJoin(c.Args),
		"workload": c.Loader.Workload, "tables": strconv.Itoa(c.Tables), "table-size": strconv.Itoa(c.TableSize)}}, nil
}

// shellJoin joins args back into one command line, quoting an argument
// with spaces or quotes in single quotes.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

// Prepare loads the dataset the command runs on: sysbench's sbtest tables
// (Loader), so that {tables} and {table_size} describe it.
func (c Command) Prepare(ctx context.Context, srv *runner.Server) error {
	return c.Loader.Prepare(ctx, srv)
}

// ParseKVInterval reads a key=value interval line (see Command):
// nil, nil when the line is not one (no tps= field); an error when it has
// tps= but a field is not key=value, a key is unknown or a value is not a
// finite non-negative number. ordinal is the default for t.
func ParseKVInterval(line string, ordinal int) (*runner.Interval, error) {
	fields := strings.Fields(line)
	hasTPS := false
	for _, f := range fields {
		if strings.HasPrefix(f, "tps=") {
			hasTPS = true
		}
	}
	if !hasTPS {
		return nil, nil
	}
	iv := runner.Interval{Time: float64(ordinal)}
	var lat *float64
	pct := 95.0
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("interval line %q: field %q is not key=value", line, f)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("interval line %q: %s=%q is not a non-negative number", line, k, v)
		}
		switch k {
		case "t":
			iv.Time = x
		case "tps":
			iv.TPS = x
		case "qps":
			iv.QPS = x
		case "lat_ms":
			lat = &x
		case "lat_pct":
			pct = x
		case "err_s":
			iv.ErrPS = x
		case "reconn_s":
			iv.ReconnPS = x
		case "thds", "threads":
			iv.Threads = int(x)
		default:
			return nil, fmt.Errorf("interval line %q: unknown key %q (want t, tps, qps, lat_ms, lat_pct, err_s, reconn_s, threads)", line, k)
		}
	}
	if lat != nil {
		iv.LatMS, iv.LatPct = lat, pct
	}
	return &iv, nil
}

// Dataset identifies the data Prepare loads (the Loader's).
func (c Command) Dataset() runner.Dataset { return c.Loader.Dataset() }

// tpccInterval turns a tpcc_start interval line (output line n) into a
// sample: New-Order transactions per second as TPS, all five types per
// second as QPS, New-Order's first percentile as the latency; the line
// reports no error rates.
func tpccInterval(tiv tpccmysql.Interval, n int) *runner.Interval {
	iv := &runner.Interval{Time: tiv.Time, TPS: tiv.TPS(), QPS: tiv.TotalTPS(), Line: n, NoErrorRates: true}
	if rank, ms, ok := tiv.LatencyMS(); ok {
		iv.LatPct, iv.LatMS = rank, &ms
	}
	return iv
}

// outputReader reads a --bench-cmd's output lines (see Command) into
// intervals.
type outputReader struct {
	sb *sysbench.Parser
	tp *tpccmysql.Parser
	// tpcc is set from tpcc_start's first own line on
	// (tpccmysql.StartsOutput): its interval lines ("10, trx: 380, ...")
	// and sysbench's CSV rows ("10,8,512.30,...") both start "N,", so from
	// then on tpcc_start's parser reads the intervals, and a sysbench or
	// key=value interval line is an error (mixed output).
	tpcc bool
	n    int // lines read
	ivs  []runner.Interval
	// parseErr is the first malformed line's error.
	parseErr error
	// tpccFailed is set at the line after tpcc_start's first failure
	// line, which names its cause (summariseTPCCMySQL says which).
	tpccFailed bool
}

func newOutputReader() *outputReader {
	return &outputReader{sb: sysbench.NewParser(), tp: tpccmysql.NewParser()}
}

// feed reads one line and returns its interval, if it is one.
func (o *outputReader) feed(line string) *runner.Interval {
	o.n++
	// tpcc_start's parser reads every line, so that its line numbers are
	// the output's; its results count once its output began.
	failedBefore := o.tp.Failed()
	tiv, terr := o.tp.Feed(line)
	o.tpcc = o.tpcc || tpccmysql.StartsOutput(line)
	var iv *runner.Interval
	var err error
	if o.tpcc {
		iv, err = o.tpccLine(line, tiv, terr)
		// Stop at the line after a failure line: tpcc_start prints the
		// client error that caused it right after.
		o.tpccFailed = failedBefore
	} else {
		iv, err = o.sb.Feed(line)
		if err != nil && tiv != nil {
			err = fmt.Errorf("%w (the line reads as an interval line of tpcc-mysql's tpcc_start, whose output is recognised from its banner, RAMP-UP TIME or MEASURING START line: none came before it)", err)
		}
		if iv == nil && err == nil {
			if iv, err = ParseKVInterval(line, len(o.ivs)+1); iv != nil {
				iv.Line = o.n
			}
		}
	}
	if err != nil && o.parseErr == nil {
		o.parseErr = err
	}
	if iv != nil {
		o.ivs = append(o.ivs, *iv)
	}
	return iv
}

// tpccLine reads a line of tpcc_start's output: its interval (tiv) or
// malformed line (terr), or another benchmark's interval line, which is
// an error.
func (o *outputReader) tpccLine(line string, tiv *tpccmysql.Interval, terr error) (*runner.Interval, error) {
	switch {
	case terr != nil:
		return nil, terr
	case tiv != nil:
		return tpccInterval(*tiv, o.n), nil
	}
	if kv, _ := ParseKVInterval(line, 0); kv != nil {
		return nil, fmt.Errorf("output line %d: a key=value interval line after tpcc_start's output began (mixed output: run one benchmark per command): %q", o.n, line)
	}
	if strings.HasPrefix(strings.TrimSpace(line), "[") {
		if sb, _ := o.sb.Feed(line); sb != nil {
			return nil, fmt.Errorf("output line %d: a sysbench interval line after tpcc_start's output began (mixed output: run one benchmark per command): %q", o.n, line)
		}
	}
	return nil, nil
}

// TPCCMySQLSummary is what a --bench-cmd run of tpcc-mysql's tpcc_start
// reported, stored as the trial's summary (trials.db, JSON). autotune
// stops the command once its window is measured, before tpcc_start's
// own end: its report (TpmC, constraint checks) is there only when the
// command ended by itself.
type TPCCMySQLSummary struct {
	// Benchmark is "tpcc-mysql".
	Benchmark string `json:"benchmark"`
	// Format is the layout of the interval lines (tpccmysql.Layout) and
	// Build the tpcc-mysql generation it implies ("2016+": wall-clock
	// latencies, "pre-2016": thread CPU time): latencies of two builds are
	// not comparable. "" when unknown.
	Format string `json:"format"`
	Build  string `json:"build"`
	// IntervalTpmC is New-Order transactions per minute over the interval
	// lines read (their New-Order count × 60 / the seconds they cover);
	// nil without interval lines.
	IntervalTpmC *float64 `json:"interval_tpmC"`
	// Mix is each transaction type's share of all transactions in the
	// interval lines, in percent, in tpcc_start's order (New-Order,
	// Payment, Order-Status, Delivery, Stock-Level); nil without them.
	Mix []float64 `json:"mix_pct"`
	// TpmC is the score tpcc_start printed after <TpmC>; nil when it
	// printed no report (stopped by autotune, the usual case).
	TpmC *float64 `json:"tpmC"`
	// Status is tpccmysql.Output.Status when the report was printed (ok,
	// ok_with_warnings, invalid, failed), "no report" otherwise.
	Status string `json:"status"`
	// Warnings are the parser's (response-time checks [NG] under the
	// default limits, a TpmC that disagrees with the interval lines, mixed
	// layouts, failed transactions) and a transaction mix under tpcc_start's
	// minimum shares (43, 4, 4 and 4 % for Payment, Order-Status, Delivery
	// and Stock-Level).
	Warnings []string `json:"warnings"`
}

// summariseTPCCMySQL returns the summary of a tpcc_start output and why
// the run fails ("" when it does not): a failure line, or a report whose
// checks make it no valid TPC-C-like result (a transaction-mix check [NG],
// or a response-time check [NG] whose limit the run set with -0..-4).
func summariseTPCCMySQL(o tpccmysql.Output) (TPCCMySQLSummary, string) {
	s := TPCCMySQLSummary{Benchmark: "tpcc-mysql", Format: string(o.Format), Build: string(o.Build),
		TpmC: o.TpmC, Status: "no report", Warnings: append([]string{}, o.Warnings...)}
	if v, ok := o.IntervalTpmC(); ok {
		s.IntervalTpmC = &v
	}
	if mix, ok := o.IntervalMix(); ok {
		s.Mix = mix[:]
		for tx, pct := range mix {
			if least := tpccmysql.MinMixPercent[tx]; pct < least {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s is %.2f %% of the transactions in the interval lines; tpcc_start's check wants at least %g %%", tpccmysql.Tx(tx), pct, least))
			}
		}
	}
	if len(o.Failures) > 0 {
		f := o.Failures[0]
		why := fmt.Sprintf("tpcc_start reported a failure at output line %d: %s", f.Line, f.Text)
		if c := f.Cause; c != nil {
			why += fmt.Sprintf(" (error %d, SQLSTATE %s: %s)", c.Errno, c.SQLState, c.Message)
		}
		return s, why
	}
	if o.TpmC == nil {
		return s, ""
	}
	s.Status = string(o.Status())
	if mix, rt := o.InvalidChecks(); len(mix)+len(rt) > 0 {
		var ng []string
		for _, c := range mix {
			ng = append(ng, constraintText("mix", c))
		}
		for _, c := range rt {
			ng = append(ng, constraintText("response time", c))
		}
		return s, "not a valid TPC-C result: tpcc_start's constraint check failed: " + strings.Join(ng, "; ")
	}
	return s, ""
}

// constraintText describes a failed constraint check: "mix Payment 40.1 %
// (at least 43 %)".
func constraintText(kind string, c tpccmysql.Constraint) string {
	pct := "nan"
	if c.Percent != nil {
		pct = strconv.FormatFloat(*c.Percent, 'f', -1, 64)
	}
	return fmt.Sprintf("%s %s %s %% (at least %s %%)", kind, c.Name, pct, strconv.FormatFloat(c.MinPercent, 'f', -1, 64))
}
