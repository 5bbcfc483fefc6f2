package search

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

func TestClassify(t *testing.T) {
	boom := errors.New("sandbox gone")
	for _, tc := range []struct {
		name string
		out  measure.Outcome
		err  error
		want State
	}{
		{"scored", measure.Outcome{Score: 500}, nil, Complete},
		{"infeasible is complete", measure.Outcome{Score: 500, Measurement: measure.Measurement{Infeasible: true}}, nil, Complete},
		{"failure", measure.Outcome{Failure: "server crashed"}, nil, Failed},
		{"rejected", measure.Outcome{Rejected: true, Failure: "over the memory budget"}, nil, Rejected},
		{"error wins", measure.Outcome{Failure: "server crashed", Rejected: true}, boom, Interrupted},
	} {
		if got := classify(tc.out, tc.err); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	tr := conclude(Trial{Number: 3, State: Running}, measure.Outcome{}, boom, time.Unix(5, 0))
	if tr.State != Interrupted || tr.Failure != "sandbox gone" || !tr.Ended.Equal(time.Unix(5, 0)) {
		t.Fatalf("concluded %+v", tr)
	}
}

// recStrategy proposes a distinct configuration per Ask and records what
// it is told (Tell, after a trial) and what it observes (history replay).
type recStrategy struct {
	seed     int64
	asked    int
	told     []float64
	observed []float64
}

func (r *recStrategy) Ask(ctx context.Context) (Proposal, error) {
	r.asked++
	return Proposal{Config: space.Config{"innodb_io_capacity": strconv.FormatInt(1000*r.seed+int64(r.asked), 10)}, Kind: Sampled, Handle: -1}, nil
}

func (r *recStrategy) Tell(ctx context.Context, p Proposal, v float64) error {
	r.told = append(r.told, v)
	return nil
}

func (r *recStrategy) Observe(cfg space.Config, v float64) error {
	r.observed = append(r.observed, v)
	return nil
}

// scripted returns an objective that answers trial n with outs[n].
type scriptedRun struct {
	out measure.Outcome
	err error
}

func scripted(outs []scriptedRun) Objective {
	return func(ctx context.Context, t Trial) (measure.Outcome, error) {
		r := outs[t.Number]
		return r.out, r.err
	}
}

// TestStudyAndWorkerAgree feeds the same outcomes to a Study and to a
// (single) Worker and checks that they end the trials in the same states,
// stop for the same error, count the same trials towards the cap, and
// teach the strategy the same values: the study tells each trial's value
// right after it; the worker's fresh strategy at the next claim replays it
// (the last value it observes). A study resumed over the same trials
// replays them like the worker does.
func TestStudyAndWorkerAgree(t *testing.T) {
	ok := func(score float64) scriptedRun {
		return scriptedRun{out: measure.Outcome{Score: score, MeanTPS: score}}
	}
	failed := scriptedRun{out: measure.Outcome{Failure: "server crashed"}}
	rejected := scriptedRun{out: measure.Outcome{Rejected: true, Failure: "over the memory budget"}}
	infeasible := scriptedRun{out: measure.Outcome{Score: 900, MeanTPS: 900, Measurement: measure.Measurement{Infeasible: true}}}
	broken := scriptedRun{err: errors.New("sandbox vanished")}
	for _, tc := range []struct {
		name string
		runs []scriptedRun
		// states are the expected end states; values the expected values
		// taught for every trial but the last.
		states []State
		values []float64
		err    error // nil, ErrBaselineFailed, or any error (errAny)
	}{
		{name: "complete", runs: []scriptedRun{ok(500), ok(600), ok(550)},
			states: []State{Complete, Complete, Complete}, values: []float64{500, 600}},
		{name: "failed, rejected and infeasible are told the penalty",
			runs:   []scriptedRun{ok(500), failed, rejected, infeasible, ok(300), failed, rejected, ok(700)},
			states: []State{Complete, Failed, Rejected, Complete, Complete, Failed, Rejected, Complete},
			// Half the worst complete score: 250, then 150 once 300 is in
			// (the infeasible trial's 900 is complete but not its worst).
			values: []float64{500, 250, 250, 250, 300, 150, 150}},
		{name: "failed baseline", runs: []scriptedRun{failed}, states: []State{Failed}, err: ErrBaselineFailed},
		{name: "rejected baseline", runs: []scriptedRun{rejected}, states: []State{Rejected}, err: ErrBaselineFailed},
		{name: "objective error", runs: []scriptedRun{ok(500), broken}, states: []State{Complete, Interrupted},
			values: []float64{500}, err: errAny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			// The study.
			store := newMemStore()
			st := &recStrategy{}
			s := &Loop{Name: "s", Strategy: st, Objective: scripted(tc.runs), Store: store, MaxTrials: len(tc.runs)}
			_, serr := s.Run(ctx)
			studyTrials, _ := store.Trials(ctx, "s")

			// The worker.
			m := &memClaims{owner: map[int]string{}, beat: map[int]time.Time{}, stale: time.Hour}
			var mu sync.Mutex
			var fresh []*recStrategy
			w := &Worker{Name: "s", Seed: 1, Store: memWorkerStore{m: m, id: "w"}, MaxTrials: len(tc.runs),
				HeartbeatEvery: time.Hour, Objective: scripted(tc.runs),
				NewStrategy: func(seed int64) (Strategy, error) {
					mu.Lock()
					defer mu.Unlock()
					r := &recStrategy{seed: seed}
					fresh = append(fresh, r)
					return r, nil
				}}
			_, werr := w.Run(ctx)

			for name, err := range map[string]error{"study": serr, "worker": werr} {
				switch {
				case tc.err == nil && err != nil:
					t.Fatalf("%s: %v", name, err)
				case tc.err == errAny && err == nil, tc.err != nil && tc.err != errAny && !errors.Is(err, tc.err):
					t.Fatalf("%s: err %v, want %v", name, err, tc.err)
				}
			}
			for name, trials := range map[string][]Trial{"study": studyTrials, "worker": m.trials} {
				if len(trials) != len(tc.states) {
					t.Fatalf("%s: %d trials, want %d", name, len(trials), len(tc.states))
				}
				for i, tr := range trials {
					if tr.State != tc.states[i] {
						t.Errorf("%s: trial %d %s, want %s", name, i, tr.State, tc.states[i])
					}
				}
			}
			// Told by the study after each trial (the last one included,
			// when the study went on).
			for i, want := range tc.values {
				if i >= len(st.told) || st.told[i] != want {
					t.Fatalf("study told %v, want %v first", st.told, tc.values)
				}
			}
			// Observed by the worker: the strategy of the claim after
			// trial i (the baseline's claim makes none) replays trials
			// 0..i; the last of them is trial i, with the penalty of the
			// history up to it, as the study told it.
			for i, want := range tc.values {
				if i >= len(fresh) {
					t.Fatalf("worker made %d strategies, want one per claim after trial %d", len(fresh), i)
				}
				obs := fresh[i].observed
				if len(obs) != i+1 || obs[i] != want {
					t.Fatalf("worker strategy %d observed %v, want %d values ending in %g", i, obs, i+1, want)
				}
			}
			// A resumed study replays what the worker replays.
			if tc.err == nil && len(fresh) > 0 {
				resumed := &recStrategy{}
				s2 := &Loop{Name: "s", Strategy: resumed, Objective: scripted(tc.runs), Store: store, MaxTrials: len(tc.runs)}
				if _, err := s2.Run(ctx); err != nil {
					t.Fatal(err)
				}
				w2 := *w
				w2.MaxTrials = len(tc.runs) + 1
				if _, _, _, _, err := w2.choose(ctx, m.trials, len(m.trials)); err != nil {
					t.Fatal(err)
				}
				last := fresh[len(fresh)-1].observed
				if len(resumed.observed) != len(last) {
					t.Fatalf("resumed study observed %v, worker %v", resumed.observed, last)
				}
				for i := range last {
					if resumed.observed[i] != last[i] {
						t.Fatalf("resumed study observed %v, worker %v", resumed.observed, last)
					}
				}
			}
		})
	}
}

