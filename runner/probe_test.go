package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProbeFsync(t *testing.T) {
	dir := t.TempDir()
	r, err := ProbeFsync(context.Background(), dir, 200*time.Millisecond)
	if err != nil || r <= 0 {
		t.Fatalf("ProbeFsync = %g, %v", r, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("probe left %d files behind", len(left))
	}
	missing := filepath.Join(dir, "nope")
	if _, err := ProbeFsync(context.Background(), missing, time.Millisecond); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing dir: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ProbeFsync(ctx, dir, time.Second); err == nil {
		t.Fatal("a cancelled probe must fail")
	}
}

func TestDataBytes(t *testing.T) {
	sb := &Sandbox{Dir: t.TempDir()}
	if _, err := sb.DataBytes(); err == nil {
		t.Fatal("no snapshot: want an error")
	}
	// Only the sbtest schema counts when it exists.
	for name, size := range map[string]int{"ibdata1": 1000, "sbtest/sbtest1.ibd": 300, "sbtest/sbtest2.ibd": 200} {
		p := filepath.Join(sb.SnapshotDir(), name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := sb.DataBytes(); err != nil || n != 500 {
		t.Fatalf("DataBytes = %d, %v; want 500", n, err)
	}
}
