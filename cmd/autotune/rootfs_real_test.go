package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
)

// TestRootfsServerDiesWithAutotune runs a short study on each server of
// the matrix that runs from a root file system, SIGKILLs autotune while
// its server runs, and checks that neither the server nor a mount of its
// root outlives autotune; the same command then resumes the study to the
// end and exports it, leaving no process or mount either.
func TestRootfsServerDiesWithAutotune(t *testing.T) {
	realtest.EachServer(t, func(t *testing.T, s realtest.Server) {
		if s.Mysqld == "" {
			t.Skip("the host's server: TestEndToEndKillResumeExport")
		}
		bin := buildBinary(t)
		dir := t.TempDir()
		work := filepath.Join(dir, "sb")
		dbPath := filepath.Join(dir, "trials.db")
		args := []string{"search", "--mysqld", s.Mysqld, "--minimize=false", "--study", "kill", "--db", dbPath, "--workdir", work,
			"--trials", "2", "--tables", "2", "--table-size", "5000", "--threads", "4", "--warmup", "2s", "--duration", "4s", "--seed", "5",
			"--confirm", "0", "--recheck-every", "0", "--ab-pairs", "0", "--ab-share", "0"}
		p := startAutotune(t, bin, args...)
		p.waitLine(t, "trial 0 (baseline) started", 5*time.Minute)
		time.Sleep(3 * time.Second) // the baseline's server is up, or starting
		if len(realtest.ServerProcesses(work)) == 0 {
			t.Fatalf("no server of %s running before the kill", work)
		}
		if len(realtest.Mounts(s.Mysqld, work)) == 0 {
			t.Fatalf("the server of %s runs without its root's mounts: the check would see nothing", work)
		}
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		p.wait(t, time.Minute)
		assertNoServer(t, work)
		if m := realtest.Mounts(s.Mysqld, work); len(m) > 0 {
			t.Fatalf("mounts of %s left after the kill:\n%s", s.Mysqld, strings.Join(m, "\n"))
		}

		p = startAutotune(t, bin, args...)
		code, out := p.wait(t, 10*time.Minute)
		if code != 0 || !strings.Contains(out, "best: trial") {
			t.Fatalf("resumed run: exit %d:\n%s", code, out)
		}
		assertNoServer(t, work)
		if m := realtest.Mounts(s.Mysqld, work); len(m) > 0 {
			t.Fatalf("mounts of %s left after the resumed run:\n%s", s.Mysqld, strings.Join(m, "\n"))
		}
		if st := trialStates(t, dbPath); st["complete"] < 1 || st["running"] != 0 {
			t.Fatalf("after resume: states %v", st)
		}
		p = startAutotune(t, bin, "export", "--study", "kill", "--db", dbPath, "-o", filepath.Join(dir, "best.cnf"))
		if code, out := p.wait(t, time.Minute); code != 0 {
			t.Fatalf("export exit %d:\n%s", code, out)
		}
	})
}
