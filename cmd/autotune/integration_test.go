package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/space"
)

// The real-server tests of this package that take 20 s or more call
// t.Parallel, so that up to GOMAXPROCS of them run at a time (go test's
// -parallel default; two on the 2-core reference machine; other packages'
// tests run alongside):
// each has its own sandbox (datadir, socket, loopback port, temporary
// directory) and checks only its own processes, and most of their time is
// benchmark phases of fixed length. None asserts a speed, and what they
// assert about gains has margins far above the noise a shared machine
// adds. Two stay serial: TestTwoWorkersOneStudy (a 500 ms heartbeat: a
// stall of 3 s would hand a live trial to the other worker) and
// TestFaultKillAutotuneAtManyMoments (its kill moments are placed for the
// length of an unshared trial).

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// TestMain removes the autotune binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// buildBinary builds autotune once per test binary run (the first test
// that asks builds it) and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "autotune-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "autotune")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// proc is a running autotune whose output lines are collected.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
	all   *strings.Builder
	done  chan error
}

func startAutotune(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, lines: make(chan string, 1000), all: &strings.Builder{}, done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			t.Logf("autotune: %s", sc.Text())
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	go func() { err := cmd.Wait(); pw.Close(); p.done <- err }()
	return p
}

// waitLine waits for an output line containing s.
func (p *proc) waitLine(t *testing.T, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("autotune ended before printing %q", s)
			}
			if strings.Contains(l, s) {
				return
			}
		case <-deadline:
			t.Fatalf("no line %q within %s", s, timeout)
		}
	}
}

func (p *proc) wait(t *testing.T, timeout time.Duration) (exitCode int, output string) {
	t.Helper()
	var b strings.Builder
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-p.lines:
			if ok {
				b.WriteString(l + "\n")
				continue
			}
			err := <-p.done
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode(), b.String()
			}
			if err != nil {
				t.Fatal(err)
			}
			return 0, b.String()
		case <-deadline:
			_ = p.cmd.Process.Kill()
			t.Fatalf("autotune did not finish within %s", timeout)
		}
	}
}

// orphanWait is how long a sandbox's server may take to go after the
// autotune that started it died before it counts as orphaned.
const orphanWait = 30 * time.Second

