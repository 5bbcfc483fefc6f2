package storage

import (
	"errors"
	"reflect"
	"testing"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// A minimisation round-trips through trials.db, a second save replaces
// the first, and its runs are stored with the trial they minimise.
func TestMinimizationRoundTrip(t *testing.T) {
	db, _ := open(t)
	if err := db.CreateStudy(ctx, StudyRecord{Name: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, found, err := db.Minimization(ctx, "s"); found || err != nil {
		t.Fatalf("before any save: found %v, %v", found, err)
	}
	m := search.Minimized{Best: 7, Goal: measure.GoalTPS, Changes: 3, Config: space.Config{"innodb_buffer_pool_size": "1073741824"},
		Steps: []search.MinStep{
			{Knobs: []string{"innodb_sync_spin_loops", "innodb_purge_batch_size"}, Lead: "innodb_purge_batch_size", Values: space.Config{"innodb_sync_spin_loops": "114", "innodb_purge_batch_size": "17"},
				Status: search.MinReverted, Pct: -1.5, LoPct: -9, HiPct: 6.5, Pairs: 2},
			{Knobs: []string{"innodb_buffer_pool_size"}, Lead: "innodb_buffer_pool_size", Values: space.Config{"innodb_buffer_pool_size": "1073741824"}, Status: search.MinKept, Pct: 48, LoPct: 40, HiPct: 56, Pairs: 2},
			{Knobs: []string{"innodb_old_blocks_pct"}, Values: space.Config{"innodb_old_blocks_pct": "50"}, Status: search.MinUntested},
		},
		Check: &search.MinCheck{Pct: -0.5, LoPct: -7, HiPct: 6, Pairs: 2}, Done: true, Accepted: true, Runs: 12, Pairs: 2}
	if err := db.SaveMinimization(ctx, "s", search.Minimized{Best: 7, Goal: measure.GoalTPS, Config: space.Config{}, Steps: m.Steps[:1]}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveMinimization(ctx, "s", m); err != nil {
		t.Fatal(err)
	}
	got, found, err := db.Minimization(ctx, "s")
	if err != nil || !found {
		t.Fatalf("found %v, %v", found, err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("got  %+v\nwant %+v", got, m)
	}
	if err := db.SaveMinimization(ctx, "nope", m); !errors.Is(err, ErrNoStudy) {
		t.Fatalf("unknown study: %v", err)
	}
	// Nothing to minimise removes it.
	if err := db.SaveMinimization(ctx, "s", search.Minimized{Best: -1}); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := db.Minimization(ctx, "s"); found {
		t.Fatal("a state with nothing to minimise must remove the stored one")
	}
	for i, k := range []search.Kind{search.MinCurrent, search.MinRevert, search.Minimal, search.MinFull} {
		tr := search.Trial{Study: "s", Number: i, Kind: k, RepeatLink: search.RepeatLink{RepeatOf: 7}}
		if err := db.BeginTrial(ctx, tr); err != nil {
			t.Fatalf("kind %s: %v", k, err)
		}
		tr.State = search.Complete
		if err := db.FinishTrial(ctx, tr, 0); err != nil {
			t.Fatal(err)
		}
	}
	trials, err := db.Trials(ctx, "s")
	if err != nil || len(trials) != 4 || trials[3].Kind != search.MinFull || trials[3].RepeatOf != 7 {
		t.Fatalf("trials %+v, %v", trials, err)
	}
}
