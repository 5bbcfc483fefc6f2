package main

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
)

// Fault-injection tests with real processes. Each checks, after
// every fault: no completed trial lost or changed, nothing half-done
// counted, no server process left, and the next run resumes.

// completeTrials returns number → score of the complete trials, and the
// numbers of complete trials with fewer than 3 measured samples.
func completeTrials(t *testing.T, dbPath string) (map[int]float64, []int) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT t.number, t.score,
		(SELECT COUNT(*) FROM samples s WHERE s.study = t.study AND s.trial = t.number AND s.warmup = 0)
		FROM trials t WHERE t.state = 'complete'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int]float64{}
	var thin []int
	for rows.Next() {
		var n, samples int
		var score float64
		if err := rows.Scan(&n, &score, &samples); err != nil {
			t.Fatal(err)
		}
		out[n] = score
		if samples < 3 {
			thin = append(thin, n)
		}
	}
	return out, thin
}

func TestFaultKillAutotuneAtManyMoments(t *testing.T) {
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "sb")
	dbPath := filepath.Join(dir, "trials.db")
	args := []string{"search", "--minimize=false", "--study", "kill", "--db", dbPath, "--workdir", work, "--trials", "6",
		"--tables", "1", "--table-size", "2000", "--threads", "2", "--warmup", "1s", "--duration", "3s", "--seed", "5",
		"--confirm", "0", "--recheck-every", "0", "--ab-pairs", "0"} // no re-measurements: every trial counts towards --trials

	// Prepare the dataset and measure the baseline without faults.
	p := startAutotune(t, bin, append(args[:len(args):len(args)], "--trials", "1")...)
	if code, out := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, out)
	}

	// SIGKILL at 20 moments spread over restore, start, warm-up,
	// measurement, stop and commit of the next trials (a trial here takes
	// about 4.5 s: restore 0.1, start 0.3, 1 + 3 s benchmark, stop 0.1).
	const kills = 20
	injected, lost, orphans, halfCounted := 0, 0, 0, 0
	before, _ := completeTrials(t, dbPath)
	for i := 0; i < kills; i++ {
		delay := 300*time.Millisecond + time.Duration(i)*370*time.Millisecond
		p := startAutotune(t, bin, args...)
		time.Sleep(delay)
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err == nil {
			injected++
		}
		p.wait(t, time.Minute)
		// The server gets SIGKILL as autotune dies (Pdeathsig), but a
		// process blocked in disk I/O goes only when the I/O returns:
		// with another benchmark on the disk that took more than 5 s. An
		// orphan is a server that stays, so the wait is long and a slow
		// death is only logged.
		t0 := time.Now()
		deadline := t0.Add(orphanWait)
		var slow []string // the processes left after 5 s, with their state
		for len(realtest.ServerProcesses(work)) > 0 && time.Now().Before(deadline) {
			if slow == nil && time.Since(t0) > 5*time.Second {
				for _, pid := range realtest.ServerProcesses(work) {
					slow = append(slow, fmt.Sprintf("%d in state %s", pid, realtest.ProcessState(pid)))
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		if d := time.Since(t0); d > 5*time.Second {
			t.Logf("kill %d: the server took %s to go (after 5 s: %s)", i, d.Round(100*time.Millisecond), strings.Join(slow, ", "))
		}
		if left := realtest.ServerProcesses(work); len(left) > 0 {
			orphans += len(left)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		after, thin := completeTrials(t, dbPath)
		for n, score := range before {
			if s, ok := after[n]; !ok || s != score {
				lost++
				t.Errorf("kill %d (after %s): complete trial %d lost or changed", i, delay, n)
			}
		}
		halfCounted += len(thin)
		if st := trialStates(t, dbPath); st["running"] > 1 {
			t.Errorf("kill %d: %d trials running", i, st["running"])
		}
		before = after
	}
	t.Logf("fault tally: faults injected %d, trials lost %d, half-done trials counted %d, orphan servers %d", injected, lost, halfCounted, orphans)
	if injected != kills || lost != 0 || orphans != 0 || halfCounted != 0 {
		t.Fatalf("fault tally: injected %d/%d, lost %d, half-done %d, orphans %d", injected, kills, lost, halfCounted, orphans)
	}

	// The next run resumes to the end.
	p = startAutotune(t, bin, args...)
	if code, out := p.wait(t, 5*time.Minute); code != 0 {
		t.Fatalf("final run: exit %d\n%s", code, out)
	}
	st := trialStates(t, dbPath)
	if st["complete"]+st["failed"]+st["rejected"] != 6 || st["running"] != 0 {
		t.Fatalf("final states %v", st)
	}
	assertNoServer(t, work)
}

// writeScript writes an executable shell script (a test fixture that
// wraps the real programs to inject faults).
func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestFaultRefusedConfigKilledBenchTruncatedOutputServerCrash(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "sb")
	dbPath := filepath.Join(dir, "trials.db")
	server, err := exec.LookPath("mariadbd")
	if err != nil {
		server = "/usr/sbin/mariadbd"
	}
	sysbench, err := exec.LookPath("sysbench")
	if err != nil {
		t.Fatal(err)
	}
	// Server starts on the trial datadir (not the probe's or the
	// prepare's): 1 = baseline, 2 = trial 1 (refused).
	mysqld := filepath.Join(dir, "mysqld-wrapper")
	writeScript(t, mysqld, fmt.Sprintf(`case "$1" in --defaults-file=*)
  if grep -q '^datadir = .*/data$' "${1#--defaults-file=}"; then
    n=$(( $(cat %[1]s/starts 2>/dev/null || echo 0) + 1 )); echo $n > %[1]s/starts
    if [ $n -eq 2 ]; then exec %[2]s "$@" --innodb-injected-fault=1; fi
  fi;;
esac
exec %[2]s "$@"
`, dir, server))
	// A small space of knobs that never fail on their own, so that every
	// failure is the injected one.
	spaceFile := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(spaceFile, []byte("include = [\"innodb_buffer_pool_size\", \"innodb_flush_neighbors\"]\n[knobs.innodb_buffer_pool_size]\nmax = \"512M\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// sysbench runs: 1 = prepare, 2 = baseline, 3 = killed (trial 2),
	// 4 = output truncated (trial 3), 5 = server SIGKILLed mid-run (trial 4);
	// the version query (the benchmark definition) and the help queries
	// (the probe of its options) are not runs.
	bench := filepath.Join(dir, "sysbench-wrapper")
	writeScript(t, bench, fmt.Sprintf(`if [ "$1" = --version ] || [ "$1" = --help ] || [ "$2" = help ]; then exec %[2]s "$@"; fi
n=$(( $(cat %[1]s/runs 2>/dev/null || echo 0) + 1 )); echo $n > %[1]s/runs
sock=""; for a in "$@"; do case "$a" in --mysql-socket=*) sock="${a#--mysql-socket=}";; esac; done
case $n in
3) %[2]s "$@" & pid=$!; sleep 2; kill -9 $pid; wait $pid; exit $?;;
4) %[2]s "$@" | head -c 700; exit 0;;
5) %[2]s "$@" & pid=$!; sleep 2; kill -9 $(cat "$(dirname "$sock")/mysqld.pid"); wait $pid; exit $?;;
esac
exec %[2]s "$@"
`, dir, sysbench))

	args := []string{"search", "--minimize=false", "--study", "faults", "--db", dbPath, "--workdir", work, "--trials", "7",
		"--tables", "1", "--table-size", "2000", "--threads", "2", "--warmup", "1s", "--duration", "4s", "--seed", "3", "--confirm", "0", "--recheck-every", "0", "--ab-pairs", "0",
		"--mysqld", mysqld, "--sysbench", bench, "--space", spaceFile}
	p := startAutotune(t, bin, args...)
	code, out := p.wait(t, 5*time.Minute)
	if code != 0 {
		t.Fatalf("exit %d: a failing trial must not fail the study\n%s", code, out)
	}
	assertNoServer(t, work)

	db, err := sql.Open("sqlite3", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := []struct {
		state, failure, errlog string
	}{
		{"complete", "", ""},
		{"failed", "unknown variable 'innodb-injected-fault=1'", "[ERROR]"},
		{"failed", "benchmark failed", "benchmark output"},
		{"failed", "benchmark failed", "benchmark output"},
		{"failed", "server crashed during the benchmark", ""},
		{"complete", "", ""},
		{"complete", "", ""},
	}
	for n, w := range want {
		var state, failure, errlog string
		if err := db.QueryRow(`SELECT state, failure, error_log FROM trials WHERE study = 'faults' AND number = ?`, n).Scan(&state, &failure, &errlog); err != nil {
			t.Fatalf("trial %d: %v", n, err)
		}
		if state != w.state || !strings.Contains(failure, w.failure) || !strings.Contains(errlog, w.errlog) {
			t.Errorf("trial %d: state %s, failure %q, error log %q; want %s, %q, %q", n, state, failure, firstLines(errlog, 3), w.state, w.failure, w.errlog)
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// mountSmallDisk makes a sandbox disk that can fill up: an ext4 file
// system in a sparse file, loop-mounted at dir, unmounted when the test
// ends. Needs root (as CI has) and a loop device.
func mountSmallDisk(t *testing.T, dir, size string) {
	t.Helper()
	img := dir + ".img"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{{"truncate", "-s", size, img}, {"mkfs.ext4", "-q", "-F", "-m", "0", img}, {"mount", "-o", "loop", img, dir}} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			if os.Getenv("AUTOTUNE_REQUIRE_REAL") == "1" {
				t.Fatalf("make a small disk (needs root and a loop device): %v: %v: %s", c, err, out)
			}
			t.Skipf("make a small disk (needs root and a loop device): %v: %v: %s", c, err, out)
		}
	}
	t.Cleanup(func() {
		for i := 0; i < 50; i++ {
			if exec.Command("umount", dir).Run() == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("umount %s failed", dir)
	})
}

func TestFaultSandboxDiskFull(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	disk := filepath.Join(dir, "disk")
	mountSmallDisk(t, disk, "6G")
	work := filepath.Join(disk, "sb")
	dbPath := filepath.Join(dir, "trials.db") // the database is on another disk
	args := []string{"search", "--minimize=false", "--study", "full", "--db", dbPath, "--workdir", work, "--trials", "3",
		"--tables", "1", "--table-size", "2000", "--threads", "2", "--warmup", "1s", "--duration", "3s", "--seed", "9",
		"--confirm", "0", "--recheck-every", "0", "--ab-pairs", "0"}
	p := startAutotune(t, bin, append(args[:len(args):len(args)], "--trials", "1")...)
	if code, out := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", code, out)
	}
	before, _ := completeTrials(t, dbPath)

	// Fill the disk: the next trial's copy of the snapshot cannot fit.
	var st syscall.Statfs_t
	if err := syscall.Statfs(disk, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	filler := filepath.Join(disk, "filler")
	if out, err := exec.Command("fallocate", "-l", fmt.Sprint(free-1<<20), filler).CombinedOutput(); err != nil {
		t.Fatalf("fallocate: %v: %s", err, out)
	}
	p = startAutotune(t, bin, args...)
	code, out := p.wait(t, 2*time.Minute)
	// The pre-flight finds it before the first server starts.
	if code != 1 || !strings.Contains(out, "checked before the first start") || !strings.Contains(out, "disk: ") || !strings.Contains(out, "--workdir") {
		t.Fatalf("disk full: exit %d, want 1 naming the full disk and what to change\n%s", code, out)
	}
	assertNoServer(t, work)
	after, _ := completeTrials(t, dbPath)
	if len(after) != len(before) {
		t.Fatalf("complete trials %v -> %v: a disk-full trial must not count", before, after)
	}
	// The disk is checked before anything is written (the live-server
	// probe, the restore); a trial that was under way is interrupted.
	if st := trialStates(t, dbPath); st["running"] != 0 || st["complete"] != len(before) {
		t.Fatalf("states after disk full: %v", st)
	}

	// Space back: the study resumes and finishes.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	p = startAutotune(t, bin, args...)
	if code, out := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("resume after disk full: exit %d\n%s", code, out)
	}
	if st := trialStates(t, dbPath); st["complete"]+st["failed"]+st["rejected"] != 3 {
		t.Fatalf("final states %v", st)
	}
	assertNoServer(t, work)
}

func TestFaultDatabaseLockedByAnotherProcess(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "sb")
	dbPath := filepath.Join(dir, "trials.db")
	args := []string{"search", "--minimize=false", "--study", "locked", "--db", dbPath, "--workdir", work, "--trials", "1",
		"--tables", "1", "--table-size", "1000", "--threads", "2", "--warmup", "1s", "--duration", "3s"}
	// Create the database, then hold its write lock from another process.
	p := startAutotune(t, bin, "search", "--minimize=false", "--study", "other", "--db", dbPath, "--workdir", work, "--trials", "1",
		"--tables", "1", "--table-size", "1000", "--threads", "2", "--warmup", "1s", "--duration", "3s")
	if code, out := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("setup run: exit %d\n%s", code, out)
	}
	holder := exec.Command(os.Args[0], "-test.run=TestHelperHoldDBLock")
	holder.Env = append(os.Environ(), "AUTOTUNE_HOLD_DB="+dbPath)
	holderOut, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, _ := holderOut.Read(buf); !strings.Contains(string(buf[:n]), "locked") {
		t.Fatalf("lock holder said %q", buf[:n])
	}
	p = startAutotune(t, bin, args...)
	code, out := p.wait(t, 2*time.Minute)
	_ = holder.Process.Kill()
	_ = holder.Wait()
	if code != 1 || !strings.Contains(out, "database is locked") {
		t.Fatalf("locked database: exit %d, want 1 naming the lock\n%s", code, out)
	}
	assertNoServer(t, work)
	// Lock released: the study runs.
	p = startAutotune(t, bin, args...)
	if code, out := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("after the lock is released: exit %d\n%s", code, out)
	}
}

// TestHelperHoldDBLock is run as a child process by
// TestFaultDatabaseLockedByAnotherProcess: it holds an exclusive write
// transaction on the database until killed.
func TestHelperHoldDBLock(t *testing.T) {
	path := os.Getenv("AUTOTUNE_HOLD_DB")
	if path == "" {
		t.Skip("helper process only")
	}
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		os.Exit(3)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("BEGIN EXCLUSIVE"); err != nil {
		os.Exit(4)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(10 * time.Minute)
}
