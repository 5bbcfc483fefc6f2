package study

import (
	"cmp"
	"context"

	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

// Diff compares the option file at file with trial number (−1: the best;
// ChosenTrial) of study name in the store dbPath and returns the
// comparison (report.WriteDiff renders it): the file is read by the MySQL option-file rules
// of the server version the trial ran on (the study's when the trial
// recorded none; MariaDB 10.11, the reference server, when neither did),
// the groups that version reads. Errors: the store or study missing
// (LoadStudy), the trial (ChosenTrial), a file that cannot be read (naming
// file and line).
func Diff(ctx context.Context, dbPath, name string, number int, file string) (result.FileDiff, error) {
	db, st, trials, err := LoadStudy(ctx, dbPath, name)
	if err != nil {
		return result.FileDiff{}, err
	}
	defer db.Close()
	t, _, err := ChosenTrial(trials, name, number)
	if err != nil {
		return result.FileDiff{}, err
	}
	v, err := space.ParseVersion(cmp.Or(t.ServerVersion, st.ServerVersion), "")
	if err != nil {
		v = space.Version{Flavor: space.MariaDB, Major: 10, Minor: 11}
	}
	of, err := readOptionFileFor(file, v)
	if err != nil {
		return result.FileDiff{}, err
	}
	return result.FileDiff{File: file, Study: st.Name, Trial: t, Options: of.Effective(space.ServerGroups(v)), Notes: of.Notes}, nil
}
