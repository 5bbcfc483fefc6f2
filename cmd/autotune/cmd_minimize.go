package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/study"
)

// minimizeOptions are the flags of `autotune minimize`: those of search
// (the study's benchmark, measurement and space, which must match the
// study's manifest as on a resume), less those only a search honours.
type minimizeOptions struct {
	searchOptions
}

// minimizeRefused are search flags minimize cannot honour: those of the
// search, and (minimizeKept) the study's re-measurement policy, which
// minimize takes from the study.
var (
	minimizeRefused = []string{"budget", "trials", "seed", "strategy", "warm-start", "prune", "seed-from", "minimize", "minimize-share", "skew-check"}
	minimizeKept    = []string{"confirm", "recheck-every", "ab-pairs", "ab-share"}
)

func (o *minimizeOptions) config(fs *pflag.FlagSet) (study.Config, error) {
	if err := refuse(fs, "minimize re-measures only its own steps: the study's best and its re-measurement policy are the study's", minimizeKept...); err != nil {
		return study.Config{}, err
	}
	if err := refuse(fs, "minimize runs no search: it measures the minimisation of the finished study's best to its end (search's --minimize runs it within a budget)", minimizeRefused...); err != nil {
		return study.Config{}, err
	}
	o.noLimits = true
	return o.searchOptions.config(fs)
}

func newMinimizeCmd() *cobra.Command { return newMinimizeCmdWith(&minimizeOptions{}) }

// newMinimizeCmdWith returns the command writing its flags into o.
func newMinimizeCmdWith(o *minimizeOptions) *cobra.Command {
	var cfg study.Config
	cmd := &cobra.Command{
		Use:   "minimize",
		Short: "Reduce the best trial of a finished study to the changes that pay",
		Long: `minimize runs the last phase of search (--minimize) on a finished study: starting
from the best configuration, it reverts its changes (knobs whose value differs
from the baseline's) to the baseline's value, in groups of knobs that depend on
each other (derived from the space's constraints: innodb_io_capacity with
innodb_io_capacity_max, thread_handling with thread_pool_size, ...), least
important first. Each step measures --minimize-pairs interleaved pairs of the
current configuration and the reverted one; a change is kept only when the 95 %
interval of what reverting it costs lies wholly above 0 (the interval's width
from the run-to-run noise measured over the whole study, pooled with the step's
pairs); a step that leans toward a loss without showing it gets more pairs, up to
three times as many. A final check measures the minimal configuration against
the full best.

The study's flags (benchmark, measurement, space) must be those it was run with,
as for a resumed search. A killed minimize resumes where it stopped with the same
command. autotune export then writes the minimal configuration with each kept
change's measured contribution (docs/strategies.md#minimisation-of-the-best).`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) (err error) {
			cfg, err = o.config(cmd.Flags())
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMinimize(cmd.Context(), cfg, o.json, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	for _, n := range append(append([]string(nil), minimizeRefused...), minimizeKept...) {
		// Refused when given (config); left out of the help and the docs.
		if err := cmd.Flags().MarkHidden(n); err != nil {
			panic(err) // a name of minimizeRefused that search does not define
		}
	}
	return cmd
}

// runMinimize minimises the best of the study of cfg, printing progress to out.
func runMinimize(ctx context.Context, cfg study.Config, jsonLines bool, out io.Writer) error {
	prog := report.NewProgress(report.ChooseProgress(jsonLines, out), out, nil)
	defer prog.Close()
	return study.Minimize(ctx, cfg, prog)
}
