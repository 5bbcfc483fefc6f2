package search

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/testlandscape"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// memStore is an in-memory Store.
type memStore struct {
	mu        sync.Mutex
	trials    map[int]Trial
	spent     time.Duration
	failOn    int // FinishTrial fails for this trial number (-1: never)
	failTimes int // when > 0, failOn fails only this many times
	attempts  int // FinishTrial calls for failOn
}

func newMemStore() *memStore { return &memStore{trials: map[int]Trial{}, failOn: -1} }

func (m *memStore) BeginTrial(ctx context.Context, t Trial) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.trials[t.Number]; ok {
		return fmt.Errorf("trial %d exists", t.Number)
	}
	m.trials[t.Number] = t
	return nil
}

func (m *memStore) FinishTrial(ctx context.Context, t Trial, spent time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t.Number == m.failOn && (m.failTimes == 0 || m.attempts < m.failTimes) {
		m.attempts++
		return errors.New("database is locked")
	}
	m.trials[t.Number] = t
	m.spent += spent
	return nil
}

func (m *memStore) Trials(ctx context.Context, study string) ([]Trial, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Trial, 0, len(m.trials))
	for i := 0; len(out) < len(m.trials); i++ {
		if t, ok := m.trials[i]; ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// markInterrupted does what storage.DB.MarkInterrupted does.
func (m *memStore) markInterrupted() {
	for n, t := range m.trials {
		if t.State == Running {
			t.State = Interrupted
			m.trials[n] = t
		}
	}
}

// landscape is the tests' synthetic objective (testlandscape.New) as a
// study's objective.
func landscape(seed uint64) Objective {
	f := testlandscape.New(seed)
	return func(ctx context.Context, t Trial) (measure.Outcome, error) { return f(ctx, t.Params) }
}

func newStudy(t *testing.T, store Store, obj Objective, seed int64) *Loop {
	t.Helper()
	return &Loop{Name: "s", Strategy: newUniform(space.Default(), seed), Objective: obj, Store: store}
}

func TestStudyBaselineFirstAndFindsBetter(t *testing.T) {
	store := newMemStore()
	s := newStudy(t, store, landscape(1), 7)
	s.MaxTrials = 30
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != StopTrials || len(res.Trials) != 30 {
		t.Fatalf("reason %q, %d trials", res.Reason, len(res.Trials))
	}
	if res.Trials[0].Kind != Baseline || len(res.Trials[0].Params) != 0 {
		t.Fatalf("trial 0 = %+v, want the baseline with no params", res.Trials[0])
	}
	if res.Baseline.Number != 0 {
		t.Fatalf("baseline = %d", res.Baseline.Number)
	}
	if res.Best.MeanTPS < 1.2*res.Baseline.MeanTPS {
		t.Fatalf("best %.0f tps vs baseline %.0f: TPE should find the +70 %% buffer pool region in 30 trials", res.Best.MeanTPS, res.Baseline.MeanTPS)
	}
	for _, tr := range res.Trials {
		if tr.State != Complete && tr.State != Failed {
			t.Fatalf("trial %d state %s", tr.Number, tr.State)
		}
		// Every searched knob is set, except the ones the space's repair
		// leaves out (query_cache_size with the cache OFF, thread_pool_size
		// without the pool).
		if n := len(space.Default().Knobs()); tr.Kind == Sampled && (len(tr.Params) > n || len(tr.Params) < n-2) {
			t.Fatalf("trial %d sets %d knobs of %d", tr.Number, len(tr.Params), n)
		}
	}
}

func TestStudyFailedTrialDoesNotStopStudy(t *testing.T) {
	store := newMemStore()
	calls := 0
	base := landscape(2)
	obj := func(ctx context.Context, tr Trial) (measure.Outcome, error) {
		calls++
		if calls == 3 {
			return measure.Outcome{Failure: "server did not start: unknown variable", ErrorLog: "[ERROR] x"}, nil
		}
		return base(ctx, tr)
	}
	s := newStudy(t, store, obj, 1)
	s.MaxTrials = 6
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trials) != 6 || res.Trials[2].State != Failed || res.Trials[2].ErrorLog == "" {
		t.Fatalf("trials: %d, trial 2 = %+v", len(res.Trials), res.Trials[2])
	}
}

