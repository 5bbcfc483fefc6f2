package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/shlex"
)

// RunThreads runs the sysbench workload with threads client threads (see
// Run); it lets one Sysbench measure several thread levels.
func (s Sysbench) RunThreads(ctx context.Context, srv *Server, threads int, d time.Duration, onSample func(Interval)) (SysbenchOutput, error) {
	s.Threads = threads
	return s.Run(ctx, srv, d, onSample)
}

// BenchPlaceholders are the words replaced in every argument of a
// --bench-cmd before it runs.
var BenchPlaceholders = map[string]string{
	"{socket}":     "unix socket path of the sandboxed server",
	"{host}":       "127.0.0.1",
	"{port}":       "TCP port of the sandboxed server",
	"{user}":       "root (no password)",
	"{db}":         "sbtest, the schema of the prepared dataset",
	"{threads}":    "client threads of this run (one --threads level)",
	"{seconds}":    "run length in whole seconds (--warmup cap + --duration + 2 s slack)",
	"{tables}":     "--tables",
	"{table_size}": "--table-size",
}

var reBrace = regexp.MustCompile(`\{[a-z_]+\}`)

// CommandBench runs a user command that prints per-interval throughput
// lines (--bench-cmd). The command line is split into arguments with
// POSIX-shell-like quoting (github.com/google/shlex: 'single', "double",
// backslash escapes) and run without a shell; placeholders
// (BenchPlaceholders) are replaced in each argument.
//
// Every output line (stdout and stderr) is read as:
//
//   - a sysbench interval report ("[ 5s ] thds: 16 tps: 512.3 qps: ...",
//     any version the sysbench parser knows), so sysbench Lua scripts such
//     as TPC-C-like ones pass through sysbench unchanged; or
//   - a key=value line: whitespace-separated pairs, tps= required, from
//     t= (seconds since start; default: the line's ordinal), tps=, qps=,
//     lat_ms= (latency percentile in ms), lat_pct= (its rank, default 95),
//     err_s=, reconn_s=. Example: "t=3 tps=512.5 qps=10250 lat_ms=41.2".
//
// Any other line is ignored. A line that starts like a key=value interval
// but does not parse fails the run; so does a non-zero exit status or a
// run without interval lines.
type CommandBench struct {
	// Args is the split command line, placeholders not yet replaced.
	Args []string
	// Tables and TableSize fill {tables} and {table_size}.
	Tables, TableSize int
}

// ParseBenchCmd splits a --bench-cmd value into arguments and checks its
// placeholders. It returns an error naming the problem for an empty
// command, unbalanced quotes, or an unknown {placeholder}.
func ParseBenchCmd(s string) ([]string, error) {
	args, err := shlex.Split(s)
	if err != nil {
		return nil, fmt.Errorf("--bench-cmd %q: %w", s, err)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("--bench-cmd %q: empty command", s)
	}
	for _, a := range args {
		for _, m := range reBrace.FindAllString(a, -1) {
			if _, ok := BenchPlaceholders[m]; !ok {
				names := make([]string, 0, len(BenchPlaceholders))
				for k := range BenchPlaceholders {
					names = append(names, k)
				}
				return nil, fmt.Errorf("--bench-cmd: unknown placeholder %s in %q (known: %s)", m, a, strings.Join(sortedStrings(names), " "))
			}
		}
	}
	return args, nil
}

func sortedStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// expand returns the arguments with placeholders replaced.
func (c CommandBench) expand(srv *Server, threads, secs int) []string {
	r := strings.NewReplacer(
		"{socket}", srv.Socket, "{host}", "127.0.0.1", "{port}", strconv.Itoa(srv.Port),
		"{user}", "root", "{db}", "sbtest", "{threads}", strconv.Itoa(threads),
		"{seconds}", strconv.Itoa(secs), "{tables}", strconv.Itoa(c.Tables), "{table_size}", strconv.Itoa(c.TableSize))
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		out[i] = r.Replace(a)
	}
	return out
}

