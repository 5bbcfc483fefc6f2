package storage

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// workloadFields lists the workload definition of m as (field, value)
// pairs in a fixed order: the benchmark driver ("sysbench", "command" for
// --bench-cmd, "tpcc", or the driver named in Manifest.Benchmark), the
// --bench-cmd command line, the workload, the dataset (tables, rows per
// table), a TPC-C study's warehouses, the client thread levels and the
// objective (tps, qps or p95: a score of one is no score of another).
// Fingerprint and WorkloadText are built on it.
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
		objective = "tps" // unset: the default objective
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
// "sysbench oltp_read_write --rand-type=special, 8 x 500000 rows,
// threads 16, objective tps" (the access distribution where the
// definition has one, Definition.RandType),
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
	if m.Definition != nil && m.Definition.RandType() != "" && f["bench_cmd"] == "" && f["benchmark"] != "tpcc" {
		what += " --rand-type=" + m.Definition.RandType()
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
