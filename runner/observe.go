package runner

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The sources of a live server's statement statistics (StatementStats).
const (
	// SourceDigests is performance_schema's
	// events_statements_summary_by_digest: calls, time and errors per
	// statement digest (MySQL's default; MariaDB with performance_schema
	// ON, which needs a restart).
	SourceDigests = "performance_schema statement digests"
	// SourceResponseTime is MariaDB's query_response_time plugin
	// (information_schema.QUERY_RESPONSE_TIME): calls and time of every
	// statement, no digest; it loads at runtime (INSTALL SONAME).
	SourceResponseTime = "query_response_time plugin"
	// SourceGlobalStatus is SHOW GLOBAL STATUS's Questions: calls only,
	// no time, no digest; the watch takes their mean latency from
	// Threads_running by Little's law (MeanRunning).
	SourceGlobalStatus = "global status (Questions)"
)

// DigestStat is one statement digest's cumulative counters.
type DigestStat struct {
	// Text is the digest's normalised statement (shortened); Calls its
	// executions, Seconds their total latency, Errors those that failed.
	Text    string
	Calls   int64
	Seconds float64
	Errors  int64
}

// StatementStats is one reading of a server's statement statistics.
type StatementStats struct {
	// Source is one of the Source* constants; At when it was read.
	Source string
	At     time.Time
	// Digests are the counters by digest key (schema and digest; "all"
	// for the sources without digests).
	Digests map[string]DigestStat
}

// StatementSource returns the best source of statement statistics the
// server e has now: performance_schema digests when the instrument and
// consumer are on; else MariaDB's query_response_time plugin when it is
// loaded with its statistics on (loaded says it was loaded before,
// statsOn that query_response_time_stats was ON); else global status.
// It changes nothing (see EnableResponseTime).
func (e *Existing) StatementSource(ctx context.Context) (source string, loaded, statsOn bool, err error) {
	err = e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		var ps sql.NullString
		if db.QueryRowContext(ctx, "SELECT @@performance_schema").Scan(&ps) == nil && (ps.String == "1" || strings.EqualFold(ps.String, "ON")) {
			var enabled string
			if db.QueryRowContext(ctx, "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'statements_digest'").Scan(&enabled) == nil && strings.EqualFold(enabled, "YES") {
				source = SourceDigests
				return nil
			}
		}
		var status string
		if db.QueryRowContext(ctx, "SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'QUERY_RESPONSE_TIME'").Scan(&status) == nil && strings.EqualFold(status, "ACTIVE") {
			loaded = true
			var on sql.NullString
			if db.QueryRowContext(ctx, "SELECT @@query_response_time_stats").Scan(&on) == nil && (on.String == "1" || strings.EqualFold(on.String, "ON")) {
				statsOn = true
				source = SourceResponseTime
				return nil
			}
		}
		source = SourceGlobalStatus
		return nil
	})
	return source, loaded, statsOn, err
}

// EnableResponseTime loads MariaDB's query_response_time plugin unless
// loaded, and turns its statistics on. It returns an error when the
// server has no such plugin (MySQL, a MariaDB without it) or refuses.
func (e *Existing) EnableResponseTime(ctx context.Context, loaded bool) error {
	if !loaded {
		if err := e.Exec(ctx, "INSTALL SONAME 'query_response_time'"); err != nil {
			return err
		}
	}
	return e.Exec(ctx, "SET GLOBAL query_response_time_stats = ON")
}

// DisableResponseTime puts the plugin back as it was: statistics off
// unless statsOn, the plugin's library unloaded unless loaded. It does
// what is still to do: a second call, after a kill between steps, finds
// the plugins as the first left them (the library holds two,
// QUERY_RESPONSE_TIME and QUERY_RESPONSE_TIME_AUDIT: the library is
// uninstalled whole while it holds both, a part left alone on its own).
func (e *Existing) DisableResponseTime(ctx context.Context, loaded, statsOn bool) error {
	_, nowOn, err := e.responseTimeState(ctx)
	if err != nil {
		return err
	}
	if loaded {
		if !statsOn && nowOn {
			return e.Exec(ctx, "SET GLOBAL query_response_time_stats = OFF")
		}
		return nil
	}
	var names []string
	err = e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, "SELECT PLUGIN_NAME FROM information_schema.PLUGINS WHERE PLUGIN_NAME IN ('QUERY_RESPONSE_TIME', 'QUERY_RESPONSE_TIME_AUDIT') AND PLUGIN_STATUS <> 'DELETED'")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return err
			}
			names = append(names, n)
		}
		return rows.Err()
	})
	if err != nil {
		return err
	}
	if len(names) == 2 {
		return e.Exec(ctx, "UNINSTALL SONAME 'query_response_time'")
	}
	for _, n := range names {
		if err := e.Exec(ctx, "UNINSTALL PLUGIN "+n); err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == 1305 { // gone meanwhile
				continue
			}
			return err
		}
	}
	return nil
}

