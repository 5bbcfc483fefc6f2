// Package tpccmysql parses the text that tpcc-mysql's tpcc_start prints on
// stdout (and stderr, when both go to one stream): the option echo and
// <Parameters> block, the per-interval lines, <Raw Results>, <Raw Results2(sum ver.)>,
// <Constraint Check> and the <TpmC> score.
//
// Format facts come from Percona-Lab/tpcc-mysql src/main.c, src/driver.c,
// src/rthist.c and src/spt_proc.c (history read for this parser) and from the
// reference case tpcc-mysql-output-formats under /work/shared/cases (copied to
// testdata/tpcc-mysql-output-formats):
//
//   - Before 2016-02 alarm_handler printed "%4d, %d(%d):%.3f|%.3f, ..." for
//     the five transaction types: count(late):rt90|max_rt, with rt90 from
//     hist_ckp ("return 90% line"). Builds compiled with _SLEEP_ONLY_ print
//     alarm_dummy's "%4d, %d(%d):%.2f, ..." (no max).
//   - Since 2016-02-12 the line is "%4d, trx: %d, 95%: %.3f, 99%: %.3f,
//     max_rt: %.3f, %d|%.3f, %d|%.3f, %d|%.3f, %d|%.3f": the New-Order count,
//     the 95th/99th percentile and max of New-Order response time (only
//     do_neword feeds local_percentile), then count|max_rt for Payment,
//     Order-Status, Delivery and Stock-Level. "%:" is no valid conversion,
//     so the C library decides whether "95%:" or "95:" is printed (case b).
//     A short-lived 2016-02 layout "%d:%.3f|%.3f(%.3f)" is not supported and
//     is reported as an unknown layout, never guessed.
//   - Response times are milliseconds (driver.c computes
//     tv_sec*1000 + tv_nsec/1e6). Up to commit 7612959 (2016-02-11) they were
//     thread CPU time (CLOCK_THREAD_CPUTIME_ID), since then wall time
//     (CLOCK_MONOTONIC): latencies of the two builds are not comparable.
//   - The "late" limits are rt_limit[] = 5/5/5/80/20 ms unless set with the
//     -0..-4 options (echoed as "option 0 (response time limit for
//     transaction 0) '50'"); with wall time nearly every transaction is
//     "late", so the response-time constraint checks print [NG] on ordinary
//     hardware (case a).
//   - spt_proc.c error() prints "%d, %s, %s" (errno, SQLSTATE, message)
//     after "neword %d:%d" (stderr) or "error at thread_main"/"error at
//     main"; the former are retried transactions, the latter a thread or
//     the run failing.
//   - scripts/analyze.sh splits on [,():] and sums field 2, which is the
//     word "trx" in the 2016 layout, so it prints 0 for every interval
//     (case d); this parser reads every field by its label and never maps an
//     unparseable field to 0.
package tpccmysql

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/autotune/autotune/runner"
)

// Tx indexes the five TPC-C transaction types in the order tpcc-mysql
// prints them (driver.c: 0 New-Order, 1 Payment, 2 Order-Status, 3
// Delivery, 4 Stock-Level).
type Tx int

// The transaction types.
const (
	NewOrder Tx = iota
	Payment
	OrderStatus
	Delivery
	StockLevel
)

// tpTxKeys are the JSON keys of the transaction types; tpTxNames the names
// tpcc-mysql prints in the <Constraint Check> block.
var (
	tpTxKeys  = [5]string{"new_order", "payment", "order_status", "delivery", "stock_level"}
	tpTxNames = [5]string{"New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"}
)

// String returns the name tpcc-mysql prints, e.g. "New-Order".
func (t Tx) String() string {
	if t < 0 || int(t) >= len(tpTxNames) {
		return fmt.Sprintf("Tx(%d)", int(t))
	}
	return tpTxNames[t]
}

// MarshalText encodes the type as its JSON key, e.g. "new_order".
func (t Tx) MarshalText() ([]byte, error) {
	if t < 0 || int(t) >= len(tpTxKeys) {
		return nil, fmt.Errorf("TPC-C transaction type %d out of range 0..4", int(t))
	}
	return []byte(tpTxKeys[t]), nil
}

// UnmarshalText decodes what MarshalText produced.
func (t *Tx) UnmarshalText(b []byte) error {
	for i, k := range tpTxKeys {
		if k == string(b) {
			*t = Tx(i)
			return nil
		}
	}
	return fmt.Errorf("unknown TPC-C transaction type %q (want one of %s)", b, strings.Join(tpTxKeys[:], ", "))
}

// ByTx holds one value per transaction type, indexed by Tx. It is
// encoded as a JSON object keyed "new_order", "payment", "order_status",
// "delivery", "stock_level" in that order.
type ByTx[T any] [5]T

// MarshalJSON encodes the five values as an object keyed by type.
func (b ByTx[T]) MarshalJSON() ([]byte, error) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, v := range b {
		if i > 0 {
			sb.WriteByte(',')
		}
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&sb, "%q:%s", tpTxKeys[i], enc)
	}
	sb.WriteByte('}')
	return []byte(sb.String()), nil
}

// UnmarshalJSON decodes what MarshalJSON produced; unknown keys are an
// error.
func (b *ByTx[T]) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	var out ByTx[T]
	for k, raw := range m {
		i := -1
		for j, key := range tpTxKeys {
			if key == k {
				i = j
			}
		}
		if i < 0 {
			return fmt.Errorf("unknown TPC-C transaction type %q (want one of %s)", k, strings.Join(tpTxKeys[:], ", "))
		}
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	*b = out
	return nil
}

// Layout names the layout of a tpcc-mysql interval line.
type Layout string

// Interval line layouts (see the file comment for their sources).
const (
	// Layout2016 is "  10, trx: 380, 95%: 326.659, 99%: 447.298,
	// max_rt: 912.983, 378|431.474, 38|136.792, 37|893.441, 38|898.846"
	// (2016-02-12 and later, as in the README).
	Layout2016 Layout = "2016+"
	// Layout2016NoPct is the same line with "95:" and "99:": what a C
	// library prints for the invalid conversion "%:" in "95%:".
	Layout2016NoPct Layout = "2016+ (95:/99: without %)"
	// LayoutPre2016 is "  10, 1292(0):1.230|3.455, ..." with
	// count(late):rt90|max_rt for each of the five transaction types.
	LayoutPre2016 Layout = "pre-2016"
	// LayoutPre2016SleepOnly is "  10, 1292(0):1.23, ..." printed by
	// alarm_dummy in builds compiled with _SLEEP_ONLY_: count(late):rt90,
	// no max.
	LayoutPre2016SleepOnly Layout = "pre-2016 sleep-only"
)

