package replay

import (
	"bufio"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/autotune/autotune/internal/benchdef"

	"github.com/go-sql-driver/mysql"

	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/workload"
)

// DefaultStatementTimeout bounds one replayed statement: the server ends
// it (MariaDB max_statement_time, MySQL max_execution_time for SELECT),
// and the client gives up on the connection a few seconds later.
const DefaultStatementTimeout = 30 * time.Second

// MaxErrorShift is the largest difference, in share of the replayed
// statements, between a trial's error rate and the baseline's before the
// trial is invalid: 0.01 is one percentage point (a baseline with 0.2 %
// errors and a trial with 1.3 % is invalid). See ErrorShiftLimit.
const MaxErrorShift = 0.01

// Options say what to replay and how.
type Options struct {
	// File is the workload file (workload.Read).
	File string
	// Dump is the logical dump Prepare loads (mariadb-dump/mysqldump
	// output, gzip-compressed or not); "" when the server already holds
	// the data (ReadOnly).
	Dump string
	// Speed is the pace: 1 replays at the captured pace, 2 twice as fast,
	// 0 as fast as possible (statements back to back).
	Speed float64
	// ReadOnly replays only read-only statements (a server autotune does
	// not own, --dsn); the others are counted in Skipped.
	ReadOnly bool
	// StatementTimeout bounds each statement (0: DefaultStatementTimeout).
	StatementTimeout time.Duration
	// Client is the mysql command-line client Prepare feeds the dump to
	// ("": mariadb, else mysql, on PATH).
	Client string
	// Prepared runs the statements as server-side prepared statements:
	// each statement's literals become parameters (workload.Parameterize),
	// each statement shape is prepared once per connection and executed
	// with the captured values (binary protocol), as applications on
	// prepared statements do (sysbench, JDBC with useServerPrepStmts, Go's
	// database/sql). False sends each statement as the text the log holds
	// (COM_QUERY), as applications without them do. A capture cannot tell
	// which one the application used: the slow log writes both as text.
	Prepared bool
}

// Replay is the replay driver: it implements engine.Benchmark.
type Replay struct {
	opts     Options
	w        *workload.Workload
	sessions []session
	skipped  map[string]int
	dumpSHA  string
	fileSHA  string
}

// New reads the workload file and hashes the dump. Errors name the file
// and what was expected: a workload without statements to replay, a
// speed below 0, a captured pace asked of a workload without times, a
// dump that cannot be read, a ReadOnly replay given a dump, or a replay
// that loads nothing.
func New(o Options) (*Replay, error) {
	switch {
	case o.Speed < 0:
		return nil, fmt.Errorf("--speed %g: want 0 (as fast as possible) or a pace factor > 0 such as 1", o.Speed)
	case o.ReadOnly && o.Dump != "":
		return nil, fmt.Errorf("--data %s: a server autotune does not own already holds its data; a replay on it loads nothing (leave out --data)", o.Dump)
	case !o.ReadOnly && o.Dump == "":
		return nil, fmt.Errorf("--workload replay:%s needs --data DUMP.sql: the logical dump (mariadb-dump/mysqldump --single-transaction, taken when the capture started) the sandbox is loaded with", o.File)
	}
	if o.StatementTimeout <= 0 {
		o.StatementTimeout = DefaultStatementTimeout
	}
	w, err := workload.Read(o.File)
	if err != nil {
		return nil, err
	}
	fileSHA, err := runner.FileSHA256(o.File)
	if err != nil {
		return nil, fmt.Errorf("workload file %s: %w", o.File, err)
	}
	if o.Speed > 0 && w.Resolution == 0 {
		return nil, fmt.Errorf("--speed %g: workload file %s has no statement times (its log had none), so it has no captured pace: use --speed max", o.Speed, o.File)
	}
	r := &Replay{opts: o, w: w, fileSHA: fileSHA}
	r.sessions, r.skipped = buildPlan(w, o.ReadOnly, o.Prepared)
	if len(r.sessions) == 0 {
		return nil, fmt.Errorf("workload file %s: none of its %d statements can be replayed (%s)", o.File, w.Statements(), describeSkipped(r.skipped))
	}
	if o.Dump != "" {
		if r.dumpSHA, err = runner.FileSHA256(o.Dump); err != nil {
			return nil, fmt.Errorf("--data %s: %w", o.Dump, err)
		}
	}
	return r, nil
}

