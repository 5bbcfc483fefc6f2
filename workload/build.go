package workload

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
)

// entry is one statement as a log reader found it, before it is placed
// in its connection.
type entry struct {
	seg       int   // server run: incremented at each "started with:" header
	file      int   // index of its log in builder.files
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
	// slow are the times a slow log entry gives; resolveStarts sets the
	// start from them.
	slow slowTimes
	// fields are the slow log header's "Key: value" pairs that the reader
	// does not interpret (QC_hit, Rows_sent, Killed, Bytes_sent, keys it
	// does not know, ...), as written, one "Key: value" a line.
	fields string
}

// slowTimes are the times of one slow log entry, kept apart because the
// flavours relate them differently: the "# Time:" in force (MySQL and
// Percona 5.7+ write the end, per entry, ISO with a zone; MariaDB and
// MySQL/Percona 5.6 and older the server's local time, without a zone,
// only when the second changed), SET timestamp (the start, seconds since
// the epoch) and log_slow_extra's Start: (MySQL 8). Query_time is
// entry.dur.
type slowTimes struct {
	ok          bool  // the entry is a slow log entry
	timeUS      int64 // "# Time:", µs since the epoch; a zone-less time read as UTC
	timeRes     time.Duration
	hasTime     bool
	zoneless    bool
	tsUS        int64 // SET timestamp=, µs since the epoch
	tsRes       time.Duration
	hasTS       bool
	logStartUS  int64 // log_slow_extra Start:, µs since the epoch
	hasLogStart bool
}

// logHeader is a file header a log reader met.
type logHeader struct {
	file    int    // index in builder.files
	line    int    // its first line, 1-based
	seg     int    // the server run it starts (entry.seg)
	text    string // the first line ("..., Version: ... started with:"), blanks collapsed
	port    string // the "Tcp port: ..." line that followed it, blanks collapsed; "" when none did
	atStart bool   // it came before any entry and any other header of its file
	restart bool   // it is a Restart of the workload
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
	// headers are the file headers read, in order.
	headers []logHeader
	// fields counts the slow log header fields by name.
	fields map[string]*int
	// mix is ReadOptions.MixServers.
	mix bool
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
	return &builder{source: source, skipped: map[string]int{}, noted: map[string]bool{}, fields: map[string]*int{}}
}

// note records a sentence once.
func (b *builder) note(format string, a ...any) {
	s := fmt.Sprintf(format, a...)
	if !b.noted[s] {
		b.noted[s] = true
		b.notes = append(b.notes, s)
	}
}

// header records a "started with:" file header (text) at line of the
// file being read: a new server run, whose version becomes the
// workload's when it is the first. atStart says that no entry and no
// other header of the file came before it. A header is a restart unless
// it opens the log (the first file's, at its start) or, when logs of
// several servers are mixed, opens a file.
func (b *builder) header(text string, line int, atStart bool) {
	b.seg++
	file := len(b.files) - 1
	restart := !atStart || (file > 0 && !b.mix)
	b.headers = append(b.headers, logHeader{file: file, line: line, seg: b.seg, text: collapseBlanks([]byte(text)), atStart: atStart, restart: restart})
	v := parseHeaderVersion(text)
	switch {
	case b.server == (Server{}):
		b.server = v
	case v.Text != b.server.Text:
		b.note("the log holds several server versions (%s, then %s): the first is recorded", b.server.Text, v.Text)
	}
}

// headerPort records the "Tcp port: ..." line that follows a header.
func (b *builder) headerPort(line []byte) {
	if n := len(b.headers); n > 0 && b.headers[n-1].port == "" {
		b.headers[n-1].port = collapseBlanks(line)
	}
}

// field counts a slow log header field by name (without its ":").
func (b *builder) field(key []byte) {
	if n, ok := b.fields[string(key)]; ok {
		*n++
		return
	}
	n := 1
	b.fields[string(key)] = &n
}

