package tpccmysql

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/golden"
)

const tpccTestdata = "testdata"

// tpCaseFormats is the reference case tpcc-mysql-output-formats, copied
// unchanged.
const tpCaseFormats = tpccTestdata + "/tpcc-mysql-output-formats"

// tpParseFile parses a testdata file and fails the test on malformed lines:
// every case input is well formed.
func tpParseFile(t *testing.T, path string) Output {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, errs := tpParseString(t, string(data))
	if len(errs) > 0 {
		t.Fatalf("%s: %v", path, errs)
	}
	return out
}

// tpParseString parses an output given as a string and returns Feed's
// errors as well.
func tpParseString(t *testing.T, s string) (Output, []error) {
	t.Helper()
	p := NewParser()
	var errs []error
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if _, err := p.Feed(sc.Text()); err != nil {
			errs = append(errs, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return p.Output(), errs
}

// tpTxKeys are the case's names of the transaction types.
var tpTxKeys = [5]string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// tpComparable turns an output into the key space of the case's
// expected.json: "raw", "tpmC", the constraint verdicts, the derived
// "status", and the intervals flattened to the case's per-interval keys
// (new_order, p90_ms/p95_ms/p99_ms of New-Order, and the counts of the
// other types).
func tpComparable(o Output) map[string]any {
	m := map[string]any{"status": string(o.Status())}
	if o.TpmC != nil {
		m["tpmC"] = *o.TpmC
	}
	if ok := tpAllOK(o.constraints.mix, 4); ok != nil {
		m["constraint_mix_ok"] = *ok
	}
	if ok := tpAllOK(o.constraints.responseTime, 5); ok != nil {
		m["constraint_response_time_ok"] = *ok
	}
	if o.raw != nil {
		raw := map[string]any{}
		for i, r := range o.raw {
			raw[tpTxKeys[i]] = map[string]any{"sc": float64(r.success), "lt": float64(r.late), "rt": float64(r.retry), "fl": float64(r.failure)}
		}
		m["raw"] = raw
	}
	ivs := []any{}
	for _, iv := range o.intervals {
		f := map[string]any{"t": iv.Time}
		for i, tx := range iv.tx {
			f[tpTxKeys[i]] = float64(tx.count)
		}
		for _, p := range iv.tx[newOrder].percentiles {
			f["p"+strconv.FormatFloat(p.rank, 'f', -1, 64)+"_ms"] = p.ms
		}
		ivs = append(ivs, f)
	}
	m["intervals"] = ivs
	return m
}

// tpUnreadKeys are expected.json keys of what the parser does not read:
// the <Parameters> block, and per interval the maximum response time and
// the late count, which the command driver does not use.
var tpUnreadKeys, tpUnreadIntervalKeys = []string{"warehouses", "connections", "rampup_s", "measure_s"}, []string{"max_ms", "new_order_late"}

// tpRankMS returns the response time of tx at percentile rank in an
// interval line; ok is false when the line does not report that rank.
func tpRankMS(iv Interval, tx Tx, rank float64) (ms float64, ok bool) {
	for _, p := range iv.tx[tx].percentiles {
		if p.rank == rank {
			return p.ms, true
		}
	}
	return 0, false
}

// tpWantLayout is the layout each input of the case must be detected as.
// expected.json describes the layouts in prose ("format"), so the key is
// checked against this table instead of by string equality.
var tpWantLayout = map[string]Layout{
	"a-tpcc-start-2016.txt":             layout2016,      // "2016+ (trx: N, 95%: x, ...)"
	"b-interval-lines-libc-variant.txt": layout2016NoPct, // "2016+ with '95:'/'99:' (no % sign)"
	"c-interval-lines-pre2016.txt":      layoutPre2016,   // "2012-2016 (count(late):rt90|max_rt ...)"
}

// tpProseKeys are expected.json keys that hold prose; each is checked by its
// own assertion in TestCaseOutputFormats.
var tpProseKeys = []string{"format", "note", "check_sum_intervals_vs_raw_new_order"}

// TestCaseOutputFormats checks case tpcc-mysql-output-formats against its
// expected.json: the three interval layouts detected per line, counts,
// percentiles with their ranks, raw results, TpmC, the constraint verdicts
// and the status.
func TestCaseOutputFormats(t *testing.T) {
	expected := golden.ReadJSON(t, tpCaseFormats+"/expected.json")
	files := make([]string, 0, len(expected))
	for f := range expected {
		files = append(files, f)
	}
	sort.Strings(files)
	if len(files) != 3 {
		t.Fatalf("expected.json lists %d inputs, want a, b and c", len(files))
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			want := expected[file].(map[string]any)
			out := tpParseFile(t, filepath.Join(tpCaseFormats, file))
			got := tpComparable(out)
			plain := map[string]any{}
			for k, v := range want {
				plain[k] = v
			}
			for _, k := range append(tpProseKeys, tpUnreadKeys...) {
				delete(plain, k)
			}
			if ivs, ok := plain["intervals"].([]any); ok {
				var read []any
				for _, iv := range ivs {
					f := map[string]any{}
					for k, v := range iv.(map[string]any) {
						f[k] = v
					}
					for _, k := range tpUnreadIntervalKeys {
						delete(f, k)
					}
					read = append(read, f)
				}
				plain["intervals"] = read
			}
			golden.CompareExpected(t, file, plain, got)

			// "format": the layout, and the build it implies.
			wl, ok := tpWantLayout[file]
			if !ok {
				t.Fatalf("no layout listed for %s", file)
			}
			if out.Format != wl {
				t.Errorf("format: want %q (%v), got %q", wl, want["format"], out.Format)
			}
			for i, iv := range out.intervals {
				if iv.layout != wl {
					t.Errorf("interval %d: layout %q, want %q", i, iv.layout, wl)
				}
			}
			if out.Build != wl.build() || out.Build == "" {
				t.Errorf("build %q, want %q", out.Build, wl.build())
			}
			// Percentile ranks the layout implies (item 3).
			for i, iv := range out.intervals {
				_, has90 := tpRankMS(iv, newOrder, 90)
				_, has95 := tpRankMS(iv, newOrder, 95)
				_, has99 := tpRankMS(iv, newOrder, 99)
				if wl.build() == buildPre2016 {
					if !has90 || has95 || has99 {
						t.Errorf("interval %d: pre-2016 reports the 90th percentile only, got %+v", i, iv.tx[newOrder].percentiles)
					}
				} else if has90 || !has95 || !has99 {
					t.Errorf("interval %d: 2016+ reports the 95th and 99th percentiles, got %+v", i, iv.tx[newOrder].percentiles)
				}
			}
		})
	}
}

