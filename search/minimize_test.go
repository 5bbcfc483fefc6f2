package search

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// tenChanges is a best configuration changing 10 knobs of space.Default()
// from their defaults, none linked to another by the space's repair; in
// twoMatter only the first two change the throughput.
var tenChanges = space.Config{
	"innodb_buffer_pool_size":    "1073741824", // matters: +40 %
	"innodb_flush_neighbors":     "0",          // matters: +25 %
	"innodb_sync_spin_loops":     "114",
	"innodb_purge_batch_size":    "17",
	"innodb_old_blocks_pct":      "50",
	"innodb_read_io_threads":     "8",
	"innodb_write_io_threads":    "8",
	"innodb_lru_scan_depth":      "1024",
	"innodb_adaptive_hash_index": "ON",
	"innodb_spin_wait_delay":     "10",
}

// twoMatter is a synthetic objective in which, of tenChanges, only the
// buffer pool (+40 %) and innodb_flush_neighbors=0 (+25 %) change the
// throughput (500 tps at the defaults), every run with multiplicative
// noise of cv (a share: 0.06 is this machine's 6 % run-to-run noise,
// docs/measurement.md) from a generator seeded with seed.
func twoMatter(seed uint64, cv float64) Objective {
	rng := rand.New(rand.NewPCG(seed, 7))
	var mu sync.Mutex
	return func(ctx context.Context, t Trial) (measure.Outcome, error) {
		if err := ctx.Err(); err != nil {
			return measure.Outcome{}, err
		}
		tps := 500.0
		if t.Params["innodb_buffer_pool_size"] == "1073741824" {
			tps *= 1.40
		}
		if t.Params["innodb_flush_neighbors"] == "0" {
			tps *= 1.25
		}
		mu.Lock()
		tps *= math.Exp(cv * rng.NormFloat64())
		mu.Unlock()
		return measure.Outcome{Score: tps, MeanTPS: tps, Restarted: true}, nil
	}
}

// oneChangeEach returns configurations that each make one change of cfg,
// then cfg itself: a study whose importance estimate sees every knob.
func oneChangeEach(cfg space.Config) []space.Config {
	var out []space.Config
	for _, n := range cfg.Names() {
		out = append(out, space.Config{n: cfg[n]})
	}
	return append(out, cfg.Clone())
}

// minimizeStudy returns a study over obj that measures the baseline, one
// change of tenChanges at a time, then all ten, confirms the best twice,
// runs 3 final A/B pairs and then minimises the best.
func minimizeStudy(store Store, obj Objective) *Loop {
	cfgs := oneChangeEach(tenChanges)
	return &Loop{Name: "s", Strategy: &script{cfgs: cfgs}, Objective: obj, Store: store, MaxTrials: 1 + len(cfgs),
		Confirm:  &Confirmation{Repeats: 2, ABPairs: 3},
		Minimize: &Minimization{Pairs: DefaultMinimizePairs, Share: DefaultMinimizeShare, Space: space.Default()}}
}

func keptKnobs(m Minimized) []string {
	var out []string
	for _, s := range m.KeptSteps() {
		out = append(out, s.Knobs...)
	}
	slices.Sort(out)
	return out
}

