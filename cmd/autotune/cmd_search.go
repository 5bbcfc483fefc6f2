package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/study"
)

// searchOptions are the flags of `autotune search`.
type searchOptions struct {
	studyFlags
	benchFlags
	measureFlags
	searchFlags
	spaceFlags
	existingFlags
}

func (o *searchOptions) AddFlags(fs *pflag.FlagSet) {
	o.studyFlags.AddFlags(fs)
	o.benchFlags.AddFlags(fs)
	o.benchFlags.addSkewFlag(fs)
	o.measureFlags.AddFlags(fs)
	o.searchFlags.AddFlags(fs)
	o.spaceFlags.AddFlags(fs)
	o.existingFlags.AddFlags(fs)
}

// sandboxOnly are the flags an existing server cannot honour.
var sandboxOnly = []string{"workdir", "mysqld", "server-build", "benchmark-build", "apply", "space", "baseline-cnf", "bench-cmd", "cold-start", "memory-limit"}

// config turns the flags into the study's configuration; fs tells which
// flags were given.
func (o *searchOptions) config(fs *pflag.FlagSet) (study.Config, error) {
	var c study.Config
	for _, apply := range []func(*study.Config) error{o.studyFlags.apply, o.benchFlags.apply, o.measureFlags.apply,
		o.searchFlags.apply, o.spaceFlags.apply, o.existingFlags.apply} {
		if err := apply(&c); err != nil {
			return c, err
		}
	}
	c.PolicyGiven = study.PolicyGiven{Confirm: fs.Changed("confirm"), RecheckEvery: fs.Changed("recheck-every"),
		ABPairs: fs.Changed("ab-pairs"), ABShare: fs.Changed("ab-share")}
	if !c.Minimize {
		if err := refuse(fs, "needs --minimize (it is off)", "minimize-pairs", "minimize-share"); err != nil {
			return c, err
		}
	}
	if c.Budget == 0 {
		if err := refuse(fs, "a share of --budget: without one the minimisation runs to its end after the trial cap", "minimize-share"); err != nil {
			return c, err
		}
	}
	if o.prune && (c.Measure.Objective == string(measure.GoalP95) || len(c.Bench.Threads) > 1) {
		// On by default, and then off for these silently (docs); asked
		// for, it would be ignored.
		if err := refuse(fs, "early stopping judges one thread level's throughput: trials of --objective p95 or of several --threads are measured in full", "prune"); err != nil {
			return c, err
		}
	}
	if c.SkewCheck != "" && (c.Measure.ABPairs == 0 && c.Measure.ABShare == 0) {
		return c, usagef("--skew-check %s: needs the final A/B phase, whose gain it sets beside its own (--ab-pairs 0 --ab-share 0 turn it off)", c.SkewCheck)
	}
	if err := openBenchmark(&c); err != nil {
		return c, err
	}
	if c.Existing == nil {
		return c, refuse(fs, "needs --dsn (an existing server)", existingOnly...)
	}
	return c, refuse(fs, "not with --dsn: an existing server has no sandbox, no server builds and no my.cnf of autotune's, and a --bench-cmd has no placeholder for its credentials (its knobs are the twelve of the first space, changed in place; see docs/existing-server.md)", sandboxOnly...)
}

func newSearchCmd() *cobra.Command { return newSearchCmdWith(&searchOptions{}) }

// newSearchCmdWith returns the command writing its flags into o.
func newSearchCmdWith(o *searchOptions) *cobra.Command {
	var cfg study.Config
	cmd := &cobra.Command{
		Use:   "search",
		Short: "Run (or resume) a tuning study on a sandboxed server",
		Long: `search measures the baseline (server defaults), the seeds of --seed-from (a my.cnf
or an earlier study's best, rescaled to this host), an expert configuration derived
from the host and the dataset, and then configurations proposed by the search
strategy (--strategy, hybrid by default), one trial at a time: restore the dataset
snapshot, start the server with the trial's my.cnf, warm up, measure, stop. Each
finished trial is committed to the study database at once; Ctrl-C abandons the
running trial and the same command resumes the study later.

Each trial's measurement window starts once throughput is steady (at the latest
after --warmup) and is scored as mean throughput minus penalties for variance,
dips, stalls, errors and purge lag. A trial that beats the best is re-measured
(--confirm) before it becomes the best, the baseline is re-measured at intervals
(--recheck-every), and the study ends with interleaved best/baseline runs that
give the gain with a 95 % confidence interval (--ab-pairs, --ab-share).

With --dsn it tunes a server autotune did not start (docs/existing-server.md).`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, args []string) (err error) {
			cfg, err = o.config(cmd.Flags())
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSearch(cmd.Context(), cfg, o.json, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runSearch runs the study of cfg, printing progress to out.
func runSearch(ctx context.Context, cfg study.Config, jsonLines bool, out io.Writer) error {
	prog := report.NewProgress(report.ChooseProgress(jsonLines, out), out, nil)
	defer prog.Close()
	return study.Search(ctx, cfg, prog)
}
