package storage

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An apply's row and trail round-trip; a pending phase is told from an
// ended one; a DSN with a password is refused.
func TestAppliesRoundTrip(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateApply(ctx, ApplyRecord{DSN: "app:pw@tcp(db1:3306)/", Started: time.Now(), Phase: ApplyPlanned}); err == nil || strings.Contains(err.Error(), "pw@") {
		t.Errorf("a DSN with a password: %v", err)
	}
	id, err := db.CreateApply(ctx, ApplyRecord{Server: "s1", DSN: "app@tcp(db1:3306)/", Source: "best.cnf", Started: time.Now(), Phase: ApplyPlanned, Changes: `[{"a":1}]`})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetApplySaved(ctx, id, `{"x":"1"}`); err != nil {
		t.Fatal(err)
	}
	if err := db.SetApplyPhase(ctx, id, ApplyWatching, "", ""); err != nil {
		t.Fatal(err)
	}
	if err := db.AddApplyEvent(ctx, ApplyEvent{Apply: id, At: time.Now(), Kind: "window", Detail: "B 1"}); err != nil {
		t.Fatal(err)
	}
	a, err := db.Apply(ctx, id)
	if err != nil || a.Phase != ApplyWatching || !a.Ended.IsZero() || a.Saved != `{"x":"1"}` || !PendingPhase(a.Phase) {
		t.Fatalf("apply %+v, %v", a, err)
	}
	if err := db.SetApplyPhase(ctx, id, ApplyReverted, "fail", "slower"); err != nil {
		t.Fatal(err)
	}
	a, _ = db.Apply(ctx, id)
	if a.Ended.IsZero() || a.Verdict != "fail" || PendingPhase(a.Phase) {
		t.Errorf("ended apply %+v", a)
	}
	ev, err := db.ApplyEvents(ctx, id)
	if err != nil || len(ev) != 3 || ev[1].Kind != "window" || ev[2].Detail != "reverted (fail): slower" {
		t.Errorf("events %+v, %v", ev, err)
	}
	if all, _ := db.Applies(ctx, "other"); len(all) != 0 {
		t.Errorf("another server's applies: %v", all)
	}
}
