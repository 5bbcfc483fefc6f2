package study

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"gonum.org/v1/gonum/stat"
)

// BenchmarkRankAgreement asks whether short trials rank configurations as
// long runs do: three configurations (the server defaults, a 4G buffer
// pool, the expert warm start) measured with the default trial length
// (30 s warm-up, 60 s window) and with 300 s windows, three times each,
// interleaved (each round runs every configuration once at each length,
// the configurations' order rotating), on the sandbox with the default
// dataset (8 x 500k rows, 16 threads). It prints each run, both rankings
// by mean tps and by score, and Kendall's and Spearman's rank
// correlations. About an hour on the reference machine: run it alone,
//
//	AUTOTUNE_RANK_WORKDIR=/tmp/rank go test -run '^$' -bench RankAgreement -benchtime 1x -timeout 3h ./study/
//
// (the workdir keeps the dataset snapshot between runs).
func BenchmarkRankAgreement(b *testing.B) {
	realtest.Require(b)
	work := os.Getenv("AUTOTUNE_RANK_WORKDIR")
	if work == "" {
		work = b.TempDir()
	}
	cfg := Config{Study: "rank", Trials: 1, Workdir: work,
		Bench:   BenchSettings{Driver: "sysbench", Path: "sysbench", Workload: "oltp_read_write", Tables: 8, TableSize: 500000, Threads: []int{16}},
		Measure: Measure{Warmup: 30 * time.Second, WarmupMax: 90 * time.Second, Duration: 60 * time.Second, Lambda: measure.DefaultLambda, Objective: "tps", DipShare: 0.5, SteadyBlock: 5 * time.Second, SteadySpread: 0.15, SteadyTrend: 0.05},
		Space:   Space{Durability: string(space.Relaxed), MemoryBudget: "100%", Apply: ApplyRestart}}
	prog := report.NewProgress("plain", os.Stdout, nil)
	defer prog.Close()
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		r, err := newRun(ctx, cfg, prog, "noise")
		if err != nil {
			b.Fatal(err)
		}
		_, warm, err := newStrategy(ctx, "random", true, nil, r.shape(), 1, 1, r.facts, r.logf)
		if err != nil || len(warm) == 0 {
			b.Fatalf("expert warm start: %v", err)
		}
		configs := []struct {
			name string
			cfg  space.Config
		}{{"defaults", space.Config{}}, {"4G pool", space.Config{"innodb_buffer_pool_size": "4294967296"}}, {"expert", warm[0].Config}}
		type run struct{ tps, score float64 }
		got := map[string]map[time.Duration][]run{}
		lengths := []time.Duration{60 * time.Second, 300 * time.Second}
		n := 0
		for round := 0; round < 3; round++ {
			for j := range configs {
				c := configs[(j+round)%len(configs)]
				for _, d := range lengths {
					n++
					r.engine.Measure.Duration = d
					oc, err := r.engine.Run(ctx, search.Trial{Number: n, Kind: search.Sampled, Params: r.base.Merge(c.cfg)})
					if err != nil {
						b.Fatal(err)
					}
					if oc.Failure != "" {
						fmt.Printf("round %d %s %s: FAILED %s\n", round+1, c.name, d, oc.Failure)
						continue
					}
					if got[c.name] == nil {
						got[c.name] = map[time.Duration][]run{}
					}
					got[c.name][d] = append(got[c.name][d], run{oc.MeanTPS, oc.Score})
					fmt.Printf("round %d %-8s window %4s: %7.1f tps, score %7.1f, warm-up %2.0fs (not steady: %v), preload %.0fs\n",
						round+1, c.name, d, oc.MeanTPS, oc.Score, oc.WarmupS, oc.WarmupCapped, oc.Phases["preload"])
				}
			}
		}
		_ = r.close()
		for _, by := range []string{"tps", "score"} {
			var ranks [][]string
			for _, d := range lengths {
				var names []string
				means := map[string]float64{}
				var parts []string
				for _, c := range configs {
					var xs []float64
					for _, x := range got[c.name][d] {
						if by == "tps" {
							xs = append(xs, x.tps)
						} else {
							xs = append(xs, x.score)
						}
					}
					m, sd := meanSD(xs)
					means[c.name] = m
					names = append(names, c.name)
					parts = append(parts, fmt.Sprintf("%s %.1f ± %.1f (n=%d)", c.name, m, sd, len(xs)))
				}
				sort.SliceStable(names, func(a, b int) bool { return means[names[a]] > means[names[b]] })
				fmt.Printf("%s window, by %s: %s\n  ranking: %s\n", d, by, strings.Join(parts, "; "), strings.Join(names, " > "))
				ranks = append(ranks, names)
			}
			tau, rho := rankCorrelation(ranks[0], ranks[1])
			fmt.Printf("by %s: Kendall tau %.2f, Spearman rho %.2f between the 60 s and 300 s rankings\n", by, tau, rho)
		}
	}
}

func meanSD(xs []float64) (float64, float64) {
	if len(xs) < 2 {
		return stat.Mean(xs, nil), 0
	}
	return stat.MeanStdDev(xs, nil)
}

// rankCorrelation returns Kendall's tau and Spearman's rho of two orders
// of the same names (no ties).
func rankCorrelation(a, b []string) (tau, rho float64) {
	pos := map[string]int{}
	for i, n := range b {
		pos[n] = i
	}
	n := len(a)
	conc, disc := 0, 0
	d2 := 0.0
	for i := 0; i < n; i++ {
		d := float64(i - pos[a[i]])
		d2 += d * d
		for j := i + 1; j < n; j++ {
			if pos[a[i]] < pos[a[j]] {
				conc++
			} else {
				disc++
			}
		}
	}
	tau = float64(conc-disc) / float64(n*(n-1)/2)
	rho = 1 - 6*d2/float64(n*(n*n-1))
	return tau, rho
}

func TestRankCorrelation(t *testing.T) {
	for _, tc := range []struct {
		a, b     []string
		tau, rho float64
	}{
		{[]string{"x", "y", "z"}, []string{"x", "y", "z"}, 1, 1},
		{[]string{"x", "y", "z"}, []string{"z", "y", "x"}, -1, -1},
		{[]string{"x", "y", "z"}, []string{"y", "x", "z"}, 1.0 / 3, 0.5},
	} {
		if tau, rho := rankCorrelation(tc.a, tc.b); fmt.Sprintf("%.3f %.3f", tau, rho) != fmt.Sprintf("%.3f %.3f", tc.tau, tc.rho) {
			t.Errorf("%v vs %v: tau %.3f rho %.3f, want %.3f %.3f", tc.a, tc.b, tau, rho, tc.tau, tc.rho)
		}
	}
}
