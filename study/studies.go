package study

import (
	"context"
	"io"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
)

// Studies writes the studies of the store dbPath (OpenExisting), each
// with the trials of its current conditions (storage.StudyTrials), as
// report.WriteStudies lists them. Errors: the store cannot be opened or
// read.
func Studies(ctx context.Context, dbPath string, out io.Writer) error {
	db, err := OpenExisting(dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	studies, err := db.Studies(ctx)
	if err != nil {
		return err
	}
	trials := make([][]search.Trial, len(studies))
	for i, st := range studies {
		if trials[i], _, err = storage.StudyTrials(ctx, db, st); err != nil {
			return err
		}
	}
	report.WriteStudies(out, dbPath, studies, trials)
	return nil
}