// parseHeaderVersion reads the version out of a log file header line
// "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:"
// (the same in slow and general logs of every flavour: MySQL manual,
// "The General Query Log"; percona-toolkit samples slow061, genlog005).
func parseHeaderVersion(line string) Server {
	_, rest, _ := strings.Cut(collapseBlanks([]byte(line)), ", Version: ")
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
// server writes when it opens a log file,
// "/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:",
// with any blanks between its words and after it.
func isFileHeader(line []byte) bool {
	if !hasSuffixBytes(trimRightBytes(line), "with:") {
		return false
	}
	s := collapseBlanks(line)
	return strings.HasSuffix(s, " started with:") && strings.Contains(s, ", Version: ")
}

// collapseBlanks returns line trimmed, each run of spaces and tabs in it
// made one space.
func collapseBlanks(line []byte) string {
	return strings.Join(strings.Fields(string(line)), " ")
}

// isHeaderRest reports whether line is the second or third line of the
// file header, in any run of spaces and tabs: "Tcp port: 3306  Unix
// socket: /tmp/s" ("TCP Port: 3306, Named Pipe: MySQL" on Windows) and
// "Time  Id Command  Argument" (MySQL: spaces; MariaDB 10.8+:
// "Time\t\t    Id Command\tArgument").
func isHeaderRest(line []byte) bool {
	return isPortLine(line) || isColumnsLine(line)
}

// isPortLine reports whether line is the "Tcp port:" line of a header.
func isPortLine(line []byte) bool {
	if len(line) < 9 || !strings.EqualFold(string(line[:3]), "Tcp") || (line[3] != ' ' && line[3] != '\t') {
		return false
	}
	return hasPrefixFold(strings.TrimLeft(string(line[3:]), " \t"), "port:")
}

// isColumnsLine reports whether line is "Time Id Command Argument" with
// any blanks around the words.
func isColumnsLine(line []byte) bool {
	if !hasPrefixBytes(line, "Time") || len(line) < 5 || (line[4] != ' ' && line[4] != '\t') {
		return false
	}
	f := bytes.Fields(line)
	return len(f) == 4 && string(f[1]) == "Id" && string(f[2]) == "Command" && string(f[3]) == "Argument"
}

// ErrMixedServers is wrapped by the error of reading logs that are not
// one server's in time order (see checkOneServer) without
// ReadOptions.MixServers.
var ErrMixedServers = errors.New("not one server's log")

// checkOneServer returns an error when the logs read are not one
// server's in time order (ReadOptions.MixServers says when and how they
// are read anyway): a file that opens with a header naming another server
// than the one in force at the end of the files before it, or entries of
// a file or server run that end more than overlapSlack before the last
// entry before them ends (logs of servers that ran at the same time, put
// one after the other, or files not given oldest first).
func (b *builder) checkOneServer() error {
	var problems []string
	var inForce *logHeader // the last header read before
	for k := range b.headers {
		h := &b.headers[k]
		if h.atStart && h.file > 0 && inForce != nil && !sameServer(*inForce, *h) {
			problems = append(problems, fmt.Sprintf("%s opens with the header of %s, %s ends with %s's",
				b.files[h.file], serverText(*h), b.files[inForce.file], serverText(*inForce)))
		}
		inForce = h
	}
	// The entries of each file and server run, in log order, must end
	// after those before them.
	type part struct {
		file, seg      int
		minEnd, maxEnd int64
	}
	var parts []part
	for _, e := range b.entries {
		if !e.hasStart {
			continue
		}
		end := e.startUS + e.dur.Microseconds()
		if n := len(parts); n == 0 || parts[n-1].file != e.file || parts[n-1].seg != e.seg {
			parts = append(parts, part{e.file, e.seg, end, end})
		}
		p := &parts[len(parts)-1]
		p.minEnd, p.maxEnd = min(p.minEnd, end), max(p.maxEnd, end)
	}
	for i, latest := 1, 0; i < len(parts); i++ {
		p, q := parts[i], parts[latest]
		if p.minEnd < q.maxEnd-overlapSlack.Microseconds() {
			problems = append(problems, fmt.Sprintf("entries of %s end from %s on, before the last entry of %s ends (%s)",
				b.partName(p.file, p.seg), usText(p.minEnd), b.partName(q.file, q.seg), usText(q.maxEnd)))
		}
		if p.maxEnd > q.maxEnd {
			latest = i
		}
	}
	switch {
	case len(problems) > 0 && !b.mix:
		return fmt.Errorf("%s %s: %w: %s; give the rotated files of one server, oldest first, or ask for the logs of several servers to be merged into one workload (ReadOptions.MixServers)",
			kindName(b.source), strings.Join(b.files, ", "), ErrMixedServers, strings.Join(problems, "; "))
	case len(problems) > 0:
		b.note("%s: not one server's log (%s): read as one workload, as asked; each file's connections are apart from the others'", strings.Join(b.files, ", "), strings.Join(problems, "; "))
	case b.mix && len(b.files) > 1:
		b.note("%s were read as the logs of several servers, as asked: each file's connections are apart from the others'", strings.Join(b.files, ", "))
	}
	return nil
}

// partName names the entries of a file and server run: the file, and the
// header that starts the run when it is inside the file.
func (b *builder) partName(file, seg int) string {
	for _, h := range b.headers {
		if h.seg == seg && h.file == file && !h.atStart {
			return fmt.Sprintf("%s after its header at line %d", b.files[file], h.line)
		}
	}
	return b.files[file]
}

// sameServer reports whether two headers name the same server: the same
// first line (binary, version), and the same port line when both have one.
func sameServer(a, b logHeader) bool {
	return a.text == b.text && (a.port == "" || b.port == "" || a.port == b.port)
}

// serverText names the server of a header: its version text, and its port
// line when it has one.
func serverText(h logHeader) string {
	s := cmpOr(parseHeaderVersion(h.text).Text, h.text)
	if h.port != "" {
		s += ", " + h.port
	}
	return s
}

// usText renders µs since the epoch as an RFC 3339 UTC time.
func usText(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.999999Z07:00")
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
	if len(b.fields) > 0 {
		w.Fields = make(map[string]int, len(b.fields))
		for k, n := range b.fields {
			w.Fields[k] = *n
		}
	}
	for _, h := range b.headers {
		if h.restart {
			w.Restarts = append(w.Restarts, Restart{File: b.files[h.file], Line: h.line, Server: parseHeaderVersion(h.text).Text})
		}
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

func trimRightBytes(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