// Of ten changed knobs only two matter: the minimisation keeps exactly
// those two (and none of the eight others), with noise at this machine's
// level (6 % per run), for several seeds; the minimal configuration is the
// baseline plus the two, and the final check does not show it worse.
func TestMinimizeKeepsTheTwoThatMatter(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			store := newMemStore()
			s := minimizeStudy(store, twoMatter(seed, 0.06))
			res, err := s.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Best.Params.Key() != tenChanges.Key() {
				t.Fatalf("best = %v, want the ten changes", res.Best.Params)
			}
			m := Minimize(res.Trials, s.Minimize, measure.GoalTPS)
			if !m.Done || !m.Accepted || m.Changes != 10 {
				t.Fatalf("done %v accepted %v changes %d, want done, accepted, 10; steps %+v check %+v", m.Done, m.Accepted, m.Changes, m.Steps, m.Check)
			}
			want := []string{"innodb_buffer_pool_size", "innodb_flush_neighbors"}
			if got := keptKnobs(m); !reflect.DeepEqual(got, want) {
				t.Fatalf("kept %v, want %v; steps:\n%s", got, want, stepsText(m))
			}
			wantCfg := space.Config{"innodb_buffer_pool_size": "1073741824", "innodb_flush_neighbors": "0"}
			if m.Config.Key() != wantCfg.Key() {
				t.Fatalf("minimal config %v, want %v", m.Config, wantCfg)
			}
			for _, st := range m.KeptSteps() {
				if st.Status != MinKept || !(st.LoPct > 0) || st.Pairs < DefaultMinimizePairs || st.Pairs > MaxStepPairsFactor*DefaultMinimizePairs {
					t.Fatalf("kept step %+v: want kept with an interval above 0 from %d to %d pairs", st, DefaultMinimizePairs, MaxStepPairsFactor*DefaultMinimizePairs)
				}
			}
			// The cost: every finished minimisation run is a step's or the
			// final check's.
			runs := 0
			for _, tr := range res.Trials {
				if tr.Kind.Minimizing() {
					runs++
					if tr.RepeatOf != res.Best.Number {
						t.Fatalf("trial %d (%s) repeats %d, want the best %d", tr.Number, tr.Kind, tr.RepeatOf, res.Best.Number)
					}
				}
			}
			stepPairs := 0
			for _, st := range m.Steps {
				stepPairs += st.Pairs
			}
			if runs != m.Runs || runs != 2*(stepPairs+DefaultMinimizePairs) {
				t.Fatalf("%d minimisation runs (state %d), want 2 x (%d pairs of the steps + %d of the check)", runs, m.Runs, stepPairs, DefaultMinimizePairs)
			}
			// The best is still the best: minimisation runs never pool into
			// an estimate.
			if b, _ := Best(res.Trials); b.Number != res.Best.Number {
				t.Fatalf("best changed to %d", b.Number)
			}
		})
	}
}

func stepsText(m Minimized) string {
	s := ""
	for _, st := range m.Steps {
		s += StepText(st, measure.GoalTPS) + "\n"
	}
	if m.Check != nil {
		s += CheckText(m, measure.GoalTPS) + "\n"
	}
	return s
}

// Without noise and with nothing that matters, everything is reverted
// and the minimal configuration is the baseline's; the test of the rule's
// other side.
func TestMinimizeRevertsWhatDoesNotPay(t *testing.T) {
	store := newMemStore()
	flat := func(ctx context.Context, tr Trial) (measure.Outcome, error) {
		v := 500 * (1 + 0.01*float64(tr.Number%3))
		if tr.Params.Key() == tenChanges.Key() && tr.Kind == Sampled {
			v = 600 // a lucky first measurement made it the candidate
		}
		return measure.Outcome{Score: v, MeanTPS: v, Restarted: true}, nil
	}
	s := minimizeStudy(store, flat)
	s.Confirm = nil // the lucky measurement stands: the best is the ten changes
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := Minimize(res.Trials, s.Minimize, measure.GoalTPS)
	if res.Best.Params.Key() != tenChanges.Key() {
		t.Fatalf("best %v", res.Best.Params)
	}
	if len(keptKnobs(m)) != 0 || len(m.Config) != 0 || !m.Done {
		t.Fatalf("kept %v, config %v, done %v; want nothing kept:\n%s", keptKnobs(m), m.Config, m.Done, stepsText(m))
	}
}

