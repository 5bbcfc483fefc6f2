package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/lab"
	"github.com/autotune/autotune/storage"
)

func TestBenchSearchFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--strategies", "hybrid,annealing"}, `"annealing"`},
		{[]string{"--landscape", "flat"}, "--landscape"},
		{[]string{"--seeds", "0"}, "--seeds"},
		{[]string{"--trials", "2"}, "--trials"},
		{[]string{"--warm-start", "maybe"}, "--warm-start"},
		{[]string{"--fit-db", "x.db", "--objective-cmd", "echo 1"}, "not both"},
		{[]string{"--landscape", "all", "--fit-db", "x.db"}, "not with --fit-db"},
	} {
		cmd := newBenchSearchCmd()
		cmd.SetArgs(tc.args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: err %v, want a usage error naming %s", tc.args, err, tc.err)
		}
	}
}

func TestBenchSearchObjectiveCommand(t *testing.T) {
	s := benchSearchOutput(t, &benchSearchOptions{landscape: "db", objective: `read x; echo 3`, strategies: []string{"hybrid", "random"}, seeds: 2, firstSeed: 1, trials: 4, warm: "off", parallel: 2})
	// A flat landscape: everything reaches the best at the baseline.
	if !strings.Contains(s, "| hybrid | no | 1 [1, 1] | 2/2 |") || !strings.Contains(s, "best any run reached, 3") {
		t.Fatalf("output:\n%s", s)
	}
}

func TestBenchSearchFittedNeedsTheStudy(t *testing.T) {
	path := t.TempDir() + "/t.db"
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	o := &benchSearchOptions{landscape: "db", fitDB: path, fitStudy: "nope", strategies: []string{"random"}, seeds: 1, firstSeed: 1, trials: 3, warm: "off", parallel: 1}
	err = runBenchSearch(context.Background(), o, &bytes.Buffer{})
	if !strings.Contains(fmt.Sprint(err), `--fit-study "nope"`) || exitCode(err) != 2 {
		t.Fatalf("err %v (exit %d), want a usage error naming --fit-study", err, exitCode(err))
	}
	// A --fit-db that does not exist is named, and not created.
	missing := t.TempDir() + "/missing.db"
	o.fitDB = missing
	err = runBenchSearch(context.Background(), o, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `--fit-db "`+missing+`": stat`) {
		t.Fatalf("missing --fit-db: err %v", err)
	}
	if _, serr := os.Stat(missing); serr == nil {
		t.Fatalf("missing --fit-db %s was created", missing)
	}
}

// TestBenchSearchAllLandscapes runs every built-in landscape briefly and
// checks that each gets its section and the summary names the worst.
func TestBenchSearchAllLandscapes(t *testing.T) {
	s := benchSearchOutput(t, &benchSearchOptions{landscape: "all", strategies: []string{"random"}, seeds: 1, firstSeed: 1, trials: 3, warm: "on", parallel: 1, confirm: 2})
	for _, name := range lab.LandscapeNames() {
		if !strings.Contains(s, "\n## "+name+"\n") || !strings.Contains(s, "| "+name+" | random | expert |") {
			t.Errorf("no section or summary line for %s", name)
		}
	}
	if !strings.Contains(s, "## Summary (7 landscapes)") || !strings.Contains(s, "worst landscape for random (warm start expert): ") {
		t.Fatalf("output:\n%s", s)
	}
}

// benchSearchOutput validates o and returns what bench-search prints for
// it, failing t on an error.
func benchSearchOutput(t *testing.T, o *benchSearchOptions) string {
	t.Helper()
	if err := o.validate(nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runBenchSearch(context.Background(), o, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
