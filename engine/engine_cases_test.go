package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// fakeTarget applies configurations by calling apply; it counts the calls.
type fakeTarget struct {
	apply   func(cfg space.Config) (Applied, error)
	applies int
}

func (f *fakeTarget) Prepare(context.Context, Benchmark, func(string, ...any)) error { return nil }
func (f *fakeTarget) Close(context.Context) error                                    { return nil }
func (f *fakeTarget) Apply(_ context.Context, req Request) (Applied, error) {
	f.applies++
	return f.apply(req.Trial.Params)
}

// lifecycle-innodb-init-root-cause, rule 3: a start that failed for lack
// of memory fails the trial as a configuration rejected for a resource,
// with the root cause, not an installation error; and the engine learns
// from it: a configuration estimated at as much memory or more is
// rejected before start, a smaller one is tried.
func TestOutOfMemoryStartTeachesALimit(t *testing.T) {
	dir := filepath.Join("testdata", "lifecycle-innodb-init-root-cause")
	var tj struct {
		Trial      int               `json:"trial"`
		Candidate  map[string]string `json:"candidate"`
		HostMemory int64             `json:"host_memory_bytes"`
		Offset     int               `json:"error_log_offset_before_start_a"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "trial.json"))
	if err != nil || json.Unmarshal(b, &tj) != nil {
		t.Fatalf("trial.json: %v", err)
	}
	log, err := os.ReadFile(filepath.Join(dir, "a-mysql55-error.log"))
	if err != nil {
		t.Fatal(err)
	}
	se := &runner.StartError{Reason: "server exited (exit status 1)", Excerpt: string(log[tj.Offset:]), Diagnosis: runner.DiagnoseStartLog(string(log[tj.Offset:]))}
	ft := &fakeTarget{apply: func(cfg space.Config) (Applied, error) {
		if n, _ := space.ParseBytes(cfg["innodb_buffer_pool_size"]); n >= tj.HostMemory {
			return Applied{}, &Refused{Failure: se.Error(), ErrorLog: se.Excerpt, Cause: se.Diagnosis.Cause}
		}
		return Applied{}, &Refused{Failure: "some other refusal"}
	}}
	e := &Engine{Target: ft, Space: space.Default(), MaxConnections: 20}
	run := func(n int, pool string) measure.Outcome {
		out, err := e.Run(context.Background(), search.Trial{Number: n, Params: space.Config{"innodb_buffer_pool_size": pool}})
		if err != nil {
			t.Fatalf("trial %d: %v", n, err)
		}
		return out
	}

	out := run(tj.Trial, tj.Candidate["innodb_buffer_pool_size"])
	for _, want := range []string{"configuration rejected for a resource (memory", "out of memory: InnoDB: mmap(13186891776 bytes) failed; errno 12"} {
		if !strings.Contains(out.Failure, want) {
			t.Errorf("failure %q lacks %q", out.Failure, want)
		}
	}
	if out.Rejected || strings.Contains(out.Failure, "Unknown/unsupported storage engine") || strings.Contains(out.Failure, "Plugin") {
		t.Errorf("failure %q (rejected %v): the root cause only", out.Failure, out.Rejected)
	}
	out = run(tj.Trial+1, "16G")
	if !out.Rejected || ft.applies != 1 || !strings.Contains(out.Failure, "trial 17") {
		t.Errorf("a larger configuration: rejected %v after %d applies: %q", out.Rejected, ft.applies, out.Failure)
	}
	out = run(tj.Trial+2, "4G")
	if out.Rejected || ft.applies != 2 {
		t.Errorf("a smaller configuration must be tried: rejected %v, %d applies", out.Rejected, ft.applies)
	}
}

// sysbench-overrun-and-csv, rule 4: a server restart during the benchmark
// is not the configuration's fault: Run returns a *RestartedError (the
// study stops; the trial is not counted and runs again on resume) instead
// of a failed or scored trial. The restart is read from the status polls
// of the run.
func TestRestartDuringBenchmarkVoidsTrial(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	poll := func(s int, uptime string) runner.Poll {
		return runner.Poll{At: t0.Add(time.Duration(s) * time.Second), Status: runner.GlobalStatus{"Uptime": uptime}}
	}
	if re := restartDuring([]runner.Poll{poll(0, "500"), poll(1, "501"), {At: t0.Add(2 * time.Second)}, poll(3, "503")}); re != nil {
		t.Errorf("one lifetime (a failed poll between): %v", re)
	}
	if re := restartDuring([]runner.Poll{poll(0, "500"), poll(1, "501"), poll(2, "1")}); re == nil || !strings.Contains(re.Why, "Uptime decreased") {
		t.Errorf("Uptime reset: %v", re)
	}
	if re := restartDuring([]runner.Poll{poll(0, "5"), poll(60, "30")}); re == nil || !strings.Contains(re.Why, "start time moved later") {
		t.Errorf("restart with a higher Uptime: %v", re)
	}

	ft := &fakeTarget{apply: func(space.Config) (Applied, error) {
		return Applied{Server: &runner.Server{Socket: "/nonexistent/sock"}, Release: func(bool, *measure.Outcome) {}}, nil
	}}
	fb := &fakeBench{emitted: map[int]int{}, tps: func(_, _ int) float64 { return 100 }, fail: &RestartedError{Why: "Uptime decreased (500 -> 1)"}}
	e := &Engine{Target: ft, Bench: fb, Space: space.Default(), Measure: Protocol{Levels: []int{2}, Duration: 10 * time.Second,
		Steady: measure.DefaultSteadyRule(), Score: measure.DefaultScoreRule()}}
	out, err := e.Run(context.Background(), search.Trial{Number: 7, Params: space.Config{}})
	var re *RestartedError
	if !errors.As(err, &re) || re.Trial != 7 || !strings.Contains(err.Error(), "not counted") || out.Score != 0 {
		t.Fatalf("Run = %+v, %v; want a *RestartedError for trial 7", out, err)
	}
}

// A start refused by the host (a kernel limit named in the error log, or
// an allocation refused although the memory is there) stops the study
// with a HostFaultError that names the limit and the fix, and teaches the
// engine nothing: the next configuration, however large, is started, not
// rejected before start. An allocation the host's memory cannot give is
// the configuration's fault and is learned.
func TestHostFaultTeachesNothing(t *testing.T) {
	aio := "2026-12-06 10:00:01 0 [ERROR] InnoDB: io_setup() failed with EAGAIN after 5 attempts.\n2026-12-06 10:00:01 0 [ERROR] Aborting\n"
	mmap := "2026-12-06 10:00:01 0 [ERROR] InnoDB: mmap(2147483648 bytes) failed; errno 12\n"
	refuse := func(log string) error {
		se := &runner.StartError{Reason: "server exited (exit status 1)", Excerpt: log, Diagnosis: runner.DiagnoseStartLog(log)}
		return &Refused{Failure: se.Error(), ErrorLog: log, Cause: se.Diagnosis.Cause, Limit: se.Diagnosis.Limit, Fix: se.Diagnosis.Fix}
	}
	for _, tc := range []struct {
		name      string
		log       string
		available int64
		host      string // what the HostFaultError names; "" when the configuration's fault
	}{
		{"aio limit", aio, 16 << 30, "fs.aio-max-nr"},
		{"memory the host has", mmap, 16 << 30, "ulimit -v"},
		{"memory the host lacks", mmap, 3 << 30, ""},
	} {
		ft := &fakeTarget{}
		ft.apply = func(cfg space.Config) (Applied, error) {
			if ft.applies == 1 {
				return Applied{}, refuse(tc.log)
			}
			return Applied{}, &Refused{Failure: "some other refusal"}
		}
		e := &Engine{Target: ft, Space: space.Default(), MaxConnections: 20, Available: func() int64 { return tc.available }}
		out, err := e.Run(context.Background(), search.Trial{Number: 4, Params: space.Config{"innodb_buffer_pool_size": "2G"}})
		var hf *HostFaultError
		switch {
		case tc.host != "" && (!errors.As(err, &hf) || !strings.Contains(err.Error(), tc.host) || hf.Fix == "" || !strings.Contains(err.Error(), "run the same command to resume")):
			t.Errorf("%s: err %v (outcome %q), want a HostFaultError naming %s and the fix", tc.name, err, out.Failure, tc.host)
		case tc.host == "" && (err != nil || !strings.Contains(out.Failure, "configuration rejected for a resource")):
			t.Errorf("%s: err %v, failure %q: want the trial failed for its memory", tc.name, err, out.Failure)
		}
		// A larger configuration next: started unless the memory was learned.
		out, err = e.Run(context.Background(), search.Trial{Number: 5, Params: space.Config{"innodb_buffer_pool_size": "4G"}})
		if err != nil {
			t.Fatalf("%s: second trial: %v", tc.name, err)
		}
		if learned := out.Rejected && ft.applies == 1; learned != (tc.host == "") {
			t.Errorf("%s: after it a larger configuration was rejected before start: %v (%q, %d applies)", tc.name, learned, out.Failure, ft.applies)
		}
	}
}
