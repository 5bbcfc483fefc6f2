package search

import (
	"context"
	"testing"

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
	s := &Study{Name: "s", Strategy: &kindScript{script: script{cfgs: append([]space.Config{warm}, cfgs...)}, kinds: []Kind{Expert}},
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
	r := WarmStartGain(GoalTPS, res.Trials, res.Best)
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
		r := WarmStartGain(GoalTPS, res.Trials, res.Best)
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
	s := &Study{Name: "s", Strategy: &script{cfgs: []space.Config{cfg("2")}}, Objective: obj, Store: newMemStore(),
		MaxTrials: 2, Confirm: &Confirmation{ABPairs: 2}}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r := WarmStartGain(GoalTPS, res.Trials, res.Best); r.Status != RulesNone {
		t.Errorf("without a warm start: status %d, want RulesNone", r.Status)
	}
	if r := WarmStartGain(GoalTPS, res.Trials[:1], res.Best); r.Status != RulesNone {
		t.Errorf("without a warm start: status %d, want RulesNone", r.Status)
	}
}
