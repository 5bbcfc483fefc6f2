package sysbench

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/runner"
)

const sysbenchTestdata = "testdata/sysbench"

// Case directories, copied unchanged from the field cases of the project (shared cases).
const (
	sbCase1x     = sysbenchTestdata + "/sysbench-1x-intervals-summary"
	sbCase04     = sysbenchTestdata + "/sysbench-04-summary"
	sbCaseErrors = sysbenchTestdata + "/sysbench-run-with-errors"
	sbCaseReal   = sysbenchTestdata + "/sysbench-real-1.0.20"
)

// sbParse parses a whole output: it feeds every line (as read, newline
// included) and reads to the end after malformed lines, whose errors it
// returns joined with a read error.
func sbParse(r io.Reader) (Output, error) {
	p := NewParser()
	br := bufio.NewReader(r)
	var errs []error
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 || err == nil {
			if _, ferr := p.Feed(line); ferr != nil {
				errs = append(errs, ferr)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("reading sysbench output: %w", err))
			break
		}
	}
	return p.Output(), errors.Join(errs...)
}

// sbParseFile parses a testdata file and fails the test on malformed lines:
// every case input is well formed.
func sbParseFile(t *testing.T, path string) Output {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := sbParse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// sbOutputJSON is Output with the names of the cases' expected.json and of
// the golden files.
type sbOutputJSON struct {
	Version        string              `json:"sysbench_version"`
	Threads        int                 `json:"threads"`
	ReportInterval int                 `json:"report_interval_s"`
	TargetRateTPS  int                 `json:"target_rate_tps"`
	LegacyMode     *legacyTestMode     `json:"legacy_mode,omitempty"`
	ThreadsStarted bool                `json:"threads_started"`
	Intervals      []runner.Interval   `json:"intervals"`
	IntervalLayout string              `json:"interval_layout,omitempty"`
	Discarded      []discardedInterval `json:"discarded_intervals,omitempty"`
	Tail           []runner.Interval   `json:"tail,omitempty"`
	Summary        *Summary            `json:"summary"`
	Checkpoints    []checkpoint        `json:"checkpoints,omitempty"`
	Failures       []sbFailureJSON     `json:"failures"`
	Warnings       []sbFailureJSON     `json:"warnings,omitempty"`
	Unrecognized   []outputLine        `json:"unrecognized,omitempty"`
}

// sbFailureJSON is Failure with the names of the golden files.
type sbFailureJSON struct {
	Line       int    `json:"line"`
	Text       string `json:"text"`
	MySQLErrno int    `json:"mysql_errno"`
	HasErrno   bool   `json:"has_errno"`
	SQLState   string `json:"sql_state,omitempty"`
	Phase      string `json:"phase,omitempty"`
}

func sbJSON(o Output) sbOutputJSON {
	fs := func(in []Failure) []sbFailureJSON {
		if in == nil {
			return nil
		}
		out := []sbFailureJSON{}
		for _, f := range in {
			out = append(out, sbFailureJSON{f.line, f.Text, f.mysqlErrno, f.hasErrno, f.sqlState, f.phase})
		}
		return out
	}
	return sbOutputJSON{o.Version, o.threads, o.reportIntervalS, o.targetRateTPS, o.legacyMode, o.threadsStarted, o.intervals,
		o.intervalLayout, o.discarded, o.tail, o.Summary, o.checkpoints, fs(o.Failures), fs(o.warnings), o.unrecognized}
}

// sbComparable turns an output into the key space of the cases'
// expected.json: its JSON encoding (sbOutputJSON) plus the derived keys
// "status", "ignored_lines" and "test".
func sbComparable(t *testing.T, o Output) map[string]any {
	t.Helper()
	b, err := json.Marshal(sbJSON(o))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["status"] = string(o.status())
	ignored := []any{}
	for _, l := range o.unrecognized {
		ignored = append(ignored, l.Text)
	}
	m["ignored_lines"] = ignored
	if lm := o.legacyMode; lm != nil {
		// expected.json of sysbench-04-summary describes the 0.4 mode
		// lines in prose; rebuild that description from the fields.
		rw := "read-write"
		if lm.ReadOnly {
			rw = "read-only"
		}
		desc := fmt.Sprintf("%s (legacy built-in), mode %s, %s", lm.Test, lm.OLTPMode, rw)
		if lm.SkipTrx {
			desc += ", BEGIN/COMMIT skipped"
		}
		m["test"] = desc
	}
	return m
}

// TestSysbenchCase1xIntervalsSummary checks case sysbench-1x-intervals-summary
// against its expected.json: C and Lua interval lines (err/s: vs err/s),
// --rate queue-length lines, 95th and 99th percentiles, "percentile stats:
// disabled" as null, the "DB SCHEMA sbtest" line ignored.
func TestSysbenchCase1xIntervalsSummary(t *testing.T) {
	expected := golden.ReadJSON(t, sbCase1x+"/expected.json")
	files := make([]string, 0, len(expected))
	for f := range expected {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			want := expected[file].(map[string]any)
			out := sbParseFile(t, filepath.Join(sbCase1x, file))
			got := sbComparable(t, out)
			if _, ok := want["summary"]; !ok {
				// summary-percentile-disabled.txt lists summary keys
				// at the top level.
				golden.CompareExpected(t, file+".summary", want, got["summary"])
				return
			}
			golden.CompareExpected(t, file, want, got)
		})
	}
	// Rule 4: the score comes from the final report, not from averaging.
	out := sbParseFile(t, sbCase1x+"/run-1.0.20-rate.txt")
	if out.Summary.TPS != 1995.91 {
		t.Errorf("score: want the report's 1995.91 tps, got %v", out.Summary.TPS)
	}
	// Rule 6: ignored errors are kept even though the run is ok.
	if out.Summary.IgnoredErrors != 1 || out.status() != statusOK {
		t.Errorf("ignored errors %d status %s", out.Summary.IgnoredErrors, out.status())
	}
}

