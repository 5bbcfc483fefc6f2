package study

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// scripted is a benchmark that prints the same per-second series whatever
// the server: a warm-up ramp, then a steady level with one dip. It touches
// no server, so every mode must score it the same.
type scripted struct{}

func (scripted) Prepare(context.Context, *runner.Server) error { return nil }

func (scripted) Dataset() runner.Dataset {
	return runner.Dataset{Workload: "scripted", Tables: 1, TableSize: 1}
}

func (scripted) Definition(context.Context) (benchdef.Definition, error) {
	return benchdef.Definition{Driver: "scripted", Options: map[string]string{}}, nil
}

func (scripted) Run(ctx context.Context, _ *runner.Server, r runner.BenchRun, onSample func(runner.Interval)) (runner.BenchResult, error) {
	for i := 1; i <= int(r.Duration/time.Second); i++ {
		if ctx.Err() != nil {
			return runner.BenchResult{}, ctx.Err()
		}
		tps := 500.0
		switch {
		case i <= 4:
			tps = 100 * float64(i)
		case i == 12:
			tps = 200 // a dip
		default:
			tps += float64(i%3) * 7
		}
		lat := 1000 * float64(r.Threads) / tps
		onSample(runner.Interval{Time: float64(i), Threads: r.Threads, TPS: tps, QPS: 20 * tps, LatPct: 95, LatMS: &lat})
	}
	return runner.BenchResult{Summary: map[string]int{"seconds": int(r.Duration / time.Second)}}, nil
}

// silent is a Progress that prints nothing.
type silent struct{}

func (silent) Emit(result.Event) {}

// TestOneEngineForEveryMode drives the same scripted benchmark through
// the sandbox target, the existing-server target and a worker, and checks
// that the three stored baseline trials have the same measurement and
// score: one measurement path, one scoring path, whatever the mode.
func TestOneEngineForEveryMode(t *testing.T) {
	realtest.Require(t)
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "at-modes")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	server := teststore.Start(t, "")

	base := Config{Trials: 1, Workdir: filepath.Join(dir, "sb"), Strategy: "random",
		Bench: BenchSettings{Driver: "scripted", Workload: "scripted", Tables: 1, TableSize: 1, Threads: []int{4}},
		Measure: Measure{Warmup: 8 * time.Second, Duration: 10 * time.Second, Lambda: 0.5, Objective: "tps", DipShare: 0.5,
			SteadyBlock: 2 * time.Second, SteadySpread: 0.1, SteadyTrend: 0.1},
		Space: Space{Durability: "strict", MemoryBudget: "75%", Apply: ApplyRestart}}

	sandbox := base
	sandbox.Study, sandbox.DB = "sandbox", filepath.Join(dir, "t.db")
	if err := Search(ctx, sandbox, silent{}); err != nil {
		t.Fatalf("sandbox: %v", err)
	}

	existing := base
	existing.Study, existing.DB = "existing", filepath.Join(dir, "t.db")
	existing.Existing = &ExistingServer{DSN: "root@unix(" + server.Socket + ")/", ConfigFile: filepath.Join(dir, "include.cnf"), NotSandbox: true}
	if err := Search(ctx, existing, silent{}); err != nil {
		t.Fatalf("existing server: %v", err)
	}

	worker := base
	worker.Study, worker.DB, worker.Heartbeat = "worker", server.URL("autotune_modes"), time.Second
	worker.Workdir = filepath.Join(dir, "sbw")
	if err := Worker(ctx, worker, silent{}); err != nil {
		t.Fatalf("worker: %v", err)
	}

	baseline := func(db, study string) search.Trial {
		st, err := storage.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		trials, err := st.Trials(ctx, study)
		if err != nil || len(trials) != 1 || trials[0].State != search.Complete {
			t.Fatalf("%s: %v %+v", study, err, trials)
		}
		return trials[0]
	}
	want := baseline(sandbox.DB, "sandbox")
	for _, got := range []search.Trial{baseline(existing.DB, "existing"), baseline(worker.DB, "worker")} {
		same := func(what string, a, b float64) {
			if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Errorf("%s: %s = %v, sandbox %v", got.Study, what, a, b)
			}
		}
		same("score", got.Score, want.Score)
		same("mean tps", got.MeanTPS, want.MeanTPS)
		same("sd tps", got.StdTPS, want.StdTPS)
		same("p95", got.P95MS, want.P95MS)
		same("warm-up", got.WarmupS, want.WarmupS)
		same("variance penalty", got.Variance, want.Variance)
		same("dip penalty", got.Dips, want.Dips)
		if got.Infeasible != want.Infeasible || got.WarmupCapped != want.WarmupCapped || len(got.Levels) != len(want.Levels) {
			t.Errorf("%s: levels %d/%d, infeasible %v/%v", got.Study, len(got.Levels), len(want.Levels), got.Infeasible, want.Infeasible)
		}
		if got.Summary != want.Summary {
			t.Errorf("%s: summary %s, sandbox %s", got.Study, got.Summary, want.Summary)
		}
	}
	if want.Dips == 0 || want.WarmupS == 0 {
		t.Errorf("the script's warm-up (%gs) and dip (%g) did not show: the test would not tell scoring paths apart", want.WarmupS, want.Dips)
	}
	t.Logf("every mode: score %.2f, %.2f tps, warm-up %gs, dip penalty %.2f", want.Score, want.MeanTPS, want.WarmupS, want.Dips)
}

// The first plan's trial cost counts every thread level: each warms up
// and is measured in turn.
func TestPriorCostCountsThreadLevels(t *testing.T) {
	for _, tc := range []struct {
		threads []int
		want    time.Duration
	}{
		{nil, 35 * time.Second}, // a driver without levels: one window
		{[]int{16}, 35 * time.Second},
		{[]int{4, 16, 64}, 95 * time.Second},
	} {
		c := Config{Bench: BenchSettings{Threads: tc.threads}, Measure: Measure{Warmup: 10 * time.Second, Duration: 20 * time.Second}}
		if got := c.priorCost(); got != tc.want {
			t.Errorf("threads %v: prior cost %s, want %s", tc.threads, got, tc.want)
		}
	}
}

// A study resumed with the same command keeps the re-measurement policy
// it was created with, whatever today's defaults are (a study made when
// --confirm defaulted to 2 resumes under 2, not auto); a flag given
// explicitly is kept as given, for the manifest check to judge.
func TestResumeKeepsTheStudysPolicy(t *testing.T) {
	stored := storage.MeasureManifest{Confirm: 2, RecheckEvery: 10, ABPairs: 6, ABShare: 0.1}
	m := Measure{Confirm: search.ConfirmAuto, RecheckEvery: 5, ABPairs: 3, ABShare: 0.2}
	keepPolicy(&m, stored, PolicyGiven{RecheckEvery: true})
	if m.Confirm != 2 || m.RecheckEvery != 5 || m.ABPairs != 6 || m.ABShare != 0.1 {
		t.Errorf("policy after keepPolicy: %+v, want confirm 2 (stored), recheck 5 (given), 6 pairs and share 0.1 (stored)", m)
	}
}
