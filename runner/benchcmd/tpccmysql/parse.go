// Package tpccmysql parses the text that tpcc-mysql's tpcc_start prints on
// stdout (and stderr, when both go to one stream) as far as the command
// benchmark driver (runner/benchcmd) scores it: the response-time limit
// options, the per-interval lines, <Raw Results>, <Raw Results2(sum ver.)>,
// <Constraint Check>, the <TpmC> score and the failure lines.
//
// Format facts come from Percona-Lab/tpcc-mysql src/main.c, src/driver.c,
// src/rthist.c and src/spt_proc.c and from the reference case
// tpcc-mysql-output-formats (testdata/tpcc-mysql-output-formats):
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
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Tx indexes the five TPC-C transaction types in the order tpcc-mysql
// prints them (driver.c: 0 New-Order, 1 Payment, 2 Order-Status, 3
// Delivery, 4 Stock-Level).
type Tx int

// The transaction types.
const (
	newOrder Tx = iota
	payment
	orderStatus
	delivery
	stockLevel
)

// tpTxNames are the names tpcc-mysql prints in the <Constraint Check>
// block.
var tpTxNames = [5]string{"New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"}

// String returns the name tpcc-mysql prints, e.g. "New-Order".
func (t Tx) String() string {
	if t < 0 || int(t) >= len(tpTxNames) {
		return fmt.Sprintf("Tx(%d)", int(t))
	}
	return tpTxNames[t]
}

// ByTx holds one value per transaction type, indexed by Tx.
type ByTx[T any] [5]T

// Layout names the layout of a tpcc-mysql interval line.
type Layout string

// Interval line layouts (see the package comment for their sources).
const (
	// layout2016 is "  10, trx: 380, 95%: 326.659, 99%: 447.298,
	// max_rt: 912.983, 378|431.474, 38|136.792, 37|893.441, 38|898.846"
	// (2016-02-12 and later, as in the README).
	layout2016 Layout = "2016+"
	// layout2016NoPct is the same line with "95:" and "99:": what a C
	// library prints for the invalid conversion "%:" in "95%:".
	layout2016NoPct Layout = "2016+ (95:/99: without %)"
	// layoutPre2016 is "  10, 1292(0):1.230|3.455, ..." with
	// count(late):rt90|max_rt for each of the five transaction types.
	layoutPre2016 Layout = "pre-2016"
	// layoutPre2016SleepOnly is "  10, 1292(0):1.23, ..." printed by
	// alarm_dummy in builds compiled with _SLEEP_ONLY_: count(late):rt90,
	// no max.
	layoutPre2016SleepOnly Layout = "pre-2016 sleep-only"
)

// build returns the tpcc-mysql generation that prints the layout.
func (l Layout) build() Build {
	switch l {
	case layout2016, layout2016NoPct:
		return build2016
	case layoutPre2016, layoutPre2016SleepOnly:
		return buildPre2016
	}
	return ""
}

// Build is the tpcc-mysql generation that produced an output. Latencies
// of different builds must not be compared (thread CPU time before
// 2016-02-11, wall time after).
type Build string

// Builds.
const (
	// build2016 prints the "trx:" layout, measures wall time
	// (CLOCK_MONOTONIC) and reports New-Order 95th/99th percentiles.
	build2016 Build = "2016+"
	// buildPre2016 prints the count(late) layout, measured thread CPU
	// time (CLOCK_THREAD_CPUTIME_ID) and reports 90th percentiles.
	buildPre2016 Build = "pre-2016"
)

// percentile is a response-time percentile: rank (e.g. 95) and its value
// ms in milliseconds.
type percentile struct {
	rank, ms float64
}

// txInterval is one transaction type's numbers in an interval line.
type txInterval struct {
	// count is the number of transactions of this type completed in the
	// interval (success + late).
	count int64
	// percentiles are the response-time percentiles the layout prints for
	// this type: 90th for every type pre-2016, 95th and 99th for
	// New-Order only in 2016+. Empty when the layout prints none.
	percentiles []percentile
}