// Build returns the tpcc-mysql generation that prints the layout.
func (l Layout) Build() Build {
	switch l {
	case Layout2016, Layout2016NoPct:
		return Build2016
	case LayoutPre2016, LayoutPre2016SleepOnly:
		return BuildPre2016
	}
	return ""
}

// Build is the tpcc-mysql generation that produced an output. Latencies
// of different builds must not be compared (thread CPU time before
// 2016-02-11, wall time after).
type Build string

// Builds.
const (
	// Build2016 prints the "trx:" layout, measures wall time
	// (CLOCK_MONOTONIC) and reports New-Order 95th/99th percentiles.
	Build2016 Build = "2016+"
	// BuildPre2016 prints the count(late) layout, measured thread CPU
	// time (CLOCK_THREAD_CPUTIME_ID) and reports 90th percentiles.
	BuildPre2016 Build = "pre-2016"
)

// LatencyClock returns the clock the build timed transactions with:
// "wall" or "thread_cpu"; "" for an unknown build.
func (b Build) LatencyClock() string {
	switch b {
	case Build2016:
		return "wall"
	case BuildPre2016:
		return "thread_cpu"
	}
	return ""
}

// Percentile is a response-time percentile: Rank (e.g. 95) and its
// value MS in milliseconds.
type Percentile struct {
	Rank float64 `json:"rank"`
	MS   float64 `json:"ms"`
}

// TxInterval is one transaction type's numbers in an interval line.
type TxInterval struct {
	// Count is the number of transactions of this type completed in the
	// interval (success + late).
	Count int64 `json:"count"`
	// Late is the number of those slower than the type's rt_limit
	// (pre-2016 layouts only: "count(late)"); nil when the layout does
	// not print it.
	Late *int64 `json:"late,omitempty"`
	// Percentiles are the response-time percentiles the layout prints for
	// this type: 90th for every type pre-2016, 95th and 99th for
	// New-Order only in 2016+. Empty when the layout prints none.
	Percentiles []Percentile `json:"percentiles,omitempty"`
	// MaxMS is the largest response time in the interval in
	// milliseconds; nil in the sleep-only layout, which prints none.
	MaxMS *float64 `json:"max_ms,omitempty"`
}

// Interval is one per-interval line of tpcc_start (alarm_handler in
// main.c), printed every -i seconds (default 10) while measuring.
type Interval struct {
	// Time is the end of the interval in seconds since "MEASURING
	// START." (time_count).
	Time float64 `json:"t"`
	// IntervalS is the length of the interval in seconds: Time minus the
	// previous interval's Time (or minus 0 for the first). Always > 0.
	IntervalS float64 `json:"interval_s"`
	// Layout is the layout this line was detected as.
	Layout Layout `json:"layout"`
	// Tx holds the counts and response times per transaction type.
	Tx ByTx[TxInterval] `json:"tx"`
	// Line is the 1-based line number in the output.
	Line int `json:"line"`
}

// TPS returns New-Order transactions per second in the interval: the
// "trx:" count (2016+) or the first count (pre-2016) divided by IntervalS.
// This is the TPC-C throughput metric (tpmC / 60), so the mean of TPS over
// the intervals times 60 equals the TpmC score; TotalTPS counts all five
// types. 0 for an interval without a length (the zero Interval).
func (iv Interval) TPS() float64 {
	if iv.IntervalS <= 0 {
		return 0
	}
	return float64(iv.Tx[NewOrder].Count) / iv.IntervalS
}

// TotalTPS returns transactions of all five types per second in the
// interval; 0 for an interval without a length.
func (iv Interval) TotalTPS() float64 {
	if iv.IntervalS <= 0 {
		return 0
	}
	var n int64
	for _, tx := range iv.Tx {
		n += tx.Count
	}
	return float64(n) / iv.IntervalS
}

// PercentileMS returns the response time of tx at percentile rank in
// milliseconds; ok is false when the line does not report that rank for tx
// (e.g. rank 95 in a pre-2016 line, which reports 90).
func (iv Interval) PercentileMS(tx Tx, rank float64) (ms float64, ok bool) {
	if tx < 0 || int(tx) >= len(iv.Tx) {
		return 0, false
	}
	for _, p := range iv.Tx[tx].Percentiles {
		if p.Rank == rank {
			return p.MS, true
		}
	}
	return 0, false
}

// LatencyMS returns the first New-Order percentile of the line (rank 95 in
// 2016+ layouts, 90 pre-2016) for a per-interval latency sample; ok is false
// when the line has none.
func (iv Interval) LatencyMS() (rank, ms float64, ok bool) {
	ps := iv.Tx[NewOrder].Percentiles
	if len(ps) == 0 {
		return 0, 0, false
	}
	return ps[0].Rank, ps[0].MS, true
}

// RawResult is one "[i] sc:N lt:N rt:N fl:N" line of <Raw Results> or
// <Raw Results2(sum ver.)>: counts over the whole measure phase.
type RawResult struct {
	// Success and Late are transactions completed within / over the
	// type's response-time limit; their sum is the completed count.
	Success int64 `json:"sc"`
	Late    int64 `json:"lt"`
	// Retry counts retried attempts (errors such as deadlocks), Failure
	// transactions abandoned after 2000 attempts (MAX_RETRY in driver.c).
	Retry   int64 `json:"rt"`
	Failure int64 `json:"fl"`
	// AvgRTMS is "avg_rt: X" in milliseconds (2016+ builds, <Raw
	// Results> only); nil when not printed or printed as nan (no
	// transaction completed).
	AvgRTMS *float64 `json:"avg_rt_ms,omitempty"`
	// LimitMS is the response-time limit in milliseconds printed in
	// parentheses after avg_rt; nil when not printed.
	LimitMS *int64 `json:"limit_ms,omitempty"`
}

// Constraint is one line of the <Constraint Check> block.
type Constraint struct {
	// Tx is the transaction type the line checks.
	Tx Tx `json:"tx"`
	// Name is the printed name, e.g. "Payment".
	Name string `json:"name"`
	// Percent is the printed percentage: the type's share of all
	// transactions (mix checks) or the share completed within its limit
	// (response-time checks). nil when tpcc-mysql printed nan (no
	// transaction of that type completed).
	Percent *float64 `json:"percent"`
	// MinPercent is the threshold: from "(>=43.0%)" for mix checks, 90
	// for response-time checks ("at least 90% passed").
	MinPercent float64 `json:"min_percent"`
	// OK is true for "[OK]", false for "[NG] *".
	OK bool `json:"ok"`
	// Line is the 1-based line number.
	Line int `json:"line"`
}

