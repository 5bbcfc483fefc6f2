package storage

import (
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// A seed trial's source and every trial's buffer pool load state are
// stored and read back, by BeginTrial then FinishTrial and by a
// FinishTrial that inserts the row itself; trials without them have none.
func TestTrialSourceRoundTrip(t *testing.T) {
	check := func(t *testing.T, db *DB) {
		if err := db.CreateStudy(ctx, StudyRecord{Name: "src", Settings: `{}`}); err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		mk := func(n int, kind search.Kind, source, load string) search.Trial {
			return search.Trial{Study: "src", Number: n, State: search.Complete, Kind: kind, Source: source,
				Params: space.Config{"innodb_io_capacity": "1000"}, Started: t0, Ended: t0.Add(time.Minute),
				Outcome: measure.Outcome{Score: 1, MeanTPS: 1, PoolLoad: load}}
		}
		a := mk(0, search.Baseline, "", "loaded")
		b := mk(1, search.Seed, "prod.cnf:ram=64G,cores=16", "cold: Buffer pool(s) load aborted on request")
		c := mk(2, search.Seed, "old.db:s1", "")
		if err := db.BeginTrial(ctx, b); err != nil {
			t.Fatal(err)
		}
		for _, tr := range []search.Trial{a, b, c} {
			if err := db.FinishTrial(ctx, tr, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		got := trials(t, db, "src")
		if len(got) != 3 || got[0].Source != "" || got[1].Source != b.Source || got[2].Source != c.Source || got[1].Kind != search.Seed {
			t.Fatalf("sources %q %q %q (kinds %s %s %s)", got[0].Source, got[1].Source, got[2].Source, got[0].Kind, got[1].Kind, got[2].Kind)
		}
		for i, want := range []string{a.PoolLoad, b.PoolLoad, c.PoolLoad} {
			if got[i].PoolLoad != want {
				t.Errorf("trial %d: pool load %q, want %q", i, got[i].PoolLoad, want)
			}
		}
		one, found, err := db.Trial(ctx, "src", 2)
		if err != nil || !found || one.Source != c.Source {
			t.Fatalf("trial 2: %q %v %v", one.Source, found, err)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		db, err := Open(":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		check(t, db)
	})
	t.Run("mysql", func(t *testing.T) { check(t, openMySQLStore(t)) })
}
