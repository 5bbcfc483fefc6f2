package search

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

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
			if isChoice(k) {
				x[d] = float64(rng.IntN(len(k.Options())))
			} else {
				x[d] = rng.Float64()
			}
		}
		cfgs = append(cfgs, decode(sp, x))
		ys = append(ys, 500+300*math.Min(1, 2*x[0])+20*x[3]+50*rng.NormFloat64())
	}
	return cfgs, ys
}

type observingStrategy interface {
	Strategy
	Observe(cfg space.Config, value float64) error
}

// BenchmarkSuggest measures one Ask with 1000 trials of history (the
// speed goal is under 100 ms per suggestion).
func BenchmarkSuggest(b *testing.B) {
	sp := space.Default()
	cfgs, ys := historyOf(sp, 1000)
	for _, name := range []string{"hybrid", "hybrid-refit", "coordinate", "tpe", "mtpe", "random"} {
		b.Run(name, func(b *testing.B) {
			var st observingStrategy
			var err error
			switch name {
			case "hybrid", "hybrid-refit":
				// A horizon past the history keeps the hybrid in its TPE phase.
				st = NewHybrid(sp, HybridOptions{Seed: 1, Horizon: 5000})
			case "coordinate":
				st = NewCoordinate(sp, CoordinateOptions{})
			case "tpe":
				st, err = NewTPE(sp, 1)
			case "mtpe":
				st = NewMTPE(sp, 1)
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
				if name == "hybrid-refit" {
					h.sub = nil // force the importance refit the hybrid does every 8 trials
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
	trials := make([]Trial, len(cfgs))
	for i := range cfgs {
		trials[i] = Trial{State: Complete, Params: cfgs[i], Outcome: Outcome{Score: ys[i]}}
	}
	for b.Loop() {
		if _, err := Importance(sp, trials); err != nil {
			b.Fatal(err)
		}
	}
}
