package storage

import (
	"testing"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

func TestFinishRejectedTrial(t *testing.T) {
	db := withStudy(t)
	start := time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)
	tr := search.Trial{Study: "s", Number: 0, Kind: search.Sampled, Params: space.Config{"innodb_buffer_pool_size": "17179869184"}, Started: start}
	if err := db.BeginTrial(ctx, tr); err != nil {
		t.Fatal(err)
	}
	tr.State = search.Rejected
	tr.Ended = start.Add(time.Millisecond)
	tr.Failure = "rejected before start: estimated memory 16.6G exceeds the memory budget 12.0G"
	if err := db.FinishTrial(ctx, tr, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	got := trials(t, db, "s")
	if len(got) != 1 || got[0].State != search.Rejected || got[0].Failure != tr.Failure {
		t.Fatalf("got %+v", got)
	}
	// A rejected trial is finished: not marked interrupted on resume.
	if in, err := db.MarkInterrupted(ctx, "s"); err != nil || len(in) != 0 {
		t.Fatalf("MarkInterrupted = %v, %v", in, err)
	}
}
