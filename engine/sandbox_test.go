package engine

import (
	"testing"

	"github.com/autotune/autotune/internal/testspace"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
)

// TestDynamicChanges: consecutive trials differing only in dynamic server
// knobs become SET GLOBAL assignments; anything else needs a restart.
func TestDynamicChanges(t *testing.T) {
	sp := testspace.MariaDB(t)
	prev := space.Config{"innodb_buffer_pool_size": "134217728", "innodb_flush_neighbors": "1", "innodb_doublewrite": "ON"}
	tests := []struct {
		name    string
		cfg     space.Config
		ok      bool
		assigns []runner.Assignment
	}{
		{"same", prev, true, nil},
		{"dynamic knobs", space.Config{"innodb_buffer_pool_size": "1073741824", "innodb_flush_neighbors": "0", "innodb_doublewrite": "ON",
			"transaction_isolation": "READ-COMMITTED", "innodb_adaptive_hash_index": "ON"}, true,
			[]runner.Assignment{
				{Var: "tx_isolation", Value: "READ-COMMITTED", Quoted: true},
				{Var: "innodb_adaptive_hash_index", Value: "ON", Quoted: true},
				{Var: "innodb_buffer_pool_size", Value: "1073741824"},
				{Var: "innodb_flush_neighbors", Value: "0"},
			}},
		{"benchmark connection only", space.Config{"innodb_buffer_pool_size": "134217728", "innodb_flush_neighbors": "1", "innodb_doublewrite": "ON", "benchmark_connection": "tcp"}, true, nil},
		{"dropped knob goes back to its default", space.Config{"innodb_buffer_pool_size": "134217728", "innodb_doublewrite": "ON", "innodb_flush_neighbors": "1", "innodb_io_capacity": "200"}, true, nil},
		{"restart knob", space.Config{"innodb_buffer_pool_size": "134217728", "innodb_flush_neighbors": "1", "innodb_doublewrite": "OFF"}, false, nil},
		{"read-only knob", space.Config{"innodb_buffer_pool_size": "134217728", "innodb_log_buffer_size": "33554432"}, false, nil},
		{"allocator", space.Config{"innodb_buffer_pool_size": "134217728", "innodb_flush_neighbors": "1", "innodb_doublewrite": "ON", "allocator": "tcmalloc"}, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			as, ok := dynamicChanges(sp, prev, tc.cfg)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%v)", ok, tc.ok, as)
			}
			if !ok {
				return
			}
			if len(as) != len(tc.assigns) {
				t.Fatalf("assignments %v, want %v", as, tc.assigns)
			}
			for i := range as {
				if as[i] != tc.assigns[i] {
					t.Errorf("assignment %d = %+v, want %+v", i, as[i], tc.assigns[i])
				}
			}
		})
	}
}

// A left-out innodb_io_capacity_max runs at max(2000, 2 × io_capacity):
// moving from io_capacity 1500 (maximum 3000) to 800 with the maximum
// left out sets it back to 2000, as a restart would.
func TestDynamicChangesFollowADependentDefault(t *testing.T) {
	sp := testspace.MariaDB(t)
	as, ok := dynamicChanges(sp, space.Config{"innodb_io_capacity": "1500"}, space.Config{"innodb_io_capacity": "800"})
	if !ok {
		t.Fatal("not dynamic")
	}
	want := []runner.Assignment{{Var: "innodb_io_capacity", Value: "800"}, {Var: "innodb_io_capacity_max", Value: "2000"}}
	if len(as) != len(want) {
		t.Fatalf("assignments %v, want %v", as, want)
	}
	for i := range as {
		if as[i] != want[i] {
			t.Errorf("assignment %d = %+v, want %+v", i, as[i], want[i])
		}
	}
	// Two spellings of one value are no change.
	if as, ok := dynamicChanges(sp, space.Config{"innodb_buffer_pool_size": "1G"}, space.Config{"innodb_buffer_pool_size": "1073741824"}); !ok || len(as) != 0 {
		t.Errorf("1G to 1073741824: %v, %v; want no change", as, ok)
	}
}
