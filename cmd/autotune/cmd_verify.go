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
}

func (o *verifyOptions) AddFlags(fs *pflag.FlagSet) {
	o.benchFlags.AddFlags(fs)
	o.measureFlags.AddFlags(fs)
	o.server.addServerFlag(fs)
	fs.StringVar(&o.baselineCnf, "baseline-cnf", "", "compare against this my.cnf instead of the server defaults (the verified file's settings go on top of it)")
	fs.IntVar(&o.pairs, "pairs", 5, "interleaved pairs (file, baseline; baseline, file; ...): each pair gives one log-ratio of the objective")
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
	return c, o.measureFlags.apply(&c)
}

func newVerifyCmd() *cobra.Command { return newVerifyCmdWith(&verifyOptions{}) }

// newVerifyCmdWith returns the command writing its flags into o.
func newVerifyCmdWith(o *verifyOptions) *cobra.Command {
	var cfg study.Config
	cmd := &cobra.Command{
		Use:   "verify FILE.cnf",
		Short: "Re-measure a my.cnf against the server defaults in interleaved pairs and state its gain",
		Long: `verify re-measures any my.cnf (an autotune export or your own) against the server
defaults (or --baseline-cnf, with the file's settings on top of it) on a sandboxed
server: --pairs interleaved pairs (file then baseline, baseline then file, ...), each
run a full trial (restore the dataset snapshot, start, load the buffer pool, warm up
until steady, measure --duration, stop). It prints every run and the gain on the
objective from the pairs' log-ratios with its 95 % confidence interval. The runtime
knobs an export's header names ("# not an option: allocator=tcmalloc") are applied
too, where this host offers them, so the file is measured as the trial ran.

Exit code 0 when the interval's lower bound is above zero (the file is faster), 3 when
it is not (or fewer than 2 pairs completed, or a run of the file's configuration went
over --max-p95), so that a script can gate a rollout on it.
Nothing is written to a study database.`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(cmd *cobra.Command, args []string) (err error) {
			if err := regularFile("verify", args[0]); err != nil {
				return err
			}
			cfg, err = o.config(cmd.Flags())
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.Context(), cfg, args[0], o.pairs, cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runVerify verifies file, printing to out.
func runVerify(ctx context.Context, cfg study.Config, file string, pairs int, out io.Writer) error {
	prog := report.NewProgress("plain", out, nil)
	defer prog.Close()
	_, err := study.Verify(ctx, cfg, file, pairs, prog, out)
	return err
}
