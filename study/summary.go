package study

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// saveImportance estimates the knob importance of the study's complete
// trials, stores it with the study and prints it to out. Too few trials is
// not an error: it says so.
func saveImportance(ctx context.Context, db *storage.DB, study string, sp *space.Space, trials []search.Trial, out io.Writer) error {
	imp, err := search.Importance(sp, trials)
	if err != nil {
		fmt.Fprintln(out, err)
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
	report.WriteImportance(out, imp, n, search.ImportanceCaveat(sp, trials))
	return nil
}

func splitLines(s string) []string { return strings.Split(s, "\n") }