// responseTimeState reports whether the query_response_time plugin is
// loaded and its statistics on.
func (e *Existing) responseTimeState(ctx context.Context) (loaded, on bool, err error) {
	err = e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		var status string
		if db.QueryRowContext(ctx, "SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'QUERY_RESPONSE_TIME'").Scan(&status) != nil || !strings.EqualFold(status, "ACTIVE") {
			return nil
		}
		loaded = true
		var v sql.NullString
		if db.QueryRowContext(ctx, "SELECT @@query_response_time_stats").Scan(&v) == nil {
			on = v.String == "1" || strings.EqualFold(v.String, "ON")
		}
		return nil
	})
	return loaded, on, err
}

// ReadStatements reads the statement counters of source now.
func (e *Existing) ReadStatements(ctx context.Context, source string) (StatementStats, error) {
	st := StatementStats{Source: source, Digests: map[string]DigestStat{}}
	err := e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		st.At = time.Now()
		switch source {
		case SourceDigests:
			rows, err := db.QueryContext(ctx, "SELECT IFNULL(SCHEMA_NAME, ''), IFNULL(DIGEST, ''), LEFT(IFNULL(DIGEST_TEXT, ''), 120), COUNT_STAR, SUM_TIMER_WAIT, SUM_ERRORS FROM performance_schema.events_statements_summary_by_digest")
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var schema, digest, text string
				var calls, errs int64
				var ps float64
				if err := rows.Scan(&schema, &digest, &text, &calls, &ps, &errs); err != nil {
					return err
				}
				st.Digests[schema+"/"+digest] = DigestStat{Text: text, Calls: calls, Seconds: ps / 1e12, Errors: errs}
			}
			return rows.Err()
		case SourceResponseTime:
			rows, err := db.QueryContext(ctx, "SELECT COUNT, TOTAL FROM information_schema.QUERY_RESPONSE_TIME")
			if err != nil {
				return err
			}
			defer rows.Close()
			var all DigestStat
			all.Text = "all statements"
			for rows.Next() {
				var calls int64
				var total string
				if err := rows.Scan(&calls, &total); err != nil {
					return err
				}
				all.Calls += calls
				if s, err := strconv.ParseFloat(strings.TrimSpace(total), 64); err == nil {
					all.Seconds += s
				}
			}
			st.Digests["all"] = all
			return rows.Err()
		default:
			var name string
			var q int64
			if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Questions'").Scan(&name, &q); err != nil {
				return err
			}
			st.Digests["all"] = DigestStat{Text: "all statements", Calls: q}
			return nil
		}
	})
	if err != nil {
		return st, fmt.Errorf("read statement statistics (%s): %w", source, err)
	}
	return st, nil
}

// Health is what a server's tripwires read, once.
type Health struct {
	At time.Time
	// ThreadsRunning is Threads_running; Aborted the sum of
	// Aborted_clients and Aborted_connects (cumulative).
	ThreadsRunning, Aborted int64
	// RSSBytes is the server process's resident memory (VmRSS of the pid
	// in @@pid_file, readable when the server runs on this host); -1 when
	// unknown.
	RSSBytes int64
	// LagSeconds is the replica's Seconds_Behind_Source (or _Master); -1
	// when the server is no replica or the lag is unknown.
	LagSeconds float64
}

// ReadHealth reads e's tripwire readings. An error means the server did
// not answer.
func (e *Existing) ReadHealth(ctx context.Context) (Health, error) {
	h := Health{At: time.Now(), RSSBytes: -1, LagSeconds: -1}
	err := e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Threads_running', 'Aborted_clients', 'Aborted_connects')")
		if err != nil {
			return err
		}
		for rows.Next() {
			var name string
			var v int64
			if err := rows.Scan(&name, &v); err != nil {
				rows.Close()
				return err
			}
			if name == "Threads_running" {
				h.ThreadsRunning = v
			} else {
				h.Aborted += v
			}
		}
		rows.Close()
		var pidFile sql.NullString
		if db.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&pidFile) == nil && pidFile.String != "" {
			h.RSSBytes = rssOfPidFile(pidFile.String)
		}
		h.LagSeconds = replicaLag(ctx, db)
		return nil
	})
	return h, err
}

// rssOfPidFile returns the VmRSS of the process whose pid the file
// holds, -1 when either cannot be read (another host's server).
func rssOfPidFile(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) >= 1 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return -1
}

// replicaLag reads SHOW REPLICA STATUS (MySQL 8.0.22+, MariaDB 10.5.1+)
// or SHOW SLAVE STATUS: Seconds_Behind_Source or Seconds_Behind_Master;
// -1 when the server is no replica or the value is NULL.
func replicaLag(ctx context.Context, db *sql.DB) float64 {
	for _, q := range []string{"SHOW REPLICA STATUS", "SHOW SLAVE STATUS"} {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			continue
		}
		cols, _ := rows.Columns()
		if !rows.Next() {
			rows.Close()
			return -1
		}
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		err = rows.Scan(ptrs...)
		rows.Close()
		if err != nil {
			return -1
		}
		for i, c := range cols {
			if (c == "Seconds_Behind_Source" || c == "Seconds_Behind_Master") && vals[i].Valid {
				if f, err := strconv.ParseFloat(vals[i].String, 64); err == nil {
					return f
				}
			}
		}
		return -1
	}
	return -1
}