func TestStudyBaselineFailureStops(t *testing.T) {
	obj := func(ctx context.Context, tr Trial) (measure.Outcome, error) {
		return measure.Outcome{Failure: "server did not start"}, nil
	}
	s := newStudy(t, newMemStore(), obj, 1)
	s.MaxTrials = 5
	_, err := s.Run(context.Background())
	if !errors.Is(err, ErrBaselineFailed) {
		t.Fatalf("err = %v, want ErrBaselineFailed", err)
	}
	// The next run measures the baseline again.
	_, err = s.Run(context.Background())
	if !errors.Is(err, ErrBaselineFailed) {
		t.Fatalf("second run: err = %v, want ErrBaselineFailed", err)
	}
	trials, _ := s.Store.Trials(context.Background(), "s")
	if len(trials) != 2 || trials[1].Kind != Baseline {
		t.Fatalf("trials after two runs: %+v", trials)
	}
}

func TestStudyCancelMarksInterruptedAndResumeRetries(t *testing.T) {
	store := newMemStore()
	ctx, cancel := context.WithCancel(context.Background())
	base := landscape(3)
	var cancelledParams space.Config
	obj := func(c context.Context, tr Trial) (measure.Outcome, error) {
		if tr.Number == 3 {
			cancelledParams = tr.Params
			cancel()
			return measure.Outcome{}, c.Err()
		}
		return base(c, tr)
	}
	s := newStudy(t, store, obj, 1)
	s.MaxTrials = 8
	_, err := s.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	trials, _ := store.Trials(context.Background(), "s")
	if len(trials) != 4 || trials[3].State != Interrupted {
		t.Fatalf("after cancel: %d trials, last state %s", len(trials), trials[len(trials)-1].State)
	}

	// Resume: the interrupted config is measured first, the cap counts only
	// finished trials.
	s2 := newStudy(t, store, landscape(4), 2)
	s2.MaxTrials = 8
	res, err := s2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trials) != 9 {
		t.Fatalf("%d trials after resume, want 9 (8 finished + 1 interrupted)", len(res.Trials))
	}
	if r := res.Trials[4]; r.Kind != Retry || r.Params.Key() != cancelledParams.Key() {
		t.Fatalf("trial 4 = %s %v, want a retry of %v", r.Kind, r.Params, cancelledParams)
	}
}

func TestStudyKilledProcessRunningTrialIsRetried(t *testing.T) {
	store := newMemStore()
	// A killed process left trial 0 (the baseline) running.
	_ = store.BeginTrial(context.Background(), Trial{Study: "s", Number: 0, State: Running, Kind: Baseline, Params: space.Config{}})
	store.markInterrupted()
	s := newStudy(t, store, landscape(5), 1)
	s.MaxTrials = 2
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Trials[1].Kind != Baseline || res.Baseline.Number != 1 {
		t.Fatalf("trial 1 = %s, baseline = %d; want the baseline measured again", res.Trials[1].Kind, res.Baseline.Number)
	}
}

func TestStudyBudget(t *testing.T) {
	store := newMemStore()
	now := time.Unix(0, 0)
	obj := landscape(6)
	s := newStudy(t, store, func(c context.Context, tr Trial) (measure.Outcome, error) {
		now = now.Add(10 * time.Minute) // every trial costs 10 minutes
		return obj(c, tr)
	}, 1)
	s.Now = func() time.Time { return now }
	s.Budget = time.Hour
	s.Spent = 15 * time.Minute // from an earlier run
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 15 min spent; trials of 10 min fit while used+10 <= 60: 4 trials.
	if res.Reason != StopBudget || len(res.Trials) != 4 {
		t.Fatalf("reason %q, %d trials, want budget after 4", res.Reason, len(res.Trials))
	}
	if store.spent != 40*time.Minute || res.Spent != 55*time.Minute {
		t.Fatalf("store spent %s, result spent %s", store.spent, res.Spent)
	}
}