// Connections is the replay's concurrency: the captured connections it
// replays at once (the engine's thread level).
func (r *Replay) Connections() int { return len(r.sessions) }

// Skipped counts the captured statements left out of the replay, by
// reason.
func (r *Replay) Skipped() map[string]int { return r.skipped }

// Notes are lines to print before a study: what is replayed, how, and
// what is left out.
func (r *Replay) Notes() []string {
	n := 0
	for _, s := range r.sessions {
		n += len(s.steps)
	}
	pace := "as fast as possible (statements back to back; score: statements/s)"
	if r.opts.Speed > 0 {
		pace = fmt.Sprintf("at %g x the captured pace (one pass %s; score on the latency of a fixed load: --objective p95)", r.opts.Speed, (time.Duration(float64(span(r.w)) / r.opts.Speed)).Round(time.Millisecond))
	}
	out := []string{fmt.Sprintf("replaying %s: %d statements on %d connections at once, %s, from the start again when a connection reaches its end", r.opts.File, n, len(r.sessions), pace)}
	if len(r.skipped) > 0 {
		out = append(out, "left out of the replay: "+describeSkipped(r.skipped))
	}
	if r.opts.ReadOnly {
		out = append(out, "the server is not a sandbox: only read-only statements are replayed, on read-only sessions")
	}
	return out
}

