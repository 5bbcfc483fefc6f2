package workload

import (
	"fmt"
	"strings"
	"time"
)

// entry is one statement as a log reader found it, before it is placed
// in its connection.
type entry struct {
	seg       int   // server run: incremented at each "started with:" header
	thread    int64 // connection id the server logged
	hasThread bool
	user      string
	host      string
	schema    string
	startUS   int64 // start, µs since the Unix epoch (zone-less local times read as UTC)
	hasStart  bool
	res       time.Duration // precision of startUS
	dur       time.Duration
	errno     int
	sql       string
}

// builder collects what a log reader finds and turns it into a Workload.
type builder struct {
	source  string
	files   []string
	server  Server
	entries []entry
	skipped map[string]int
	notes   []string
	noted   map[string]bool
	seg     int
	// gen is the general log reader's state at the end of the last file.
	gen struct {
		conns   map[[2]int64]*genConn
		timeUS  int64
		timeRes time.Duration
		hasTime bool
	}
	// slow is the slow log reader's state at the end of the last file.
	slow struct {
		fileDB       string
		timeUS       int64
		timeRes      time.Duration
		hasTime      bool
		timeZoneless bool
	}
}

func newBuilder(source string) *builder {
	return &builder{source: source, skipped: map[string]int{}, noted: map[string]bool{}}
}

// note records a sentence once.
func (b *builder) note(format string, a ...any) {
	s := fmt.Sprintf(format, a...)
	if !b.noted[s] {
		b.noted[s] = true
		b.notes = append(b.notes, s)
	}
}

// header records a "started with:" file header: a new server run, whose
// version becomes the workload's when it is the first.
func (b *builder) header(text string) {
	b.seg++
	v := parseHeaderVersion(text)
	switch {
	case b.server == (Server{}):
		b.server = v
	case v.Text != b.server.Text:
		b.note("the log holds several server versions (%s, then %s): the first is recorded", b.server.Text, v.Text)
	}
}

// parseHeaderVersion reads the version out of a log file header line
// "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:"
// (the same in slow and general logs of every flavour: MySQL manual,
// "The General Query Log"; percona-toolkit samples slow061, genlog005).
func parseHeaderVersion(line string) Server {
	_, rest, _ := strings.Cut(line, ", Version: ")
	rest = strings.TrimSuffix(strings.TrimSpace(rest), "started with:")
	rest = strings.TrimSuffix(strings.TrimSpace(rest), ".")
	s := Server{Text: rest}
	ver, comment, _ := strings.Cut(rest, " ")
	if v, err := parseVersion(ver, comment); err == nil {
		s.Version = v
	}
	return s
}

// isFileHeader reports whether line is the first line of the header a
// server writes when it opens a log file.
func isFileHeader(line []byte) bool {
	return hasSuffixBytes(line, "started with:") && containsBytes(line, ", Version: ")
}

// isHeaderRest reports whether line is the second or third line of the
// file header ("Tcp port: 3306  Unix socket: ..." and "Time  Id Command  Argument").
func isHeaderRest(line []byte) bool {
	return hasPrefixBytes(line, "Tcp port: ") || (hasPrefixBytes(line, "Time") && containsBytes(line, "Id") &&
		containsBytes(line, "Command") && hasSuffixBytes(trimRightBytes(line), "Argument"))
}

// build groups the entries into connections: one per thread id and server
// run (or per user@host when the log has no thread ids), statements in log
// order, offsets from the earliest start, raised where needed so that each
// connection's offsets never decrease.
func (b *builder) build() *Workload {
	w := &Workload{Source: b.source, Files: b.files, Server: b.server, Skipped: b.skipped}
	if len(w.Skipped) == 0 {
		w.Skipped = nil
	}
	// Entries before the first timestamp take the first one; with none at
	// all every offset is 0.
	var first int64
	found := false
	for _, e := range b.entries {
		if e.hasStart && (!found || e.startUS < first) {
			first, found = e.startUS, true
		}
	}
	if found {
		w.Start = time.UnixMicro(first).UTC()
	} else {
		b.note("the log has no timestamps: every statement is at offset 0")
	}
	type key struct {
		seg    int
		thread int64
		who    string
	}
	index := map[key]int{}
	noThread, raised := 0, 0
	for _, e := range b.entries {
		k := key{seg: e.seg, thread: e.thread}
		if !e.hasThread {
			k = key{seg: e.seg, who: e.user + "@" + e.host}
			noThread++
		}
		i, ok := index[k]
		if !ok {
			i = len(w.Connections)
			index[k] = i
			w.Connections = append(w.Connections, Connection{ID: i + 1, ThreadID: e.thread, User: e.user, Host: e.host, Schema: e.schema})
		}
		c := &w.Connections[i]
		var at time.Duration
		if found && e.hasStart {
			at = time.Duration(e.startUS-first) * time.Microsecond
			w.Resolution = max(w.Resolution, e.res)
		}
		if n := len(c.Statements); n > 0 && at < c.Statements[n-1].At {
			at = c.Statements[n-1].At
			raised++
		}
		c.Statements = append(c.Statements, Statement{At: at, SQL: e.sql, Schema: e.schema, Duration: e.dur, Errno: e.errno})
	}
	if noThread > 0 {
		b.note("%d statements carry no thread id (a log older than MySQL 5.6 / Percona 5.1 extended format): their connections are one per user@host", noThread)
	}
	if raised > 0 {
		b.note("%d statements started, by the log's times, before the previous statement of their connection (times of %s precision): their offsets were raised to the previous one's", raised, w.Resolution)
	}
	w.Notes = b.notes
	return w
}

// zonelessNote says that a workload's start comes from times without a
// zone.
const zonelessNote = "the log's times are the server's local time without a zone (YYMMDD H:MM:SS): they were read as UTC, so the start time is off by the server's UTC offset (offsets are not)"

// startFromEnd returns the start of a statement that ended at endUS after
// running for d.
func startFromEnd(endUS int64, d time.Duration) int64 { return endUS - d.Microseconds() }

func hasPrefixBytes(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }
func hasSuffixBytes(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}
func containsBytes(b []byte, s string) bool { return strings.Contains(string(b), s) }

func trimRightBytes(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