// Constraints is the parsed <Constraint Check> block.
type Constraints struct {
	// Mix are the "[transaction percentage]" checks (Payment >= 43 %,
	// Order-Status, Delivery, Stock-Level >= 4 %): whether the run ran
	// the TPC-C transaction mix. They decide validity.
	Mix []Constraint `json:"mix"`
	// ResponseTime are the "[response time (at least 90% passed)]"
	// checks against rt_limit. With the default limits (5/5/5/80/20 ms,
	// TPC-C's numbers but read as milliseconds) they fail on ordinary
	// hardware, so they only count where the run set the limit with
	// -0..-4 (Output.RTLimitsMS); otherwise an [NG] is a warning.
	ResponseTime []Constraint `json:"response_time"`
}

// ClientError is an error report of spt_proc.c error(): "errno,
// SQLSTATE, message".
type ClientError struct {
	// Line is the 1-based line number of the error line.
	Line int `json:"line"`
	// Context is the line printed just before it that names where the
	// error happened ("neword 3:5" = New-Order of thread 3 at step 5,
	// "error at thread_main"); "" when none.
	Context string `json:"context,omitempty"`
	// Errno is the MySQL/MariaDB error number (0 when the client had
	// none).
	Errno int `json:"errno"`
	// SQLState is the five-character SQLSTATE, e.g. "40001".
	SQLState string `json:"sql_state"`
	// Message is the server's or client library's message.
	Message string `json:"message"`
}

// Failure is a line that reports that tpcc_start or one of its threads
// failed: "error at main", "error at thread_main" (connect or prepare
// failed: the run went on with fewer connections), the usage text or
// "?? getopt returned ..." (bad option: no run).
type Failure struct {
	// Line is the 1-based line number.
	Line int `json:"line"`
	// Text is the line from the marker on.
	Text string `json:"text"`
	// Cause is the client error printed right after "error at ...", nil
	// when none followed.
	Cause *ClientError `json:"cause,omitempty"`
}

// MaxClientErrors caps Output.Errors; Output.ErrorCount counts
// all of them.
const MaxClientErrors = 100

// Output is everything parsed from one tpcc_start output.
type Output struct {
	// Format is the layout of the interval lines (of the first one when
	// an output mixes layouts, which adds a warning); "" when there are
	// none.
	Format Layout `json:"format"`
	// Build is the tpcc-mysql generation: from Format, else "2016+" when
	// <Raw Results> lines carry avg_rt (added with the 2016 change);
	// "" when unknown. Do not compare latencies across builds.
	Build Build `json:"build"`
	// LatencyClock is Build.LatencyClock(): "wall" or "thread_cpu".
	LatencyClock string `json:"latency_clock"`
	// Warehouses, Connections, RampupS and MeasureS come from the
	// <Parameters> block (what tpcc_start used after atoi); 0 when
	// absent. Seconds for RampupS and MeasureS.
	Warehouses  int `json:"warehouses"`
	Connections int `json:"connections"`
	RampupS     int `json:"rampup_s"`
	MeasureS    int `json:"measure_s"`
	// ReportIntervalS is the -i option in seconds ("option i with value
	// '10'"); 0 when not given (tpcc_start then uses 10).
	ReportIntervalS int `json:"report_interval_s"`
	// RTLimitsMS are response-time limits in milliseconds set with the
	// -0..-4 options; nil entries keep the defaults 5/5/5/80/20 ms.
	RTLimitsMS ByTx[*int64] `json:"rt_limits_ms"`
	// MeasuringStarted is true once "MEASURING START." was printed.
	MeasuringStarted bool `json:"measuring_started"`
	// Intervals are the interval lines in output order; empty (not nil)
	// when there are none.
	Intervals []Interval `json:"intervals"`
	// Raw is <Raw Results>; nil when absent. RawSum is <Raw
	// Results2(sum ver.)>, the same counts summed per thread.
	Raw    *ByTx[RawResult] `json:"raw"`
	RawSum *ByTx[RawResult] `json:"raw_sum,omitempty"`
	// MeasuredS is " in N sec." after <Raw Results>: the seconds the
	// score is computed over ((measure / interval) * interval); nil when
	// absent.
	MeasuredS *int64 `json:"measured_s"`
	// Constraints is the <Constraint Check> block.
	Constraints Constraints `json:"constraints"`
	// ConstraintMixOK reports whether all four transaction-mix checks
	// are [OK]: the run's validity. nil without a complete mix block.
	ConstraintMixOK *bool `json:"constraint_mix_ok"`
	// ConstraintResponseTimeOK reports whether all five response-time
	// checks are [OK]; nil without a complete block. false alone does not
	// invalidate a run (see Constraints.ResponseTime).
	ConstraintResponseTimeOK *bool `json:"constraint_response_time_ok"`
	// TpmC is the score: the number on the line after <TpmC> (New-Order
	// transactions per minute), nil when the output has none (killed or
	// failed run). It is checked against the interval lines; a
	// disagreement adds a warning.
	TpmC *float64 `json:"tpmC"`
	// Failures are "error at ..." and bad-option lines; empty (not nil)
	// when there are none. Any failure makes Status StatusFailed.
	Failures []Failure `json:"failures"`
	// Errors are client error reports of retried transactions (deadlocks,
	// lock wait timeouts), at most MaxClientErrors; ErrorCount counts
	// all.
	Errors     []ClientError `json:"errors,omitempty"`
	ErrorCount int           `json:"error_count"`
	// Warnings describe what is doubtful but not fatal: response-time
	// [NG] with default limits, a TpmC that disagrees with the interval
	// lines, mixed layouts, failed transactions. Empty (not nil) when
	// there are none.
	Warnings []string `json:"warnings"`
	// Unrecognized are non-blank lines the parser does not know, at most
	// MaxUnrecognizedLines; they are ignored, not errors. The password
	// lines ("option p ...", "[pass]: ...") are never stored.
	Unrecognized []OutputLine `json:"unrecognized,omitempty"`
}

// Statuses of a tpcc-mysql run besides StatusOK and StatusFailed.
const (
	// StatusOKWithWarnings is a completed, valid run with warnings:
	// keep the score and the warnings.
	StatusOKWithWarnings RunStatus = "ok_with_warnings"
	// StatusInvalid is a completed run whose transaction mix check
	// (or a response-time check with a limit the run configured) failed:
	// not a valid TPC-C-like result.
	StatusInvalid RunStatus = "invalid"
)

// Status classifies the run: StatusFailed without a TpmC score or with a
// failure line; StatusInvalid when a mix check is [NG] or a
// response-time check of a type whose limit the run set is [NG];
// StatusOKWithWarnings with warnings; else StatusOK.
func (o Output) Status() RunStatus {
	if o.TpmC == nil || len(o.Failures) > 0 {
		return StatusFailed
	}
	if mix, rt := o.InvalidChecks(); len(mix)+len(rt) > 0 {
		return StatusInvalid
	}
	if len(o.Warnings) > 0 {
		return StatusOKWithWarnings
	}
	return StatusOK
}