func describeSkipped(m map[string]int) string {
	if len(m) == 0 {
		return "none left out"
	}
	var parts []string
	for why, n := range m {
		parts = append(parts, fmt.Sprintf("%d %s", n, why))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

// Definition is what makes two replays measure the same thing, for the
// study's manifest: the workload file's content (SHA-256), the dump's,
// the speed, read-only, the statement timeout, and "prepared" when the
// statements run as prepared statements (absent for text). The file
// names are left out: the same content under another name is the same
// benchmark.
// The client is autotune itself, so the definition has no program
// version of its own. It never fails.
func (r *Replay) Definition(ctx context.Context) (benchdef.Definition, error) {
	opts := map[string]string{"workload_sha256": r.fileSHA, "dump_sha256": r.dumpSHA,
		"speed": strconv.FormatFloat(r.opts.Speed, 'g', -1, 64), "read_only": strconv.FormatBool(r.opts.ReadOnly),
		"statement_timeout": r.opts.StatementTimeout.String()}
	d := benchdef.Definition{Driver: "replay", Options: opts}
	if r.opts.Prepared {
		opts["prepared"] = "true"
	}
	return d, nil
}

// ErrorShiftLimit is MaxErrorShift: a trial whose error rate moves more
// than this from the baseline's is invalid, because the replay no longer
// matches the data (search.Loop.MaxErrorShift).
func (r *Replay) ErrorShiftLimit() float64 { return MaxErrorShift }

// Dataset identifies the data: the dump's SHA-256, so a changed dump
// builds a new snapshot. (Read-only: "" for no dump.)
func (r *Replay) Dataset() runner.Dataset {
	ds := runner.Dataset{Workload: "replay"}
	if r.dumpSHA != "" {
		ds.Dump = "sha256:" + r.dumpSHA
	}
	return ds
}

// Prepare loads the dump into srv by feeding it to the mysql
// command-line client (mariadb or mysql), which runs what the dump tools
// write (DELIMITER blocks for triggers and routines, conditional
// comments, multi-row INSERTs) as they expect; a gzip-compressed dump is
// decompressed on the way. Then it checks that every schema the workload
// ran in exists. ReadOnly (no dump): only the check. Errors name the
// dump and the client's last output lines.
func (r *Replay) Prepare(ctx context.Context, srv *runner.Server) error {
	if r.opts.Dump != "" {
		if err := r.load(ctx, srv); err != nil {
			return err
		}
	}
	return r.checkSchemas(ctx, srv)
}

// clientArgs returns the arguments of the mysql client that loads the
// dump into srv: no option file (runner.ProgramArgs), batch mode, and
// srv's socket, else its host and port over TCP.
func clientArgs(srv *runner.Server) []string {
	args := runner.ProgramArgs("", "--user="+cmpOr(srv.User, "root"), "--batch", "--binary-mode", "--max-allowed-packet=1073741824")
	if srv.Socket != "" {
		args = append(args, "--socket="+srv.Socket)
	} else {
		args = append(args, "--host="+srv.Host, "--port="+strconv.Itoa(srv.Port), "--protocol=TCP")
	}
	return args
}

func (r *Replay) load(ctx context.Context, srv *runner.Server) error {
	client := r.opts.Client
	if client == "" {
		for _, c := range []string{"mariadb", "mysql"} {
			if p, err := exec.LookPath(c); err == nil {
				client = p
				break
			}
		}
	}
	if client == "" {
		return errors.New("load the dump: neither the mariadb nor the mysql client is on PATH (Debian: apt-get install mariadb-client)")
	}
	f, err := os.Open(r.opts.Dump)
	if err != nil {
		return fmt.Errorf("--data %s: %w", r.opts.Dump, err)
	}
	defer f.Close()
	limit := LoadLimit
	if fi, err := f.Stat(); err == nil {
		limit += time.Duration(fi.Size()>>20) * LoadTimePerMB
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	br := bufio.NewReaderSize(f, 1<<16)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("--data %s: %w", r.opts.Dump, err)
		}
		defer gz.Close()
		in = gz
	}
	cmd := exec.CommandContext(ctx, client, clientArgs(srv)...)
	cmd.SysProcAttr = runner.ChildProcAttr(false)
	cmd.Cancel = func() error { return runner.Terminate(cmd.Process) }
	cmd.WaitDelay = 5 * time.Second
	if srv.Password != "" {
		cmd.Env = append(os.Environ(), "MYSQL_PWD="+srv.Password)
	}
	cmd.Stdin = in
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("load the dump --data %s with %s: not done within %s (%s plus %s per MB of the file): %s",
				r.opts.Dump, client, limit, LoadLimit, LoadTimePerMB, out.String())
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("load the dump --data %s with %s: %w: %s", r.opts.Dump, client, err, out.String())
	}
	return nil
}

// LoadLimit and LoadTimePerMB bound the load of a dump: LoadLimit plus
// LoadTimePerMB for every MB of the file (plain or compressed). The 96 MB
// gzip-compressed example of docs/workloads.md loaded in 132 s on the
// reference 2-core machine under load, a quarter of its limit of 42 min.
const (
	LoadLimit     = 10 * time.Minute
	LoadTimePerMB = 20 * time.Second
)

// checkSchemasLimit bounds the check that the workload's schemas exist.
const checkSchemasLimit = time.Minute