// TestSysbenchCase04Summary checks case sysbench-04-summary against its
// expected.json: the 0.4 report layout, no intervals, the 0.4 mode lines,
// and "(last message repeated 127 times)" ignored.
func TestSysbenchCase04Summary(t *testing.T) {
	want := golden.ReadJSON(t, sbCase04+"/expected.json")
	out := sbParseFile(t, sbCase04+"/run-0.4.12-oltp-ro.txt")
	golden.CompareExpected(t, "run-0.4.12-oltp-ro.txt", want, sbComparable(t, out))
	if out.intervals == nil || len(out.intervals) != 0 {
		t.Errorf("want an empty, non-nil interval series, got %#v", out.intervals)
	}
	if len(out.unrecognized) != 0 {
		t.Errorf("0.4 lines left unrecognized: %v", out.unrecognized)
	}
	if out.Summary.LatSumMS != 0 || out.Summary.QPS != 0 {
		t.Errorf("0.4 prints no latency sum nor qps, got %v %v", out.Summary.LatSumMS, out.Summary.QPS)
	}
}

// TestSysbenchCaseRunWithErrors checks case sysbench-run-with-errors against
// expected.tsv (status, error_code, phase, use_as_score; numbers in the
// reason column) plus the rules of its expected.md.
func TestSysbenchCaseRunWithErrors(t *testing.T) {
	f, err := os.Open(sbCaseErrors + "/expected.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := rows[0]
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, name := range []string{"file", "status", "reason", "error_code", "phase", "use_as_score"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("expected.tsv has no column %q", name)
		}
	}
	if len(rows) != 6 {
		t.Fatalf("expected.tsv: want 5 rows, got %d", len(rows)-1)
	}
	for _, row := range rows[1:] {
		file := row[col["file"]]
		t.Run(file, func(t *testing.T) {
			out := sbParseFile(t, filepath.Join(sbCaseErrors, file))
			if got, want := string(out.status()), row[col["status"]]; got != want {
				t.Errorf("status: want %s, got %s", want, got)
			}
			errno, ok := out.mysqlErrno()
			switch code := row[col["error_code"]]; code {
			case "-":
				if ok || len(out.Failures) != 0 {
					t.Errorf("error_code: want none, got %d (%v)", errno, out.Failures)
				}
			default:
				want, err := strconv.Atoi(code)
				if err != nil {
					t.Fatalf("error_code %q", code)
				}
				if !ok || errno != want {
					t.Errorf("error_code: want %d, got %d (found=%v)", want, errno, ok)
				}
			}
			if got, want := out.phase(), row[col["phase"]]; got != want {
				t.Errorf("phase: want %s, got %s", want, got)
			}
			use := row[col["use_as_score"]]
			if want := strings.HasPrefix(use, "yes"); !out.failed() != want {
				t.Errorf("use_as_score: want %q, got %v", use, !out.failed())
			}
			reason := row[col["reason"]]
			switch file {
			case "a-errno0-after-intervals.txt":
				// 3 intervals kept as diagnostics; errno 0 is a value.
				if len(out.intervals) != 3 || out.Summary != nil {
					t.Errorf("want 3 intervals and no summary, got %d, %v", len(out.intervals), out.Summary)
				}
				if len(out.Failures) != 2 || out.Failures[1].sqlState != "00000" ||
					!out.Failures[1].hasErrno || out.Failures[1].phase != "thread_run" {
					t.Errorf("failures: %+v", out.Failures)
				}
			case "b-banner-after-errors.txt":
				// The banner is the last line; threads are not shown
				// and must come from the invocation record.
				if out.Version != "1.0.15" {
					t.Errorf("version: want 1.0.15, got %q", out.Version)
				}
				inv := golden.ReadJSON(t, sbCaseErrors+"/b-invocation.json")
				args := fmt.Sprint(inv["args"])
				if out.threads != 0 || !strings.Contains(args, "--threads=64") {
					t.Errorf("threads: output shows %d, invocation %s", out.threads, args)
				}
				if len(out.warnings) != 1 || !strings.HasPrefix(out.warnings[0].Text, "Error in my_thread_global_end()") {
					t.Errorf("warnings: %+v", out.warnings)
				}
				if out.Failures[1].sqlState != "23000" {
					t.Errorf("sqlstate: %+v", out.Failures[1])
				}
			case "c-thread-init-1461.txt":
				m := regexp.MustCompile(`\((\d+)\) too low for (\d+) threads`).FindStringSubmatch(reason)
				if m == nil {
					t.Fatalf("reason %q changed", reason)
				}
				if strconv.Itoa(out.threads) != m[2] {
					t.Errorf("threads: want %s, got %d", m[2], out.threads)
				}
				if !strings.Contains(out.Failures[1].Text, "current value: "+m[1]) {
					t.Errorf("failure text %q lacks %s", out.Failures[1].Text, m[1])
				}
				if out.threadsStarted || len(out.intervals) != 0 || len(out.Failures) != 6 {
					t.Errorf("threads started %v, %d intervals, %d failures", out.threadsStarted, len(out.intervals), len(out.Failures))
				}
			case "d-deadlock-not-ignored.txt":
				if len(out.intervals) != 1 || out.Failures[1].sqlState != "40001" {
					t.Errorf("intervals %d failures %+v", len(out.intervals), out.Failures)
				}
			case "e-ignored-errors-summary.txt":
				m := regexp.MustCompile(`^(\d+) ignored errors \(([\d.]+)/s, (\d+)% of transactions\)$`).FindStringSubmatch(reason)
				if m == nil {
					t.Fatalf("reason %q changed", reason)
				}
				s := out.Summary
				if strconv.FormatInt(s.IgnoredErrors, 10) != m[1] || strconv.FormatFloat(s.IgnoredErrorsPS, 'f', 2, 64) != m[2] {
					t.Errorf("ignored errors: want %s (%s/s), got %d (%v/s)", m[1], m[2], s.IgnoredErrors, s.IgnoredErrorsPS)
				}
				pct := 100 * float64(s.IgnoredErrors) / float64(s.Transactions)
				if strconv.Itoa(int(math.Round(pct))) != m[3] {
					t.Errorf("error share: want %s%%, got %.1f%%", m[3], pct)
				}
				if s.TPS != 3614.91 || s.Transactions != 218215 || s.TotalTimeS != 60.3652 {
					t.Errorf("score lost: %+v", s)
				}
			default:
				t.Errorf("no specific checks for %s", file)
			}
		})
	}
}