// InvalidChecks returns the constraint checks that make the run no valid
// TPC-C-like result (Status StatusInvalid): the transaction-mix checks
// that are [NG], and the response-time checks that are [NG] for a type
// whose limit the run set with -0..-4 (under the default limits they are
// only a warning). Both are nil when none failed.
func (o Output) InvalidChecks() (mix, responseTime []Constraint) {
	for _, c := range o.Constraints.Mix {
		if !c.OK {
			mix = append(mix, c)
		}
	}
	for _, c := range o.Constraints.ResponseTime {
		if !c.OK && o.RTLimitsMS[c.Tx] != nil {
			responseTime = append(responseTime, c)
		}
	}
	return mix, responseTime
}

// MinMixPercent is the minimum share of all transactions, in percent, of
// each type in tpcc_start's transaction-mix check (its <Constraint Check>
// "[transaction percentage]" lines: Payment >= 43.0 %, the others >= 4.0
// %; New-Order has no check).
var MinMixPercent = ByTx[float64]{0, 43, 4, 4, 4}

// IntervalMix returns each type's share of all transactions in the
// interval lines, in percent; ok is false without transactions. It is the
// mix check's measure over the intervals read, for a run stopped before
// its <Constraint Check>.
func (o Output) IntervalMix() (pct ByTx[float64], ok bool) {
	var counts ByTx[int64]
	total := int64(0)
	for _, iv := range o.Intervals {
		for tx, t := range iv.Tx {
			counts[tx] += t.Count
			total += t.Count
		}
	}
	if total == 0 {
		return pct, false
	}
	for tx, c := range counts {
		pct[tx] = 100 * float64(c) / float64(total)
	}
	return pct, true
}

// UsableAsScore reports whether TpmC may be used as a score: Status is
// StatusOK or StatusOKWithWarnings.
func (o Output) UsableAsScore() bool {
	s := o.Status()
	return s == StatusOK || s == StatusOKWithWarnings
}

// IntervalTpmC recomputes the score from the interval lines: the sum of the
// New-Order counts * 60 / measured seconds (MeasuredS, else the last
// interval's Time). ok is false without intervals.
func (o Output) IntervalTpmC() (tpmC float64, ok bool) {
	sum, secs, ok := o.intervalNewOrders()
	if !ok {
		return 0, false
	}
	return float64(sum) * 60 / secs, true
}

// intervalNewOrders returns the New-Order count of all interval lines and
// the seconds they cover for IntervalTpmC.
func (o Output) intervalNewOrders() (sum int64, secs float64, ok bool) {
	if len(o.Intervals) == 0 {
		return 0, 0, false
	}
	for _, iv := range o.Intervals {
		sum += iv.Tx[NewOrder].Count
	}
	secs = o.Intervals[len(o.Intervals)-1].Time
	if o.MeasuredS != nil && *o.MeasuredS > 0 {
		secs = float64(*o.MeasuredS)
	}
	return sum, secs, secs > 0
}

// LatencyComparable reports whether response times of o and other may be
// compared: both come from the same known build (CPU time before the 2016
// change, wall time after).
func (o Output) LatencyComparable(other Output) bool {
	return o.Build != "" && o.Build == other.Build
}

// LineError reports a line that has the shape of a known tpcc-mysql line
// (an interval line, a <Raw Results>, <Constraint Check>, <Parameters> or
// <TpmC> line, a numeric option) whose values cannot be parsed. Such a line
// is never dropped or read as 0. errors.As also finds its
// *MalformedLineError, so callers can treat sysbench and tpcc-mysql lines
// alike.
type LineError struct {
	MalformedLineError
}

// Error implements error.
func (e *LineError) Error() string {
	return fmt.Sprintf("tpcc-mysql output line %d: %s: %q", e.Line, e.Reason, e.Text)
}

// Unwrap returns the embedded *MalformedLineError.
func (e *LineError) Unwrap() error { return &e.MalformedLineError }

// Parser sections.
const (
	tpSecNone = iota
	tpSecParams
	tpSecRaw
	tpSecRawSum
	tpSecConstraint
	tpSecConstraintMix
	tpSecConstraintRT
)

// Parser parses tpcc_start output line by line, so a runner can stream
// per-interval samples while the benchmark runs. It is not safe for
// concurrent use.
type Parser struct {
	line int
	out  Output

	section      int
	awaitTpmC    bool   // "<TpmC>" seen, value line not yet
	tpmcLine     int    // line of the TpmC value
	pendingCtx   string // "neword 3:5" or "error at ..." awaiting its error line
	pendingFail  int    // index+1 in out.Failures awaiting its cause
	rawSeen      [5]bool
	rawSumSeen   [5]bool
	lineWarnings []string // warnings found while parsing
}

// NewParser returns a parser with no input consumed.
func NewParser() *Parser {
	return &Parser{}
}

var (
	tpReClientErr = regexp.MustCompile(`^(\d{1,9}), ([0-9A-Z]{5}),(?: (.*))?$`)
	tpReTxCtx     = regexp.MustCompile(`^(?:neword|payment|ordstat|delivery|slev) \d+:\d+$`)
	tpReIntervalH = regexp.MustCompile(`^([^,\s]+),\s*(.*)$`)
	tpReCount     = regexp.MustCompile(`^\d{1,18}$`)
	tpReMS        = regexp.MustCompile(`^\d{1,20}(?:\.\d{1,9})?$`)
	tpRePre2016   = regexp.MustCompile(`^([^()]*)\(([^()]*)\):([^|]*)(?:\|(.*))?$`)
	tpReOption    = regexp.MustCompile(`^option (\S) (?:\([^)]*\) )?(?:with value )?'(.*)'$`)
	tpReParam     = regexp.MustCompile(`^\[(\w+)\]:\s*(.*?)$`)
	tpReSecs      = regexp.MustCompile(`^(\S+) \(sec\.\)$`)
	tpReRaw       = regexp.MustCompile(`^\[(\d)\] sc:(\S+)\s+lt:(\S+)\s+rt:(\S+)\s+fl:(\S+)(?:\s+avg_rt: (\S+) \((\S+)\))?$`)
	tpReMeasured  = regexp.MustCompile(`^in (\S+) sec\.$`)
	tpReMix       = regexp.MustCompile(`^([A-Za-z-]+): (\S+)% \(>=\s*(\d{1,3}(?:\.\d{1,3})?)%\) \[(OK|NG)\](?: \*)?$`)
	tpReRT        = regexp.MustCompile(`^([A-Za-z-]+): (\S+)%\s+\[(OK|NG)\](?: \*)?$`)
	tpReTpmC      = regexp.MustCompile(`^(\S+) TpmC$`)
	tpReRampup    = regexp.MustCompile(`^RAMP-UP TIME\.\(\d+ sec\.\)$`)
	tpReStopping  = regexp.MustCompile(`^STOPPING THREADS\.*`)
	tpReBanner    = regexp.MustCompile(`^\*+$|^\*\*\* ###easy### TPC-C Load Generator \*\*\*$`)
)

