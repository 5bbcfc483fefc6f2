package space

import (
	"reflect"
	"strings"
	"testing"
)

// TestRescale carries seeds between hosts of other sizes: memory knobs by
// the RAM ratio under the memory budget, thread knobs by the core ratio,
// everything else as it is, and lists each changed value.
func TestRescale(t *testing.T) {
	sp := Lookup() // every catalogue knob, catalogue ranges
	const g = int64(1 << 30)
	big := HostSize{RAMBytes: 64 * g, Cores: 16}
	small := HostSize{RAMBytes: 8 * g, Cores: 2}
	tests := []struct {
		name     string
		in       Config
		from, to HostSize
		budget   int64
		want     Config
		listed   []string
	}{
		{
			name: "down: RAM / 8, cores / 8",
			in:   Config{"innodb_buffer_pool_size": "8589934592", "thread_pool_size": "16", "innodb_purge_threads": "8", "innodb_io_capacity": "2000"},
			from: big, to: small, budget: 6 * g,
			want: Config{"innodb_buffer_pool_size": "1073741824", "thread_pool_size": "2", "innodb_purge_threads": "1", "innodb_io_capacity": "2000"},
			listed: []string{
				"innodb_buffer_pool_size 8G -> 1G (RAM 64.0G -> 8.0G (x0.125))",
				"innodb_purge_threads 8 -> 1 (cores 16 -> 2 (x0.125))",
				"thread_pool_size 16 -> 2 (cores 16 -> 2 (x0.125))",
			},
		},
		{
			name: "down: the memory budget caps the pool",
			in:   Config{"innodb_buffer_pool_size": "51539607552"}, // 48G
			from: big, to: small, budget: 4 * g,
			want:   Config{"innodb_buffer_pool_size": "4294967296"},
			listed: []string{"innodb_buffer_pool_size 48G -> 4G (RAM 64.0G -> 8.0G (x0.125), capped by the memory budget 4.0G)"},
		},
		{
			name: "up: the search range caps, a count > 0 stays > 0",
			in:   Config{"innodb_buffer_pool_size": "4294967296", "innodb_read_io_threads": "8", "innodb_thread_concurrency": "1"},
			from: small, to: HostSize{RAMBytes: 64 * g, Cores: 16}, budget: 0,
			want: Config{"innodb_buffer_pool_size": "17179869184", "innodb_read_io_threads": "32", "innodb_thread_concurrency": "8"},
			listed: []string{
				"innodb_buffer_pool_size 4G -> 16G (RAM 8.0G -> 64.0G (x8), capped by the search range's maximum 16G)",
				"innodb_read_io_threads 8 -> 32 (cores 2 -> 16 (x8), capped by the search range's maximum 32)",
				"innodb_thread_concurrency 1 -> 8 (cores 2 -> 16 (x8))",
			},
		},
		{
			name: "down: 0 (unlimited) stays 0, a minimum holds",
			in:   Config{"innodb_thread_concurrency": "0", "innodb_write_io_threads": "4", "innodb_buffer_pool_size": "268435456"},
			from: big, to: small, budget: 6 * g,
			want: Config{"innodb_thread_concurrency": "0", "innodb_write_io_threads": "2", "innodb_buffer_pool_size": "67108864"},
			listed: []string{
				"innodb_buffer_pool_size 256M -> 64M (RAM 64.0G -> 8.0G (x0.125), raised to the search range's minimum 64M)",
				"innodb_write_io_threads 4 -> 2 (cores 16 -> 2 (x0.125), raised to the search range's minimum 2)",
			},
		},
		{
			name: "same host: nothing changes",
			in:   Config{"innodb_buffer_pool_size": "8589934592", "thread_pool_size": "16"},
			from: big, to: big, budget: 6 * g,
			want: Config{"innodb_buffer_pool_size": "8589934592", "thread_pool_size": "16"},
		},
		{
			name: "unknown source host: nothing changes",
			in:   Config{"innodb_buffer_pool_size": "8589934592", "thread_pool_size": "16"},
			from: HostSize{}, to: small, budget: 6 * g,
			want: Config{"innodb_buffer_pool_size": "8589934592", "thread_pool_size": "16"},
		},
		{
			name: "unknown knobs and bad values are left to validation",
			in:   Config{"no_such_knob": "5", "thread_pool_size": "many"},
			from: big, to: small, budget: 6 * g,
			want: Config{"no_such_knob": "5", "thread_pool_size": "many"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, listed := sp.Rescale(tc.in, tc.from, tc.to, tc.budget)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("config %v, want %v", got, tc.want)
			}
			var lines []string
			for _, r := range listed {
				lines = append(lines, r.String())
			}
			if strings.Join(lines, "\n") != strings.Join(tc.listed, "\n") {
				t.Errorf("listed:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tc.listed, "\n"))
			}
			if _, err := sp.Validate(got); err != nil && tc.in["no_such_knob"] == "" && tc.in["thread_pool_size"] != "many" {
				t.Errorf("rescaled config does not validate: %v", err)
			}
		})
	}
}

// TestPerHostInCatalogue: the scaling is a property of the catalogue rows,
// memory sizes by RAM and thread counts by cores.
func TestPerHostInCatalogue(t *testing.T) {
	want := map[string]HostScale{"innodb_buffer_pool_size": HostRAM, "thread_pool_size": HostCores, "innodb_purge_threads": HostCores,
		"innodb_read_io_threads": HostCores, "innodb_write_io_threads": HostCores, "innodb_thread_concurrency": HostCores}
	for _, k := range Catalogue() {
		if w := want[k.Name]; k.PerHost != w {
			t.Errorf("%s: PerHost %s, want %s", k.Name, k.PerHost, w)
		}
	}
}
