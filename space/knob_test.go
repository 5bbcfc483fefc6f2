package space

import (
	"bytes"
	"strings"
	"testing"
)

func knob(t *testing.T, name string) Knob {
	t.Helper()
	k, ok := Default().Knob(name)
	if !ok {
		t.Fatalf("no knob %s", name)
	}
	return k
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		knob, in, want, err string
	}{
		{"innodb_buffer_pool_size", "4G", "4294967296", ""},
		{"innodb_buffer_pool_size", "128m", "134217728", ""},
		{"innodb_buffer_pool_size", "134217728", "134217728", ""},
		{"innodb_buffer_pool_size", "134217729", "134217728", ""}, // rounded to 1 MiB
		{"innodb_buffer_pool_size", "1M", "", "outside [64M, 16G]"},
		{"innodb_buffer_pool_size", "lots", "", `size "lots"`},
		{"innodb_buffer_pool_size", "-5M", "", "non-negative"},
		{"innodb_log_file_size", "1G", "1073741824", ""},
		{"innodb_log_file_size", "8G", "", "outside"},
		{"innodb_flush_log_at_trx_commit", "2", "2", ""},
		{"innodb_flush_log_at_trx_commit", "3", "", "want one of 0, 1, 2"},
		{"innodb_flush_method", "o_direct", "O_DIRECT", ""},
		{"innodb_flush_method", "nosync", "", "want one of"},
		{"innodb_doublewrite", "0", "OFF", ""},
		{"innodb_doublewrite", "on", "ON", ""},
		{"innodb_doublewrite", "maybe", "", "want ON or OFF"},
		{"innodb_doublewrite", "yes", "", "reads \"yes\" as OFF"}, // my_getopt: not recognized, set to OFF
		{"innodb_doublewrite", "TRUE", "ON", ""},
		{"innodb_io_capacity", "2000", "2000", ""},
		{"innodb_io_capacity", "50", "", "outside"},
		{"innodb_io_capacity", "2k", "2048", ""}, // the server takes K/M/G on every integer option
		{"innodb_io_capacity", "lots", "", "want an integer"},
		{"innodb_max_dirty_pages_pct", "75.5", "75.5", ""},
		{"innodb_max_dirty_pages_pct", "99.9", "", "outside"},
		{"innodb_max_dirty_pages_pct", "NaN", "", "want a number"},
		{"innodb_purge_threads", "32", "32", ""},
		{"innodb_purge_threads", "0", "", "outside"},
		{"innodb_change_buffering", "ALL", "all", ""},
	}
	for _, tc := range tests {
		t.Run(tc.knob+"="+tc.in, func(t *testing.T) {
			got, err := knob(t, tc.knob).Normalize(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.knob) {
					t.Fatalf("Normalize(%q) = %q, %v; want error naming the knob and containing %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Normalize(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"0", 0}, {"1k", 1024}, {"16M", 16 << 20}, {"4G", 4 << 30}, {"1T", 1 << 40}, {"1000", 1000}} {
		got, err := ParseBytes(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "M", "1.5G", "9999999999999G", "12X"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q): want an error", bad)
		}
	}
	for _, tc := range []struct {
		in   int64
		want string
	}{{134217728, "128M"}, {4 << 30, "4G"}, {1000, "1000"}, {0, "0"}, {1536 << 10, "1536K"}} {
		if got := FormatBytes(tc.in); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriteOptionsFullNamesInSpaceOrder(t *testing.T) {
	sp := Lookup()
	cfg, err := sp.Validate(Config{"innodb-flush-method": "fsync", "innodb_buffer_pool_size": "4G", "innodb_doublewrite": "0",
		"allocator": "tcmalloc", "tx_isolation": "read-committed"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := sp.WriteOptions(&b, cfg); err != nil {
		t.Fatal(err)
	}
	// Catalogue order; environment knobs are not options; the alias
	// tx_isolation is written under the option name.
	want := "transaction_isolation = READ-COMMITTED\ninnodb_doublewrite = OFF\ninnodb_flush_method = fsync\ninnodb_buffer_pool_size = 4G\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	if err := Default().WriteOptions(&b, Config{"innodb_read_ahead": "both"}); err == nil {
		t.Fatal("a knob the server lacks must be an error (innodb_read_ahead would prefix-match another option)")
	}
	if _, err := sp.Validate(Config{"nope": "1"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("Validate unknown knob: %v", err)
	}
}

// TestChangesFrom: against a baseline, a knob counts when its value differs
// from the baseline's, the default standing in for a knob either side
// leaves out.
func TestChangesFrom(t *testing.T) {
	sp := Default()
	base := Config{"innodb_io_capacity": "1000", "innodb_doublewrite": "ON", "innodb_flush_neighbors": "0"}
	c := Config{"innodb_io_capacity": "1000", "innodb_doublewrite": "OFF", "innodb_buffer_pool_size": "134217728",
		"innodb_log_buffer_size": "33554432", "made_up": "7"}
	got := strings.Join(sp.ChangesFrom(base, c), " ")
	// innodb_io_capacity: as in the baseline; innodb_buffer_pool_size: the
	// default, which the baseline has too; innodb_flush_neighbors: the
	// baseline sets 0, the trial leaves it at its default 1.
	want := "innodb_doublewrite=OFF innodb_log_buffer_size=32M innodb_flush_neighbors=1 made_up=7"
	if got != want {
		t.Errorf("ChangesFrom = %q\nwant          %q", got, want)
	}
	if got := sp.ChangesFrom(c, c); len(got) != 0 {
		t.Errorf("a config against itself: %v", got)
	}
}

func TestChangesAndLimit(t *testing.T) {
	sp := Default()
	c := Config{"innodb_buffer_pool_size": "134217728", "innodb_io_capacity": "1000"}
	if got := sp.Changes(c); len(got) != 1 || got[0] != "innodb_io_capacity=1000" {
		t.Fatalf("Changes = %v", got)
	}
	if err := sp.Limit("innodb_buffer_pool_size", float64(1<<30)); err != nil {
		t.Fatal(err)
	}
	k, _ := sp.Knob("innodb_buffer_pool_size")
	if k.Max != float64(1<<30) {
		t.Fatalf("Max = %g after Limit", k.Max)
	}
	if _, err := k.Normalize("2G"); err == nil {
		t.Fatal("2G must be outside the limited range")
	}
	if err := sp.Limit("innodb_buffer_pool_size", float64(1<<30)+12345); err != nil {
		t.Fatal(err)
	}
	if k, _ := sp.Knob("innodb_buffer_pool_size"); k.Max != float64(1<<30) {
		t.Fatalf("Max = %g: a limit rounds down to the step", k.Max)
	}
	if err := sp.Limit("innodb_buffer_pool_size", 1); err == nil {
		t.Fatal("limit under the minimum must fail")
	}
	for _, k := range Default().Knobs() {
		if k.Name == "innodb_buffer_pool_size" && k.Max == float64(1<<30) {
			t.Fatal("Limit must not change other spaces")
		}
	}
	for _, k := range sp.Knobs() {
		if k.Name == "innodb_buffer_pool_size" && k.Max != float64(1<<30) {
			t.Fatal("Limit must narrow the searched knob too")
		}
	}
}

func TestNewRejectsBadTables(t *testing.T) {
	for _, ks := range [][]Knob{
		{{Name: "a", Kind: Int, Min: 1, Max: 2}, {Name: "a", Kind: Int, Min: 1, Max: 2}},
		{{Name: "b", Kind: Int, Min: 3, Max: 2}},
		{{Name: "c", Kind: Bytes, Min: 0, Max: 2, Scale: Log}},
		{{Name: "d", Kind: Enum}},
	} {
		if _, err := New(ks); err == nil {
			t.Errorf("New(%v): want an error", ks)
		}
	}
}
