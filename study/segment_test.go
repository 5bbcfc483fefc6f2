package study

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/strategy"
)

// observing is a strategy that records what it is told of the history.
type observing struct {
	search.Strategy
	observed []space.Config
}

func (o *observing) Observe(c space.Config, v float64) error {
	o.observed = append(o.observed, c)
	return o.Strategy.(interface {
		Observe(space.Config, float64) error
	}).Observe(c, v)
}

// A study resumed with --allow-changes under another durability policy
// starts a new segment of its history: the run says so, its strategy is
// told none of the earlier trials, it measures its own baseline, its
// trial numbers go on after the earlier ones, and its best and its
// views (LoadStudy: export, show, report, diff; compare) are the new
// segment's alone, though the earlier segment's scores are higher.
func TestAllowChangesStartsANewSegment(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.db")
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sp := space.Default()
	var logs []string
	req := func(durability string, allow bool) OpenRequest {
		return OpenRequest{Name: "s", Manifest: storage.Manifest{Workload: "oltp_read_write", Threads: 4, Space: &storage.SpaceManifest{Durability: durability}},
			Seed: 3, ServerVersion: "10.11.19-MariaDB", Host: runner.Host{Cores: 2, RAMBytes: 8 << 30}, AllowChanges: allow,
			Started: time.Now(), Logf: func(f string, a ...any) { logs = append(logs, strings.TrimSpace(fmt.Sprintf(f, a...))) }}
	}
	run := func(op Opened, scale float64, trials int) (search.Result, *observing) {
		t.Helper()
		inner, err := strategy.NewStrategy("random", sp, strategy.StrategyOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		obs := &observing{Strategy: inner}
		st := &search.Loop{Name: "s", Strategy: obs, Store: storage.SegmentStore{DB: db, Key: op.Fingerprint.Key()}, FirstNumber: op.Next,
			MaxTrials: trials, Space: sp, Base: sp.Fixed(),
			Objective: func(_ context.Context, tr search.Trial) (measure.Outcome, error) {
				v := scale * float64(100+len(tr.Params))
				return measure.Outcome{Score: v, MeanTPS: v}, nil
			}}
		res, err := st.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return res, obs
	}
	op, err := Open(ctx, db, req("strict", false))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := run(op, 10, 4) // scores of 1000 and more
	if _, err := Open(ctx, db, req("relaxed", false)); !IsUsage(err) {
		t.Fatalf("changed durability without --allow-changes: %v, want a usage error", err)
	}
	logs = nil
	op, err = Open(ctx, db, req("relaxed", true))
	if err != nil {
		t.Fatal(err)
	}
	log := strings.Join(logs, "\n")
	if !strings.Contains(log, "4 trial(s) were measured under other conditions (durability strict → relaxed)") ||
		!strings.Contains(log, "starts a new segment (fingerprint "+op.Fingerprint.Key()+") and measures its own baseline") {
		t.Errorf("the resume does not say it starts a new segment:\n%s", log)
	}
	second, obs := run(op, 1, 3) // scores near 100
	if len(obs.observed) != 0 {
		t.Errorf("the strategy was told %d trials of the earlier segment", len(obs.observed))
	}
	if len(second.Trials) != 3 || second.Trials[0].Kind != search.Baseline || second.Trials[0].Number != len(first.Trials) {
		t.Fatalf("new segment's trials %v; want 3 from number %d, a baseline first", numbersOf(second.Trials), len(first.Trials))
	}
	if second.Best.Score > 200 || second.Baseline.Number != len(first.Trials) {
		t.Errorf("new segment's best %d (%.0f) over baseline %d: an earlier segment's trial", second.Best.Number, second.Best.Score, second.Baseline.Number)
	}
	all, err := db.Trials(ctx, "s")
	if err != nil || len(all) != 7 {
		t.Fatalf("store holds %d trials (%v), want both segments' 7", len(all), err)
	}
	_, st, own, err := LoadStudy(ctx, path, "s")
	if err != nil {
		t.Fatal(err)
	}
	if best, _ := search.Best(own); len(own) != 3 || best.Number != second.Best.Number || st.Name != "s" {
		t.Errorf("LoadStudy: %v with best %d; want the new segment's 3 trials, best %d", numbersOf(own), best.Number, second.Best.Number)
	}
	// The export is the new segment's best, under the new fingerprint.
	var exp bytes.Buffer
	if _, err := Export(ctx, ExportRequest{DB: path, Study: "s", Format: "cnf", Trial: -1, Now: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)}, &exp); err != nil {
		t.Fatal(err)
	}
	if head := exp.String(); !strings.Contains(head, fmt.Sprintf("# trial %d (", second.Best.Number)) || !strings.Contains(head, "# measured under fingerprint "+op.Fingerprint.Key()+" ") ||
		!strings.Contains(head, `durability="relaxed"`) {
		t.Errorf("export of the two-segment study:\n%s", head)
	}
	// A second resume under the new conditions is no change: no line.
	logs = nil
	if _, err := Open(ctx, db, req("relaxed", false)); err != nil || strings.Contains(strings.Join(logs, "\n"), "other conditions") {
		t.Errorf("resume under the same conditions: %v\n%s", err, strings.Join(logs, "\n"))
	}
}

func numbersOf(ts []search.Trial) []int {
	var out []int
	for _, t := range ts {
		out = append(out, t.Number)
	}
	return out
}

