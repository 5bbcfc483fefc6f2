package storage

import (
	"fmt"
	"testing"

	"github.com/autotune/autotune/internal/teststore"
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

// TestStoreSuiteMySQL runs the store suite on a MariaDB store: one
// server, a database of its own for each case.
func TestStoreSuiteMySQL(t *testing.T) {
	srv := teststore.Start(t, "")
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
