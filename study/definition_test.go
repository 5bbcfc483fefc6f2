package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every driver defines its benchmark fully: its program's version and the
// options that change what it measures.
func TestDriverDefinitions(t *testing.T) {
	dir := t.TempDir()
	fakeSysbench := filepath.Join(dir, "sysbench")
	if err := os.WriteFile(fakeSysbench, []byte("#!/bin/sh\necho 'sysbench 1.0.20'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	goBinary, err := os.Executable() // a Go binary: its build information stands in for go-tpc's
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		bench       BenchSettings
		wantDriver  string
		wantVersion string // prefix
		want        map[string]string
	}{
		{"sysbench", BenchSettings{Driver: "sysbench", Path: fakeSysbench, Workload: "oltp_read_only", Tables: 4, TableSize: 1000},
			"sysbench", "sysbench 1.0.20", map[string]string{"workload": "oltp_read_only", "tables": "4", "table-size": "1000",
				"rand-type": "special", "db-ps-mode": "auto", "range_size": "100", "point_selects": "10", "skip_trx": "off", "rate": "0"}},
		{"tpcc", BenchSettings{Driver: "tpcc", TPCCPath: goBinary, Workload: "tpcc", Warehouses: 3},
			"tpcc", "go-tpc ", map[string]string{"warehouses": "3", "weight": "45,43,4,4,4", "wait": "false", "isolation": "0",
				"ignore-error": "true", "max-measure-latency": "16s"}},
		{"command", BenchSettings{Driver: "command", Path: fakeSysbench, Command: "mybench --threads {threads} 'a b'", Workload: "oltp_read_write", Tables: 2, TableSize: 10},
			"command", "", map[string]string{"command": "mybench --threads {threads} 'a b'", "workload": "oltp_read_write", "tables": "2", "table-size": "10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := newBenchmark(tt.bench)
			if err != nil {
				t.Fatal(err)
			}
			d, err := b.Definition(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if d.Driver != tt.wantDriver || !strings.HasPrefix(d.Version, tt.wantVersion) || (tt.wantVersion == "") != (d.Version == "") {
				t.Errorf("driver %q version %q, want %q and a version starting %q", d.Driver, d.Version, tt.wantDriver, tt.wantVersion)
			}
			for k, v := range tt.want {
				if d.Options[k] != v {
					t.Errorf("option %s = %q, want %q (definition %s)", k, d.Options[k], v, d)
				}
			}
		})
	}
}
