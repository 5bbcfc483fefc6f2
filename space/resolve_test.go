package space

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
)

// mariadb1011 loads the description of the machine's MariaDB 10.11.19 as
// Variables read it (runner's TestProbeReadsLiveServer -update writes it).
func mariadb1011(t *testing.T) *ServerInfo {
	t.Helper()
	b, err := os.ReadFile("testdata/serverinfo-mariadb-10.11.19.json")
	if err != nil {
		t.Fatal(err)
	}
	var info ServerInfo
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	return &info
}

// hostEnv is a host with both allocators, taskset, 2 cores, one NUMA node
// without numactl, and no huge pages: this machine.
func hostEnv(info *ServerInfo) Env {
	return Env{Server: info, Allocators: map[string]string{"tcmalloc": "/lib/libtcmalloc_minimal.so.4", "jemalloc": "/lib/libjemalloc.so.2"},
		Cores: 2, Taskset: true, NUMANodes: 1}
}

func entries(t *testing.T, env Env) (map[string]Entry, *Space) {
	t.Helper()
	sp, err := Resolve(Catalogue(), env)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Entry{}
	for _, e := range sp.Entries() {
		m[e.Knob.Name] = e
	}
	if len(m) != len(Catalogue()) {
		t.Fatalf("%d entries for %d knobs", len(m), len(Catalogue()))
	}
	return m, sp
}

func TestResolveMariaDB1011(t *testing.T) {
	es, sp := entries(t, hostEnv(mariadb1011(t)))
	want := map[Status][]string{
		Tunable: {"allocator", "cpu_placement", "benchmark_connection", "transaction_isolation", "performance_schema",
			"query_cache_size", "query_cache_type", "innodb_stats_on_metadata", "innodb_change_buffering", "innodb_log_file_size",
			"innodb_log_buffer_size", "innodb_flush_method", "innodb_adaptive_hash_index", "innodb_max_purge_lag", "innodb_purge_threads",
			"innodb_sync_spin_loops", "innodb_spin_wait_delay", "innodb_io_capacity", "innodb_buffer_pool_size", "innodb_max_dirty_pages_pct",
			"innodb_old_blocks_pct", "innodb_read_io_threads", "innodb_write_io_threads", "innodb_io_capacity_max", "innodb_flush_neighbors",
			"innodb_adaptive_flushing", "innodb_adaptive_flushing_lwm", "innodb_max_dirty_pages_pct_lwm", "innodb_lru_scan_depth",
			"innodb_purge_batch_size", "thread_handling", "thread_pool_size", "innodb_random_read_ahead", "innodb_read_ahead_threshold"},
		Pinned: {"innodb_doublewrite", "innodb_flush_log_at_trx_commit"},
		Unsupported: {"numa_policy", "compile_platform_optimisation", "compile_fast_mutexes", "compiler", "compile_profile_guided",
			"benchmark_build", "server_build", "large_pages", "performance_schema_compiled", "innodb_file_format", "innodb_buffer_pool_instances",
			"innodb_file_per_table", "innodb_read_ahead", "innodb_support_xa", "innodb_thread_concurrency", "innodb_undo_tablespaces",
			"sync_binlog", "innodb_log_files_in_group", "transparent_huge_pages", "innodb_default_row_format", "innodb_page_size",
			"innodb_large_prefix", "innodb_adaptive_max_sleep_delay", "innodb_undo_logs"},
	}
	total := 0
	for st, names := range want {
		total += len(names)
		for _, n := range names {
			if e := es[n]; e.Status != st {
				t.Errorf("%s: status %s (%s), want %s", n, e.Status, e.Reason, st)
			}
		}
	}
	if total != len(es) {
		t.Errorf("the table covers %d of %d knobs", total, len(es))
	}
	if len(sp.Knobs()) != len(want[Tunable]) {
		t.Errorf("%d searched knobs, want %d", len(sp.Knobs()), len(want[Tunable]))
	}
	// Reasons name what happened.
	for n, frag := range map[string]string{
		"innodb_thread_concurrency":    "removed in MariaDB 10.6.0",
		"innodb_buffer_pool_instances": "no-op",
		"innodb_support_xa":            "aborts",
		"innodb_read_ahead":            "prefix-match",
		"innodb_file_format":           "innodb_default_row_format",
		"innodb_page_size":             "dataset dimension",
		"sync_binlog":                  "binary logging is off",
		"large_pages":                  "HugePages_Total = 0",
		"numa_policy":                  "numactl",
		"compiler":                     "--server-build",
	} {
		if r := es[n].Reason; !strings.Contains(r, frag) {
			t.Errorf("%s: reason %q, want it to mention %q", n, r, frag)
		}
	}
	// Names, defaults and dynamic flags come from the server.
	if e := es["transaction_isolation"]; e.Variable != "tx_isolation" || !e.Knob.Dynamic {
		t.Errorf("transaction_isolation: variable %q dynamic %v", e.Variable, e.Knob.Dynamic)
	}
	for n, dyn := range map[string]bool{"innodb_read_io_threads": true, "innodb_log_file_size": true, "innodb_buffer_pool_size": true,
		"innodb_log_buffer_size": false, "innodb_flush_method": false, "performance_schema": false, "thread_handling": false} {
		if es[n].Knob.Dynamic != dyn {
			t.Errorf("%s: dynamic %v, want %v (READ_ONLY)", n, es[n].Knob.Dynamic, dyn)
		}
	}
	if d := es["innodb_io_capacity_max"].Knob.Default; d != "2000" {
		t.Errorf("innodb_io_capacity_max default %s, want the effective 2000 (DEFAULT_VALUE says 4294967295)", d)
	}
	if d := es["thread_pool_size"].Knob.Default; d != "2" {
		t.Errorf("thread_pool_size default %s, want 2 (the CPUs of the recorded host)", d)
	}
	if c := strings.Join(es["innodb_flush_method"].Knob.Choices, " "); c != "fsync O_DSYNC O_DIRECT O_DIRECT_NO_FSYNC" {
		t.Errorf("flush method choices %q", c)
	}
	if got := sp.Fixed(); got.Key() != "innodb_doublewrite=ON,innodb_flush_log_at_trx_commit=1" {
		t.Errorf("Fixed = %s", got.Key())
	}
	// Pinned and excluded knobs stay known to the space (for baselines).
	if _, ok := sp.Knob("innodb_doublewrite"); !ok || sp.Searched("innodb_doublewrite") {
		t.Error("pinned knob: known, not searched")
	}
	if _, ok := sp.Knob("innodb_thread_concurrency"); ok {
		t.Error("an unsupported knob must not be known to the space")
	}
}

