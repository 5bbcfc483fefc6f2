package storage

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// WorkloadDiff returns the fields of the workload definition in which
// study manifests a and b differ (Old from a, New from b), in a fixed
// order; none when scores of the two studies measure the same thing and
// may be ranked against each other. The definition is the benchmark
// driver ("sysbench", "command" for --bench-cmd, or the driver named in
// Manifest.Benchmark), the --bench-cmd command line, the sysbench
// workload, the dataset (tables, rows per table), the client thread
// levels and the objective (tps, qps or p95: a score of one is no score
// of another); a TPC-C study's warehouses; and, when both studies recorded
// one, the benchmark definition (benchdef.Definition.Diff: the benchmark
// program's version and every option it was given, "definition
// --rand-type"; a replay's workload and dump contents, speed). It is the one place that decides what "the same workload"
// means for autotune compare.
func WorkloadDiff(a, b Manifest) []ManifestChange {
	fa, fb := workloadFields(a), workloadFields(b)
	var out []ManifestChange
	for i := range fa {
		if fa[i][1] != fb[i][1] {
			out = append(out, ManifestChange{Field: fa[i][0], Old: fa[i][1], New: fb[i][1]})
		}
	}
	if a.Definition != nil && b.Definition != nil {
		for _, c := range a.Definition.Diff(*b.Definition) {
			out = append(out, ManifestChange{Field: "definition " + c.What, Old: c.Old, New: c.New})
		}
	}
	return out
}

// workloadFields lists the workload definition of m as (field, value)
// pairs in WorkloadDiff's order.
func workloadFields(m Manifest) [][2]string {
	driver := m.Benchmark
	switch {
	case driver != "":
	case m.Workload == "tpcc":
		driver = "tpcc"
	case m.Measure.BenchCmd != "":
		driver = "command"
	default:
		driver = "sysbench"
	}
	levels := m.ThreadLevels
	if len(levels) == 0 && m.Threads > 0 {
		levels = []int{m.Threads}
	}
	var ls []string
	for _, l := range slices.Clone(levels) {
		ls = append(ls, strconv.Itoa(l))
	}
	objective := m.Measure.Objective
	if objective == "" {
		objective = "tps" // studies made before --objective existed
	}
	return [][2]string{
		{"benchmark", driver},
		{"bench_cmd", m.Measure.BenchCmd},
		{"workload", m.Workload},
		{"tables", strconv.Itoa(m.Tables)},
		{"table_size", strconv.Itoa(m.TableSize)},
		{"warehouses", strconv.Itoa(m.Warehouses)},
		{"threads", strings.Join(ls, ",")},
		{"objective", objective},
	}
}

// WorkloadText summarises the workload definition of m in one line:
// "sysbench oltp_read_write, 8 x 500000 rows, threads 16, objective tps",
// "tpcc, 8 warehouses, threads 16, objective tps", "replay, threads 4,
// objective qps" (no table count where the dataset has none).
func WorkloadText(m Manifest) string {
	f := map[string]string{}
	for _, kv := range workloadFields(m) {
		f[kv[0]] = kv[1]
	}
	what := f["benchmark"] + " " + f["workload"]
	if f["workload"] == "" || f["workload"] == f["benchmark"] {
		what = f["benchmark"]
	}
	if f["bench_cmd"] != "" {
		what = "command " + strconv.Quote(f["bench_cmd"])
	}
	size := ""
	switch {
	case f["benchmark"] == "tpcc":
		what, size = "tpcc", f["warehouses"]+" warehouses, "
	case m.Tables > 0:
		size = f["tables"] + " x " + f["table_size"] + " rows, "
	}
	return fmt.Sprintf("%s, %sthreads %s, objective %s", what, size, f["threads"], f["objective"])
}

// durabilityOf returns m's durability policy, "strict" when it records
// none.
func durabilityOf(m Manifest) string {
	if m.Space == nil {
		return "strict"
	}
	return cmp.Or(m.Space.Durability, "strict")
}

// hostProfileOf renders m's host profile: "memory limit N bytes", or
// "none".
func hostProfileOf(m Manifest) string {
	if m.HostProfile == nil || m.HostProfile.MemoryLimitBytes <= 0 {
		return "none"
	}
	return fmt.Sprintf("memory limit %d bytes", m.HostProfile.MemoryLimitBytes)
}
