// Package realtest gates tests that need a real MariaDB/MySQL server and
// sysbench. They are skipped with -short or when the programs are missing,
// unless AUTOTUNE_REQUIRE_REAL=1 (set by `make test` and CI), which turns
// a missing program into a failure: CI never silently skips them.
package realtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Require skips or fails t unless a server binary and sysbench are present.
func Require(t testing.TB) {
	t.Helper()
	strict := os.Getenv("AUTOTUNE_REQUIRE_REAL") == "1"
	if testing.Short() && !strict {
		t.Skip("real-server test skipped with -short")
	}
	var missing []string
	if !haveServer() {
		missing = append(missing, "mariadbd/mysqld")
	}
	if _, err := exec.LookPath("sysbench"); err != nil {
		missing = append(missing, "sysbench")
	}
	if len(missing) == 0 {
		return
	}
	msg := "needs " + strings.Join(missing, " and ") + " (run ./scripts/install-deps.sh)"
	if strict {
		t.Fatal(msg + "; AUTOTUNE_REQUIRE_REAL=1 forbids skipping")
	}
	t.Skip(msg)
}

func haveServer() bool {
	for _, n := range []string{"mariadbd", "mysqld"} {
		if _, err := exec.LookPath(n); err == nil {
			return true
		}
		if st, err := os.Stat(filepath.Join("/usr/sbin", n)); err == nil && st.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// ServerProcesses returns the PIDs of live (non-zombie) processes whose
// command line mentions dir: servers started inside a sandbox directory.
func ServerProcesses(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid := 0
		for _, c := range e.Name() {
			if c < '0' || c > '9' {
				pid = -1
				break
			}
			pid = pid*10 + int(c-'0')
		}
		if pid <= 0 || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), dir) {
			continue
		}
		if st := ProcessState(pid); st == "" || st == "Z" {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// ProcessState returns the state letter of process pid from
// /proc/PID/stat (proc(5): "R" running, "S" sleeping, "D" in
// uninterruptible disk sleep, "Z" zombie, ...), "" when it is gone.
func ProcessState(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// Program skips or fails t (under AUTOTUNE_REQUIRE_REAL=1) when err says
// a program a real-server test needs is missing (e.g. go-tpc, found by
// runner/tpcc.Find); it does nothing when err is nil.
func Program(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("AUTOTUNE_REQUIRE_REAL") == "1" {
		t.Fatal(err.Error() + "; AUTOTUNE_REQUIRE_REAL=1 forbids skipping")
	}
	t.Skip(err.Error())
}