// TestCase2016Score checks items 2, 4 and 5 of the case on input a:
// the score from the <TpmC> block equals sum(trx) * 60 / measured seconds,
// the response-time [NG] lines are a warning and not a failure, the build
// is known, and the password line never reaches the output.
func TestCase2016Score(t *testing.T) {
	out := tpParseFile(t, filepath.Join(tpCaseFormats, "a-tpcc-start-2016.txt"))
	if out.TpmC == nil || *out.TpmC != 2410.5 {
		t.Fatalf("TpmC: want 2410.5, got %v", out.TpmC)
	}
	got, ok := out.IntervalTpmC()
	if !ok || got != 1607.0*60/40 {
		t.Errorf("IntervalTpmC: want 1607*60/40 = 2410.5, got %v %v", got, ok)
	}
	// check_sum_intervals_vs_raw_new_order: "380+367+401+459 = 1607 = sc+lt".
	var sum int64
	for _, iv := range out.intervals {
		sum += iv.tx[newOrder].count
	}
	if out.raw == nil || sum != 1607 || out.raw[newOrder].success+out.raw[newOrder].late != sum {
		t.Errorf("interval New-Order sum %d vs raw %+v", sum, out.raw)
	}
	if out.measuredS == nil || *out.measuredS != 40 {
		t.Errorf("measured_s: %v", out.measuredS)
	}
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "response-time check [NG]") ||
		!strings.Contains(out.Warnings[0], "New-Order 0.00%") || !strings.Contains(out.Warnings[0], "Order-Status 68.32%") {
		t.Errorf("warnings: want exactly the response-time [NG] warning, got %q", out.Warnings)
	}
	if out.Status() != statusOKWithWarnings || out.Build != build2016 {
		t.Errorf("status %q build %q", out.Status(), out.Build)
	}
	if len(out.constraints.mix) != 4 || len(out.constraints.responseTime) != 5 {
		t.Fatalf("constraints: %+v", out.constraints)
	}
	if c := out.constraints.mix[0]; c.tx != payment || c.Percent == nil || *c.Percent != 43.46 || c.MinPercent != 43 || !c.ok {
		t.Errorf("payment mix check: %+v", c)
	}
	if c := out.constraints.responseTime[2]; c.tx != orderStatus || *c.Percent != 68.32 || c.MinPercent != 90 || c.ok {
		t.Errorf("order-status response-time check: %+v", c)
	}
	if r := out.raw[delivery]; !r.hasAvgRT || r.late != 160 {
		t.Errorf("delivery raw: %+v", r)
	}
	if strings.Contains(fmt.Sprintf("%+v", out), "PLACEHOLDER") {
		t.Errorf("the password reached the output: %+v", out)
	}
	// b and c are interval lines only: no score, so failed.
	if c := tpParseFile(t, filepath.Join(tpCaseFormats, "c-interval-lines-pre2016.txt")); c.Status() != statusFailed || c.Build != buildPre2016 {
		t.Errorf("c without <TpmC>: status %q build %q", c.Status(), c.Build)
	}
}

// TestBundledAnalyzeShIsWrong checks input d, what the bundled
// scripts/analyze.sh printed for the 2016 layout: 0 transactions per
// interval next to the 95th percentile. For the same data (the p95 column
// matches input a interval by interval) this parser reports the real,
// non-zero New-Order counts.
func TestBundledAnalyzeShIsWrong(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(tpCaseFormats, "d-bundled-analyze-sh-output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ trx, p95 float64 }
	var rows []row
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(l, "$ ") {
			continue // the command line
		}
		f := strings.Fields(l)
		if len(f) != 2 {
			t.Fatalf("d: unexpected line %q", l)
		}
		trx, err1 := strconv.ParseFloat(f[0], 64)
		p95, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("d: unexpected line %q", l)
		}
		rows = append(rows, row{trx, p95})
	}
	out := tpParseFile(t, filepath.Join(tpCaseFormats, "a-tpcc-start-2016.txt"))
	if len(rows) != len(out.intervals) || len(rows) != 4 {
		t.Fatalf("d has %d rows, a has %d intervals", len(rows), len(out.intervals))
	}
	for i, r := range rows {
		iv := out.intervals[i]
		p95, ok := tpRankMS(iv, newOrder, 95)
		if !ok || math.Abs(p95-r.p95) > 1e-9 {
			t.Fatalf("row %d: d's p95 %v does not match a's %v: not the same data", i, r.p95, p95)
		}
		if r.trx != 0 {
			t.Errorf("row %d: analyze.sh printed %v, the case says it printed 0", i, r.trx)
		}
		if iv.tx[newOrder].count == 0 || iv.TPS() == 0 {
			t.Errorf("interval %d: parsed trx is 0 like analyze.sh's", i)
		}
	}
	// The d file itself is no tpcc_start output: nothing in it may be
	// read as an interval.
	d := tpParseFile(t, filepath.Join(tpCaseFormats, "d-bundled-analyze-sh-output.txt"))
	if len(d.intervals) != 0 || d.TpmC != nil || d.Status() != statusFailed {
		t.Errorf("d parsed as tpcc_start output: %+v", d)
	}
}

