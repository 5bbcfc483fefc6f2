package main

import (
	"context"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/internal/lab"
	"github.com/autotune/autotune/internal/lab/labstudy"
	"github.com/autotune/autotune/search"
)

// benchSearchOptions are the flags of `autotune-lab bench-search`.
type benchSearchOptions struct {
	landscape  string
	fitDB      string
	fitStudy   string
	objective  string
	truth      string
	noise      float64
	bestKnown  float64
	strategies []string
	seeds      int
	firstSeed  int
	trials     int
	warm       string
	parallel   int
	confirm    search.ConfirmCount
}

func (o *benchSearchOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.landscape, "landscape", "db", "built-in landscape: "+strings.Join(lab.LandscapeNames(), ", ")+", or "+labstudy.AllLandscapes+" (each in turn, then a summary naming each strategy's worst landscape)")
	fs.StringVar(&o.fitDB, "fit-db", "", "fit the landscape to the trials of a real study in this trials.db instead")
	fs.StringVar(&o.fitStudy, "fit-study", "default", "study of --fit-db to fit")
	fs.StringVar(&o.objective, "objective-cmd", "", "measure with this shell command instead: one config as a JSON object on stdin, one number on stdout")
	fs.StringVar(&o.truth, "objective-truth-cmd", "", "with --objective-cmd: a shell command that reads a config the same way and prints its noise-free score; every share is judged by it (without it the figures are the studies' own estimates)")
	fs.Float64Var(&o.noise, "noise", 0, "measure the landscape at this relative noise instead of its own (0.03: each measurement the noise-free score × (1 + 0.03·N(0,1))); not with --objective-cmd")
	fs.Float64Var(&o.bestKnown, "best-known", 0, "best known score of --objective-cmd (0: the best any run reached)")
	fs.StringSliceVar(&o.strategies, "strategies", lab.DefaultStrategies(), "strategies to compare: "+strings.Join(lab.Strategies(), ", ")+" (the optuna ones need python3-optuna for /usr/bin/python3)")
	fs.IntVar(&o.seeds, "seeds", 20, "seeds (runs per strategy and warm-start setting)")
	fs.IntVar(&o.firstSeed, "first-seed", 1, "first seed (runs use seeds first-seed .. first-seed+seeds-1)")
	fs.IntVar(&o.trials, "trials", 100, "search trials per run, baseline included; the tables cut each run at this many measurements (re-measurements count)")
	fs.StringVar(&o.warm, "warm-start", "both", "runs with the expert warm start: both, on or off")
	fs.IntVar(&o.parallel, "parallel", runtime.NumCPU(), "runs at a time")
	o.confirm = search.ConfirmAuto
	fs.Var(&o.confirm, "confirm", "re-measurements of a new best before it counts, as search's --confirm (a count or auto): every run (peers included) goes through that policy and the recommendation is what a study would export (0: the configuration with the best mean)")
}

