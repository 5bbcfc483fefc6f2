package main

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestEveryBenchSearchFlagChangesTheOutputOrIsRefused walks every flag of
// bench-search: set to another value, each must change what the command
// prints, or make it fail with an error naming the flag.
func TestEveryBenchSearchFlagChangesTheOutputOrIsRefused(t *testing.T) {
	// Every use of --fit-db here is refused before the store is opened.
	db := filepath.Join(t.TempDir(), "trials.db")
	base := []string{"bench-search", "--objective-cmd", "wc -c", "--strategies", "random", "--seeds", "1", "--trials", "3", "--warm-start", "off"}
	alt := map[string]string{"best-known": "5000", "first-seed": "9", "fit-db": db, "fit-study": "fix", "landscape": "db-wide", "noise": "0.03", "objective-cmd": "echo 7", "objective-truth-cmd": "echo 6",
		"parallel": strconv.Itoa(runtime.NumCPU() + 1), "seeds": "2", "strategies": "tpe", "trials": "4", "warm-start": "both", "confirm": "0"}
	want, err := runCommand(base)
	if err != nil {
		t.Fatalf("%v: %v", base, err)
	}
	cmd, _, err := newRootCmd().Find(base[:1])
	if err != nil {
		t.Fatal(err)
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		v, ok := alt[f.Name]
		if !ok {
			t.Errorf("--%s: no test value: add one", f.Name)
			return
		}
		got, err := runCommand(append(append([]string{}, base...), "--"+f.Name+"="+v))
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), "--"+f.Name) {
				t.Errorf("--%s=%s: error %v does not name the flag", f.Name, v, err)
			}
		case got == want:
			t.Errorf("--%s=%s: accepted but changes nothing", f.Name, v)
		}
	})
}

// Argument mistakes, unknown commands and non-finite float flags are usage
// errors (exit 2) that name what was wrong.
func TestUsageExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench-search", "--best-known", "-Inf"}, "--best-known -Inf: want a finite number"},
		{[]string{"bench-search", "--noise", "NaN"}, "--noise NaN: want a finite number"},
		{[]string{"bench-search", "--seeds", "many"}, `invalid argument "many" for "--seeds" flag`},
		{[]string{"bench-search", "--confirm", "often"}, "want auto or a count 0..20"},
		{[]string{"bench-search", "extra"}, `unknown command "extra" for "autotune-lab bench-search"`},
		{[]string{"bogus"}, `unknown command "bogus" for "autotune-lab"`},
	} {
		_, err := runCommand(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want exit 2 saying %q", tc.args, err, exitCode(err), tc.want)
		}
	}
}

// runCommand runs autotune-lab with args in-process and returns what it
// printed.
func runCommand(args []string) (string, error) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&out)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}