// TestSysbenchCaseReal1020 checks case sysbench-real-1.0.20 (real output of
// Debian 12's sysbench 1.0.20): every per-second line and the summary of
// each successful run, their mutual consistency, and the failed-* runs.
func TestSysbenchCaseReal1020(t *testing.T) {
	failed := []struct {
		file      string
		errno     int // -1: none
		phase     string
		intervals int
	}{
		{"failed-server-down.txt", 2002, phaseThreadInit, 0},
		{"failed-unknown-database.txt", 1049, phaseThreadInit, 0},
		{"failed-missing-table.txt", 1146, phaseThreadInit, 0},
		{"failed-server-killed-midrun.txt", 2013, phaseRun, 7},
		{"failed-unknown-option-warmup-time.txt", -1, "", 0},
	}
	for _, tc := range failed {
		t.Run(tc.file, func(t *testing.T) {
			out := sbParseFile(t, filepath.Join(sbCaseReal, tc.file))
			if out.status() != statusFailed || !out.failed() || out.Summary != nil {
				t.Errorf("want a failed run without summary, got %s %+v", out.status(), out.Summary)
			}
			errno, ok := out.mysqlErrno()
			if tc.errno < 0 {
				if ok {
					t.Errorf("want no errno, got %d", errno)
				}
			} else if !ok || errno != tc.errno {
				t.Errorf("errno: want %d, got %d (%v)", tc.errno, errno, ok)
			}
			if out.phase() != tc.phase {
				t.Errorf("phase: want %q, got %q", tc.phase, out.phase())
			}
			if len(out.intervals) != tc.intervals {
				t.Errorf("intervals: want %d, got %d", tc.intervals, len(out.intervals))
			}
			if out.Version != "1.0.20" || len(out.Failures) == 0 {
				t.Errorf("version %q failures %d", out.Version, len(out.Failures))
			}
		})
	}

	version := sbParseFile(t, sbCaseReal+"/sysbench-version.txt")
	if version.Version != "1.0.20" {
		t.Errorf("sysbench-version.txt: version %q", version.Version)
	}

	runs, err := filepath.Glob(sbCaseReal + "/*_*-t*-r*.txt")
	if err != nil || len(runs) != 49 {
		t.Fatalf("want 49 successful runs, got %d (%v)", len(runs), err)
	}
	reThreads := regexp.MustCompile(`-t(\d+)-r\d+\.txt$`)
	for _, path := range runs {
		file := filepath.Base(path)
		t.Run(file, func(t *testing.T) {
			out := sbParseFile(t, path)
			threads, _ := strconv.Atoi(reThreads.FindStringSubmatch(file)[1])
			if out.status() != statusOK || out.Version != "1.0.20" || out.threads != threads || out.reportIntervalS != 1 {
				t.Fatalf("status %s version %q threads %d interval %d", out.status(), out.Version, out.threads, out.reportIntervalS)
			}
			if len(out.unrecognized) != 0 || len(out.warnings) != 0 {
				t.Errorf("unrecognized %v warnings %v", out.unrecognized, out.warnings)
			}
			s := out.Summary
			wantN := int(math.Round(s.TotalTimeS))
			if len(out.intervals) != wantN {
				t.Fatalf("want %d per-second intervals, got %d", wantN, len(out.intervals))
			}
			var sumTPS float64
			for i, iv := range out.intervals {
				if iv.Time != float64(i+1) || iv.Threads < 1 || iv.Threads > threads ||
					iv.LatPct != 95 || iv.LatMS == nil || *iv.LatMS <= 0 || iv.TPS <= 0 ||
					iv.ErrPS != 0 || iv.ReconnPS != 0 {
					t.Errorf("interval %d: %+v", i, iv)
				}
				// qps is printed from the unrounded r+w+o: each of the
				// four numbers is rounded to 0.01.
				if d := math.Abs(iv.QPS - (iv.Reads + iv.Writes + iv.Other)); d > 0.021 {
					t.Errorf("interval %d: qps %v != r+w+o %v", i, iv.QPS, iv.Reads+iv.Writes+iv.Other)
				}
				sumTPS += iv.TPS
			}
			if s.Queries != s.Reads+s.Writes+s.Other || s.Events != s.Transactions {
				t.Errorf("summary counts: %+v", s)
			}
			// tps = transactions / total time, up to the rounding of
			// the printed total time (4 decimals) and rate (2).
			if d := math.Abs(s.TPS - float64(s.Transactions)/s.TotalTimeS); d > 0.005+s.TPS*1e-4 {
				t.Errorf("tps %v != transactions/time %v", s.TPS, float64(s.Transactions)/s.TotalTimeS)
			}
			if d := math.Abs(s.QPS - float64(s.Queries)/s.TotalTimeS); d > 0.005+s.QPS*1e-4 {
				t.Errorf("qps %v != queries/time %v", s.QPS, float64(s.Queries)/s.TotalTimeS)
			}
			if mean := sumTPS / float64(len(out.intervals)); math.Abs(mean-s.TPS) > 0.02*s.TPS {
				t.Errorf("mean per-second tps %v is not within 2%% of %v", mean, s.TPS)
			}
			if !(s.LatMinMS > 0 && s.LatMinMS <= s.LatAvgMS && s.LatAvgMS <= s.LatMaxMS) ||
				s.LatPct != 95 || s.LatPctMS == nil || *s.LatPctMS > s.LatMaxMS || s.LatSumMS <= 0 {
				t.Errorf("latency: %+v", s)
			}
			if !s.HasFairness || s.EventsAvg <= 0 || s.ExecTimeAvgS <= 0 {
				t.Errorf("threads fairness: %+v", s)
			}
			if math.Abs(s.EventsAvg*float64(threads)-float64(s.Events)) > float64(threads) {
				t.Errorf("events avg %v * %d threads != %d events", s.EventsAvg, threads, s.Events)
			}
		})
	}
}