// Interval is one per-interval line of tpcc_start (alarm_handler in
// main.c), printed every -i seconds (default 10) while measuring.
type Interval struct {
	// Time is the end of the interval in seconds since "MEASURING
	// START." (time_count).
	Time float64
	// intervalS is the length of the interval in seconds: Time minus the
	// previous interval's Time (or minus 0 for the first). Always > 0.
	intervalS float64
	// layout is the layout this line was detected as.
	layout Layout
	// tx holds the counts and response times per transaction type.
	tx ByTx[txInterval]
}

// TPS returns New-Order transactions per second in the interval: the
// "trx:" count (2016+) or the first count (pre-2016) divided by IntervalS.
// This is the TPC-C throughput metric (tpmC / 60), so the mean of TPS over
// the intervals times 60 equals the TpmC score; TotalTPS counts all five
// types. 0 for an interval without a length (the zero Interval).
func (iv Interval) TPS() float64 {
	if iv.intervalS <= 0 {
		return 0
	}
	return float64(iv.tx[newOrder].count) / iv.intervalS
}

// TotalTPS returns transactions of all five types per second in the
// interval; 0 for an interval without a length.
func (iv Interval) TotalTPS() float64 {
	if iv.intervalS <= 0 {
		return 0
	}
	var n int64
	for _, tx := range iv.tx {
		n += tx.count
	}
	return float64(n) / iv.intervalS
}

// LatencyMS returns the first New-Order percentile of the line (rank 95 in
// 2016+ layouts, 90 pre-2016) for a per-interval latency sample; ok is false
// when the line has none.
func (iv Interval) LatencyMS() (rank, ms float64, ok bool) {
	ps := iv.tx[newOrder].percentiles
	if len(ps) == 0 {
		return 0, 0, false
	}
	return ps[0].rank, ps[0].ms, true
}

// rawResult is one "[i] sc:N lt:N rt:N fl:N" line of <Raw Results> or
// <Raw Results2(sum ver.)>: counts over the whole measure phase.
type rawResult struct {
	// success and late are transactions completed within / over the
	// type's response-time limit; their sum is the completed count.
	success, late int64
	// retry counts retried attempts (errors such as deadlocks), failure
	// transactions abandoned after 2000 attempts (MAX_RETRY in driver.c).
	retry, failure int64
	// hasAvgRT is set when the line ends "avg_rt: X (limit)", which 2016+
	// builds print in <Raw Results>.
	hasAvgRT bool
}

// Constraint is one line of the <Constraint Check> block.
type Constraint struct {
	// tx is the transaction type the line checks.
	tx Tx
	// Name is the printed name, e.g. "Payment".
	Name string
	// Percent is the printed percentage: the type's share of all
	// transactions (mix checks) or the share completed within its limit
	// (response-time checks). nil when tpcc-mysql printed nan (no
	// transaction of that type completed).
	Percent *float64
	// MinPercent is the threshold: from "(>=43.0%)" for mix checks, 90
	// for response-time checks ("at least 90% passed").
	MinPercent float64
	// ok is true for "[OK]", false for "[NG] *".
	ok bool
}

// constraints is the parsed <Constraint Check> block.
type constraints struct {
	// mix are the "[transaction percentage]" checks (Payment >= 43 %,
	// Order-Status, Delivery, Stock-Level >= 4 %): whether the run ran
	// the TPC-C transaction mix. They decide validity.
	mix []Constraint
	// responseTime are the "[response time (at least 90% passed)]"
	// checks against rt_limit. With the default limits (5/5/5/80/20 ms,
	// TPC-C's numbers but read as milliseconds) they fail on ordinary
	// hardware, so they only count where the run set the limit with
	// -0..-4 (Output.rtLimitsMS); otherwise an [NG] is a warning.
	responseTime []Constraint
}

// ClientError is an error report of spt_proc.c error(): "errno,
// SQLSTATE, message".
type ClientError struct {
	// Errno is the MySQL/MariaDB error number (0 when the client had
	// none).
	Errno int
	// SQLState is the five-character SQLSTATE, e.g. "40001".
	SQLState string
	// Message is the server's or client library's message.
	Message string
}