// validate checks the flags; fs (nil in tests that set fields directly)
// tells which were given, so that a flag the chosen landscape cannot use
// is refused.
func (o *benchSearchOptions) validate(fs *pflag.FlagSet) error {
	if fs != nil {
		if o.fitDB != "" || o.objective != "" {
			if err := refuse(fs, "the built-in landscapes only: not with --fit-db or --objective-cmd", "landscape"); err != nil {
				return err
			}
		}
		if o.fitDB == "" {
			if err := refuse(fs, "needs --fit-db", "fit-study"); err != nil {
				return err
			}
		}
		if o.objective != "" {
			if err := refuse(fs, "a command adds its own noise: not with --objective-cmd", "noise"); err != nil {
				return err
			}
		}
		if o.objective == "" {
			if err := refuse(fs, "needs --objective-cmd (the synthetic and fitted landscapes know their best and their noise-free scores)", "best-known", "objective-truth-cmd"); err != nil {
				return err
			}
		}
	}
	for _, s := range o.strategies {
		if !slices.Contains(lab.Strategies(), s) {
			return usagef("--strategies: %q: want names from %s", s, strings.Join(lab.Strategies(), ", "))
		}
	}
	switch {
	case len(o.strategies) == 0:
		return usagef("--strategies: want at least one of %s", strings.Join(lab.Strategies(), ", "))
	case o.landscape != labstudy.AllLandscapes && !slices.Contains(lab.LandscapeNames(), o.landscape):
		return usagef("--landscape %q: want one of %s, or %s", o.landscape, strings.Join(lab.LandscapeNames(), ", "), labstudy.AllLandscapes)
	case o.fitDB != "" && o.objective != "":
		return usagef("--fit-db and --objective-cmd: give one landscape, not both")
	case o.seeds < 1 || o.seeds > 10000:
		return usagef("--seeds %d: want 1..10000", o.seeds)
	case o.firstSeed < 1:
		return usagef("--first-seed %d: want a positive seed", o.firstSeed)
	case o.trials < 3:
		return usagef("--trials %d: want at least 3", o.trials)
	case o.warm != "both" && o.warm != "on" && o.warm != "off":
		return usagef("--warm-start %q: want both, on or off", o.warm)
	case o.parallel < 1:
		return usagef("--parallel %d: want at least 1", o.parallel)
	case o.noise != 0 && !(o.noise > 0 && o.noise < 1):
		return usagef("--noise %g: want a share between 0 and 1, e.g. 0.03", o.noise)
	case o.bestKnown < 0:
		return usagef("--best-known %g: want a score >= 0", o.bestKnown)
	}
	return nil
}

func newBenchSearchCmd() *cobra.Command {
	o := &benchSearchOptions{}
	cmd := &cobra.Command{
		Use:   "bench-search",
		Short: "Compare search strategies on landscapes, without a server",
		Long: `bench-search runs each strategy through the real study loop (baseline first,
expert warm start, failed-trial penalties) against a landscape that answers at
once, for many seeds, and prints how many trials each needs before its
recommendation (what a study exports: its best by pooled estimate, a new best
counting once --confirm re-measurements confirm it; with --confirm 0 the
configuration with the best mean; judged by its noise-free score) reaches 90 % and 95 % of the best known score,
then that recommendation's share of the best after 30 and after --trials
measurements: median and quartiles over the seeds. Every figure counts
measurements (search trials and re-measurements alike): a study runs --trials
search trials, and the tables cut each run at --trials measurements. Under each landscape: the warm
start's own share, and how many runs of each a test needs to tell from it the
best, the best change of one knob of it, and every knob's best change made at
once (where even that is hundreds, no search beats the warm start on
measurements).

Landscapes: synthetic ones shaped like tuning MariaDB on this project's
reference machine (--landscape db, db-wide, host: the 34 knobs a study offers
there, sparse: 36 knobs of which 5 matter; drawn: a new landscape of that
kind drawn for every seed, so no default is tuned to it), two fitted to studies measured
there (--landscape fitted: a random search; fitted-hybrid: a study of the
default strategy, its trials around the warm start), one fitted to your
own study's trials (--fit-db), or any command (--objective-cmd 'CMD': one
config as a JSON object on stdin, one number out; --objective-truth-cmd
'CMD' prints the same config's noise-free score, the judge of every share:
without it the figures are the studies' own estimates). Optuna's TPE and
multivariate TPE run as peers with --strategies optuna-tpe,optuna-mtpe
(python3-optuna for /usr/bin/python3).`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) error {
			return o.validate(cmd.Flags())
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchSearch(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runBenchSearch hands the options to labstudy.RunBenchSearch.
func runBenchSearch(ctx context.Context, o *benchSearchOptions, out io.Writer) error {
	ho := lab.Options{Strategies: o.strategies, Seeds: o.seeds, FirstSeed: o.firstSeed, Trials: o.trials, Parallel: o.parallel, Confirm: int(o.confirm)}
	switch o.warm {
	case "both":
		ho.Warm = []bool{false, true}
	case "on":
		ho.Warm = []bool{true}
	default:
		ho.Warm = []bool{false}
	}
	return labstudy.RunBenchSearch(ctx, labstudy.BenchSearch{Landscape: o.landscape, FitDB: o.fitDB, FitStudy: o.fitStudy,
		ObjectiveCmd: o.objective, TruthCmd: o.truth, Noise: o.noise, BestKnown: o.bestKnown, Runs: ho}, out)
}