// checkSchemas returns an error naming the workload's schemas srv lacks.
func (r *Replay) checkSchemas(ctx context.Context, srv *runner.Server) error {
	ctx, cancel := context.WithTimeout(ctx, checkSchemasLimit)
	defer cancel()
	db, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	var missing []string
	for _, s := range r.w.Schemas() {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", s).Scan(&n); err != nil {
			return fmt.Errorf("check the workload's schemas: %w", err)
		}
		if n == 0 {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if r.opts.Dump != "" {
		return fmt.Errorf("the dump --data %s does not create the schemas %s that workload file %s runs in: dump them too (mariadb-dump --databases %s)", r.opts.Dump, strings.Join(missing, ", "), r.opts.File, strings.Join(r.w.Schemas(), " "))
	}
	return fmt.Errorf("the server lacks the schemas %s that workload file %s runs in: load the data first", strings.Join(missing, ", "), r.opts.File)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// tailBuffer keeps the last 2 KiB written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// Run replays the workload on srv for r.Duration (whole seconds) with
// one connection per captured connection, opened before the clock starts,
// and calls onSample once a second (statements/s, errors/s, p95 latency;
// see player.take). A workload shorter than the run is replayed again
// from its start (Summary.Loops). Every statement is bounded by the
// statement timeout and ctx. It returns the Summary; a *runner.BenchError
// when the connections cannot be opened or all of them were lost, or no
// second was complete; ctx.Err() when cancelled (the engine cancels once
// its window is complete).
func (r *Replay) Run(ctx context.Context, srv *runner.Server, br runner.BenchRun, onSample func(runner.Interval)) (runner.BenchResult, error) {
	secs := int((br.Duration + time.Second - 1) / time.Second)
	res := runner.BenchResult{Version: "autotune replay"}
	db, err := sql.Open("mysql", r.dsn(srv, br.TCP))
	if err != nil {
		return res, err
	}
	defer db.Close()
	n := len(r.sessions)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	conns := make([]*sqlConn, n)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.close()
			}
		}
	}()
	octx, ocancel := context.WithTimeout(ctx, 30*time.Second+time.Duration(n)*100*time.Millisecond)
	for i := range conns {
		c, err := r.open(octx, db, preparedStatementsLimit/n)
		if err != nil {
			ocancel()
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, &runner.BenchError{Reason: fmt.Sprintf("open connection %d of %d: %v", i+1, n, err)}
		}
		conns[i] = c
	}
	ocancel()

	p := newPlayer(r.sessions, r.opts.Speed, span(r.w), r.opts.StatementTimeout)
	p.sum.Skipped = r.skipped
	rctx, stop := context.WithTimeout(ctx, time.Duration(secs)*time.Second)
	defer stop()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range r.sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.play(rctx, conns[i], r.sessions[i], start)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	got := 0
loop:
	for {
		select {
		case <-tick.C:
			got++
			if onSample != nil {
				onSample(p.take(float64(got), n))
			}
			if got >= secs {
				stop()
			}
		case <-done:
			break loop
		}
	}
	stop()
	<-done
	sum := p.summary()
	for _, c := range conns {
		sum.Prepared += c.preparedRuns
	}
	res.Summary = sum
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var lost []string
	for _, e := range errs {
		if e != nil {
			lost = append(lost, e.Error())
		}
	}
	if len(lost) == n {
		return res, &runner.BenchError{Reason: fmt.Sprintf("every connection of the replay stopped: %s", lost[0]), Output: strings.Join(lost, "\n")}
	}
	if got == 0 {
		return res, &runner.BenchError{Reason: "the replay ended before its first second"}
	}
	return res, nil
}

// dsn returns the driver DSN for srv: its socket (or TCP to 127.0.0.1
// and its port when tcp), with read and write timeouts a little beyond
// the statement timeout, so a connection the server stops answering never
// holds a replay.
func (r *Replay) dsn(srv *runner.Server, tcp bool) string {
	c, err := mysql.ParseDSN(srv.DSN(""))
	if err != nil {
		return srv.DSN("")
	}
	if tcp && srv.Port > 0 {
		c.Net, c.Addr = "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(srv.Port))
	}
	// With Prepared, a parameterised statement the server will not
	// prepare runs as text with its values written in, as the captured
	// client sent it (not prepared and closed again at each run).
	c.InterpolateParams = r.opts.Prepared
	c.ReadTimeout = r.opts.StatementTimeout + 10*time.Second
	c.WriteTimeout = r.opts.StatementTimeout + 10*time.Second
	c.Timeout = 10 * time.Second
	return c.FormatDSN()
}

// sqlConn is a replay connection on a *sql.Conn.
type sqlConn struct {
	c *sql.Conn
	// prepared runs statements as server-side prepared statements: stmts
	// holds them by default schema and text (a prepared statement keeps
	// the schema it was prepared in), at most maxStmts; unpreparable
	// holds those the server would not prepare (they run as text).
	prepared     bool
	schema       string
	maxStmts     int
	stmts        map[string]*sql.Stmt
	unpreparable map[string]bool
	// preparedRuns counts the statements run prepared that ended within
	// their time and the run's (Summary.Prepared).
	preparedRuns int64
}

