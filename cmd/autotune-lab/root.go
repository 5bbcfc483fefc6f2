package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/autotune/autotune/search"
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
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newBenchSearchCmd())
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

// refuse returns a usage error naming the first of names set on the
// command line, saying why the landscape cannot honour it.
func refuse(fs *pflag.FlagSet, why string, names ...string) error {
	for _, n := range names {
		if f := fs.Lookup(n); f != nil && f.Changed {
			return usagef("--%s: %s", n, why)
		}
	}
	return nil
}

// confirmCount is a --confirm value, as autotune search's: a count of
// re-measurements (0..20) or "auto" (search.ConfirmAuto).
type confirmCount int

func (c *confirmCount) String() string {
	if *c == search.ConfirmAuto {
		return "auto"
	}
	return strconv.Itoa(int(*c))
}

// Set parses "auto" or a count 0..20; the error names what was expected.
func (c *confirmCount) Set(s string) error {
	if s == "auto" {
		*c = search.ConfirmAuto
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 20 {
		return fmt.Errorf("want auto or a count 0..20")
	}
	*c = confirmCount(n)
	return nil
}

func (c *confirmCount) Type() string { return "count|auto" }
