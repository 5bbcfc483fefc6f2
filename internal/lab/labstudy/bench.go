package labstudy

import (
	"context"
	"fmt"
	"io"

	"github.com/autotune/autotune/internal/lab"
	"github.com/autotune/autotune/strategy"
)

// BenchSearch is what `autotune-lab bench-search` compares: one landscape
// (ObjectiveCmd, else FitDB, else the synthetic Landscape) and the
// harness's runs over it.
type BenchSearch struct {
	// Landscape names a built-in landscape (lab.LandscapeNames).
	Landscape string
	// FitDB and FitStudy name a real study to fit the landscape to
	// (FittedLandscape).
	FitDB, FitStudy string
	// ObjectiveCmd is a shell command that measures one configuration
	// (lab.Command); BestKnown its best known score (0: the best
	// mean any run found).
	ObjectiveCmd string
	BestKnown    float64
	// TruthCmd prints a configuration's noise-free score for
	// ObjectiveCmd (lab.Command.TruthCmd; "": none, the figures are the
	// study's own estimates).
	TruthCmd string
	// Noise, when > 0, measures the landscape at this relative noise
	// instead of its own (lab.WithNoise; not with ObjectiveCmd).
	Noise float64
	// Runs are the strategies, seeds, trials and warm-start settings.
	Runs lab.Options
}

// landscape builds the landscape b names.
func (b BenchSearch) landscape(ctx context.Context) (lab.Landscape, error) {
	switch {
	case b.ObjectiveCmd != "":
		sp, err := lab.HostSpace(lab.HostInput{})
		if err != nil {
			return nil, err
		}
		cfg, _, err := strategy.ExpertConfig(sp, strategy.ExpertInput{RAMBytes: 24 << 30, DataBytes: 1100 << 20, FsyncPerSec: 3500})
		if err != nil {
			return nil, err
		}
		return &lab.Command{Cmd: b.ObjectiveCmd, TruthCmd: b.TruthCmd, Sp: sp, BestKnown: b.BestKnown, ExpertCfg: cfg}, nil
	case b.FitDB != "":
		l, err := FittedLandscape(ctx, b.FitDB, b.FitStudy)
		if err != nil {
			return nil, err
		}
		return b.renoise(l)
	}
	l, err := lab.NewLandscape(b.Landscape)
	if err != nil {
		return nil, err
	}
	return b.renoise(l)
}

// renoise returns l at b.Noise (l itself when it is 0).
func (b BenchSearch) renoise(l lab.Landscape) (lab.Landscape, error) {
	if b.Noise == 0 {
		return l, nil
	}
	return lab.WithNoise(l, b.Noise)
}

// AllLandscapes is the BenchSearch.Landscape that runs every built-in
// landscape (lab.LandscapeNames) in turn and ends with a summary.
const AllLandscapes = "all"

// RunBenchSearch runs the comparison b describes and prints its tables
// to out: trials to reach 90 % and 95 % of the best, then the
// recommendation's share of the best at checkpoints, then the first
// strategy against each other one seed by seed (lab.WriteTable,
// lab.WriteShares, lab.WriteWarmStart, lab.WritePaired). With
// Landscape AllLandscapes it does so for every built-in landscape, each
// under a heading, then writes the summary over them (lab.WriteSummary:
// one line per landscape and strategy, and each strategy's worst
// landscape). Errors: a landscape that cannot be built, a run that fails,
// ctx's.
func RunBenchSearch(ctx context.Context, b BenchSearch, out io.Writer) error {
	ho := b.Runs
	fmt.Fprintf(out, "%d strategies x %d seeds x %d measurements, %d runs at a time\n", len(ho.Strategies), ho.Seeds, ho.Trials, max(1, ho.Parallel))
	if b.Landscape == AllLandscapes {
		if b.FitDB != "" || b.ObjectiveCmd != "" {
			return lab.Usagef("--landscape %s: the built-in landscapes only, not with --fit-db or --objective-cmd", AllLandscapes)
		}
		var sums []lab.LandscapeSummary
		for _, name := range lab.LandscapeNames() {
			l, err := lab.NewLandscape(name)
			if err == nil {
				l, err = b.renoise(l)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "\n## %s\n\n", name)
			s, err := benchLandscape(ctx, l, ho, out)
			if err != nil {
				return fmt.Errorf("landscape %s: %w", name, err)
			}
			s.Landscape = name
			sums = append(sums, s)
		}
		fmt.Fprintf(out, "\n## Summary (%d landscapes)\n\n", len(sums))
		return lab.WriteSummary(out, sums)
	}
	l, err := b.landscape(ctx)
	if err != nil {
		return err
	}
	_, err = benchLandscape(ctx, l, ho, out)
	return err
}

// benchLandscape runs ho over l and writes RunBenchSearch's tables for it;
// it returns the landscape's summary (its Landscape field unset).
func benchLandscape(ctx context.Context, l lab.Landscape, ho lab.Options, out io.Writer) (lab.LandscapeSummary, error) {
	var sum lab.LandscapeSummary
	if f, ok := l.(*lab.Fitted); ok {
		fmt.Fprintf(out, "fitted landscape: %s\n", f.Describe())
	}
	runs, err := lab.Compare(ctx, l, ho)
	if err != nil {
		return sum, err
	}
	best := l.Best()
	if best <= 0 {
		best = lab.BestSeen(runs)
		fmt.Fprintf(out, "no best known score: using the best any run reached, %.4g\n", best)
	}
	if err := lab.WriteTable(out, l, best, lab.Summarise(runs, best, ho), ho); err != nil {
		return sum, err
	}
	fmt.Fprintln(out)
	cp := lab.Checkpoints(ho.Trials)
	sum.Rows, sum.Checkpoints = lab.Shares(runs, best, ho, cp), cp
	if err := lab.WriteShares(out, sum.Rows, cp); err != nil {
		return sum, err
	}
	ws, ok, err := lab.WarmStartShares(l, best, ho)
	if err != nil {
		return sum, err
	}
	if ok {
		sum.WarmStart = &ws
		if err := lab.WriteWarmStart(out, ws); err != nil {
			return sum, err
		}
	}
	var ps []lab.Paired
	for _, c := range cp {
		ps = append(ps, lab.PairedComparisons(runs, best, ho, c)...)
	}
	if len(ps) == 0 {
		return sum, nil
	}
	fmt.Fprintln(out)
	return sum, lab.WritePaired(out, ps)
}
