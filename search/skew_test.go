package search

import (
	"context"
	"strings"
	"testing"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// runSkewStudy runs a study of config "2" against the baseline, with
// values under the study's workload and skewValues under the variant
// "--rand-type=uniform", a final A/B phase of 4 pairs and the skew
// check; store keeps the trials (nil: a new one).
func runSkewStudy(t *testing.T, values, skewValues map[string][]float64, store *memStore) (Result, []Standing, *script) {
	t.Helper()
	obj, _ := measured(values)
	skewObj, _ := measured(skewValues)
	if store == nil {
		store = newMemStore()
	}
	strat := &script{cfgs: []space.Config{cfg("2")}}
	var events []Standing
	s := &Loop{Name: "s", Strategy: strat, Objective: obj, Store: store, MaxTrials: 2,
		Confirm: &Confirmation{ABPairs: 4}, Skew: &SkewCheck{Label: "--rand-type=uniform", Objective: skewObj},
		OnTrial: func(e Standing) { events = append(events, e) }}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, events, strat
}

// The skew check runs after the final A/B phase: as many interleaved
// pairs of the best and the baseline, in alternating order, each
// measured by the variant's objective and labelled with it; both gains
// are reported, and a gain that holds under the variant is not fragile.
func TestSkewCheckReportsBothGains(t *testing.T) {
	values := map[string][]float64{"base": {500, 502, 498, 501, 499, 500}, "2": {600, 605, 598, 603, 597, 601}}
	skew := map[string][]float64{"base": {1500, 1510, 1490, 1505}, "2": {1650, 1640, 1660, 1655}}
	res, events, strat := runSkewStudy(t, values, skew, nil)
	var order []Kind
	for _, tr := range res.SkewRuns {
		order = append(order, tr.Kind)
		if tr.Source != "--rand-type=uniform" || tr.RepeatOf != res.Best.Number || tr.MeanTPS < 1000 {
			t.Errorf("skew run %d: source %q, repeats %d, %.0f tps; want the label, the best %d, the variant's values", tr.Number, tr.Source, tr.RepeatOf, tr.MeanTPS, res.Best.Number)
		}
	}
	want := []Kind{SkewBest, SkewBase, SkewBase, SkewBest, SkewBest, SkewBase, SkewBase, SkewBest}
	if strings.Join(kindStrings(order), " ") != strings.Join(kindStrings(want), " ") {
		t.Fatalf("skew runs %v, want %v", order, want)
	}
	// After every A/B run.
	lastAB := -1
	for _, tr := range res.Trials {
		if tr.Kind == ABBest || tr.Kind == ABBase {
			lastAB = max(lastAB, tr.Number)
		}
		if tr.Kind.Skewed() {
			t.Errorf("trial %d (%s) among the study's trials", tr.Number, tr.Kind)
		}
	}
	if res.SkewRuns[0].Number < lastAB {
		t.Errorf("skew run %d before A/B run %d", res.SkewRuns[0].Number, lastAB)
	}
	all := append(append([]Trial(nil), res.Trials...), res.SkewRuns...)
	k := SkewOf(measure.GoalTPS, all, res.Best.Number, "--rand-type=uniform")
	if !k.PrimaryOK || k.Primary.Pct < 18 || k.Primary.Pct > 22 || !k.Primary.Significant {
		t.Errorf("primary gain %+v, want about +20 %%, significant", k.Primary)
	}
	if !k.Measured || k.Pairs != 4 || k.Gain.Pct < 8 || k.Gain.Pct > 12 || !k.Gain.Significant {
		t.Errorf("skew gain %+v (%d pairs), want about +10 %% from 4 pairs, significant", k.Gain, k.Pairs)
	}
	if k.Fragile || strings.Contains(k.String(), "FRAGILE") {
		t.Errorf("a gain that holds under the variant is flagged fragile: %s", k)
	}
	// Never told to the strategy, never counted, never in an estimate.
	for _, v := range strat.told[cfg("2").Key()] {
		if v > 1000 {
			t.Errorf("the strategy was told the variant's %.0f", v)
		}
	}
	if e := EstimateOf(all, res.Best); e.MeanTPS > 1000 {
		t.Errorf("the best's estimate %.0f tps pools the variant's runs", e.MeanTPS)
	}
	if sd := NoiseSD(measure.GoalTPS, all); sd > 0.05 {
		t.Errorf("noise %.3f pools the variant's runs", sd)
	}
	if n := countFinished(all); n != 2 {
		t.Errorf("%d trials count towards the cap, want 2", n)
	}
	if note := events[len(events)-1].Note; !strings.Contains(note, "skew check under --rand-type=uniform: +") {
		t.Errorf("last run's note %q, want the skew check's gain", note)
	}
}

func kindStrings(ks []Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// A gain that vanishes under the variant flags the configuration as
// workload-fragile; a resumed study does not measure the check again.
func TestSkewCheckFlagsAFragileGain(t *testing.T) {
	values := map[string][]float64{"base": {500, 502, 498, 501, 499, 500}, "2": {600, 605, 598, 603, 597, 601}}
	skew := map[string][]float64{"base": {1500, 1530, 1480, 1510}, "2": {1490, 1520, 1500, 1495}}
	store := newMemStore()
	res, _, _ := runSkewStudy(t, values, skew, store)
	all := append(append([]Trial(nil), res.Trials...), res.SkewRuns...)
	k := SkewOf(measure.GoalTPS, all, res.Best.Number, "--rand-type=uniform")
	if !k.Measured || !k.Fragile {
		t.Fatalf("skew %+v, want measured and fragile", k)
	}
	if s := k.String(); !strings.Contains(s, "WORKLOAD-FRAGILE") || !strings.Contains(s, "under --rand-type=uniform") {
		t.Errorf("String() = %q", s)
	}
	if k2 := SkewOf(measure.GoalTPS, all, res.Best.Number, "--rand-type=zipfian"); k2.Measured || k2.Fragile {
		t.Errorf("another label: %+v, want not measured", k2)
	}
	// Resumed: the check is done, nothing more runs.
	res2, _, _ := runSkewStudy(t, values, skew, store)
	if len(res2.SkewRuns) != len(res.SkewRuns) || len(res2.Trials) != len(res.Trials) {
		t.Errorf("resumed study ran %d more skew runs and %d more trials", len(res2.SkewRuns)-len(res.SkewRuns), len(res2.Trials)-len(res.Trials))
	}
}

// Without the check no run is skewed; with no best other than the
// baseline there is nothing to check.
func TestSkewCheckNeedsABest(t *testing.T) {
	values := map[string][]float64{"base": {600, 602, 598, 601, 599}, "2": {500}}
	res, _, _ := runSkewStudy(t, values, values, nil)
	if len(res.SkewRuns) != 0 {
		t.Errorf("%d skew runs with the baseline the best", len(res.SkewRuns))
	}
	if k := SkewOf(measure.GoalTPS, res.Trials, res.Best.Number, "--rand-type=uniform"); k.Measured || k.Fragile || !strings.Contains(k.String(), "not measured") {
		t.Errorf("skew %+v: %s", k, k)
	}
}
