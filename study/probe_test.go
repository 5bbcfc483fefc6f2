package study

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/storage"
)

// A --benchmark-build that cannot honour the definition (its help lists
// none of the MySQL driver's options) is refused with a usage error
// naming the build and what it lacks, before any sandbox work; the
// default build passes.
func TestBenchmarkBuildsAreProbed(t *testing.T) {
	ctx := context.Background()
	real, err := exec.LookPath("sysbench")
	if err != nil {
		realtest.Program(t, err)
	}
	fake := filepath.Join(t.TempDir(), "sysbench-nomysql")
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo 'sysbench 1.0.20-nomysql';;\n*) printf '  --threads=N\\n  --time=N\\n  --tables=N\\n';;\nesac\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	bench := BenchSettings{Driver: "sysbench", Workload: "oltp_read_write", Tables: 2, TableSize: 1000, Threads: []int{4}}
	b, err := newBenchmark(bench)
	if err != nil {
		t.Fatal(err)
	}
	builds := []storage.Build{{Name: "debian", Path: real}, {Name: "nomysql", Path: fake}}
	if err := probeBenchmarks(ctx, b, bench, builds[:1]); err != nil {
		t.Fatalf("Debian's sysbench: %v", err)
	}
	err = probeBenchmarks(ctx, b, bench, builds)
	if !IsUsage(err) || !strings.Contains(err.Error(), "--benchmark-build nomysql: ") || !strings.Contains(err.Error(), "does not accept --db-driver, --mysql-socket") {
		t.Fatalf("a build without the MySQL driver: %v", err)
	}
}
