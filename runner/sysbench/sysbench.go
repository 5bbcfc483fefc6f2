// Package sysbench is the sysbench benchmark driver: it loads the sbtest
// dataset (sysbench prepare), runs an OLTP workload with per-second
// interval reports, and parses sysbench's output of every version seen in
// the field (Parser).
package sysbench

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/internal/benchdef"
	"github.com/autotune/autotune/runner"
)

// Workloads are the sysbench OLTP tests autotune accepts for --workload.
var Workloads = []string{"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select"}

// Bench runs a sysbench OLTP workload against a server.
type Bench struct {
	// Path is the sysbench executable ("" or "sysbench" looks it up on
	// PATH); a run's BenchRun.Binary replaces it.
	Path string
	// Workload is one of Workloads.
	Workload string
	// Tables is --tables; TableSize is --table-size (rows per table).
	Tables, TableSize int
	// Rand is the access distribution (the zero value: the default,
	// special).
	Rand Distribution

	// exitGrace, when > 0, replaces runner.ExitGrace as the time a run
	// may take beyond its --time (tests shorten it).
	exitGrace time.Duration
}

// Options are the sysbench options that define what an OLTP run measures,
// besides the workload, --tables, --table-size and the access
// distribution (Distribution.Options), each passed explicitly so that no
// default of the sysbench build in use decides (their values are sysbench
// 1.0.20's defaults, the measurements autotune was built on): prepared
// statements (--db-ps-mode),
// the queries of a transaction (oltp_common.lua's --point_selects ...),
// the table layout (--auto_inc, --secondary, --create_secondary, the
// storage engine), the MySQL errors a client ignores, an unthrottled rate
// and the latency percentile reported. Source: sysbench 1.0.20
// `sysbench oltp_read_write help` and `sysbench --help`.
var Options = [][2]string{
	{"db-ps-mode", "auto"},
	{"mysql-ignore-errors", "1213,1020,1205"},
	{"rate", "0"},
	{"percentile", "95"},
	{"range_size", "100"},
	{"point_selects", "10"},
	{"simple_ranges", "1"},
	{"sum_ranges", "1"},
	{"order_ranges", "1"},
	{"distinct_ranges", "1"},
	{"index_updates", "1"},
	{"non_index_updates", "1"},
	{"delete_inserts", "1"},
	{"range_selects", "on"},
	{"skip_trx", "off"},
	{"auto_inc", "on"},
	{"secondary", "off"},
	{"create_secondary", "on"},
	{"mysql_storage_engine", "innodb"},
}

// Args returns sysbench's arguments for srv: workload, connection (TCP to
// 127.0.0.1 and the server's port when tcp, else its socket or address),
// schema sbtest, the dataset size, the distribution's options
// (Distribution.Options) and every option of Options, then extra.
func (s Bench) Args(srv *runner.Server, tcp bool, extra ...string) []string {
	a := []string{s.Workload, "--db-driver=mysql"}
	if tcp {
		a = append(a, "--mysql-host=127.0.0.1", "--mysql-port="+strconv.Itoa(srv.Port), "--mysql-user=root")
	} else {
		a = append(a, srv.ClientArgs()...)
	}
	a = append(a,
		"--mysql-db=sbtest",
		"--tables="+strconv.Itoa(s.Tables),
		"--table-size="+strconv.Itoa(s.TableSize),
	)
	for _, o := range s.options() {
		a = append(a, "--"+o[0]+"="+o[1])
	}
	return append(a, extra...)
}

// options returns the options of a run besides the workload and the
// dataset: the distribution's, then Options.
func (s Bench) options() [][2]string {
	return append(s.Rand.Options(), Options...)
}

