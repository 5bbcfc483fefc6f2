package study

import (
	"context"
	"fmt"
	"strconv"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/study/result"
)

// Show returns everything stored about one trial of study name in the
// store dbPath (report.WriteShow renders it): which is a trial number (any state),
// "best" (search.Best) or "baseline"; with samples, its per-second
// samples too. Errors: the store or study missing (LoadStudy), which
// neither a number nor best nor baseline (a UsageError), no such trial,
// no complete best or baseline yet.
func Show(ctx context.Context, dbPath, name, which string, samples bool) (result.TrialDetail, error) {
	n, nerr := strconv.Atoi(which)
	if which != "best" && which != "baseline" && (nerr != nil || n < 0) {
		return result.TrialDetail{}, Usagef("TRIAL %q: want a trial number (0, 1, ...), best or baseline", which)
	}
	db, st, trials, err := LoadStudy(ctx, dbPath, name)
	if err != nil {
		return result.TrialDetail{}, err
	}
	defer db.Close()
	best, base := search.Best(trials)
	var t search.Trial
	switch which {
	case "best":
		if t = best; t.Number < 0 {
			return result.TrialDetail{}, fmt.Errorf("study %q has no complete trial yet under its current conditions", name)
		}
	case "baseline":
		if t = base; t.Number < 0 {
			return result.TrialDetail{}, fmt.Errorf("study %q has no complete baseline trial", name)
		}
	default:
		found := false
		for _, x := range trials {
			if x.Number == n {
				t, found = x, true
			}
		}
		if !found {
			return result.TrialDetail{}, fmt.Errorf("TRIAL %d: study %q has no such trial (it has %d trials)", n, name, len(trials))
		}
	}
	var ss []measure.Sample
	if samples {
		if ss, err = db.Samples(ctx, name, t.Number); err != nil {
			return result.TrialDetail{}, err
		}
	}
	return result.TrialDetail{Study: st.Name, Trial: t, Baseline: base, Best: best, Trials: trials, Samples: ss, WithSamples: samples}, nil
}
