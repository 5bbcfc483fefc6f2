package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A malformed verify file and an unknown noise --set knob are usage errors
// before any sandbox is built (here the server binary does not exist, so
// reaching the build would fail otherwise).
func TestVerifyAndNoiseRefuseBadInputFirst(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Workdir: filepath.Join(dir, "sb"), Space: Space{Mysqld: filepath.Join(dir, "no-mariadbd")}}
	bad := filepath.Join(dir, "bad.cnf")
	if err := os.WriteFile(bad, []byte("innodb_buffer_pool_size = 1G\n[mysqld]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Verify(context.Background(), cfg, []string{bad}, 2, "", silent{})
	if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), "bad.cnf line 1") {
		t.Errorf("verify of a malformed file: %v", err)
	}
	_, err = Noise(context.Background(), cfg, []string{"innodb_buffer_pool_size=1G", "innodb_bogus=1"}, 2, silent{})
	if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), `no knob "innodb_bogus"`) {
		t.Errorf("noise --set of an unknown knob: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "sb")); serr == nil {
		t.Error("a sandbox was created for bad input")
	}
}
