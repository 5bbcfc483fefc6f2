package space

import (
	"strconv"
	"strings"
	"testing"
)

// seedGroups are the 36 knobs of the reference tuning study (MySQL 5.5 on
// sysbench): 4 runtime environment, 5 compile time, 5 server, 22 InnoDB.
var seedGroups = map[string]int{"1": 4, "2": 5, "3": 5, "4": 22}

func TestCatalogueHoldsThe36SeedKnobs(t *testing.T) {
	seeds := map[string][]string{}
	for _, k := range Catalogue() {
		if k.Seed != "" {
			seeds[k.Seed] = append(seeds[k.Seed], k.Name)
		}
	}
	if len(seeds) != 36 {
		t.Fatalf("%d seed numbers, want 36", len(seeds))
	}
	per := map[string]int{}
	for s := range seeds {
		per[strings.Split(s, ".")[0]]++
	}
	for g, n := range seedGroups {
		if per[g] != n {
			t.Errorf("group %s has %d seed knobs, want %d", g, per[g], n)
		}
	}
	// The seeds that name two variables.
	for s, want := range map[string]string{
		"3.5": "query_cache_size query_cache_type", "4.14": "innodb_sync_spin_loops innodb_spin_wait_delay",
		"4.22": "innodb_read_io_threads innodb_write_io_threads", "4.17": "innodb_max_dirty_pages_pct",
		"4.11": "innodb_read_ahead", "3.1": "transaction_isolation", "4.16": "innodb_buffer_pool_size",
	} {
		if got := strings.Join(seeds[s], " "); got != want {
			t.Errorf("seed %s = %q, want %q", s, got, want)
		}
	}
	// The extras of the later reports are rows too.
	names := map[string]bool{}
	for _, k := range Catalogue() {
		names[k.Name] = true
	}
	for _, x := range []string{"innodb_io_capacity_max", "innodb_flush_neighbors", "innodb_adaptive_flushing", "innodb_adaptive_flushing_lwm",
		"innodb_lru_scan_depth", "innodb_purge_batch_size", "innodb_undo_tablespaces", "sync_binlog", "thread_handling", "thread_pool_size",
		"innodb_log_files_in_group", "transparent_huge_pages", "innodb_page_size", "server_build", "innodb_random_read_ahead", "innodb_read_ahead_threshold"} {
		if !names[x] {
			t.Errorf("extra %s missing", x)
		}
	}
}

func TestCatalogueRowsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Catalogue() {
		t.Run(k.Name, func(t *testing.T) {
			if seen[k.Name] {
				t.Fatal("listed twice")
			}
			seen[k.Name] = true
			if strings.Contains(k.Name, "-") || k.Name != strings.ToLower(k.Name) {
				t.Error("names are lower case with underscores")
			}
			if k.Source == "" || k.Help == "" || k.Group == "" {
				t.Error("missing Source, Help or Group")
			}
			if k.Layer == LayerBuild && (k.Name == "server_build" || k.Name == "benchmark_build") {
				if len(k.Choices) != 0 {
					t.Error("build choices come from the command line")
				}
				return
			}
			if err := checkKnob(k); err != nil {
				t.Fatal(err)
			}
			if got, err := k.Normalize(k.Default); err != nil || got != k.Default {
				t.Errorf("default %q: normalises to %q, %v", k.Default, got, err)
			}
			if k.Durability {
				if got, err := k.Normalize(k.StrictValue); err != nil || got != k.StrictValue {
					t.Errorf("strict value %q: %q, %v", k.StrictValue, got, err)
				}
			}
			if k.Via != "" && k.NotSearched == "" {
				t.Error("a knob searched via another is not searched itself")
			}
			for _, a := range k.Avail {
				for _, v := range []string{a.Since, a.Until} {
					if v != "" {
						release(a.Flavor, v) // panics on a bad literal
					}
				}
				if a.Since != "" && a.Until != "" && release(a.Flavor, a.Since).Compare(release(a.Flavor, a.Until)) >= 0 {
					t.Errorf("Avail %+v: empty version range", a)
				}
			}
		})
	}
}

