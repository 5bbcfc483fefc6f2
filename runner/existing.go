package runner

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/autotune/autotune/internal/secret"
	"github.com/autotune/autotune/space"
	"github.com/go-sql-driver/mysql"
)

// ClientArgs returns sysbench's connection options for s: the sandbox's
// root on the socket, or the user, password and address of an existing
// server. The password is on sysbench's command line (sysbench 1.0 reads
// no option file), visible to `ps` on the benchmark host, never logged.
func (s *Server) ClientArgs() []string {
	user := s.User
	if user == "" {
		user = "root"
	}
	var a []string
	if s.Socket != "" {
		a = append(a, "--mysql-socket="+s.Socket)
	} else {
		a = append(a, "--mysql-host="+s.Host, "--mysql-port="+strconv.Itoa(s.Port))
	}
	a = append(a, "--mysql-user="+user)
	if s.Password != "" {
		a = append(a, "--mysql-password="+s.Password)
	}
	return a
}

// Existing is a MySQL/MariaDB server autotune did not start and does not
// own: reached through a DSN, restarted (if at all) by a command the user
// gives.
type Existing struct {
	cfg *mysql.Config
	// RestartCmd is the restart command as argv (no shell); empty when
	// restarts are not allowed.
	RestartCmd []string
	// ReadyTimeout bounds the wait for the server after a restart
	// (default 2 minutes).
	ReadyTimeout time.Duration
	// QueryTimeout bounds each read (a fresh connection's handshake
	// included: the driver's dial timeout does not cover a server that
	// accepts and never answers); default 30 s. SET GLOBAL and Exec take
	// up to 10 times as long (an online resize can take minutes).
	QueryTimeout time.Duration
	// RestartTimeout bounds the restart command itself (default 10
	// minutes); WaitReady's ReadyTimeout follows it.
	RestartTimeout time.Duration
}

// limit returns the bound of one call: QueryTimeout (default 30 s), times
// 10 for a statement that changes the server.
func (e *Existing) limit(changes bool) time.Duration {
	d := e.QueryTimeout
	if d <= 0 {
		d = 30 * time.Second
	}
	if changes {
		d *= 10
	}
	return d
}

// OpenExisting parses a go-sql-driver DSN ("user@unix(/run/mysqld/mysqld.sock)/"
// or "user@tcp(host:3306)/") and adds password. A DSN that holds a password
// itself is refused (it would be on the command line). The error never
// contains the password.
func OpenExisting(dsn, password string) (*Existing, error) {
	cfg, err := secret.ParseUserDSN(dsn)
	if err != nil {
		return nil, err
	}
	cfg.Passwd = password
	cfg.DBName = ""
	cfg.Timeout = 5 * time.Second
	return &Existing{cfg: cfg, ReadyTimeout: 2 * time.Minute}, nil
}

// Addr returns where the server is, without credentials ("unix(/path)" or
// "tcp(host:port)").
func (e *Existing) Addr() string { return e.cfg.Net + "(" + e.cfg.Addr + ")" }

// Target returns the connection details for the benchmark client.
func (e *Existing) Target() *Server {
	s := &Server{User: e.cfg.User, Password: e.cfg.Passwd}
	if e.cfg.Net == "unix" {
		s.Socket = e.cfg.Addr
		return s
	}
	host, port, _ := strings.Cut(e.cfg.Addr, ":")
	s.Host = host
	s.Port, _ = strconv.Atoi(port)
	if s.Port == 0 {
		s.Port = 3306
	}
	return s
}

// with runs fn on a fresh connection pool (a restart kills pooled
// connections, so none is kept between calls) under a deadline of
// e.limit(changes) (fn must use the context it is given); a call that
// runs out of it returns an error saying so.
func (e *Existing) with(ctx context.Context, changes bool, fn func(ctx context.Context, db *sql.DB) error) error {
	conn, err := mysql.NewConnector(e.cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	db.SetMaxOpenConns(1)
	limit := e.limit(changes)
	qctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err = fn(qctx, db)
	if err != nil && ctx.Err() == nil && qctx.Err() != nil {
		return fmt.Errorf("no answer within %s: %w", limit, err)
	}
	return err
}

// Version returns SELECT VERSION().
func (e *Existing) Version(ctx context.Context) (string, error) {
	var v string
	err := e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		return db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v)
	})
	if err != nil {
		return "", fmt.Errorf("server %s: %w", e.Addr(), err)
	}
	return v, nil
}

