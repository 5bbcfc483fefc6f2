package study

import (
	"context"
	"fmt"
	"time"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// BuildReport loads study name from dbPath and renders its report
// (report.Build): the trials, the per-second samples of the baseline and
// the best, and the stored minimisation. A study without a complete trial
// is an error.
func BuildReport(ctx context.Context, dbPath, name string, now time.Time) (*report.Report, error) {
	db, st, trials, err := LoadStudy(ctx, dbPath, name)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	best, base := search.Best(trials)
	if best.Number < 0 {
		return nil, fmt.Errorf("study %q has no complete trial yet: nothing to plot", name)
	}
	in := report.Input{Study: st.Name, Goal: report.GoalOf(st), ServerVersion: st.ServerVersion, Settings: st.Settings, Cores: st.Cores,
		RAMBytes: st.RAMBytes, Created: st.Created, Spent: st.Spent, Generated: now, Space: space.Lookup(), Trials: trials}
	if base.Number >= 0 {
		if in.BaselineSamples, err = db.Samples(ctx, name, base.Number); err != nil {
			return nil, err
		}
	}
	if in.BestSamples, err = db.Samples(ctx, name, best.Number); err != nil {
		return nil, err
	}
	if m, found, err := db.Minimization(ctx, name); err != nil {
		return nil, err
	} else if found && m.Best == best.Number {
		// Only a minimisation of the current best: a search resumed
		// since, or under other conditions, may have another.
		in.Minimized = &m
	}
	return report.Build(in)
}