// A benchmark build replaced at the same path is another fingerprint: its
// binary's digest is in the manifest, so a resume is refused without
// --allow-changes and starts a new segment with it, naming the build; a
// server build's fingerprint carries its version.
func TestReplacedBuildIsAnotherFingerprint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bin := filepath.Join(dir, "sysbench-lua54")
	identify := func(content string) storage.Build {
		t.Helper()
		if err := os.WriteFile(bin, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := identified(storage.Build{Name: "lua54", Path: bin}, "--benchmark-build")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b1, b2 := identify("#!/bin/sh\necho 1.0.20\n"), identify("#!/bin/sh\necho 1.1.0\n")
	if b1.SHA256 == b2.SHA256 || len(b1.SHA256) != 64 {
		t.Fatalf("digests %q %q", b1.SHA256, b2.SHA256)
	}
	if _, err := identified(storage.Build{Name: "gone", Path: filepath.Join(dir, "gone")}, "--benchmark-build"); err == nil || !strings.Contains(err.Error(), "--benchmark-build gone=") {
		t.Errorf("missing build: %v", err)
	}
	db, err := storage.Open(filepath.Join(dir, "trials.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logs []string
	req := func(b storage.Build, allow bool) OpenRequest {
		return OpenRequest{Name: "s", Manifest: storage.Manifest{Workload: "oltp_read_write", Threads: 4,
			Space: &storage.SpaceManifest{Durability: "strict", BenchmarkBuilds: []storage.Build{b}}},
			Seed: 3, ServerVersion: "10.11.19-MariaDB", Host: runner.Host{Cores: 2, RAMBytes: 8 << 30}, AllowChanges: allow,
			Started: time.Now(), Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }}
	}
	op1, err := Open(ctx, db, req(b1, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := (storage.SegmentStore{DB: db, Key: op1.Fingerprint.Key()}).FinishTrial(ctx, search.Trial{Study: "s", Number: 0, State: search.Complete, Kind: search.Baseline,
		Params: space.Config{}, Started: time.Now(), Ended: time.Now(), Outcome: measure.Outcome{Score: 1, MeanTPS: 1}}, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, db, req(b2, false)); !IsUsage(err) || !strings.Contains(err.Error(), "benchmark_builds") {
		t.Fatalf("replaced build without --allow-changes: %v", err)
	}
	op2, err := Open(ctx, db, req(b2, true))
	if err != nil {
		t.Fatal(err)
	}
	log := strings.Join(logs, "\n")
	if op2.Fingerprint.Key() == op1.Fingerprint.Key() || !strings.Contains(log, "benchmark_builds lua54 sha256:"+b1.SHA256[:12]+" → lua54 sha256:"+b2.SHA256[:12]) {
		t.Errorf("the replaced build is not a new segment named by its digest:\n%s", log)
	}
	srv := storage.FingerprintOf(storage.Manifest{Space: &storage.SpaceManifest{ServerBuilds: []storage.Build{{Name: "opt", Version: versionWord("/opt/mariadbd  Ver 10.11.20-MariaDB for linux"), SHA256: b1.SHA256}}}}, "v", 2, 1)
	if got := srv.Diff(nil); len(got) == 0 || !strings.Contains(storage.DiffText(got), "server_builds opt 10.11.20-MariaDB sha256:"+b1.SHA256[:12]) {
		t.Errorf("server build fingerprint: %s", storage.DiffText(got))
	}
}

// A study made before builds' digests and benchmark definitions were
// recorded resumes without --allow-changes and keeps its history in one
// segment: the digests are filled in from this run's binaries at the same
// paths, and a definition recorded now for the first time is no change.
func TestLegacyStudiesKeepTheirHistory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bin := filepath.Join(dir, "sysbench-b")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := identified(storage.Build{Name: "b", Path: bin}, "--benchmark-build")
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(filepath.Join(dir, "trials.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	legacy := storage.Manifest{Workload: "oltp_read_write", Threads: 4,
		Space: &storage.SpaceManifest{Durability: "strict", BenchmarkBuilds: []storage.Build{{Name: "b", Path: bin}}}}
	if err := db.CreateStudy(ctx, storage.StudyRecord{Name: "old", Settings: legacy.JSON(), Seed: 3, ServerVersion: "10.11.19-MariaDB", Cores: 2, RAMBytes: 8 << 30}); err != nil {
		t.Fatal(err)
	}
	for n := range 2 {
		if err := db.FinishTrial(ctx, search.Trial{Study: "old", Number: n, State: search.Complete, Kind: search.Baseline, Params: space.Config{},
			Started: time.Now(), Ended: time.Now(), Outcome: measure.Outcome{Score: 1, MeanTPS: 1}}, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	now := legacy
	now.Space = &storage.SpaceManifest{Durability: "strict", BenchmarkBuilds: []storage.Build{b}}
	now.Definition = &benchdef.Definition{Driver: "sysbench", Version: "sysbench 1.0.20", Options: map[string]string{"tables": "8"}}
	var logs []string
	op, err := Open(ctx, db, OpenRequest{Name: "old", Manifest: now, ServerVersion: "10.11.19-MariaDB", Host: runner.Host{Cores: 2, RAMBytes: 8 << 30},
		Started: time.Now(), Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatalf("resume of a legacy study: %v", err)
	}
	log := strings.Join(logs, "\n")
	if !strings.Contains(log, "recorded the digests of its builds' binaries") || strings.Contains(log, "other conditions") {
		t.Errorf("resume log:\n%s", log)
	}
	own, err := storage.SegmentStore{DB: db, Key: op.Fingerprint.Key()}.Trials(ctx, "old")
	if err != nil || len(own) != 2 {
		t.Errorf("history after the resume: %d trials (%v), want the 2 earlier ones", len(own), err)
	}
}