func TestResolveClampsToServer(t *testing.T) {
	info := mariadb1011(t)
	set := func(name string, f func(*ServerVar)) {
		v := info.Vars[name]
		f(&v)
		info.Vars[name] = v
	}
	set("innodb_purge_threads", func(v *ServerVar) { v.Max = 8 })
	set("innodb_buffer_pool_size", func(v *ServerVar) { v.Block = 3 << 20; v.Min = 100 << 20 })
	set("innodb_flush_method", func(v *ServerVar) { v.Enum = []string{"fsync", "O_DIRECT", "nosync"} })
	set("query_cache_type", func(v *ServerVar) { v.Enum = []string{"OFF"} })
	set("innodb_old_blocks_pct", func(v *ServerVar) { v.Min, v.Max = 96, 99 })
	set("innodb_flush_neighbors", func(v *ServerVar) { v.Max = 1 })
	set("innodb_adaptive_hash_index", func(v *ServerVar) { v.ReadOnly = true })
	es, _ := entries(t, hostEnv(info))
	if k := es["innodb_purge_threads"].Knob; k.Max != 8 || k.Min != 1 {
		t.Errorf("purge threads range %s", k.Range())
	}
	if k := es["innodb_buffer_pool_size"].Knob; k.Step != 3<<20 || k.Min != 102<<20 || int64(k.Max)%(3<<20) != 0 {
		t.Errorf("buffer pool: step %d range %s", k.Step, k.Range())
	}
	if c := strings.Join(es["innodb_flush_method"].Knob.Choices, " "); c != "fsync O_DIRECT" {
		t.Errorf("flush method choices %q (nosync is never offered)", c)
	}
	if e := es["query_cache_type"]; e.Status != Unsupported || !strings.Contains(e.Reason, "nothing to choose") {
		t.Errorf("query_cache_type: %s %s", e.Status, e.Reason)
	}
	if e := es["innodb_old_blocks_pct"]; e.Status != Unsupported || !strings.Contains(e.Reason, "outside") {
		t.Errorf("old blocks: %s %s", e.Status, e.Reason)
	}
	if c := strings.Join(es["innodb_flush_neighbors"].Knob.Choices, " "); c != "0 1" {
		t.Errorf("flush neighbors %q", c)
	}
	if es["innodb_adaptive_hash_index"].Knob.Dynamic {
		t.Error("READ_ONLY must make the knob restart-only")
	}
	delete(info.Vars, "innodb_change_buffering")
	es, _ = entries(t, hostEnv(info))
	if e := es["innodb_change_buffering"]; e.Status != Unsupported || !strings.Contains(e.Reason, "live server") {
		t.Errorf("missing variable: %s %s", e.Status, e.Reason)
	}
}

