package study

import (
	"context"
	"fmt"
	"time"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// Report loads what the report of study name in dbPath shows (report.Build
// renders it): the trials, the per-second samples of the baseline and
// the best, and the stored minimisation; now is the report's date. A
// study without a complete trial is an error.
func Report(ctx context.Context, dbPath, name string, now time.Time) (result.StudyReport, error) {
	db, st, trials, err := LoadStudy(ctx, dbPath, name)
	if err != nil {
		return result.StudyReport{}, err
	}
	defer db.Close()
	best, base := search.Best(trials)
	if best.Number < 0 {
		return result.StudyReport{}, fmt.Errorf("study %q has no complete trial yet: nothing to plot", name)
	}
	in := result.StudyReport{Study: st.Name, Goal: st.Goal(), ServerVersion: st.ServerVersion, Settings: st.Settings, Cores: st.Cores,
		RAMBytes: st.RAMBytes, Created: st.Created, Spent: st.Spent, Generated: now, Space: space.Lookup(), Trials: trials}
	if m, err := st.Manifest(); err == nil && m.Workload != "" {
		in.Workload = storage.WorkloadText(m)
	}
	if base.Number >= 0 {
		if in.BaselineSamples, err = db.Samples(ctx, name, base.Number); err != nil {
			return result.StudyReport{}, err
		}
	}
	if in.BestSamples, err = db.Samples(ctx, name, best.Number); err != nil {
		return result.StudyReport{}, err
	}
	if m, found, err := db.Minimization(ctx, name); err != nil {
		return result.StudyReport{}, err
	} else if found && m.Best == best.Number {
		// Only a minimisation of the current best: a search resumed
		// since, or under other conditions, may have another.
		in.Minimized = &m
	}
	return in, nil
}