// Dependent knobs form one group, derived from the space's repair rules:
// io capacity with its maximum, thread handling with the pool size; and
// a minimisation never measures one of them reverted without the other.
func TestMinimizeRevertsDependentKnobsTogether(t *testing.T) {
	sp := space.Lookup()
	best := space.Config{
		"innodb_io_capacity": "3000", "innodb_io_capacity_max": "6000",
		"thread_handling": "pool-of-threads", "thread_pool_size": "28",
		"innodb_sync_spin_loops": "114",
	}
	changed := changedKnobs(sp, best, space.Config{})
	got := DependencyGroups(sp, best, space.Config{}, changed)
	want := [][]string{{"thread_handling", "thread_pool_size"}, {"innodb_sync_spin_loops"}, {"innodb_io_capacity", "innodb_io_capacity_max"}}
	norm := func(gs [][]string) []string {
		var out []string
		for _, g := range gs {
			out = append(out, slices.Sorted(slices.Values(g))...)
			out = append(out, "|")
		}
		return out
	}
	gotN, wantN := norm(got), norm(want)
	slices.Sort(gotN)
	slices.Sort(wantN)
	if len(got) != 3 || !reflect.DeepEqual(gotN, wantN) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	for _, g := range got {
		if slices.Contains(g, "innodb_io_capacity") != slices.Contains(g, "innodb_io_capacity_max") ||
			slices.Contains(g, "thread_handling") != slices.Contains(g, "thread_pool_size") {
			t.Fatalf("group %v splits a dependent pair", g)
		}
	}

	// In a study: every reverted configuration reverts both or neither.
	store := newMemStore()
	obj := func(ctx context.Context, tr Trial) (measure.Outcome, error) {
		v := 500.0
		if tr.Params["thread_handling"] == "pool-of-threads" {
			v = 700
		}
		v *= 1 + 0.01*float64(tr.Number%2)
		return measure.Outcome{Score: v, MeanTPS: v, Restarted: true}, nil
	}
	s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{best}}, Objective: obj, Store: store, MaxTrials: 2,
		Minimize: &Minimization{Pairs: 2, Space: sp}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	nRevert := 0
	for _, tr := range res.Trials {
		if tr.Kind != MinRevert {
			continue
		}
		nRevert++
		_, c := tr.Params["innodb_io_capacity"]
		_, cm := tr.Params["innodb_io_capacity_max"]
		_, h := tr.Params["thread_handling"]
		_, ps := tr.Params["thread_pool_size"]
		if c != cm || h != ps {
			t.Fatalf("trial %d reverts one knob of a dependent pair: %v", tr.Number, tr.Params)
		}
	}
	m := Minimize(res.Trials, s.Minimize, measure.GoalTPS)
	if nRevert == 0 || !m.Done || keptKnobs(m) == nil || !slices.Equal(keptKnobs(m), []string{"thread_handling", "thread_pool_size"}) {
		t.Fatalf("%d revert runs, done %v, kept %v; want thread handling and pool size kept:\n%s", nRevert, m.Done, keptKnobs(m), stepsText(m))
	}
}

// A minimisation killed mid-way resumes where it stopped: the steps
// decided before the kill are decided alike after it, no finished run is
// measured again, and it ends with the same result as when left alone.
func TestMinimizeResumes(t *testing.T) {
	full := newMemStore()
	ref := minimizeStudy(full, twoMatter(11, 0.06))
	if _, err := ref.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	refTrials, _ := full.Trials(context.Background(), "s")
	refState := Minimize(refTrials, ref.Minimize, measure.GoalTPS)

	// Replay the same measurements (by trial number) and kill a
	// minimisation run part-way through the second step.
	killAt := 2*refState.Steps[0].Pairs + 3
	byNumber := map[int]measure.Outcome{}
	for _, tr := range refTrials {
		byNumber[tr.Number] = tr.Outcome
	}
	store := newMemStore()
	ctx, cancel := context.WithCancel(context.Background())
	minRuns := 0
	killed := -1
	obj := func(c context.Context, tr Trial) (measure.Outcome, error) {
		if tr.Kind.Minimizing() {
			minRuns++
			if minRuns == killAt {
				killed = tr.Number
				cancel()
				return measure.Outcome{}, c.Err()
			}
		}
		return byNumber[tr.Number], nil
	}
	s := minimizeStudy(store, obj)
	if _, err := s.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want cancelled", err)
	}
	store.markInterrupted()
	before, _ := store.Trials(context.Background(), "s")
	mid := Minimize(before, s.Minimize, measure.GoalTPS)
	if mid.Done || len(mid.Steps) == 0 {
		t.Fatalf("killed minimisation: done %v with %d steps; want part-way", mid.Done, len(mid.Steps))
	}
	// The resumed run measures what the uninterrupted one measured at
	// each number, shifted by the interrupted trial.
	resumeObj := func(c context.Context, tr Trial) (measure.Outcome, error) { return byNumber[tr.Number-1], nil }
	s2 := minimizeStudy(store, resumeObj)
	s2.Strategy = &script{}
	res, err := s2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	after := Minimize(res.Trials, s2.Minimize, measure.GoalTPS)
	if !reflect.DeepEqual(after.Steps[:len(mid.Steps)], mid.Steps) {
		t.Fatalf("steps before the kill changed:\n%s\nvs\n%s", stepsText(mid), stepsText(after))
	}
	if !reflect.DeepEqual(after.Steps, refState.Steps) || after.Config.Key() != refState.Config.Key() || after.Accepted != refState.Accepted {
		t.Fatalf("resumed result differs from the uninterrupted one:\n%s\nvs\n%s", stepsText(after), stepsText(refState))
	}
	if after.Runs != refState.Runs {
		t.Fatalf("resumed minimisation took %d finished runs, the uninterrupted one %d", after.Runs, refState.Runs)
	}
	for _, tr := range res.Trials {
		if tr.Number == killed && tr.State != Interrupted {
			t.Fatalf("killed trial %d is %s", killed, tr.State)
		}
	}
}