// sbGoldenRecord is what a golden file holds: the parse result plus the
// derived classification and the malformed-line errors.
type sbGoldenRecord struct {
	Status     runStatus `json:"status"`
	Phase      string    `json:"phase"`
	MySQLErrno *int      `json:"mysql_errno"`
	Errors     []string  `json:"errors"`
	sbOutputJSON
}

// sbGoldenJSON lays out a record as JSON with one top-level key per line and
// one list element per line, so that diffs stay readable.
func sbGoldenJSON(rec sbGoldenRecord) ([]byte, error) {
	raw, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	first := true
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if !first {
			b.WriteString(",\n")
		}
		first = false
		key, _ := json.Marshal(k)
		fmt.Fprintf(&b, "  %s: ", key)
		var list []json.RawMessage
		if len(v) > 0 && v[0] == '[' && json.Unmarshal(v, &list) == nil && len(list) > 0 {
			b.WriteString("[\n")
			for i, e := range list {
				fmt.Fprintf(&b, "    %s", e)
				if i < len(list)-1 {
					b.WriteString(",")
				}
				b.WriteString("\n")
			}
			b.WriteString("  ]")
		} else {
			b.Write(v)
		}
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// sbParseStreaming feeds a file line by line and collects Feed's errors.
func sbParseStreaming(t *testing.T, path string) (Output, []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	errs := []string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if _, err := p.Feed(sc.Text()); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return p.Output(), errs
}

// TestSysbenchGolden parses every input file of every case and compares the
// complete result with <file>.golden.json next to it (-update rewrites).
func TestSysbenchGolden(t *testing.T) {
	inputs, err := filepath.Glob(sysbenchTestdata + "/*/*.txt")
	if err != nil || len(inputs) < 60 {
		t.Fatalf("inputs: %d, %v", len(inputs), err)
	}
	for _, in := range inputs {
		name := strings.TrimPrefix(in, sysbenchTestdata+"/")
		t.Run(name, func(t *testing.T) {
			out, errs := sbParseStreaming(t, in)
			rec := sbGoldenRecord{Status: out.status(), Phase: out.phase(), Errors: errs, sbOutputJSON: sbJSON(out)}
			if n, ok := out.mysqlErrno(); ok {
				rec.MySQLErrno = &n
			}
			got, err := sbGoldenJSON(rec)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("golden layout is not valid JSON:\n%s", got)
			}
			golden.Check(t, strings.TrimPrefix(strings.TrimSuffix(in, ".txt")+".golden.json", "testdata/"), got)
			// Parse agrees with streaming Feed.
			whole := sbParseFile(t, in)
			if !reflect.DeepEqual(whole, out) {
				t.Errorf("Parse and Feed disagree")
			}
		})
	}
}

func sbFptr(v float64) *float64 { return &v }