func TestStudyStorageErrorStops(t *testing.T) {
	store := newMemStore()
	store.failOn = 2
	s := newStudy(t, store, landscape(7), 1)
	s.MaxTrials = 10
	s.StoreRetry = 600 * time.Millisecond
	if _, err := s.Run(context.Background()); err == nil {
		t.Fatal("a storage error must stop the study")
	}
	if store.attempts < 2 {
		t.Fatalf("FinishTrial tried %d times, want retries", store.attempts)
	}
}

func TestStudyBusyStoreIsRetried(t *testing.T) {
	store := newMemStore()
	store.failOn, store.failTimes = 1, 2
	s := newStudy(t, store, landscape(8), 1)
	s.MaxTrials = 3
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatalf("a store busy twice must not stop the study: %v", err)
	}
	if len(res.Trials) != 3 || res.Trials[1].State != Complete || store.attempts != 2 {
		t.Fatalf("%d trials, trial 1 %s, %d failed attempts", len(res.Trials), res.Trials[1].State, store.attempts)
	}
}

// screenStrategy proposes fixed screening points.
type screenStrategy struct{}

func (screenStrategy) Ask(ctx context.Context) (Proposal, error) {
	return Proposal{Config: space.Config{"innodb_io_capacity": "3000", "innodb_io_capacity_max": "2000"}, Kind: Screen, Handle: -1}, nil
}
func (screenStrategy) Tell(ctx context.Context, p Proposal, v float64) error { return nil }

func TestStudyPreparesEveryProposedKind(t *testing.T) {
	store := newMemStore()
	s := &Loop{Name: "s", Strategy: screenStrategy{}, Objective: landscape(9), Store: store, MaxTrials: 3, Space: space.Default()}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range res.Trials {
		repaired := tr.Params["innodb_io_capacity_max"] != "2000"
		if tr.Kind == Screen && !repaired {
			t.Errorf("trial %d (%s) was not repaired: %v", tr.Number, tr.Kind, tr.Params)
		}
		if tr.Kind == Baseline && len(tr.Params) > 0 {
			t.Errorf("the baseline must measure the defaults as they are: %v", tr.Params)
		}
	}
}

// fullStrategy proposes one configuration with every knob of its space
// listed, as the model-based strategies do.
type fullStrategy struct {
	sp  *space.Space
	cfg space.Config
}

func (f fullStrategy) Ask(ctx context.Context) (Proposal, error) {
	return Proposal{Config: FullConfig(f.sp, f.cfg), Kind: Sampled, Handle: -1}, nil
}
func (fullStrategy) Tell(ctx context.Context, p Proposal, v float64) error { return nil }

// A warm start names three knobs, a strategy proposes the same
// configuration with every knob listed: the study records both in one
// canonical form, so their measurements are one configuration's.
func TestStudyGroupsAConfigurationListedInFull(t *testing.T) {
	sp := space.Default()
	warm := space.Config{"innodb_buffer_pool_size": "1073741824", "innodb_io_capacity": "1500", "innodb_log_file_size": "268435456"}
	store := newMemStore()
	s := &Loop{Name: "s", Strategy: fullStrategy{sp, warm}, Objective: landscape(3), Store: store, MaxTrials: 4,
		WarmStart: []Proposal{{Config: warm, Kind: Expert, Handle: -1}}, Space: sp}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ws Trial
	for _, tr := range res.Trials {
		if tr.Kind == Expert {
			ws = tr
		}
	}
	if ws.Params.Key() != warm.Key() {
		t.Fatalf("the warm start was recorded as %v, want %v", ws.Params, warm)
	}
	if g := groupOf(res.Trials, ws.Params.Key()); g.all != 3 {
		for _, tr := range res.Trials {
			t.Logf("trial %d %s: %v", tr.Number, tr.Kind, tr.Params)
		}
		t.Errorf("the warm start and its two proposals in full count as %d measurements of one configuration, want 3", g.all)
	}
}
