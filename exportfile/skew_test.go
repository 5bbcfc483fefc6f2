package exportfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// skewStudy is a study of sysbench 1.0.20 oltp_read_write under
// --rand-type=uniform whose best (trial 1) has four A/B pairs at +20 %
// and four skew-check pairs under special at the ratios given.
func skewStudy(ratios []float64) (storage.StudyRecord, search.Trial, search.Trial, []search.Trial) {
	def := &benchdef.Definition{Driver: "sysbench", Version: "sysbench 1.0.20", Options: map[string]string{"workload": "oltp_read_write", "rand-type": "uniform", "tables": "8"}}
	m := storage.Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 500000, WarmupS: 30, DurationS: 60, Lambda: 0.5,
		Space: &storage.SpaceManifest{Durability: "strict"}, Definition: def}
	st := storage.StudyRecord{Name: "skew", ServerVersion: "10.11.19-MariaDB-0+deb12u1", Settings: m.JSON()}
	run := func(n int, kind search.Kind, p space.Config, tps float64) search.Trial {
		return search.Trial{Number: n, Kind: kind, State: search.Complete, Params: p, RepeatLink: search.RepeatLink{RepeatOf: 1},
			Outcome: measure.Outcome{Score: tps, MeanTPS: tps}}
	}
	cfg := space.Config{"innodb_io_capacity": "2000"}
	base, best := run(0, search.Baseline, space.Config{}, 1000), run(1, search.Sampled, cfg, 1200)
	trials := []search.Trial{base, best}
	for i, r := range []float64{1.2, 1.21, 1.19, 1.2} {
		trials = append(trials, run(2+2*i, search.ABBest, cfg, 1000*r), run(3+2*i, search.ABBase, space.Config{}, 1000))
	}
	for i, r := range ratios {
		a, b := run(10+2*i, search.SkewBest, cfg, 500*r), run(11+2*i, search.SkewBase, space.Config{}, 500)
		a.Source, b.Source = "--rand-type=special", "--rand-type=special"
		trials = append(trials, a, b)
	}
	return st, best, base, trials
}

// The export header names the benchmark and its distribution, and gives
// the gain under the skew check's variant beside the A/B gain; a gain
// that vanishes there adds a WORKLOAD-FRAGILE line (and the JSON field).
func TestExportShowsDistributionAndSkewCheck(t *testing.T) {
	now := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, tc := range []struct {
		ratios  []float64
		fragile bool
	}{{[]float64{1.1, 1.12, 1.09, 1.11}, false}, {[]float64{1.03, 0.97, 1.01, 0.98}, true}} {
		st, best, base, trials := skewStudy(tc.ratios)
		for _, f := range []string{"cnf", "sql"} {
			var out bytes.Buffer
			if err := Write(&out, f, space.Lookup(), st, best, base, trials, now); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			for _, want := range []string{"tuned with sysbench 1.0.20 oltp_read_write --rand-type=uniform\n",
				"workload: sysbench oltp_read_write --rand-type=uniform, 8 x 500000 rows", "gain over the baseline: +20.",
				"skew check under --rand-type=special: "} {
				if !strings.Contains(text, want) {
					t.Errorf("%s: header lacks %q:\n%s", f, want, text)
				}
			}
			if got := strings.Contains(text, "WORKLOAD-FRAGILE: the gain of +20.0 % over the baseline is not shown under --rand-type=special"); got != tc.fragile {
				t.Errorf("%s: WORKLOAD-FRAGILE line %v, want %v:\n%s", f, got, tc.fragile, text)
			}
		}
		var js bytes.Buffer
		if err := Write(&js, "json", space.Lookup(), st, best, base, trials, now); err != nil {
			t.Fatal(err)
		}
		var d struct {
			Skew []struct {
				Variant string
				Gain    *struct{ Pct float64 }
				Pairs   int
			} `json:"skew_checks"`
			Fragile bool `json:"workload_fragile"`
		}
		if err := json.Unmarshal(js.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Skew) != 1 || d.Skew[0].Variant != "--rand-type=special" || d.Skew[0].Gain == nil || d.Skew[0].Pairs != 4 || d.Fragile != tc.fragile {
			t.Errorf("JSON skew checks %+v, fragile %v", d.Skew, d.Fragile)
		}
		// The skew runs count in no estimate of the best.
		if e := search.EstimateOf(trials, best); e.MeanTPS != 1200 {
			t.Errorf("estimate %.1f, want the best's own 1200", e.MeanTPS)
		}
	}
}
