package study

import (
	"context"

	"github.com/autotune/autotune/search/harness"
	"github.com/autotune/autotune/storage"
)

// FittedLandscape returns the bench-search landscape fitted to the trials
// of study name in the store dbPath (harness.NewFitted over the space of
// the study's host: its cores, RAM and settings). A study not in the store
// is a UsageError naming --fit-study; a store that cannot be opened, or
// too few trials to fit, an error.
func FittedLandscape(ctx context.Context, dbPath, name string) (harness.Landscape, error) {
	db, err := storage.Open(dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	st, found, err := db.Study(ctx, name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, Usagef("--fit-study %q: no such study in %s", name, dbPath)
	}
	trials, err := db.Trials(ctx, name)
	if err != nil {
		return nil, err
	}
	return harness.NewFitted(harness.FitInput{Name: "fitted to " + dbPath + " study " + name,
		Trials: trials, Settings: st.Settings, RAMBytes: st.RAMBytes, Cores: st.Cores})
}