func TestResolvePolicyAndHost(t *testing.T) {
	info := mariadb1011(t)
	env := hostEnv(info)
	env.Durability = Relaxed
	es, sp := entries(t, env)
	for _, n := range []string{"innodb_doublewrite", "innodb_flush_log_at_trx_commit"} {
		if es[n].Status != Tunable {
			t.Errorf("relaxed: %s %s", n, es[n].Status)
		}
	}
	if len(sp.Fixed()) != 0 {
		t.Errorf("relaxed: fixed %v", sp.Fixed())
	}

	info.BinlogOn = true
	env = hostEnv(info)
	es, _ = entries(t, env)
	if e := es["sync_binlog"]; e.Status != Pinned || e.Value != "1" {
		t.Errorf("strict with binlog: sync_binlog %s %q", e.Status, e.Value)
	}
	env.Durability = Relaxed
	es, _ = entries(t, env)
	if es["sync_binlog"].Status != Tunable {
		t.Errorf("relaxed with binlog: sync_binlog %s", es["sync_binlog"].Status)
	}

	env = hostEnv(mariadb1011(t))
	env.Allocators = nil
	env.Taskset = false
	env.NUMANodes, env.Numactl = 2, true
	env.HugePages = 512
	env.ServerBuilds = []string{"gcc", "clang-pgo"}
	env.BenchmarkBuilds = []string{"stock"}
	es, _ = entries(t, env)
	for n, st := range map[string]Status{"allocator": Unsupported, "cpu_placement": Unsupported, "numa_policy": Tunable,
		"large_pages": Tunable, "server_build": Tunable, "benchmark_build": Unsupported, "compiler": Via, "performance_schema_compiled": Via} {
		if es[n].Status != st {
			t.Errorf("%s: %s (%s), want %s", n, es[n].Status, es[n].Reason, st)
		}
	}
	if k := es["server_build"].Knob; strings.Join(k.Choices, " ") != "gcc clang-pgo" || k.Default != "gcc" {
		t.Errorf("server_build %v default %s", k.Choices, k.Default)
	}
	env.Allocators = map[string]string{"jemalloc": "/x/libjemalloc.so.2"}
	es, _ = entries(t, env)
	if c := strings.Join(es["allocator"].Knob.Choices, " "); c != "system jemalloc" {
		t.Errorf("allocator choices %q", c)
	}
}

