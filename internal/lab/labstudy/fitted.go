package labstudy

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/autotune/autotune/internal/lab"
	"github.com/autotune/autotune/storage"
)

// FittedLandscape returns the bench-search landscape fitted to the trials
// of study name in the store dbPath (lab.NewFitted over the space of
// the study's host: its cores, RAM and settings). A study not in the store
// is a lab.UsageError naming --fit-study; a store that cannot be opened,
// or too few trials to fit, an error.
func FittedLandscape(ctx context.Context, dbPath, name string) (lab.Landscape, error) {
	fix, err := fitFixture(ctx, dbPath, name, "", "--fit-db", "--fit-study")
	if err != nil {
		return nil, err
	}
	return lab.NewFitted(fix.Input("fitted to " + dbPath + " study " + name))
}

// WriteFitFixture writes the trials of study name in the store dbPath as
// a lab.FitFixture (the form the built-in fitted landscapes are kept
// in), about saying where they come from. A study not in the store is a
// lab.UsageError; a store that cannot be read, an error. Errors name them
// as cmd/fitfixture's -db and -study.
func WriteFitFixture(ctx context.Context, dbPath, name, about string, w io.Writer) error {
	fix, err := fitFixture(ctx, dbPath, name, about, "-db", "-study")
	if err != nil {
		return err
	}
	return fix.Write(w)
}

// fitFixture reads the trials of study name in the store dbPath that were
// measured under its current conditions (storage.StudyTrials); dbFlag and
// studyFlag name the two in errors (the caller's flags).
func fitFixture(ctx context.Context, dbPath, name, about, dbFlag, studyFlag string) (lab.FitFixture, error) {
	db, err := openExisting(dbFlag, dbPath)
	if err != nil {
		return lab.FitFixture{}, err
	}
	defer db.Close()
	st, found, err := db.Study(ctx, name)
	if err != nil {
		return lab.FitFixture{}, err
	}
	if !found {
		return lab.FitFixture{}, lab.Usagef("%s %q: no such study in %s", studyFlag, name, dbPath)
	}
	trials, _, err := storage.StudyTrials(ctx, db, st)
	if err != nil {
		return lab.FitFixture{}, err
	}
	return lab.NewFitFixture(about, st.Cores, st.RAMBytes, st.Settings, trials), nil
}

// openExisting opens the store path, named by flag in errors; a SQLite
// file that does not exist is an error, never created.
func openExisting(flag, path string) (*storage.DB, error) {
	if _, err := os.Stat(path); err != nil && !storage.IsMySQL(path) {
		return nil, fmt.Errorf("%s %q: %w (run autotune search first)", flag, path, err)
	}
	return storage.Open(path)
}
