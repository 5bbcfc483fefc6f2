package workload

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/autotune/autotune/internal/secret"
)

// Live describes a capture from a running server.
type Live struct {
	// DSN is a go-sql-driver DSN without a password:
	// "USER@unix(/run/mysqld/mysqld.sock)/" or "USER@tcp(HOST:PORT)/". The
	// user needs SUPER or SYSTEM_VARIABLES_ADMIN to set global variables.
	DSN string
	// Password is the user's password ("" for none).
	Password string
	// For is how long to capture.
	For time.Duration
	// ServerLog is the file the server writes the slow log to during the
	// capture; "" chooses autotune-capture-TIME.log in the server's
	// datadir. autotune must be able to read it (the server on this host,
	// the file readable by autotune's user); it is removed afterwards.
	ServerLog string
	// Logf prints progress (nil: nothing).
	Logf func(format string, a ...any)
}

// captureVar is a global variable the capture sets, when the server has
// it (MySQL manual "The Slow Query Log"; MariaDB KB "Slow Query Log
// Overview", "Slow Query Log Extended Statistics"; Percona manual "Slow
// query log").
type captureVar struct {
	name  string
	value string // "" for the log file, filled in at run time
	why   string
}

// captureVars are set in this order and restored in the reverse order,
// so that the log is switched on last and off first.
var captureVars = []captureVar{
	{"slow_query_log_file", "", "the file autotune reads"},
	{"log_output", "", "FILE added to the destinations: autotune reads a file"},
	{"long_query_time", "0", "every statement is slow"},
	{"min_examined_row_limit", "0", "also statements that examine few rows"},
	{"log_slow_admin_statements", "ON", "also ALTER, OPTIMIZE, ANALYZE, CREATE INDEX, ..."},
	{"log_slow_rate_limit", "1", "MariaDB/Percona: every statement, not a sample"},
	{"log_slow_filter", "", "MariaDB/Percona: no filter by query plan"},
	{"log_slow_extra", "ON", "MySQL 8.0.14+: each statement's start time to the microsecond"},
	{"slow_query_log_use_global_control", "all", "Percona: sessions already open follow the global settings"},
	{"slow_query_log", "ON", "switch the slow log on"},
}