// tpGoldenRecord is what a golden file holds: the parse result, the
// derived status and score, and the malformed-line errors.
type tpGoldenRecord struct {
	Status       RunStatus       `json:"status"`
	Errors       []string        `json:"errors"`
	Format       Layout          `json:"format"`
	Build        Build           `json:"build"`
	RTLimitsMS   [5]*int64       `json:"rt_limits_ms"`
	Intervals    []tpGoldenIv    `json:"intervals"`
	Raw          *[5]tpGoldenRaw `json:"raw"`
	RawSum       *[5]tpGoldenRaw `json:"raw_sum,omitempty"`
	MeasuredS    *int64          `json:"measured_s"`
	Mix          []tpGoldenCheck `json:"constraint_mix"`
	ResponseTime []tpGoldenCheck `json:"constraint_response_time"`
	TpmC         *float64        `json:"tpmC"`
	IntervalTpmC *float64        `json:"interval_tpmC"`
	Failures     []Failure       `json:"failures"`
	Warnings     []string        `json:"warnings"`
}

type tpGoldenIv struct {
	T           float64      `json:"t"`
	IntervalS   float64      `json:"interval_s"`
	Layout      Layout       `json:"layout"`
	Counts      [5]int64     `json:"counts"`
	Percentiles [][2]float64 `json:"new_order_percentiles"`
}

type tpGoldenRaw struct {
	SC, LT, RT, FL int64
	AvgRT          bool `json:"avg_rt"`
}

type tpGoldenCheck struct {
	Tx      string   `json:"tx"`
	Percent *float64 `json:"percent"`
	Min     float64  `json:"min_percent"`
	OK      bool     `json:"ok"`
}

func tpGolden(o Output, errs []error) tpGoldenRecord {
	rec := tpGoldenRecord{Status: o.Status(), Errors: []string{}, Format: o.Format, Build: o.Build, RTLimitsMS: o.rtLimitsMS,
		Intervals: []tpGoldenIv{}, MeasuredS: o.measuredS, TpmC: o.TpmC, Failures: o.Failures, Warnings: o.Warnings}
	for _, e := range errs {
		rec.Errors = append(rec.Errors, e.Error())
	}
	if v, ok := o.IntervalTpmC(); ok {
		rec.IntervalTpmC = &v
	}
	for _, iv := range o.intervals {
		g := tpGoldenIv{T: iv.Time, IntervalS: iv.intervalS, Layout: iv.layout}
		for i, tx := range iv.tx {
			g.Counts[i] = tx.count
		}
		for _, p := range iv.tx[newOrder].percentiles {
			g.Percentiles = append(g.Percentiles, [2]float64{p.rank, p.ms})
		}
		rec.Intervals = append(rec.Intervals, g)
	}
	raw := func(r *ByTx[rawResult]) *[5]tpGoldenRaw {
		if r == nil {
			return nil
		}
		var g [5]tpGoldenRaw
		for i, x := range r {
			g[i] = tpGoldenRaw{x.success, x.late, x.retry, x.failure, x.hasAvgRT}
		}
		return &g
	}
	rec.Raw, rec.RawSum = raw(o.raw), raw(o.rawSum)
	checks := func(cs []Constraint) []tpGoldenCheck {
		g := []tpGoldenCheck{}
		for _, c := range cs {
			g = append(g, tpGoldenCheck{c.Name, c.Percent, c.MinPercent, c.ok})
		}
		return g
	}
	rec.Mix, rec.ResponseTime = checks(o.constraints.mix), checks(o.constraints.responseTime)
	return rec
}

// TestGolden parses every input file under testdata and compares
// the complete result with <file>.golden.json next to it (-update
// rewrites).
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(tpccTestdata + "/*/*.txt")
	if err != nil || len(inputs) < 4 {
		t.Fatalf("inputs: %d, %v", len(inputs), err)
	}
	for _, in := range inputs {
		name := strings.TrimPrefix(in, tpccTestdata+"/")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			out, errs := tpParseString(t, string(data))
			got, err := json.MarshalIndent(tpGolden(out, errs), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Check(t, strings.TrimPrefix(strings.TrimSuffix(in, ".txt")+".golden.json", "testdata/"), got)
		})
	}
}

func tpPct(r, ms float64) []percentile { return []percentile{{rank: r, ms: ms}} }

