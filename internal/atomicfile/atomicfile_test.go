package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFileModeIgnoresUmaskAndOldMode: the exported my.cnf is 0644 even
// over a world-writable file and with umask 0 (mycnf-writer-file-mode).
func TestWriteFileModeIgnoresUmaskAndOldMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "best.cnf")
	if err := os.WriteFile(p, []byte("old"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	if err := WriteFile(p, []byte("[mysqld]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	b, _ := os.ReadFile(p)
	if st.Mode().Perm() != 0o644 || string(b) != "[mysqld]\n" {
		t.Fatalf("mode %v content %q", st.Mode(), b)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".best.cnf.tmp-*")); len(m) != 0 {
		t.Fatalf("temp files left: %v", m)
	}
}
