package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// strategyOptions are the flags of `autotune search` that choose how
// configurations are proposed (issue 5).
type strategyOptions struct {
	strategy  string
	warmStart bool
}

func (o *strategyOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.strategy, "strategy", "hybrid", "search strategy: "+strings.Join(search.StrategyNames(), ", ")+
		" (hybrid: screening, then TPE over the knobs that matter, then local refinement)")
	fs.BoolVar(&o.warmStart, "warm-start", true, "measure an expert configuration derived from the host and the dataset right after the baseline")
}

func (o *strategyOptions) validate() error {
	if !slices.Contains(search.StrategyNames(), o.strategy) {
		return usagef("--strategy %q: want one of %s", o.strategy, strings.Join(search.StrategyNames(), ", "))
	}
	return nil
}

// Confirmation the budget plan reserves for: re-measures of each new best
// and final interleaved best/baseline runs (the defaults of the
// confirmation phase, issue 4).
const (
	planConfirm = 2
	planFinal   = 4
)

// fsyncProbeTime bounds the fsync probe of the expert warm start.
const fsyncProbeTime = time.Second

// newStrategy returns the strategy of a study run and its warm-start
// proposals: the expert configuration from the host's RAM (the buffer pool
// knob's range is already limited to the memory budget), the dataset's
// size in the snapshot and a short fsync probe in the sandbox (the
// datadir's disk).
func (o *strategyOptions) newStrategy(ctx context.Context, sp *space.Space, seed int64, horizon int, host runner.Host, sb *runner.Sandbox, logf func(string, ...any)) (search.Strategy, []search.Proposal, error) {
	var warm []search.Proposal
	var starts []space.Config
	if o.warmStart {
		in := search.ExpertInput{RAMBytes: host.RAMBytes}
		if k, ok := sp.Knob("innodb_buffer_pool_size"); ok {
			in.MemoryBudget = int64(k.Max)
		}
		if n, err := sb.DataBytes(); err == nil {
			in.DataBytes = n
		} else {
			logf("expert warm start: %v (buffer pool rule skipped)", err)
		}
		if r, err := runner.ProbeFsync(ctx, sb.Dir, fsyncProbeTime); err == nil {
			in.FsyncPerSec = r
		} else {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			logf("expert warm start: %v (io capacity rule skipped)", err)
		}
		cfg, why, err := search.ExpertConfig(sp, in)
		if err != nil {
			return nil, nil, err
		}
		if len(cfg) > 0 {
			logf("expert warm start (measured after the baseline):")
			for _, w := range why {
				logf("  %s", w)
			}
			warm = append(warm, search.Proposal{Config: cfg, Kind: search.Expert})
			starts = append(starts, cfg)
		}
	}
	st, err := search.NewStrategy(o.strategy, sp, search.StrategyOptions{Seed: seed, Horizon: horizon, Starts: starts})
	if err != nil {
		return nil, nil, err
	}
	return st, warm, nil
}

// planner keeps a study's budget plan: it re-plans after every trial,
// hands the reserve to the study and the planned number of trials to the
// strategy, and prints the plan when it is first known and when it moves.
type planner struct {
	in       search.PlanInput
	study    *search.Study
	strategy search.Strategy
	trials   []search.Trial
	printed  int // planned total at the last print (-1: never printed)
	logf     func(string, ...any)
}

func newPlanner(o *searchOptions, study *search.Study, trials []search.Trial, logf func(string, ...any)) *planner {
	in := search.PlanInput{Budget: o.budget, Spent: study.Spent, MaxTrials: o.trials,
		PriorCost: o.warmup + o.duration + 5*time.Second}
	return &planner{in: in, study: study, strategy: study.Strategy, trials: trials, printed: -1, logf: logf}
}

// plan re-plans over the trials known so far and applies the result.
func (p *planner) plan() search.Plan {
	in := p.in
	in.Trials = p.trials
	pl := search.MakePlan(in)
	in.ConfirmRuns = search.ConfirmRuns(max(1, pl.Total), planConfirm, planFinal)
	pl = search.MakePlan(in)
	if in.Budget > 0 {
		p.study.Reserve = pl.ReserveTime
	}
	if h, ok := p.strategy.(search.Horizoner); ok && pl.Total > 0 {
		h.SetHorizon(pl.Total)
	}
	return pl
}

// start plans before the first trial of this run; a resumed study prints
// its plan at once (its cost estimate comes from its trials).
func (p *planner) start() search.Plan {
	pl := p.plan()
	if pl.From > 0 {
		p.print(pl)
	}
	return pl
}

// onTrial re-plans after a finished trial; the plan is printed once two
// trials give a cost estimate, and again when the planned total moves by
// more than a fifth.
func (p *planner) onTrial(e search.Event) {
	p.trials = append(p.trials, e.Trial)
	p.in.Spent = e.Spent
	pl := p.plan()
	switch {
	case pl.From < 2:
	case p.printed < 0:
		p.print(pl)
	case abs(pl.Total-p.printed)*5 > max(1, p.printed):
		p.print(pl)
	}
}

func (p *planner) print(pl search.Plan) {
	p.printed = pl.Total
	for _, l := range strings.Split(pl.String(), "\n") {
		p.logf("%s", l)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// reportImportance estimates the knob importance of the study's complete
// trials, stores it with the study and prints it. Too few trials is not an
// error: it says so.
func reportImportance(ctx context.Context, db *storage.DB, study string, sp *space.Space, trials []search.Trial, out io.Writer) error {
	imp, err := search.Importance(sp, trials)
	if err != nil {
		fmt.Fprintf(out, "knob importance: %v\n", err)
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
	writeImportance(out, imp, n)
	return nil
}

// writeImportance prints the importance ranking with a bar per knob.
func writeImportance(out io.Writer, imp []search.KnobImportance, n int) {
	sum := 0.0
	for _, ki := range imp {
		sum += ki.Importance
	}
	fmt.Fprintf(out, "\nknob importance (share of the score variance, from %d complete trials; the knobs explain %.0f %%):\n", n, sum*100)
	if sum < 0.01 {
		fmt.Fprintln(out, "  no knob's effect stands out from the noise of these trials (more trials, or longer ones, would tell)")
		return
	}
	for _, ki := range imp {
		bar := strings.Repeat("#", int(ki.Importance*40+0.5))
		fmt.Fprintf(out, "  %-32s %5.1f %%  %s\n", ki.Knob, ki.Importance*100, bar)
	}
}
