package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// fakeClock advances one second per reading, from fixtureT0.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// driveProgress plays a resumed study through a Progress: a baseline from an
// earlier run (the server defaults with the durability pins), then a
// complete trial with every phase and some samples, then a failed one, then
// a screening trial that changes every knob, then the end.
func driveProgress(tr *Progress) {
	sp := space.Default()
	pins := space.Config{"innodb_doublewrite": "ON", "innodb_flush_log_at_trx_commit": "1"}
	base := search.Trial{Study: "demo", Number: 0, Kind: search.Baseline, State: search.Complete, Params: pins,
		Started: fixtureT0, Ended: fixtureT0.Add(20 * time.Second), Outcome: measure.Outcome{Score: 480.3, MeanTPS: 503.2, StdTPS: 45.8, P95MS: 30.1}}
	tr.Emit(result.Log{Message: fmt.Sprintf("resuming study %q: %d trials recorded, %s of budget used", "demo", 1, "30s")})
	tr.Emit(result.Opened{Study: "demo", Budget: 10 * time.Minute, MaxTrials: 4, Spent0: 30 * time.Second, Start: fixtureT0.Add(time.Minute), Space: sp, History: []search.Trial{base}})
	tr.Emit(result.TrialLength{Warmup: 2 * time.Second, Window: 3 * time.Second})

	t1 := search.Trial{Study: "demo", Number: 1, Kind: search.Sampled, State: search.Running,
		Params: space.Config{"innodb_buffer_pool_size": "2778726400", "innodb_flush_log_at_trx_commit": "2", "innodb_doublewrite": "ON"}}
	tr.Emit(result.Phase{Trial: t1, Phase: measure.PhaseRestoring})
	tr.Emit(result.Phase{Trial: t1, Phase: measure.PhaseStarting})
	tr.Emit(result.Phase{Trial: t1, Phase: measure.PhaseWarmingUp})
	tr.Emit(result.Sample{Trial: t1, Sample: measure.Sample{T: 1, Warmup: true, TPS: 412.5, LatPct: 95, LatMS: 41.1}})
	tr.Emit(result.Sample{Trial: t1, Sample: measure.Sample{T: 2, Warmup: true, TPS: 700.1, LatPct: 95, LatMS: 30.2}})
	tr.Emit(result.Phase{Trial: t1, Phase: measure.PhaseMeasuring})
	for i, v := range []float64{770.2, 790.4, 785.0} {
		tr.Emit(result.Sample{Trial: t1, Sample: measure.Sample{T: float64(3 + i), TPS: v, LatPct: 95, LatMS: 22.5}})
	}
	tr.Emit(result.Phase{Trial: t1, Phase: measure.PhaseStopping})
	t1.State, t1.Started, t1.Ended = search.Complete, fixtureT0.Add(time.Minute), fixtureT0.Add(time.Minute+15*time.Second)
	t1.Outcome = measure.Outcome{Score: 775.2, MeanTPS: 781.9, StdTPS: 13.4, P95MS: 22.5}
	tr.Emit(result.TrialEnded{Standing: search.Standing{Trial: t1, Best: t1, Baseline: base, Spent: 45 * time.Second, Budget: 10 * time.Minute}})

	t2 := search.Trial{Study: "demo", Number: 2, Kind: search.Sampled, State: search.Running,
		Params: space.Config{"innodb_log_file_size": "4294967296"}}
	tr.Emit(result.Phase{Trial: t2, Phase: measure.PhaseRestoring})
	tr.Emit(result.Phase{Trial: t2, Phase: measure.PhaseStarting})
	t2.State, t2.Started, t2.Ended = search.Failed, fixtureT0.Add(2*time.Minute), fixtureT0.Add(2*time.Minute+3*time.Second)
	t2.Failure = "server exited during start-up: [ERROR] InnoDB: Cannot resize the redo log"
	tr.Emit(result.TrialEnded{Standing: search.Standing{Trial: t2, Best: t1, Baseline: base, Spent: 48 * time.Second, Budget: 10 * time.Minute}})

	t3 := search.Trial{Study: "demo", Number: 3, Kind: search.Screen, State: search.Running, Params: pins.Merge(everyKnobChanged(sp))}
	tr.Emit(result.Phase{Trial: t3, Phase: measure.PhaseRestoring})
	t3.State, t3.Started, t3.Ended = search.Complete, fixtureT0.Add(3*time.Minute), fixtureT0.Add(3*time.Minute+14*time.Second)
	t3.Outcome = measure.Outcome{Score: 512.7, MeanTPS: 540.1, StdTPS: 20.3, P95MS: 28.4}
	tr.Emit(result.TrialEnded{Standing: search.Standing{Trial: t3, Best: t1, Baseline: base, Spent: 62 * time.Second, Budget: 10 * time.Minute}})

	tr.Emit(result.Done{Result: search.Result{Reason: search.StopTrials, Trials: []search.Trial{base, t1, t2, t3}, Best: t1, Baseline: base, Spent: 64 * time.Second}, Hint: "write it as a my.cnf with: autotune export --study demo --db trials.db -o best.cnf"})
}

