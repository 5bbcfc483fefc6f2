package search_test

import (
	"context"
	"fmt"
	"math"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/strategy"
)

// A study of the default strategy over two knobs against a synthetic
// objective: a throughput that peaks at a 3 GiB buffer pool and rises
// with io_capacity up to 4000. The study measures the server's defaults
// first, then the hybrid's proposals, and stops after 40 trials; its best
// is the configuration a real study would export.
func ExampleLoop() {
	sp, err := space.New([]space.Knob{
		{Name: "innodb_buffer_pool_size", Kind: space.Bytes, Min: 128 << 20, Max: 8 << 30, Step: 128 << 20, Scale: space.Log, Default: "134217728"},
		{Name: "innodb_io_capacity", Kind: space.Int, Min: 100, Max: 20000, Step: 1, Scale: space.Log, Default: "200"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	objective := func(ctx context.Context, t search.Trial) (measure.Outcome, error) {
		cfg := search.Decode(sp, search.Encode(sp, t.Params)) // every knob, defaults filled in
		pool, _ := sp.Knobs()[0].Float(cfg["innodb_buffer_pool_size"])
		io, _ := sp.Knobs()[1].Float(cfg["innodb_io_capacity"])
		gib := pool / (1 << 30)
		tps := 1000 * math.Exp(-0.05*math.Pow(math.Log2(gib/3), 2)) * (1 + 0.08*math.Min(1, math.Log(io/200)/math.Log(20)))
		return measure.Outcome{Score: tps, MeanTPS: tps}, nil
	}
	st := strategy.NewHybrid(sp, strategy.HybridOptions{Seed: 1, Horizon: 40})
	study := &search.Loop{Name: "example", Strategy: st, Objective: objective, Store: &search.MemoryStore{}, MaxTrials: 40}
	res, err := study.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	base := res.Baseline.Outcome.Score
	best := res.Best.Outcome.Score
	fmt.Printf("%d trials; the best scores %.0f %% above the defaults\n", len(res.Trials), (best/base-1)*100)
	pool, _ := sp.Knobs()[0].Float(res.Best.Params["innodb_buffer_pool_size"])
	fmt.Printf("best: innodb_buffer_pool_size %.1f GiB, innodb_io_capacity %s\n", pool/(1<<30), res.Best.Params["innodb_io_capacity"])
	// Output:
	// 40 trials; the best scores 209 % above the defaults
	// best: innodb_buffer_pool_size 3.1 GiB, innodb_io_capacity 6782
}
