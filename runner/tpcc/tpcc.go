// Package tpcc is the TPC-C benchmark driver: it runs pingcap/go-tpc
// (an external program, installed by scripts/install-deps.sh at
// ProgramVersion) to load the TPC-C dataset of a number of warehouses
// into schema sbtest, checks its consistency, and runs the TPC-C
// transaction mix with per-second reports (--output json), parsed by
// Parser. The score's throughput is New-Order transactions per second:
// tpmC is 60 times it.
package tpcc

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/runner"
)

// ProgramVersion is the go-tpc release autotune is tested with and
// scripts/install-deps.sh installs (go install
// github.com/pingcap/go-tpc/cmd/go-tpc@ProgramVersion).
const ProgramVersion = "v1.0.12"

// Program is go-tpc's executable name.
const Program = "go-tpc"

// DefaultWarehouses is --warehouses' default: 4 warehouses are about 400 MB
// of InnoDB data (measured: 1 warehouse is 152 MB on disk), more than the
// server's default 128 MB buffer pool, as the default sysbench dataset is.
const DefaultWarehouses = 4

// Weights is the transaction mix, go-tpc --weight: the percentages of
// New-Order, Payment, Order-Status, Delivery and Stock-Level (the TPC-C
// specification's minimum mix, clause 5.2.3, with New-Order the rest).
var Weights = []int{45, 43, 4, 4, 4}

// MaxMeasureLatency is go-tpc --max-measure-latency: the largest latency
// its histograms record (longer ones count as this).
const MaxMeasureLatency = 16 * time.Second

// Bench runs TPC-C with go-tpc against a server.
type Bench struct {
	// Path is the go-tpc executable ("" looks it up with Find); a run's
	// BenchRun.Binary replaces it.
	Path string
	// Warehouses is the dataset's warehouse count (go-tpc --warehouses).
	Warehouses int
}

