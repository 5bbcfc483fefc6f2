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
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/autotune/autotune/internal/lab"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C gets the default behaviour: immediate exit
	}()
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	os.Exit(exitCode(err))
}

// exitCode maps an error to the documented exit codes, printing it.
func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		return 130
	case errors.As(err, &ue), strings.HasPrefix(err.Error(), "unknown command "):
		// cobra's error for a command name it does not know is a plain
		// one: a usage error all the same.
		fmt.Fprintln(os.Stderr, "autotune-lab:", err)
		return 2
	default:
		fmt.Fprintln(os.Stderr, "autotune-lab:", err)
		return 1
	}
}

// usageError marks a bad flag value or argument (exit code 2).
type usageError = lab.UsageError

func usagef(format string, a ...any) error { return lab.Usagef(format, a...) }
