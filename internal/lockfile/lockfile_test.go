package lockfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAcquireExclusive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	l, err := Acquire(p)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks are per open file description: a second Acquire in the
	// same process conflicts too, as a second process would.
	_, err = Acquire(p)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second Acquire: %v, want ErrLocked naming the pid", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := Acquire(p)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l2.Release()
}

// TestHelperHoldLock is run as a child process by TestLockDiesWithProcess.
func TestHelperHoldLock(t *testing.T) {
	p := os.Getenv("LOCKFILE_HELPER")
	if p == "" {
		t.Skip("helper process only")
	}
	if _, err := Acquire(p); err != nil {
		os.Exit(3)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Minute)
}

func TestLockDiesWithProcess(t *testing.T) {
	p := filepath.Join(t.TempDir(), "y.lock")
	cmd := exec.Command(os.Args[0], "-test.run=TestHelperHoldLock")
	cmd.Env = append(os.Environ(), "LOCKFILE_HELPER="+p)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "locked") {
		t.Fatalf("helper said %q", buf[:n])
	}
	if _, err := Acquire(p); !errors.Is(err, ErrLocked) {
		t.Fatalf("while the child holds it: %v", err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	l, err := Acquire(p)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Release()
}
