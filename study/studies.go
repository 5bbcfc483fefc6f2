package study

import (
	"context"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
)

// Studies returns the studies of the store dbPath (OpenExisting), each
// with the trials of its current conditions (storage.StudyTrials), as
// report.WriteStudies lists them. Errors: the store cannot be opened or
// read.
func Studies(ctx context.Context, dbPath string) ([]storage.StudyRecord, [][]search.Trial, error) {
	db, err := OpenExisting(dbPath)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	studies, err := db.Studies(ctx)
	if err != nil {
		return nil, nil, err
	}
	trials := make([][]search.Trial, len(studies))
	for i, st := range studies {
		if trials[i], _, err = storage.StudyTrials(ctx, db, st); err != nil {
			return nil, nil, err
		}
	}
	return studies, trials, nil
}