// TestFeedLines is a table of single lines: interval lines of every
// layout, lines that are no interval lines (nil, nil), and malformed lines
// (a *lineError naming line 1, the text and the reason).
func TestFeedLines(t *testing.T) {
	const l2016 = "  10, trx: 380, 95%: 326.659, 99%: 447.298, max_rt: 912.983, 378|431.474, 38|136.792, 37|893.441, 38|898.846"
	want2016 := &Interval{Time: 10, intervalS: 10, layout: layout2016, tx: ByTx[txInterval]{
		{count: 380, percentiles: []percentile{{95, 326.659}, {99, 447.298}}},
		{count: 378}, {count: 38}, {count: 37}, {count: 38},
	}}
	wantNoPct := &Interval{Time: 2, intervalS: 2, layout: layout2016NoPct, tx: ByTx[txInterval]{
		{count: 835, percentiles: []percentile{{95, 8.718}, {99, 11.264}}},
		{count: 836}, {count: 83}, {count: 84}, {count: 83},
	}}
	wantPre := &Interval{Time: 10, intervalS: 10, layout: layoutPre2016, tx: ByTx[txInterval]{
		{count: 1292, percentiles: tpPct(90, 1.23)},
		{count: 1291, percentiles: tpPct(90, 0.25)},
		{count: 129, percentiles: tpPct(90, 0.12)},
		{count: 129, percentiles: tpPct(90, 2.4)},
		{count: 130, percentiles: tpPct(90, 4.8)},
	}}
	wantSleep := &Interval{Time: 10, intervalS: 10, layout: layoutPre2016SleepOnly, tx: ByTx[txInterval]{
		{count: 1292, percentiles: tpPct(90, 1.23)},
		{count: 1291, percentiles: tpPct(90, 0.25)},
		{count: 129, percentiles: tpPct(90, 0.12)},
		{count: 129, percentiles: tpPct(90, 2.4)},
		{count: 130, percentiles: tpPct(90, 4.8)},
	}}
	zero2016 := &Interval{Time: 20, intervalS: 20, layout: layout2016, tx: ByTx[txInterval]{
		{count: 0, percentiles: []percentile{{95, 0}, {99, 0}}},
		{count: 0}, {count: 0}, {count: 0}, {count: 0},
	}}
	tests := []struct {
		name    string
		line    string
		want    *Interval // nil: not an interval line
		wantErr string    // non-empty: malformed, the reason mentions this
	}{
		{name: "2016 README layout", line: l2016, want: want2016},
		{name: "2016 with CRLF", line: l2016 + "\r\n", want: want2016},
		{name: "2016 libc variant 95:", line: "   2, trx: 835, 95: 8.718, 99: 11.264, max_rt: 30.411, 836|47.925, 83|31.802, 84|52.417, 83|40.196", want: wantNoPct},
		{name: "2016 idle interval: printed zeros are zeros", line: "  20, trx: 0, 95%: 0.000, 99%: 0.000, max_rt: 0.000, 0|0.000, 0|0.000, 0|0.000, 0|0.000", want: zero2016},
		{name: "pre-2016 layout", line: "  10, 1292(3):1.230|3.455, 1291(0):0.250|1.010, 129(0):0.120|0.300, 129(1):2.400|3.100, 130(0):4.800|7.700", want: wantPre},
		{name: "pre-2016 sleep-only build", line: "  10, 1292(0):1.23, 1291(0):0.25, 129(0):0.12, 129(0):2.40, 130(0):4.80", want: wantSleep},

		{name: "blank", line: ""},
		{name: "banner", line: "*** ###easy### TPC-C Load Generator ***"},
		{name: "option echo", line: "option w with value '4'"},
		{name: "password option", line: "option p with value 'x, trx: 1'"},
		{name: "measuring start", line: "MEASURING START."},
		{name: "stopping", line: "STOPPING THREADS........"},
		{name: "deadlock report", line: "1213, 40001, Deadlock found when trying to get lock; try restarting transaction"},
		{name: "error context", line: "neword 3:5"},
		{name: "analyze.sh output", line: "0 326.659000"},
		{name: "raw results outside the block", line: "[0] sc:0 lt:1607  rt:0  fl:0 avg_rt: 121.1 (5)"},
		{name: "unknown text", line: "Time taken"},

		{name: "trx not a number", line: "  10, trx: abc, 95%: 326.659, 99%: 447.298, max_rt: 912.983, 378|431.474, 38|136.792, 37|893.441, 38|898.846", wantErr: `trx: want a non-negative integer, got "abc"`},
		{name: "empty percentile", line: "  10, trx: 380, 95%: , 99%: 447.298, max_rt: 912.983, 378|431.474, 38|136.792, 37|893.441, 38|898.846", wantErr: `95%: want a non-negative decimal number, got ""`},
		{name: "nan percentile", line: "  10, trx: 380, 95%: -nan, 99%: 447.298, max_rt: 912.983, 378|431.474, 38|136.792, 37|893.441, 38|898.846", wantErr: `got "-nan"`},
		{name: "mixed 95% and 99:", line: "  10, trx: 380, 95%: 326.659, 99: 447.298, max_rt: 912.983, 378|431.474, 38|136.792, 37|893.441, 38|898.846", wantErr: `want "99%: <ms>"`},
		{name: "truncated 2016 line", line: "  10, trx: 380, 95%: 326.659, 99%: 447.298, max_rt: 912.983, 378|431.474", wantErr: "8 comma-separated fields after the time, got 5"},
		{name: "missing | max", line: "  10, trx: 380, 95%: 326.659, 99%: 447.298, max_rt: 912.983, 378, 38|136.792, 37|893.441, 38|898.846", wantErr: `Payment: want "count|max_rt", got "378"`},
		{name: "negative count", line: "  10, trx: 380, 95%: 326.659, 99%: 447.298, max_rt: 912.983, -378|431.474, 38|136.792, 37|893.441, 38|898.846", wantErr: `Payment count: want a non-negative integer, got "-378"`},
		{name: "count overflows int64", line: "  10, trx: 99999999999999999999, 95%: 1, 99%: 1, max_rt: 1, 1|1, 1|1, 1|1, 1|1", wantErr: "trx: want a non-negative integer"},
		{name: "time not a number", line: "  1x, trx: 380, 95%: 326.659, 99%: 447.298, max_rt: 912.983, 378|431.474, 38|136.792, 37|893.441, 38|898.846", wantErr: `time: want a non-negative integer, got "1x"`},
		{name: "time zero", line: "   0, trx: 380, 95%: 326.659, 99%: 447.298, max_rt: 912.983, 378|431.474, 38|136.792, 37|893.441, 38|898.846", wantErr: "time 0 s is not positive"},
		{name: "pre-2016 late not a number", line: "  10, 1292(x):1.230|3.455, 1291(0):0.250|1.010, 129(0):0.120|0.300, 129(0):2.400|3.100, 130(0):4.800|7.700", wantErr: `New-Order late count: want a non-negative integer, got "x"`},
		{name: "pre-2016 late exceeds count", line: "  10, 12(13):1.230|3.455, 1291(0):0.250|1.010, 129(0):0.120|0.300, 129(0):2.400|3.100, 130(0):4.800|7.700", wantErr: "late count 13 exceeds count 12"},
		{name: "pre-2016 four types", line: "  10, 1292(0):1.230|3.455, 1291(0):0.250|1.010, 129(0):0.120|0.300, 129(0):2.400|3.100", wantErr: "5 comma-separated fields after the time, got 4"},
		{name: "pre-2016 mixed max", line: "  10, 1292(0):1.230|3.455, 1291(0):0.250, 129(0):0.120|0.300, 129(0):2.400|3.100, 130(0):4.800|7.700", wantErr: "mixes the count(late):rt90|max and count(late):rt90 layouts"},
		{name: "pre-2016 empty max", line: "  10, 1292(0):1.230|, 1291(0):0.250|1.010, 129(0):0.120|0.300, 129(0):2.400|3.100, 130(0):4.800|7.700", wantErr: `New-Order max_rt: want a non-negative decimal number, got ""`},
		{name: "short-lived 2016-02 layout", line: "  10, 1292:1.230|3.455, 1291:0.250|1.010, 129:0.120|0.300, 129:2.400|3.100, 130:4.800|7.700", wantErr: "unknown tpcc-mysql interval layout"},
		{name: "thousand separators in the time", line: "1,000, trx: 5, 95%: 1, 99%: 1, max_rt: 1, 1|1, 1|1, 1|1, 1|1", wantErr: "unknown tpcc-mysql interval layout"},
		{name: "TpmC not a number", line: "1,234.500 TpmC", wantErr: `TpmC "1,234.500" is not a number`},
		{name: "TpmC inf", line: "inf TpmC", wantErr: `TpmC "inf" is not a number`},
		{name: "rt limit not a number", line: "option 0 (response time limit for transaction 0) 'five'", wantErr: "option 0 (response time limit)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser()
			iv, err := p.Feed(tc.line)
			if tc.wantErr != "" {
				var me *lineError
				if !errors.As(err, &me) {
					t.Fatalf("want a *lineError, got %v (interval %+v)", err, iv)
				}
				if iv != nil {
					t.Errorf("an interval and an error")
				}
				if me.line != 1 || me.text != strings.TrimSpace(tc.line) || !strings.Contains(me.reason, tc.wantErr) {
					t.Errorf("error %+v, want line 1, the line's text and a reason containing %q", me, tc.wantErr)
				}
				if !strings.Contains(err.Error(), "tpcc-mysql output line 1: ") {
					t.Errorf("error text %q does not name the line", err)
				}
				if o := p.Output(); len(o.intervals) != 0 || o.TpmC != nil {
					t.Errorf("a malformed line added to the output: %+v", o)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if !reflect.DeepEqual(iv, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", iv, tc.want)
			}
			if iv != nil {
				o := p.Output()
				if len(o.intervals) != 1 || !reflect.DeepEqual(o.intervals[0], *iv) {
					t.Errorf("stored interval %+v differs from the returned one", o.intervals)
				}
				// The returned copy does not share memory with the parser.
				iv.tx[newOrder].count = -1
				iv.tx[newOrder].percentiles[0].ms = -1
				if again := p.Output(); !reflect.DeepEqual(again.intervals[0], *tc.want) {
					t.Errorf("modifying the returned interval changed the parser")
				}
			}
		})
	}
}

// TestIntervalRates checks TPS (New-Order per second), TotalTPS and the
// interval lengths with a report interval of 5 s.
func TestIntervalRates(t *testing.T) {
	out, errs := tpParseString(t, `option i with value '5'
MEASURING START.

   5, trx: 100, 95%: 2.5, 99%: 3.5, max_rt: 9.0, 100|1.0, 10|1.0, 10|1.0, 10|1.0
  10, trx: 120, 95%: 2.0, 99%: 3.0, max_rt: 8.0, 110|1.0, 11|1.0, 12|1.0, 13|1.0
`)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if len(out.intervals) != 2 {
		t.Fatalf("%+v", out)
	}
	a, b := out.intervals[0], out.intervals[1]
	if a.intervalS != 5 || b.intervalS != 5 {
		t.Errorf("interval lengths %v %v, want 5 5", a.intervalS, b.intervalS)
	}
	if a.TPS() != 20 || b.TPS() != 24 {
		t.Errorf("TPS %v %v, want 20 24 New-Order/s", a.TPS(), b.TPS())
	}
	if b.TotalTPS() != (120+110+11+12+13)/5.0 {
		t.Errorf("TotalTPS %v", b.TotalTPS())
	}
	if r, ms, ok := b.LatencyMS(); !ok || r != 95 || ms != 2 {
		t.Errorf("LatencyMS %v %v %v", r, ms, ok)
	}
	if _, ok := tpRankMS(b, payment, 95); ok {
		t.Errorf("2016+ prints no Payment percentile")
	}
	if got, _ := out.IntervalTpmC(); got != 220*60/10.0 {
		t.Errorf("IntervalTpmC %v", got)
	}
	if (Interval{}).TPS() != 0 || (Interval{}).TotalTPS() != 0 {
		t.Errorf("zero interval rates are not 0")
	}
	if _, _, ok := (Interval{}).LatencyMS(); ok {
		t.Errorf("zero interval has a latency")
	}
}

// tpFull builds a complete 2016+ output; edit replaces substrings.
func tpFull(edit ...string) string {
	s := `***************************************
*** ###easy### TPC-C Load Generator ***
***************************************
option h with value '127.0.0.1'
option p with value 'SECRETPW'
option w with value '1'
option c with value '2'
option r with value '5'
option l with value '20'
<Parameters>
     [server]: 127.0.0.1
     [port]: 3306
     [DBname]: tpcc1
       [user]: u
       [pass]: SECRETPW
  [warehouse]: 1
 [connection]: 2
     [rampup]: 5 (sec.)
    [measure]: 20 (sec.)

RAMP-UP TIME.(5 sec.)

MEASURING START.

  10, trx: 100, 95%: 20.000, 99%: 30.000, max_rt: 40.000, 100|10.000, 10|5.000, 10|50.000, 10|20.000
  20, trx: 110, 95%: 21.000, 99%: 31.000, max_rt: 41.000, 110|10.000, 11|5.000, 11|50.000, 11|20.000

STOPPING THREADS..

<Raw Results>
  [0] sc:200 lt:10  rt:0  fl:0 avg_rt: 10.0 (50)
  [1] sc:210 lt:0  rt:0  fl:0 avg_rt: 3.0 (5)
  [2] sc:21 lt:0  rt:0  fl:0 avg_rt: 1.0 (5)
  [3] sc:21 lt:0  rt:0  fl:0 avg_rt: 30.0 (80)
  [4] sc:21 lt:0  rt:0  fl:0 avg_rt: 10.0 (20)
 in 20 sec.

<Raw Results2(sum ver.)>
  [0] sc:200  lt:10  rt:0  fl:0 
  [1] sc:210  lt:0  rt:0  fl:0 
  [2] sc:21  lt:0  rt:0  fl:0 
  [3] sc:21  lt:0  rt:0  fl:0 
  [4] sc:21  lt:0  rt:0  fl:0 

<Constraint Check> (all must be [OK])
 [transaction percentage]
        Payment: 43.75% (>=43.0%) [OK]
   Order-Status: 4.38% (>= 4.0%) [OK]
       Delivery: 4.38% (>= 4.0%) [OK]
    Stock-Level: 4.38% (>= 4.0%) [OK]
 [response time (at least 90% passed)]
      New-Order: 95.24%  [OK]
        Payment: 100.00%  [OK]
   Order-Status: 100.00%  [OK]
       Delivery: 100.00%  [OK]
    Stock-Level: 100.00%  [OK]

<TpmC>
                 630.000 TpmC
`
	for i := 0; i+1 < len(edit); i += 2 {
		if !strings.Contains(s, edit[i]) {
			panic("tpFull: no " + edit[i])
		}
		s = strings.Replace(s, edit[i], edit[i+1], 1)
	}
	return s
}

// TestWholeOutputs covers the run-level rules on edited complete
// outputs: status, validity, warnings, failures, and errors naming lines.
func TestWholeOutputs(t *testing.T) {
	tests := []struct {
		name       string
		out        string
		wantStatus RunStatus
		wantWarn   []string // each must appear in some warning
		wantErr    []string // each must appear in the joined errors
		check      func(t *testing.T, o Output)
	}{
		{name: "clean run", out: tpFull(), wantStatus: statusOK, check: func(t *testing.T, o Output) {
			if len(o.Warnings) != 0 || *o.TpmC != 630 || !*tpAllOK(o.constraints.mix, 4) || !*tpAllOK(o.constraints.responseTime, 5) {
				t.Errorf("%+v", o)
			}
			for i, l := range o.rtLimitsMS {
				if l != nil {
					t.Errorf("rt limit %d set without -%d", i, i)
				}
			}
		}},
		{name: "TpmC disagrees with the intervals", out: tpFull("630.000 TpmC", "640.000 TpmC"),
			wantStatus: statusOKWithWarnings,
			wantWarn:   []string{"TpmC 640.000 from the <TpmC> block disagrees with the interval lines: 210 New-Order * 60 / 20 s = 630.000"}},
		{name: "float rounding of TpmC is no disagreement", out: strings.Repeat("", 0) + tpFull(
			"  20, trx: 110,", "  20, trx: 111,", "sc:200 lt:10  rt:0  fl:0 avg", "sc:200 lt:11  rt:0  fl:0 avg",
			"sc:200  lt:10", "sc:200  lt:11", "630.000 TpmC", "633.000 TpmC"), wantStatus: statusOK},
		{name: "interval line missing", out: tpFull("  20, trx: 110, 95%: 21.000, 99%: 31.000, max_rt: 41.000, 110|10.000, 11|5.000, 11|50.000, 11|20.000\n", ""),
			wantStatus: statusOKWithWarnings,
			wantWarn:   []string{"disagrees with the interval lines: 100 New-Order * 60 / 20 s = 300.000", "the interval lines end at 10 s but the run measured 20 s"}},
		{name: "killed before the score", out: strings.Split(tpFull(), "STOPPING")[0], wantStatus: statusFailed, check: func(t *testing.T, o Output) {
			if len(o.intervals) != 2 || o.TpmC != nil {
				t.Errorf("%+v", o)
			}
		}},
		{name: "transaction mix NG is invalid", out: tpFull("Payment: 43.75% (>=43.0%) [OK]", "Payment: 42.75% (>=43.0%) [NG] *"),
			wantStatus: statusInvalid, check: func(t *testing.T, o Output) {
				if *tpAllOK(o.constraints.mix, 4) {
					t.Errorf("%+v", o)
				}
			}},
		{name: "response time NG with default limits is a warning", out: tpFull("New-Order: 95.24%  [OK]", "New-Order: 5.24%  [NG] *"),
			wantStatus: statusOKWithWarnings, wantWarn: []string{"response-time check [NG] with tpcc-mysql's default limits", "New-Order 5.24%"}},
		{name: "response time NG with a configured limit is invalid", out: tpFull(
			"option l with value '20'", "option l with value '20'\noption 0 (response time limit for transaction 0) '50'",
			"New-Order: 95.24%  [OK]", "New-Order: 5.24%  [NG] *"),
			wantStatus: statusInvalid, check: func(t *testing.T, o Output) {
				if o.rtLimitsMS[newOrder] == nil || *o.rtLimitsMS[newOrder] != 50 || o.rtLimitsMS[payment] != nil {
					t.Errorf("rt limits %+v", o.rtLimitsMS)
				}
				for _, w := range o.Warnings {
					if strings.Contains(w, "response-time") {
						t.Errorf("configured limit reported as a warning: %q", w)
					}
				}
			}},
		{name: "nan percentages stay unknown", out: tpFull("Delivery: 100.00%  [OK]", "Delivery: -nan%  [NG] *",
			"Delivery: 4.38% (>= 4.0%) [OK]", "Delivery: nan% (>= 4.0%) [NG] *",
			"[3] sc:21 lt:0  rt:0  fl:0 avg_rt: 30.0 (80)", "[3] sc:21 lt:0  rt:0  fl:0 avg_rt: -nan (80)"),
			wantStatus: statusInvalid, wantWarn: []string{"Delivery nan%"}, check: func(t *testing.T, o Output) {
				if o.constraints.mix[2].Percent != nil || o.constraints.responseTime[3].Percent != nil || !o.raw[delivery].hasAvgRT {
					t.Errorf("nan read as a number: %+v %+v", o.constraints, o.raw[delivery])
				}
			}},
		{name: "thread failed to connect", out: tpFull("RAMP-UP TIME.(5 sec.)", "error at thread_main\n2002, HY000, Can't connect to local server through socket '/x/mysql.sock' (2)\nRAMP-UP TIME.(5 sec.)"),
			wantStatus: statusFailed, check: func(t *testing.T, o Output) {
				if len(o.Failures) != 1 || o.Failures[0].Cause == nil || o.Failures[0].Cause.Errno != 2002 || o.Failures[0].Cause.SQLState != "HY000" {
					t.Errorf("failures %+v", o.Failures)
				}
			}},
		{name: "retried deadlocks are no failures", out: tpFull("STOPPING THREADS..", "neword 1:7\n1213, 40001, Deadlock found when trying to get lock; try restarting transaction\nSTOPPING THREADS.."),
			wantStatus: statusOK, check: func(t *testing.T, o Output) {
				if len(o.Failures) != 0 {
					t.Errorf("failures %+v", o.Failures)
				}
			}},
		{name: "failed transactions warn", out: tpFull("[1] sc:210 lt:0  rt:0  fl:0", "[1] sc:210 lt:0  rt:2000  fl:1", "[1] sc:210  lt:0  rt:0  fl:0", "[1] sc:210  lt:0  rt:2000  fl:1"),
			wantStatus: statusOKWithWarnings, wantWarn: []string{"transactions failed after all retries: Payment 1"}},
		{name: "raw sum disagrees", out: tpFull("[1] sc:210  lt:0", "[1] sc:209  lt:0"),
			wantStatus: statusOKWithWarnings, wantWarn: []string{"<Raw Results2(sum ver.)> disagrees with <Raw Results>"}},
		{name: "time goes backwards", out: tpFull("  20, trx: 110,", "  10, trx: 110,"),
			wantStatus: statusOKWithWarnings, wantErr: []string{"line 26: interval time 10 s does not follow the previous interval's 10 s"}},
		{name: "mixed layouts", out: tpFull("  20, trx: 110, 95%: 21.000, 99%: 31.000", "  20, trx: 110, 95: 21.000, 99: 31.000"),
			wantStatus: statusOKWithWarnings, wantWarn: []string{`line 26: interval layout "2016+ (95:/99: without %)" differs from "2016+"`}},
		{name: "garbage after <TpmC>", out: tpFull("630.000 TpmC", "six hundred"),
			wantStatus: statusFailed, wantErr: []string{`line 59: want "<number> TpmC" after <TpmC>`}},
		{name: "malformed raw line", out: tpFull("[2] sc:21 lt:0", "[2] sc:2x lt:0"),
			wantStatus: statusOKWithWarnings, wantErr: []string{`sc: want a non-negative integer, got "2x"`}, wantWarn: []string{"<Raw Results> is incomplete"}},
		{name: "malformed constraint line", out: tpFull("Payment: 43.75% (>=43.0%) [OK]", "Payment: 43.75% [OK]"),
			wantStatus: statusOKWithWarnings, wantErr: []string{`want "<Type>: N% (>=N%) [OK|NG]"`}, wantWarn: []string{"no complete <Constraint Check> transaction-percentage block"}},
		{name: "two runs concatenated", out: tpFull() + tpFull(), wantStatus: statusOKWithWarnings,
			wantErr:  []string{"line 84: interval time 10 s does not follow the previous interval's 20 s", "line 90: second [0] line in the block"},
			wantWarn: []string{"line 118: a second TpmC value 630.000 after 630.000 at line 59"}},
		{name: "bad option: usage, no run", out: "option x with value 'y'\n?? getopt returned character code 077 ??\nUsage: tpcc_start -h server_host -P port\n",
			wantStatus: statusFailed, check: func(t *testing.T, o Output) {
				if len(o.Failures) != 2 {
					t.Errorf("failures %+v", o.Failures)
				}
			}},
		{name: "pre-2016 output", out: "MEASURING START.\n\n  10, 1292(0):1.230|3.455, 1291(0):0.250|1.010, 129(0):0.120|0.300, 129(0):2.400|3.100, 130(0):4.800|7.700\n\nSTOPPING THREADS.\n\n<Raw Results>\n  [0] sc:1292  lt:0  rt:0  fl:0 \n  [1] sc:1291  lt:0  rt:0  fl:0 \n  [2] sc:129  lt:0  rt:0  fl:0 \n  [3] sc:129  lt:0  rt:0  fl:0 \n  [4] sc:130  lt:0  rt:0  fl:0 \n in 10 sec.\n\n<TpmC>\n                 7752.000 TpmC\n",
			wantStatus: statusOKWithWarnings, wantWarn: []string{"no complete <Constraint Check>"}, check: func(t *testing.T, o Output) {
				if o.Build != buildPre2016 || *o.TpmC != 7752 {
					t.Errorf("%+v", o)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, errs := tpParseString(t, tc.out)
			werr := errors.Join(errs...)
			joined := ""
			if werr != nil {
				joined = werr.Error()
			}
			for _, e := range errs {
				var te *lineError
				if !errors.As(e, &te) {
					t.Errorf("error %v is not a *lineError", e)
				}
			}
			if len(tc.wantErr) == 0 && werr != nil {
				t.Errorf("unexpected errors: %v", werr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(joined, w) {
					t.Errorf("errors %q lack %q", joined, w)
				}
			}
			if got := o.Status(); got != tc.wantStatus {
				t.Errorf("status %q, want %q (warnings %q, errors %v)", got, tc.wantStatus, o.Warnings, werr)
			}
			all := strings.Join(o.Warnings, "\n")
			for _, w := range tc.wantWarn {
				if !strings.Contains(all, w) {
					t.Errorf("warnings %q lack %q", o.Warnings, w)
				}
			}
			if strings.Contains(fmt.Sprintf("%+v", o), "SECRETPW") || strings.Contains(joined, "SECRETPW") {
				t.Errorf("the password reached the output")
			}
			if tc.check != nil {
				tc.check(t, o)
			}
		})
	}
}

// FuzzParser checks that no input makes the parser panic, that Feed's
// results agree with Output, and that intervals never hold impossible
// values.
func FuzzParser(f *testing.F) {
	inputs, _ := filepath.Glob(tpccTestdata + "/*/*.txt")
	for _, in := range inputs {
		if data, err := os.ReadFile(in); err == nil {
			f.Add(string(data))
		}
	}
	for _, s := range []string{
		tpFull(),
		"  10, 1292(0):1.23, 1291(0):0.25, 129(0):0.12, 129(0):2.40, 130(0):4.80\n   5, 1(0):1|1, 1(0):1|1, 1(0):1|1, 1(0):1|1, 1(0):1|1",
		"<TpmC>\n\n-nan TpmC\n<Constraint Check>\n [response time (at least 90% passed)]\n  X: 1%  [OK]",
		"<Raw Results>\n[9] sc:1 lt:1 rt:1 fl:1\n[0] sc:1 lt:1 rt:1 fl:1\n[0] sc:1 lt:1 rt:1 fl:1",
		"error at main\n0, 00000,\nneword 0:1\n1205, HY000, Lock wait timeout exceeded",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		p := NewParser()
		for i, line := range strings.Split(data, "\n") {
			before := len(p.out.intervals)
			iv, err := p.Feed(line)
			after := len(p.out.intervals)
			if err != nil {
				var me *lineError
				if !errors.As(err, &me) || me.line != i+1 {
					t.Fatalf("line %d: error %v is not a *lineError for this line", i+1, err)
				}
				if iv != nil {
					t.Fatalf("line %d: both an interval and an error", i+1)
				}
			}
			if iv != nil {
				if after != before+1 {
					t.Fatalf("line %d: interval returned but not stored", i+1)
				}
				if iv.intervalS <= 0 || iv.Time <= 0 || math.IsNaN(iv.TPS()) || math.IsInf(iv.TPS(), 0) || iv.TPS() < 0 {
					t.Fatalf("line %d: impossible interval %+v", i+1, iv)
				}
				if iv.layout.build() == "" {
					t.Fatalf("line %d: interval without a known layout", i+1)
				}
				for _, tx := range iv.tx {
					if tx.count < 0 {
						t.Fatalf("line %d: impossible counts %+v", i+1, tx)
					}
				}
			} else if after != before {
				t.Fatalf("line %d: interval stored but not returned", i+1)
			}
		}
		out := p.Output()
		_ = out.Status()
		_, _ = out.IntervalTpmC()
		_, _ = out.IntervalMix()
	})
}
