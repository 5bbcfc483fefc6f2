package storage

import (
	"errors"
	"testing"

	"github.com/autotune/autotune/search"
)

func TestImportanceRoundTrip(t *testing.T) {
	db, _ := open(t)
	if err := db.CreateStudy(ctx, StudyRecord{Name: "s"}); err != nil {
		t.Fatal(err)
	}
	imp := []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.7}, {Knob: "innodb_doublewrite", Importance: 0.05}}
	if err := db.SaveImportance(ctx, "s", imp, 30); err != nil {
		t.Fatal(err)
	}
	// A second save replaces the first.
	imp[1].Importance = 0.1
	if err := db.SaveImportance(ctx, "s", imp, 31); err != nil {
		t.Fatal(err)
	}
	got, n, err := db.Importance(ctx, "s")
	if err != nil || n != 31 || len(got) != 2 || got[0] != imp[0] || got[1] != imp[1] {
		t.Fatalf("Importance = %v, %d, %v", got, n, err)
	}
	if err := db.SaveImportance(ctx, "nope", imp, 1); !errors.Is(err, ErrNoStudy) {
		t.Fatalf("unknown study: %v", err)
	}
	if err := db.SaveImportance(ctx, "s", []search.KnobImportance{{Knob: "x", Importance: 1.5}}, 1); err == nil {
		t.Fatal("importance 1.5 must be refused")
	}
	if got, _, _ := db.Importance(ctx, "s"); len(got) != 2 {
		t.Fatalf("a refused save lost the stored rows: %v", got)
	}
}

func TestNewKindsStored(t *testing.T) {
	db, _ := open(t)
	if err := db.CreateStudy(ctx, StudyRecord{Name: "s"}); err != nil {
		t.Fatal(err)
	}
	for i, k := range []search.Kind{search.Expert, search.Screen, search.Coordinate, search.Repeat, search.Refine} {
		if err := db.BeginTrial(ctx, search.Trial{Study: "s", Number: i, Kind: k}); err != nil {
			t.Fatalf("kind %s: %v", k, err)
		}
	}
	trials, err := db.Trials(ctx, "s")
	if err != nil || len(trials) != 5 || trials[0].Kind != search.Expert {
		t.Fatalf("trials %v, %v", trials, err)
	}
	if err := db.BeginTrial(ctx, search.Trial{Study: "s", Number: 9, Kind: "bogus"}); err == nil {
		t.Fatal("unknown kind must be refused")
	}
}