// TestResolveOffline checks the catalogue's per-version facts without a
// live server: renamed, removed and flavour-specific knobs.
func TestResolveOffline(t *testing.T) {
	tests := []struct {
		v    Version
		want map[string]string // knob → status or "var=NAME"
	}{
		{Version{MySQL, 8, 0, 36}, map[string]string{
			"query_cache_size": "unsupported", "innodb_buffer_pool_instances": "tunable", "innodb_thread_concurrency": "tunable",
			"transaction_isolation": "var=transaction_isolation", "thread_pool_size": "unsupported", "innodb_file_format": "unsupported",
			"innodb_change_buffering": "tunable", "innodb_log_files_in_group": "unsupported", "innodb_undo_logs": "unsupported",
			"innodb_log_file_size": "var=innodb_redo_log_capacity"}},
		{Version{MySQL, 8, 0, 29}, map[string]string{"innodb_log_file_size": "var=innodb_log_file_size", "innodb_log_files_in_group": "tunable"}},
		{Version{MySQL, 9, 1, 0}, map[string]string{"innodb_log_file_size": "var=innodb_redo_log_capacity", "innodb_log_files_in_group": "unsupported"}},
		{Version{MySQL, 5, 7, 10}, map[string]string{
			"transaction_isolation": "var=tx_isolation", "query_cache_size": "tunable", "innodb_support_xa": "tunable", "innodb_large_prefix": "tunable"}},
		{Version{Percona, 5, 1, 73}, map[string]string{"innodb_read_ahead": "tunable", "thread_pool_size": "unsupported", "query_cache_type": "tunable"}},
		{Version{Percona, 8, 0, 36}, map[string]string{"innodb_read_ahead": "unsupported", "thread_pool_size": "tunable", "query_cache_type": "unsupported"}},
		{Version{MariaDB, 11, 4, 2}, map[string]string{"innodb_change_buffering": "unsupported", "transaction_isolation": "var=transaction_isolation"}},
		{Version{MariaDB, 10, 5, 2}, map[string]string{"innodb_thread_concurrency": "tunable", "innodb_log_files_in_group": "unsupported", "innodb_buffer_pool_instances": "tunable"}},
		{Version{MariaDB, 10, 2, 0}, map[string]string{"innodb_file_format": "tunable", "innodb_support_xa": "tunable", "innodb_default_row_format": "unsupported"}},
	}
	for _, tc := range tests {
		es, _ := entries(t, Env{Version: tc.v, Durability: Relaxed})
		names := make([]string, 0, len(tc.want))
		for n := range tc.want {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			w := tc.want[n]
			e := es[n]
			if v, ok := strings.CutPrefix(w, "var="); ok {
				if e.Status != Tunable || e.Variable != v {
					t.Errorf("%s %s: %s variable %q, want tunable as %s", tc.v, n, e.Status, e.Variable, v)
				}
				continue
			}
			// Knobs that are never searched per trial stay unsupported.
			if string(e.Status) != w {
				t.Errorf("%s %s: %s (%s), want %s", tc.v, n, e.Status, e.Reason, w)
			}
		}
	}
}

func TestIntersect(t *testing.T) {
	a := ServerInfo{Version: Version{MariaDB, 10, 11, 19}, Vars: map[string]ServerVar{
		"x":      {Name: "x", HasRange: true, Min: 1, Max: 100, Block: 2, Enum: nil, ReadOnlyKnown: true},
		"e":      {Name: "e", Enum: []string{"a", "b", "c"}, ReadOnlyKnown: true},
		"only_a": {Name: "only_a"},
	}}
	b := ServerInfo{Version: Version{MariaDB, 10, 11, 20}, BinlogOn: true, Vars: map[string]ServerVar{
		"x": {Name: "x", HasRange: true, Min: 10, Max: 50, Block: 3, ReadOnly: true, ReadOnlyKnown: true},
		"e": {Name: "e", Enum: []string{"B", "c", "d"}, ReadOnlyKnown: true},
	}}
	got := Intersect([]ServerInfo{a, b})
	x := got.Vars["x"]
	if x.Min != 10 || x.Max != 50 || x.Block != 6 || !x.ReadOnly {
		t.Errorf("x = %+v", x)
	}
	if e := strings.Join(got.Vars["e"].Enum, ","); e != "b,c" {
		t.Errorf("e = %s", e)
	}
	if _, ok := got.Vars["only_a"]; ok || !got.BinlogOn || got.Version != a.Version {
		t.Errorf("got %+v", got)
	}
}

func TestVariableName(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Version
		want string
	}{
		{"transaction_isolation", Version{MariaDB, 10, 11, 19}, "tx_isolation"},
		{"transaction_isolation", Version{MariaDB, 11, 4, 0}, "transaction_isolation"},
		{"transaction_isolation", Version{MySQL, 8, 0, 36}, "transaction_isolation"},
		{"innodb_buffer_pool_size", Version{MariaDB, 10, 11, 19}, "innodb_buffer_pool_size"},
		{"not_a_knob", Version{MariaDB, 10, 11, 19}, "not_a_knob"},
	} {
		if got := VariableName(tc.name, tc.v); got != tc.want {
			t.Errorf("VariableName(%s, %s) = %s, want %s", tc.name, tc.v, got, tc.want)
		}
	}
	if !ToleratedOption("innodb_buffer_pool_instances", Version{MariaDB, 10, 11, 19}) || ToleratedOption("innodb_support_xa", Version{MariaDB, 10, 11, 19}) ||
		ToleratedOption("innodb_buffer_pool_instances", Version{MariaDB, 10, 5, 0}) {
		t.Error("ToleratedOption: buffer_pool_instances is a no-op on 10.11, support_xa aborts, and on 10.5 the former still exists")
	}
}
