package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCLIDocsAreCurrent: docs/cli is what the commands say of themselves;
// go generate ./cmd/autotune rewrites it.
func TestCLIDocsAreCurrent(t *testing.T) {
	dir := t.TempDir()
	if err := writeCLIDocs(dir); err != nil {
		t.Fatal(err)
	}
	fresh, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	committed, _ := filepath.Glob("../../docs/cli/*.md")
	if len(fresh) == 0 || len(fresh) != len(committed) {
		t.Fatalf("%d generated files, %d in docs/cli: run go generate ./cmd/autotune", len(fresh), len(committed))
	}
	for _, f := range fresh {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join("../../docs/cli", filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/cli/%s is stale: run go generate ./cmd/autotune", filepath.Base(f))
		}
	}
}
