// Command autotune finds a faster MySQL/MariaDB configuration by measuring
// candidate configurations on a sandboxed server with sysbench.
//
// Exit codes: 0 ok, 1 error, 2 usage (bad flag or argument), 3 verify
// could not show a gain, 4 apply put the original settings back, 130
// interrupted (Ctrl-C; the study resumes with
// the same command).
package main

import (
	"errors"
	"os"

	"github.com/autotune/autotune/internal/cli"
	"github.com/autotune/autotune/study"
	"github.com/spf13/pflag"
)

// command is autotune's exit codes and usage errors (internal/cli).
var command = cli.Command{Name: "autotune", Usagef: study.Usagef, IsUsage: study.IsUsage,
	Codes: func(err error) (int, bool) {
		var nv study.NotVerified
		if errors.As(err, &nv) {
			return 3, true // verify could not show a gain
		}
		var nk study.NotKept
		return 4, errors.As(err, &nk) // apply put the original settings back
	}}

func main() { command.Main(newRootCmd()) }

// exitCode maps an error to the documented exit codes, printing it.
func exitCode(err error) int { return command.ExitCode(err, os.Stderr) }

// usageError marks a bad flag value or argument (exit code 2).
type usageError = study.UsageError

func usagef(format string, a ...any) error { return study.Usagef(format, a...) }

// refuse returns a usage error naming the first of names set on the
// command line, saying why.
func refuse(fs *pflag.FlagSet, why string, names ...string) error {
	return command.Refuse(fs, why, names...)
}
