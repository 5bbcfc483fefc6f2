package benchcmd

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/runner"
)

func TestParseBenchCmd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{`sysbench tpcc.lua --mysql-socket={socket} --threads={threads} --time={seconds} run`,
			[]string{"sysbench", "tpcc.lua", "--mysql-socket={socket}", "--threads={threads}", "--time={seconds}", "run"}, ""},
		{`my-bench --label 'two words' "--x={port}" a\ b`, []string{"my-bench", "--label", "two words", "--x={port}", "a b"}, ""},
		{``, nil, "empty command"},
		{`bench 'unclosed`, nil, "--bench-cmd"},
		{`bench --t={thread}`, nil, "unknown placeholder {thread}"},
	} {
		got, err := ParseBenchCmd(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: %q, %v", tc.in, got, err)
		}
	}
}

func TestParseKVInterval(t *testing.T) {
	iv, err := ParseKVInterval("t=3 tps=512.5 qps=10250 lat_ms=41.2 err_s=0.5", 7)
	if err != nil || iv.Time != 3 || iv.TPS != 512.5 || iv.QPS != 10250 || *iv.LatMS != 41.2 || iv.LatPct != 95 || iv.ErrPS != 0.5 {
		t.Fatalf("%+v %v", iv, err)
	}
	iv, err = ParseKVInterval("tps=10", 7)
	if err != nil || iv.Time != 7 || iv.LatMS != nil || iv.LatPct != 0 {
		t.Fatalf("%+v %v", iv, err)
	}
	if iv, err := ParseKVInterval("warming up, please wait", 1); iv != nil || err != nil {
		t.Fatal("a line without tps= is not an interval")
	}
	for _, bad := range []string{"t=1 tps=abc", "tps=5 latency=3", "tps=5 junk", "tps=-1", "tps=NaN"} {
		if _, err := ParseKVInterval(bad, 1); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestCommandBenchRun(t *testing.T) {
	srv := &runner.Server{Socket: "/tmp/x.sock", Port: 3307}
	run := func(cmdline string, d time.Duration) (runner.BenchResult, []runner.Interval, error) {
		args, err := ParseBenchCmd(cmdline)
		if err != nil {
			t.Fatal(err)
		}
		var got []runner.Interval
		out, err := Command{Args: args, Tables: 2, TableSize: 10}.Run(context.Background(), srv, runner.BenchRun{Threads: 8, Duration: d}, func(iv runner.Interval) { got = append(got, iv) })
		return out, got, err
	}
	// key=value lines, placeholders replaced, no shell involved in the
	// split (sh is the user's command here).
	out, got, err := run(`sh -c 'echo starting; for i in 1 2 3; do echo "t=$i tps=$(($1*10+i)) lat_ms=5"; done' x {threads}`, 3*time.Second)
	if err != nil || len(got) != 3 || got[2].TPS != 83 || out.Summary != nil {
		t.Fatalf("%v %+v", err, got)
	}
	// sysbench output of a real run passes through the sysbench parser.
	_, got, err = run(`cat ../sysbench/testdata/sysbench/sysbench-real-1.0.20/read_write-default-t16-r1.txt`, time.Second)
	if err != nil || len(got) != 60 || got[0].Threads != 16 || got[0].LatMS == nil {
		t.Fatalf("%v: %d intervals", err, len(got))
	}
	var be *runner.BenchError
	if _, _, err := run(`sh -c 'echo t=1 tps=5; exit 3'`, time.Second); !errors.As(err, &be) || !strings.Contains(be.Reason, "exit status 3") {
		t.Fatalf("exit 3: %v", err)
	}
	if _, _, err := run(`echo nothing useful`, time.Second); !errors.As(err, &be) || !strings.Contains(be.Reason, "no interval lines") {
		t.Fatalf("no intervals: %v", err)
	}
	if _, _, err := run(`echo tps=fast`, time.Second); !errors.As(err, &be) || !strings.Contains(be.Reason, "unparseable") {
		t.Fatalf("malformed: %v", err)
	}
	if _, _, err := run(`/nonexistent/bench`, time.Second); !errors.As(err, &be) {
		t.Fatalf("missing binary: %v", err)
	}
	// Cancelling stops the command and returns what was parsed.
	args, _ := ParseBenchCmd(`sh -c 'i=0; while true; do i=$((i+1)); echo "t=$i tps=1"; sleep 0.05; done'`)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = Command{Args: args}.Run(ctx, srv, runner.BenchRun{Threads: 1, Duration: time.Second}, func(runner.Interval) {
		n++
		if n == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || n < 3 {
		t.Fatalf("cancel: %v, %d intervals", err, n)
	}
}

// TestCommandTPCCMySQL runs tpcc-mysql's tpcc_start output (case
// tpcc-mysql-output-formats) through a --bench-cmd: its interval lines are
// samples (New-Order per second, New-Order's percentile), its report the
// run's summary; a failure line or a transaction-mix check [NG] fails the
// run, the response-time [NG] lines under default limits only warn.
func TestCommandTPCCMySQL(t *testing.T) {
	srv := &runner.Server{Socket: "/tmp/x.sock", Port: 3307}
	const dir = "tpccmysql/testdata/tpcc-mysql-output-formats/"
	run := func(args ...string) (runner.BenchResult, []runner.Interval, error) {
		var got []runner.Interval
		out, err := Command{Args: args}.Run(context.Background(), srv, runner.BenchRun{Threads: 8, Duration: time.Second}, func(iv runner.Interval) { got = append(got, iv) })
		return out, got, err
	}
	out, got, err := run("cat", dir+"a-tpcc-start-2016.txt")
	if err != nil || len(got) != 4 {
		t.Fatalf("2016 layout: %v, %d intervals", err, len(got))
	}
	if got[0].Time != 10 || got[0].TPS != 38 || got[0].QPS != (380+378+38+37+38)/10.0 || got[0].LatPct != 95 || *got[0].LatMS != 326.659 || got[0].Line != 27 || !got[0].NoErrorRates {
		t.Errorf("first interval %+v", got[0])
	}
	sum, ok := out.Summary.(TPCCMySQLSummary)
	if !ok || sum.TpmC == nil || *sum.TpmC != 2410.5 || sum.IntervalTpmC == nil || *sum.IntervalTpmC != 2410.5 || sum.Build != "2016+" || sum.Status != "ok_with_warnings" || len(sum.Warnings) == 0 || len(sum.Mix) != 5 || math.Abs(sum.Mix[1]-100*1606/3695.0) > 1e-9 {
		t.Fatalf("summary %#v", out.Summary)
	}
	// autotune stops the command before tpcc_start's report: the summary
	// comes from the interval lines.
	out, got, err = run("head", "-32", dir+"a-tpcc-start-2016.txt")
	sum, ok = out.Summary.(TPCCMySQLSummary)
	if err != nil || len(got) != 4 || !ok || sum.TpmC != nil || sum.Status != "no report" || sum.IntervalTpmC == nil || *sum.IntervalTpmC != 1607*60/40.0 || sum.Format == "" || len(sum.Warnings) != 0 {
		t.Fatalf("no report: %v %#v", err, out.Summary)
	}
	_, got, err = run("cat", dir+"b-interval-lines-libc-variant.txt")
	if err != nil || len(got) != 2 || got[1].TPS != 902/2.0 || *got[1].LatMS != 8.558 {
		t.Errorf("'95:' variant: %v %+v", err, got)
	}
	_, got, err = run("cat", dir+"c-interval-lines-pre2016.txt")
	if err != nil || len(got) != 2 || got[0].TPS != 129.2 || got[0].LatPct != 90 || *got[0].LatMS != 1.23 {
		t.Errorf("pre-2016 layout: %v %+v", err, got)
	}

	// A failed mix check, and a failure line, fail the run with what
	// tpcc_start printed.
	_, _, err = run("sh", "-c", `sed 's/Payment: 43.46% (>=43.0%) \[OK\]/Payment: 40.10% (>=43.0%) [NG] */' `+dir+"a-tpcc-start-2016.txt")
	var be *runner.BenchError
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "not a valid TPC-C result") || !strings.Contains(be.Reason, "mix Payment 40.1 % (at least 43 %)") {
		t.Errorf("mix check [NG]: %v", err)
	}
	_, _, err = run("sh", "-c", `sed '/^<TpmC>/i error at thread_main' `+dir+"a-tpcc-start-2016.txt")
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "error at thread_main") {
		t.Errorf("failure line: %v", err)
	}
	// A failure line stops the command at once and fails the run.
	const iv1 = `echo '  1, trx: 3, 95%: 1.0, 99%: 2.0, max_rt: 3.0, 3|1.0, 1|1.0, 1|1.0, 1|1.0'`
	_, got, err = run("sh", "-c", `echo 'MEASURING START.'; `+iv1+`; echo 'error at thread_main'; echo '1045, 28000, Access denied for user'; sleep 3 >/dev/null 2>&1 & wait; echo '  2, trx: 3, 95%: 1.0, 99%: 2.0, max_rt: 3.0, 3|1.0, 1|1.0, 1|1.0, 1|1.0'`)
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "tpcc_start reported a failure at output line 3: error at thread_main (error 1045, SQLSTATE 28000: Access denied for user)") || len(got) != 1 {
		t.Errorf("failure line mid-run: %v, %d intervals (want the run stopped after 1)", err, len(got))
	}
	// A failure line that comes after autotune stopped the command (its
	// window measured) still fails the run.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = Command{Args: []string{"sh", "-c", `trap 'echo error at thread_main; exit 1' TERM; echo 'MEASURING START.'; ` + iv1 + `; sleep 10 >/dev/null 2>&1 & wait`}}.Run(ctx, srv, runner.BenchRun{Threads: 8, Duration: time.Second}, func(runner.Interval) { cancel() })
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "error at thread_main") {
		t.Errorf("failure line after the stop: %v", err)
	}
	// Mixed output, and tpcc_start's interval lines without its own
	// start lines, are named.
	_, _, err = run("sh", "-c", `echo 'MEASURING START.'; echo '[ 1s ] thds: 8 tps: 500.00 qps: 10000.00 (r/w/o: 7000.00/2000.00/1000.00) lat (ms,95%): 20.00 err/s: 0.00 reconn/s: 0.00'`)
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "a sysbench interval line after tpcc_start's output began") {
		t.Errorf("sysbench line after tpcc_start's start: %v", err)
	}
	_, _, err = run("sh", "-c", `echo 'RAMP-UP TIME.(0 sec.)'; echo 't=1 tps=5'`)
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "a key=value interval line after tpcc_start's output began") {
		t.Errorf("key=value line after tpcc_start's start: %v", err)
	}
	_, _, err = run("grep", "trx:", dir+"a-tpcc-start-2016.txt")
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "reads as an interval line of tpcc-mysql's tpcc_start") {
		t.Errorf("interval lines alone: %v", err)
	}
	// A malformed interval line is never read as 0.
	_, _, err = run("sh", "-c", `printf 'MEASURING START.\n\n  10, trx: x, 95%%: 1.0, 99%%: 2.0, max_rt: 3.0, 1|1.0, 1|1.0, 1|1.0, 1|1.0\n'`)
	if !errors.As(err, &be) || !strings.Contains(be.Reason, "unparseable output") {
		t.Errorf("malformed interval line: %v", err)
	}
}
