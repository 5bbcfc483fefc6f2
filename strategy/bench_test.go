package strategy

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// historyOf returns n random configurations of sp with a smooth synthetic
// score, as a strategy would have seen them.
func historyOf(sp *space.Space, n int) ([]space.Config, []float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	var cfgs []space.Config
	var ys []float64
	for i := 0; i < n; i++ {
		x := make([]float64, len(sp.Knobs()))
		for d, k := range sp.Knobs() {
			if search.IsChoice(k) {
				x[d] = float64(rng.IntN(len(k.Options())))
			} else {
				x[d] = rng.Float64()
			}
		}
		cfgs = append(cfgs, search.Decode(sp, x))
		ys = append(ys, 500+300*math.Min(1, 2*x[0])+20*x[3]+50*rng.NormFloat64())
	}
	return cfgs, ys
}

type observingStrategy interface {
	search.Strategy
	Observe(cfg space.Config, value float64) error
}

// BenchmarkSuggest measures one Ask with 1000 trials of history (the
// speed goal is under 100 ms per suggestion).
func BenchmarkSuggest(b *testing.B) {
	sp := space.Default()
	cfgs, ys := historyOf(sp, 1000)
	for _, name := range []string{"hybrid", "hybrid-refit", "hybrid-model", "coordinate", "tpe", "random"} {
		b.Run(name, func(b *testing.B) {
			var st observingStrategy
			var err error
			switch name {
			case "hybrid", "hybrid-refit":
				st = NewHybrid(sp, HybridOptions{Seed: 1, Horizon: 5000})
			case "hybrid-model":
				// Past 30 % of the horizon (the model step's start).
				st = NewHybrid(sp, HybridOptions{Seed: 1, Horizon: 2000})
			case "coordinate":
				st = NewCoordinate(sp, CoordinateOptions{})
			case "tpe":
				st, err = NewTPE(sp, 1)
			case "random":
				st, err = NewRandom(sp, 1)
			}
			if err != nil {
				b.Fatal(err)
			}
			for i := range cfgs {
				if err := st.Observe(cfgs[i], ys[i]); err != nil {
					b.Fatal(err)
				}
			}
			h, _ := st.(*Hybrid)
			ctx := context.Background()
			for b.Loop() {
				switch name {
				case "hybrid":
					// The local search's surrogate is refitted after every
					// trial: force it.
					h.local = nil
				case "hybrid-refit":
					// Also the knob ranking it refits every 8 trials.
					h.sub, h.local = nil, nil
				case "hybrid-model":
					// A model step on every Ask (it is every fourth one),
					// with the refit of its model (every 8 trials).
					h.asked, h.sub = 0, nil
				}
				if _, err := st.Ask(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImportance measures Importance over 1000 complete trials.
func BenchmarkImportance(b *testing.B) {
	sp := space.Default()
	cfgs, ys := historyOf(sp, 1000)
	trials := make([]search.Trial, len(cfgs))
	for i := range cfgs {
		trials[i] = search.Trial{State: search.Complete, Params: cfgs[i], Outcome: measure.Outcome{Score: ys[i]}}
	}
	for b.Loop() {
		if _, err := search.Importance(sp, trials); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStudyMemory runs a whole study of 1000 trials of the default
// strategy (hybrid, model-guided local search on) over the 34-knob
// catalogue space against a fast synthetic objective, and reports the heap
// the study holds at its end (MB-heap; the goal is under 100 MB) and the
// mean time per trial of the strategy and the study loop (ms/trial).
func BenchmarkStudyMemory(b *testing.B) {
	sp := space.Default()
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		rng := rand.New(rand.NewPCG(3, 4))
		obj := func(ctx context.Context, t search.Trial) (measure.Outcome, error) {
			x := search.Encode(sp, t.Params)
			v := 500 + 300*math.Min(1, 2*x[0]) + 20*x[3] + 50*rng.NormFloat64()
			return measure.Outcome{Score: v, MeanTPS: v}, nil
		}
		st, err := NewStrategy("hybrid", sp, StrategyOptions{Seed: 1, Horizon: 1000})
		if err != nil {
			b.Fatal(err)
		}
		study := &search.Loop{Name: "mem", Strategy: st, Objective: obj, Store: &search.MemoryStore{}, MaxTrials: 1000}
		t0 := time.Now()
		res, err := study.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(t0)
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "MB-heap")
		b.ReportMetric(float64(elapsed.Milliseconds())/float64(len(res.Trials)), "ms/trial")
		runtime.KeepAlive(study)
		runtime.KeepAlive(st)
	}
}