// CaptureLive switches on the slow query log of the server at l.DSN with
// long_query_time=0 into a file autotune chooses, waits l.For (or until
// ctx ends), restores every global variable it changed, whatever happens
// (error, interrupt), then reads the file into a Workload and removes it.
//
// SET GLOBAL long_query_time applies to connections opened afterwards: a
// connection already open keeps its session value (Percona's
// slow_query_log_use_global_control lifts this), and logs only its
// statements slower than it. The count of such connections is in
// Workload.Notes.
//
// When ctx ends during the wait, the variables are restored and ctx's
// error returned. A variable that cannot be restored is named in the
// error, with the value to set by hand.
func CaptureLive(ctx context.Context, l Live) (w *Workload, err error) {
	logf := l.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if l.For <= 0 {
		return nil, fmt.Errorf("live capture: want a duration > 0, got %s", l.For)
	}
	cfg, err := secret.ParseUserDSN(l.DSN)
	if err != nil {
		return nil, fmt.Errorf("live capture: %w", err)
	}
	cfg.Passwd = l.Password
	cfg.DBName = ""
	// The dial timeout does not cover a server that accepts and never
	// answers; the I/O timeouts bound every statement (each is short: the
	// capture waits between them, not inside one).
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 10*time.Second, time.Minute, time.Minute
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("live capture: %v", err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	db.SetMaxOpenConns(1)
	addr := secret.RedactDSN(l.DSN)

	var version, comment, datadir string
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second) // the handshake happens here
	err = db.QueryRowContext(qctx, "SELECT VERSION(), @@version_comment, @@datadir").Scan(&version, &comment, &datadir)
	cancel()
	if err != nil {
		if ctx.Err() == nil && qctx.Err() != nil {
			return nil, fmt.Errorf("live capture: %s: no answer within 30s: %w", addr, err)
		}
		return nil, fmt.Errorf("live capture: %s: %w", addr, err)
	}
	server := Server{Text: version + " (" + comment + ")"}
	if v, err := parseVersion(version, comment); err == nil {
		server.Version = v
	}
	orig, err := globals(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("live capture: %s: %w", addr, err)
	}
	path := l.ServerLog
	if path == "" {
		path = filepath.Join(datadir, "autotune-capture-"+time.Now().UTC().Format("20060102T150405Z")+".log")
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("live capture: server log %q: want an absolute path (the server resolves relative ones against its datadir)", path)
	}
	var open int
	_ = db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND COMMAND NOT IN ('Daemon', 'Binlog Dump', 'Binlog Dump GTID')").Scan(&open)

	// Set, remembering what to restore; restore in reverse order on every
	// way out.
	var changed []captureVar
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var failed []string
		for i := len(changed) - 1; i >= 0; i-- {
			v := changed[i]
			if _, rerr := db.ExecContext(rctx, setGlobal(v.name, orig[v.name])); rerr != nil {
				failed = append(failed, fmt.Sprintf("SET GLOBAL %s = %s (%v)", v.name, sqlValue(orig[v.name]), rerr))
			}
		}
		if len(changed) > 0 && len(failed) == 0 {
			logf("restored %s on %s", names(changed), addr)
		}
		if len(failed) > 0 {
			rerr := fmt.Errorf("live capture: could not restore on %s, set by hand: %s", addr, strings.Join(failed, "; "))
			err = errors.Join(err, rerr)
			w = nil
		}
	}()
	for _, v := range captureVars {
		cur, has := orig[v.name]
		if !has {
			continue
		}
		want := v.value
		switch v.name {
		case "slow_query_log_file":
			want = path
		case "log_output":
			want = withFile(cur)
		}
		if strings.EqualFold(cur, want) || (isNumber(cur) && isNumber(want) && numEqual(cur, want)) {
			continue
		}
		if _, err := db.ExecContext(ctx, setGlobal(v.name, want)); err != nil {
			return nil, fmt.Errorf("live capture: %s: SET GLOBAL %s (%s): %w", addr, v.name, v.why, err)
		}
		changed = append(changed, v)
	}
	// The server opened the file when the log was switched on: find out
	// now, not after the wait, whether autotune can read it.
	if f, err := os.Open(path); err != nil {
		return nil, fmt.Errorf("live capture: the server writes its slow log to %s, which autotune cannot read (%v): run autotune on the server's host as a user who can read that file, or choose a file with --server-log; the variables are restored", path, err)
	} else {
		f.Close()
	}
	logf("capturing the statements of %s for %s into %s (slow query log, long_query_time=0)", addr, l.For, path)
	if open > 0 {
		logf("%d connections were open before the capture: they keep their session long_query_time and log only their slower statements", open)
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(l.For):
	}
	// Restore now (the deferred restore then has nothing left), so that
	// the server closes the file before it is read.
	restore := changed
	changed = nil
	rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := len(restore) - 1; i >= 0; i-- {
		v := restore[i]
		if _, err := db.ExecContext(rctx, setGlobal(v.name, orig[v.name])); err != nil {
			changed = restore[:i+1]
			return nil, fmt.Errorf("live capture: %s: restoring %s: %w", addr, v.name, err)
		}
	}
	logf("restored %s on %s", names(restore), addr)
	w, err = ReadSlowLogs(path)
	if err != nil {
		return nil, err
	}
	w.Source, w.Files = SourceLive, []string{filepath.Base(path)}
	for i := range w.Restarts {
		w.Restarts[i].File = filepath.Base(w.Restarts[i].File)
	}
	if w.Server.Text == "" {
		w.Server = server
	}
	if open > 0 {
		w.Notes = append(w.Notes, fmt.Sprintf("%d connections were open before the capture: only their statements slower than their session long_query_time were logged", open))
	}
	if err := os.Remove(path); err != nil {
		w.Notes = append(w.Notes, fmt.Sprintf("the server's log file %s could not be removed: %v", path, err))
	}
	return w, nil
}

// names lists the variables' names.
func names(vs []captureVar) string {
	n := make([]string, len(vs))
	for i, v := range vs {
		n[i] = v.name
	}
	return strings.Join(n, ", ")
}

// globals returns the current global values of the capture's variables
// that the server has.
func globals(ctx context.Context, db *sql.DB) (map[string]string, error) {
	names := make([]string, len(captureVars))
	for i, v := range captureVars {
		names[i] = "'" + v.name + "'"
	}
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("+strings.Join(names, ",")+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		m[strings.ToLower(k)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if _, ok := m["slow_query_log"]; !ok {
		return nil, errors.New("the server has no slow_query_log variable")
	}
	return m, nil
}

// setGlobal returns SET GLOBAL name = value, the value quoted unless it is
// a number (a numeric variable refuses a quoted value).
func setGlobal(name, value string) string { return "SET GLOBAL " + name + " = " + sqlValue(value) }

func sqlValue(v string) string {
	if isNumber(v) {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

func isNumber(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil && v != "" && !strings.ContainsAny(v, "xXeEnNiI")
}

func numEqual(a, b string) bool {
	x, _ := strconv.ParseFloat(a, 64)
	y, _ := strconv.ParseFloat(b, 64)
	return x == y
}

// withFile returns a log_output value that includes FILE.
func withFile(cur string) string {
	parts := strings.Split(strings.ToUpper(cur), ",")
	out := []string{}
	for _, p := range parts {
		switch p = strings.TrimSpace(p); p {
		case "FILE":
			return cur
		case "", "NONE":
		default:
			out = append(out, p)
		}
	}
	return strings.Join(append(out, "FILE"), ",")
}