// preparedStatementsLimit bounds the prepared statements a replay holds
// on the server across its connections (each connection holds
// preparedStatementsLimit / connections; none beyond 8000 connections):
// the server's max_prepared_stmt_count is 16382 by default (MariaDB KB
// and MySQL manual, "Server System Variables"); beyond it a prepare
// fails, the connection prepares nothing new and its statements run as
// text.
const preparedStatementsLimit = 8000

// Exec runs q with args: prepared (see sqlConn.prepared) when the
// connection prepares statements, q has values (a parameterised or masked
// statement: the others, BEGIN, COMMIT, SET, ..., are sent as text as
// the database/sql and JDBC clients send them), the server prepares it,
// and the connection's cache has room; else as text.
func (s *sqlConn) Exec(ctx context.Context, q string, args ...any) error {
	if s.prepared && len(args) > 0 {
		key := s.schema + "\x00" + q
		st := s.stmts[key]
		if st == nil && len(s.stmts) < s.maxStmts && !s.unpreparable[key] {
			p, err := s.c.PrepareContext(ctx, q)
			var me *mysql.MySQLError
			switch {
			case err == nil:
				s.stmts[key], st = p, p
			case ctx.Err() != nil || !errors.As(err, &me):
				return err // cancelled, timed out or lost: as the statement would be
			case me.Number == erMaxPreparedStmtCount:
				// The server holds no more: this connection prepares
				// nothing new.
				s.maxStmts = len(s.stmts)
			case len(s.unpreparable) < 4*s.maxStmts:
				// A statement the server will not prepare (a
				// placeholder where the grammar wants a constant, too
				// many placeholders) or that fails anyway (a missing
				// table): it runs as text from now on, and the text run
				// gives its own error.
				s.unpreparable[key] = true
			}
		}
		if st != nil {
			_, err := st.ExecContext(ctx, args...)
			if ctx.Err() == nil {
				s.preparedRuns++
			}
			return err
		}
	}
	_, err := s.c.ExecContext(ctx, q, args...)
	return err
}

// erMaxPreparedStmtCount is the server's error when it holds
// max_prepared_stmt_count prepared statements (MySQL manual, Server Error
// Message Reference: ER_MAX_PREPARED_STMT_COUNT_REACHED).
const erMaxPreparedStmtCount = 1461

// close closes the connection's prepared statements, then the connection.
func (s *sqlConn) close() {
	for _, st := range s.stmts {
		st.Close()
	}
	s.c.Close()
}

func (s *sqlConn) Use(ctx context.Context, schema string) error {
	_, err := s.c.ExecContext(ctx, "USE `"+strings.ReplaceAll(schema, "`", "``")+"`")
	if err == nil {
		s.schema = schema
	}
	return err
}

// Server error numbers of the session settings (MySQL manual, Server
// Error Message Reference): an unknown system variable.
const erUnknownSystemVariable = 1193

// open opens one connection and sets its session: the statement timeout
// (MariaDB max_statement_time in seconds, else MySQL max_execution_time
// in ms, which bounds SELECTs only) and, ReadOnly, a read-only
// transaction mode. With Options.Prepared the connection prepares up to
// maxStmts statements.
func (r *Replay) open(ctx context.Context, db *sql.DB, maxStmts int) (*sqlConn, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	_, err = c.ExecContext(ctx, fmt.Sprintf("SET SESSION max_statement_time = %g", r.opts.StatementTimeout.Seconds()))
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == erUnknownSystemVariable {
		_, err = c.ExecContext(ctx, fmt.Sprintf("SET SESSION max_execution_time = %d", r.opts.StatementTimeout.Milliseconds()))
	}
	if err == nil && r.opts.ReadOnly {
		_, err = c.ExecContext(ctx, "SET SESSION TRANSACTION READ ONLY")
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return &sqlConn{c: c, prepared: r.opts.Prepared, maxStmts: maxStmts, stmts: map[string]*sql.Stmt{}, unpreparable: map[string]bool{}}, nil
}
