package storage

import (
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Whether a trial's buffer pool loaded its page list is stored and read
// back, by BeginTrial then FinishTrial and by a FinishTrial that inserts
// the row itself; a trial that asked for no load has none.
func TestPoolLoadRoundTrip(t *testing.T) {
	check := func(t *testing.T, db *DB) {
		if err := db.CreateStudy(ctx, Study{Name: "pool", Settings: `{}`}); err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		mk := func(n int, load string) search.Trial {
			return search.Trial{Study: "pool", Number: n, State: search.Complete, Kind: search.Sampled,
				Params: space.Config{"innodb_io_capacity": "1000"}, Started: t0, Ended: t0.Add(time.Minute),
				Outcome: measure.Outcome{Score: 1, MeanTPS: 1, PoolLoad: load}}
		}
		want := []string{"loaded", "cold: Buffer pool(s) load aborted on request", ""}
		if err := db.BeginTrial(ctx, mk(0, "")); err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if err := db.FinishTrial(ctx, mk(i, w), time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		for i, tr := range trials(t, db, "pool") {
			if tr.PoolLoad != want[i] {
				t.Errorf("trial %d: pool load %q, want %q", i, tr.PoolLoad, want[i])
			}
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