func TestProgressPlainGolden(t *testing.T) {
	var out bytes.Buffer
	c := &fakeClock{t: fixtureT0.Add(time.Minute)}
	driveProgress(NewProgress("plain", &out, c.now))
	golden.Check(t, "progress-plain.golden", out.Bytes())
}

func TestProgressJSONGolden(t *testing.T) {
	var out bytes.Buffer
	c := &fakeClock{t: fixtureT0.Add(time.Minute)}
	driveProgress(NewProgress("json", &out, c.now))
	golden.Check(t, "progress-json.golden", out.Bytes())

	// Every line is one JSON object with an event name; the phases of
	// trial 1 come in order.
	var phases []string
	for i, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, l)
		}
		if e["event"] == nil || e["time"] == nil {
			t.Errorf("line %d lacks event or time: %s", i+1, l)
		}
		if e["event"] == "phase" && e["trial"] == 1.0 {
			phases = append(phases, e["phase"].(string))
		}
	}
	if got := strings.Join(phases, ","); got != "restoring,starting,warming up,measuring,stopping" {
		t.Errorf("phases of trial 1: %s", got)
	}
	// The trial events keep every change, however many: only the plain
	// line is cut to a width.
	var last struct{ Result struct{ Changes []string } }
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(l, `"event":"trial","time"`) && strings.Contains(l, `"trial":3,`) {
			_ = json.Unmarshal([]byte(l), &last)
		}
	}
	sp := space.Default()
	if want := len(sp.Changes(everyKnobChanged(sp))); want < 25 || len(last.Result.Changes) != want {
		t.Errorf("trial 3's event lists %d changes, want all %d", len(last.Result.Changes), want)
	}
}