// assertNoServer checks that no process started in the sandbox survives
// (allowing orphanWait for the kernel to deliver the parent-death signal
// and a process blocked in disk I/O to go).
func assertNoServer(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(orphanWait)
	for {
		pids := realtest.ServerProcesses(dir)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("orphaned processes of the sandbox %s: %v", dir, pids)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func trialStates(t *testing.T, dbPath string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT state, COUNT(*) FROM trials GROUP BY state`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

// TestEndToEndKillResumeExport runs a real 3-trial study on a sandboxed
// MariaDB with sysbench, SIGKILLs autotune in the middle of a trial, checks
// that no server survives and nothing half-done is counted, interrupts the
// resumed run with SIGINT (exit 130), resumes to completion, exports the
// best my.cnf and starts a fresh server with it.
func TestEndToEndKillResumeExport(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "sb")
	dbPath := filepath.Join(dir, "trials.db")
	args := []string{"search", "--minimize=false", "--study", "it", "--db", dbPath, "--workdir", work, "--trials", "3",
		"--tables", "2", "--table-size", "5000", "--threads", "4", "--warmup", "2s", "--duration", "4s", "--seed", "11",
		// re-measurements are tested in measure_integration_test.go
		"--confirm", "0", "--recheck-every", "0", "--ab-pairs", "0", "--ab-share", "0"}

	// Run 1: SIGKILL during trial 1's benchmark.
	p := startAutotune(t, bin, args...)
	p.waitLine(t, "trial   0 baseline", 5*time.Minute)
	time.Sleep(4 * time.Second) // restore + start + into the benchmark of trial 1
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t, time.Minute)
	assertNoServer(t, work)
	st := trialStates(t, dbPath)
	if st["complete"] != 1 || st["running"] != 1 {
		t.Fatalf("after SIGKILL: states %v, want 1 complete and 1 running (not counted)", st)
	}

	// Run 2: Ctrl-C during a trial: exit 130, resume hint, no server.
	p = startAutotune(t, bin, args...)
	p.waitLine(t, "marked interrupted", time.Minute)
	time.Sleep(5 * time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, out := p.wait(t, time.Minute)
	if code != 130 || !strings.Contains(out, "resume with the same command") {
		t.Fatalf("after SIGINT: exit %d, output:\n%s", code, out)
	}
	assertNoServer(t, work)

	// Run 3: resume to completion. Meanwhile a second autotune on the same
	// study is refused, and nothing of the first is disturbed.
	p = startAutotune(t, bin, args...)
	p.waitLine(t, "resuming study", time.Minute)
	second := startAutotune(t, bin, args...)
	if code, out := second.wait(t, time.Minute); code != 1 || !strings.Contains(out, "being run by another autotune") {
		t.Fatalf("second autotune on the same study: exit %d:\n%s", code, out)
	}
	code, out = p.wait(t, 5*time.Minute)
	if code != 0 {
		t.Fatalf("resume exit %d:\n%s", code, out)
	}
	assertNoServer(t, work)
	st = trialStates(t, dbPath)
	if st["complete"]+st["failed"]+st["rejected"] != 3 || st["running"] != 0 || st["interrupted"] < 2 {
		t.Fatalf("after resume: states %v, want 3 finished, >=2 interrupted, none running", st)
	}
	if !strings.Contains(out, "best: trial") {
		t.Fatalf("no best summary in output:\n%s", out)
	}

	// A fourth run with the same cap has nothing to do and says so.
	p = startAutotune(t, bin, args...)
	if code, out := p.wait(t, 2*time.Minute); code != 0 || !strings.Contains(out, "trial cap reached") {
		t.Fatalf("re-run: exit %d:\n%s", code, out)
	}

	// Changed benchmark settings are refused with a hint.
	bad := append(append([]string(nil), args...), "--threads", "8")
	p = startAutotune(t, bin, bad...)
	if code, out := p.wait(t, time.Minute); code != 2 || !strings.Contains(out, "--study NEW_NAME") {
		t.Fatalf("changed settings: exit %d:\n%s", code, out)
	}

	// --allow-changes accepts the change and records it.
	p = startAutotune(t, bin, append(bad, "--allow-changes")...)
	if code, out := p.wait(t, 2*time.Minute); code != 0 || !strings.Contains(out, "recorded (--allow-changes)") {
		t.Fatalf("--allow-changes: exit %d:\n%s", code, out)
	}
	sdb, err := sql.Open("sqlite3", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var changes int
	if err := sdb.QueryRow(`SELECT COUNT(*) FROM study_changes WHERE field = 'settings'`).Scan(&changes); err != nil || changes != 1 {
		t.Fatalf("recorded changes = %d, %v", changes, err)
	}
	sdb.Close()

	// Export, then start a fresh server with the exported file.
	cnf := filepath.Join(dir, "best.cnf")
	p = startAutotune(t, bin, "export", "--study", "it", "--db", dbPath, "-o", cnf)
	if code, out := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("export exit %d:\n%s", code, out)
	}
	body, err := os.ReadFile(cnf)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "[mysqld]") || !strings.Contains(string(body), "# server: ") {
		t.Fatalf("exported file:\n%s", body)
	}
	if fi, _ := os.Stat(cnf); fi.Mode().Perm()&0o002 != 0 {
		t.Fatalf("exported my.cnf is world-writable: %v", fi.Mode())
	}
	startWithExport(t, work, cnf, string(body))
}

// startWithExport restores the study's snapshot into a fresh sandbox
// datadir and starts the server with the exported file included.
func startWithExport(t *testing.T, work, cnf, body string) {
	ctx := context.Background()
	binary, err := runner.FindServer(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	sb, err := runner.OpenSandbox(work, binary)
	if err != nil {
		t.Fatal(err)
	}
	data, err := sb.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := runner.Start(ctx, binary, sb.Options(data, "!include "+cnf+"\n", "export-check.err", 20))
	if err != nil {
		t.Fatalf("server refused the exported my.cnf: %v\n%s", err, body)
	}
	defer srv.Stop(time.Minute)
	for _, line := range strings.Split(body, "\n") {
		name, _, ok := strings.Cut(line, " = ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		var v string
		ver, err := space.ParseVersion(srv.Version, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := querySandbox(ctx, srv, "SELECT @@GLOBAL."+space.VariableName(name, ver), &v); err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		k, ok := space.Lookup().Knob(name)
		if !ok {
			t.Fatalf("exported unknown knob %s", name)
		}
		want, err1 := k.Normalize(strings.TrimSpace(line[len(name)+3:]))
		got, err2 := k.Normalize(v)
		if err1 != nil || err2 != nil || got != want {
			t.Fatalf("exported %q but the server runs with %s=%q (%v, %v)", line, name, v, err1, err2)
		}
	}
}

func querySandbox(ctx context.Context, srv *runner.Server, q string, v *string) error {
	db, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, q).Scan(v); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}
