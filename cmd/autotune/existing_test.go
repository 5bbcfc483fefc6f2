package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/engine"
	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// existingServer is a MariaDB the test starts and restarts through a
// script, like a server autotune did not start: its my.cnf !includes the
// file autotune writes.
type existingServer struct {
	dir, cnf, include, pidFile, sock, restart string
	origInclude                               string
}

const restartScript = `#!/bin/sh
# Restarts the test server: stops the one in the pid file, starts a new one
# detached from this script.
PIDF="$1"; CNF="$2"; MYSQLD="$3"
if [ -f "$PIDF" ]; then
  pid=$(cat "$PIDF")
  kill -TERM "$pid" 2>/dev/null || true
  while [ -e /proc/$pid ] && ! grep -q ') Z' /proc/$pid/stat 2>/dev/null; do sleep 0.05; done
fi
setsid "$MYSQLD" --defaults-file="$CNF" </dev/null >/dev/null 2>&1 &
`

func startExistingServer(t *testing.T) *existingServer {
	t.Helper()
	realtest.Require(t)
	ctx := context.Background()
	bin, err := runner.FindServer(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "at-ex")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sb, err := runner.OpenSandbox(filepath.Join(dir, "sb"), bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.BuildSnapshot(ctx, runner.Dataset{Workload: "none"}, 100, func(context.Context, *runner.Server) error { return nil }, t.Logf); err != nil {
		t.Fatal(err)
	}
	s := &existingServer{dir: dir, cnf: filepath.Join(dir, "my.cnf"), include: filepath.Join(dir, "autotune.cnf"),
		pidFile: filepath.Join(dir, "mysqld.pid"), sock: filepath.Join(dir, "mysqld.sock"), restart: filepath.Join(dir, "restart.sh"),
		origInclude: "# the user's include file\n[mysqld]\ninnodb_flush_neighbors = 0\n"}
	user := ""
	if os.Geteuid() == 0 {
		user = "user = root\n"
	}
	cnf := fmt.Sprintf("[mysqld]\ndatadir = %s\nsocket = %s\npid-file = %s\nlog-error = %s\nskip-networking\nskip-log-bin\n%sinnodb_io_capacity = 250\n!include %s\n",
		filepath.Join(sb.Dir, "snapshot"), s.sock, s.pidFile, filepath.Join(dir, "error.log"), user, s.include)
	for path, body := range map[string]string{s.cnf: cnf, s.include: s.origInclude, s.restart: restartScript} {
		if err := os.WriteFile(path, []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		b, err := os.ReadFile(s.pidFile)
		if err != nil {
			return
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if pid > 1 {
			_ = runner.StopStale(context.Background(), s.pidFile)
		}
	})
	if out, err := s.restartCommand().CombinedOutput(); err != nil {
		t.Fatalf("start: %v: %s", err, out)
	}
	if err := s.client(t).WaitReady(ctx, time.Time{}); err != nil {
		t.Fatalf("%v\n%s", err, runner.LogExcerpt(filepath.Join(dir, "error.log")))
	}
	return s
}

func (s *existingServer) restartArgs() []string {
	mysqld, _ := runner.FindServer(context.Background(), "")
	return []string{s.restart, s.pidFile, s.cnf, mysqld.Path}
}

func (s *existingServer) restartCommand() *execCmd {
	a := s.restartArgs()
	return newExecCmd(a[0], a[1:]...)
}

func (s *existingServer) dsn() string { return "root@unix(" + s.sock + ")/" }

func (s *existingServer) client(t *testing.T) *runner.Existing {
	ex, err := runner.OpenExisting(s.dsn(), "")
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// knobNames are the knobs existing-server mode searches (the first space).
func knobNames() []string {
	return append([]string(nil), space.FirstKnobs...)
}

func (s *existingServer) globals(t *testing.T) map[string]string {
	t.Helper()
	g, err := s.client(t).Globals(context.Background(), knobNames())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// assertRestored checks the server's settings and the include file are the
// originals and the saved state is gone.
func (s *existingServer) assertRestored(t *testing.T, orig map[string]string) {
	t.Helper()
	got := s.globals(t)
	for k, v := range orig {
		if got[k] != v {
			t.Errorf("%s = %s after the study, was %s", k, got[k], v)
		}
	}
	b, err := os.ReadFile(s.include)
	if err != nil || string(b) != s.origInclude {
		t.Errorf("include file not restored: %q, %v", b, err)
	}
	if _, err := os.Stat(engine.StatePath(s.include)); err == nil {
		t.Errorf("saved state %s left behind", engine.StatePath(s.include))
	}
}

func (s *existingServer) args(db string, trials int) []string {
	quoted := make([]string, 0, 4)
	for _, a := range s.restartArgs() {
		quoted = append(quoted, "'"+a+"'")
	}
	return []string{"search", "--minimize=false", "--dsn", s.dsn(), "--config-file", s.include,
		"--restart-cmd", strings.Join(quoted, " "), "--allow-restart",
		"--db", db, "--study", "ex", "--trials", strconv.Itoa(trials), "--seed", "3",
		"--tables", "1", "--table-size", "1000", "--threads", "2", "--warmup", "1s", "--duration", "3s",
		// One measurement per trial, proposed by TPE: the test is about
		// applying and restoring settings, not about re-measurements.
		"--strategy", "tpe", "--warm-start=false", "--confirm", "0", "--recheck-every", "0", "--ab-pairs", "0", "--ab-share", "0"}
}

// TestExistingServerStudyRestores: a short study on a server autotune did
// not start changes dynamic knobs with SET GLOBAL and static ones through
// the include file and a restart, and puts every original setting back.
func TestExistingServerStudyRestores(t *testing.T) {
	t.Parallel()
	s := startExistingServer(t)
	orig := s.globals(t)
	if orig["innodb_io_capacity"] != "250" || orig["innodb_flush_neighbors"] != "0" {
		t.Fatalf("test server does not read its my.cnf and include: %v", orig)
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "t.db")
	p := startAutotune(t, bin, s.args(db, 4)...)
	code, out := p.wait(t, 4*time.Minute)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "original settings of unix(") {
		t.Errorf("no restore message:\n%s", out)
	}
	s.assertRestored(t, orig)

	st, err := storage.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	trials, err := st.Trials(context.Background(), "ex")
	if err != nil {
		t.Fatal(err)
	}
	complete, restarted := 0, 0
	for _, tr := range trials {
		t.Logf("trial %d %s %s restarted=%v score=%.1f %s", tr.Number, tr.Kind, tr.State, tr.Restarted, tr.Score, tr.Failure)
		if tr.State == search.Complete {
			complete++
		}
		if tr.Restarted {
			restarted++
		}
	}
	if complete < 3 || len(trials) != 4 {
		t.Errorf("%d trials, %d complete", len(trials), complete)
	}
	if restarted == 0 {
		t.Errorf("no trial restarted the server, though static knobs were searched")
	}
}

// TestExistingServerCtrlCRestores: Ctrl-C in the middle of a trial (the
// server runs with the trial's settings) still puts the originals back.
func TestExistingServerCtrlCRestores(t *testing.T) {
	t.Parallel()
	s := startExistingServer(t)
	orig := s.globals(t)
	bin := buildBinary(t)
	p := startAutotune(t, bin, s.args(filepath.Join(t.TempDir(), "t.db"), 10)...)
	p.waitLine(t, "trial 1 (sampled) started", 3*time.Minute)
	// The benchmark runs a second after the settings are applied (a
	// restart takes well under that here); wait for the change to show.
	changed := false
	for deadline := time.Now().Add(30 * time.Second); !changed && time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		g, err := s.client(t).Globals(context.Background(), knobNames())
		if err != nil {
			continue // restarting
		}
		for k, v := range orig {
			if g[k] != v {
				t.Logf("during trial 1: %s = %s (was %s)", k, g[k], v)
				changed = true
			}
		}
	}
	if !changed {
		t.Fatal("trial 1 changed no setting")
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, out := p.wait(t, 3*time.Minute)
	if code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, out)
	}
	s.assertRestored(t, orig)
}

type execCmd = exec.Cmd

func newExecCmd(name string, args ...string) *exec.Cmd { return exec.Command(name, args...) }
