package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/storage"
)

// TestHostProfileOutOfMemory runs a tiny study under a 256M memory cgroup
// on a dataset larger than that (2 x 600k rows, about 290 MB): the
// baseline (a 128M buffer pool) completes, a seed whose 256M pool loads
// the dataset's page list goes over the limit and fails its trial as out
// of memory, and the study goes on to its next trial. The manifest holds
// the profile, and a resume under another profile is refused (exit 2).
func TestHostProfileOutOfMemory(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	seed := filepath.Join(dir, "over.cnf")
	if err := os.WriteFile(seed, []byte("[mysqld]\ninnodb_buffer_pool_size = 256M\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, sb := filepath.Join(dir, "t.db"), filepath.Join(dir, "sb")
	args := []string{"search", "--study", "p", "--db", db, "--workdir", sb, "--memory-budget", "100%",
		"--tables", "2", "--table-size", "600000", "--threads", "2", "--warmup", "2s", "--duration", "5s",
		"--trials", "3", "--seed-from", seed, "--warm-start=false", "--confirm", "0", "--ab-pairs", "0", "--minimize=false"}
	p := startAutotune(t, bin, append(args, "--memory-limit", "256M")...)
	code, out := p.wait(t, 8*time.Minute)
	if code != 0 {
		t.Fatalf("search exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"host profile: the sandboxed server runs under a memory limit 256M (cgroup v",
		"out of memory: the kernel killed the server",
		"at the host profile's memory limit 256M",
		"trial cap reached after 3 trials",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	st := trialStates(t, db)
	total := 0
	for _, n := range st {
		total += n
	}
	if st["complete"] < 1 || st["failed"] < 1 || total != 3 {
		t.Fatalf("trial states %v, want the baseline complete, the seed failed, 3 in all:\n%s", st, out)
	}
	assertNoServer(t, sb)

	s, err := storage.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	row, _, err := s.Study(context.Background(), "p")
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	m, err := row.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.HostProfile == nil || m.HostProfile.MemoryLimitBytes != 256<<20 {
		t.Fatalf("manifest host profile %+v, want 256M", m.HostProfile)
	}

	// Another profile, or none, is refused even with --allow-changes.
	for _, extra := range [][]string{{"--memory-limit", "512M", "--allow-changes"}, {"--trials", "4"}} {
		a := append(append([]string{}, args...), extra...)
		p = startAutotune(t, bin, a...)
		code, out = p.wait(t, 2*time.Minute)
		if code != 2 || !strings.Contains(out, "another host profile") || !strings.Contains(out, "host_profile") {
			t.Fatalf("resume with %v: exit %d, want 2 naming the host profile:\n%s", extra, code, out)
		}
	}
	assertNoServer(t, sb)
}
