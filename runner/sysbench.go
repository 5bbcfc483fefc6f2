package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Workloads are the sysbench OLTP tests autotune accepts for --workload.
var Workloads = []string{"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select"}

// Sysbench runs a sysbench OLTP workload against a sandboxed server.
type Sysbench struct {
	// Path is the sysbench executable ("sysbench" looks it up on PATH).
	Path string
	// Workload is one of Workloads.
	Workload string
	// Tables is --tables; TableSize is --table-size (rows per table).
	Tables, TableSize int
	// Threads is --threads of the run.
	Threads int
	// TCP connects over TCP 127.0.0.1 and the server's port instead of
	// the unix socket.
	TCP bool
	// Launch wraps sysbench (CPU placement).
	Launch Launch
}

func (s Sysbench) args(srv *Server, extra ...string) []string {
	a := []string{s.Workload, "--db-driver=mysql"}
	if s.TCP {
		a = append(a, "--mysql-host=127.0.0.1", "--mysql-port="+strconv.Itoa(srv.Port), "--mysql-user=root")
	} else {
		a = append(a, srv.clientArgs()...)
	}
	a = append(a,
		"--mysql-db=sbtest",
		"--tables="+strconv.Itoa(s.Tables),
		"--table-size="+strconv.Itoa(s.TableSize),
	)
	return append(a, extra...)
}

func (s Sysbench) command(ctx context.Context, args []string) *exec.Cmd {
	path := s.Path
	if path == "" {
		path = "sysbench"
	}
	cmd := s.Launch.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Prepare creates and loads the sbtest tables (sysbench prepare), with up
// to Tables parallel loaders (at most 4 here: the machine has 2 cores).
func (s Sysbench) Prepare(ctx context.Context, srv *Server) error {
	threads := s.Tables
	if threads > 4 {
		threads = 4
	}
	cmd := s.command(ctx, s.args(srv, "--threads="+strconv.Itoa(threads), "prepare"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("sysbench %s prepare: %w: %s", s.Workload, err, tail(out, 800))
	}
	return nil
}

// BenchError is a failed benchmark run: sysbench exited non-zero, printed
// FATAL lines, or reported nothing.
type BenchError struct {
	// Reason is a short cause.
	Reason string
	// Output is the end of sysbench's output.
	Output string
}

func (e *BenchError) Error() string { return "benchmark failed: " + e.Reason }

// Run runs the workload for d (rounded up to whole seconds) with
// --report-interval=1 and calls onSample for each interval line as it
// arrives. It returns everything parsed; a *BenchError when the run
// failed, ctx.Err() when cancelled.
func (s Sysbench) Run(ctx context.Context, srv *Server, d time.Duration, onSample func(Interval)) (SysbenchOutput, error) {
	secs := int((d + time.Second - 1) / time.Second)
	cmd := s.command(ctx, s.args(srv,
		"--threads="+strconv.Itoa(s.Threads),
		"--time="+strconv.Itoa(secs),
		"--report-interval=1",
		"--percentile=95",
		"--histogram=off",
		"run"))
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return SysbenchOutput{}, fmt.Errorf("start sysbench: %w", err)
	}
	waitErr := make(chan error, 1)
	go func() { err := cmd.Wait(); pw.Close(); waitErr <- err }()

	p := NewSysbenchParser()
	var last []string
	var parseErr error
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		last = append(last, line)
		if len(last) > 15 {
			last = last[1:]
		}
		iv, err := p.Feed(line)
		if err != nil && parseErr == nil {
			parseErr = err
		}
		if iv != nil && onSample != nil {
			onSample(*iv)
		}
	}
	_, _ = io.Copy(io.Discard, pr)
	err := <-waitErr
	out := p.Output()
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	text := strings.Join(last, "\n")
	switch {
	case err != nil:
		var ee *exec.ExitError
		reason := err.Error()
		if errors.As(err, &ee) {
			reason = "sysbench " + ee.ProcessState.String()
		}
		if len(out.Failures) > 0 {
			reason += ": " + out.Failures[0].Text
		}
		return out, &BenchError{Reason: reason, Output: text}
	case len(out.Failures) > 0:
		return out, &BenchError{Reason: out.Failures[0].Text, Output: text}
	case parseErr != nil:
		return out, &BenchError{Reason: "unparseable output: " + parseErr.Error(), Output: text}
	case len(out.Intervals) == 0:
		return out, &BenchError{Reason: "no interval reports in sysbench output", Output: text}
	}
	return out, nil
}
