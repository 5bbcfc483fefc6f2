package search

import (
	"context"
	"strings"
	"testing"
)

// TestMemoryStore: trials come back in the order begun, a finish replaces
// the begun trial, and a trial not begun cannot be finished.
func TestMemoryStore(t *testing.T) {
	ctx := context.Background()
	var m MemoryStore
	for n := 0; n < 2; n++ {
		if err := m.BeginTrial(ctx, Trial{Number: n, State: Running}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.FinishTrial(ctx, Trial{Number: 1, State: Complete}, 0); err != nil {
		t.Fatal(err)
	}
	if err := m.FinishTrial(ctx, Trial{Number: 7, State: Complete}, 0); err == nil || !strings.Contains(err.Error(), "trial 7: not begun") {
		t.Fatalf("finish of a trial not begun: %v", err)
	}
	ts, err := m.Trials(ctx, "any")
	if err != nil || len(ts) != 2 || ts[0].State != Running || ts[1].State != Complete {
		t.Fatalf("trials %+v, %v", ts, err)
	}
}
