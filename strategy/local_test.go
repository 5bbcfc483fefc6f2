package strategy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/autotune/autotune/internal/testspace"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// TestLocalSearchCentreAndSteps: a configuration measured once at a lucky
// 820 tps where the model of 40 trials predicts about 500 must not become
// the local search's centre over one measured 3 times at about 740 that
// the model agrees with; a local step changes one to three knobs of the
// centre and is not measured yet.
func TestLocalSearchCentreAndSteps(t *testing.T) {
	sp := testspace.First(t)
	h := NewHybrid(sp, HybridOptions{Seed: 1, Horizon: 100})
	ks := sp.Knobs()
	bp := -1
	for i, k := range ks {
		if k.Name == "innodb_buffer_pool_size" {
			bp = i
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	value := func(x []float64) float64 { return 500 * (1 + 0.5*x[bp]) * (1 + 0.02*rng.NormFloat64()) }
	for i := 0; i < 40; i++ {
		x := make([]float64, len(ks))
		for d, k := range ks {
			if search.IsChoice(k) {
				x[d] = float64(rng.IntN(len(k.Options())))
			} else {
				x[d] = rng.Float64()
			}
		}
		cfg := search.Decode(sp, x)
		if err := h.Observe(cfg, value(search.Encode(sp, cfg))); err != nil {
			t.Fatal(err)
		}
	}
	good := search.FullConfig(sp, space.Config{"innodb_buffer_pool_size": search.FromUnit(ks[bp], 0.95)})
	for i := 0; i < 3; i++ {
		_ = h.Observe(good, 740)
	}
	lucky := search.FullConfig(sp, space.Config{"innodb_buffer_pool_size": search.FromUnit(ks[bp], 0)})
	_ = h.Observe(lucky, 820)
	lm := h.surrogate()
	if lm == nil {
		t.Fatal("no surrogate after 44 observations")
	}
	t.Logf("pred good %.1f lucky %.1f resid %.3f", math.Exp(lm.m.Predict(search.Encode(sp, good))), math.Exp(lm.m.Predict(search.Encode(sp, lucky))), lm.resid)
	centre, _, n := h.center(lm)
	if centre.Key() != good.Key() || n != 3 {
		t.Fatalf("centre %v (n=%d): want the configuration measured 3 times at 740", centre, n)
	}
	for i := 0; i < 8; i++ {
		p, ok := h.localStep()
		if !ok {
			t.Fatal("no local step")
		}
		if p.Kind == search.Repeat {
			continue
		}
		if h.h.measured(p.Config) {
			t.Fatalf("step %d proposes a measured configuration", i)
		}
		changed := 0
		for _, k := range ks {
			if p.Config[k.Name] != good[k.Name] {
				changed++
			}
		}
		if changed < 1 || changed > 3 {
			t.Fatalf("step %d changes %d knobs of the centre: want 1 to 3", i, changed)
		}
	}
}