// With a budget, the plan holds the minimisation's share back and says
// so; a share too small for a step and the final check turns it off, and
// the plan says that too. The study never overruns its budget.
// budgetStudy is minimizeStudy with a 200-minute budget and no trial
// cap: the n-th trial (from 1) costs cost(n) on the study's clock, the
// minimisation holds share of the budget, the strategy proposes the ten
// one-change configurations rounds times over, and every plan is
// appended to plans.
func budgetStudy(cost func(n int) time.Duration, share float64, rounds int, plans *[]Plan) *Loop {
	now := time.Unix(0, 0)
	obj := twoMatter(3, 0.06)
	n := 0
	s := minimizeStudy(newMemStore(), func(c context.Context, tr Trial) (measure.Outcome, error) {
		n++
		now = now.Add(cost(n))
		return obj(c, tr)
	})
	s.Now = func() time.Time { return now }
	s.MaxTrials, s.Budget, s.Minimize.Share = 0, 200*time.Minute, share
	var cfgs []space.Config
	for i := 0; i < rounds; i++ {
		cfgs = append(cfgs, oneChangeEach(tenChanges)...)
	}
	s.Strategy = &script{cfgs: cfgs}
	s.OnPlan = func(p Plan) { *plans = append(*plans, p) }
	return s
}

func TestMinimizePlan(t *testing.T) {
	for _, tc := range []struct {
		share float64
		on    bool
	}{{0.25, true}, {0.01, false}} {
		var plans []Plan
		s := budgetStudy(func(int) time.Duration { return time.Minute }, tc.share, 20, &plans)
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(plans) == 0 || plans[0].Minimize == nil || plans[0].Minimize.On != tc.on {
			t.Fatalf("share %g: plan %+v, want minimisation on=%v", tc.share, plans, tc.on)
		}
		ran := slices.ContainsFunc(res.Trials, func(tr Trial) bool { return tr.Kind.Minimizing() })
		if ran != tc.on {
			t.Fatalf("share %g: minimisation ran %v, want %v", tc.share, ran, tc.on)
		}
		if res.Spent > s.Budget {
			t.Fatalf("spent %s of %s", res.Spent, s.Budget)
		}
		// Once the final phases begin, no search trial comes between
		// their runs.
		final := false
		for _, tr := range res.Trials {
			switch {
			case tr.Kind == ABBest || tr.Kind == ABBase || tr.Kind.Minimizing():
				final = true
			case final:
				t.Fatalf("share %g: %s trial %d after the final phases began", tc.share, tr.Kind, tr.Number)
			}
		}
		txt := plans[0].String()
		want := "then the best is minimised"
		if !tc.on {
			want = "the best is not minimised"
		}
		if !strings.Contains(txt, want) {
			t.Fatalf("plan text lacks %q:\n%s", want, txt)
		}
		if p := plans[0]; tc.on && (p.Reserve < p.Minimize.Runs || !strings.Contains(txt, "reserved for confirmation and minimisation")) {
			t.Fatalf("plan reserves %d runs, the minimisation's share %d:\n%s", p.Reserve, p.Minimize.Runs, txt)
		}
		if tc.on {
			m := Minimize(res.Trials, s.Minimize, measure.GoalTPS)
			if !m.Done {
				t.Fatalf("minimisation not done within its share:\n%s", stepsText(m))
			}
		}
	}
}