// errAny marks a test case that expects some error.
var errAny = errors.New("any error")

// A worker charges rejected trials to the budget and counts them towards
// the cap, as the study does.
func TestWorkerCountsRejectedTrials(t *testing.T) {
	t0 := time.Unix(0, 0)
	trials := []Trial{
		{Number: 0, Kind: Baseline, State: Complete, Params: space.Config{}, Started: t0, Ended: t0.Add(10 * time.Minute)},
		{Number: 1, Kind: Sampled, State: Rejected, Params: space.Config{"innodb_io_capacity": "300"}, Started: t0, Ended: t0.Add(45 * time.Minute)},
	}
	w := &Worker{Name: "s", Budget: time.Hour,
		NewStrategy: func(seed int64) (Strategy, error) { return &recStrategy{seed: seed}, nil }}
	if _, _, c, reason, err := w.choose(context.Background(), trials, 2); err != nil || c != Stop || reason != StopBudget {
		t.Fatalf("choice %v (%q, %v): want Stop for the budget (55 min spent, 10 min to go)", c, reason, err)
	}
	w = &Worker{Name: "s", MaxTrials: 2,
		NewStrategy: func(seed int64) (Strategy, error) { return &recStrategy{seed: seed}, nil }}
	if _, _, c, reason, err := w.choose(context.Background(), trials, 2); err != nil || c != Stop || reason != StopTrials {
		t.Fatalf("choice %v (%q, %v): want Stop at the cap", c, reason, err)
	}
	// A rejected baseline that ended after the worker started stops it.
	w = &Worker{Name: "s", MaxTrials: 5, Started: t0.Add(-time.Minute),
		NewStrategy: func(seed int64) (Strategy, error) { return &recStrategy{seed: seed}, nil }}
	rb := []Trial{{Number: 0, Kind: Baseline, State: Rejected, Params: space.Config{}, Started: t0, Ended: t0.Add(time.Second), Outcome: measure.Outcome{Failure: "over budget"}}}
	if _, _, _, _, err := w.choose(context.Background(), rb, 1); !errors.Is(err, ErrBaselineFailed) {
		t.Fatalf("err %v, want ErrBaselineFailed", err)
	}
}

// recordRetried retries a busy store, gives up after its limit with the
// store's error, and never retries a lost claim.
func TestRecordRetried(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // recording ignores cancellation
	calls := 0
	err := recordRetried(ctx, time.Minute, func(ctx context.Context) error {
		calls++
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if calls < 3 {
			return errors.New("database is locked")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("err %v after %d calls, want success on the third", err, calls)
	}
	calls = 0
	err = recordRetried(ctx, 300*time.Millisecond, func(context.Context) error { calls++; return errors.New("database is locked") })
	if err == nil || calls < 2 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
	calls = 0
	err = recordRetried(ctx, time.Minute, func(context.Context) error { calls++; return ErrClaimLost })
	if !errors.Is(err, ErrClaimLost) || calls != 1 {
		t.Fatalf("err %v after %d calls, want ErrClaimLost at once", err, calls)
	}
	// A store that stops answering mid-commit: the attempt ends at the
	// limit with its context's error.
	t0 := time.Now()
	err = recordRetried(ctx, 300*time.Millisecond, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > 10*time.Second {
		t.Fatalf("a hanging commit: err %v after %s, want the deadline at the limit", err, time.Since(t0))
	}
}