// syncBuffer is a bytes.Buffer safe for the display's render goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls out until it contains all of want (the display renders
// every 250 ms on its own goroutine).
func waitFor(t *testing.T, out *syncBuffer, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := out.String()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("terminal display never showed %q; output:\n%s", missing, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProgressTerminal drives the mpb display: the phase, the second of
// the benchmark and the tps of the running trial, the study's trial
// count, budget, ETA and best show on the bars; finished trials print
// above them; the bars are gone after the end.
func TestProgressTerminal(t *testing.T) {
	out := &syncBuffer{}
	c := &fakeClock{t: fixtureT0.Add(time.Minute)}
	tr := NewProgress("tty", out, c.now)
	sp := space.Default()
	base := search.Trial{Study: "demo", Number: 0, Kind: search.Baseline, State: search.Complete, Params: space.Config{},
		Started: fixtureT0, Ended: fixtureT0.Add(20 * time.Second), Outcome: measure.Outcome{Score: 480.3, MeanTPS: 503.2}}
	tr.Emit(result.Opened{Study: "demo", Budget: 10 * time.Minute, MaxTrials: 4, Spent0: 30 * time.Second, Start: fixtureT0.Add(time.Minute), Space: sp, History: []search.Trial{base}})
	tr.Emit(result.TrialLength{Warmup: 2 * time.Second, Window: 3 * time.Second})
	tr.Emit(result.Log{Message: fmt.Sprintf("resuming study")})
	t1 := search.Trial{Study: "demo", Number: 1, Kind: search.Sampled, Params: space.Config{"innodb_flush_log_at_trx_commit": "2",
		"innodb_buffer_pool_size": "2778726400", "innodb_io_capacity": "1000", "innodb_log_file_size": "4294967296"}}
	// The display cuts the knob line to the terminal's width.
	tr.sink.(*ttySink).columns = func() int { return 70 }
	tr.Emit(result.Phase{Trial: t1, Phase: measure.PhaseRestoring})
	waitFor(t, out, "trial 1 sampled  restoring", "study  1/4 trials done", "best 480.3 (#0 +0.0%)", "ETA ")
	tr.Emit(result.Phase{Trial: t1, Phase: measure.PhaseMeasuring})
	tr.Emit(result.Sample{Trial: t1, Sample: measure.Sample{T: 3, TPS: 781.4}})
	waitFor(t, out, "trial 1 sampled  measuring", "3/5s 781 tps")
	t1.State, t1.Started, t1.Ended = search.Complete, fixtureT0.Add(time.Minute), fixtureT0.Add(time.Minute+15*time.Second)
	t1.Outcome = measure.Outcome{Score: 775.2, MeanTPS: 781.9}
	tr.Emit(result.TrialEnded{Standing: search.Standing{Trial: t1, Best: t1, Baseline: base, Budget: 10 * time.Minute}})
	waitFor(t, out, "trial   1 sampled    tps    781.9", "study  2/4 trials done", "best 775.2 (#1 +55.4%)",
		"\n      vs baseline: innodb_log_file_size=4G … +3 more (autotune show 1)\n")
	tr.Emit(result.Done{Result: search.Result{Reason: search.StopTrials, Trials: []search.Trial{base, t1}, Best: t1, Baseline: base}, Hint: "bye"})
	s := out.String()
	if !strings.HasSuffix(s, "bye\n") || !strings.Contains(s, "best: trial 1, score 775.2") {
		t.Errorf("end of the display:\n%s", s)
	}
	// A second close (the deferred one in runSearch) is harmless.
	tr.Close()
}

func TestStudyETA(t *testing.T) {
	m := time.Minute
	for _, tc := range []struct {
		name                string
		est                 time.Duration
		finished, maxTrials int
		budget, spent, cur  time.Duration
		running             bool
		want                time.Duration
		ok                  bool
	}{
		{name: "no estimate yet", est: 0, maxTrials: 10, ok: false},
		{name: "no cap", est: m, ok: false},
		{name: "trial cap, idle", est: m, finished: 4, maxTrials: 10, want: 6 * m, ok: true},
		{name: "trial cap, mid-trial", est: m, finished: 4, maxTrials: 10, running: true, cur: 20 * time.Second, want: 5*m + 40*time.Second, ok: true},
		{name: "trial cap reached", est: m, finished: 10, maxTrials: 10, want: 0, ok: true},
		{name: "budget counts whole trials", est: 10 * m, budget: 60 * m, spent: 25 * m, want: 30 * m, ok: true},
		{name: "budget, mid-trial", est: 10 * m, budget: 60 * m, spent: 25 * m, running: true, cur: 5 * m, want: 5*m + 30*m, ok: true},
		{name: "budget used up", est: 10 * m, budget: 60 * m, spent: 55 * m, want: 0, ok: true},
		{name: "the nearer limit wins", est: m, finished: 8, maxTrials: 10, budget: 60 * m, spent: 10 * m, want: 2 * m, ok: true},
		{name: "running past the estimate", est: m, finished: 1, maxTrials: 3, running: true, cur: 2 * m, want: m, ok: true},
	} {
		got, ok := studyETA(tc.est, tc.finished, tc.maxTrials, tc.budget, tc.spent, tc.running, tc.cur)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestChooseProgress(t *testing.T) {
	if m := ChooseProgress(true, &bytes.Buffer{}); m != "json" {
		t.Errorf("--json: %s", m)
	}
	if m := ChooseProgress(false, &bytes.Buffer{}); m != "plain" {
		t.Errorf("a buffer: %s", m)
	}
}

func TestFmtDur(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 45 * time.Second: "45s", 12*time.Minute + 5*time.Second: "12m05s", 3*time.Hour + 7*time.Minute + 40*time.Second: "3h08m", 50 * time.Hour: "50h00m"} {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestProgressJSONSaysWhyASlowerBestIsBest: the status of a JSON event
// carries the reason a best slower than the baseline in tps is the best.
func TestProgressJSONSaysWhyASlowerBestIsBest(t *testing.T) {
	var out bytes.Buffer
	c := &fakeClock{t: fixtureT0}
	tr := NewProgress("json", &out, c.now)
	base := search.Trial{Number: 0, Kind: search.Baseline, State: search.Complete, Params: space.Config{},
		Outcome: measure.Outcome{Score: 820, MeanTPS: 930, Measurement: measure.Measurement{Penalties: measure.Penalties{Variance: 110}}}}
	best := search.Trial{Number: 1, Kind: search.Sampled, State: search.Complete, Params: space.Config{"innodb_io_capacity": "1000"},
		Outcome: measure.Outcome{Score: 900, MeanTPS: 910, Measurement: measure.Measurement{Penalties: measure.Penalties{Variance: 10}}}}
	tr.Emit(result.Opened{Study: "demo", Budget: 0, MaxTrials: 4, Spent0: 0, Start: fixtureT0, Space: space.Default(), History: []search.Trial{base}})
	tr.Emit(result.TrialEnded{Standing: search.Standing{Trial: best, Best: best, Baseline: base}})
	var e struct {
		Status struct {
			Best struct {
				GainPct float64 `json:"gain_pct"`
				Reason  string  `json:"reason"`
			} `json:"best"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	if b := e.Status.Best; b.GainPct != -2.2 || b.Reason != "but the baseline was penalised 110.0 for instability, #1 only 10.0" {
		t.Errorf("status.best: %+v", b)
	}
}