// TestSysbenchFeedIntervalLines is a table of single lines: interval lines of
// every reporter, lines that are not interval lines (nil, nil) and
// malformed interval lines (a *MalformedLineError naming line and text).
func TestSysbenchFeedIntervalLines(t *testing.T) {
	const c1 = "[ 10s ] thds: 16 tps: 1987.42 qps: 39760.35 (r/w/o: 27830.77/7949.29/3980.29) lat (ms,95%): 12.08 err/s: 0.10 reconn/s: 0.00"
	tests := []struct {
		name    string
		line    string
		want    *runner.Interval // nil: not an interval line
		wantErr string           // non-empty: malformed, error mentions this
	}{
		{name: "C reporter 1.0.20", line: c1, want: &runner.Interval{Time: 10, Threads: 16, TPS: 1987.42, QPS: 39760.35,
			Reads: 27830.77, Writes: 7949.29, Other: 3980.29, LatPct: 95, LatMS: sbFptr(12.08), ErrPS: 0.10}},
		{name: "Lua reporter err/s without colon, 99%, 3-digit time",
			line: "[ 100s ] thds: 56 tps: 44.99 qps: 1345.57 (r/w/o: 607.80/647.79/89.97) lat (ms,99%): 3151.62 err/s 1.00 reconn/s: 0.00",
			want: &runner.Interval{Time: 100, Threads: 56, TPS: 44.99, QPS: 1345.57, Reads: 607.80, Writes: 647.79, Other: 89.97,
				LatPct: 99, LatMS: sbFptr(3151.62), ErrPS: 1}},
		{name: "tpcc #48 line", line: "[ 3s ] thds: 8 tps: 2.00 qps: 100.00 (r/w/o: 50.00/40.00/10.00) lat (ms,95%): 2680.11 err/s 1.00 reconn/s: 0.00",
			want: &runner.Interval{Time: 3, Threads: 8, TPS: 2, QPS: 100, Reads: 50, Writes: 40, Other: 10, LatPct: 95, LatMS: sbFptr(2680.11), ErrPS: 1}},
		{name: "percentile 0 means not reported",
			line: "[ 1s ] thds: 4 tps: 10.00 qps: 200.00 (r/w/o: 140.00/40.00/20.00) lat (ms,0%): 0.00 err/s: 0.00 reconn/s: 0.00",
			want: &runner.Interval{Time: 1, Threads: 4, TPS: 10, QPS: 200, Reads: 140, Writes: 40, Other: 20}},
		{name: "CRLF", line: c1 + "\r", want: &runner.Interval{Time: 10, Threads: 16, TPS: 1987.42, QPS: 39760.35,
			Reads: 27830.77, Writes: 7949.29, Other: 3980.29, LatPct: 95, LatMS: sbFptr(12.08), ErrPS: 0.10}},
		{name: "non-SQL eps reporter", line: "[ 1s ] thds: 1 eps: 1062.88 lat (ms,95%): 0.95",
			want: &runner.Interval{Time: 1, Threads: 1, TPS: 1062.88, LatPct: 95, LatMS: sbFptr(0.95)}},
		{name: "0.5 reporter",
			line: "[  10s] threads: 8, tps: 1084.97, reads: 15189.62, writes: 4339.88, response time: 9.39ms (95%), errors: 0.50, reconnects:  0.00",
			want: &runner.Interval{Time: 10, Threads: 8, TPS: 1084.97, Reads: 15189.62, Writes: 4339.88, LatPct: 95, LatMS: sbFptr(9.39), ErrPS: 0.5}},
		{name: "early 0.5 reporter", line: "[   1s] threads: 8, tps: 1.00, reads/s: 14.00, writes/s: 4.00, response time: 9.39ms (99%)",
			want: &runner.Interval{Time: 1, Threads: 8, TPS: 1, Reads: 14, Writes: 4, LatPct: 99, LatMS: sbFptr(9.39), NoErrorRates: true}},
		{name: "early 0.5 reporter, no comma before the response time",
			line: "[  10s] threads: 16, tps: 4892.45, reads/s: 68507.32, writes/s: 19569.90 response time: 9.14ms (99%)",
			want: &runner.Interval{Time: 10, Threads: 16, TPS: 4892.45, Reads: 68507.32, Writes: 19569.90, LatPct: 99, LatMS: sbFptr(9.14), NoErrorRates: true}},

		{name: "Lua output", line: "DB SCHEMA sbtest"},
		{name: "banner", line: "sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)"},
		{name: "blank", line: ""},
		{name: "threads started", line: "Threads started!"},
		{name: "no timestamp", line: "thds: 16 tps: 1987.42"},
		{name: "timestamped Lua message", line: "[ 5s ] my script says hello"},
		{name: "checkpoint marker", line: "[ 10s ] Checkpoint report:"},
		{name: "report line outside a report", line: "    transactions:                        59880  (1995.91 per sec.)"},
		{name: "FATAL", line: "FATAL: mysql_drv_query() returned error 1146 (Table 'sbtest.sbtest1' doesn't exist)"},

		{name: "truncated", line: "[ 10s ] thds: 16 tps: 1987.42 qps: 39760.35 (r/w/o: 2783", wantErr: "r/w/o"},
		{name: "truncated at a field", line: "[ 10s ] thds: 16 tps: 1987.42", wantErr: `missing field "qps"`},
		{name: "not a number", line: strings.Replace(c1, "1987.42", "abc", 1), wantErr: "tps"},
		{name: "nan", line: strings.Replace(c1, "1987.42", "nan", 1), wantErr: "tps"},
		{name: "exponent", line: strings.Replace(c1, "1987.42", "1e5", 1), wantErr: "tps"},
		{name: "huge", line: strings.Replace(c1, "1987.42", strings.Repeat("9", 400), 1), wantErr: "out of range"},
		{name: "fractional threads", line: strings.Replace(c1, "thds: 16", "thds: 16.5", 1), wantErr: "thds"},
		{name: "duplicate field", line: c1 + " tps: 1.00", wantErr: "duplicate"},
		{name: "unknown field", line: c1 + " foo: 1", wantErr: "unknown field"},
		{name: "missing r/w/o", line: strings.Replace(c1, "(r/w/o: 27830.77/7949.29/3980.29) ", "", 1), wantErr: `missing field "r/w/o"`},
		{name: "bad lat", line: strings.Replace(c1, "lat (ms,95%)", "lat (ms,95)", 1), wantErr: "lat"},
		{name: "tps and eps", line: "[ 1s ] thds: 1 eps: 1.00 tps: 1.00 lat (ms,95%): 0.95", wantErr: "both"},
		{name: "eps with qps", line: "[ 1s ] thds: 1 eps: 1.00 qps: 1.00 lat (ms,95%): 0.95", wantErr: "qps"},
		{name: "0.5 bad", line: "[  10s] threads: 8, tps: x, reads: 1.00, writes: 1.00, response time: 9.39ms (95%)", wantErr: "tps"},
		{name: "0.5 missing", line: "[  10s] threads: 8, tps: 1.00", wantErr: "missing"},
		{name: "0.5 unknown field", line: "[  10s] threads: 8, tps: 1.00, reads: 1.00, writes: 1.00, response time: 9.39ms (95%), foo: 1", wantErr: "response time"},
		{name: "0.5 errors without reconnects", line: "[  10s] threads: 8, tps: 1.00, reads: 1.00, writes: 1.00, response time: 9.39ms (95%), errors: 0.00", wantErr: "both or neither"},
		{name: "orphan queue line", line: "[ 10s ] queue length: 0, concurrency: 9", wantErr: "without an interval"},
		{name: "bad queue line", line: "[ 10s ] queue length: x, concurrency: 9", wantErr: "queue length"},
		{name: "glued FATAL", line: "[ 10s ] thds: 16 tps: 19FATAL: mysql_stmt_execute() returned error 2013 (Lost connection)", wantErr: "tps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser()
			p.Feed("Threads started!") // so that the tested line is line 2
			got, err := p.Feed(tc.line)
			if tc.wantErr != "" {
				var me *malformedLineError
				if !errors.As(err, &me) {
					t.Fatalf("want a *MalformedLineError, got %v (interval %+v)", err, got)
				}
				if me.Line != 2 || me.Text != strings.TrimSpace(strings.TrimSuffix(tc.line, "\r")) && !strings.Contains(tc.line, "FATAL") {
					t.Errorf("error names line %d %q", me.Line, me.Text)
				}
				if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "line 2") {
					t.Errorf("error %q does not mention %q and line 2", err, tc.wantErr)
				}
				if got != nil || len(p.Output().intervals) != 0 {
					t.Errorf("a malformed line produced an interval")
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.want == nil {
				if got != nil {
					t.Fatalf("not an interval line, got %+v", got)
				}
				return
			}
			tc.want.Line = 2
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v (lat %v)\nwant %+v (lat %v)", got, sbDeref(got.LatMS), tc.want, sbDeref(tc.want.LatMS))
			}
			if out := p.Output(); len(out.intervals) != 1 || !reflect.DeepEqual(out.intervals[0], *tc.want) {
				t.Errorf("Output().Intervals = %+v", out.intervals)
			}
		})
	}
}