// RunThreads runs the command for d (whole seconds, {seconds}) with
// {threads} = threads and calls onSample for every interval line as it
// arrives. It returns the intervals parsed (in SysbenchOutput.Intervals),
// a *BenchError when the run failed, ctx.Err() when cancelled (the command
// gets SIGTERM, then SIGKILL after 5 s).
func (c CommandBench) RunThreads(ctx context.Context, srv *Server, threads int, d time.Duration, onSample func(Interval)) (SysbenchOutput, error) {
	secs := int((d + time.Second - 1) / time.Second)
	args := c.expand(srv, threads, secs)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return SysbenchOutput{}, &BenchError{Reason: fmt.Sprintf("start --bench-cmd %s: %v", args[0], err)}
	}
	waitErr := make(chan error, 1)
	go func() { err := cmd.Wait(); pw.Close(); waitErr <- err }()
	p := NewSysbenchParser()
	out := SysbenchOutput{Intervals: []Interval{}, Failures: []Failure{}}
	var last []string
	var parseErr error
	n := 0
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		n++
		last = append(last, line)
		if len(last) > 15 {
			last = last[1:]
		}
		iv, err := p.Feed(line)
		if iv == nil && err == nil {
			iv, err = ParseKVInterval(line, len(out.Intervals)+1)
			if iv != nil {
				iv.Line = n
			}
		}
		if err != nil && parseErr == nil {
			parseErr = err
		}
		if iv != nil {
			out.Intervals = append(out.Intervals, *iv)
			if onSample != nil {
				onSample(*iv)
			}
		}
	}
	_, _ = io.Copy(io.Discard, pr)
	err := <-waitErr
	so := p.Output()
	out.Version, out.Summary, out.Failures, out.Warnings = so.Version, so.Summary, so.Failures, so.Warnings
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	text := strings.Join(last, "\n")
	switch {
	case err != nil:
		reason := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			reason = args[0] + " " + ee.ProcessState.String()
		}
		if len(out.Failures) > 0 {
			reason += ": " + out.Failures[0].Text
		}
		return out, &BenchError{Reason: reason, Output: text}
	case parseErr != nil:
		return out, &BenchError{Reason: "unparseable output: " + parseErr.Error(), Output: text}
	case len(out.Intervals) == 0:
		return out, &BenchError{Reason: "no interval lines in the output of " + args[0] + " (see --bench-cmd in the README for the format)", Output: text}
	}
	return out, nil
}

// ParseKVInterval reads a key=value interval line (see CommandBench):
// nil, nil when the line is not one (no tps= field); an error when it has
// tps= but a field is not key=value, a key is unknown or a value is not a
// finite non-negative number. ordinal is the default for t.
func ParseKVInterval(line string, ordinal int) (*Interval, error) {
	fields := strings.Fields(line)
	hasTPS := false
	for _, f := range fields {
		if strings.HasPrefix(f, "tps=") {
			hasTPS = true
		}
	}
	if !hasTPS {
		return nil, nil
	}
	iv := Interval{Time: float64(ordinal)}
	var lat *float64
	pct := 95.0
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("interval line %q: field %q is not key=value", line, f)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 || !sbFinite(x) {
			return nil, fmt.Errorf("interval line %q: %s=%q is not a non-negative number", line, k, v)
		}
		switch k {
		case "t":
			iv.Time = x
		case "tps":
			iv.TPS = x
		case "qps":
			iv.QPS = x
		case "lat_ms":
			lat = &x
		case "lat_pct":
			pct = x
		case "err_s":
			iv.ErrPS = x
		case "reconn_s":
			iv.ReconnPS = x
		case "thds", "threads":
			iv.Threads = int(x)
		default:
			return nil, fmt.Errorf("interval line %q: unknown key %q (want t, tps, qps, lat_ms, lat_pct, err_s, reconn_s, threads)", line, k)
		}
	}
	if lat != nil {
		iv.LatMS, iv.LatPct = lat, pct
	}
	return &iv, nil
}
