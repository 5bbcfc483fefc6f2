package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// TestSearchSeededFromCnfAndStudy runs a sandboxed study (the scripted
// benchmark, short trials) seeded with a my.cnf and with an earlier
// study from a bigger host: trial 0 is the baseline, trials 1 and 2 the
// two seeds in the order given, stored with their sources, the study's
// buffer pool rescaled to this host; then the strategy's proposals.
func TestSearchSeededFromCnfAndStudy(t *testing.T) {
	realtest.Require(t)
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "at-seed")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cnf := filepath.Join(dir, "prod.cnf")
	// innodb_adaptive_hash_index=ON is not MariaDB 10.11's default (OFF
	// since 10.5), so the recorded configuration keeps it: a study records
	// a setting at the server's default by leaving it out (Essential).
	if err := os.WriteFile(cnf, []byte("[mysqld]\ndatadir = /var/lib/mysql\ninnodb_io_capacity = 1500\ninnodb_adaptive_hash_index = ON\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The earlier study ran on a host with 4 times this one's RAM.
	host, err := runner.ReadHost()
	if err != nil {
		t.Fatal(err)
	}
	old := seedDBOn(t, dir, space.Config{"innodb_buffer_pool_size": fmt.Sprint(1 << 30), "innodb_flush_neighbors": "0"}, host.Cores, 4*host.RAMBytes)
	cfg := Config{Study: "seeded", DB: filepath.Join(dir, "t.db"), Trials: 4, Workdir: filepath.Join(dir, "sb"), Strategy: "random",
		SeedFrom: []string{cnf, old + ":old"},
		Bench:    BenchSettings{Driver: "scripted", Workload: "scripted", Tables: 1, TableSize: 1, Threads: []int{4}},
		Measure: Measure{Warmup: 4 * time.Second, Duration: 6 * time.Second, Lambda: 0.5, Objective: "tps", DipShare: 0.5,
			SteadyBlock: 1 * time.Second, SteadySpread: 0.1, SteadyTrend: 0.1},
		Space: Space{Durability: "strict", MemoryBudget: "75%", Apply: ApplyRestart}}
	prog := &logged{}
	if err := Search(ctx, cfg, prog); err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	trials, err := db.Trials(ctx, "seeded")
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 4 {
		t.Fatalf("%d trials, want 4", len(trials))
	}
	pool := fmt.Sprint(256 << 20) // 1G x 1/4
	want := []struct {
		kind   search.Kind
		source string
		params map[string]string
	}{
		{search.Baseline, "", nil},
		{search.Seed, cnf, map[string]string{"innodb_io_capacity": "1500", "innodb_adaptive_hash_index": "ON"}},
		{search.Seed, old + ":old", map[string]string{"innodb_buffer_pool_size": pool, "innodb_flush_neighbors": "0"}},
		{search.Sampled, "", nil},
	}
	for i, w := range want {
		tr := trials[i]
		if tr.Kind != w.kind || tr.Source != w.source || tr.State != search.Complete {
			t.Errorf("trial %d: %s %s from %q, want %s from %q", i, tr.State, tr.Kind, tr.Source, w.kind, w.source)
		}
		for k, v := range w.params {
			if tr.Params[k] != v {
				t.Errorf("trial %d: %s = %q, want %q (params %v)", i, k, tr.Params[k], v, tr.Params)
			}
		}
	}
	log := strings.Join(prog.lines, "\n")
	t.Logf("search printed:\n%s", log)
	if !strings.Contains(log, "rescaled for this host: innodb_buffer_pool_size 1G -> 256M") {
		t.Errorf("the rescaled buffer pool is not listed:\n%s", log)
	}
	// Resumed with the same seeds: none is measured again.
	cfg.Trials = 5
	if err := Search(ctx, cfg, &logged{}); err != nil {
		t.Fatal(err)
	}
	if trials, err = db.Trials(ctx, "seeded"); err != nil || len(trials) != 5 || trials[4].Kind == search.Seed {
		t.Fatalf("after resume: %v, %d trials, last %s", err, len(trials), trials[len(trials)-1].Kind)
	}
}
