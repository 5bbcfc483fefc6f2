package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// StudyRef names a study in a store.
type StudyRef struct {
	// DB is the store (an SQLite file or a mysql:// URL); Name the study.
	DB, Name string
}

// String is "DB:NAME", with a password in a mysql:// DB hidden
// (storage.RedactURL).
func (r StudyRef) String() string { return storage.RedactURL(r.DB) + ":" + r.Name }

// ParseStudyRef reads a study argument of autotune compare: "STUDY" (in
// defaultDB) or "DB:STUDY", where DB is an SQLite trials.db (also one
// copied from another host) or a mysql:// store. An argument whose part
// before the last colon is neither is a study name in defaultDB, unless
// that part looks like a file (ends in .db or holds a slash): then it is
// a UsageError naming it, as is an empty name.
func ParseStudyRef(arg, defaultDB string) (StudyRef, error) {
	if i := strings.LastIndex(arg, ":"); i > 0 && i < len(arg)-1 {
		path := arg[:i]
		if storage.IsMySQL(path) || isSQLite(path) {
			return StudyRef{DB: path, Name: arg[i+1:]}, nil
		}
		if strings.HasSuffix(path, ".db") || strings.Contains(path, "/") {
			// Meant as a store: say what is wrong with it, not that
			// defaultDB lacks a study called arg.
			why := "not an SQLite trials.db"
			if _, err := os.Stat(path); err != nil {
				why = errors.Unwrap(err).Error() // the cause alone: the path is named, redacted
			}
			return StudyRef{}, Usagef("study %q: store %s: %s; want STUDY or TRIALS.DB:STUDY", storage.RedactURL(arg), storage.RedactURL(path), why)
		}
	}
	if arg == "" {
		return StudyRef{}, Usagef("study %q: want STUDY or TRIALS.DB:STUDY", arg)
	}
	return StudyRef{DB: defaultDB, Name: arg}, nil
}

// Compare returns the studies refs as columns to set side by side
// (report.WriteCompare renders them): two
// or more, from one store or several, each by the trials of its current
// conditions (studyTrials). Studies whose fingerprints differ (server,
// benchmark and its options, workload and dataset, durability policy,
// host, host profile: storage.Fingerprint) are refused with a UsageError
// naming each differing field: their scores do not rank against each
// other. A missing store or study is an error naming it.
func Compare(ctx context.Context, refs []StudyRef) ([]result.ComparedStudy, error) {
	if len(refs) < 2 {
		return nil, Usagef("compare: want two or more studies (STUDY or TRIALS.DB:STUDY), got %d", len(refs))
	}
	dbs := map[string]*storage.DB{}
	defer func() {
		for _, db := range dbs {
			db.Close()
		}
	}()
	oneDB := true
	for _, r := range refs {
		oneDB = oneDB && r.DB == refs[0].DB
	}
	var cols []result.ComparedStudy
	var fps []storage.Fingerprint
	for _, r := range refs {
		db := dbs[r.DB]
		if db == nil {
			if !storage.IsMySQL(r.DB) {
				if _, err := os.Stat(r.DB); err != nil {
					return nil, fmt.Errorf("compare %s: no study store %s (--db, or the TRIALS.DB of TRIALS.DB:STUDY): %w", r, storage.RedactURL(r.DB), err)
				}
			}
			var err error
			if db, err = storage.Open(r.DB); err != nil {
				return nil, fmt.Errorf("compare %s: %w", r, err)
			}
			dbs[r.DB] = db
		}
		st, found, err := db.Study(ctx, r.Name)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("compare: no study %q in %s (autotune studies --db %s lists them)", r.Name, storage.RedactURL(r.DB), storage.RedactURL(r.DB))
		}
		fp, err := storage.StudyFingerprint(st)
		if err != nil {
			return nil, err
		}
		trials, err := studyTrials(ctx, db, st)
		if err != nil {
			return nil, err
		}
		label := r.Name
		if !oneDB {
			label = r.String()
		}
		col := result.ComparedStudy{Label: label, Study: st, Trials: trials, Minimal: search.Trial{Number: -1}}
		if m, found, err := db.Minimization(ctx, r.Name); err != nil {
			return nil, err
		} else if best, _ := search.Best(trials); found && m.Done && m.Accepted && m.Best == best.Number {
			// Only a minimisation of the study's current best: a resumed
			// search may have found another since.
			col.Minimal, col.Minimized = minimalTrial(trials, m), m
		}
		cols = append(cols, col)
		fps = append(fps, fp)
	}
	var diffs []string
	for i := 1; i < len(cols); i++ {
		d := fps[0].Diff(fps[i])
		if len(d) == 0 {
			continue
		}
		var fs []string
		for _, c := range d {
			fs = append(fs, fmt.Sprintf("%s %s vs %s", c.Field, orNone(c.Old), orNone(c.New)))
		}
		diffs = append(diffs, fmt.Sprintf("\n  %s vs %s: %s", cols[0].Label, cols[i].Label, strings.Join(fs, "; ")))
	}
	if len(diffs) > 0 {
		return nil, Usagef("compare: the studies measure different things:%s\ntheir results do not rank against each other: compare studies of one server, host, workload definition, durability policy and host profile (autotune studies shows each study's workload)", strings.Join(diffs, ""))
	}
	return cols, nil
}

// minimalTrial returns the trial that stands for m's minimal
// configuration: the last run of it in the final check, or the best
// itself when nothing was reverted (no check ran); Number −1 when neither
// is among trials.
func minimalTrial(trials []search.Trial, m search.Minimized) search.Trial {
	out := search.Trial{Number: -1}
	for _, t := range trials {
		if (t.Kind == search.Minimal && t.Params.Key() == m.Config.Key()) || (m.Check == nil && t.Number == m.Best && out.Number < 0) {
			out = t
		}
	}
	return out
}
