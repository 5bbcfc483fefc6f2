package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner/tpcc"
)

// TPC-C of 1 warehouse on a real server: go-tpc loads it and its
// consistency check passes, a 6-second run at 2 threads reports every
// second, and the engine scores the window on New-Order transactions per
// second (tpmC / 60) with the New-Order p95, keeping go-tpc's summary
// (tpmC, p99).
func TestRealTPCCPrepareRunScore(t *testing.T) {
	realtest.Require(t)
	_, err := tpcc.Find("")
	realtest.Program(t, err)
	realtest.EachServer(t, testRealTPCCPrepareRunScore)
}

// testRealTPCCPrepareRunScore runs on server s (go-tpc connects over TCP
// only: MySQL's sandbox needs its root@127.0.0.1).
func testRealTPCCPrepareRunScore(t *testing.T, s realtest.Server) {
	srv := teststore.StartOn(t, s, "").Server
	ctx := context.Background()
	if err := srv.Exec(ctx, "CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
		t.Fatal(err)
	}
	b := tpcc.Bench{Warehouses: 1}
	def, err := b.Definition(ctx)
	if err != nil || def.Version != tpcc.Program+" "+tpcc.ProgramVersion || def.Options["warehouses"] != "1" {
		t.Fatalf("definition %v: %v", def, err)
	}
	t0 := time.Now()
	if err := b.Prepare(ctx, srv); err != nil {
		t.Fatal(err)
	}
	t.Logf("prepare and check of 1 warehouse: %.0f s", time.Since(t0).Seconds())

	m := Protocol{Levels: []int{2}, Duration: 6 * time.Second,
		Steady: measure.DefaultSteadyRule(), Score: measure.DefaultScoreRule(), PollEvery: time.Second}
	out := measure.Outcome{Phases: map[string]float64{}}
	if err := m.measure(ctx, b, srv, &out); err != nil {
		t.Fatal(err)
	}
	if out.MeanTPS <= 0 || out.Score <= 0 || out.P95MS <= 0 || len(out.Samples) < 6 {
		t.Fatalf("mean %.1f New-Orders/s, score %.1f, p95 %.1f ms, %d samples: want all positive and 6 samples", out.MeanTPS, out.Score, out.P95MS, len(out.Samples))
	}
	var sum tpcc.Summary
	if err := json.Unmarshal([]byte(out.Summary), &sum); err != nil {
		t.Fatalf("summary %q: %v", out.Summary, err)
	}
	if sum.Workload != "tpcc" || sum.TpmC <= 0 || sum.NewOrderP99MS < sum.NewOrderP95MS || sum.NewOrderP95MS <= 0 {
		t.Fatalf("summary %+v", sum)
	}
	t.Logf("tpmC %.0f (window mean %.1f New-Orders/s x 60 = %.0f), p95 %.1f ms, p99 %.1f ms", sum.TpmC, out.MeanTPS, out.MeanTPS*60, sum.NewOrderP95MS, sum.NewOrderP99MS)
}
