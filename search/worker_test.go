package search

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// memClaims is an in-memory ClaimStore shared by the workers of a test;
// one mutex plays the study row lock.
type memClaims struct {
	mu     sync.Mutex
	trials []Trial
	owner  map[int]string
	beat   map[int]time.Time
	stale  time.Duration
}

type memWorkerStore struct {
	m  *memClaims
	id string
}

func (s memWorkerStore) Claim(ctx context.Context, study string, choose ChooseFunc) (Trial, Choice, []Trial, error) {
	m := s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	var stale []Trial
	for i, t := range m.trials {
		if t.State == Running && time.Since(m.beat[t.Number]) > m.stale {
			m.trials[i].State = Interrupted
			stale = append(stale, m.trials[i])
		}
	}
	cp := append([]Trial(nil), m.trials...)
	t, c, err := choose(cp, len(m.trials))
	if err != nil || c != Run {
		return Trial{}, c, stale, err
	}
	m.trials = append(m.trials, t)
	m.owner[t.Number], m.beat[t.Number] = s.id, time.Now()
	return t, Run, stale, nil
}

func (s memWorkerStore) Heartbeat(ctx context.Context, t Trial) error {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if s.m.owner[t.Number] != s.id || s.m.trials[t.Number].State != Running {
		return ErrClaimLost
	}
	s.m.beat[t.Number] = time.Now()
	return nil
}

func (s memWorkerStore) FinishClaimed(ctx context.Context, t Trial, spent time.Duration) error {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if s.m.owner[t.Number] != s.id || s.m.trials[t.Number].State != Running {
		return ErrClaimLost
	}
	s.m.trials[t.Number] = t
	return nil
}

