// Command fitfixture writes the trials of a real study as the fixture a
// built-in fitted landscape of `autotune-lab bench-search` is fitted to
// (internal/lab/fits, docs/strategies.md):
//
//	go run ./cmd/fitfixture -db trials.db -study r60 -about "..." > internal/lab/fits/NAME.json
//
// A development tool: the fixture keeps what the fit needs (kind, state,
// score and parameters of each trial, the host's cores and RAM, the
// study's settings), not the samples, logs or paths of the trials.db.
//
// Exit codes: 0 ok, 1 error, 2 usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/autotune/autotune/internal/lab/labstudy"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run writes the fixture args ask for to stdout and returns the exit
// code; messages go to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fitfixture", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "trials.db", "study store")
	name := fs.String("study", "default", "study to write")
	about := fs.String("about", "", "where the trials come from: machine, server, workload, strategy, date")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if fs.NArg() > 0 || *about == "" {
		fmt.Fprintln(stderr, "usage: fitfixture -db trials.db -study NAME -about TEXT > FILE.json")
		return 2
	}
	if err := labstudy.WriteFitFixture(ctx, *db, *name, *about, stdout); err != nil {
		fmt.Fprintln(stderr, "fitfixture:", err)
		return 1
	}
	return 0
}
