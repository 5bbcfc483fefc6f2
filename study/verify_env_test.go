package study

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/space"
)

// TestExportEnvironment: verify reads the runtime knobs an export's
// header names ("# not an option: allocator=tcmalloc (...)"), so it
// measures the trial's configuration; knobs this host's space lacks, and
// values they do not take, are left out with a note.
func TestExportEnvironment(t *testing.T) {
	sp := space.Lookup()
	for _, tc := range []struct {
		name, header string
		want         space.Config
		notes        []string
	}{
		{"allocator and placement", "# not an option: allocator=tcmalloc (start the server with LD_PRELOAD set to the tcmalloc library)\n# not an option: cpu_placement=split (server and benchmark were pinned to separate cores with taskset)\n",
			space.Config{"allocator": "tcmalloc", "cpu_placement": "split"}, []string{"line 1: applies allocator=tcmalloc", "line 2: applies cpu_placement=split"}},
		{"no such lines", "# autotune: best configuration of study \"a\"\n", space.Config{}, nil},
		{"a server option is not an environment knob", "# not an option: innodb_io_capacity=1000\n", space.Config{}, []string{"line 1: innodb_io_capacity=1000 left out"}},
		{"unknown knob", "# not an option: server_build=fast (the binary named in the study's --server-build/--benchmark-build list)\n", space.Config{}, []string{"line 1: server_build=fast left out"}},
		{"a value the knob does not take", "# not an option: allocator=mimalloc\n", space.Config{}, []string{"line 1: allocator=mimalloc left out: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "best.cnf")
			if err := os.WriteFile(f, []byte(tc.header+"[mysqld]\ninnodb_buffer_pool_size = 1280M\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := exportfile.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			got, notes := exportEnvironment(h, sp)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("config %v, want %v", got, tc.want)
			}
			if len(notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %d", notes, len(tc.notes))
			}
			for i, n := range tc.notes {
				if !strings.HasPrefix(notes[i], n) {
					t.Errorf("note %d %q, want prefix %q", i, notes[i], n)
				}
			}
		})
	}
}