// StartsOutput reports whether line (surrounding space ignored) is one
// that only tpcc_start prints and that comes before its interval lines:
// the "TPC-C Load Generator" banner, "RAMP-UP TIME.(N sec.)" or "MEASURING
// START.". A reader of mixed benchmark output (--bench-cmd) uses it to
// tell tpcc_start's interval lines ("10, trx: 380, ...") from sysbench's
// CSV rows ("10,8,512.30,...") before the first of them.
func StartsOutput(line string) bool {
	l := strings.TrimSpace(line)
	return l == "MEASURING START." || tpReRampup.MatchString(l) || (strings.HasPrefix(l, "***") && tpReBanner.MatchString(l) && strings.Contains(l, "TPC-C"))
}

// Failed reports whether a failure line was fed so far ("error at
// thread_main", a usage message: see Output.Failures). Unlike Output it
// copies nothing, so a reader can ask after every line.
func (p *Parser) Failed() bool { return len(p.out.Failures) > 0 }

// Feed consumes one line (a trailing "\r\n" or "\n" is ignored). It returns
// a non-nil *Interval (a copy) when the line is an interval line, nil
// for any other line, and a *LineError for a line of a known shape whose
// values cannot be parsed (including an interval line of an unknown layout
// and an interval whose time does not increase). Parsing may continue after
// an error; the malformed line adds nothing to the output.
func (p *Parser) Feed(line string) (*Interval, error) {
	p.line++
	line = strings.TrimRight(line, "\r\n")
	return p.feed(strings.TrimSpace(line))
}

func (p *Parser) malformed(text, format string, args ...any) *LineError {
	return &LineError{MalformedLineError{Line: p.line, Text: text, Reason: fmt.Sprintf(format, args...)}}
}

func (p *Parser) feed(line string) (*Interval, error) {
	if line == "" {
		if p.section != tpSecNone {
			p.section = tpSecNone
		}
		return nil, nil
	}

	// Password lines first: never stored, never echoed in an error.
	if strings.HasPrefix(line, "option p ") || strings.HasPrefix(line, "[pass]:") ||
		strings.HasPrefix(line, "non-option ARGV-elements:") {
		return nil, nil
	}

	if p.awaitTpmC {
		p.awaitTpmC = false
		if m := tpReTpmC.FindStringSubmatch(line); m != nil {
			return nil, p.tpmc(line, m[1])
		}
		return nil, p.malformed(line, `want "<number> TpmC" after <TpmC>`)
	}

	if m := tpReClientErr.FindStringSubmatch(line); m != nil {
		p.clientError(m)
		return nil, nil
	}
	// "error at main" / "error at thread_main" may be glued to the dots
	// of "STOPPING THREADS....".
	if i := strings.Index(line, "error at "); i >= 0 {
		text := line[i:]
		p.out.Failures = append(p.out.Failures, Failure{Line: p.line, Text: text})
		p.pendingFail = len(p.out.Failures)
		p.pendingCtx = text
		return nil, nil
	}
	if strings.HasPrefix(line, "Usage: tpcc_start") || strings.HasPrefix(line, "?? getopt returned") {
		p.out.Failures = append(p.out.Failures, Failure{Line: p.line, Text: line})
		return nil, nil
	}
	if tpReTxCtx.MatchString(line) {
		p.pendingCtx = line
		return nil, nil
	}

	if strings.HasPrefix(line, "<") {
		if handled := p.blockHeader(line); handled {
			return nil, nil
		}
	}
	switch p.section {
	case tpSecParams:
		if m := tpReParam.FindStringSubmatch(line); m != nil {
			return nil, p.param(line, m[1], m[2])
		}
	case tpSecRaw, tpSecRawSum:
		if handled, err := p.rawLine(line); handled {
			return nil, err
		}
	case tpSecConstraint, tpSecConstraintMix, tpSecConstraintRT:
		if handled, err := p.constraintLine(line); handled {
			return nil, err
		}
	}

	if m := tpReTpmC.FindStringSubmatch(line); m != nil {
		// A "N TpmC" line without its <TpmC> header (e.g. the header
		// line was lost): still the score line of tpcc_start.
		return nil, p.tpmc(line, m[1])
	}

	if m := tpReIntervalH.FindStringSubmatch(line); m != nil && tpIsIntervalShape(m[1], m[2]) {
		iv, err := tpParseInterval(m[1], m[2])
		if err != nil {
			return nil, p.malformed(line, "interval line: %v", err)
		}
		return p.addInterval(line, iv)
	}

	if strings.HasPrefix(line, "option ") {
		return nil, p.option(line)
	}
	switch {
	case line == "MEASURING START.":
		p.out.MeasuringStarted = true
		return nil, nil
	case tpReBanner.MatchString(line), tpReRampup.MatchString(line), tpReStopping.MatchString(line):
		return nil, nil
	}
	if len(p.out.Unrecognized) < MaxUnrecognizedLines {
		p.out.Unrecognized = append(p.out.Unrecognized, OutputLine{Line: p.line, Text: line})
	}
	return nil, nil
}

// blockHeader handles "<...>" block headers; false for other "<" lines.
func (p *Parser) blockHeader(line string) bool {
	switch {
	case line == "<Parameters>":
		p.section = tpSecParams
	case line == "<Raw Results>":
		p.section = tpSecRaw
		if p.out.Raw == nil {
			p.out.Raw = &ByTx[RawResult]{}
		}
	case line == "<Raw Results2(sum ver.)>":
		p.section = tpSecRawSum
		if p.out.RawSum == nil {
			p.out.RawSum = &ByTx[RawResult]{}
		}
	case strings.HasPrefix(line, "<Constraint Check>"):
		p.section = tpSecConstraint
	case line == "<TpmC>":
		p.section = tpSecNone
		p.awaitTpmC = true
	default:
		return false
	}
	return true
}

func (p *Parser) clientError(m []string) {
	n, _ := strconv.Atoi(m[1]) // \d{1,9} always fits
	e := ClientError{Line: p.line, Context: p.pendingCtx, Errno: n, SQLState: m[2], Message: m[3]}
	p.pendingCtx = ""
	if p.pendingFail > 0 {
		f := &p.out.Failures[p.pendingFail-1]
		if f.Cause == nil {
			f.Cause = &e
		}
		p.pendingFail = 0
		return
	}
	p.out.ErrorCount++
	if len(p.out.Errors) < MaxClientErrors {
		p.out.Errors = append(p.out.Errors, e)
	}
}

