package space

import (
	"strings"
	"testing"
)

func TestRepair(t *testing.T) {
	sp := Default()
	tests := []struct {
		name  string
		in    Config
		want  Config // changed keys only
		notes int
	}{
		{"consistent", Config{"innodb_io_capacity": "1000", "innodb_io_capacity_max": "2000", "innodb_buffer_pool_size": "1073741824", "innodb_log_file_size": "100663296"}, Config{}, 0},
		{"io max below capacity", Config{"innodb_io_capacity": "5000", "innodb_io_capacity_max": "300"}, Config{"innodb_io_capacity_max": "5000"}, 1},
		{"log above pool", Config{"innodb_buffer_pool_size": "134217728", "innodb_log_file_size": "1073741824"}, Config{"innodb_log_file_size": "134217728"}, 1},
		{"only one side set", Config{"innodb_io_capacity": "5000", "innodb_log_file_size": "1073741824"}, Config{}, 0},
		{"log buffer above log", Config{"innodb_log_file_size": "33554432", "innodb_log_buffer_size": "268435456"}, Config{"innodb_log_buffer_size": "33554432"}, 1},
		{"log fitted to the pool, then the buffer to the log", Config{"innodb_buffer_pool_size": "67108864", "innodb_log_file_size": "1073741824", "innodb_log_buffer_size": "268435456"},
			Config{"innodb_log_file_size": "67108864", "innodb_log_buffer_size": "67108864"}, 2},
		{"lwm above max dirty", Config{"innodb_max_dirty_pages_pct": "38.508", "innodb_max_dirty_pages_pct_lwm": "78.033"}, Config{"innodb_max_dirty_pages_pct_lwm": "38.508"}, 1},
		{"query cache off leaves the size out", Config{"query_cache_type": "OFF", "query_cache_size": "6291456"}, nil, 1},
		{"no pool, no pool size", Config{"thread_handling": "one-thread-per-connection", "thread_pool_size": "8"}, nil, 1},
		{"pool keeps its size", Config{"thread_handling": "pool-of-threads", "thread_pool_size": "8"}, Config{}, 0},
		{"query cache on keeps its size", Config{"query_cache_type": "DEMAND", "query_cache_size": "6291456"}, Config{}, 0},
		{"all at once", Config{"innodb_io_capacity": "900", "innodb_io_capacity_max": "100", "innodb_buffer_pool_size": "67108864", "innodb_log_file_size": "4294967296"},
			Config{"innodb_io_capacity_max": "900", "innodb_log_file_size": "67108864"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, notes := sp.Repair(tc.in)
			if len(notes) != tc.notes {
				t.Errorf("notes %v, want %d", notes, tc.notes)
			}
			want := tc.in.Merge(tc.want)
			if tc.want == nil { // the repair removes the dependent knob
				want = Config{}
				for k, v := range tc.in {
					if k != "query_cache_size" && k != "thread_pool_size" {
						want[k] = v
					}
				}
			}
			if got.Key() != want.Key() {
				t.Errorf("Repair = %s\nwant     %s", got.Key(), want.Key())
			}
			if _, err := sp.Validate(got); err != nil {
				t.Errorf("repaired config invalid: %v", err)
			}
			if tc.notes > 0 && !strings.Contains(strings.Join(notes, " "), "innodb_") && !strings.Contains(strings.Join(notes, " "), "_size") {
				t.Errorf("notes %v do not name the knob", notes)
			}
		})
	}
	// The input is not modified.
	in := Config{"innodb_io_capacity": "5000", "innodb_io_capacity_max": "300"}
	sp.Repair(in)
	if in["innodb_io_capacity_max"] != "300" {
		t.Error("Repair modified its input")
	}
}

func TestEstimateMemory(t *testing.T) {
	server := mariadb1011(t).Vars
	// MariaDB 10.11 defaults, 66 connections (16 threads + 50):
	// global 128M pool + 16M log buffer + 128M key buffer + 1M query cache
	// + 128M aria + 16M tmp table = 417M; per connection 128K + 256K + 2M +
	// 256K + 292K (thread_stack 299008) = 2.90M.
	m := EstimateMemory(Config{}, server, 66)
	if m.Global != 417<<20 {
		t.Errorf("global %d (%s), want 417M", m.Global, HumanBytes(m.Global))
	}
	per := int64(131072 + 262144 + 2097152 + 262144 + 299008)
	if m.PerConnection != per || m.Total != m.Global+66*per {
		t.Errorf("per connection %d total %d, want %d and %d", m.PerConnection, m.Total, per, m.Global+66*per)
	}
	// A config's values win over the server's; the performance schema adds
	// its measured memory.
	m2 := EstimateMemory(Config{"innodb_buffer_pool_size": "4294967296", "performance_schema": "ON"}, server, 66)
	if d := m2.Global - m.Global; d != 4294967296-134217728+perfSchemaBytes {
		t.Errorf("delta %d", d)
	}
	// Binary logging adds the binlog cache per connection.
	withBin := map[string]ServerVar{"log_bin": {Value: "ON"}, "binlog_cache_size": {Value: "32768"}}
	if m3 := EstimateMemory(Config{}, withBin, 10); m3.PerConnection != per+32768 {
		t.Errorf("binlog cache not counted: %d", m3.PerConnection)
	}
	if s := m.String(); !strings.Contains(s, "x 2.9M per connection") {
		t.Errorf("String = %q", s)
	}
	for n, want := range map[int64]string{512: "512", 1536: "1.5K", 4617089843: "4.3G", 1 << 40: "1.0T"} {
		if got := HumanBytes(n); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
