package study

import (
	"reflect"
	"testing"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// The recorded form leaves out knobs at the server's default, but not one
// the baseline my.cnf sets: an export against that my.cnf must still name
// a knob the best sets back to the default. On an existing server nothing
// is left out (a left-out knob keeps the server's own setting there).
func TestRecordedFormKeepsWhatTheBaselineSets(t *testing.T) {
	r := &run{sp: space.Default(), base: space.Config{"innodb_buffer_pool_size": "1073741824"}}
	got := r.shape().Of(search.Proposal{Config: space.Config{"innodb_buffer_pool_size": "134217728", "innodb_io_capacity": "200", "innodb_log_file_size": "67108864"}, Kind: search.Sampled})
	want := space.Config{"innodb_buffer_pool_size": "134217728", "innodb_log_file_size": "67108864"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
	r.cfg.Existing = &ExistingServer{}
	if !r.shape().Verbatim {
		t.Error("an existing server's study records configurations in a canonical form that assumes the defaults")
	}
}