func (p *Parser) tpmc(line, val string) error {
	v, err := tpParseMS(val)
	if err != nil {
		return p.malformed(line, "TpmC %q is not a number (%v)", val, err)
	}
	if p.out.TpmC != nil {
		p.lineWarnings = append(p.lineWarnings, fmt.Sprintf(
			"line %d: a second TpmC value %s after %.3f at line %d (outputs of two runs concatenated?); the first is kept",
			p.line, val, *p.out.TpmC, p.tpmcLine))
		return nil
	}
	p.out.TpmC = &v
	p.tpmcLine = p.line
	return nil
}

func (p *Parser) param(line, key, val string) error {
	var dst *int
	switch key {
	case "warehouse":
		dst = &p.out.Warehouses
	case "connection":
		dst = &p.out.Connections
	case "rampup":
		dst = &p.out.RampupS
	case "measure":
		dst = &p.out.MeasureS
	default:
		return nil // server, port, DBname, user, ratio: not needed
	}
	if m := tpReSecs.FindStringSubmatch(val); m != nil {
		val = m[1]
	}
	n, err := tpParseInt(val)
	if err != nil {
		return p.malformed(line, "[%s]: %v", key, err)
	}
	*dst = n
	return nil
}

func (p *Parser) option(line string) error {
	m := tpReOption.FindStringSubmatch(line)
	if m == nil {
		if len(p.out.Unrecognized) < MaxUnrecognizedLines {
			p.out.Unrecognized = append(p.out.Unrecognized, OutputLine{Line: p.line, Text: line})
		}
		return nil
	}
	opt, val := m[1], m[2]
	switch {
	case opt == "i":
		n, err := tpParseInt(val)
		if err != nil || n <= 0 {
			return p.malformed(line, "option i (report interval): want a positive number of seconds, got %q", val)
		}
		p.out.ReportIntervalS = n
	case len(opt) == 1 && opt[0] >= '0' && opt[0] <= '4':
		n, err := tpParseInt(val)
		if err != nil {
			return p.malformed(line, "option %s (response time limit): want milliseconds, got %q", opt, val)
		}
		v := int64(n)
		p.out.RTLimitsMS[opt[0]-'0'] = &v
	}
	return nil
}

// rawLine handles a line inside <Raw Results> or <Raw Results2(sum ver.)>.
func (p *Parser) rawLine(line string) (bool, error) {
	if m := tpReMeasured.FindStringSubmatch(line); m != nil && p.section == tpSecRaw {
		n, err := tpParseInt(m[1])
		if err != nil {
			return true, p.malformed(line, "measured seconds: %v", err)
		}
		v := int64(n)
		p.out.MeasuredS = &v
		return true, nil
	}
	if !strings.HasPrefix(line, "[") {
		return false, nil
	}
	m := tpReRaw.FindStringSubmatch(line)
	if m == nil {
		return true, p.malformed(line, `want "[i] sc:N lt:N rt:N fl:N"`)
	}
	i := int(m[1][0] - '0')
	if i > 4 {
		return true, p.malformed(line, "transaction index %d out of range 0..4", i)
	}
	dst, seen := p.out.Raw, &p.rawSeen
	if p.section == tpSecRawSum {
		dst, seen = p.out.RawSum, &p.rawSumSeen
	}
	if seen[i] {
		return true, p.malformed(line, "second [%d] line in the block", i)
	}
	var r RawResult
	for j, f := range []*int64{&r.Success, &r.Late, &r.Retry, &r.Failure} {
		n, err := tpParseCount(m[2+j])
		if err != nil {
			return true, p.malformed(line, "%s: %v", [...]string{"sc", "lt", "rt", "fl"}[j], err)
		}
		*f = n
	}
	if m[6] != "" {
		if !tpIsNaN(m[6]) {
			v, err := tpParseMS(m[6])
			if err != nil {
				return true, p.malformed(line, "avg_rt: %v", err)
			}
			r.AvgRTMS = &v
		}
		n, err := tpParseCount(m[7])
		if err != nil {
			return true, p.malformed(line, "response time limit: %v", err)
		}
		r.LimitMS = &n
	}
	seen[i] = true
	dst[i] = r
	return true, nil
}

// constraintLine handles a line inside <Constraint Check>.
func (p *Parser) constraintLine(line string) (bool, error) {
	switch line {
	case "[transaction percentage]":
		p.section = tpSecConstraintMix
		return true, nil
	case "[response time (at least 90% passed)]":
		p.section = tpSecConstraintRT
		return true, nil
	}
	if p.section == tpSecConstraint {
		return false, nil
	}
	c := Constraint{Line: p.line}
	var name, pct, verdict string
	if p.section == tpSecConstraintMix {
		m := tpReMix.FindStringSubmatch(line)
		if m == nil {
			return true, p.malformed(line, "%s", `want "<Type>: N% (>=N%) [OK|NG]"`)
		}
		name, pct, verdict = m[1], m[2], m[4]
		c.MinPercent, _ = strconv.ParseFloat(m[3], 64) // regexp guarantees a number
	} else {
		m := tpReRT.FindStringSubmatch(line)
		if m == nil {
			return true, p.malformed(line, "%s", `want "<Type>: N% [OK|NG]"`)
		}
		name, pct, verdict = m[1], m[2], m[3]
		c.MinPercent = 90
	}
	tx := -1
	for i, n := range tpTxNames {
		if n == name {
			tx = i
		}
	}
	if tx < 0 {
		return true, p.malformed(line, "unknown transaction type %q", name)
	}
	c.Tx, c.Name, c.OK = Tx(tx), name, verdict == "OK"
	if !tpIsNaN(pct) {
		v, err := tpParseMS(pct)
		if err != nil {
			return true, p.malformed(line, "percentage: %v", err)
		}
		c.Percent = &v
	}
	if p.section == tpSecConstraintMix {
		p.out.Constraints.Mix = append(p.out.Constraints.Mix, c)
	} else {
		p.out.Constraints.ResponseTime = append(p.out.Constraints.ResponseTime, c)
	}
	return true, nil
}

func (p *Parser) addInterval(line string, iv Interval) (*Interval, error) {
	prev := 0.0
	if n := len(p.out.Intervals); n > 0 {
		prev = p.out.Intervals[n-1].Time
	}
	if iv.Time <= prev {
		return nil, p.malformed(line, "interval time %g s does not follow the previous interval's %g s", iv.Time, prev)
	}
	iv.IntervalS = iv.Time - prev
	iv.Line = p.line
	if p.out.Format == "" {
		p.out.Format = iv.Layout
	} else if iv.Layout != p.out.Format {
		p.lineWarnings = append(p.lineWarnings, fmt.Sprintf(
			"line %d: interval layout %q differs from %q of the first interval line", p.line, iv.Layout, p.out.Format))
	}
	p.out.Intervals = append(p.out.Intervals, iv)
	cp := tpCopyInterval(iv)
	return &cp, nil
}