func sbDeref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestSysbenchFailureLines checks error number, SQLSTATE and phase
// extraction from every failure shape in the cases and in drv_mysql.c.
func TestSysbenchFailureLines(t *testing.T) {
	tests := []struct {
		line     string
		errno    int
		hasErrno bool
		state    string
		phase    string
		warning  bool
	}{
		{line: "FATAL: mysql_drv_query() returned error 1146 (Table 'sbtest.sbtest1' doesn't exist) for query 'SELECT 1'", errno: 1146, hasErrno: true},
		{line: "FATAL: mysql_stmt_execute() returned error 0 () for query 'SELECT c FROM sbtest4 WHERE id=?'", errno: 0, hasErrno: true},
		{line: "FATAL: `thread_run' function failed: /usr/share/sysbench/oltp_common.lua:488: SQL error, errno = 1062, state = '23000': Duplicate entry '125943991' for key 'PRIMARY'",
			errno: 1062, hasErrno: true, state: "23000", phase: "thread_run"},
		{line: "FATAL: MySQL error: 1461 \"Can't create more than max_prepared_stmt_count statements (current value: 16382)\"", errno: 1461, hasErrno: true},
		{line: "FATAL: error 2002: Can't connect to local server through socket 'SANDBOX/run/mysqld.sock' (2)", errno: 2002, hasErrno: true},
		{line: "FATAL: error 1049: Unknown database 'nosuchdb'", errno: 1049, hasErrno: true},
		{line: "FATAL: `thread_init' function failed: /usr/share/sysbench/oltp_common.lua:275: SQL API error", phase: "thread_init"},
		{line: "FATAL: `init' function failed: /usr/share/sysbench/oltp_common.lua:12: boom", phase: "init"},
		{line: "FATAL: Thread initialization failed!", phase: "thread_init"},
		{line: "FATAL: unable to connect to MySQL server on socket 'SANDBOX/run/mysqld.sock', aborting..."},
		{line: "ALERT: mysql_drv_query() returned error 1180 (Got error 5 during COMMIT)", errno: 1180, hasErrno: true},
		{line: "invalid option: --warmup-time=10"},
		{line: "Unrecognized command line argument: runn"},
		{line: "WARNING: Both event and time limits are disabled, running an endless test", warning: true},
		{line: "Error in my_thread_global_end(): 1 threads didn't exit", warning: true},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			p := NewParser()
			if iv, err := p.Feed(tc.line); iv != nil || err != nil {
				t.Fatalf("Feed = %v, %v", iv, err)
			}
			out := p.Output()
			list := out.Failures
			if tc.warning {
				list = out.warnings
				if len(out.Failures) != 0 {
					t.Errorf("a warning made the run fail: %+v", out.Failures)
				}
			}
			if len(list) != 1 {
				t.Fatalf("want one entry, got failures %+v warnings %+v", out.Failures, out.warnings)
			}
			want := Failure{line: 1, Text: tc.line, mysqlErrno: tc.errno, hasErrno: tc.hasErrno, sqlState: tc.state, phase: tc.phase}
			if list[0] != want {
				t.Errorf("got  %+v\nwant %+v", list[0], want)
			}
		})
	}
}

// TestSysbenchStreaming feeds the --rate case line by line as a runner would
// and checks what Feed and Output return at each step.
func TestSysbenchStreaming(t *testing.T) {
	data, err := os.ReadFile(sbCase1x + "/run-1.0.20-rate.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	var got []*runner.Interval
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		iv, err := p.Feed(line)
		if err != nil {
			t.Fatal(err)
		}
		if iv != nil {
			if iv.QueueLength != nil {
				t.Errorf("line %d: the queue length follows the interval line", i+1)
			}
			got = append(got, iv)
		}
		out := p.Output()
		if strings.Contains(line, "queue length: 3") {
			last := out.intervals[len(out.intervals)-1]
			if last.Time != 20 || last.QueueLength == nil || *last.QueueLength != 3 || *last.Concurrency != 16 {
				t.Errorf("queue line not merged: %+v", last)
			}
		}
		if strings.Contains(line, "transactions:") {
			// A report still being read is visible.
			if out.Summary == nil || out.Summary.Transactions != 59880 || out.Summary.TotalTimeS != 0 {
				t.Errorf("partial summary: %+v", out.Summary)
			}
		}
	}
	if len(got) != 3 {
		t.Fatalf("Feed returned %d intervals, want 3", len(got))
	}
	// Output is a snapshot: changing it does not change the parser.
	out := p.Output()
	*out.intervals[0].LatMS = -1
	out.intervals[0].TPS = -1
	*out.Summary.LatPctMS = -1
	again := p.Output()
	if *again.intervals[0].LatMS != 12.08 || again.intervals[0].TPS != 1987.42 || *again.Summary.LatPctMS != 12.08 {
		t.Errorf("Output shares memory with the parser")
	}
}

