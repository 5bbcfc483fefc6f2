package storage

import (
	"reflect"
	"testing"
)

func TestWorkloadDiff(t *testing.T) {
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
	} {
		if got := WorkloadDiff(base, tc.b(base)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
	if got := WorkloadText(base); got != "sysbench oltp_read_write, 8 x 500000 rows, threads 16, objective tps" {
		t.Errorf("WorkloadText: %s", got)
	}
}