// tpIsIntervalShape reports whether "head, body" has the shape of an
// interval line (whose values may still be malformed): a numeric time
// field, or a body starting with "trx" or with "N(" / "N:" counts. Client
// error lines ("1213, 40001, ...") are matched before this.
func tpIsIntervalShape(head, body string) bool {
	if strings.HasPrefix(body, "trx") {
		return true
	}
	if tpReCount.MatchString(head) {
		return true
	}
	i := strings.IndexAny(body, "(:")
	return i > 0 && tpReCount.MatchString(body[:i])
}

// tpParseInterval parses an interval line split at its first comma: head
// is the time field, body the rest. The layout is detected from body.
func tpParseInterval(head, body string) (Interval, error) {
	var iv Interval
	t, err := tpParseCount(head)
	if err != nil {
		return iv, fmt.Errorf("time: %v", err)
	}
	if t <= 0 {
		return iv, fmt.Errorf("time %d s is not positive", t)
	}
	iv.Time = float64(t)
	fields := strings.Split(body, ",")
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	switch {
	case strings.HasPrefix(body, "trx"):
		err = tpParse2016(&iv, fields)
	case strings.Contains(fields[0], "("):
		err = tpParsePre2016(&iv, fields)
	default:
		err = fmt.Errorf("unknown tpcc-mysql interval layout (want \"trx: N, 95%%: ...\" or \"N(late):rt90|max, ...\")")
	}
	return iv, err
}

// tpParse2016 parses "trx: N, 95%: X, 99%: X, max_rt: X, N|X, N|X, N|X,
// N|X" (or with "95:"/"99:").
func tpParse2016(iv *Interval, f []string) error {
	if len(f) != 8 {
		return fmt.Errorf("2016+ layout has 8 comma-separated fields after the time, got %d", len(f))
	}
	no := &iv.Tx[NewOrder]
	var err error
	if no.Count, err = tpLabeledCount(f[0], "trx:"); err != nil {
		return err
	}
	iv.Layout = Layout2016
	p95Label, p99Label := "95%:", "99%:"
	if strings.HasPrefix(f[1], "95:") {
		iv.Layout = Layout2016NoPct
		p95Label, p99Label = "95:", "99:"
	}
	p95, err := tpLabeledMS(f[1], p95Label)
	if err != nil {
		return err
	}
	p99, err := tpLabeledMS(f[2], p99Label)
	if err != nil {
		return err
	}
	mx, err := tpLabeledMS(f[3], "max_rt:")
	if err != nil {
		return err
	}
	no.Percentiles = []Percentile{{Rank: 95, MS: p95}, {Rank: 99, MS: p99}}
	no.MaxMS = &mx
	for i, s := range f[4:] {
		tx := Tx(i + 1)
		cnt, ms, ok := strings.Cut(s, "|")
		if !ok {
			return fmt.Errorf("%s: want \"count|max_rt\", got %q", tx, s)
		}
		n, err := tpParseCount(cnt)
		if err != nil {
			return fmt.Errorf("%s count: %v", tx, err)
		}
		v, err := tpParseMS(ms)
		if err != nil {
			return fmt.Errorf("%s max_rt: %v", tx, err)
		}
		iv.Tx[tx].Count, iv.Tx[tx].MaxMS = n, &v
	}
	return nil
}

// tpParsePre2016 parses five "N(L):rt90|max" fields (or "N(L):rt90" in
// the sleep-only layout; all five must agree).
func tpParsePre2016(iv *Interval, f []string) error {
	if len(f) != 5 {
		return fmt.Errorf("pre-2016 layout has 5 comma-separated fields after the time, got %d", len(f))
	}
	for i, s := range f {
		tx := Tx(i)
		m := tpRePre2016.FindStringSubmatch(s)
		if m == nil {
			return fmt.Errorf("%s: want \"count(late):rt90|max_rt\", got %q", tx, s)
		}
		layout := LayoutPre2016
		if !strings.Contains(s, "|") {
			layout = LayoutPre2016SleepOnly
		}
		if i == 0 {
			iv.Layout = layout
		} else if layout != iv.Layout {
			return fmt.Errorf("%s: %q mixes the count(late):rt90|max and count(late):rt90 layouts", tx, s)
		}
		n, err := tpParseCount(m[1])
		if err != nil {
			return fmt.Errorf("%s count: %v", tx, err)
		}
		late, err := tpParseCount(m[2])
		if err != nil {
			return fmt.Errorf("%s late count: %v", tx, err)
		}
		if late > n {
			return fmt.Errorf("%s: late count %d exceeds count %d", tx, late, n)
		}
		rt90, err := tpParseMS(m[3])
		if err != nil {
			return fmt.Errorf("%s rt90: %v", tx, err)
		}
		t := &iv.Tx[tx]
		t.Count, t.Late = n, &late
		t.Percentiles = []Percentile{{Rank: 90, MS: rt90}}
		if layout == LayoutPre2016 {
			mx, err := tpParseMS(m[4])
			if err != nil {
				return fmt.Errorf("%s max_rt: %v", tx, err)
			}
			t.MaxMS = &mx
		}
	}
	return nil
}

func tpLabeledCount(field, label string) (int64, error) {
	v, ok := strings.CutPrefix(field, label)
	if !ok {
		return 0, fmt.Errorf("want %q, got %q", label+" <count>", field)
	}
	n, err := tpParseCount(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%s %v", label, err)
	}
	return n, nil
}

func tpLabeledMS(field, label string) (float64, error) {
	v, ok := strings.CutPrefix(field, label)
	if !ok {
		return 0, fmt.Errorf("want %q, got %q", label+" <ms>", field)
	}
	f, err := tpParseMS(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%s %v", label, err)
	}
	return f, nil
}

// tpParseCount parses a non-negative count printed with %d.
func tpParseCount(s string) (int64, error) {
	if !tpReCount.MatchString(s) {
		return 0, fmt.Errorf("want a non-negative integer, got %q", s)
	}
	return strconv.ParseInt(s, 10, 64)
}

func tpParseInt(s string) (int, error) {
	n, err := tpParseCount(s)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("%q out of range", s)
	}
	return int(n), nil
}

// tpParseMS parses a non-negative decimal printed with %.Nf.
func tpParseMS(s string) (float64, error) {
	if !tpReMS.MatchString(s) {
		return 0, fmt.Errorf("want a non-negative decimal number, got %q", s)
	}
	return strconv.ParseFloat(s, 64)
}

// tpIsNaN reports whether printf printed nan for 0/0.
func tpIsNaN(s string) bool {
	switch strings.ToLower(s) {
	case "nan", "-nan":
		return true
	}
	return false
}