// Identity returns what names server e across connections and DSNs:
// "HOSTNAME:PORT DATADIR" (@@hostname, @@port, @@datadir).
func (e *Existing) Identity(ctx context.Context) (string, error) {
	g, err := e.Globals(ctx, []string{"hostname", "port", "datadir"})
	if err != nil {
		return "", err
	}
	if g["hostname"] == "" && g["datadir"] == "" {
		return "", errors.New("the server reports no @@hostname or @@datadir")
	}
	return g["hostname"] + ":" + g["port"] + " " + g["datadir"], nil
}

// Lock takes the server-wide user lock name on a connection of its own,
// waiting for it at most wait, and returns its release. A lock another
// connection holds is an error naming that connection's id (IS_USED_LOCK).
// The server releases the lock when the connection ends, so a killed
// holder leaves none behind.
func (e *Existing) Lock(ctx context.Context, name string, wait time.Duration) (release func(), err error) {
	conn, err := mysql.NewConnector(e.cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	c, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	var got sql.NullInt64
	if err := c.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", name, int(wait/time.Second)).Scan(&got); err != nil {
		c.Close()
		db.Close()
		return nil, fmt.Errorf("GET_LOCK(%q): %w", name, err)
	}
	if got.Int64 != 1 {
		var holder sql.NullInt64
		_ = c.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", name).Scan(&holder)
		c.Close()
		db.Close()
		return nil, fmt.Errorf("the lock %q is held by connection %d", name, holder.Int64)
	}
	return func() {
		_, _ = c.ExecContext(context.Background(), "DO RELEASE_LOCK(?)", name)
		c.Close()
		db.Close()
	}, nil
}

// ErrNoRow is QueryString's error for a query that returned no row.
var ErrNoRow = sql.ErrNoRows

// QueryString runs a query returning one text value (ErrNoRow: none).
func (e *Existing) QueryString(ctx context.Context, q string, args ...any) (string, error) {
	var s sql.NullString
	err := e.with(ctx, false, func(ctx context.Context, db *sql.DB) error { return db.QueryRowContext(ctx, q, args...).Scan(&s) })
	return s.String, err
}

// ResizeInProgress returns what the server still resizes in the
// background, "" when nothing: a buffer pool
// (Innodb_buffer_pool_resize_status naming a resize under way: "Resizing
// ...", "Withdrawing ...", "Allocating ...") or MySQL's redo log
// (Innodb_redo_log_resize_status other than "OK").
func (e *Existing) ResizeInProgress(ctx context.Context) (string, error) {
	var busy []string
	err := e.with(ctx, false, func(ctx context.Context, db *sql.DB) error {
		rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_resize_status', 'Innodb_redo_log_resize_status')")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name, v string
			if err := rows.Scan(&name, &v); err != nil {
				return err
			}
			lv := strings.ToLower(v)
			switch {
			case name == "Innodb_redo_log_resize_status" && v != "" && v != "OK":
				busy = append(busy, "redo log: "+v)
			case name == "Innodb_buffer_pool_resize_status" && !strings.Contains(lv, "complete") &&
				(strings.Contains(lv, "resizing") || strings.Contains(lv, "withdraw") || strings.Contains(lv, "allocat") || strings.Contains(lv, "in progress")):
				busy = append(busy, "buffer pool: "+v)
			}
		}
		return rows.Err()
	})
	return strings.Join(busy, "; "), err
}

// MeanRunning samples Threads_running every interval for d on one
// connection of its own and returns the mean of the samples less the
// sampling connection itself, and how many it took. With the statements'
// rate it gives their mean latency by Little's law (L = λW: W = L / λ)
// where the server keeps no statement times.
func (e *Existing) MeanRunning(ctx context.Context, d, interval time.Duration) (float64, int, error) {
	conn, err := mysql.NewConnector(e.cfg)
	if err != nil {
		return 0, 0, err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	db.SetMaxOpenConns(1)
	end := time.Now().Add(d)
	var sum float64
	n := 0
	for time.Now().Before(end) {
		var name string
		var v int64
		qctx, cancel := context.WithTimeout(ctx, e.limit(false))
		err := db.QueryRowContext(qctx, "SHOW GLOBAL STATUS LIKE 'Threads_running'").Scan(&name, &v)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return 0, n, ctx.Err()
			}
			return 0, n, err
		}
		sum += float64(max(v-1, 0))
		n++
		select {
		case <-ctx.Done():
			return 0, n, ctx.Err()
		case <-time.After(interval):
		}
	}
	if n == 0 {
		return 0, 0, errors.New("no sample of Threads_running")
	}
	return sum / float64(n), n, nil
}
