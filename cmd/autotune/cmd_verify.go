package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/study"
)

// verifyOptions are the flags of `autotune verify`: the benchmark and
// measurement flags of search, the server, the baseline and the pairs.
type verifyOptions struct {
	benchFlags
	measureFlags
	server      spaceFlags
	baselineCnf string
	pairs       int
	reference   string
}

func (o *verifyOptions) AddFlags(fs *pflag.FlagSet) {
	o.benchFlags.AddFlags(fs)
	o.measureFlags.AddFlags(fs)
	o.server.addServerFlag(fs)
	fs.StringVar(&o.baselineCnf, "baseline-cnf", "", "compare against this my.cnf instead of the server defaults (the verified file's settings go on top of it)")
	fs.IntVar(&o.pairs, "pairs", 5, "rounds of interleaved runs: with one file, pairs (file, baseline; baseline, file; ...); with several, each round measures every file and the baseline once, in an order rotated round by round; each round gives one log-ratio per comparison")
	fs.StringVar(&o.reference, "reference", "", "with several files: the file every other arm is also compared with (default: the first file)")
}

func (o *verifyOptions) config(*pflag.FlagSet) (study.Config, error) {
	c := study.Config{Study: "verify", Trials: 1, Space: study.MeasuredSpace(o.server.mysqld, o.baselineCnf)}
	if o.pairs < 2 || o.pairs > 50 {
		return c, usagef("--pairs %d: want 2..50", o.pairs)
	}
	if o.baselineCnf != "" {
		if err := regularFile("--baseline-cnf", o.baselineCnf); err != nil {
			return c, err
		}
	}
	if err := o.benchFlags.apply(&c); err != nil {
		return c, err
	}
	if err := o.measureFlags.apply(&c); err != nil {
		return c, err
	}
	return c, openBenchmark(&c)
}

func newVerifyCmd() *cobra.Command { return newVerifyCmdWith(&verifyOptions{}) }

// newVerifyCmdWith returns the command writing its flags into o.
func newVerifyCmdWith(o *verifyOptions) *cobra.Command {
	var cfg study.Config
	cmd := &cobra.Command{
		Use:   "verify FILE.cnf [FILE.cnf ...]",
		Short: "Re-measure one or more my.cnf files against the server defaults in interleaved runs and state their gains",
		Long: `verify re-measures any my.cnf (an autotune export or your own) against the server
defaults (or --baseline-cnf, with the file's settings on top of it) on a sandboxed
server: --pairs interleaved pairs (file then baseline, baseline then file, ...), each
run a full trial (restore the dataset snapshot, start, load the buffer pool, warm up
until steady, measure --duration, stop). It prints every run and the gain on the
objective from the pairs' log-ratios with its 95 % confidence interval. The runtime
knobs an export's header names ("# not an option: allocator=tcmalloc") are applied
too, where this host offers them, so the file is measured as the trial ran.

With several files (a comparison of arms, such as the defaults, the expert warm start,
a hand configuration and a study's export), each of --pairs rounds measures every file
and the baseline once, in an order rotated round by round, and a table gives each arm's
runs, mean, gain over the baseline and gain over --reference (the first file unless
given), each with its 95 % interval from the per-round log-ratios.

Exit code 0 when the interval's lower bound is above zero (with several files: for every file) (the file is faster), 3 when
it is not (or fewer than 2 pairs completed, or a run of the file's configuration went
over --max-p95), so that a script can gate a rollout on it.
Nothing is written to a study database.`,
		Args: cobra.MinimumNArgs(1),
		PreRunE: func(cmd *cobra.Command, args []string) (err error) {
			for _, a := range args {
				if err := regularFile("verify", a); err != nil {
					return err
				}
			}
			cfg, err = o.config(cmd.Flags())
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.Context(), cfg, args, o.pairs, o.reference, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runVerify verifies files, printing to out.
func runVerify(ctx context.Context, cfg study.Config, files []string, rounds int, reference string, out io.Writer) error {
	prog := report.NewProgress("plain", out, nil)
	defer prog.Close()
	v, err := study.Verify(ctx, cfg, files, rounds, reference, prog)
	if v.File != "" || len(v.Arms) > 0 {
		report.WriteVerification(out, v)
	}
	return err
}
