package storage

import (
	"reflect"
	"testing"

	"github.com/autotune/autotune/internal/benchdef"
)

// workloadChanges returns the workload fields in which a and b differ.
func workloadChanges(a, b Manifest) []ManifestChange {
	fa, fb := workloadFields(a), workloadFields(b)
	var out []ManifestChange
	for i := range fa {
		if fa[i][1] != fb[i][1] {
			out = append(out, ManifestChange{Field: fa[i][0], Old: fa[i][1], New: fb[i][1]})
		}
	}
	return out
}

func TestWorkloadFields(t *testing.T) {
	base := Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 500000, WarmupS: 30, DurationS: 60}
	for name, tc := range map[string]struct {
		b    func(m Manifest) Manifest
		want []ManifestChange
	}{
		"same":                   {func(m Manifest) Manifest { return m }, nil},
		"other measurement":      {func(m Manifest) Manifest { m.DurationS, m.Lambda = 120, 1; return m }, nil},
		"one level as a list":    {func(m Manifest) Manifest { m.ThreadLevels = []int{16}; return m }, nil},
		"tps is the old default": {func(m Manifest) Manifest { m.Measure.Objective = "tps"; return m }, nil},
		"workload and threads": {func(m Manifest) Manifest { m.Workload, m.Threads = "oltp_read_only", 32; return m },
			[]ManifestChange{{"workload", "oltp_read_write", "oltp_read_only"}, {"threads", "16", "32"}}},
		"levels": {func(m Manifest) Manifest { m.ThreadLevels = []int{16, 64}; return m },
			[]ManifestChange{{"threads", "16", "16,64"}}},
		"dataset": {func(m Manifest) Manifest { m.Tables, m.TableSize = 4, 1000; return m },
			[]ManifestChange{{"tables", "8", "4"}, {"table_size", "500000", "1000"}}},
		"driver": {func(m Manifest) Manifest { m.Measure.BenchCmd = "mybench {threads}"; return m },
			[]ManifestChange{{"benchmark", "sysbench", "command"}, {"bench_cmd", "", "mybench {threads}"}}},
		"objective": {func(m Manifest) Manifest { m.Measure.Objective = "p95"; return m },
			[]ManifestChange{{"objective", "tps", "p95"}}},
		"tpcc": {func(m Manifest) Manifest { m.Workload, m.Tables, m.TableSize, m.Warehouses = "tpcc", 0, 0, 4; return m },
			[]ManifestChange{{"benchmark", "sysbench", "tpcc"}, {"workload", "oltp_read_write", "tpcc"}, {"tables", "8", "0"},
				{"table_size", "500000", "0"}, {"warehouses", "0", "4"}}},
	} {
		if got := workloadChanges(base, tc.b(base)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
	tp := Manifest{Workload: "tpcc", Threads: 16, Warehouses: 4}
	if got := WorkloadText(tp); got != "tpcc, 4 warehouses, threads 16, objective tps" {
		t.Errorf("WorkloadText of tpcc: %s", got)
	}
	if got := WorkloadText(base); got != "sysbench oltp_read_write, 8 x 500000 rows, threads 16, objective tps" {
		t.Errorf("WorkloadText: %s", got)
	}
	rp := Manifest{Benchmark: "replay", Workload: "replay", Threads: 4, Measure: MeasureManifest{Objective: "qps"}}
	if got := WorkloadText(rp); got != "replay, threads 4, objective qps" {
		t.Errorf("WorkloadText of a replay: %s", got)
	}
}

// Two studies of one workload differing in one condition each: their
// fingerprints differ in that field alone, so their results do not rank
// side by side; what does not change what is measured (the window, the
// re-measurement policy, the memory budget) keeps the key.
func TestFingerprintDiff(t *testing.T) {
	base := Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 500000, Lambda: 0.5,
		Definition: &benchdef.Definition{Driver: "sysbench", Version: "sysbench 1.0.20", Options: map[string]string{"rand-type": "uniform"}}}
	strict := base
	strict.Space = &SpaceManifest{Durability: "strict"}
	relaxed := base
	relaxed.Space = &SpaceManifest{Durability: "relaxed"}
	limited := strict
	limited.HostProfile = &HostProfile{MemoryLimitBytes: 2 << 30}
	special := base
	special.Definition = &benchdef.Definition{Driver: "sysbench", Version: "sysbench 1.0.20", Options: map[string]string{"rand-type": "special"}}
	bigger := strict
	bigger.TableSize = 1000000
	builds := strict
	builds.Space = &SpaceManifest{Durability: "strict", BenchmarkBuilds: []Build{{Name: "a", Path: "/a", SHA256: "00112233445566778899"}}}
	rebuilt := strict
	rebuilt.Space = &SpaceManifest{Durability: "strict", BenchmarkBuilds: []Build{{Name: "a", Path: "/a", SHA256: "99887766554433221100"}}}
	longer := strict
	longer.DurationS, longer.WarmupS, longer.Measure.Confirm = 120, 60, 3
	longer.Space = &SpaceManifest{Durability: "strict", MemoryBudget: 1 << 30}
	const v, cores, ram = "10.11.19-MariaDB", 2, int64(8 << 30)
	fp := func(m Manifest) Fingerprint { return FingerprintOf(m, v, cores, ram) }
	for name, tc := range map[string]struct {
		a, b   Fingerprint
		fields []string
	}{
		"same":                       {fp(strict), fp(strict), nil},
		"no policy recorded: strict": {fp(base), fp(strict), nil},
		"window, policy, budget":     {fp(strict), fp(longer), nil},
		"tiers":                      {fp(strict), fp(relaxed), []string{"durability"}},
		"host profile":               {fp(strict), fp(limited), []string{"host_profile"}},
		"benchmark option":           {fp(base), fp(special), []string{"definition"}},
		"dataset":                    {fp(strict), fp(bigger), []string{"table_size"}},
		"benchmark build replaced":   {fp(builds), fp(rebuilt), []string{"benchmark_builds"}},
		"server version":             {fp(strict), FingerprintOf(strict, "11.4.2-MariaDB", cores, ram), []string{"server"}},
		"host":                       {fp(strict), FingerprintOf(strict, v, 16, ram), []string{"host"}},
	} {
		d := tc.a.Diff(tc.b)
		var got []string
		for _, c := range d {
			got = append(got, c.Field)
		}
		if !reflect.DeepEqual(got, tc.fields) {
			t.Errorf("%s: differs in %v, want %v", name, got, tc.fields)
		}
		if same := tc.a.Key() == tc.b.Key(); same != (len(tc.fields) == 0) {
			t.Errorf("%s: equal keys %v with differences %v", name, same, got)
		}
	}
	if got := DiffText(fp(strict).Diff(fp(relaxed))); got != "durability strict → relaxed" {
		t.Errorf("DiffText: %q", got)
	}
}