// Failure is a line that reports that tpcc_start or one of its threads
// failed: "error at main", "error at thread_main" (connect or prepare
// failed: the run went on with fewer connections), the usage text or
// "?? getopt returned ..." (bad option: no run).
type Failure struct {
	// Line is the 1-based line number.
	Line int
	// Text is the line from the marker on.
	Text string
	// Cause is the client error printed right after "error at ...", nil
	// when none followed.
	Cause *ClientError
}

// Output is what the command driver needs of one tpcc_start output.
type Output struct {
	// Format is the layout of the interval lines (of the first one when
	// an output mixes layouts, which adds a warning); "" when there are
	// none.
	Format Layout
	// Build is the tpcc-mysql generation: from Format, else "2016+" when
	// <Raw Results> lines carry avg_rt (added with the 2016 change);
	// "" when unknown. Latencies of different builds are not comparable.
	Build Build
	// TpmC is the score: the number on the line after <TpmC> (New-Order
	// transactions per minute), nil when the output has none (killed or
	// failed run). It is checked against the interval lines; a
	// disagreement adds a warning.
	TpmC *float64
	// Failures are "error at ..." and bad-option lines; empty (not nil)
	// when there are none. Any failure makes the Status "failed".
	Failures []Failure
	// Warnings describe what is doubtful but not fatal: response-time
	// [NG] with default limits, a TpmC that disagrees with the interval
	// lines, mixed layouts, failed transactions. Empty (not nil) when
	// there are none.
	Warnings []string

	// rtLimitsMS are response-time limits in milliseconds set with the
	// -0..-4 options; nil entries keep the defaults 5/5/5/80/20 ms.
	rtLimitsMS ByTx[*int64]
	// intervals are the interval lines in output order.
	intervals []Interval
	// raw is <Raw Results>; nil when absent. rawSum is <Raw
	// Results2(sum ver.)>, the same counts summed per thread.
	raw, rawSum *ByTx[rawResult]
	// measuredS is " in N sec." after <Raw Results>: the seconds the
	// score is computed over ((measure / interval) * interval); nil when
	// absent.
	measuredS *int64
	// constraints is the <Constraint Check> block.
	constraints constraints
}

// RunStatus classifies a parsed tpcc_start run (Output.Status).
type RunStatus string

// Statuses of a tpcc-mysql run.
const (
	// statusOK is a completed, valid run without warnings.
	statusOK RunStatus = "ok"
	// statusOKWithWarnings is a completed, valid run with warnings:
	// keep the score and the warnings.
	statusOKWithWarnings RunStatus = "ok_with_warnings"
	// statusInvalid is a completed run whose transaction mix check
	// (or a response-time check with a limit the run configured) failed:
	// not a valid TPC-C-like result.
	statusInvalid RunStatus = "invalid"
	// statusFailed is a run without a TpmC score or with a failure line:
	// never score it as 0.
	statusFailed RunStatus = "failed"
)

// Status classifies the run: "failed" without a TpmC score or with a
// failure line; "invalid" when a mix check is [NG] or a response-time
// check of a type whose limit the run set is [NG]; "ok_with_warnings"
// with warnings; else "ok".
func (o Output) Status() RunStatus {
	if o.TpmC == nil || len(o.Failures) > 0 {
		return statusFailed
	}
	if mix, rt := o.InvalidChecks(); len(mix)+len(rt) > 0 {
		return statusInvalid
	}
	if len(o.Warnings) > 0 {
		return statusOKWithWarnings
	}
	return statusOK
}

