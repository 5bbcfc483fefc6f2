package storage

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// testLiveSamples: a running trial's live samples are read back in order,
// also through a read-only store, which refuses writes; finishing the
// trial drops them and keeps its samples, and a late live sample is not
// written.
func testLiveSamples(t *testing.T, db *DB) {
	if err := db.CreateStudy(ctx, StudyRecord{Name: "s", Settings: `{}`}); err != nil {
		t.Fatal(err)
	}
	tr := search.Trial{Study: "s", Number: 0, Kind: search.Baseline, Params: space.Config{}, Started: time.Now()}
	if err := db.BeginTrial(ctx, tr); err != nil {
		t.Fatal(err)
	}
	hll := 7.0
	live := []measure.Sample{{T: 1, Warmup: true, TPS: 100, Threads: 4}, {T: 2, TPS: 200, LatPct: 95, LatMS: 3.5, HLL: &hll}}
	if err := db.AppendLiveSamples(ctx, "s", 0, live[:1]); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendLiveSamples(ctx, "s", 0, live[1:]); err != nil {
		t.Fatal(err)
	}
	// A trial that was never begun has nothing live.
	if err := db.AppendLiveSamples(ctx, "s", 9, live); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(rawPath(db))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for name, d := range map[string]*DB{"store": db, "read-only store": ro} {
		got, err := d.LiveSamples(ctx, "s", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].TPS != 100 || !got[0].Warmup || got[0].Threads != 4 || got[1].T != 2 || got[1].LatMS != 3.5 || got[1].HLL == nil || *got[1].HLL != 7 {
			t.Errorf("%s: live samples %+v", name, got)
		}
		if n, err := d.LiveSamples(ctx, "s", 9); err != nil || len(n) != 0 {
			t.Errorf("%s: live samples of a trial never begun: %v, %v", name, n, err)
		}
	}
	if err := ro.CreateStudy(ctx, StudyRecord{Name: "w", Settings: `{}`}); err == nil {
		t.Error("a read-only store created a study")
	}
	tr.State, tr.Ended = search.Complete, tr.Started.Add(time.Minute)
	tr.Samples = []measure.Sample{{T: 1, TPS: 150}}
	if err := db.FinishTrial(ctx, tr, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendLiveSamples(ctx, "s", 0, live); err != nil {
		t.Fatal(err)
	}
	if got, err := ro.LiveSamples(ctx, "s", 0); err != nil || len(got) != 0 {
		t.Errorf("live samples after the trial finished: %+v, %v", got, err)
	}
	if got, err := ro.Samples(ctx, "s", 0); err != nil || len(got) != 1 || got[0].TPS != 150 {
		t.Errorf("samples after the trial finished: %+v, %v", got, err)
	}
	// A trial left running by a killed process loses its live samples
	// when it is marked interrupted.
	tr2 := search.Trial{Study: "s", Number: 1, Kind: search.Sampled, Params: space.Config{}, Started: time.Now()}
	if err := db.BeginTrial(ctx, tr2); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendLiveSamples(ctx, "s", 1, live); err != nil {
		t.Fatal(err)
	}
	if _, err := db.MarkInterrupted(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if got, err := ro.LiveSamples(ctx, "s", 1); err != nil || len(got) != 0 {
		t.Errorf("live samples of an interrupted trial: %+v, %v", got, err)
	}
}

// rawPath returns what opens db again: the SQLite path, or the MySQL URL
// (its password comes from the environment, never the URL).
func rawPath(db *DB) string { return db.Path() }

// TestOpenReadOnlyMissingFile: the dashboard never creates a store.
func TestOpenReadOnlyMissingFile(t *testing.T) {
	if db, err := OpenReadOnly(t.TempDir() + "/none.db"); err == nil {
		db.Close()
		t.Fatal("OpenReadOnly opened a file that does not exist")
	}
}

// A store written by the previous release (schema 14: no live samples,
// no fingerprints) is refused by a read-only reader, which cannot upgrade
// it, with the command that does; once upgraded, it reads.
func TestOpenReadOnlyOlderStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateStudy(ctx, StudyRecord{Name: "s", Settings: `{}`}); err != nil {
		t.Fatal(err)
	}
	p, err := db.provider()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if ro, err := OpenReadOnly(path); err == nil || !strings.Contains(err.Error(), "(version 14)") || !strings.Contains(err.Error(), "autotune studies --db "+path) {
		if ro != nil {
			ro.Close()
		}
		t.Fatalf("schema 14 read-only: %v", err)
	}
	db, err = Open(path) // any command that writes the store upgrades it
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Trials(ctx, "s"); err != nil {
		t.Errorf("trials of the upgraded store: %v", err)
	}
}
