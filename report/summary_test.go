package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// summaryFixture is a search's end: a baseline, a best with four
// interleaved A/B pairs, a knob ranking and a minimisation.
func summaryFixture() result.Summary {
	t0 := fixtureT0
	tr := func(n int, kind search.Kind, p space.Config, tps float64) search.Trial {
		return search.Trial{Study: "demo", Number: n, State: search.Complete, Kind: kind, Params: p, Started: t0, Ended: t0.Add(time.Minute),
			Outcome: measure.Outcome{Score: tps, MeanTPS: tps}}
	}
	best := tr(1, search.Sampled, space.Config{"innodb_io_capacity": "2000"}, 700)
	trials := []search.Trial{tr(0, search.Baseline, space.Config{}, 500), best}
	for i, v := range []float64{700, 500, 710, 505, 690, 498, 705, 502} {
		k, p := search.ABBest, best.Params
		if i%2 == 1 {
			k, p = search.ABBase, space.Config{}
		}
		x := tr(2+i, k, p, v)
		x.RepeatOf = 1
		trials = append(trials, x)
	}
	sp := space.Default()
	return result.Summary{Goal: measure.GoalTPS, Space: sp, Trials: trials, Best: best,
		Importance:       []search.KnobImportance{{Knob: "innodb_io_capacity", Importance: 0.6}, {Knob: "innodb_log_file_size", Importance: 0.1}},
		ImportanceTrials: 10, ExportHint: "write it as a my.cnf with autotune export --study demo --db trials.db -o best.cnf",
		Minimization: &result.Minimization{Space: sp, Result: search.Minimized{Best: 1, Changes: 1, Runs: 4, Done: true, Goal: measure.GoalTPS}}}
}

// TestSummaryJSONCarriesTheText: the JSON summary event holds the lines
// the plain output prints, and the conclusion, gain and ranking as fields.
func TestSummaryJSONCarriesTheText(t *testing.T) {
	s := summaryFixture()
	var plain, js bytes.Buffer
	NewProgress("plain", &plain, nil).Emit(s)
	NewProgress("json", &js, nil).Emit(s)
	var want bytes.Buffer
	WriteSummary(&want, s)
	if plain.String() != want.String() {
		t.Errorf("plain summary:\n%s\nwant:\n%s", plain.String(), want.String())
	}
	for _, line := range []string{"knob importance", "gain over the baseline:", "gain over the expert warm start:", "conclusion: trial 1 is faster", "minimisation of trial 1"} {
		if !strings.Contains(plain.String(), line) {
			t.Errorf("plain summary lacks %q:\n%s", line, plain.String())
		}
	}
	var e struct {
		Event   string
		Text    string
		Summary struct {
			Importance []struct {
				Knob  string
				Share float64
			}
			BestTrial *int `json:"best_trial"`
			Gain      *struct {
				Pct         float64
				LoPct       float64 `json:"lo_pct"`
				HiPct       float64 `json:"hi_pct"`
				Pairs       int
				Significant bool
			}
			Conclusion   string
			Minimization *struct{ Trial, Runs int }
		}
	}
	if err := json.Unmarshal(js.Bytes(), &e); err != nil {
		t.Fatalf("%v: %s", err, js.String())
	}
	if e.Event != "summary" || e.Text != want.String() {
		t.Errorf("json summary event %q, text:\n%s\nwant:\n%s", e.Event, e.Text, want.String())
	}
	if e.Summary.BestTrial == nil || *e.Summary.BestTrial != 1 || e.Summary.Gain == nil || e.Summary.Gain.Pairs != 4 || !e.Summary.Gain.Significant || !(e.Summary.Gain.LoPct > 0) {
		t.Errorf("json summary gain: %s", js.String())
	}
	if !strings.HasPrefix(e.Summary.Conclusion, "trial 1 is faster than the baseline") || len(e.Summary.Importance) != 2 || e.Summary.Minimization == nil || e.Summary.Minimization.Runs != 4 {
		t.Errorf("json summary: %s", js.String())
	}
}

// withSkew adds to s the workload line and a skew check of its best
// under "--rand-type=uniform" whose four pairs give values: one gain
// per pair (best/base).
func withSkew(s result.Summary, ratios []float64) result.Summary {
	s.Workload = "sysbench oltp_read_write --rand-type=special, 8 x 500000 rows, threads 16, objective tps"
	n := len(s.Trials)
	for i, r := range ratios {
		kinds := []search.Kind{search.SkewBest, search.SkewBase}
		if i%2 == 1 {
			kinds[0], kinds[1] = kinds[1], kinds[0]
		}
		for _, k := range kinds {
			v, p := 1500.0, space.Config{}
			if k == search.SkewBest {
				v, p = 1500*r, s.Best.Params
			}
			s.Trials = append(s.Trials, search.Trial{Study: "demo", Number: n, State: search.Complete, Kind: k, Params: p, Source: "--rand-type=uniform",
				RepeatLink: search.RepeatLink{RepeatOf: s.Best.Number}, Outcome: measure.Outcome{Score: v, MeanTPS: v}})
			n++
		}
	}
	return s
}

// The summary says what was measured and both gains, plainly and in
// JSON; a gain that vanishes under the variant flags the best
// workload-fragile in the conclusion, one that holds does not.
func TestSummaryShowsTheSkewCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ratios  []float64
		fragile bool
	}{
		{"holds", []float64{1.10, 1.12, 1.09, 1.11}, false},
		{"vanishes", []float64{1.03, 0.97, 1.01, 0.98}, true},
	} {
		s := withSkew(summaryFixture(), tc.ratios)
		var plain, js bytes.Buffer
		NewProgress("plain", &plain, nil).Emit(s)
		NewProgress("json", &js, nil).Emit(s)
		text := plain.String()
		for _, want := range []string{"workload: sysbench oltp_read_write --rand-type=special,", "gain over the baseline: +", "skew check under --rand-type=uniform: "} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: summary lacks %q:\n%s", tc.name, want, text)
			}
		}
		if got := strings.Contains(text, "WORKLOAD-FRAGILE"); got != tc.fragile {
			t.Errorf("%s: WORKLOAD-FRAGILE shown %v, want %v:\n%s", tc.name, got, tc.fragile, text)
		}
		var e struct {
			Summary struct {
				Workload   string `json:"workload"`
				Gain       *struct{ Pct float64 }
				SkewChecks []struct {
					Variant string
					Gain    *struct{ Pct float64 }
					Pairs   int
					Fragile bool `json:"workload_fragile"`
				} `json:"skew_checks"`
				Fragile    bool   `json:"workload_fragile"`
				Conclusion string `json:"conclusion"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(js.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, js.String())
		}
		sm := e.Summary
		if sm.Workload == "" || sm.Gain == nil || len(sm.SkewChecks) != 1 || sm.SkewChecks[0].Gain == nil || sm.SkewChecks[0].Pairs != 4 ||
			sm.SkewChecks[0].Variant != "--rand-type=uniform" || sm.SkewChecks[0].Fragile != tc.fragile || sm.Fragile != tc.fragile ||
			strings.Contains(sm.Conclusion, "WORKLOAD-FRAGILE") != tc.fragile {
			t.Errorf("%s: JSON summary %+v", tc.name, sm)
		}
	}
}