// InvalidChecks returns the constraint checks that make the run no valid
// TPC-C-like result (Status "invalid"): the transaction-mix checks
// that are [NG], and the response-time checks that are [NG] for a type
// whose limit the run set with -0..-4 (under the default limits they are
// only a warning). Both are nil when none failed.
func (o Output) InvalidChecks() (mix, responseTime []Constraint) {
	for _, c := range o.constraints.mix {
		if !c.ok {
			mix = append(mix, c)
		}
	}
	for _, c := range o.constraints.responseTime {
		if !c.ok && o.rtLimitsMS[c.tx] != nil {
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
	for _, iv := range o.intervals {
		for tx, t := range iv.tx {
			counts[tx] += t.count
			total += t.count
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

// IntervalTpmC recomputes the score from the interval lines: the sum of the
// New-Order counts * 60 / measured seconds (<Raw Results>' "in N sec.", else the last
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
	if len(o.intervals) == 0 {
		return 0, 0, false
	}
	for _, iv := range o.intervals {
		sum += iv.tx[newOrder].count
	}
	secs = o.intervals[len(o.intervals)-1].Time
	if o.measuredS != nil && *o.measuredS > 0 {
		secs = float64(*o.measuredS)
	}
	return sum, secs, secs > 0
}

// lineError reports a line that has the shape of a known tpcc-mysql line
// (an interval line, a <Raw Results>, <Constraint Check> or <TpmC> line, a
// response-time limit option) whose values cannot be parsed. Such a line
// is never dropped or read as 0.
type lineError struct {
	// line is the 1-based line number, text the line, reason what is
	// wrong with it.
	line         int
	text, reason string
}

func (e *lineError) Error() string {
	return fmt.Sprintf("tpcc-mysql output line %d: %s: %q", e.line, e.reason, e.text)
}

// Parser sections.
const (
	tpSecNone = iota
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
	awaitTpmC    bool // "<TpmC>" seen, value line not yet
	tpmcLine     int  // line of the TpmC value
	pendingFail  int  // index+1 in out.Failures awaiting its cause
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
	tpReIntervalH = regexp.MustCompile(`^([^,\s]+),\s*(.*)$`)
	tpReCount     = regexp.MustCompile(`^\d{1,18}$`)
	tpReMS        = regexp.MustCompile(`^\d{1,20}(?:\.\d{1,9})?$`)
	tpRePre2016   = regexp.MustCompile(`^([^()]*)\(([^()]*)\):([^|]*)(?:\|(.*))?$`)
	tpReOption    = regexp.MustCompile(`^option (\S) (?:\([^)]*\) )?(?:with value )?'(.*)'$`)
	tpReRaw       = regexp.MustCompile(`^\[(\d)\] sc:(\S+)\s+lt:(\S+)\s+rt:(\S+)\s+fl:(\S+)(?:\s+avg_rt: (\S+) \((\S+)\))?$`)
	tpReMeasured  = regexp.MustCompile(`^in (\S+) sec\.$`)
	tpReMix       = regexp.MustCompile(`^([A-Za-z-]+): (\S+)% \(>=\s*(\d{1,3}(?:\.\d{1,3})?)%\) \[(OK|NG)\](?: \*)?$`)
	tpReRT        = regexp.MustCompile(`^([A-Za-z-]+): (\S+)%\s+\[(OK|NG)\](?: \*)?$`)
	tpReTpmC      = regexp.MustCompile(`^(\S+) TpmC$`)
	tpReRampup    = regexp.MustCompile(`^RAMP-UP TIME\.\(\d+ sec\.\)$`)
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
// for any other line, and an error naming the line for a line of a known shape whose
// values cannot be parsed (including an interval line of an unknown layout
// and an interval whose time does not increase). Parsing may continue after
// an error; the malformed line adds nothing to the output.
func (p *Parser) Feed(line string) (*Interval, error) {
	p.line++
	line = strings.TrimRight(line, "\r\n")
	return p.feed(strings.TrimSpace(line))
}

func (p *Parser) malformed(text, format string, args ...any) *lineError {
	return &lineError{line: p.line, text: text, reason: fmt.Sprintf(format, args...)}
}

func (p *Parser) feed(line string) (*Interval, error) {
	if line == "" {
		if p.section != tpSecNone {
			p.section = tpSecNone
		}
		return nil, nil
	}

	// Password lines first: never echoed in an error.
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
		return nil, nil
	}
	if strings.HasPrefix(line, "Usage: tpcc_start") || strings.HasPrefix(line, "?? getopt returned") {
		p.out.Failures = append(p.out.Failures, Failure{Line: p.line, Text: line})
		return nil, nil
	}
	if strings.HasPrefix(line, "<") {
		if handled := p.blockHeader(line); handled {
			return nil, nil
		}
	}
	switch p.section {
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
	return nil, nil
}

// blockHeader handles "<...>" block headers; false for other "<" lines.
func (p *Parser) blockHeader(line string) bool {
	switch {
	case line == "<Raw Results>":
		p.section = tpSecRaw
		if p.out.raw == nil {
			p.out.raw = &ByTx[rawResult]{}
		}
	case line == "<Raw Results2(sum ver.)>":
		p.section = tpSecRawSum
		if p.out.rawSum == nil {
			p.out.rawSum = &ByTx[rawResult]{}
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

// clientError reads a client error line: the cause of the failure line
// before it, if any; the errors of retried transactions are not kept.
func (p *Parser) clientError(m []string) {
	if p.pendingFail == 0 {
		return
	}
	n, _ := strconv.Atoi(m[1]) // \d{1,9} always fits
	f := &p.out.Failures[p.pendingFail-1]
	if f.Cause == nil {
		f.Cause = &ClientError{Errno: n, SQLState: m[2], Message: m[3]}
	}
	p.pendingFail = 0
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

// option reads an option echo: the response-time limits -0..-4.
func (p *Parser) option(line string) error {
	m := tpReOption.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	opt, val := m[1], m[2]
	if len(opt) == 1 && opt[0] >= '0' && opt[0] <= '4' {
		n, err := tpParseInt(val)
		if err != nil {
			return p.malformed(line, "option %s (response time limit): want milliseconds, got %q", opt, val)
		}
		v := int64(n)
		p.out.rtLimitsMS[opt[0]-'0'] = &v
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
		p.out.measuredS = &v
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
	dst, seen := p.out.raw, &p.rawSeen
	if p.section == tpSecRawSum {
		dst, seen = p.out.rawSum, &p.rawSumSeen
	}
	if seen[i] {
		return true, p.malformed(line, "second [%d] line in the block", i)
	}
	var r rawResult
	for j, f := range []*int64{&r.success, &r.late, &r.retry, &r.failure} {
		n, err := tpParseCount(m[2+j])
		if err != nil {
			return true, p.malformed(line, "%s: %v", [...]string{"sc", "lt", "rt", "fl"}[j], err)
		}
		*f = n
	}
	if m[6] != "" {
		if !tpIsNaN(m[6]) {
			if _, err := tpParseMS(m[6]); err != nil {
				return true, p.malformed(line, "avg_rt: %v", err)
			}
		}
		if _, err := tpParseCount(m[7]); err != nil {
			return true, p.malformed(line, "response time limit: %v", err)
		}
		r.hasAvgRT = true
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
	var c Constraint
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
	c.tx, c.Name, c.ok = Tx(tx), name, verdict == "OK"
	if !tpIsNaN(pct) {
		v, err := tpParseMS(pct)
		if err != nil {
			return true, p.malformed(line, "percentage: %v", err)
		}
		c.Percent = &v
	}
	if p.section == tpSecConstraintMix {
		p.out.constraints.mix = append(p.out.constraints.mix, c)
	} else {
		p.out.constraints.responseTime = append(p.out.constraints.responseTime, c)
	}
	return true, nil
}

func (p *Parser) addInterval(line string, iv Interval) (*Interval, error) {
	prev := 0.0
	if n := len(p.out.intervals); n > 0 {
		prev = p.out.intervals[n-1].Time
	}
	if iv.Time <= prev {
		return nil, p.malformed(line, "interval time %g s does not follow the previous interval's %g s", iv.Time, prev)
	}
	iv.intervalS = iv.Time - prev
	if p.out.Format == "" {
		p.out.Format = iv.layout
	} else if iv.layout != p.out.Format {
		p.lineWarnings = append(p.lineWarnings, fmt.Sprintf(
			"line %d: interval layout %q differs from %q of the first interval line", p.line, iv.layout, p.out.Format))
	}
	p.out.intervals = append(p.out.intervals, iv)
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
	no := &iv.tx[newOrder]
	var err error
	if no.count, err = tpLabeledCount(f[0], "trx:"); err != nil {
		return err
	}
	iv.layout = layout2016
	p95Label, p99Label := "95%:", "99%:"
	if strings.HasPrefix(f[1], "95:") {
		iv.layout = layout2016NoPct
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
	if _, err := tpLabeledMS(f[3], "max_rt:"); err != nil {
		return err
	}
	no.percentiles = []percentile{{rank: 95, ms: p95}, {rank: 99, ms: p99}}
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
		if _, err := tpParseMS(ms); err != nil {
			return fmt.Errorf("%s max_rt: %v", tx, err)
		}
		iv.tx[tx].count = n
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
		layout := layoutPre2016
		if !strings.Contains(s, "|") {
			layout = layoutPre2016SleepOnly
		}
		if i == 0 {
			iv.layout = layout
		} else if layout != iv.layout {
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
		t := &iv.tx[tx]
		t.count = n
		t.percentiles = []percentile{{rank: 90, ms: rt90}}
		if layout == layoutPre2016 {
			if _, err := tpParseMS(m[4]); err != nil {
				return fmt.Errorf("%s max_rt: %v", tx, err)
			}
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
	for i := range iv.tx {
		t := &iv.tx[i]
		t.percentiles = append([]percentile(nil), t.percentiles...)
	}
	return iv
}

// Output returns everything parsed so far, with the build and the
// warnings computed. The result does not share memory with the parser.
func (p *Parser) Output() Output {
	o := p.out
	o.intervals = make([]Interval, len(p.out.intervals))
	for i, iv := range p.out.intervals {
		o.intervals[i] = tpCopyInterval(iv)
	}
	for i := range o.rtLimitsMS {
		o.rtLimitsMS[i] = copyPtr(o.rtLimitsMS[i])
	}
	o.raw = copyPtr(p.out.raw)
	o.rawSum = copyPtr(p.out.rawSum)
	o.measuredS = copyPtr(p.out.measuredS)
	o.TpmC = copyPtr(p.out.TpmC)
	o.constraints.mix = tpCopyConstraints(p.out.constraints.mix)
	o.constraints.responseTime = tpCopyConstraints(p.out.constraints.responseTime)
	o.Failures = make([]Failure, len(p.out.Failures))
	for i, f := range p.out.Failures {
		f.Cause = copyPtr(f.Cause)
		o.Failures[i] = f
	}

	o.Build = o.Format.build()
	if o.Build == "" && o.raw != nil {
		for _, r := range o.raw {
			if r.hasAvgRT {
				o.Build = build2016
			}
		}
	}
	o.Warnings = append(append([]string{}, p.lineWarnings...), p.derivedWarnings(o)...)
	return o
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
		ok = ok && c.ok
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
		if tpAllOK(o.constraints.mix, 4) == nil {
			w = append(w, "no complete <Constraint Check> transaction-percentage block: the transaction mix cannot be checked")
		}
	}
	if o.measuredS != nil && len(o.intervals) > 0 {
		if last := o.intervals[len(o.intervals)-1].Time; last != float64(*o.measuredS) {
			w = append(w, fmt.Sprintf("the interval lines end at %g s but the run measured %d s: interval lines are missing or extra",
				last, *o.measuredS))
		}
	}
	if o.raw != nil {
		if p.rawSeen != [5]bool{true, true, true, true, true} {
			w = append(w, "<Raw Results> is incomplete (fewer than 5 transaction lines)")
		}
		var failed []string
		for i, r := range o.raw {
			if r.failure > 0 {
				failed = append(failed, fmt.Sprintf("%s %d", Tx(i), r.failure))
			}
		}
		if len(failed) > 0 {
			w = append(w, "transactions failed after all retries: "+strings.Join(failed, ", "))
		}
		if o.rawSum != nil && p.rawSumSeen == p.rawSeen && tpStripAvg(*o.rawSum) != tpStripAvg(*o.raw) {
			w = append(w, "<Raw Results2(sum ver.)> disagrees with <Raw Results>")
		}
	}
	var ng []string
	for _, c := range o.constraints.responseTime {
		if !c.ok && o.rtLimitsMS[c.tx] == nil {
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

// tpStripAvg returns r without the avg_rt marks, which <Raw
// Results2(sum ver.)> does not print.
func tpStripAvg(r ByTx[rawResult]) ByTx[rawResult] {
	for i := range r {
		r[i].hasAvgRT = false
	}
	return r
}

// copyPtr returns a pointer to a copy of *p (nil for nil).
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
