package sysbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/runner"
)

// sbCaseOverrun is case sysbench-overrun-and-csv.
const sbCaseOverrun = sysbenchTestdata + "/sysbench-overrun-and-csv"

// TestSysbenchCaseOverrunAndCSV checks case sysbench-overrun-and-csv: a
// run that does not end at --time is cut to its steady intervals and is
// incomplete, with its stuck threads named; CSV rows parse by position
// into the same Interval as text lines; a FATAL after a server restart
// fails the run with the lost connection said.
func TestSysbenchCaseOverrunAndCSV(t *testing.T) {
	// a: what the tool launched.
	var inv struct {
		Args         []string `json:"args"`
		KilledAfterS float64  `json:"killed_by_tool_after_s"`
	}
	b, err := os.ReadFile(sbCaseOverrun + "/a-invocation.json")
	if err != nil || json.Unmarshal(b, &inv) != nil {
		t.Fatalf("a-invocation.json: %v", err)
	}
	var threads int
	var timeS float64
	for _, a := range inv.Args {
		fmt.Sscanf(a, "--threads=%d", &threads)
		fmt.Sscanf(a, "--time=%g", &timeS)
	}
	if threads != 512 || timeS != 30 {
		t.Fatalf("invocation %v", inv.Args)
	}
	// Rule 1: the tool's own deadline is --time plus the grace: 45 s.
	if got := time.Duration(timeS)*time.Second + runner.ExitGrace(time.Duration(timeS)*time.Second); got.Seconds() != inv.KilledAfterS {
		t.Errorf("deadline %s, the case's tool killed it at %gs", got, inv.KilledAfterS)
	}

	// Rule 2, with the invocation (as Bench.Run parses) and without it
	// (Parse: the threads that stayed behind tell the tail).
	data, err := os.ReadFile(sbCaseOverrun + "/a-time-overrun.txt")
	if err != nil {
		t.Fatal(err)
	}
	withInv := newParserFor(invocation{threads: threads, timeS: timeS})
	returned := 0
	for _, l := range strings.Split(string(data), "\n") {
		if iv, _ := withInv.Feed(l); iv != nil {
			returned++
		}
	}
	plain := sbParseFile(t, sbCaseOverrun+"/a-time-overrun.txt")
	for name, out := range map[string]Output{"with invocation": withInv.Output(), "without": plain} {
		var sum float64
		for _, iv := range out.intervals {
			sum += iv.TPS
			if iv.Threads != threads || iv.Time > timeS {
				t.Errorf("%s: interval %+v is not steady state", name, iv)
			}
		}
		if len(out.intervals) != 3 || len(out.tail) != 4 || int(sum/3+0.5) != 122490 {
			t.Errorf("%s: %d intervals (mean tps %.0f), %d tail; want 3 (122490) and 4", name, len(out.intervals), sum/3, len(out.tail))
		}
		run, of, ok := out.stuckThreads()
		if out.status() != statusIncomplete || !out.failed() || !ok || run != 241 || of != 512 {
			t.Errorf("%s: status %s, stuck %d of %d (%v)", name, out.status(), run, of, ok)
		}
		if why := out.explain(); !strings.Contains(why, "241 of 512 threads") {
			t.Errorf("%s: explain %q", name, why)
		}
	}
	if returned != 3 {
		t.Errorf("Feed returned %d samples, want the 3 steady ones", returned)
	}

	// Rule 3: CSV rows by position, the FATAL, the lost connection.
	out := sbParseFile(t, sbCaseOverrun+"/b-csv-server-restart.txt")
	if out.intervalLayout != layoutCSV || len(out.intervals) != 6 || len(out.unrecognized) != 0 {
		t.Fatalf("layout %q, %d rows, unrecognized %v", out.intervalLayout, len(out.intervals), out.unrecognized)
	}
	lat := 70.55
	want := runner.Interval{Time: 1, Threads: 2, TPS: 76.79, QPS: 2144.07, Reads: 973.31, Writes: 1009.21, Other: 161.55, LatPct: 95, LatMS: &lat}
	if !sbSameInterval(out.intervals[0], want) {
		t.Errorf("row 1: %+v, want %+v", out.intervals[0], want)
	}
	if last := out.intervals[5]; last.ErrPS != 2 || last.ReconnPS != 1 {
		t.Errorf("row 6: %+v", last)
	}
	if out.status() != statusFailed || out.phase() != phaseRun || !strings.Contains(out.explain(), "connection to the server was lost") {
		t.Errorf("status %s phase %s explain %q", out.status(), out.phase(), out.explain())
	}

	// Rule 5: a CSV row and a text line with the same numbers give the
	// same Interval.
	text := NewParser()
	text.Feed("[ 1s ] thds: 2 tps: 76.79 qps: 2144.07 (r/w/o: 973.31/1009.21/161.55) lat (ms,95%): 70.55 err/s: 0.00 reconn/s: 0.00")
	csv := NewParser()
	csv.Feed("1,2,76.79,2144.07,973.31,1009.21,161.55,70.55,0.00,0.00")
	if a, b := text.Output().intervals[0], csv.Output().intervals[0]; !sbSameInterval(a, b) {
		t.Errorf("text %+v\ncsv  %+v", a, b)
	}
	for _, bad := range []string{"1,2,3", "1,2,76.79,2144.07,973.31,1009.21,161.55,70.55,0.00,x", "1,2.5,1,1,1,1,1,1,0,0"} {
		p := NewParser()
		if _, err := p.Feed(bad); err == nil || !strings.Contains(err.Error(), "CSV") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

// sbSameInterval compares two intervals by value, line numbers aside.
func sbSameInterval(a, b runner.Interval) bool {
	if (a.LatMS == nil) != (b.LatMS == nil) || (a.LatMS != nil && *a.LatMS != *b.LatMS) {
		return false
	}
	a.LatMS, b.LatMS, a.Line, b.Line = nil, nil, 0, 0
	return reflect.DeepEqual(a, b)
}

// fakeSysbench writes a script standing in for sysbench: it prints what
// body prints and behaves as body says.
func fakeSysbench(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sysbench")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Bench.Run does not wait for a sysbench that outlives its --time: it is
// killed at --time plus the grace, and the error says which threads stayed.
func TestRunKillsOverrunningSysbench(t *testing.T) {
	line := func(s, thds int, tps float64) string {
		return fmt.Sprintf("echo '[ %ds ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/0.00/0.00) lat (ms,95%%): 6.21 err/s: 0.00 reconn/s: 0.00'\n", s, thds, tps, tps, tps)
	}
	script := fakeSysbench(t, "echo 'sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)'\necho 'Number of threads: 8'\necho 'Threads started!'\n"+
		line(1, 8, 100)+line(2, 3, 0)+line(3, 3, 0)+"exec sleep 60\n")
	var samples []runner.Interval
	t0 := time.Now()
	_, err := Bench{Path: script, Workload: "oltp_point_select", exitGrace: 500 * time.Millisecond}.Run(context.Background(), &runner.Server{Socket: "/nonexistent.sock"},
		runner.BenchRun{Threads: 8, Duration: time.Second}, func(iv runner.Interval) { samples = append(samples, iv) })
	var be *runner.BenchError
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "did not exit") || !strings.Contains(be.Reason, "3 of 8 threads") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	if len(samples) != 1 || samples[0].Time != 1 {
		t.Errorf("samples %+v: want only the one before --time", samples)
	}
}

// A failed run's error names the phase, the MySQL error number and the
// cause the parser found (cases sysbench-run-with-errors and
// sysbench-overrun-and-csv, b), through Bench.Run as a trial sees it.
func TestRunFailureNamesPhaseAndErrno(t *testing.T) {
	var got strings.Builder
	for _, f := range []string{
		sbCaseErrors + "/a-errno0-after-intervals.txt", sbCaseErrors + "/b-banner-after-errors.txt",
		sbCaseErrors + "/c-thread-init-1461.txt", sbCaseErrors + "/d-deadlock-not-ignored.txt",
		sbCaseOverrun + "/b-csv-server-restart.txt",
	} {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		script := fakeSysbench(t, "cat '"+abs+"'\nexit 1\n")
		_, err = Bench{Path: script, Workload: "oltp_read_write"}.Run(context.Background(), &runner.Server{Socket: "/nonexistent.sock"},
			runner.BenchRun{Threads: 4, Duration: 30 * time.Second}, nil)
		var be *runner.BenchError
		if !errors.As(err, &be) {
			t.Fatalf("%s: err = %v", f, err)
		}
		fmt.Fprintf(&got, "%s\n\t%s\n", filepath.Base(f), be.Error())
	}
	s := got.String()
	for _, want := range []string{"failed in thread_init (the workload never ran), MySQL error 1461", "max_prepared_stmt_count", "MySQL error 0 (SQLSTATE 00000) (an error without a code",
		"MySQL error 1062 (SQLSTATE 23000)", "MySQL error 1213 (SQLSTATE 40001)", "connection to the server was lost"} {
		if !strings.Contains(s, want) {
			t.Errorf("failure texts lack %q:\n%s", want, s)
		}
	}
	golden.Check(t, "sysbench/run-failures.golden", []byte(s))
}
