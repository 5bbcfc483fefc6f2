package sysbench

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/runner"
)

// realSandbox returns a sandbox with a tiny snapshot (schema sbtest, empty).
func realSandbox(t *testing.T) *runner.Sandbox {
	t.Helper()
	realtest.Require(t)
	ctx := context.Background()
	bin, err := runner.FindServer(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	sb, err := runner.OpenSandbox(filepath.Join(t.TempDir(), "sb"), bin)
	if err != nil {
		t.Fatal(err)
	}
	noop := func(ctx context.Context, s *runner.Server) error { return nil }
	if err := sb.BuildSnapshot(ctx, runner.Dataset{Workload: "x", Tables: 1, TableSize: 1}, 20, noop, t.Logf); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if pids := realtest.ServerProcesses(sb.Dir); len(pids) > 0 {
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Errorf("test left server processes: %v", pids)
		}
	})
	return sb
}

func TestRealServerCrashFailsBenchmark(t *testing.T) {
	realtest.Require(t)
	sb := realSandbox(t)
	ctx := context.Background()
	bench := Bench{Workload: "oltp_read_only", Tables: 1, TableSize: 1000}
	data, err := sb.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := runner.Start(ctx, sb.Server, sb.Options(data, "", "crash.err", 20))
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.Prepare(ctx, srv); err != nil {
		t.Fatal(err)
	}
	var got int
	_, err = bench.Run(ctx, srv, runner.BenchRun{Threads: 2, Duration: 20 * time.Second}, func(iv runner.Interval) {
		got++
		if got == 2 {
			_ = syscall.Kill(srv.Pid(), syscall.SIGKILL)
		}
	})
	var be *runner.BenchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BenchError after the server was killed", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !srv.Exited() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !srv.Exited() {
		t.Fatal("server not seen as exited")
	}
	if err := srv.Stop(time.Second); err == nil {
		t.Fatal("Stop of a crashed server must report it")
	}
}
