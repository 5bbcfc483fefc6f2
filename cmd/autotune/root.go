package main

import (
	"github.com/spf13/cobra"
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
	root.AddCommand(newSearchCmd(), newExportCmd(), newTrialsCmd(), newKnobsCmd(), newWorkerCmd(), newDiffCmd(), newNoiseCmd(), newVerifyCmd(), newMinimizeCmd())
	root.AddCommand(newReportCmd(), newStudiesCmd(), newShowCmd(), newCaptureCmd(), newGenDocsCmd())
	root.AddCommand(newCompareCmd(), newDashboardCmd(), newApplyCmd(), newAppliesCmd())
	// No generated completion command (Prepare): every command and flag is
	// documented in docs/cli and checked by the flag tests.
	command.Prepare(root)
	return root
}
