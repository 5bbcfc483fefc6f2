package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autotune/autotune/runner/sysbench"
	"github.com/autotune/autotune/storage"
)

// The distribution is part of the definition, so of the fingerprint: a
// study under another --rand-type or shape is another study's segment,
// while the default's definition is the one stored studies hold.
func TestDistributionMovesTheFingerprint(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "sysbench")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'sysbench 1.0.20'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	key := func(r sysbench.Distribution) (string, string) {
		b, err := newBenchmark(BenchSettings{Driver: "sysbench", Path: fake, Workload: "oltp_read_write", Tables: 8, TableSize: 500000, Rand: r, Threads: []int{16}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := b.Definition(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m := storage.Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 500000, Definition: &d}
		return storage.FingerprintOf(m, "10.11.19-MariaDB", 2, 8<<30).Key(), d.String()
	}
	def, defText := key(sysbench.Distribution{})
	explicit, _ := key(sysbench.Distribution{Type: "special", SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfianExp: 0.8})
	uniform, uniformText := key(sysbench.Distribution{Type: "uniform"})
	pareto, _ := key(sysbench.Distribution{Type: "pareto"})
	pareto3, paretoText := key(sysbench.Distribution{Type: "pareto", ParetoH: 0.3})
	if def != explicit {
		t.Errorf("the default given explicitly moves the fingerprint: %s vs %s", def, explicit)
	}
	for _, o := range []string{"--rand-type=special", "--rand-spec-iter=12", "--rand-spec-pct=1", "--rand-spec-res=75", "--rand-pareto-h=0.2"} {
		if !strings.Contains(defText, o) {
			t.Errorf("default definition lacks %s: %s", o, defText)
		}
	}
	if !strings.Contains(uniformText, "--rand-type=uniform") || strings.Contains(uniformText, "--rand-spec") || !strings.Contains(paretoText, "--rand-pareto-h=0.3") {
		t.Errorf("definitions %s / %s", uniformText, paretoText)
	}
	seen := map[string]bool{}
	for _, k := range []string{def, uniform, pareto, pareto3} {
		if seen[k] {
			t.Errorf("two distributions share fingerprint %s", k)
		}
		seen[k] = true
	}
}

// The skew check's benchmark is the study's under the second
// distribution; a driver without distributions, an unknown one and the
// study's own are usage errors naming --skew-check.
func TestSkewBenchmark(t *testing.T) {
	b, bench, label, err := skewBenchmark(BenchSettings{Driver: "sysbench", Workload: "oltp_read_write", Tables: 8, TableSize: 1000,
		Rand: sysbench.Distribution{Type: "pareto", ParetoH: 0.3}}, "uniform")
	if err != nil {
		t.Fatal(err)
	}
	if sb := b.(sysbench.Bench); sb.Rand.Name() != "uniform" || label != "--rand-type=uniform" || bench.Rand.Name() != "uniform" || bench.Rand.ParetoH != 0.3 {
		t.Errorf("variant %+v, label %q, settings %+v", sb.Rand, label, bench.Rand)
	}
	for _, tc := range []struct {
		bench BenchSettings
		dist  string
		want  string
	}{
		{BenchSettings{Driver: "scripted", Workload: "scripted"}, "uniform", "--skew-check uniform: not with --benchmark scripted"},
		{BenchSettings{Driver: "sysbench", Workload: "oltp_read_write"}, "special", "--skew-check special: it is the study's own --rand-type"},
		{BenchSettings{Driver: "sysbench", Workload: "oltp_read_write"}, "poisson", `--skew-check "poisson": want one of`},
	} {
		_, _, _, err := skewBenchmark(tc.bench, tc.dist)
		if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s under %s: %v, want a usage error saying %q", tc.bench.Driver, tc.dist, err, tc.want)
		}
	}
}