// TestChoicesOrderIsStable pins every choice list: samplers refer to
// choices by position, so an order change would silently remap stored
// studies. Append new choices at the end; never reorder or remove.
func TestChoicesOrderIsStable(t *testing.T) {
	want := map[string]string{
		"allocator":                      "system tcmalloc jemalloc",
		"cpu_placement":                  "none split",
		"numa_policy":                    "default interleave",
		"benchmark_connection":           "socket tcp",
		"compile_platform_optimisation":  "generic native",
		"compiler":                       "gcc clang icc",
		"transaction_isolation":          "READ-COMMITTED REPEATABLE-READ",
		"query_cache_type":               "OFF ON DEMAND",
		"innodb_file_format":             "Antelope Barracuda",
		"innodb_change_buffering":        "none inserts deletes changes purges all",
		"innodb_flush_method":            "fsync O_DSYNC O_DIRECT O_DIRECT_NO_FSYNC",
		"innodb_read_ahead":              "none random linear both",
		"innodb_flush_log_at_trx_commit": "0 1 2",
		"innodb_flush_neighbors":         "0 1 2",
		"sync_binlog":                    "0 1 100 1000",
		"thread_handling":                "one-thread-per-connection pool-of-threads",
		"transparent_huge_pages":         "always madvise never",
		"innodb_default_row_format":      "redundant compact dynamic",
	}
	for _, k := range Catalogue() {
		if k.Kind != Enum || len(k.Choices) == 0 {
			continue
		}
		w, ok := want[k.Name]
		if !ok {
			t.Errorf("%s: new enum knob: add its choices to this test", k.Name)
			continue
		}
		if got := strings.Join(k.Choices, " "); got != w {
			t.Errorf("%s choices = %q, want %q (never reorder)", k.Name, got, w)
		}
	}
}

// TestEveryKnobValues is the per-knob table: for every knob, the range
// ends and the default are valid, values just outside are refused with an
// error naming the knob, rendering round-trips, and the dashed spelling
// finds the knob.
func TestEveryKnobValues(t *testing.T) {
	sp := Lookup()
	for _, k := range Catalogue() {
		if k.Kind == Enum && len(k.Choices) == 0 {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			var valid, invalid []string
			switch k.Kind {
			case Bool:
				valid = []string{"ON", "off", "1", "0", "true", "FALSE"}
				invalid = []string{"yes", "2", ""}
			case Enum:
				for _, c := range k.Choices {
					valid = append(valid, c, strings.ToLower(c))
				}
				invalid = []string{"no-such-choice", ""}
			case Float:
				valid = []string{fmtF(k.Min), fmtF(k.Max), fmtF((k.Min + k.Max) / 2)}
				invalid = []string{fmtF(k.Min - 1), fmtF(k.Max + 0.5), "NaN", "x"}
			case Int, Bytes:
				step := float64(max(k.Step, 1))
				valid = []string{fmtF(k.Min), fmtF(k.Max)}
				invalid = []string{fmtF(k.Max + step), "x1"}
				if k.Min-step >= 0 {
					invalid = append(invalid, fmtF(k.Min-step))
				}
				if k.Kind == Bytes {
					valid = append(valid, FormatBytes(int64(k.Min)))
				}
			}
			valid = append(valid, k.Default)
			for _, v := range valid {
				got, err := k.Normalize(v)
				if err != nil {
					t.Errorf("Normalize(%q): %v", v, err)
					continue
				}
				if again, err := k.Normalize(k.Render(got)); err != nil || again != got {
					t.Errorf("Render(%q) = %q does not read back (%q, %v)", got, k.Render(got), again, err)
				}
			}
			for _, v := range invalid {
				if got, err := k.Normalize(v); err == nil || !strings.Contains(err.Error(), k.Name) {
					t.Errorf("Normalize(%q) = %q, %v; want an error naming the knob", v, got, err)
				}
			}
			if got, ok := sp.Knob(strings.ReplaceAll(k.Name, "_", "-")); !ok || got.Name != k.Name {
				t.Errorf("dashed name does not find the knob")
			}
		})
	}
}

