// Command fitfixture writes the trials of a real study as the fixture a
// built-in fitted landscape of `autotune-lab bench-search` is fitted to
// (internal/lab/fits, docs/strategies.md):
//
//	go run ./cmd/fitfixture -db trials.db -study r60 -about "..." > internal/lab/fits/NAME.json
//
// A development tool: the fixture keeps what the fit needs (kind, state,
// score and parameters of each trial, the host's cores and RAM, the
// study's settings), not the samples, logs or paths of the trials.db.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/autotune/autotune/internal/lab/labstudy"
)

func main() {
	db := flag.String("db", "trials.db", "study store")
	name := flag.String("study", "default", "study to write")
	about := flag.String("about", "", "where the trials come from: machine, server, workload, strategy, date")
	flag.Parse()
	if flag.NArg() > 0 || *about == "" {
		fmt.Fprintln(os.Stderr, "usage: fitfixture -db trials.db -study NAME -about TEXT > FILE.json")
		os.Exit(2)
	}
	if err := labstudy.WriteFitFixture(context.Background(), *db, *name, *about, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fitfixture:", err)
		os.Exit(1)
	}
}
