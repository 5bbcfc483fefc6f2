package storage

import (
	"fmt"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// storeSuite is what every store must do alike, whatever its backend:
// each case gets a fresh, empty store.
var storeSuite = []struct {
	name string
	run  func(t *testing.T, db *DB)
}{
	{"Studies", testStudies},
	{"BeginFinishRoundTrip", testBeginFinishRoundTrip},
	{"FinishNaNAndEmptyValues", testFinishNaNAndEmptyValues},
	{"FinishFailedTrialNullScore", testFinishFailedTrialNullScore},
	{"FinishWithoutBegin", testFinishWithoutBegin},
	{"TrialErrors", testTrialErrors},
	{"MarkInterrupted", testMarkInterrupted},
	{"SpentAccumulates", testSpentAccumulates},
	{"NextTrialNumber", testNextTrialNumber},
	{"RecordChange", testRecordChange},
	{"NamesUpdateRefinish", testNamesUpdateRefinish},
	{"LiveSamples", testLiveSamples},
}

// testNamesUpdateRefinish: study names are case-sensitive, an update with
// unchanged values succeeds, and finishing a trial again replaces its
// samples.
func testNamesUpdateRefinish(t *testing.T, db *DB) {
	st := StudyRecord{Name: "s", Settings: `{"threads":16}`}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateStudy(ctx, StudyRecord{Name: "S", Settings: `{}`}); err != nil {
		t.Fatalf("names are case-sensitive: %v", err)
	}
	if err := db.UpdateStudy(ctx, st); err != nil {
		t.Fatalf("update with unchanged values: %v", err)
	}
	tr := search.Trial{Study: "s", Number: 0, Kind: search.Baseline, Params: space.Config{}, Started: time.Now()}
	if err := db.BeginTrial(ctx, tr); err != nil {
		t.Fatal(err)
	}
	tr.State, tr.Ended = search.Complete, tr.Started.Add(time.Minute)
	tr.Samples = []measure.Sample{{T: 1, TPS: 400}, {T: 2, TPS: 500}}
	if err := db.FinishTrial(ctx, tr, time.Minute); err != nil {
		t.Fatal(err)
	}
	tr.Samples = []measure.Sample{{T: 1, TPS: 1}}
	if err := db.FinishTrial(ctx, tr, 0); err != nil {
		t.Fatal(err)
	}
	if s, err := db.Samples(ctx, "s", 0); err != nil || len(s) != 1 || s[0].TPS != 1 {
		t.Fatalf("samples after finishing again: %+v, %v", s, err)
	}
}

// TestStoreSuiteSQLite runs the store suite on trials.db files.
func TestStoreSuiteSQLite(t *testing.T) {
	for _, c := range storeSuite {
		t.Run(c.name, func(t *testing.T) {
			db, _ := open(t)
			c.run(t, db)
		})
	}
}

// TestStoreSuiteMySQL runs the store suite on a store on each server of
// the real-server matrix (MariaDB 10.11 and 11.8, MySQL 9.7): one server
// each, a database of its own for each case.
func TestStoreSuiteMySQL(t *testing.T) {
	realtest.EachServer(t, testStoreSuiteMySQL)
}

func testStoreSuiteMySQL(t *testing.T, s realtest.Server) {
	srv := teststore.StartOn(t, s, "")
	for i, c := range storeSuite {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(srv.URL(fmt.Sprintf("suite%d", i)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			c.run(t, db)
		})
	}
}
