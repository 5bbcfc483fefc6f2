package runner

import (
	"path/filepath"
	"strings"
	"testing"
)

// The pre-flight refuses a study whose dataset cannot fit on the sandbox's
// disk (a new study needs the snapshot and a working copy, a resume one
// copy), naming the limit and what to change; a study that fits passes,
// also in a --workdir not created yet. (The kernel's AIO events are
// checked before every start, by the engine: engine.Engine.HostAIO.)
func TestPreflight(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	free, err := freeBytes(dir)
	if err != nil || free <= 0 {
		t.Fatalf("free bytes of %s: %d, %v", dir, free, err)
	}
	if err := (Preflight{Dir: dir, DataBytes: 1 << 20}).Check(); err != nil {
		t.Errorf("a small study: %v", err)
	}
	// Fits once, not twice: a resume passes, a new study does not.
	half := (free - preflightSlack) * 2 / 3
	if err := (Preflight{Dir: dir, DataBytes: half, Snapshot: true}).Check(); err != nil {
		t.Errorf("a resume with one copy to make: %v", err)
	}
	err = Preflight{Dir: dir, DataBytes: half}.Check()
	if err == nil || !strings.Contains(err.Error(), "disk: ") || !strings.Contains(err.Error(), "(2 × ") || !strings.Contains(err.Error(), "--workdir") {
		t.Errorf("a new study needing two copies: %v", err)
	}
	if got := (Dataset{Tables: 8, TableSize: 500000}).EstimatedBytes(); got < 1e9 || got > 1.2e9 {
		t.Errorf("8 x 500k sysbench rows estimated at %d bytes, want about 1.1 GB", got)
	}
}
