package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/space"
)

// StopStale stops only a server whose --defaults-file names the pid file:
// a process called mariadbd that another configuration started (the pid
// recycled after a reboot) is left alone.
func TestStopStaleOnlyItsOwnServer(t *testing.T) {
	dir := t.TempDir()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// A stand-in server: a copy of sh named mariadbd (its comm), started
	// the way Start starts one, with --defaults-file.
	fake := filepath.Join(dir, "mariadbd")
	data, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fake, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// A directory name the option file must quote and escape.
	pidFile := filepath.Join(dir, `run "x" #1`, "mysqld.pid")
	if err := os.MkdirAll(filepath.Dir(pidFile), 0o755); err != nil {
		t.Fatal(err)
	}
	// start returns the stand-in and a channel closed once it is reaped.
	start := func(cnfPid string) (*exec.Cmd, chan struct{}) {
		cnf := filepath.Join(t.TempDir(), "my.cnf")
		if err := os.WriteFile(cnf, []byte("[mysqld]\npid-file = "+space.FormatOptionValue(cnfPid)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(fake, "-c", "sleep 60; true", "--defaults-file="+cnf)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its sleep is killed with it
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() {
			// Reaped here, so that it does not stay a zombie (which
			// alive counts as gone anyway).
			_ = cmd.Wait()
			close(exited)
		}()
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-exited })
		// Start can return before the kernel renames the process (exec
		// closes the descriptor Start waits on first): a stale server is
		// long past that.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", cmd.Process.Pid)); string(comm) == "mariadbd\n" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the stand-in server never showed as mariadbd")
			}
		}
		if err := os.WriteFile(pidFile, []byte(fmt.Sprintf("%d\n", cmd.Process.Pid)), 0o644); err != nil {
			t.Fatal(err)
		}
		return cmd, exited
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Another configuration's server under the recycled pid: untouched.
	other, _ := start(filepath.Join(dir, "elsewhere", "mysqld.pid"))
	if err := StopStale(ctx, pidFile); err != nil {
		t.Fatal(err)
	}
	if !alive(other.Process.Pid) {
		t.Fatal("StopStale killed a server that another configuration started")
	}

	// This pid file's own server: stopped.
	own, exited := start(pidFile)
	pid := own.Process.Pid
	if err := StopStale(ctx, pidFile); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		t.Fatalf("StopStale left its own server running (pid %d, comm %q, cmdline %q, owns the pid file %v)", pid, comm, cmdline, ownsPidFile(pid, pidFile))
	}
}