// A change whose revert the server refuses (here: the configuration
// without innodb_flush_neighbors=0 fails) cannot be measured reverted: it
// is kept, marked unmeasured, and the block it was in is tried one group
// at a time; the changes that do not matter are still reverted.
func TestMinimizeKeepsWhatCannotBeReverted(t *testing.T) {
	store := newMemStore()
	inner := twoMatter(9, 0.06)
	obj := func(ctx context.Context, tr Trial) (measure.Outcome, error) {
		if tr.Kind == MinRevert && tr.Params["innodb_flush_neighbors"] != "0" {
			return measure.Outcome{Failure: "server refused the configuration"}, nil
		}
		return inner(ctx, tr)
	}
	s := minimizeStudy(store, obj)
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := Minimize(res.Trials, s.Minimize, measure.GoalTPS)
	if !m.Done || !m.Accepted {
		t.Fatalf("done %v accepted %v:\n%s", m.Done, m.Accepted, stepsText(m))
	}
	want := []string{"innodb_buffer_pool_size", "innodb_flush_neighbors"}
	if got := keptKnobs(m); !reflect.DeepEqual(got, want) {
		t.Fatalf("kept %v, want %v:\n%s", got, want, stepsText(m))
	}
	unmeasured := false
	for _, st := range m.Steps {
		if st.Status == MinUnmeasured && reflect.DeepEqual(st.Knobs, []string{"innodb_flush_neighbors"}) {
			unmeasured = true
		}
	}
	if !unmeasured {
		t.Fatalf("innodb_flush_neighbors not kept as unmeasured:\n%s", stepsText(m))
	}
}

func TestLeadKnobIsTheMostImportant(t *testing.T) {
	for _, tc := range []struct {
		knobs []string
		share map[string]float64
		want  string
	}{
		{[]string{"innodb_log_file_size", "innodb_buffer_pool_size"}, map[string]float64{"innodb_buffer_pool_size": 0.7, "innodb_log_file_size": 0.1}, "innodb_buffer_pool_size"},
		{[]string{"innodb_io_capacity", "innodb_io_capacity_max"}, map[string]float64{}, "innodb_io_capacity"},
		{[]string{"a", "b", "c"}, map[string]float64{"b": 0.2, "c": 0.2}, "b"},
	} {
		if got := leadKnob(tc.knobs, tc.share); got != tc.want {
			t.Errorf("leadKnob(%v, %v) = %s, want %s", tc.knobs, tc.share, got, tc.want)
		}
	}
}

// The minimisation is decided once, by the first plan with a measured
// trial cost: trials that get cheaper afterwards (so that its share
// would hold a step and the check) neither switch it on nor stop the
// search early for it, and the budget goes to the search and the final
// A/B runs.
func TestMinimizeDecisionIsKept(t *testing.T) {
	var plans []Plan
	// 2 min for the first three trials, then 80 s: the share of 0.075 x
	// 200 min holds 7 runs at first (fewer than the 8 a step and the
	// check need), 11 later.
	s := budgetStudy(func(n int) time.Duration {
		if n <= 3 {
			return 2 * time.Minute
		}
		return 80 * time.Second
	}, 0.075, 30, &plans)
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range plans {
		if p.Minimize == nil || p.Minimize.On {
			t.Fatalf("plan %d: minimisation %+v, want off as the first plan decided", i, p.Minimize)
		}
	}
	if slices.ContainsFunc(res.Trials, func(tr Trial) bool { return tr.Kind.Minimizing() }) {
		t.Fatal("a minimisation ran")
	}
	if left := s.Budget - res.Spent; left > 3*80*time.Second {
		t.Fatalf("%s of the budget left unused (a trial costs 80 s)", left)
	}
}

