package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeServer writes a shell script standing in for mysqld: it finds the
// error log in the generated my.cnf ($LOG) and runs body. It lets the
// lifecycle be tested for behaviours a real server will not show on
// demand: silence, slow progress, a locked datadir.
func fakeServer(t *testing.T, body string) (Binary, StartOptions) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "fake-mysqld")
	src := "#!/bin/sh\nLOG=$(sed -n 's/^log-error = //p' \"${1#--defaults-file=}\")\n" + body
	if err := os.WriteFile(script, []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"run", "tmp", "data"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return Binary{Path: script, Flavor: MariaDB}, StartOptions{
		Datadir: filepath.Join(dir, "data"), RunDir: filepath.Join(dir, "run"), TmpDir: filepath.Join(dir, "tmp"),
		ErrorLog: filepath.Join(dir, "error.log"), ConfigFile: filepath.Join(dir, "my.cnf"),
		ReadyTimeout: 400 * time.Millisecond,
	}
}

func TestFakeStartSilentServerTimesOut(t *testing.T) {
	bin, o := fakeServer(t, "echo started > \"$LOG\"\nexec sleep 60\n")
	t0 := time.Now()
	_, err := Start(context.Background(), bin, o)
	var se *StartError
	if !errors.As(err, &se) || !strings.Contains(se.Reason, "not ready") {
		t.Fatalf("err = %v, want a not-ready StartError", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Fatalf("gave up after %s", d)
	}
}

func TestFakeStartProgressExtendsTimeout(t *testing.T) {
	// Recovery reports progress for about 2 s, 5x the no-progress timeout,
	// then the server fails: the start must wait for that, not time out.
	bin, o := fakeServer(t, `for n in 9 8 7 6 5 4 3 2 1 0; do echo "[Note] InnoDB: To recover: ${n}000 pages from log" >> "$LOG"; sleep 0.2; done
echo "[ERROR] InnoDB: recovery failed" >> "$LOG"
exit 1
`)
	_, err := Start(context.Background(), bin, o)
	var se *StartError
	if !errors.As(err, &se) || strings.Contains(se.Reason, "not ready") || !strings.Contains(se.Error(), "recovery failed") {
		t.Fatalf("err = %v, want the server's own failure after its progress", err)
	}
}

func TestFakeStartDatadirLocked(t *testing.T) {
	// A second mysqld started on a datadir still in use loops on this line
	// once per second (an error log seen in the field).
	bin, o := fakeServer(t, `while true; do echo "2017-08-13 02:30:49 2951 [ERROR] InnoDB: Unable to lock ./ibdata1, error: 11" >> "$LOG"; sleep 0.1; done
`)
	o.ReadyTimeout = time.Minute
	t0 := time.Now()
	_, err := Start(context.Background(), bin, o)
	if !errors.Is(err, ErrDatadirLocked) {
		t.Fatalf("err = %v, want ErrDatadirLocked", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Fatalf("took %s to give up on a locked datadir", d)
	}
}

func TestFakeStopEscalatesToSIGKILL(t *testing.T) {
	cmd := exec.Command("sh", "-c", `trap "" TERM; while true; do sleep 0.1; done`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{cmd: cmd, done: make(chan struct{})}
	go func() { s.waitErr = cmd.Wait(); close(s.done) }()
	time.Sleep(100 * time.Millisecond) // let the shell set its trap
	err := s.Stop(300 * time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("Stop = %v, want a report that SIGKILL was needed", err)
	}
	if !s.Exited() {
		t.Fatal("process survived Stop")
	}
	if alive(cmd.Process.Pid) {
		t.Fatal("process group member survived")
	}
}

// A server that keeps reporting progress but never becomes ready is given
// up at MaxStart: progress extends the no-progress timeout, not the
// start's hard deadline.
func TestFakeStartEndlessProgressHitsTheStartDeadline(t *testing.T) {
	bin, o := fakeServer(t, `while true; do echo "[Note] InnoDB: To recover: 1000 pages from log" >> "$LOG"; sleep 0.1; done
`)
	o.MaxStart = 1500 * time.Millisecond
	t0 := time.Now()
	_, err := Start(context.Background(), bin, o)
	var se *StartError
	if !errors.As(err, &se) || !strings.Contains(se.Reason, "not ready") {
		t.Fatalf("err = %v, want a not-ready StartError", err)
	}
	if d := time.Since(t0); d > 15*time.Second {
		t.Fatalf("gave up after %s", d)
	}
}