// Definition returns what this benchmark measures: sysbench's version
// (sysbench --version), the workload, the dataset size, the
// distribution's options and Options.
func (s Bench) Definition(ctx context.Context) (benchdef.Definition, error) {
	path := s.Path
	if path == "" {
		path = "sysbench"
	}
	v, err := ProgramVersion(ctx, path)
	if err != nil {
		return benchdef.Definition{}, err
	}
	d := benchdef.Definition{Driver: "sysbench", Version: v, Options: map[string]string{
		"workload": s.Workload, "tables": strconv.Itoa(s.Tables), "table-size": strconv.Itoa(s.TableSize)}}
	for _, o := range s.options() {
		d.Options[o[0]] = o[1]
	}
	return d, nil
}

// ProgramVersion returns the first line of `path --version` ("sysbench
// 1.0.20"); the error names the program (not found, no output within 10 s).
func ProgramVersion(ctx context.Context, path string) (string, error) {
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(vctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if line == "" {
		return "", fmt.Errorf("%s --version printed nothing", path)
	}
	return line, nil
}

func (s Bench) command(ctx context.Context, path string, launch runner.Launch, args []string) *exec.Cmd {
	if path == "" {
		path = s.Path
	}
	if path == "" {
		path = "sysbench"
	}
	cmd := launch.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = runner.ChildProcAttr(false)
	cmd.Cancel = func() error { return runner.Terminate(cmd.Process) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// PrepareLimit is the longest sysbench prepare of rows rows (tables ×
// table size) may take before it is stopped: 10 minutes plus one per
// million rows (measured: 8 × 500 000 rows in about a minute on the
// reference 2-core machine, README.md).
func PrepareLimit(rows int64) time.Duration {
	return 10*time.Minute + time.Duration(float64(rows)/1e6*float64(time.Minute))
}

// Prepare creates and loads the sbtest tables (sysbench prepare) into the
// existing schema sbtest, with up to Tables parallel loaders (at most 4:
// the reference machine has 2 cores). The error holds the end of
// sysbench's output; a prepare that does not end within PrepareLimit is
// stopped and an error saying so.
func (s Bench) Prepare(ctx context.Context, srv *runner.Server) error {
	threads := min(s.Tables, 4)
	limit := PrepareLimit(int64(s.Tables) * int64(s.TableSize))
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := s.command(pctx, "", runner.Launch{}, s.Args(srv, false, "--threads="+strconv.Itoa(threads), "prepare"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() == nil && pctx.Err() != nil {
			return fmt.Errorf("sysbench %s prepare did not end within %s (stopped): %s", s.Workload, limit, tail(out, 800))
		}
		return fmt.Errorf("sysbench %s prepare: %w: %s", s.Workload, err, tail(out, 800))
	}
	return nil
}

// Dataset identifies the data Prepare loads.
func (s Bench) Dataset() runner.Dataset {
	return runner.Dataset{Workload: s.Workload, Tables: s.Tables, TableSize: s.TableSize}
}

// Run runs the workload for r.Duration (rounded up to whole seconds) at
// r.Threads with --report-interval=1 and calls onSample for each interval
// line as it arrives (not the tail after the run's end, see
// Output.tail). It returns the final report in the result's Summary
// (*Summary); a *runner.BenchError when the run failed, saying why
// (Output.explain: phase, MySQL error number, cause), or when sysbench
// did not exit within its --time plus runner.ExitGrace (it is killed:
// threads stuck in the server keep it printing zero-throughput lines
// forever, akopytov/sysbench #279, #280); ctx.Err() when cancelled
// (sysbench gets SIGTERM, then SIGKILL after 5 s).
func (s Bench) Run(ctx context.Context, srv *runner.Server, r runner.BenchRun, onSample func(runner.Interval)) (runner.BenchResult, error) {
	out, err := s.run(ctx, srv, r, onSample)
	res := runner.BenchResult{Version: out.Version}
	if out.Summary != nil {
		res.Summary = out.Summary
	}
	return res, err
}

// runArgs returns sysbench's arguments of a run of secs seconds at
// threads on srv (over TCP when tcp), reporting every second.
func (s Bench) runArgs(srv *runner.Server, tcp bool, threads, secs int) []string {
	return s.Args(srv, tcp,
		"--threads="+strconv.Itoa(threads),
		"--time="+strconv.Itoa(secs),
		"--report-interval=1",
		"--histogram=off",
		"run")
}

// Probe checks, before any work starts, that the sysbench at s.Path can
// measure this definition: its --help lists the distribution s.Rand
// asks for (ParseRandTypeHelp, RandTypeHelp.CheckOffered: zipfian is
// refused on 1.0.x, special on a build from master, gaussian on a build
// without special), and it accepts every option a run passes, over a
// socket and over TCP (sysbench --help and sysbench WORKLOAD help;
// runner.CheckOptions): a build without the MySQL driver or an older one
// without --rand-spec-* is refused. The error names the binary, its
// version and the distributions it accepts or each option it lacks.
func (s Bench) Probe(ctx context.Context) error {
	path := s.Path
	if path == "" {
		path = "sysbench"
	}
	v, err := ProgramVersion(ctx, path)
	if err != nil {
		return err
	}
	if err := s.probeDistribution(ctx, path, v); err != nil {
		return err
	}
	srv := &runner.Server{Socket: "/probe.sock", Port: 3306}
	want := runner.OptionNames(append(s.runArgs(srv, false, 1, 1), s.runArgs(srv, true, 1, 1)...))
	return runner.CheckOptions(ctx, path, v, want, []string{"--help"}, []string{s.Workload, "help"})
}

// probeDistribution checks that the sysbench at path (version v) offers
// s.Rand's distribution (RandTypeHelp.CheckOffered) by what its --help
// says of --rand-type. A help without a --rand-type line is left to the
// option check, which refuses --rand-type then.
func (s Bench) probeDistribution(ctx context.Context, path, v string) error {
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(hctx, path, "--help").CombinedOutput() // sysbench 1.0 exits 1 after its help
	h, found, err := ParseRandTypeHelp(string(out))
	binary := fmt.Sprintf("%s (%s)", path, v)
	switch {
	case err != nil:
		return fmt.Errorf("%s --help: %w: cannot tell which distributions it offers", path, err)
	case !found:
		return nil
	}
	return h.CheckOffered(binary, s.Rand.Name())
}

func (s Bench) run(ctx context.Context, srv *runner.Server, r runner.BenchRun, onSample func(runner.Interval)) (Output, error) {
	secs := int((r.Duration + time.Second - 1) / time.Second)
	grace := runner.ExitGrace(time.Duration(secs) * time.Second)
	if s.exitGrace > 0 {
		grace = s.exitGrace
	}
	limit := time.Duration(secs)*time.Second + grace
	dctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := s.command(dctx, r.Binary, r.Launch, s.runArgs(srv, r.TCP, r.Threads, secs))
	p := newParserFor(invocation{threads: r.Threads, timeS: float64(secs), percentile: 95})
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
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	switch {
	case dctx.Err() != nil:
		return out, &runner.BenchError{Reason: fmt.Sprintf("sysbench did not exit within %s of its --time=%d and was killed: %s", limit-time.Duration(secs)*time.Second, secs, out.explain()), Output: text}
	case err != nil:
		var ee *exec.ExitError
		reason := err.Error()
		if errors.As(err, &ee) {
			reason = "sysbench " + ee.ProcessState.String()
		}
		if why := out.explain(); why != "" {
			reason += ": " + why
		}
		return out, &runner.BenchError{Reason: reason, Output: text}
	case len(out.Failures) > 0:
		return out, &runner.BenchError{Reason: "sysbench " + out.explain(), Output: text}
	case parseErr != nil:
		return out, &runner.BenchError{Reason: "unparseable output: " + parseErr.Error(), Output: text}
	case len(out.intervals) == 0:
		return out, &runner.BenchError{Reason: "no interval reports in sysbench output", Output: text}
	}
	return out, nil
}

// tail returns the last n bytes of b as text.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}
