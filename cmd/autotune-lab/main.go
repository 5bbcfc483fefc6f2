// Command autotune-lab is autotune's strategy lab: it compares search
// strategies without a server, each running the real study loop against
// landscapes that answer at once (synthetic ones, ones fitted to real
// studies, or a shell command), with Optuna as a peer:
//
//	go build -o bin/autotune-lab ./cmd/autotune-lab
//	bin/autotune-lab bench-search --landscape all --seeds 12
//
// A research tool, built apart from autotune so that the product binary
// links none of it (docs/strategies.md, docs/development.md).
//
// Exit codes: 0 ok, 1 error, 2 usage (bad flag or argument), 130
// interrupted (Ctrl-C).
package main

import (
	"os"

	"github.com/autotune/autotune/internal/cli"
	"github.com/autotune/autotune/internal/lab"
)

// command is autotune-lab's exit codes and usage errors (internal/cli).
var command = cli.Command{Name: "autotune-lab", Usagef: lab.Usagef, IsUsage: lab.IsUsage}

func main() { command.Main(newRootCmd()) }

// exitCode maps an error to the documented exit codes, printing it.
func exitCode(err error) int { return command.ExitCode(err, os.Stderr) }

// usageError marks a bad flag value or argument (exit code 2).
type usageError = lab.UsageError

func usagef(format string, a ...any) error { return lab.Usagef(format, a...) }
