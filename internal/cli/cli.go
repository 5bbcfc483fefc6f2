// Package cli is the plumbing the project's commands share (autotune,
// autotune-lab): the run of a cobra root under Ctrl-C, the exit codes,
// and the flag checks every command makes the same way. Each command
// brings its own usage error type: Command.Usagef builds one and
// Command.IsUsage recognises it.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Command describes a program for Main and Prepare.
type Command struct {
	// Name prefixes the error printed on exit ("autotune: ...").
	Name string
	// Usagef returns the program's usage error (exit code 2).
	Usagef func(format string, a ...any) error
	// IsUsage reports whether err is (or wraps) that usage error.
	IsUsage func(err error) bool
	// Codes maps an error to a program's own exit code (ok false: not
	// one of them); nil when it has none.
	Codes func(err error) (code int, ok bool)
}

// Main runs root with a context cancelled by the first SIGINT or SIGTERM
// (a second one gets the default behaviour: immediate exit) and exits
// with ExitCode.
func (c Command) Main(root *cobra.Command) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	err := root.ExecuteContext(ctx)
	stop()
	os.Exit(c.ExitCode(err, os.Stderr))
}

// ExitCode maps err to the documented exit codes, printing it to w: 0
// ok, 130 interrupted (context.Canceled, printed by the mode itself),
// the program's own (Codes), 2 usage (IsUsage, or cobra's unknown
// command), 1 any other error.
func (c Command) ExitCode(err error, w io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, context.Canceled) {
		return 130
	}
	code := 1
	if c.Codes != nil {
		if n, ok := c.Codes(err); ok {
			code = n
		}
	}
	// cobra's error for a command name it does not know is a plain
	// one: a usage error all the same.
	if code == 1 && (c.IsUsage(err) || strings.HasPrefix(err.Error(), "unknown command ")) {
		code = 2
	}
	fmt.Fprintf(w, "%s: %v\n", c.Name, err)
	return code
}

// Prepare makes every flag and argument error of root and its commands a
// usage error (exit 2): a flag's parse error, a float flag given as NaN
// or ±Inf, and each command's argument check (naming the command and its
// usage line). It turns off cobra's generated completion command.
func (c Command) Prepare(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return c.Usagef("%w", err) })
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error { return c.finiteFloats(cmd.Flags()) }
	c.usageArgs(root)
}

// finiteFloats refuses a float flag given as NaN or ±Inf, which
// strconv.ParseFloat (and so pflag) accepts and which every range check
// written as x < lo would let through.
func (c Command) finiteFloats(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err != nil || f.Value.Type() != "float64" {
			return
		}
		if v, perr := strconv.ParseFloat(f.Value.String(), 64); perr == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			err = c.Usagef("--%s %s: want a finite number", f.Name, f.Value.String())
		}
	})
	return err
}

// usageArgs wraps the argument check of cmd's commands, and theirs.
func (c Command) usageArgs(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		if check := sub.Args; check != nil {
			sub.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return c.Usagef("%v (usage: %s)", err, cmd.UseLine())
				}
				return nil
			}
		}
		c.usageArgs(sub)
	}
}

// Refuse returns the usage error "--NAME: why" for the first of names
// set on the command line (fs), nil when none is.
func (c Command) Refuse(fs *pflag.FlagSet, why string, names ...string) error {
	for _, n := range names {
		if f := fs.Lookup(n); f != nil && f.Changed {
			return c.Usagef("--%s: %s", n, why)
		}
	}
	return nil
}
