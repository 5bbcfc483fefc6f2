package search

import (
	"context"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// kindScript proposes cfgs in order, the i-th with kinds[i] (Sampled past
// the end of kinds).
type kindScript struct {
	script
	kinds []Kind
}

func (s *kindScript) Ask(ctx context.Context) (Proposal, error) {
	i := s.next
	p, err := s.script.Ask(ctx)
	if err == nil && i < len(s.kinds) {
		p.Kind = s.kinds[i]
	}
	return p, err
}

// runWarmStudy runs a study whose first proposal is the expert warm start
// (config warm) and whose others are cfgs, measured from values (measured),
// with a final A/B phase of pairs rounds.
func runWarmStudy(t *testing.T, warm space.Config, cfgs []space.Config, values map[string][]float64, pairs int) Result {
	t.Helper()
	obj, _ := measured(values)
	s := &Loop{Name: "s", Strategy: &kindScript{script: script{cfgs: append([]space.Config{warm}, cfgs...)}, kinds: []Kind{Expert}},
		Objective: obj, Store: newMemStore(), MaxTrials: 2 + len(cfgs), Confirm: &Confirmation{ABPairs: pairs}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The final A/B phase measures the expert warm start as a third arm, in
// rounds whose order rotates (a Latin square: best, baseline, warm; then
// baseline, warm, best; then warm, best, baseline), and WarmStartGain
// pairs each round's best with its warm-start run.
func TestABPhaseMeasuresTheWarmStartInRotatedRounds(t *testing.T) {
	values := map[string][]float64{"base": {500}, "2": {550}, "0": {610, 600, 605, 600, 603, 598, 601, 600}}
	res := runWarmStudy(t, cfg("2"), []space.Config{cfg("0")}, values, 3)
	if res.Best.Params.Key() != cfg("0").Key() {
		t.Fatalf("best %v, want config 0", res.Best.Params)
	}
	var order []Kind
	for _, tr := range res.Trials {
		if tr.Kind == ABBest || tr.Kind == ABBase || tr.Kind == ABWarm {
			order = append(order, tr.Kind)
			if tr.Kind == ABWarm && tr.Params.Key() != cfg("2").Key() {
				t.Errorf("warm-start arm measures %v, want the warm start's %v", tr.Params, cfg("2"))
			}
		}
	}
	want := []Kind{ABBest, ABBase, ABWarm, ABBase, ABWarm, ABBest, ABWarm, ABBest, ABBase}
	if len(order) != len(want) {
		t.Fatalf("A/B runs %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("A/B runs %v, want %v", order, want)
		}
	}
	r := WarmStartGain(measure.GoalTPS, res.Trials, res.Best)
	if r.Status != RulesMeasured || r.Gain.Pairs != 3 {
		t.Fatalf("gain over the warm start: status %d, %d pairs; want measured from 3", r.Status, r.Gain.Pairs)
	}
	if r.Gain.Pct < 8 || r.Gain.Pct > 12 || !r.Gain.Significant {
		t.Errorf("gain over the warm start %+.1f %% (significant %v), want about +9.5 %%", r.Gain.Pct, r.Gain.Significant)
	}
	// The warm start's A/B runs do not count towards its estimate.
	for _, tr := range res.Trials {
		if tr.Kind == Expert {
			if e := EstimateOf(res.Trials, tr); e.N != 1 {
				t.Errorf("warm start's estimate pools %d runs, want its own 1", e.N)
			}
		}
	}
}

// WarmStartGain says why there is no gain over the rules: no warm start,
// the warm start is the best, or is the baseline's configuration (then the
// gain over the baseline is the one), with two arms only in those cases.
func TestWarmStartGainStatuses(t *testing.T) {
	values := map[string][]float64{"base": {500, 505, 498, 503, 499}, "2": {560, 555, 563, 557, 561}, "0": {520}}
	cases := []struct {
		name   string
		warm   space.Config
		others []space.Config
		want   RulesStatus
	}{
		{"warm start is the best", cfg("2"), []space.Config{cfg("0")}, RulesAreBest},
		{"warm start is the baseline", space.Config{}, []space.Config{cfg("2")}, RulesAreBaseline},
	}
	for _, c := range cases {
		res := runWarmStudy(t, c.warm, c.others, values, 2)
		r := WarmStartGain(measure.GoalTPS, res.Trials, res.Best)
		if r.Status != c.want {
			t.Errorf("%s: status %d, want %d", c.name, r.Status, c.want)
		}
		for _, tr := range res.Trials {
			if tr.Kind == ABWarm {
				t.Errorf("%s: trial %d measures a warm-start arm, want two arms only", c.name, tr.Number)
			}
		}
	}
	obj, _ := measured(values)
	s := &Loop{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("2")}}, Objective: obj, Store: newMemStore(),
		MaxTrials: 2, Confirm: &Confirmation{ABPairs: 2}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r := WarmStartGain(measure.GoalTPS, res.Trials, res.Best); r.Status != RulesNone {
		t.Errorf("without a warm start: status %d, want RulesNone", r.Status)
	}
	if r := WarmStartGain(measure.GoalTPS, res.Trials[:1], res.Best); r.Status != RulesNone {
		t.Errorf("without a warm start: status %d, want RulesNone", r.Status)
	}
}

// abHistory is a study's trials before its final phase: the baseline (0),
// the warm start (1, config "2") and the best (2, config "0"), each 10
// minutes long, then the final runs of kinds, their states given by states
// (Complete where states is short), each of trial 2.
func abHistory(kinds []Kind, states map[int]State) []Trial {
	t0 := time.Unix(0, 0)
	tr := func(n int, k Kind, p space.Config, v float64, of int) Trial {
		start := t0.Add(time.Duration(n) * 10 * time.Minute)
		return Trial{Number: n, Kind: k, State: Complete, Params: p, Started: start, Ended: start.Add(10 * time.Minute),
			Outcome: measure.Outcome{Score: v, MeanTPS: v}, RepeatLink: RepeatLink{RepeatOf: of}}
	}
	trials := []Trial{tr(0, Baseline, space.Config{}, 500, 0), tr(1, Expert, cfg("2"), 550, 0), tr(2, Sampled, cfg("0"), 600, 0)}
	value := map[Kind]float64{ABBest: 600, ABBase: 500, ABWarm: 550}
	params := map[Kind]space.Config{ABBest: cfg("0"), ABBase: {}, ABWarm: cfg("2")}
	for i, k := range kinds {
		t := tr(3+i, k, params[k], value[k]*(1+0.01*float64(i%3)), 2)
		if s, ok := states[i]; ok {
			t.State = s
			if s != Complete {
				t.Score, t.MeanTPS = 0, 0
			}
		}
		trials = append(trials, t)
	}
	return trials
}

// nextKind returns the kind of the next final run (or "" when the phase
// is over) with left of the budget (0: no budget).
func nextKind(t *testing.T, c *Confirmation, trials []Trial, left time.Duration) Kind {
	t.Helper()
	budget := time.Duration(0)
	if left > 0 {
		budget = 100 * time.Hour
	}
	p, _, ok := c.nextAB(trials, measure.GoalTPS, budget, left, false)
	if !ok {
		return ""
	}
	return p.Kind
}

// A phase begun with two arms (a study resumed from one whose final phase
// had no third arm) keeps two; one that measured the warm start in its
// first round keeps three.
func TestABPhaseKeepsTheArmsItBeganWith(t *testing.T) {
	c := &Confirmation{ABPairs: 3}
	two := abHistory([]Kind{ABBest, ABBase, ABBase}, nil)
	if k := nextKind(t, c, two, 0); k != ABBest {
		t.Fatalf("phase begun A B B: next %q, want ab-best (two arms)", k)
	}
	three := abHistory([]Kind{ABBest, ABBase, ABWarm}, nil)
	if k := nextKind(t, c, three, 0); k != ABBase {
		t.Fatalf("phase begun A B W: next %q, want ab-base (the second round starts with it)", k)
	}
	if k := nextKind(t, c, abHistory([]Kind{ABBest, ABBase}, nil), 0); k != ABWarm {
		t.Fatalf("phase at A B: next %q, want ab-warm", k)
	}
}

// A run interrupted in its round is measured again in that round, and the
// pairing of the rounds after it is unchanged: the interrupted run is no
// member of any pair.
func TestRoundPairsSkipUnfinishedRuns(t *testing.T) {
	kinds := []Kind{ABBest, ABBase, ABWarm, ABBase, ABWarm, ABWarm, ABBest, ABWarm, ABBest, ABBase}
	trials := abHistory(kinds, map[int]State{4: Interrupted})
	// Round 2 (B W A) had its warm run interrupted and measured again.
	pairs := roundPairs(measure.GoalTPS, trials, 2, ABBest, ABWarm)
	if len(pairs) != 3 {
		t.Fatalf("%d best/warm pairs, want 3: %+v", len(pairs), pairs)
	}
	for i, p := range pairs {
		if p.A < 590 || p.B > 570 {
			t.Errorf("pair %d %+v mixes arms", i, p)
		}
	}
	if got := len(ABPairs(measure.GoalTPS, trials, 2)); got != 3 {
		t.Errorf("%d best/baseline pairs, want 3", got)
	}
	if k := nextKind(t, &Confirmation{ABPairs: 3}, trials[:8], 0); k != ABWarm {
		t.Errorf("after the interrupted warm run: next %q, want ab-warm again", k)
	}
}

// The warm start's arm is dropped when its runs keep failing, and the
// phase goes on with the best and the baseline; it is left out before its
// first run when the rest of the budget cannot hold it.
func TestABPhaseDropsTheWarmArm(t *testing.T) {
	c := &Confirmation{ABPairs: 2}
	failing := abHistory([]Kind{ABBest, ABBase, ABWarm, ABBase, ABWarm, ABBest, ABWarm},
		map[int]State{2: Failed, 4: Failed, 6: Failed})
	if k := nextKind(t, c, failing, 0); k != "" {
		// Two rounds of best and baseline are done; the warm arm failed 3 times.
		t.Fatalf("warm arm failed 3 times in 2 rounds: next %q, want the phase over", k)
	}
	// 25 minutes left at 10 minutes a run: a round of the two arms left
	// fits, a round of three would not.
	if p, _, ok := c.nextAB(failing, measure.GoalTPS, 100*time.Hour, 25*time.Minute, true); !ok || p.Kind != ABBest {
		t.Fatalf("warm arm dropped, budget for another round of two: next %v %q, want ab-best (two arms, round 3: A B)", ok, p.Kind)
	}
	if _, _, ok := c.nextAB(failing, measure.GoalTPS, 100*time.Hour, 15*time.Minute, true); ok {
		t.Fatal("warm arm dropped, 15 minutes left at 10 a run: another round began")
	}
	if g, ok := ABGain(measure.GoalTPS, failing, 2); !ok || g.Pairs != 2 {
		t.Fatalf("gain over the baseline lost with the warm arm: %+v %v", g, ok)
	}
	fresh := abHistory(nil, nil)
	// 2 rounds at 10 minutes a run: 60 minutes for three arms, 40 for two.
	if k := nextKind(t, c, fresh, 45*time.Minute); k != ABBest {
		t.Fatalf("45m left: first run %q, want ab-best", k)
	}
	if k := nextKind(t, c, append(fresh, abHistory([]Kind{ABBest, ABBase}, nil)[3:]...), 25*time.Minute); k != ABBase {
		t.Fatalf("25m left after A B: next %q, want ab-base (two arms: B A)", k)
	}
	if k := nextKind(t, c, append(fresh, abHistory([]Kind{ABBest, ABBase}, nil)[3:]...), 55*time.Minute); k != ABWarm {
		t.Fatalf("55m left after A B: next %q, want ab-warm", k)
	}
}

// Whether the rest of the budget holds the warm start's arm is judged at
// the median trial cost, as the rounds will run, not at the pessimistic
// upper quartile the reserve is held at (slow confirmations there left
// the arm out of a phase whose budget then held its rounds).
func TestABPhaseKeepsTheWarmArmAtTheMedianCost(t *testing.T) {
	c := &Confirmation{ABPairs: 2}
	hist := abHistory(nil, nil)
	for i, d := range []time.Duration{30, 30, 10, 10} {
		start := hist[len(hist)-1].Ended
		hist = append(hist, Trial{Number: 3 + i, Kind: Confirm, State: Complete, Params: cfg("0"), Started: start,
			Ended: start.Add(d * time.Minute), Outcome: measure.Outcome{Score: 600, MeanTPS: 600}, RepeatLink: RepeatLink{RepeatOf: 2}})
	}
	if per, cost := estimate(hist), finalRunCost(hist, estimate(hist)); per != 10*time.Minute || cost != 30*time.Minute {
		t.Fatalf("median %s, upper quartile %s: want 10m and 30m (the case under test)", per, cost)
	}
	// 55 minutes: two rounds of three at 10 minutes a run fit at 2.5 runs
	// a round (50), not at the upper quartile's 30 (150).
	for _, k := range []Kind{ABBest, ABBase} {
		p, _, ok := c.nextAB(hist, measure.GoalTPS, 100*time.Hour, 55*time.Minute, false)
		if !ok || p.Kind != k {
			t.Fatalf("next %v %q, want %q", ok, p.Kind, k)
		}
		start := hist[len(hist)-1].Ended
		hist = append(hist, Trial{Number: len(hist), Kind: k, State: Complete, Params: p.Config, Started: start,
			Ended: start.Add(30 * time.Minute), Outcome: measure.Outcome{Score: 600, MeanTPS: 600}, RepeatLink: RepeatLink{RepeatOf: 2}})
	}
	if p, _, ok := c.nextAB(hist, measure.GoalTPS, 100*time.Hour, 55*time.Minute, false); !ok || p.Kind != ABWarm {
		t.Fatalf("after A B: next %v %q, want ab-warm", ok, p.Kind)
	}
}
