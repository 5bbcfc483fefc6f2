package study

import (
	"context"
	"strings"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// saveImportance estimates the knob importance of the study's complete
// trials, stores it with the study and puts it in sum. Too few trials is
// not an error: sum.ImportanceNote says so.
func saveImportance(ctx context.Context, db *storage.DB, study string, sp *space.Space, trials []search.Trial, sum *result.Summary) error {
	imp, err := search.Importance(sp, trials)
	if err != nil {
		sum.ImportanceNote = err.Error()
		return nil
	}
	n := 0
	for _, t := range trials {
		if t.State == search.Complete {
			n++
		}
	}
	if err := db.SaveImportance(ctx, study, imp, n); err != nil {
		return err
	}
	sum.Importance, sum.ImportanceTrials, sum.ImportanceCaveat = imp, n, search.ImportanceCaveat(sp, trials)
	return nil
}

func splitLines(s string) []string { return strings.Split(s, "\n") }
