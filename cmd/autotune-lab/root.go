package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "autotune-lab",
		Short: "Compare autotune's search strategies without a server",
		Long: `autotune-lab is autotune's strategy lab: it runs the search strategies through
the real study loop against landscapes that answer at once (synthetic ones
shaped like tuning MariaDB, ones fitted to real studies, or any command) and
compares how fast each finds a good configuration.

Exit codes: 0 ok, 1 error, 2 usage, 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newBenchSearchCmd())
	command.Prepare(root)
	return root
}

// refuse returns a usage error naming the first of names set on the
// command line, saying why the landscape cannot honour it.
func refuse(fs *pflag.FlagSet, why string, names ...string) error {
	return command.Refuse(fs, why, names...)
}