func fmtF(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func TestRoundingAndRendering(t *testing.T) {
	sp := Lookup()
	tests := []struct{ knob, in, want, render string }{
		{"innodb_buffer_pool_size", "1073741825", "1073741824", "1G"},    // rounded to 1 MiB
		{"innodb_buffer_pool_size", "1610612736", "1610612736", "1536M"}, // 1.5G has no exact G form
		{"innodb_log_file_size", "100663296", "100663296", "96M"},
		{"innodb_log_buffer_size", "16m", "16777216", "16M"},
		{"query_cache_size", "1500k", "1048576", "1M"}, // 1.46M rounds to 1M
		{"innodb_max_purge_lag", "1499", "1000", "1000"},
		{"innodb_max_purge_lag", "1500", "2000", "2000"}, // half rounds away from zero
		{"innodb_max_dirty_pages_pct", "75.55555", "75.556", "75.556"},
		{"innodb_adaptive_flushing_lwm", "0", "0", "0"},
		{"innodb_io_capacity", "1k", "1024", "1024"},
		{"innodb_page_size", "16k", "16384", "16K"},
		{"transaction_isolation", "read-committed", "READ-COMMITTED", "READ-COMMITTED"},
		{"innodb_flush_method", "o_direct_no_fsync", "O_DIRECT_NO_FSYNC", "O_DIRECT_NO_FSYNC"},
		{"query_cache_type", "demand", "DEMAND", "DEMAND"},
		{"performance_schema", "true", "ON", "ON"},
		{"allocator", "TCMalloc", "tcmalloc", "tcmalloc"},
	}
	for _, tc := range tests {
		k, ok := sp.Knob(tc.knob)
		if !ok {
			t.Fatalf("no knob %s", tc.knob)
		}
		got, err := k.Normalize(tc.in)
		if err != nil || got != tc.want || k.Render(got) != tc.render {
			t.Errorf("%s: Normalize(%q) = %q (%v), Render %q; want %q, %q", tc.knob, tc.in, got, err, k.Render(got), tc.want, tc.render)
		}
	}
	// Canonical reads server values outside the search range unchanged.
	k, _ := sp.Knob("innodb_io_capacity_max")
	if got, err := k.Canonical("4294967295"); err != nil || got != "4294967295" {
		t.Errorf("Canonical = %q, %v", got, err)
	}
	k, _ = sp.Knob("innodb_max_dirty_pages_pct")
	if got, err := k.Canonical("90.000000"); err != nil || got != "90" {
		t.Errorf("Canonical = %q, %v", got, err)
	}
	if _, err := k.Canonical("ninety"); err == nil {
		t.Error("Canonical(ninety): want an error")
	}
}

func TestNameVariants(t *testing.T) {
	sp := Lookup()
	for in, want := range map[string]string{
		"tx_isolation":            "transaction_isolation",
		"transaction-isolation":   "transaction_isolation",
		"innodb-buffer-pool-size": "innodb_buffer_pool_size",
		"innodb_read_ahead":       "innodb_read_ahead",
	} {
		if k, ok := sp.Knob(in); !ok || k.Name != want {
			t.Errorf("Knob(%q) = %q, %v; want %q", in, k.Name, ok, want)
		}
	}
	// Names are not case-folded: the server's option matcher (my_getopt)
	// compares names character by character, treating only - and _ as equal.
	if _, ok := sp.Knob("Max_Connections"); ok {
		t.Error("case-folded lookup")
	}
	if _, ok := sp.Knob("innodb_read"); ok {
		t.Error("prefix lookup: a prefix must never find a knob")
	}
}
