// Command autotune finds a faster MySQL/MariaDB configuration by measuring
// candidate configurations on a sandboxed server with sysbench.
//
// Exit codes: 0 ok, 1 error, 2 usage (bad flag or argument), 3 verify
// could not show a gain, 130 interrupted (Ctrl-C; the study resumes with
// the same command).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/autotune/autotune/study"
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

// exitCode maps an error to the documented exit codes.
func exitCode(err error) int {
	var ue usageError
	var nv study.NotVerified
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		return 130
	case errors.As(err, &nv):
		fmt.Fprintln(os.Stderr, "autotune:", err)
		return 3
	case errors.As(err, &ue), strings.HasPrefix(err.Error(), "unknown command "):
		// cobra's error for a command name it does not know is a plain
		// one: a usage error all the same.
		fmt.Fprintln(os.Stderr, "autotune:", err)
		return 2
	default:
		fmt.Fprintln(os.Stderr, "autotune:", err)
		return 1
	}
}

// usageError marks a bad flag value or argument (exit code 2).
type usageError = study.UsageError

func usagef(format string, a ...any) error { return study.Usagef(format, a...) }