// TestSysbenchCheckpoints checks --report-checkpoints: "[ Ns ] Checkpoint
// report:" reports (src/sysbench.c) are not the final report.
func TestSysbenchCheckpoints(t *testing.T) {
	report := func(tx int) string {
		return fmt.Sprintf(`SQL statistics:
    queries performed:
        read:                            140
        write:                           40
        other:                           20
        total:                           200
    transactions:                        %-6d (1.00 per sec.)
    queries:                             200    (20.00 per sec.)
    ignored errors:                      0      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          10.0010s
    total number of events:              %d

Latency (ms):
         min:                                    1.00
         avg:                                    2.00
         max:                                    3.00
         95th percentile:                        2.50
         sum:                                   20.00

Threads fairness:
    events (avg/stddev):           10.0000/0.00
    execution time (avg/stddev):   0.0200/0.00

`, tx, tx)
	}
	iv := "[ %ds ] thds: 1 tps: 1.00 qps: 20.00 (r/w/o: 14.00/4.00/2.00) lat (ms,95%%): 2.50 err/s: 0.00 reconn/s: 0.00\n"
	full := "Threads started!\n\n" + fmt.Sprintf(iv, 5) + "[ 10s ] Checkpoint report:\n" + report(10) +
		fmt.Sprintf(iv, 15) + "[ 20s ] Checkpoint report:\n" + report(11) + report(22)
	out, err := sbParse(strings.NewReader(full))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.checkpoints) != 2 || out.checkpoints[0].TimeS != 10 || out.checkpoints[0].Summary.Transactions != 10 ||
		out.checkpoints[1].TimeS != 20 || out.checkpoints[1].Summary.Transactions != 11 {
		t.Errorf("checkpoints: %+v", out.checkpoints)
	}
	if out.Summary == nil || out.Summary.Transactions != 22 || out.status() != statusOK || len(out.intervals) != 2 {
		t.Errorf("final summary %+v status %s intervals %d", out.Summary, out.status(), len(out.intervals))
	}

	// Killed after a checkpoint: no final report.
	killed := "Threads started!\n\n" + fmt.Sprintf(iv, 5) + "[ 10s ] Checkpoint report:\n" + report(10) + fmt.Sprintf(iv, 15)
	out, err = sbParse(strings.NewReader(killed))
	if err != nil {
		t.Fatal(err)
	}
	if out.Summary != nil || len(out.checkpoints) != 1 || out.status() != statusIncomplete || !out.failed() {
		t.Errorf("killed run: summary %+v checkpoints %d status %s", out.Summary, len(out.checkpoints), out.status())
	}
}

// TestSysbenchStatus checks the ignored-error threshold of Status.
func TestSysbenchStatus(t *testing.T) {
	tests := []struct {
		name    string
		out     Output
		want    runStatus
		usable  bool
		wantPhs string
	}{
		{"no report", Output{}, statusFailed, false, ""},
		{"clean", Output{Summary: &Summary{Transactions: 100}}, statusOK, true, phaseRun},
		{"1% errors", Output{Summary: &Summary{Transactions: 100, IgnoredErrors: 1}}, statusOK, true, phaseRun},
		{"2% errors", Output{Summary: &Summary{Transactions: 100, IgnoredErrors: 2}}, statusOKWithErrors, true, phaseRun},
		{"errors only", Output{Summary: &Summary{IgnoredErrors: 2}}, statusOKWithErrors, true, phaseRun},
		{"FATAL after report", Output{Summary: &Summary{Transactions: 100}, Failures: []Failure{{Text: "FATAL: x"}}}, statusFailed, false, phaseRun},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.out.status(); got != tc.want {
				t.Errorf("status %s, want %s", got, tc.want)
			}
			if got := !tc.out.failed(); got != tc.usable {
				t.Errorf("usable %v, want %v", got, tc.usable)
			}
			if got := tc.out.phase(); got != tc.wantPhs {
				t.Errorf("phase %q, want %q", got, tc.wantPhs)
			}
		})
	}
	if got := (Output{Summary: &Summary{Transactions: 100, IgnoredErrors: 2}}).statusWithMaxErrorRatio(0.05); got != statusOK {
		t.Errorf("custom threshold: %s", got)
	}
}

// TestParseSysbenchMalformed checks that Parse keeps going after
// malformed lines, reports each with its line number, and returns the rest.
func TestParseSysbenchMalformed(t *testing.T) {
	in := strings.Join([]string{
		"Threads started!",
		"[ 1s ] thds: 4 tps: 10.00 qps: 200.00 (r/w/o: 140.00/40.00/20.00) lat (ms,95%): 1.00 err/s: 0.00 reconn/s: 0.00",
		"[ 2s ] thds: 4 tps: 10.00 qps: 2",
		"[ 3s ] thds: 4 tps: 10.00 qps: 200.00 (r/w/o: 140.00/40.00/20.00) lat (ms,95%): 1.00 err/s: 0.00 reconn/s: 0.00",
		"SQL statistics:",
		"    transactions:                        lots",
	}, "\n")
	out, err := sbParse(strings.NewReader(in))
	if err == nil {
		t.Fatal("want an error")
	}
	var me *malformedLineError
	if !errors.As(err, &me) || me.Line != 3 {
		t.Errorf("first error: %v", err)
	}
	for _, want := range []string{"line 3", "line 6", "qps: 2", "lots"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(out.intervals) != 2 || out.intervals[1].Time != 3 {
		t.Errorf("intervals: %+v", out.intervals)
	}
}

// FuzzSysbenchParser checks that no input makes the parser panic, that
// Feed's results are consistent with Output, and that the output can be
// encoded as JSON (no NaN or Inf slips through).
func FuzzSysbenchParser(f *testing.F) {
	inputs, _ := filepath.Glob(sysbenchTestdata + "/*/*.txt")
	for _, in := range inputs {
		if data, err := os.ReadFile(in); err == nil && len(data) < 4096 {
			f.Add(string(data))
		}
	}
	for _, s := range []string{
		"[ 10s ] thds: 16 tps: 1987.42 qps: 39760.35 (r/w/o: 27830.77/7949.29/3980.29) lat (ms,95%): 12.08 err/s: 0.10 reconn/s: 0.00\n[ 10s ] queue length: 0, concurrency: 9",
		"[  10s] threads: 8, tps: 1084.97, reads: 15189.62, writes: 4339.88, response time: 9.39ms (95%), errors: 0.00, reconnects:  0.00",
		"[ 1s ] thds: 1 eps: 1062.88 lat (ms,95%): 0.95",
		"[ 10s ] Checkpoint report:\nSQL statistics:\n    transactions: 1 (1.00 per sec.)\nSQL statistics:",
		"Latency histogram (values are in milliseconds)\n       value  ------------- distribution ------------- count\n       0.087 |**      1\n \n",
		"Threads fairness:\n    events (avg/stddev):           1e999/1",
		"[ 1s ] thds: 1 tps: 1FATAL: x\r\n",
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
				var me *malformedLineError
				if !errors.As(err, &me) || me.Line != i+1 {
					t.Fatalf("line %d: error %v is not a *MalformedLineError for this line", i+1, err)
				}
			}
			if iv != nil {
				if err != nil {
					t.Fatalf("line %d: both an interval and an error", i+1)
				}
				if after != before+1 {
					t.Fatalf("line %d: interval returned but not stored", i+1)
				}
			} else if after != before {
				t.Fatalf("line %d: interval stored but not returned", i+1)
			}
		}
		out := p.Output()
		if _, err := json.Marshal(sbJSON(out)); err != nil {
			t.Fatalf("output cannot be encoded: %v", err)
		}
		_ = out.status()
		_ = out.phase()
		_, _ = out.mysqlErrno()
		whole, _ := sbParse(strings.NewReader(data))
		if _, err := json.Marshal(sbJSON(whole)); err != nil {
			t.Fatalf("Parse output cannot be encoded: %v", err)
		}
	})
}

