package sysbench

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/autotune/autotune/runner"
)

// Every option of the definition is passed to sysbench explicitly, with
// the value the definition records, and the version is sysbench's own.
func TestArgsPassEveryDefinedOption(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "sysbench")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := Bench{Path: fake, Workload: "oltp_read_write", Tables: 8, TableSize: 500000}
	d, err := b.Definition(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)" {
		t.Errorf("version %q", d.Version)
	}
	args := b.Args(&runner.Server{Socket: "/s"}, false, "run")
	if args[0] != d.Options["workload"] {
		t.Errorf("workload %q, definition %q", args[0], d.Options["workload"])
	}
	for _, k := range d.Names() {
		if k == "workload" {
			continue
		}
		if want := "--" + k + "=" + d.Options[k]; !slices.Contains(args, want) {
			t.Errorf("%s not among the arguments %q", want, args)
		}
	}
}

func TestPrepareLimit(t *testing.T) {
	for _, tc := range []struct {
		rows int64
		want time.Duration
	}{
		{0, 10 * time.Minute},
		{4_000_000, 14 * time.Minute}, // the default dataset, about a minute here
		{500_000, 10*time.Minute + 30*time.Second},
		{100_000_000, 110 * time.Minute},
	} {
		if got := PrepareLimit(tc.rows); got != tc.want {
			t.Errorf("PrepareLimit(%d) = %s, want %s", tc.rows, got, tc.want)
		}
	}
}
