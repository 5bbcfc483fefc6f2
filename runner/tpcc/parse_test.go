package tpcc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/golden"
)

// Every real go-tpc v1.0.12 run output under testdata/ (captured from a
// MariaDB 10.11 server: run-w1-t4-json.txt with --warehouses 1 --threads 4
// --time 8s --interval 1s --output json; the failures against a stopped
// server and an empty schema) parses into the result golden file next to
// it (-update rewrites).
// parse parses a whole go-tpc run output with the given report interval
// in seconds; the error is the first line's error (parsing goes on after
// it).
func parse(text string, intervalS float64) (Output, error) {
	p := NewParser(intervalS)
	var first error
	for _, l := range strings.Split(text, "\n") {
		if _, err := p.Feed(l); err != nil && first == nil {
			first = err
		}
	}
	return p.Output(), first
}

func TestParseRealOutputs(t *testing.T) {
	files, err := filepath.Glob("testdata/run-*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no run outputs in testdata: %v", err)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			b, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			out, perr := parse(string(b), 1)
			res := struct {
				Output
				ParseError string `json:"parse_error,omitempty"`
			}{out, ""}
			if perr != nil {
				res.ParseError = perr.Error()
			}
			js, _ := json.MarshalIndent(res, "", "  ")
			golden.Check(t, strings.TrimSuffix(filepath.Base(in), ".txt")+".golden.json", append(js, '\n'))
		})
	}
}

// The facts the score depends on, read from the real run: 7 reports of
// one second (go-tpc's last tick races with the end of its --time 8s; the
// engine asks for a few seconds more than it needs, engine.RunSlack), New-Order per second from its count, the 95th percentile of
// New-Order, every transaction type in the all-transaction rate, and the
// summary's tpmC.
func TestParseRealRunFacts(t *testing.T) {
	b, err := os.ReadFile("testdata/run-w1-t4-json.txt")
	if err != nil {
		t.Fatal(err)
	}
	out, err := parse(string(b), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Intervals) != 7 || !out.Finished || out.ErrorCount != 0 {
		t.Fatalf("intervals %d finished %v errors %d, want 7, true, 0", len(out.Intervals), out.Finished, out.ErrorCount)
	}
	first := out.Intervals[0]
	// First report: NEW_ORDER Count 173, 95th 22.0; DELIVERY Count 23.
	if first.Time != 1 || first.TPS != 173 || first.LatMS == nil || *first.LatMS != 22.0 || first.LatPct != 95 || first.QPS <= first.TPS+23 {
		t.Errorf("first interval %+v", first)
	}
	if out.Intervals[6].Time != 7 {
		t.Errorf("last interval at %v s, want 7", out.Intervals[6].Time)
	}
	s := out.Summary
	if s == nil || s.Workload != "tpcc" || s.TpmC != 14672.7 || s.TpmTotal != 32848.4 || len(s.Ops) != 5 || s.NewOrderP95MS == 0 || s.NewOrderP99MS < s.NewOrderP95MS {
		t.Errorf("summary %+v", s)
	}
}

func TestFeedLines(t *testing.T) {
	tests := []struct {
		name, line   string
		wantInterval bool
		wantErr      string
		wantErrLines int
	}{
		{"log line", "2026/12/01 15:11:49 maxprocs: Leaving GOMAXPROCS=2: CPU quota undefined", false, "", 0},
		{"interval with errors", `[{"50th(ms)":"1.0","90th(ms)":"1.0","95th(ms)":"2.0","99.9th(ms)":"3.0","99th(ms)":"3.0","Avg(ms)":"1.0","Count":"10","Max(ms)":"3.0","Operation":"NEW_ORDER","Prefix":"[Current] ","Sum(ms)":"10.0","TPM":"600.0","Takes(s)":"1.0"},{"50th(ms)":"1.0","90th(ms)":"1.0","95th(ms)":"2.0","99.9th(ms)":"3.0","99th(ms)":"3.0","Avg(ms)":"1.0","Count":"2","Max(ms)":"3.0","Operation":"NEW_ORDER_ERR","Prefix":"[Current] ","Sum(ms)":"10.0","TPM":"120.0","Takes(s)":"1.0"}]`, true, "", 0},
		{"truncated JSON", `[{"50th(ms)":"1.0","Count":"1`, false, "does not parse", 0},
		{"count not a number", `[{"50th(ms)":"1.0","90th(ms)":"1.0","95th(ms)":"2.0","99.9th(ms)":"3.0","99th(ms)":"3.0","Avg(ms)":"1.0","Count":"x","Max(ms)":"3.0","Operation":"NEW_ORDER","Prefix":"[Current] ","Sum(ms)":"10.0","TPM":"600.0","Takes(s)":"1.0"}]`, false, "Count", 0},
		{"missing percentile", `[{"50th(ms)":"1.0","90th(ms)":"1.0","99.9th(ms)":"3.0","99th(ms)":"3.0","Avg(ms)":"1.0","Count":"1","Max(ms)":"3.0","Operation":"NEW_ORDER","Prefix":"[Current] ","Sum(ms)":"10.0","TPM":"600.0","Takes(s)":"1.0"}]`, false, `no "95th(ms)"`, 0},
		{"unknown prefix", `[{"50th(ms)":"1.0","90th(ms)":"1.0","95th(ms)":"2.0","99.9th(ms)":"3.0","99th(ms)":"3.0","Avg(ms)":"1.0","Count":"1","Max(ms)":"3.0","Operation":"NEW_ORDER","Prefix":"[Other] ","Sum(ms)":"10.0","TPM":"600.0","Takes(s)":"1.0"}]`, false, "prefix", 0},
		{"failed transaction", "[2026-12-01 15:22:07] execute run failed, err Error 1213 (40001): Deadlock found", false, "", 1},
		{"no server", "failed to ping db, err dial tcp 127.0.0.1:33779: connect: connection refused", false, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewParser(1)
			iv, err := p.Feed(tt.line)
			if (iv != nil) != tt.wantInterval {
				t.Errorf("interval %+v, want one: %v", iv, tt.wantInterval)
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err %v, want %q", err, tt.wantErr)
			}
			if got := p.Output().ErrorCount; got != tt.wantErrLines {
				t.Errorf("error lines %d, want %d", got, tt.wantErrLines)
			}
			if iv != nil && (iv.TPS != 10 || iv.ErrPS != 2 || iv.QPS != 10) {
				t.Errorf("interval %+v: want tps 10, err/s 2, qps 10", iv)
			}
		})
	}
}

// go-tpc's check exits 0 when a condition fails: its output decides.
func TestCheckOutputs(t *testing.T) {
	for file, wantFail := range map[string]bool{"check-ok-w1.txt": false, "check-failed-missing-tables.txt": true} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if got := firstFailure(string(b)); (got != "") != wantFail {
			t.Errorf("%s: first failure %q, want a failure: %v", file, got, wantFail)
		} else if wantFail && !strings.Contains(got, "condition 3.3.2.") {
			t.Errorf("%s: failure %q does not name the condition", file, got)
		}
	}
}
