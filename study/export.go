package study

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/internal/atomicfile"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// OpenExisting opens a study database that must already exist, so a typo
// in --db does not silently create an empty file; a missing SQLite file
// is an error naming --db.
func OpenExisting(path string) (*storage.DB, error) { return openExisting("--db", path) }

// openExisting is OpenExisting for a store named by flag.
func openExisting(flag, path string) (*storage.DB, error) {
	if _, err := os.Stat(path); err != nil && !storage.IsMySQL(path) {
		return nil, fmt.Errorf("%s %q: %w (run autotune search first)", flag, path, err)
	}
	return storage.Open(path)
}

// LoadStudy opens the store dbPath (OpenExisting) and reads study name and
// its trials of its current conditions (studyTrials); a study not in it is
// an error naming --study. The caller
// closes the store.
func LoadStudy(ctx context.Context, dbPath, name string) (*storage.DB, storage.StudyRecord, []search.Trial, error) {
	db, err := OpenExisting(dbPath)
	if err != nil {
		return nil, storage.StudyRecord{}, nil, err
	}
	st, found, err := db.Study(ctx, name)
	if err == nil && !found {
		err = fmt.Errorf("--study %q: no such study in %s", name, dbPath)
	}
	if err != nil {
		db.Close()
		return nil, storage.StudyRecord{}, nil, err
	}
	trials, err := studyTrials(ctx, db, st)
	if err != nil {
		db.Close()
		return nil, storage.StudyRecord{}, nil, err
	}
	return db, st, trials, nil
}

// studyTrials returns the trials of study st measured under its current
// conditions (segmentOf).
func studyTrials(ctx context.Context, db *storage.DB, st storage.StudyRecord) ([]search.Trial, error) {
	own, _, _, err := segmentOf(ctx, db, st)
	return own, err
}

// segmentOf returns the trials of study st measured under its current
// conditions and how many others it holds (storage.StudyTrials), and its
// fingerprint.
func segmentOf(ctx context.Context, db *storage.DB, st storage.StudyRecord) (own []search.Trial, others int, fp storage.Fingerprint, err error) {
	if fp, err = storage.StudyFingerprint(st); err != nil {
		return nil, 0, nil, err
	}
	own, others, err = storage.StudyTrials(ctx, db, st)
	return own, others, fp, err
}

// ExportRequest is what `autotune export` writes: the study, the trial
// (−1: the best), the full best instead of its accepted minimisation, the
// format (exportfile.Formats), the file (""; standard output) and the
// time stamped in the header.
type ExportRequest struct {
	DB, Study, Format, Out string
	Trial                  int
	Full                   bool
	Now                    time.Time
}

// ChosenTrial returns the trial an export or a diff of study name works
// on: trial number when it is >= 0, else (−1) the study's best
// (search.Best); and the study's baseline. Errors: a number below −1 (a
// UsageError), no complete trial yet, or number not a complete trial
// (exportfile.CompleteTrial).
func ChosenTrial(trials []search.Trial, name string, number int) (chosen, base search.Trial, err error) {
	if number < -1 {
		return search.Trial{}, search.Trial{}, Usagef("--trial %d: want a trial number (0, 1, ...), or -1 for the best", number)
	}
	best, base := search.Best(trials)
	if best.Number < 0 {
		return best, base, fmt.Errorf("study %q has no complete trial yet under its current conditions", name)
	}
	if number >= 0 && number != best.Number {
		best, err = exportfile.CompleteTrial(trials, number)
	}
	return best, base, err
}

// Export writes the configuration o asks for: the minimal configuration
// of the study's best when a finished minimisation of it was accepted
// (exportfile.MinimalResult), else the full best or o.Trial; to o.Out
// (atomically, mode 0644) or to stdout, and returns what it wrote (the
// file's line and the paired gain: report.WriteExported). --full without
// an accepted minimisation is a UsageError.
func Export(ctx context.Context, o ExportRequest, stdout io.Writer) (result.Exported, error) {
	db, st, trials, err := LoadStudy(ctx, o.DB, o.Study)
	if err != nil {
		return result.Exported{}, err
	}
	defer db.Close()
	best, base, err := ChosenTrial(trials, o.Study, o.Trial)
	if err != nil {
		return result.Exported{}, err
	}
	m, found, err := db.Minimization(ctx, o.Study)
	if err != nil {
		return result.Exported{}, err
	}
	m, minimal := exportfile.MinimalResult(m, found && o.Trial < 0, best)
	if o.Full && !minimal {
		return result.Exported{}, Usagef("--full: study %q has no accepted minimisation of its best trial: the export is the full best already", o.Study)
	}
	minimal = minimal && !o.Full
	// Stored trials may name any catalogue knob (whatever the server that
	// measured them had), so they are rendered against the whole catalogue.
	write := func(w io.Writer) error {
		if minimal {
			return exportfile.WriteMinimal(w, o.Format, space.Lookup(), st, m, best, base, trials, o.Now)
		}
		return exportfile.Write(w, o.Format, space.Lookup(), st, best, base, trials, o.Now)
	}
	if o.Out == "" {
		return result.Exported{}, write(stdout)
	}
	var body bytes.Buffer
	if err := write(&body); err != nil {
		return result.Exported{}, err
	}
	if err := atomicfile.WriteFile(o.Out, body.Bytes(), 0o644); err != nil {
		return result.Exported{}, fmt.Errorf("-o %q: %w", o.Out, err)
	}
	return result.Exported{File: o.Out, Minimal: minimal, Trial: best, Trials: trials, Goal: st.Goal()}, nil
}
