package search

import (
	"context"
	"strings"
	"testing"

	"github.com/autotune/autotune/measure"
)

// withErrors returns an objective that measures like landscape but whose
// samples after the warm-up have errs errors per second per 100 queries,
// errs taken from the list by call (the last one repeats).
func withErrors(errs ...float64) Objective {
	base := landscape(3)
	calls := 0
	return func(ctx context.Context, t Trial) (measure.Outcome, error) {
		out, err := base(ctx, t)
		e := errs[min(calls, len(errs)-1)]
		calls++
		for i := range out.Samples {
			out.Samples[i].QPS = 100
			out.Samples[i].ErrPS = e
		}
		// A warm-up second with many errors is not counted.
		if len(out.Samples) > 0 {
			out.Samples[0].Warmup, out.Samples[0].ErrPS = true, 90
		}
		return out, err
	}
}

func TestStudyFailsTrialsWhoseErrorShareMovesFromTheBaseline(t *testing.T) {
	store := newMemStore()
	// Error shares: baseline 1/101, then 1.5/101.5 (within 1 point),
	// 3/103 (2 points more: invalid), 0 (1 point less: within), 0.
	// Seed 2: none of its five proposals falls in the landscape's crash region.
	s := newStudy(t, store, withErrors(1, 1.5, 3, 0), 2)
	s.MaxTrials, s.MaxErrorShift = 5, 0.01
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []State{Complete, Complete, Failed, Complete, Complete}
	for i, tr := range res.Trials {
		if tr.State != want[i] {
			t.Errorf("trial %d: %s (%s), want %s", i, tr.State, tr.Failure, want[i])
		}
	}
	if f := res.Trials[2].Failure; !strings.Contains(f, "no longer matches the data") || !strings.Contains(f, "2.91 %") || !strings.Contains(f, "0.99 %") {
		t.Errorf("failure %q: want the two error shares and the reason", f)
	}
	// Without the limit the same trials are all complete.
	store = newMemStore()
	s = newStudy(t, store, withErrors(1, 1.5, 3, 0), 2)
	s.MaxTrials = 5
	if res, err = s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tr := range res.Trials {
		if tr.State != Complete {
			t.Errorf("no limit: trial %d %s", tr.Number, tr.State)
		}
	}
}

func TestErrorShare(t *testing.T) {
	for _, tc := range []struct {
		name string
		ss   []measure.Sample
		want float64
		ok   bool
	}{
		{"qps", []measure.Sample{{QPS: 99, ErrPS: 1}, {QPS: 99, ErrPS: 1}}, 0.01, true},
		{"tps without qps", []measure.Sample{{TPS: 9, ErrPS: 1}}, 0.1, true},
		{"warm-up left out", []measure.Sample{{QPS: 10, ErrPS: 10, Warmup: true}, {QPS: 10}}, 0, true},
		{"nothing", []measure.Sample{{}}, 0, false},
	} {
		got, ok := ErrorShare(Trial{Outcome: measure.Outcome{Samples: tc.ss}})
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: %g %v, want %g %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