// Find returns the go-tpc executable: path when not empty, else go-tpc on
// PATH, else in the directory `go install` writes to ($GOBIN, else the
// first $GOPATH entry's bin, else $HOME/go/bin). The error says how to
// install it.
func Find(path string) (string, error) {
	if path != "" {
		if _, err := exec.LookPath(path); err != nil {
			return "", fmt.Errorf("--tpcc-path %q: %w", path, err)
		}
		return path, nil
	}
	if p, err := exec.LookPath(Program); err == nil {
		return p, nil
	}
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	if gp := os.Getenv("GOPATH"); gp != "" {
		dirs = append(dirs, filepath.Join(filepath.SplitList(gp)[0], "bin"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, Program)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH nor in %s: install it with ./scripts/install-deps.sh (go install github.com/pingcap/go-tpc/cmd/go-tpc@%s) or name it with --tpcc-path", Program, strings.Join(dirs, ", "), ProgramVersion)
}

// Version returns the module version go-tpc was built from ("go-tpc
// v1.0.12"), read from the executable's Go build information (go-tpc
// itself prints "dev" unless its release build set it). The error names
// the file.
func Version(path string) (string, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("version of %s: %w", path, err)
	}
	return Program + " " + bi.Main.Version, nil
}

// runOptions are the go-tpc options of a run that define what it measures,
// besides --warehouses and --threads; Definition records them.
func runOptions() [][2]string {
	w := make([]string, len(Weights))
	for i, v := range Weights {
		w[i] = strconv.Itoa(v)
	}
	return [][2]string{
		{"weight", strings.Join(w, ",")},
		// Keying and think times off: the clients run flat out.
		{"wait", "false"},
		// 0 is the server's own transaction isolation (the
		// transaction_isolation knob when the space tunes it).
		{"isolation", "0"},
		// A failed transaction (deadlock, lock wait timeout) is counted
		// (ErrPS) and its thread goes on; without it the thread stops.
		{"ignore-error", "true"},
		{"max-measure-latency", MaxMeasureLatency.String()},
		{"driver", "mysql"},
		{"db", "sbtest"},
		{"partition-type", "1"},
		{"parts", "1"},
	}
}

// Definition returns what this benchmark measures: go-tpc's version and
// every option of its runs.
func (b Bench) Definition(ctx context.Context) (benchdef.Definition, error) {
	path, err := Find(b.Path)
	if err != nil {
		return benchdef.Definition{}, err
	}
	v, err := Version(path)
	if err != nil {
		return benchdef.Definition{}, err
	}
	d := benchdef.Definition{Driver: "tpcc", Version: v, Options: map[string]string{"warehouses": strconv.Itoa(b.Warehouses)}}
	for _, o := range runOptions() {
		d.Options[o[0]] = o[1]
	}
	return d, nil
}

// TCPOnly says why a run never uses the server's unix socket: go-tpc
// has no option for one (Bench.Run ignores runner.BenchRun.TCP).
func (b Bench) TCPOnly() string { return "go-tpc connects over TCP only" }

// Dataset identifies the data Prepare loads.
func (b Bench) Dataset() runner.Dataset {
	return runner.Dataset{Workload: "tpcc", Warehouses: b.Warehouses}
}

// args returns go-tpc's arguments for action on srv (TCP to 127.0.0.1 and
// the server's port as root: go-tpc has no socket option), then extra.
func (b Bench) args(srv *runner.Server, action string, threads int, extra ...string) []string {
	host := "127.0.0.1"
	if srv.Host != "" {
		host = srv.Host
	}
	a := []string{"tpcc", action, "--host", host, "--port", strconv.Itoa(srv.Port), "--user", "root",
		"--db", "sbtest", "--driver", "mysql", "--warehouses", strconv.Itoa(b.Warehouses),
		"--threads", strconv.Itoa(threads), "--parts", "1", "--partition-type", "1"}
	return append(a, extra...)
}

func (b Bench) command(ctx context.Context, path string, launch runner.Launch, args []string) (*exec.Cmd, error) {
	if path == "" {
		p, err := Find(b.Path)
		if err != nil {
			return nil, err
		}
		path = p
	}
	cmd := launch.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = runner.ChildProcAttr(false)
	cmd.Cancel = func() error { return runner.Terminate(cmd.Process) }
	cmd.WaitDelay = 5 * time.Second
	return cmd, nil
}

// PrepareLimit is the longest go-tpc tpcc prepare of w warehouses may take
// before it is stopped: 10 minutes plus 5 per warehouse (measured: 42 s for
// 1 warehouse with relaxed durability, 5 min 37 s without, on the
// reference 2-core machine).
func PrepareLimit(w int) time.Duration { return 10*time.Minute + time.Duration(w)*5*time.Minute }

// CheckLimit is the longest go-tpc tpcc check of w warehouses may take
// before it is stopped: 5 minutes plus 1 per warehouse (measured: 8 s for
// 1 warehouse with the check's index).
func CheckLimit(w int) time.Duration { return 5*time.Minute + time.Duration(w)*time.Minute }

// Prepare loads the TPC-C tables of Warehouses warehouses into the
// existing schema sbtest (go-tpc tpcc prepare, up to 4 loader threads, one
// warehouse each), then runs go-tpc's consistency check (go-tpc tpcc
// check: the TPC-C specification's clause 3.3.2 conditions). Durability is
// relaxed while it loads (innodb_flush_log_at_trx_commit=2, put back
// afterwards): the sandbox snapshots a cleanly stopped server. The error
// holds the end of go-tpc's output; a check that fails is an error naming
// the condition; one that does not end within PrepareLimit or CheckLimit
// is stopped and an error.
func (b Bench) Prepare(ctx context.Context, srv *runner.Server) error {
	if srv.Password != "" || srv.User != "" {
		return errors.New("the tpcc workload loads and runs on a sandboxed server only (go-tpc takes a password on its command line, which autotune does not do)")
	}
	if err := srv.Exec(ctx, "SET GLOBAL innodb_flush_log_at_trx_commit = 2"); err != nil {
		return fmt.Errorf("tpcc prepare: %w", err)
	}
	threads := max(1, min(b.Warehouses, 4))
	limit := PrepareLimit(b.Warehouses)
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd, err := b.command(pctx, "", runner.Launch{}, b.prepareArgs(srv, threads))
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	text := string(out)
	if ctx.Err() == nil && pctx.Err() != nil {
		return fmt.Errorf("go-tpc tpcc prepare --warehouses %d did not end within %s and was stopped: %s", b.Warehouses, limit, tail(text, 800))
	}
	if err != nil || hasFailure(text) {
		return fmt.Errorf("go-tpc tpcc prepare --warehouses %d: %s: %s", b.Warehouses, exitText(err), tail(text, 800))
	}
	if err := srv.Exec(ctx, "SET GLOBAL innodb_flush_log_at_trx_commit = DEFAULT"); err != nil {
		return fmt.Errorf("tpcc prepare: %w", err)
	}
	return b.Check(ctx, srv)
}

// Check runs go-tpc's consistency check on the loaded dataset (go-tpc
// tpcc check). Its condition 3.3.2.10 sums each customer's history rows,
// and table history has no index on the customer: on MariaDB 10.11 that
// took more than 10 minutes for 1 warehouse, so an index
// history(h_c_w_id, h_c_d_id, h_c_id) is added for the check (8 s) and
// dropped afterwards. go-tpc exits 0 even when a condition fails, so its
// output is read: a line "execute check failed, err check warehouse W at
// condition C failed ..." is an error quoting it.
func (b Bench) Check(ctx context.Context, srv *runner.Server) (err error) {
	if err := srv.Exec(ctx, "CREATE INDEX autotune_check ON sbtest.history (h_c_w_id, h_c_d_id, h_c_id)"); err != nil {
		return fmt.Errorf("tpcc check: %w", err)
	}
	defer func() {
		if derr := srv.Exec(context.WithoutCancel(ctx), "DROP INDEX autotune_check ON sbtest.history"); derr != nil && err == nil {
			err = fmt.Errorf("tpcc check: %w", derr)
		}
	}()
	threads := max(1, min(b.Warehouses, 4))
	limit := CheckLimit(b.Warehouses)
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd, err := b.command(cctx, "", runner.Launch{}, b.args(srv, "check", threads))
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	text := string(out)
	if ctx.Err() == nil && cctx.Err() != nil {
		return fmt.Errorf("go-tpc tpcc check --warehouses %d did not end within %s and was stopped", b.Warehouses, limit)
	}
	if err != nil || hasFailure(text) {
		return fmt.Errorf("go-tpc tpcc check (consistency of the loaded TPC-C data) failed: %s: %s", exitText(err), firstFailure(text))
	}
	return nil
}

// hasFailure reports whether go-tpc printed an error line in text.
func hasFailure(text string) bool { return firstFailure(text) != "" }

// firstFailure is the first error line of text ("" when none).
func firstFailure(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); isErrorLine(l) {
			return l
		}
	}
	return ""
}

