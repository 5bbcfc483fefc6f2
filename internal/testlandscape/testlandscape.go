// Package testlandscape is the tests' synthetic objective shaped like
// database tuning, shared by the tests of search (the study loop) and
// strategy (the strategies).
package testlandscape

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/space"
)

// New returns the objective of seed: the buffer pool dominates
// (saturating once the 1.1 GB dataset fits), flush policy adds a little,
// O_DSYNC with a tiny log buffer crashes, and every measurement has 5 %
// noise (drawn from seed, in call order).
func New(seed uint64) func(ctx context.Context, params space.Config) (measure.Outcome, error) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var mu sync.Mutex
	return func(ctx context.Context, params space.Config) (measure.Outcome, error) {
		if err := ctx.Err(); err != nil {
			return measure.Outcome{}, err
		}
		get := func(name, def string) float64 {
			v, ok := params[name]
			if !ok {
				v = def
			}
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
		if params["innodb_flush_method"] == "O_DSYNC" && get("innodb_log_buffer_size", "16777216") < 4<<20 {
			return measure.Outcome{Failure: "server crashed", ErrorLog: "[ERROR] synthetic crash"}, nil
		}
		bp := get("innodb_buffer_pool_size", "134217728")
		tps := 500 + 350*math.Min(1, math.Log2(bp/(128<<20))/math.Log2(1.2*1024/128))
		if params["innodb_flush_log_at_trx_commit"] == "2" {
			tps += 40
		}
		mu.Lock()
		noise := 1 + 0.05*rng.NormFloat64()
		mu.Unlock()
		tps *= noise
		var ss []measure.Sample
		for i := 0; i < 10; i++ {
			ss = append(ss, measure.Sample{T: float64(i + 1), TPS: tps})
		}
		e, err := measure.ScoreRule{Goal: measure.GoalTPS, Lambda: measure.DefaultLambda}.Evaluate(ss)
		if err != nil {
			return measure.Outcome{}, err
		}
		return measure.Outcome{Score: e.Score, MeanTPS: e.MeanTPS, StdTPS: e.StdTPS, Samples: ss, Restarted: true}, nil
	}
}
