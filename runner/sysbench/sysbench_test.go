package sysbench

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/runner"
)

// A server killed in the middle of a run fails the run with a
// *runner.BenchError, and the server is seen as exited.
func TestRealServerCrashFailsBenchmark(t *testing.T) {
	srv := teststore.Start(t, "").Server
	ctx := context.Background()
	bench := Bench{Workload: "oltp_read_only", Tables: 1, TableSize: 1000}
	if err := srv.Exec(ctx, "CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
		t.Fatal(err)
	}
	if err := bench.Prepare(ctx, srv); err != nil {
		t.Fatal(err)
	}
	var got int
	_, err := bench.Run(ctx, srv, runner.BenchRun{Threads: 2, Duration: 20 * time.Second}, func(iv runner.Interval) {
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
