package replay

import (
	"strings"
	"time"

	"github.com/autotune/autotune/workload"
)

// Statement kinds a replay counts statements and errors by (Summary.Kinds).
const (
	KindSelect = "SELECT"
	KindInsert = "INSERT"
	KindUpdate = "UPDATE"
	KindDelete = "DELETE"
	KindOther  = "other"
)

// kindOf groups a statement's first keyword (workload.Statement.Kind) into
// the statement kinds: REPLACE counts as INSERT, everything but the four as other.
func kindOf(s workload.Statement) string {
	switch k := s.Kind(); k {
	case KindSelect, KindInsert, KindUpdate, KindDelete:
		return k
	case "REPLACE":
		return KindInsert
	}
	return KindOther
}

// step is one statement to replay.
type step struct {
	at     time.Duration // captured start offset
	sql    string
	args   []any // values of sql's placeholders: a masked statement's stand-ins, or a parameterised one's literals
	schema string
	kind   string
	errno  int // the error it ended with on the source (0: none or unknown)
}

// session is one captured connection to replay.
type session struct {
	id     int    // workload.Connection.ID
	schema string // default schema at its first statement
	steps  []step
}

// Reasons a statement is left out of a replay (Replay.Skipped).
const (
	SkipServerWide = "changes the server or other sessions (SET GLOBAL, KILL, SHUTDOWN, FLUSH, replication, plugins, ...)"
	SkipLocalFile  = "reads a client file (LOAD DATA LOCAL, LOAD XML LOCAL)"
	SkipNotRead    = "not read-only (--dsn replays reads only)"
	SkipEmpty      = "no statement keyword"
)

// skipReason returns why s is left out of a replay ("" to replay it):
// statements that would change the server beyond the data (its
// configuration, which is the trial's, other sessions, replication) or
// that need a client-side file; with readOnly, every statement that is
// not read-only (readOnlyStatement).
func skipReason(s workload.Statement, readOnly bool) string {
	k := s.Kind()
	if k == "" {
		return SkipEmpty
	}
	words := leadingWords(s.SQL, 4)
	switch k {
	case "SHUTDOWN", "KILL", "FLUSH", "RESET", "PURGE", "INSTALL", "UNINSTALL", "RESTART", "CLONE",
		"CHANGE", "START", "STOP", "BINLOG", "CACHE":
		// START TRANSACTION is a transaction, not replication.
		if !(k == "START" && len(words) > 1 && words[1] == "TRANSACTION") {
			return SkipServerWide
		}
	case "SET":
		for _, w := range words[1:] {
			if w == "GLOBAL" || w == "PERSIST" || w == "PERSIST_ONLY" {
				return SkipServerWide
			}
		}
		if strings.Contains(strings.ToUpper(s.SQL), "@@GLOBAL.") {
			return SkipServerWide
		}
	case "LOAD":
		if len(words) > 2 && (words[2] == "LOCAL" || (len(words) > 3 && words[3] == "LOCAL")) {
			return SkipLocalFile
		}
	}
	if readOnly && !readOnlyStatement(s) {
		return SkipNotRead
	}
	return ""
}

// readOnlyStatement reports whether s only reads: SELECT (without INTO,
// FOR UPDATE, LOCK IN SHARE MODE, FOR SHARE), SHOW, DESCRIBE, DESC,
// EXPLAIN, USE, session SET of a variable (not of the guards below, and
// not SET PASSWORD, ROLE, DEFAULT ROLE, STATEMENT ... FOR or TRANSACTION),
// and the transaction statements BEGIN, START TRANSACTION (not READ
// WRITE), COMMIT and ROLLBACK. The connection also runs with SET SESSION
// TRANSACTION READ ONLY and a statement time limit, so a write this
// misses (a stored function called by a SELECT) is refused by the
// server; the statements that would lift those guards are never let
// through.
func readOnlyStatement(s workload.Statement) bool {
	up := strings.ToUpper(s.SQL)
	switch s.Kind() {
	case "SELECT", "WITH":
		for _, w := range []string{" INTO ", "\nINTO ", "FOR UPDATE", "LOCK IN SHARE MODE", "FOR SHARE", "INSERT ", "UPDATE ", "DELETE "} {
			if strings.Contains(up, w) {
				return false
			}
		}
		return true
	case "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "USE", "BEGIN", "COMMIT", "ROLLBACK":
		return true
	case "START":
		return strings.HasPrefix(strings.Join(leadingWords(s.SQL, 2), " "), "START TRANSACTION") && !strings.Contains(up, "READ WRITE")
	case "SET":
		return readOnlySet(up)
	}
	return false
}