func tpCopyInterval(iv Interval) Interval {
	for i := range iv.Tx {
		t := &iv.Tx[i]
		t.Late = copyPtr(t.Late)
		t.MaxMS = copyPtr(t.MaxMS)
		t.Percentiles = append([]Percentile(nil), t.Percentiles...)
	}
	return iv
}

// Output returns everything parsed so far, with the derived fields (Build,
// constraint verdicts) and warnings computed. The result does not share
// memory with the parser.
func (p *Parser) Output() Output {
	o := p.out
	o.Intervals = make([]Interval, len(p.out.Intervals))
	for i, iv := range p.out.Intervals {
		o.Intervals[i] = tpCopyInterval(iv)
	}
	for i := range o.RTLimitsMS {
		o.RTLimitsMS[i] = copyPtr(o.RTLimitsMS[i])
	}
	if p.out.Raw != nil {
		o.Raw = tpCopyRaw(p.out.Raw)
	}
	if p.out.RawSum != nil {
		o.RawSum = tpCopyRaw(p.out.RawSum)
	}
	o.MeasuredS = copyPtr(p.out.MeasuredS)
	o.TpmC = copyPtr(p.out.TpmC)
	o.Constraints.Mix = tpCopyConstraints(p.out.Constraints.Mix)
	o.Constraints.ResponseTime = tpCopyConstraints(p.out.Constraints.ResponseTime)
	o.Failures = make([]Failure, len(p.out.Failures))
	for i, f := range p.out.Failures {
		f.Cause = copyPtr(f.Cause)
		o.Failures[i] = f
	}
	o.Errors = append([]ClientError(nil), p.out.Errors...)
	o.Unrecognized = append([]OutputLine(nil), p.out.Unrecognized...)

	o.Build = o.Format.Build()
	if o.Build == "" && o.Raw != nil {
		for _, r := range o.Raw {
			if r.LimitMS != nil {
				o.Build = Build2016
			}
		}
	}
	o.LatencyClock = o.Build.LatencyClock()
	o.ConstraintMixOK = tpAllOK(o.Constraints.Mix, 4)
	o.ConstraintResponseTimeOK = tpAllOK(o.Constraints.ResponseTime, 5)
	o.Warnings = append(append([]string{}, p.lineWarnings...), p.derivedWarnings(o)...)
	return o
}

func tpCopyRaw(r *ByTx[RawResult]) *ByTx[RawResult] {
	c := *r
	for i := range c {
		c[i].AvgRTMS = copyPtr(c[i].AvgRTMS)
		c[i].LimitMS = copyPtr(c[i].LimitMS)
	}
	return &c
}

func tpCopyConstraints(cs []Constraint) []Constraint {
	out := make([]Constraint, len(cs))
	for i, c := range cs {
		c.Percent = copyPtr(c.Percent)
		out[i] = c
	}
	return out
}

// tpAllOK returns whether all checks are OK; nil unless there are exactly
// want checks.
func tpAllOK(cs []Constraint, want int) *bool {
	if len(cs) != want {
		return nil
	}
	ok := true
	for _, c := range cs {
		ok = ok && c.OK
	}
	return &ok
}

// derivedWarnings checks the parsed output for consistency.
func (p *Parser) derivedWarnings(o Output) []string {
	var w []string
	if o.TpmC != nil {
		if sum, secs, ok := o.intervalNewOrders(); ok {
			got := float64(sum) * 60 / secs
			// tpcc_start computes TpmC in float (24-bit mantissa)
			// and prints it with %.3f.
			if math.Abs(got-*o.TpmC) > 0.001+2.5e-7*math.Abs(got) {
				w = append(w, fmt.Sprintf(
					"TpmC %.3f from the <TpmC> block disagrees with the interval lines: %d New-Order * 60 / %g s = %.3f",
					*o.TpmC, sum, secs, got))
			}
		} else {
			w = append(w, "no interval lines: the TpmC score cannot be checked")
		}
		if o.ConstraintMixOK == nil {
			w = append(w, "no complete <Constraint Check> transaction-percentage block: the transaction mix cannot be checked")
		}
	}
	if o.MeasuredS != nil && len(o.Intervals) > 0 {
		if last := o.Intervals[len(o.Intervals)-1].Time; last != float64(*o.MeasuredS) {
			w = append(w, fmt.Sprintf("the interval lines end at %g s but the run measured %d s: interval lines are missing or extra",
				last, *o.MeasuredS))
		}
	}
	if o.Raw != nil {
		if p.rawSeen != [5]bool{true, true, true, true, true} {
			w = append(w, "<Raw Results> is incomplete (fewer than 5 transaction lines)")
		}
		var failed []string
		for i, r := range o.Raw {
			if r.Failure > 0 {
				failed = append(failed, fmt.Sprintf("%s %d", Tx(i), r.Failure))
			}
		}
		if len(failed) > 0 {
			w = append(w, "transactions failed after all retries: "+strings.Join(failed, ", "))
		}
		if o.RawSum != nil && p.rawSumSeen == p.rawSeen && *tpStripAvg(o.RawSum) != *tpStripAvg(o.Raw) {
			w = append(w, "<Raw Results2(sum ver.)> disagrees with <Raw Results>")
		}
	}
	var ng []string
	for _, c := range o.Constraints.ResponseTime {
		if !c.OK && o.RTLimitsMS[c.Tx] == nil {
			pct := "nan"
			if c.Percent != nil {
				pct = strconv.FormatFloat(*c.Percent, 'f', 2, 64)
			}
			ng = append(ng, fmt.Sprintf("%s %s%%", c.Name, pct))
		}
	}
	if len(ng) > 0 {
		w = append(w, "response-time check [NG] with tpcc-mysql's default limits (5/5/5/80/20 ms, TPC-C's numbers read as ms), "+
			"recorded, not a failure; share within the limit (need 90%): "+strings.Join(ng, ", "))
	}
	return w
}

// tpStripAvg returns r without the avg_rt and limit fields, which <Raw
// Results2(sum ver.)> does not print.
func tpStripAvg(r *ByTx[RawResult]) *ByTx[RawResult] {
	c := *r
	for i := range c {
		c[i].AvgRTMS, c[i].LimitMS = nil, nil
	}
	return &c
}

// Parse parses a whole tpcc_start output.
//
// It reads to the end even after malformed lines; the error then joins one
// *LineError per such line (errors.As finds *LineError and
// *MalformedLineError), or reports a read error. The returned output is
// valid in both cases.
func Parse(r io.Reader) (Output, error) {
	p := NewParser()
	err := runner.FeedLines(r, "tpcc-mysql", func(line string) error {
		_, err := p.Feed(line)
		return err
	})
	return p.Output(), err
}

// copyPtr returns a pointer to a copy of *p (nil for nil).
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
