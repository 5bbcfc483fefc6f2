package tpcc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/runner"
)

// fakeGoTPC writes a program that prints a captured go-tpc output and
// exits with code.
func fakeGoTPC(t *testing.T, output string, code int) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", output))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "go-tpc")
	script := "#!/bin/sh\ncat '" + abs + "'\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Run turns go-tpc's outputs into samples or into a *runner.BenchError
// saying why, whatever its exit status (go-tpc exits 0 when every
// transaction failed).
func TestRunOutcomes(t *testing.T) {
	tests := []struct {
		output  string
		code    int
		samples int
		wantErr []string // in the BenchError's reason; none: success
	}{
		{"run-w1-t4-json.txt", 0, 7, nil},
		{"run-failed-missing-tables.txt", 0, 0, []string{"no per-second reports", "Table 'empty1.customer' doesn't exist"}},
		{"run-failed-server-down.txt", 2, 0, []string{"exit status 2", "failed to ping db"}},
	}
	for _, tt := range tests {
		t.Run(tt.output, func(t *testing.T) {
			b := Bench{Path: fakeGoTPC(t, tt.output, tt.code), Warehouses: 1}
			n := 0
			res, err := b.Run(context.Background(), &runner.Server{Port: 1}, runner.BenchRun{Threads: 4, Duration: 8 * time.Second},
				func(runner.Interval) { n++ })
			if n != tt.samples {
				t.Errorf("%d samples, want %d", n, tt.samples)
			}
			if tt.wantErr == nil {
				s, ok := res.Summary.(*Summary)
				if err != nil || !ok || s.TpmC != 14672.7 {
					t.Fatalf("err %v, summary %+v", err, res.Summary)
				}
				return
			}
			var be *runner.BenchError
			if !errors.As(err, &be) {
				t.Fatalf("err %v, want a *runner.BenchError", err)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(be.Reason, w) {
					t.Errorf("reason %q does not say %q", be.Reason, w)
				}
			}
		})
	}
}