// guardVariables are the session variables a read-only replay sets
// itself (READ ONLY, the statement time limit): a captured SET of one
// would lift the guard.
var guardVariables = []string{"TRANSACTION_READ_ONLY", "TX_READ_ONLY", "MAX_STATEMENT_TIME", "MAX_EXECUTION_TIME"}

// readOnlySet reports whether the SET statement up (upper case) only
// assigns session variables other than guardVariables: SET PASSWORD,
// SET [DEFAULT] ROLE, SET TRANSACTION (READ WRITE lifts the guard) and
// MariaDB's SET STATEMENT ... FOR (which runs another statement) are not.
func readOnlySet(up string) bool {
	w := leadingWords(up, 3)
	i := 1
	if len(w) > i && (w[i] == "SESSION" || w[i] == "LOCAL") {
		i++
	}
	if len(w) > i {
		switch w[i] {
		case "PASSWORD", "ROLE", "DEFAULT", "STATEMENT", "TRANSACTION", "GLOBAL", "PERSIST", "PERSIST_ONLY":
			return false
		}
	}
	for _, v := range guardVariables {
		if strings.Contains(up, v) {
			return false
		}
	}
	return true
}

// leadingWords returns up to n leading words of sql in upper case.
func leadingWords(sql string, n int) []string {
	f := strings.Fields(strings.ToUpper(strings.TrimLeft(sql, " \t\r\n(")))
	if len(f) > n {
		f = f[:n]
	}
	return f
}

// standIn returns the stand-in arguments of a masked statement's
// placeholders (docs/workloads.md, Masking), one per letter of params: 0
// for a number, the empty string for a string, empty bytes for a hex or
// bit value.
func standIn(params string) []any {
	if params == "" {
		return nil
	}
	args := make([]any, len(params))
	for i, p := range params {
		switch p {
		case 'n':
			args[i] = int64(0)
		case 'b':
			args[i] = []byte{}
		default:
			args[i] = ""
		}
	}
	return args
}

// buildPlan turns w into the sessions to replay, leaving out what
// skipReason names (counted by reason). Connections left without a
// statement are left out. With prepared, each statement's literals
// become parameters (workload.Parameterize; a masked statement keeps its
// placeholders and stand-in values).
func buildPlan(w *workload.Workload, readOnly, prepared bool) ([]session, map[string]int) {
	skipped := map[string]int{}
	var out []session
	for _, c := range w.Connections {
		s := session{id: c.ID, schema: c.Schema}
		for _, st := range c.Statements {
			if why := skipReason(st, readOnly); why != "" {
				skipped[why]++
				continue
			}
			sql, args := st.SQL, standIn(st.Params)
			if prepared && st.Params == "" {
				sql, args = workload.Parameterize(st.SQL)
			}
			s.steps = append(s.steps, step{at: st.At, sql: sql, args: args, schema: st.Schema,
				kind: kindOf(st), errno: st.Errno})
		}
		if len(s.steps) > 0 {
			out = append(out, s)
		}
	}
	return out, skipped
}

// span returns the replay period of sessions at the captured pace: the
// last statement's offset plus its source duration, at least 1 s.
func span(w *workload.Workload) time.Duration {
	return max(time.Second, w.Duration())
}
