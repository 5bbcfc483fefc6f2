package workload

import (
	"sort"
	"strings"
	"time"

	"github.com/autotune/autotune/space"
)

// FormatName is the "format" field of a workload file's header line.
const FormatName = "autotune-workload"

// FormatVersion is the workload file format this package writes; Read
// accepts files of this version and older.
const FormatVersion = 1

// Source kinds: where a workload's statements were read from.
const (
	SourceSlowLog    = "slow-log"    // a slow query log file (--from-slow-log)
	SourceGeneralLog = "general-log" // a general query log file (--from-general-log)
	SourceLive       = "live"        // the slow log of a running server, switched on by autotune (--dsn --for)
)

// Workload is what a server executed during a capture: its client
// connections, each with its statements in the order the connection ran
// them, with start offsets relative to the capture start.
type Workload struct {
	// Source is the kind of input (SourceSlowLog, SourceGeneralLog,
	// SourceLive).
	Source string
	// Files are the log files read, in order (base names for a live
	// capture, which reads a file the server wrote).
	Files []string
	// Server is the source server: its flavour and version as the log's
	// "started with:" header (or, live, SELECT VERSION()) gives them; the
	// zero Version when the log carries no header.
	Server Server
	// Start is the wall-clock time of offset 0: the earliest statement's
	// start. Zero when the log has no timestamps.
	Start time.Time
	// Resolution is the precision of the start offsets: 1µs for MySQL
	// 5.7+/Percona 5.7+ ISO timestamps, 1s for MariaDB and older MySQL
	// logs; 0 when the log has no timestamps at all (every offset is 0).
	Resolution time.Duration
	// Masked reports whether string and numeric literals were replaced by
	// "?" placeholders (MaskLiterals); see Statement.Params.
	Masked bool
	// Skipped counts log entries that are not statements a client sent,
	// by kind ("Quit", "administrator command: Ping", "Prepare", ...).
	Skipped map[string]int
	// Restarts are the file headers after the log's opening one: a server
	// restart, or the server reopening its log (FLUSH LOGS, the log
	// switched off and on), which the log cannot tell apart. Thread ids
	// start again after one, so it splits the connections; in log order.
	Restarts []Restart
	// Fields counts the slow log's entry header fields by name, without
	// the ":" ("Query_time", "QC_hit", "Killed", "Id", ... and keys this
	// reader does not know): how often each was written. The set tells
	// the flavour and logging options (log_slow_verbosity,
	// log_slow_extra); nil for a general log.
	Fields map[string]int
	// Notes say what the reader inferred or could not know (no thread ids,
	// no header, local times without a zone, ...), one sentence each.
	Notes []string
	// Connections are the client connections, in the order of their first
	// statement.
	Connections []Connection
}

// Server is the server a workload was captured on.
type Server struct {
	// Version is the parsed flavour and release; zero when unknown.
	Version space.Version
	// Text is the version text as the server printed it, e.g.
	// "10.11.19-MariaDB-0+deb12u1-log (Debian 12)"; empty when unknown.
	Text string
}

// Restart is a file header met after the log's opening one.
type Restart struct {
	// File is the log file it is in (the base name for a live capture).
	File string
	// Line is its first line, 1-based.
	Line int
	// Server is the version text the header gives, e.g.
	// "10.8.3-MariaDB (MariaDB Server)".
	Server string
}

// Connection is one client connection (one thread id of one server run).
type Connection struct {
	// ID numbers the connections of a workload 1, 2, ... in the order of
	// their first statement.
	ID int
	// ThreadID is the connection id the server logged (0 when the log has
	// none; connections are then one per user@host).
	ThreadID int64
	// User and Host are the account and client host, when logged.
	User, Host string
	// Schema is the default schema when the connection's first statement
	// ran ("" for none).
	Schema string
	// Statements are the connection's statements in execution order, their
	// At offsets non-decreasing.
	Statements []Statement
}

// Statement is one statement a connection ran.
type Statement struct {
	// At is the statement's start, relative to Workload.Start.
	At time.Duration
	// SQL is the statement text as the client sent it, without the ";"
	// the slow log appends. Passwords in password positions are always
	// masked (MaskPasswords); literals too when Workload.Masked.
	SQL string
	// Schema is the default schema the statement ran in ("" for none).
	Schema string
	// Duration is the server's execution time (slow log Query_time); 0
	// when the log does not give it (general log).
	Duration time.Duration
	// Errno is the error the statement ended with (MySQL 8 log_slow_extra
	// Errno, Percona Last_errno); 0 for none or unknown.
	Errno int
	// Params, in a masked workload, has one letter per "?" placeholder
	// MaskLiterals put in SQL, in order: n number, s string, b hex or bit
	// value. Empty otherwise.
	Params string
}

// Kind returns the statement's first keyword in upper case ("SELECT",
// "INSERT", "BEGIN", ...), after leading comments, spaces and "(": the
// statement kind that replay statistics are counted by. "" for a text
// without a keyword.
func (s Statement) Kind() string {
	t := s.SQL
	for {
		t = strings.TrimLeft(t, " \t\r\n(")
		switch {
		case strings.HasPrefix(t, "/*") && !strings.HasPrefix(t, "/*!"):
			end := strings.Index(t[2:], "*/")
			if end < 0 {
				return ""
			}
			t = t[2+end+2:]
			continue
		case strings.HasPrefix(t, "/*!"):
			t = strings.TrimLeft(t[3:], "0123456789")
			continue
		case strings.HasPrefix(t, "-- ") || strings.HasPrefix(t, "#"):
			nl := strings.IndexByte(t, '\n')
			if nl < 0 {
				return ""
			}
			t = t[nl+1:]
			continue
		}
		break
	}
	end := 0
	for end < len(t) && isWordByte(t[end]) {
		end++
	}
	return strings.ToUpper(t[:end])
}

// Statements returns the number of statements over all connections.
func (w *Workload) Statements() int {
	n := 0
	for _, c := range w.Connections {
		n += len(c.Statements)
	}
	return n
}

// Duration returns the time from Start to the end of the last statement
// (its offset plus its duration).
func (w *Workload) Duration() time.Duration {
	var d time.Duration
	for _, c := range w.Connections {
		for _, s := range c.Statements {
			d = max(d, s.At+s.Duration)
		}
	}
	return d
}

// Schemas returns the distinct non-empty schemas the statements ran in,
// sorted.
func (w *Workload) Schemas() []string {
	seen := map[string]bool{}
	for _, c := range w.Connections {
		for _, s := range c.Statements {
			if s.Schema != "" {
				seen[s.Schema] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Kinds counts the statements by Kind.
func (w *Workload) Kinds() map[string]int {
	m := map[string]int{}
	for _, c := range w.Connections {
		for _, s := range c.Statements {
			m[s.Kind()]++
		}
	}
	return m
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