// TestWorkersShareOneStudy: three workers on one in-memory store finish
// the study together: one baseline, each trial number once, the cap met
// exactly, and every sampled proposal made after replaying all trials
// finished so far by any worker.
func TestWorkersShareOneStudy(t *testing.T) {
	m := &memClaims{owner: map[int]string{}, beat: map[int]time.Time{}, stale: time.Hour}
	obj := landscape(1)
	var mu sync.Mutex
	var replayErrs []string
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		id := string(rune('a' + i))
		w := &Worker{
			Name: "s", Seed: 5, Store: memWorkerStore{m: m, id: id}, MaxTrials: 12,
			HeartbeatEvery: 10 * time.Millisecond,
			Objective: func(ctx context.Context, t Trial) (measure.Outcome, error) {
				time.Sleep(5 * time.Millisecond)
				return obj(ctx, t)
			},
		}
		w.NewStrategy = func(seed int64) (Strategy, error) {
			// The store's lock is held while choose runs: count the
			// finished trials now and compare after the replay.
			finished := 0
			for _, t := range m.trials {
				if t.State == Complete || t.State == Failed {
					finished++
				}
			}
			return &checkReplay{uniformStrategy: newUniform(space.Default(), seed), want: finished, report: func(msg string) {
				mu.Lock()
				replayErrs = append(replayErrs, msg)
				mu.Unlock()
			}}, nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := w.Run(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, e := range replayErrs {
		t.Error(e)
	}
	finished, baselines := 0, 0
	owners := map[string]bool{}
	for i, tr := range m.trials {
		if tr.Number != i {
			t.Fatalf("trial numbers not dense: %d at %d", tr.Number, i)
		}
		if tr.State == Complete || tr.State == Failed {
			finished++
		}
		if tr.State == Running {
			t.Errorf("trial %d left running", i)
		}
		if tr.Kind == Baseline {
			baselines++
		}
		owners[m.owner[i]] = true
	}
	if finished != 12 || baselines != 1 {
		t.Fatalf("%d finished, %d baselines; want 12 and 1", finished, baselines)
	}
	if len(owners) < 2 {
		t.Errorf("only %d workers ran trials", len(owners))
	}
}

// checkReplay fails the test when Ask comes before every finished trial
// was observed.
type checkReplay struct {
	*uniformStrategy
	want   int
	report func(string)
}

func (c *checkReplay) Ask(ctx context.Context) (Proposal, error) {
	if c.observed != c.want {
		c.report(fmt.Sprintf("strategy asked after replaying %d of %d finished trials", c.observed, c.want))
	}
	return c.uniformStrategy.Ask(ctx)
}

// TestWorkerStaleTrialRetried: a trial whose worker stops heartbeating is
// handed back; its config is measured again by the other worker; the
// silent worker's late result is refused.
func TestWorkerStaleTrialRetried(t *testing.T) {
	m := &memClaims{owner: map[int]string{}, beat: map[int]time.Time{}, stale: 50 * time.Millisecond}
	// Trial 0 (baseline) complete; trial 1 claimed by a worker that died.
	m.trials = []Trial{{Study: "s", Number: 0, Kind: Baseline, State: Complete, Params: space.Config{}, Outcome: measure.Outcome{Score: 1}}}
	dead := memWorkerStore{m: m, id: "dead"}
	cfg := space.Config{"innodb_flush_log_at_trx_commit": "2"}
	t1, _, _, err := dead.Claim(context.Background(), "s", func(_ []Trial, next int) (Trial, Choice, error) {
		return Trial{Study: "s", Number: next, State: Running, Params: cfg, Kind: Sampled, Started: time.Now()}, Run, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	var stale []Trial
	w := &Worker{Name: "s", Seed: 1, Store: memWorkerStore{m: m, id: "live"}, MaxTrials: 3, HeartbeatEvery: 10 * time.Millisecond,
		Objective:   landscape(2),
		NewStrategy: func(seed int64) (Strategy, error) { return newUniform(space.Default(), seed), nil },
		OnStale:     func(t Trial) { stale = append(stale, t) }}
	if _, err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(stale) != 1 || stale[0].Number != t1.Number {
		t.Fatalf("stale = %+v", stale)
	}
	if m.trials[2].Kind != Retry || m.trials[2].Params.Key() != cfg.Key() {
		t.Fatalf("trial 2 = %+v, want a retry of %v", m.trials[2], cfg)
	}
	t1.State = Complete
	if err := dead.FinishClaimed(context.Background(), t1, 0); err != ErrClaimLost {
		t.Fatalf("late result accepted: %v", err)
	}
}

// TestWorkerRecordsTheCanonicalForm: a worker records a strategy's
// proposal of the warm start listed in full in the warm start's own
// recorded form (the same configuration, measured twice).
func TestWorkerRecordsTheCanonicalForm(t *testing.T) {
	sp := space.Default()
	warm := space.Config{"innodb_buffer_pool_size": "1073741824", "innodb_io_capacity": "1500"}
	full := FullConfig(sp, warm) // every knob listed, io_capacity_max at 3000
	m := &memClaims{owner: map[int]string{}, beat: map[int]time.Time{}, stale: time.Hour}
	w := &Worker{
		Name: "s", Seed: 1, Store: memWorkerStore{m: m, id: "a"}, MaxTrials: 3,
		HeartbeatEvery: 10 * time.Millisecond, Objective: landscape(1),
		Space:       sp,
		WarmStart:   []Proposal{{Config: warm, Kind: Expert, Handle: -1}},
		NewStrategy: func(seed int64) (Strategy, error) { return &askScript{cfgs: []space.Config{full}}, nil },
	}
	if _, err := w.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(m.trials) != 3 || m.trials[1].Kind != Expert || m.trials[2].Kind != Sampled {
		t.Fatalf("trials %v; want the baseline, the warm start and one proposal", m.trials)
	}
	if got, want := m.trials[2].Params.Key(), m.trials[1].Params.Key(); got != want {
		t.Errorf("the full-form proposal was recorded as %s; want the warm start's form %s", got, want)
	}
	if len(m.trials[1].Params) != 2 {
		t.Errorf("the warm start was recorded as %v; want its two knobs", m.trials[1].Params)
	}
}

// askScript proposes its configurations in turn, as new ones.
type askScript struct {
	cfgs  []space.Config
	asked int
}

func (s *askScript) Observe(space.Config, float64) error           { return nil }
func (s *askScript) Tell(context.Context, Proposal, float64) error { return nil }
func (s *askScript) Ask(context.Context) (Proposal, error) {
	c := s.cfgs[min(s.asked, len(s.cfgs)-1)]
	s.asked++
	return Proposal{Config: c, Kind: Sampled, Handle: -1}, nil
}

// TestWorkerDoesNotProposeARunningConfiguration: a strategy whose
// proposal another worker is measuring right now is asked again, and the
// worker claims its next proposal; when the strategy answers the same
// again, the worker stops asking and claims it; when every answer is
// running, it stops after reaskRunning more and claims the last.
func TestWorkerDoesNotProposeARunningConfiguration(t *testing.T) {
	a := space.Config{"innodb_flush_log_at_trx_commit": "2"}
	b := space.Config{"innodb_flush_log_at_trx_commit": "0"}
	trials := []Trial{
		{Study: "s", Number: 0, Kind: Baseline, State: Complete, Params: space.Config{}, Outcome: measure.Outcome{Score: 1}},
		{Study: "s", Number: 1, Kind: Sampled, State: Running, Params: a},
	}
	var scripts []*askScript
	w := &Worker{Name: "s", Seed: 1, MaxTrials: 10,
		NewStrategy: func(int64) (Strategy, error) {
			s := &askScript{cfgs: []space.Config{a, b}}
			scripts = append(scripts, s)
			return s, nil
		}}
	p, _, c, _, err := w.choose(context.Background(), trials, 2)
	if err != nil || c != Run {
		t.Fatalf("choose: %v, %v", c, err)
	}
	if p.Config.Key() != b.Key() || scripts[0].asked != 2 {
		t.Errorf("proposed %v after %d asks; want %v after 2 (%v is running)", p.Config, scripts[0].asked, b, a)
	}
	a2 := space.Config{"innodb_flush_log_at_trx_commit": "2", "innodb_doublewrite": "OFF"}
	trials = append(trials, Trial{Study: "s", Number: 2, Kind: Sampled, State: Running, Params: a2})
	for _, tc := range []struct {
		script *askScript
		want   space.Config
		asks   int
	}{
		{&askScript{cfgs: []space.Config{a}}, a, 2},                               // the same answer again
		{&askScript{cfgs: []space.Config{a, a2, a, a2, b}}, a2, 1 + reaskRunning}, // all running: the last
	} {
		w.NewStrategy = func(int64) (Strategy, error) { return tc.script, nil }
		p, _, _, _, err = w.choose(context.Background(), trials, 3)
		if err != nil || p.Config.Key() != tc.want.Key() || tc.script.asked != tc.asks {
			t.Errorf("script %v: proposed %v after %d asks (err %v); want %v after %d", tc.script.cfgs, p.Config, tc.script.asked, err, tc.want, tc.asks)
		}
	}
}

// TestWorkersConfirmANewBest: two workers share a study with --confirm 2;
// the configuration that beats the baseline is re-measured twice (by
// whichever worker claims next) before it counts, and becomes the
// study's confirmed best; configurations that do not beat it are not
// re-measured, and no re-measurement counts towards the cap.
func TestWorkersConfirmANewBest(t *testing.T) {
	good := space.Config{"innodb_flush_log_at_trx_commit": "2"}
	poor := []space.Config{
		{"innodb_doublewrite": "OFF"},
		{"innodb_io_capacity": "400"},
		{"innodb_io_capacity": "500"},
		{"innodb_io_capacity": "600"},
	}
	score := func(c space.Config) float64 {
		if c.Key() == good.Key() {
			return 150
		}
		if len(c) == 0 {
			return 100
		}
		return 90
	}
	m := &memClaims{owner: map[int]string{}, beat: map[int]time.Time{}, stale: time.Hour}
	var wg sync.WaitGroup
	for i := range 2 {
		w := &Worker{
			Name: "s", Seed: 3, Store: memWorkerStore{m: m, id: string(rune('a' + i))}, MaxTrials: 6,
			HeartbeatEvery: 10 * time.Millisecond, Confirm: &Confirmation{Repeats: 2},
			Objective: func(ctx context.Context, t Trial) (measure.Outcome, error) {
				time.Sleep(time.Duration(5+10*i) * time.Millisecond)
				v := score(t.Params)
				return measure.Outcome{Score: v, MeanTPS: v}, nil
			},
			// Each fresh strategy proposes the configurations not
			// measured or running yet, the good one first.
			NewStrategy: func(int64) (Strategy, error) {
				var todo []space.Config
				for _, c := range append([]space.Config{good}, poor...) {
					if !slices.ContainsFunc(m.trials, func(u Trial) bool { return u.Params.Key() == c.Key() }) {
						todo = append(todo, c)
					}
				}
				if len(todo) == 0 {
					todo = poor[:1]
				}
				return &askScript{cfgs: todo}, nil
			},
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := w.Run(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var cand Trial
	confirms, counted := 0, 0
	for _, u := range m.trials {
		switch {
		case u.Kind == Confirm:
			confirms++
			if u.Params.Key() != good.Key() {
				t.Errorf("trial %d confirms %v, want only %v confirmed", u.Number, u.Params, good)
			}
		case u.Params.Key() == good.Key():
			cand = u
		}
		if countsToCap(u) {
			counted++
		}
	}
	if cand.ConfirmNeeded != 2 {
		t.Fatalf("the good trial needs %d confirmations, want 2 (trials %v)", cand.ConfirmNeeded, m.trials)
	}
	for _, u := range m.trials {
		if u.Kind == Confirm && u.RepeatOf != cand.Number {
			t.Errorf("confirmation %d repeats trial %d, want %d", u.Number, u.RepeatOf, cand.Number)
		}
	}
	for _, u := range m.trials {
		t.Logf("%d %s %s %v %v-%v need %d of %d", u.Number, u.Kind, u.State, u.Params, u.Started.Format("05.000"), u.Ended.Format("05.000"), u.ConfirmNeeded, u.RepeatOf)
	}
	if confirms != 2 || counted != 6 {
		t.Fatalf("%d confirmations and %d trials towards the cap; want 2 and 6", confirms, counted)
	}
	best, _ := Best(m.trials)
	if best.Number != cand.Number || !EstimateOf(m.trials, best).Eligible {
		t.Fatalf("best is trial %d, want the confirmed trial %d", best.Number, cand.Number)
	}
}

// A candidate that ended while another worker's trial was running is
// still owed its confirmation after that trial ends; a confirmation
// another worker is running is not owed twice.
func TestFollowUpOfAnOverlappedCandidate(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	good := space.Config{"innodb_flush_log_at_trx_commit": "2"}
	trials := []Trial{
		{Number: 0, Kind: Baseline, State: Complete, Params: space.Config{}, Started: at(0), Ended: at(10), Outcome: measure.Outcome{Score: 100}},
		{Number: 1, Kind: Sampled, State: Complete, Params: good, Started: at(10), Ended: at(20), Outcome: measure.Outcome{Score: 150}, RepeatLink: RepeatLink{ConfirmNeeded: 1}},
		{Number: 2, Kind: Sampled, State: Complete, Params: space.Config{"innodb_doublewrite": "OFF"}, Started: at(12), Ended: at(25), Outcome: measure.Outcome{Score: 90}, RepeatLink: RepeatLink{ConfirmNeeded: 1}},
	}
	c := &Confirmation{Repeats: 1}
	p, rep, ok := c.followUp(trials, 0)
	if !ok || p.Kind != Confirm || rep.RepeatOf != 1 {
		t.Fatalf("follow-up %v %+v %v; want a confirmation of trial 1", p, rep, ok)
	}
	running := append(slices.Clone(trials), Trial{Number: 3, Kind: Confirm, State: Running, Params: good, Started: at(25), RepeatLink: RepeatLink{RepeatOf: 1}})
	if p, _, ok := c.followUp(running, 0); ok {
		t.Fatalf("follow-up %v owed while its confirmation runs", p)
	}
	// A search trial that started after the candidate ended closes it (a
	// single process confirms at once; one that did not owe it then owes
	// nothing later).
	later := append(slices.Clone(trials), Trial{Number: 3, Kind: Sampled, State: Complete, Params: space.Config{"innodb_io_capacity": "400"}, Started: at(25), Ended: at(35), Outcome: measure.Outcome{Score: 90}, RepeatLink: RepeatLink{ConfirmNeeded: 1}})
	if p, _, ok := c.followUp(later, 0); ok {
		t.Fatalf("follow-up %v owed for a closed trial", p)
	}
}