func exitText(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0 with an error line"
	case errors.As(err, &ee):
		return "go-tpc " + ee.ProcessState.String()
	}
	return err.Error()
}

// Run runs the TPC-C mix for r.Duration (rounded up to whole seconds) at
// r.Threads with a report every second, and calls onSample for each as it
// arrives. It returns go-tpc's final report in the result's Summary
// (*Summary) and its version; a *runner.BenchError when go-tpc failed
// (non-zero exit, no report, not one New-Order transaction completed,
// unparseable output) or did not exit within its --time plus
// runner.ExitGrace (it is killed); ctx.Err() when cancelled (go-tpc
// gets SIGTERM, then SIGKILL after 5 s). r.TCP is moot: go-tpc always
// connects over TCP.
func (b Bench) Run(ctx context.Context, srv *runner.Server, r runner.BenchRun, onSample func(runner.Interval)) (runner.BenchResult, error) {
	secs := int((r.Duration + time.Second - 1) / time.Second)
	limit := time.Duration(secs)*time.Second + runner.ExitGrace(time.Duration(secs)*time.Second)
	dctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd, err := b.command(dctx, r.Binary, r.Launch, b.runArgs(srv, r.Threads, secs))
	if err != nil {
		return runner.BenchResult{}, &runner.BenchError{Reason: err.Error()}
	}
	res := runner.BenchResult{}
	if v, verr := Version(cmd.Path); verr == nil {
		res.Version = v
	}
	p := NewParser(1)
	var parseErr error
	text, err := runner.StreamLines(cmd, func(line string) {
		iv, ferr := p.Feed(line)
		if ferr != nil && parseErr == nil {
			parseErr = ferr
		}
		if iv != nil && onSample != nil {
			onSample(*iv)
		}
	})
	out := p.Output()
	if out.Summary != nil {
		res.Summary = out.Summary
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var newOrders float64
	for _, iv := range out.Intervals {
		newOrders += iv.TPS
	}
	switch {
	case dctx.Err() != nil:
		return res, &runner.BenchError{Reason: fmt.Sprintf("go-tpc did not exit within %s of its --time %ds and was killed", limit-time.Duration(secs)*time.Second, secs), Output: text}
	case err != nil:
		reason := exitText(err)
		if why := out.Explain(); why != "" {
			reason += ": " + why
		}
		return res, &runner.BenchError{Reason: reason, Output: text}
	case parseErr != nil:
		return res, &runner.BenchError{Reason: "unparseable go-tpc output: " + parseErr.Error(), Output: text}
	case len(out.Intervals) == 0:
		return res, &runner.BenchError{Reason: "no per-second reports in go-tpc output: " + out.Explain(), Output: text}
	case newOrders == 0:
		return res, &runner.BenchError{Reason: "not one New-Order transaction completed: " + out.Explain(), Output: text}
	}
	return res, nil
}

// prepareArgs returns go-tpc's arguments of the load of the dataset at
// threads: no consistency check, no foreign keys, 3 retries.
func (b Bench) prepareArgs(srv *runner.Server, threads int) []string {
	return b.args(srv, "prepare", threads, "--no-check", "--use-fk=false", "--retry-count", "3")
}

// Probe checks that the go-tpc at b.Path accepts every option the load
// and a run of this definition pass (go-tpc tpcc prepare --help and run
// --help; runner.CheckOptions), before any work starts. The error names
// the binary, its version and each option it lacks.
func (b Bench) Probe(ctx context.Context) error {
	path, err := Find(b.Path)
	if err != nil {
		return err
	}
	v, err := Version(path)
	if err != nil {
		return err
	}
	return b.checkOptions(ctx, path, v)
}

// checkOptions is Probe of the go-tpc at path, of version v.
func (b Bench) checkOptions(ctx context.Context, path, v string) error {
	srv := &runner.Server{Port: 3306}
	want := runner.OptionNames(append(b.prepareArgs(srv, 1), b.runArgs(srv, 1, 1)...))
	return runner.CheckOptions(ctx, path, v, want, []string{"tpcc", "prepare", "--help"}, []string{"tpcc", "run", "--help"})
}

// runArgs returns go-tpc's arguments of a run of secs seconds at threads:
// every option of runOptions, a JSON report every second.
func (b Bench) runArgs(srv *runner.Server, threads, secs int) []string {
	extra := []string{"--time", strconv.Itoa(secs) + "s", "--interval", "1s", "--output", "json"}
	for _, o := range runOptions() {
		switch o[0] {
		case "driver", "db", "parts", "partition-type":
			continue // in args
		case "wait", "ignore-error":
			extra = append(extra, "--"+o[0]+"="+o[1])
		default:
			extra = append(extra, "--"+o[0], o[1])
		}
	}
	return b.args(srv, "run", threads, extra...)
}

// tail returns the last n bytes of s, trimmed.
func tail(s string, n int) string {
	if len(s) > n {
		s = s[len(s)-n:]
	}
	return strings.TrimSpace(s)
}