// A step whose cost leans above 0 (more than one standard error) without
// its interval clearing 0 measures another pair rather than reverting the
// change, up to MaxStepPairsFactor times the pairs; a step near 0 decides
// after its pairs.
func TestMinimizeStepExtendsWhenItLeans(t *testing.T) {
	pool := space.Config{"innodb_buffer_pool_size": "1073741824"}
	n := 0
	run := func(k Kind, p space.Config, tps float64) Trial {
		tr := Trial{Number: n, Kind: k, State: Complete, Params: p, Outcome: measure.Outcome{Score: tps, MeanTPS: tps}}
		if k.Extra() {
			tr.RepeatOf = 1
			if k == Recheck {
				tr.RepeatOf = 0
			}
		}
		n++
		return tr
	}
	m := &Minimization{Pairs: 2, Space: space.Default()}
	// The baseline varies by about 18 % from run to run, as a disk-bound
	// 128M pool did on this machine.
	trials := []Trial{run(Baseline, space.Config{}, 500), run(Sampled, pool, 750), run(Recheck, space.Config{}, 600), run(Recheck, space.Config{}, 420)}
	trials = append(trials, run(MinCurrent, pool, 800), run(MinRevert, space.Config{}, 640), run(MinRevert, space.Config{}, 560), run(MinCurrent, pool, 720))
	st := Minimize(trials, m, measure.GoalTPS)
	if st.Done || len(st.Steps) != 0 {
		t.Fatalf("after 2 pairs at +25 %% each: done %v, steps:\n%s\nwant the step still measuring", st.Done, stepsText(st))
	}
	p, rep, ok := m.next(trials, measure.GoalTPS, math.MaxInt)
	if !ok || (p.Kind != MinCurrent && p.Kind != MinRevert) || rep.RepeatOf != 1 {
		t.Fatalf("next after 2 leaning pairs: %v %+v %v; want a third pair of the step", p.Kind, rep, ok)
	}
	// No room in the budget for another pair and the final check: it
	// decides on the pairs it has (the change is reverted, as before).
	if _, _, ok := m.next(trials, measure.GoalTPS, 3); ok {
		t.Fatalf("with 3 runs left, the step asked for more")
	}
	trials = append(trials, run(MinCurrent, pool, 900), run(MinRevert, space.Config{}, 500), run(MinRevert, space.Config{}, 500), run(MinCurrent, pool, 850))
	st = Minimize(trials, m, measure.GoalTPS)
	kept := st.KeptSteps()
	if len(kept) != 1 || kept[0].Pairs < 3 || !(kept[0].LoPct > 0) {
		t.Fatalf("after more pairs: steps\n%s\nwant the pool kept on 3 or more pairs", stepsText(st))
	}
	if !st.Done || !st.Accepted {
		t.Fatalf("done %v accepted %v; want done (nothing reverted: no check)", st.Done, st.Accepted)
	}

	// Near 0: decided (reverted) after the 2 pairs.
	n = 0
	flat := []Trial{run(Baseline, space.Config{}, 500), run(Sampled, pool, 750), run(Recheck, space.Config{}, 600), run(Recheck, space.Config{}, 420)}
	flat = append(flat, run(MinCurrent, pool, 600), run(MinRevert, space.Config{}, 610), run(MinRevert, space.Config{}, 590), run(MinCurrent, pool, 600))
	st = Minimize(flat, m, measure.GoalTPS)
	if len(st.Steps) != 1 || st.Steps[0].Status != MinReverted || st.Steps[0].Pairs != 2 {
		t.Fatalf("near 0: steps\n%s\nwant reverted after 2 pairs", stepsText(st))
	}
}

// A minimisation whose first step splits its block (two of the three
// changes pay) and whose next step and final check then no longer fit
// stops short of done; the rest of the budget goes to more A/B rounds
// after it, not unused.
func TestStudyABPhaseTakesTheRestWhenTheMinimisationStopsShort(t *testing.T) {
	var plans []Plan
	s := budgetStudy(func(int) time.Duration { return time.Minute }, 0.045, 0, &plans)
	three := space.Config{"innodb_buffer_pool_size": "1073741824", "innodb_flush_neighbors": "0", "innodb_sync_spin_loops": "114"}
	var cfgs []space.Config
	for range 60 {
		cfgs = append(cfgs, oneChangeEach(three)...)
	}
	s.Strategy = &script{cfgs: cfgs}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := Minimize(res.Trials, s.Minimize, measure.GoalTPS)
	if m.Runs == 0 || m.Done {
		t.Fatalf("minimisation of %d runs, done %v; want one that began and stopped short (the case under test):\n%s", m.Runs, m.Done, stepsText(m))
	}
	last := -1
	for i, tr := range res.Trials {
		if tr.Kind.Minimizing() {
			last = i
		}
	}
	after := abCount(res.Trials[last+1:])
	if left := s.Budget - res.Spent; after == 0 || left >= 2*time.Minute {
		t.Fatalf("%d A/B runs after the minimisation, %s of the budget unused; want A/B rounds taking the rest (a run costs 1 min):\n%s", after, left, stepsText(m))
	}
}