// Globals returns the global value of each named system variable as the
// server reports it (@@GLOBAL.name: numbers in decimal, booleans as 1/0).
// Names must be lower-case identifiers.
func (e *Existing) Globals(ctx context.Context, names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	err := e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		for _, n := range names {
			if !varName.MatchString(n) {
				return fmt.Errorf("variable name %q", n)
			}
			var v sql.NullString
			if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL."+n).Scan(&v); err != nil {
				return fmt.Errorf("@@GLOBAL.%s: %w", n, err)
			}
			out[n] = v.String
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("server %s: read settings: %w", e.Addr(), err)
	}
	return out, nil
}

// Variables returns SHOW GLOBAL VARIABLES for the given names, in one
// query: values as SHOW prints them (booleans ON/OFF); a name the server
// does not have is absent from the map. Names must be lower-case
// identifiers.
func (e *Existing) Variables(ctx context.Context, names []string) (map[string]string, error) {
	in, err := nameList(names)
	if err != nil {
		return nil, err
	}
	var out map[string]string
	err = e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		out, err = showGlobal(ctx, db, in)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("server %s: read variables: %w", e.Addr(), err)
	}
	return out, nil
}

// VariableInfo is Variables with whether SET GLOBAL can change each
// variable, on one connection: Value is what SHOW GLOBAL VARIABLES prints,
// and ReadOnly (ReadOnlyKnown true) is information_schema.SYSTEM_VARIABLES'
// READ_ONLY where the server has that table (MariaDB 10.1 and later).
// MySQL has none (error 1109, unknown table): there ReadOnlyKnown is false
// and only the value is filled in. A name the server does not have is
// absent from the map; no names, no query. Names must be lower-case
// identifiers.
func (e *Existing) VariableInfo(ctx context.Context, names []string) (map[string]space.ServerVar, error) {
	out := map[string]space.ServerVar{}
	if len(names) == 0 {
		return out, nil
	}
	in, err := nameList(names)
	if err != nil {
		return nil, err
	}
	err = e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		vals, err := showGlobal(ctx, db, in)
		if err != nil {
			return err
		}
		for n, v := range vals {
			out[n] = space.ServerVar{Name: n, Value: v}
		}
		rows, err := db.QueryContext(ctx, "SELECT VARIABLE_NAME, READ_ONLY FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN ("+in+")")
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == erUnknownTable {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read information_schema.SYSTEM_VARIABLES: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var n, ro string
			if err := rows.Scan(&n, &ro); err != nil {
				return err
			}
			if sv, ok := out[strings.ToLower(n)]; ok {
				sv.ReadOnly, sv.ReadOnlyKnown = strings.EqualFold(ro, "YES"), true
				out[sv.Name] = sv
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("server %s: read variables: %w", e.Addr(), err)
	}
	return out, nil
}

// erUnknownTable is ER_UNKNOWN_TABLE ("Unknown table 'X' in
// information_schema").
const erUnknownTable = 1109

// nameList returns names quoted and joined for an SQL IN list; an error
// names the first that is not a lower-case identifier.
func nameList(names []string) (string, error) {
	quoted := make([]string, len(names))
	for i, n := range names {
		if !varName.MatchString(n) {
			return "", fmt.Errorf("variable name %q", n)
		}
		quoted[i] = "'" + n + "'"
	}
	return strings.Join(quoted, ","), nil
}

// showGlobal runs SHOW GLOBAL VARIABLES for the names of the IN list in
// (nameList) and returns the values by lower-case name.
func showGlobal(ctx context.Context, db *sql.DB, in string) (map[string]string, error) {
	out := map[string]string{}
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("+in+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var n, v string
		if err := rows.Scan(&n, &v); err != nil {
			return nil, err
		}
		out[strings.ToLower(n)] = v
	}
	return out, rows.Err()
}

// SetGlobal runs SET GLOBAL name = value (value unquoted when it is a
// number, quoted otherwise). A value the server refuses returns an error
// wrapping the server's *mysql.MySQLError.
func (e *Existing) SetGlobal(ctx context.Context, name, value string) error {
	if !varName.MatchString(name) {
		return fmt.Errorf("variable name %q", name)
	}
	lit := SQLLiteral(value)
	return e.with(ctx, true, func(ctx context.Context, db *sql.DB) error {
		if _, err := db.ExecContext(ctx, "SET GLOBAL "+name+" = "+lit); err != nil {
			return fmt.Errorf("SET GLOBAL %s = %s: %w", name, lit, err)
		}
		return nil
	})
}

// SQLLiteral renders a value for SET GLOBAL / SET PERSIST: a number as it
// is, anything else quoted with its quotes and backslashes escaped.
func SQLLiteral(value string) string {
	if _, err := strconv.ParseFloat(value, 64); err == nil {
		return value
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(value, `\`, `\\`), "'", "''") + "'"
}

// Exec runs statements on a fresh connection.
func (e *Existing) Exec(ctx context.Context, stmts ...string) error {
	return e.with(ctx, true, func(ctx context.Context, db *sql.DB) error {
		for _, st := range stmts {
			if _, err := db.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("%s: %w", st, err)
			}
		}
		return nil
	})
}

// QueryInt runs a query returning one integer.
func (e *Existing) QueryInt(ctx context.Context, q string, args ...any) (int64, error) {
	var n int64
	err := e.with(ctx, false, func(ctx context.Context, db *sql.DB) error { return db.QueryRowContext(ctx, q, args...).Scan(&n) })
	return n, err
}

// systemSchemas are schemas every server has; anything else besides the
// benchmark schema is someone's data.
var systemSchemas = map[string]bool{"mysql": true, "information_schema": true, "performance_schema": true, "sys": true}

// OtherSchemas returns the schemas of the server other than the system
// ones and bench: data autotune's benchmark could disturb.
func (e *Existing) OtherSchemas(ctx context.Context, bench string) ([]string, error) {
	var out []string
	err := e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, "SELECT schema_name FROM information_schema.schemata ORDER BY schema_name")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			if !systemSchemas[strings.ToLower(s)] && s != bench {
				out = append(out, s)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("server %s: list schemas: %w", e.Addr(), err)
	}
	return out, nil
}

// uptime returns SHOW GLOBAL STATUS Uptime (seconds).
func (e *Existing) uptime(ctx context.Context) (int64, error) {
	var name string
	var v int64
	err := e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return db.QueryRowContext(qctx, "SHOW GLOBAL STATUS LIKE 'Uptime'").Scan(&name, &v)
	})
	return v, err
}

// ErrNoRestart is returned by Restart when no restart command was given.
var ErrNoRestart = errors.New("restart needed but no --restart-cmd with --allow-restart")

// Restart runs the restart command (argv, no shell, in its own process
// group so a Ctrl-C at the terminal does not kill it halfway; on Linux it
// dies with autotune, see ChildProcAttr) and waits
// until the server is back: a new connection runs a query and the server's
// Uptime shows it started after the command was launched. It returns an
// error with the end of the command's output when the command fails or
// does not finish within RestartTimeout (then it is killed), and one
// naming the timeout when the server does not come back.
func (e *Existing) Restart(ctx context.Context) error {
	if len(e.RestartCmd) == 0 {
		return ErrNoRestart
	}
	launched := time.Now()
	limit := e.RestartTimeout
	if limit <= 0 {
		limit = 10 * time.Minute
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(rctx, e.RestartCmd[0], e.RestartCmd[1:]...)
	cmd.SysProcAttr = ChildProcAttr(true)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	// A command that leaves a daemon holding its output must not hang us.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		if ctx.Err() == nil && rctx.Err() != nil {
			return fmt.Errorf("restart command %q did not finish within %s (killed): %s", strings.Join(e.RestartCmd, " "), limit, tail(buf.Bytes(), 600))
		}
		return fmt.Errorf("restart command %q: %w: %s", strings.Join(e.RestartCmd, " "), err, tail(buf.Bytes(), 600))
	}
	return e.WaitReady(ctx, launched)
}

// WaitReady waits until a new connection runs a query and the server's
// Uptime is no longer than the time since `since` (it restarted after
// that moment; a zero since only needs the query). The time since is the
// longer of the wall-clock and the monotonic readings: Uptime counts the
// server's wall-clock seconds, and a clock stepped forward meanwhile (NTP)
// must not keep a restarted server "from before the restart".
func (e *Existing) WaitReady(ctx context.Context, since time.Time) error {
	timeout := e.ReadyTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	deadline := time.Now().Add(timeout)
	var last error
	for {
		up, err := e.uptime(ctx)
		if err == nil && (since.IsZero() || float64(up) <= max(time.Since(since), time.Now().Round(0).Sub(since.Round(0))).Seconds()+1) {
			return nil
		}
		if err == nil {
			last = fmt.Errorf("uptime %d s: still the server from before the restart", up)
		} else {
			last = err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server %s not ready %s after the restart command: %v", e.Addr(), timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
