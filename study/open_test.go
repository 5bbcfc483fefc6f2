package study

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/storage"
)

// A resume whose benchmark definition differs from the stored one is
// refused, naming each changed option with its old and new value, unless
// --allow-changes; a study stored before definitions existed resumes.
func TestResumeRefusesChangedDefinition(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(t.TempDir(), "trials.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	def := func(warehouses, version string) *benchdef.Definition {
		return &benchdef.Definition{Driver: "tpcc", Version: version, Options: map[string]string{"warehouses": warehouses, "weight": "45,43,4,4,4", "threads": "16"}}
	}
	req := func(name string, d *benchdef.Definition, allow bool) OpenRequest {
		return OpenRequest{Name: name, Manifest: storage.Manifest{Workload: "tpcc", Threads: 16, Definition: d}, Seed: 1,
			ServerVersion: "10.11", Host: runner.Host{Cores: 2, RAMBytes: 1 << 30}, AllowChanges: allow,
			Started: time.Now(), Logf: t.Logf}
	}
	if _, err := Open(ctx, db, req("s", def("4", "go-tpc v1.0.12"), false)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, db, req("s", def("4", "go-tpc v1.0.12"), false)); err != nil {
		t.Fatalf("same definition: %v", err)
	}
	_, err = Open(ctx, db, req("s", def("8", "go-tpc v1.0.13"), false))
	if !IsUsage(err) {
		t.Fatalf("changed definition: err %v, want a usage error", err)
	}
	for _, want := range []string{"settings.definition --warehouses: stored 4, now 8", "settings.definition version: stored go-tpc v1.0.12, now go-tpc v1.0.13", "--allow-changes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "weight") || strings.Contains(err.Error(), "threads") {
		t.Errorf("refusal names an unchanged option: %v", err)
	}
	if _, err := Open(ctx, db, req("s", def("8", "go-tpc v1.0.13"), true)); err != nil {
		t.Fatalf("--allow-changes: %v", err)
	}
	// A study stored without a definition (before it was recorded).
	if _, err := Open(ctx, db, req("old", nil, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, db, req("old", def("4", "go-tpc v1.0.12"), false)); err != nil {
		t.Fatalf("study without a stored definition: %v", err)
	}
}

// A resumed study keeps its seed: no --seed (0) or the same one resumes, a
// different one is refused instead of being ignored.
func TestResumeKeepsTheSeed(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(t.TempDir(), "trials.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	req := func(seed int64) OpenRequest {
		return OpenRequest{Name: "s", Manifest: storage.Manifest{Workload: "oltp_read_write", Threads: 4}, Seed: seed,
			ServerVersion: "10.11", Host: runner.Host{Cores: 2, RAMBytes: 1 << 30}, Started: time.Now(), Logf: t.Logf}
	}
	if _, err := Open(ctx, db, req(7)); err != nil {
		t.Fatal(err)
	}
	for _, seed := range []int64{0, 7} {
		if o, err := Open(ctx, db, req(seed)); err != nil || o.Study.Seed != 7 {
			t.Errorf("resume with --seed %d: seed %d, %v; want 7", seed, o.Study.Seed, err)
		}
	}
	_, err = Open(ctx, db, req(8))
	if !IsUsage(err) || !strings.Contains(err.Error(), `--seed 8: study "s" was started with seed 7`) {
		t.Fatalf("resume with --seed 8: %v", err)
	}
	// search refuses it before building the sandbox (the server binary
	// here does not exist: reaching the build would fail otherwise).
	dir := t.TempDir()
	cfg := Config{Study: "s", DB: db.Path(), Seed: 8, Workdir: filepath.Join(dir, "sb"), Space: Space{Mysqld: filepath.Join(dir, "no-mariadbd")}}
	db.Close()
	if err := Search(ctx, cfg, silent{}); !IsUsage(err) || !strings.Contains(err.Error(), "--seed 8") {
		t.Fatalf("search with --seed 8: %v", err)
	}
}
