package tpcc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/autotune/autotune/runner"
)

// Op is one transaction type's line of a go-tpc report (--output json):
// one element of the JSON array go-tpc prints per report.
//
// Source: outputRtMeasurement in tpcc/workload.go and Histogram.Summary in
// pkg/measurement/hist.go of github.com/pingcap/go-tpc v1.0.12, which print
// every value as a string with one decimal.
type Op struct {
	// Name is the transaction type in capitals ("NEW_ORDER", "PAYMENT",
	// "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"), with "_ERR" appended
	// for the failed ones ("NEW_ORDER_ERR").
	Name string `json:"op"`
	// Count is the number of transactions of this type in the report.
	Count int64 `json:"count"`
	// TakesS is the seconds since the first transaction of this type in
	// the report (go-tpc's "Takes(s)"); TPM is Count per minute over
	// TakesS (go-tpc's "TPM").
	TakesS float64 `json:"takes_s"`
	TPM    float64 `json:"tpm"`
	// AvgMS, P50MS, P90MS, P95MS, P99MS, P999MS and MaxMS are latencies
	// in milliseconds (go-tpc's histogram, 1 significant figure).
	AvgMS  float64 `json:"avg_ms"`
	P50MS  float64 `json:"p50_ms"`
	P90MS  float64 `json:"p90_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	P999MS float64 `json:"p999_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// Summary is go-tpc's final report of a run (the "[Summary] " array and
// the tpmC line after "Finished"), kept as the trial's summary.
type Summary struct {
	// Workload is always "tpcc": it tells a TPC-C trial's summary from
	// other benchmarks' (report shows such a trial's throughput as tpmC).
	Workload string `json:"workload"`
	// Ops are the transaction types of the whole run, sorted by name.
	Ops []Op `json:"ops"`
	// TpmC is New-Order transactions per minute over the whole run
	// (warm-up included), TpmTotal all transactions per minute, as go-tpc
	// computes them; 0 when go-tpc printed no tpmC line.
	TpmC     float64 `json:"tpmC"`
	TpmTotal float64 `json:"tpmTotal"`
	// NewOrderP95MS and NewOrderP99MS are the New-Order latency
	// percentiles over the whole run in milliseconds.
	NewOrderP95MS float64 `json:"new_order_p95_ms"`
	NewOrderP99MS float64 `json:"new_order_p99_ms"`
}

// Output is what a go-tpc run printed, parsed.
type Output struct {
	// Intervals are the per-interval reports in order ("[Current] ").
	Intervals []runner.Interval `json:"intervals"`
	// Summary is the final report; nil when go-tpc printed none.
	Summary *Summary `json:"summary"`
	// Errors are the lines in which go-tpc reported a failed
	// transaction, connection or statement ("execute run failed, err
	// ...", "failed to ping db, err ...", "panic: ..."), at most
	// maxErrors of them; ErrorCount counts all.
	Errors     []string `json:"errors,omitempty"`
	ErrorCount int      `json:"error_count"`
	// Finished is set when go-tpc printed "Finished" (its run ended on
	// its own).
	Finished bool `json:"finished"`
}

// maxErrors is how many error lines Output keeps.
const maxErrors = 5

// Parser reads go-tpc tpcc run output (--output json) line by line.
type Parser struct {
	interval float64
	line     int
	out      Output
}

// NewParser returns a parser for a run with the given report interval in
// seconds (go-tpc --interval): the i-th report (from 1) ends at i ×
// interval seconds, and rates are counts per interval. go-tpc does not
// report its running clients: Interval.Threads is left 0.
func NewParser(intervalS float64) *Parser { return &Parser{interval: intervalS} }

// Feed reads one line (with or without its newline). It returns the
// interval when the line is a per-interval report, and an error when the
// line is a JSON report that does not parse (never for other lines: go-tpc
// prints progress and log lines, which are skipped, and error lines, which
// are collected in Output.Errors).
//
// A report's throughput is New-Order transactions per second (TPS; tpmC is
// 60 × TPS), all successful transactions per second (QPS) and failed
// transactions per second (ErrPS), each its count divided by the report
// interval; the latency is New-Order's 95th percentile. go-tpc prints no
// report for an interval in which no transaction ended, so such a second
// is missing rather than zero.
func (p *Parser) Feed(line string) (*runner.Interval, error) {
	p.line++
	l := strings.TrimSpace(line)
	switch {
	case l == "Finished":
		p.out.Finished = true
		return nil, nil
	case strings.HasPrefix(l, "[{"):
		return p.report(l)
	case isErrorLine(l):
		p.out.ErrorCount++
		if len(p.out.Errors) < maxErrors {
			p.out.Errors = append(p.out.Errors, l)
		}
	}
	return nil, nil
}

// isErrorLine reports whether go-tpc reports a failure on line l: a
// transaction or thread that failed ("[TIME] execute run failed, err ...",
// "execute run failed, err ..."), no connection ("failed to ping db, err
// ...", "Failed to init work loader: ..."), a statement it could not
// prepare, or a panic.
func isErrorLine(l string) bool {
	return strings.Contains(l, "execute ") && strings.Contains(l, " failed, err ") ||
		strings.HasPrefix(l, "failed to ") || strings.HasPrefix(l, "Failed to ") ||
		strings.HasPrefix(l, "prepare statement error") || strings.HasPrefix(l, "panic: ")
}

func (p *Parser) report(l string) (*runner.Interval, error) {
	var rows []map[string]string
	if err := json.Unmarshal([]byte(l), &rows); err != nil {
		return nil, fmt.Errorf("line %d: a go-tpc JSON report that does not parse: %w", p.line, err)
	}
	if len(rows) == 1 && rows[0]["tpmC"] != "" {
		s := p.summary()
		var err error
		if s.TpmC, err = num(rows[0], "tpmC"); err == nil {
			s.TpmTotal, err = num(rows[0], "tpmTotal")
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", p.line, err)
		}
		return nil, nil
	}
	ops := make([]Op, 0, len(rows))
	prefix := ""
	for i, r := range rows {
		op, err := parseOp(r)
		if err != nil {
			return nil, fmt.Errorf("line %d: report element %d: %w", p.line, i+1, err)
		}
		if i == 0 {
			prefix = strings.TrimSpace(r["Prefix"])
		} else if strings.TrimSpace(r["Prefix"]) != prefix {
			return nil, fmt.Errorf("line %d: report mixes prefixes %q and %q", p.line, prefix, r["Prefix"])
		}
		ops = append(ops, op)
	}
	switch prefix {
	case "[Summary]":
		s := p.summary()
		s.Ops = ops
		for _, o := range ops {
			if o.Name == "NEW_ORDER" {
				s.NewOrderP95MS, s.NewOrderP99MS = o.P95MS, o.P99MS
			}
		}
		return nil, nil
	case "[Current]":
	default:
		return nil, fmt.Errorf("line %d: report prefix %q, want [Current] or [Summary]", p.line, prefix)
	}
	iv := runner.Interval{Time: float64(len(p.out.Intervals)+1) * p.interval, Line: p.line, LatPct: 95}
	for _, o := range ops {
		rate := float64(o.Count) / p.interval
		switch {
		case strings.HasSuffix(o.Name, "_ERR"):
			iv.ErrPS += rate
		case o.Name == "NEW_ORDER":
			iv.TPS = rate
			v := o.P95MS
			iv.LatMS = &v
			iv.QPS += rate
		default:
			iv.QPS += rate
		}
	}
	if iv.LatMS == nil {
		iv.LatPct = 0
	}
	p.out.Intervals = append(p.out.Intervals, iv)
	return &p.out.Intervals[len(p.out.Intervals)-1], nil
}

func (p *Parser) summary() *Summary {
	if p.out.Summary == nil {
		p.out.Summary = &Summary{Workload: "tpcc"}
	}
	return p.out.Summary
}

// opFields are the keys of a report element and where they go.
var opFields = []struct {
	key string
	dst func(*Op) *float64
}{
	{"Takes(s)", func(o *Op) *float64 { return &o.TakesS }},
	{"TPM", func(o *Op) *float64 { return &o.TPM }},
	{"Avg(ms)", func(o *Op) *float64 { return &o.AvgMS }},
	{"50th(ms)", func(o *Op) *float64 { return &o.P50MS }},
	{"90th(ms)", func(o *Op) *float64 { return &o.P90MS }},
	{"95th(ms)", func(o *Op) *float64 { return &o.P95MS }},
	{"99th(ms)", func(o *Op) *float64 { return &o.P99MS }},
	{"99.9th(ms)", func(o *Op) *float64 { return &o.P999MS }},
	{"Max(ms)", func(o *Op) *float64 { return &o.MaxMS }},
}

func parseOp(r map[string]string) (Op, error) {
	o := Op{Name: r["Operation"]}
	if o.Name == "" {
		return o, fmt.Errorf("no Operation")
	}
	c, err := strconv.ParseInt(r["Count"], 10, 64)
	if err != nil || c < 0 {
		return o, fmt.Errorf("%s: Count %q is not a count", o.Name, r["Count"])
	}
	o.Count = c
	for _, f := range opFields {
		v, err := num(r, f.key)
		if err != nil {
			return o, fmt.Errorf("%s: %w", o.Name, err)
		}
		*f.dst(&o) = v
	}
	return o, nil
}

func num(r map[string]string, key string) (float64, error) {
	s, ok := r[key]
	if !ok {
		return 0, fmt.Errorf("no %q", key)
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %q is not a number", key, s)
	}
	return v, nil
}

// Output returns what was parsed so far.
func (p *Parser) Output() Output { return p.out }

// Explain says why a run failed from its output: the number of error
// lines and the first of them that quotes a server error ("Error 1146
// (42S02): ..."), else the first; "" when there were none.
func (o Output) Explain() string {
	if o.ErrorCount == 0 {
		return ""
	}
	first := o.Errors[0]
	for _, e := range o.Errors {
		if strings.Contains(e, "Error ") {
			first = e
			break
		}
	}
	return fmt.Sprintf("%d error lines, e.g. %s", o.ErrorCount, first)
}
