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
