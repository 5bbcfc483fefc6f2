package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// A minimisation begun with 2 pairs a step resumes only with 2: its steps
// are read back from its runs in groups of that many; a new best starts a
// new minimisation with any number.
func TestMinimizeResumesWithItsPairs(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(t.TempDir(), "trials.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateStudy(ctx, storage.StudyRecord{Name: "s"}); err != nil {
		t.Fatal(err)
	}
	history := []search.Trial{
		{Number: 0, Kind: search.Baseline, State: search.Complete, Outcome: measure.Outcome{Score: 500, MeanTPS: 500}},
		{Number: 1, Kind: search.Sampled, State: search.Complete, Params: space.Config{"innodb_buffer_pool_size": "1073741824"}, Outcome: measure.Outcome{Score: 700, MeanTPS: 700}},
	}
	if err := db.SaveMinimization(ctx, "s", search.Minimized{Best: 1, Goal: measure.GoalTPS, Config: space.Config{}, Pairs: 2}); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Study: "s", MinimizePairs: 2}
	if err := samePairs(ctx, db, cfg, history); err != nil {
		t.Fatalf("same pairs: %v", err)
	}
	cfg.MinimizePairs = 3
	err = samePairs(ctx, db, cfg, history)
	if !IsUsage(err) || !strings.Contains(err.Error(), "--minimize-pairs 3") || !strings.Contains(err.Error(), "--minimize-pairs 2") {
		t.Fatalf("other pairs: %v, want a usage error naming both", err)
	}
	history[1].Score = 400 // the baseline is now the best: nothing stored applies
	if err := samePairs(ctx, db, cfg, history); err != nil {
		t.Fatalf("new best: %v", err)
	}
}

// minimize on a store without the study is refused before anything is
// built: here the server binary does not exist, so reaching the build
// would fail with another error.
func TestMinimizeMissingStudyBeforeBuild(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Study: "nope", DB: emptyStore(t, dir), Workdir: filepath.Join(dir, "sb"), Space: Space{Mysqld: filepath.Join(dir, "no-mariadbd")}}
	err := Minimize(context.Background(), cfg, silent{})
	if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), `--study "nope": no such study in --db`) {
		t.Fatalf("err %v, want the missing study named", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "sb")); serr == nil {
		t.Fatal("the sandbox was created for a missing study")
	}
}