// sbCase05 is case sysbench-05-legacy-formats.
const sbCase05 = sysbenchTestdata + "/sysbench-05-legacy-formats"

// sb05Keys maps the case's key names to the parser's where they differ:
// in interval records and in the summary.
var sb05Keys = map[string]map[string]string{
	"intervals": {"threads": "thds", "reads_per_s": "reads", "writes_per_s": "writes"},
	"summary":   {"other_ops": "other_operations"},
}

// TestSysbenchCase05LegacyFormats checks case sysbench-05-legacy-formats
// against its expected.json: both 0.5 interval layouts (early: reads/s,
// no comma before the response time, no errors/reconnects, which are
// null), the report read past an interval line printed inside it, the
// ~1.8e19 tps line discarded and recorded, 0.5's report fields under the
// 1.x names with the version-specific ones explicit (null when absent),
// and latencies with the "ms" suffix.
func TestSysbenchCase05LegacyFormats(t *testing.T) {
	expected := golden.ReadJSON(t, sbCase05+"/expected.json")
	if len(expected) != 2 {
		t.Fatalf("expected.json: %d files", len(expected))
	}
	for file, w := range expected {
		t.Run(file, func(t *testing.T) {
			want := w.(map[string]any)
			out := sbParseFile(t, filepath.Join(sbCase05, file))
			got := sbComparable(t, out)
			// The case's "format" is prose that starts with the layout.
			layout, _, _ := strings.Cut(want["format"].(string), " ")
			if out.intervalLayout != layout {
				t.Errorf("layout %q, want %q", out.intervalLayout, layout)
			}
			delete(want, "format")
			discarded, _ := want["discarded_intervals"].([]any)
			delete(want, "discarded_intervals")
			golden.CompareExpected(t, file, sbRenameKeys(want), got)
			// Rule 3: the bogus line is recorded with why, never averaged.
			if len(out.discarded) != len(discarded) {
				t.Fatalf("discarded %+v, want %v", out.discarded, discarded)
			}
			for i, d := range discarded {
				dd := d.(map[string]any)
				if out.discarded[i].Time != dd["t"].(float64) || !strings.Contains(out.discarded[i].Reason, "implausible") ||
					!strings.Contains(out.discarded[i].Reason, "after the final report started") {
					t.Errorf("discarded[%d] = %+v, want t=%v: %s", i, out.discarded[i], dd["t"], dd["reason"])
				}
			}
			var maxTPS float64
			for _, iv := range out.intervals {
				maxTPS = max(maxTPS, iv.TPS)
			}
			if maxTPS > 1e5 || len(out.unrecognized) != 0 {
				t.Errorf("max interval tps %g; unrecognized %v", maxTPS, out.unrecognized)
			}
		})
	}
}

// sbRenameKeys renames the keys of a case's expected JSON to the parser's.
func sbRenameKeys(want map[string]any) map[string]any {
	rename := func(m map[string]any, names map[string]string) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			if n, ok := names[k]; ok {
				k = n
			}
			out[k] = v
		}
		return out
	}
	out := map[string]any{}
	for k, v := range want {
		switch x := v.(type) {
		case map[string]any:
			v = rename(x, sb05Keys[k])
		case []any:
			l := make([]any, len(x))
			for i, e := range x {
				if m, ok := e.(map[string]any); ok {
					l[i] = rename(m, sb05Keys[k])
				} else {
					l[i] = e
				}
			}
			v = l
		}
		out[k] = v
	}
	return out
}

// A corrupt interval is discarded whatever the layout and wherever it is
// printed, and one whose tps exceeds the run's events once the report is
// read; neither is returned by Feed.
func TestSysbenchImplausibleIntervals(t *testing.T) {
	const ok = "[ 1s ] thds: 4 tps: 10.00 qps: 200.00 (r/w/o: 140.00/40.00/20.00) lat (ms,95%): 1.00 err/s: 0.00 reconn/s: 0.00"
	bogus := strings.Replace(ok, "tps: 10.00", "tps: 18446744073709551616.00", 1)
	p := NewParser()
	for _, l := range []string{"Threads started!", ok} {
		p.Feed(l)
	}
	if iv, err := p.Feed(bogus); iv != nil || err != nil {
		t.Fatalf("bogus line: %v %v", iv, err)
	}
	out := p.Output()
	if len(out.intervals) != 1 || len(out.discarded) != 1 || strings.Contains(out.discarded[0].Reason, "report") {
		t.Fatalf("intervals %v discarded %+v", out.intervals, out.discarded)
	}
	// 500 tps in one interval, but 40 events in the whole run.
	run := "Threads started!\n" + ok + "\n" + strings.Replace(ok, "tps: 10.00", "tps: 500.00", 1) + "\nSQL statistics:\n    transactions:                        40     (10.00 per sec.)\n\nGeneral statistics:\n    total time:                          4.0010s\n    total number of events:              40\n"
	out, err := sbParse(strings.NewReader(run))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.intervals) != 1 || len(out.discarded) != 1 || !strings.Contains(out.discarded[0].Reason, "40 events") || out.status() != statusOKWithWarnings {
		t.Fatalf("intervals %v discarded %+v status %s", out.intervals, out.discarded, out.status())
	}
}
