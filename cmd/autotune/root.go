package main

import (
	"math"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "autotune",
		Short: "Find a faster MySQL/MariaDB configuration by measuring it",
		Long: `autotune tunes a MySQL/MariaDB server the way a performance engineer does by hand:
it runs a sandboxed server, loads a sysbench dataset once, and measures one
configuration (a trial) after another, proposed by a search strategy, scoring
each by its steady-state throughput with a penalty for instability. Every trial
is kept in trials.db, so an interrupted study resumes where it stopped.

Exit codes: 0 ok, 1 error, 2 usage, 3 verify could not show a gain, 130 interrupted
(run the same command to resume).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newSearchCmd(), newExportCmd(), newTrialsCmd(), newKnobsCmd(), newWorkerCmd(), newDiffCmd(), newNoiseCmd(), newVerifyCmd(), newMinimizeCmd())
	root.AddCommand(newReportCmd(), newStudiesCmd(), newShowCmd(), newCaptureCmd(), newGenDocsCmd())
	root.AddCommand(newCompareCmd(), newDashboardCmd())
	// No generated completion command: every command and flag is documented
	// in docs/cli and checked by the flag tests.
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error { return finiteFloats(cmd.Flags()) }
	usageArgs(root)
	return root
}

// flagError makes a flag's parse error a usage error (exit 2).
func flagError(_ *cobra.Command, err error) error { return usageError{Err: err} }

// finiteFloats refuses (exit 2) a float flag given as NaN or ±Inf, which
// strconv.ParseFloat (and so pflag) accepts and which every range check
// written as x < lo would let through.
func finiteFloats(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err != nil || f.Value.Type() != "float64" {
			return
		}
		if v, perr := strconv.ParseFloat(f.Value.String(), 64); perr == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			err = usagef("--%s %s: want a finite number", f.Name, f.Value.String())
		}
	})
	return err
}

// usageArgs makes the argument check of c's commands, and theirs, a usage
// error (exit 2) that names the command and its usage line; cobra's own
// is a plain error (exit 1).
func usageArgs(c *cobra.Command) {
	for _, sub := range c.Commands() {
		if check := sub.Args; check != nil {
			sub.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return usagef("%v (usage: %s)", err, cmd.UseLine())
				}
				return nil
			}
		}
		usageArgs(sub)
	}
}
