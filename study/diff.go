package study

import (
	"cmp"
	"context"
	"io"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/space"
)

// Diff compares the option file at file with trial number (−1: the best;
// ChosenTrial) of study name in the store dbPath and writes the table to
// out (report.WriteDiff): the file is read by the MySQL option-file rules
// of the server version the trial ran on (the study's when the trial
// recorded none; MariaDB 10.11, the reference server, when neither did),
// the groups that version reads. Errors: the store or study missing
// (LoadStudy), the trial (ChosenTrial), a file that cannot be read (naming
// file and line).
func Diff(ctx context.Context, dbPath, name string, number int, file string, out io.Writer) error {
	db, st, trials, err := LoadStudy(ctx, dbPath, name)
	if err != nil {
		return err
	}
	defer db.Close()
	t, _, err := ChosenTrial(trials, name, number)
	if err != nil {
		return err
	}
	v, err := space.ParseVersion(cmp.Or(t.ServerVersion, st.ServerVersion), "")
	if err != nil {
		v = space.Version{Flavor: space.MariaDB, Major: 10, Minor: 11}
	}
	of, err := readOptionFileFor(file, v)
	if err != nil {
		return err
	}
	rows, others := report.DiffRows(space.Lookup(), of.Effective(space.ServerGroups(v)), t.Params)
	report.WriteDiff(out, file, t, st.Name, rows, others, of.Notes)
	return nil
}
