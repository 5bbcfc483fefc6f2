package workload

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The slow query log, as the servers write it to a file (log_output=FILE).
// Sources: MySQL manual "The Slow Query Log" (5.7, 8.0, 8.4); MySQL
// WL#12393 (log_slow_extra); Percona Server manual "Slow query log"
// (slow-extended); MariaDB KB "Slow Query Log Overview" and "Slow Query Log
// Extended Statistics"; the percona-toolkit parser samples
// (t/lib/samples/slowlogs); logs written by MariaDB 10.11 on this machine;
// the field case slowlog-flavor-formats (MariaDB 10.3 and 10.8, Percona
// 5.6 and MySQL 8.0 excerpts from bug reports). workload/testdata/README.md
// lists which test file follows which.
//
// An entry is a block of "#" header lines, then the statement:
//
//	# Time: 2024-05-10T17:44:36.400424Z                  MySQL/Percona 5.7+: every entry, ISO, µs
//	# Time: 240515 17:02:39                              MariaDB, MySQL <= 5.6: only when the second changed
//	# User@Host: app[app] @ localhost [127.0.0.1]  Id: 12     "Id:" MySQL/Percona 5.6+
//	# Thread_id: 8  Schema: shop  QC_hit: No             MariaDB, Percona 5.5
//	# Schema: shop  Last_errno: 0  Killed: 0             Percona 5.6+
//	# Query_time: 0.000237  Lock_time: 0.000004 Rows_sent: 0  Rows_examined: 0 [Thread_id: .. Errno: .. Start: .. End: ..]
//	# ... more "#" lines (Rows_affected, Bytes_sent, InnoDB_*, explain:, ...)
//	use shop;                  when the schema differs from the last one written in the file
//	SET timestamp=1715363076;  the statement's start, whole seconds (may carry insert_id=..., last_insert_id=...)
//	select * from t;           the statement, any number of lines, ";" appended
//
// or, for a command that is not a statement (log_slow_admin_statements),
// "# administrator command: Quit;" in place of the statement. The fields
// of a "#" line are "Key: value" pairs separated by any blanks; a value
// may be empty ("Schema:   QC_hit: No"). With log_short_format the "#
// Time:" and "# User@Host:" lines are left out, and an entry starts at
// its first "#" line. A server that opens the file writes a header
// ("..., Version: ... started with:", "Tcp port: ...", "Time  Id Command
// Argument", spaces or tabs between the words: MariaDB 10.8 writes
// "Time\t\t    Id Command\tArgument"), again after a restart or when it
// reopens the file.

// ReadSlowLogs reads slow query log files in the given order as one log
// (rotated files oldest first). Errors name the file and line and say
// what was expected; a log that yields no statement is an error, and so
// are logs that are not one server's (ReadOptions.MixServers).
func ReadSlowLogs(paths ...string) (*Workload, error) {
	return ReadSlowLogsWith(ReadOptions{}, paths...)
}

// ReadSlowLogsWith is ReadSlowLogs with options.
func ReadSlowLogsWith(o ReadOptions, paths ...string) (*Workload, error) {
	return readLogs(SourceSlowLog, paths, parseSlow, o)
}

// ReadOptions are what a reader of several logs is told rather than
// guesses.
type ReadOptions struct {
	// MixServers reads logs of different servers into one workload, each
	// file's connections apart from the others' (a connection that spans
	// two rotated files of one server is then split in two), with a note.
	// Without it, logs are refused when a file opens with a header that
	// names another server (version, binary, port or socket) than the one
	// in force at the end of the files before it, or when the entries of
	// a file, or of a server run after a header, end more than
	// overlapSlack before the last entry before them ends (logs of
	// servers that ran at the same time, logs put one after the other in
	// a file, files not given oldest first).
	MixServers bool
}

// overlapSlack is how far entries may end before the last entry of the
// file or server run before them and still go on from it: the
// whole-second starts of MariaDB and MySQL 5.6 logs put an entry's end up
// to 1 s early.
const overlapSlack = 2 * time.Second

type named struct {
	name string
	r    io.Reader
}

// readLogs opens paths and parses them in order with parse.
func readLogs(source string, paths []string, parse func(*builder, string, io.Reader) error, o ReadOptions) (*Workload, error) {
	var in []named
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kindName(source), err)
		}
		defer f.Close()
		in = append(in, named{p, f})
	}
	return parseLogs(source, in, parse, o)
}

func parseLogs(source string, in []named, parse func(*builder, string, io.Reader) error, o ReadOptions) (*Workload, error) {
	return parseInto(newBuilder(source), in, parse, o)
}

// parseInto parses the logs in order into b and builds the workload.
func parseInto(b *builder, in []named, parse func(*builder, string, io.Reader) error, o ReadOptions) (*Workload, error) {
	source := b.source
	if len(in) == 0 {
		return nil, fmt.Errorf("%s: no file given", kindName(source))
	}
	b.mix = o.MixServers
	for i, f := range in {
		b.files = append(b.files, f.name)
		if i > 0 && o.MixServers {
			b.seg++ // thread ids of another server
		}
		first := len(b.entries)
		if err := parse(b, f.name, f.r); err != nil {
			return nil, err
		}
		for j := first; j < len(b.entries); j++ {
			b.entries[j].file = i
		}
	}
	b.resolveStarts()
	if err := b.checkOneServer(); err != nil {
		return nil, err
	}
	w := b.build()
	if w.Statements() == 0 {
		return nil, noStatements(source, in, b)
	}
	return w, nil
}

func kindName(source string) string {
	if source == SourceGeneralLog {
		return "general query log"
	}
	return "slow query log"
}

// noStatements is the error for logs that hold no client statement.
func noStatements(source string, in []named, b *builder) error {
	names := make([]string, len(in))
	for i, f := range in {
		names[i] = f.name
	}
	what := strings.Join(names, ", ")
	var skipped []string
	for k, n := range b.skipped {
		skipped = append(skipped, fmt.Sprintf("%d %s", n, k))
	}
	sortStrings(skipped)
	if len(skipped) > 0 {
		return fmt.Errorf("%s %s: no client statement, only entries that are not statements (%s)", kindName(source), what, strings.Join(skipped, ", "))
	}
	extra := ""
	for _, n := range b.notes {
		extra += "; " + n
	}
	if source == SourceGeneralLog {
		return fmt.Errorf("general query log %s: no statement found: want lines \"TIME<TAB>ID Command<TAB>Argument\" (TIME 2024-01-02T03:04:05.123456Z or YYMMDD H:MM:SS, or left out when it repeats) with Query or Execute commands, as the server writes with general_log=ON%s", what, extra)
	}
	return fmt.Errorf("slow query log %s: no statement found: want entries of \"# Time:\" / \"# User@Host:\" lines followed by the statement, as the server writes with slow_query_log=ON and long_query_time=0%s", what, extra)
}

// slowEntry is the entry being read.
type slowEntry struct {
	open        bool
	line        int
	hasUserHost bool
	headless    bool // begun by a "#" line other than "# Time:" and "# User@Host:"
	inBody      bool // a non-"#" line (use, SET, statement) was read
	metaDone    bool // a statement line was read: no more use/SET lines
	user, host  string
	thread      int64
	hasThread   bool
	schema      string
	hasSchema   bool
	useDB       string
	hasUse      bool
	dur         time.Duration
	errno       int
	startUS     int64 // log_slow_extra Start:
	hasStart    bool
	tsUS        int64 // SET timestamp=
	tsRes       time.Duration
	hasTS       bool
	admin       string
	fields      []byte // header pairs kept as written: "Key: value" lines
	body        []byte
}

type slowParser struct {
	b            *builder
	name         string
	lr           *lineReader
	cur          slowEntry
	fileDB       string // schema of the last "use" line since the file was opened
	timeUS       int64  // last "# Time:" value
	timeRes      time.Duration
	hasTime      bool
	timeZoneless bool
	entries      int // entries begun in this file
	headers      int // file headers in this file
	afterHeader  bool
	userHosts    int     // entries of this file with a "# User@Host:" line
	headless     []entry // statements of entries without one, placed at the end of the file
	headlessLine int     // line of the first of them
	nonBlank     int     // lines that are not blank
	junkFirst    int     // first line outside any entry, 0 for none
	junkLast     int
	genLike      int // lines outside entries that look like general log lines
}

func parseSlow(b *builder, name string, r io.Reader) error {
	// A file that goes on from the previous one (rotated without a
	// header) goes on with its schema and time.
	p := &slowParser{b: b, name: name, lr: newLineReader(bufio.NewReaderSize(r, 1<<16)), fileDB: b.slow.fileDB,
		timeUS: b.slow.timeUS, timeRes: b.slow.timeRes, hasTime: b.slow.hasTime, timeZoneless: b.slow.timeZoneless}
	err := p.run()
	b.slow.fileDB, b.slow.timeUS, b.slow.timeRes, b.slow.hasTime, b.slow.timeZoneless = p.fileDB, p.timeUS, p.timeRes, p.hasTime, p.timeZoneless
	return err
}

func (p *slowParser) errf(format string, a ...any) error {
	return fmt.Errorf("slow query log %s line %d: %s", p.name, p.lr.n, fmt.Sprintf(format, a...))
}

// opensEntry reports whether a "#" line that is neither "# Time:" nor
// "# User@Host:" is the first of an entry when it follows a statement or
// nothing: the first header line of a log written without those two
// (log_short_format), or what is left of an entry whose start was cut
// off.
func opensEntry(line []byte) bool {
	return hasPrefixBytes(line, "# Query_time:") || hasPrefixBytes(line, "# Thread_id:") || hasPrefixBytes(line, "# Schema:")
}

func (p *slowParser) run() error {
	for {
		line, err := p.lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("slow query log %s: %w", p.name, err)
		}
		if len(line) > 0 && (line[0] > ' ' || len(bytes.TrimSpace(line)) > 0) {
			p.nonBlank++
		}
		afterHeader := p.afterHeader
		p.afterHeader = false
		switch {
		case isFileHeader(line):
			p.finish()
			p.b.header(string(line), p.lr.n, p.entries == 0 && p.headers == 0)
			p.headers++
			p.fileDB, p.afterHeader = "", true
		case isHeaderRest(line):
			// Metadata wherever it is: after its first line, or alone
			// (a header whose first line was cut off).
			p.finish()
			if afterHeader && isPortLine(line) {
				p.b.headerPort(line)
			}
			p.afterHeader = afterHeader
		case hasPrefixBytes(line, "# Time:"):
			if err := p.timeLineAt(line); err != nil {
				return err
			}
		case hasPrefixBytes(line, "# User@Host:"):
			if err := p.userHost(line); err != nil {
				return err
			}
		case !p.cur.open && hasPrefixBytes(line, "# administrator command:"),
			(!p.cur.open || p.cur.inBody) && opensEntry(line):
			p.begin()
			p.cur.headless = true
			if err := p.headerLine(line); err != nil {
				return err
			}
		case p.cur.open && !p.cur.inBody && len(line) > 0 && line[0] == '#':
			if err := p.headerLine(line); err != nil {
				return err
			}
		case p.cur.open:
			p.bodyLine(line)
		default:
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if p.junkFirst == 0 {
				p.junkFirst = p.lr.n
			}
			p.junkLast = p.lr.n
			if _, _, _, _, _, _, ok, _ := parseGenLine(line); ok {
				p.genLike++
			}
		}
	}
	if p.cur.open && !p.cur.inBody {
		p.b.note("%s line %d: the last entry has no statement (the log was cut while the server wrote it): left out", p.name, p.cur.line)
		p.b.skipped["entry cut at the end of the file"]++
		p.cur.open = false
	}
	p.finish()
	if len(p.headless) > 0 {
		if p.userHosts > 0 {
			// The log writes "# User@Host:" lines: these entries lost
			// their start.
			p.b.skipped["entry without its # User@Host line (cut)"] += len(p.headless)
			p.b.note("%s line %d: %d entries have no \"# User@Host:\" line while the others do (the log was rotated or cut in the middle of an entry?): left out", p.name, p.headlessLine, len(p.headless))
		} else {
			p.b.entries = append(p.b.entries, p.headless...)
		}
	}
	switch {
	case p.junkFirst > 0 && p.entries == 0:
		hint := ""
		if p.genLike > 0 {
			hint = " (its lines look like a general query log: use --from-general-log)"
		}
		return fmt.Errorf("slow query log %s line %d: want an entry starting with \"# Time:\" or \"# User@Host:\" (MySQL/MariaDB/Percona slow query log): 0 entries read from a file that is not empty%s", p.name, p.junkFirst, hint)
	case p.junkFirst > 0:
		p.b.note("%s lines %d-%d precede the first entry and were left out (the log was rotated in the middle of an entry?)", p.name, p.junkFirst, p.junkLast)
	case p.entries == 0 && p.nonBlank > 0:
		p.b.note("%s holds no entry, only the server's header", p.name)
	}
	return nil
}

// begin starts a new entry at the current line, finishing the open one.
func (p *slowParser) begin() {
	p.finish()
	p.cur = slowEntry{open: true, line: p.lr.n, body: p.cur.body[:0], fields: p.cur.fields[:0]}
	p.entries++
}

// fresh reports whether a "# Time:" or "# User@Host:" line starts a new
// entry rather than going on with the open one.
func (p *slowParser) fresh() bool {
	return !p.cur.open || p.cur.hasUserHost || p.cur.inBody || p.cur.headless
}

func (p *slowParser) timeLineAt(line []byte) error {
	if p.fresh() {
		p.begin()
	}
	val := bytes.TrimSpace(line[len("# Time:"):])
	// pt-query-digest sample slow062: "# Time: 071218 11:48:27 # User@Host: ..." on one line.
	var uh []byte
	if i := bytes.Index(val, []byte(" # User@Host:")); i >= 0 {
		val, uh = bytes.TrimSpace(val[:i]), val[i+1:]
	}
	us, res, zl, err := parseLogTimeZone(val)
	if err != nil {
		return p.errf("# Time: %v", err)
	}
	p.timeUS, p.timeRes, p.hasTime, p.timeZoneless = us, res, true, zl
	if uh != nil {
		return p.userHost(uh)
	}
	return nil
}

// userHost reads "# User@Host: priv_user[user] @ host [ip]  Id: N" (any
// blanks before "Id:").
func (p *slowParser) userHost(line []byte) error {
	if p.fresh() {
		p.begin()
	}
	e := &p.cur
	e.hasUserHost = true
	p.userHosts++
	rest := string(bytes.TrimSpace(line[len("# User@Host:"):]))
	if i := lastField(rest, "Id:"); i >= 0 {
		id := strings.TrimSpace(rest[i+3:])
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n < 0 {
			return p.errf("# User@Host: Id %q: want the connection id, a number", id)
		}
		e.thread, e.hasThread = n, true
		p.b.field([]byte("Id"))
		rest = rest[:i]
	}
	who, where, _ := strings.Cut(rest, " @ ")
	priv, login, _ := strings.Cut(who, "[")
	login = strings.TrimSuffix(login, "]")
	e.user = strings.TrimSpace(cmpOr(login, priv))
	where = strings.TrimSpace(where)
	host, ip, _ := strings.Cut(where, "[")
	e.host = strings.TrimSpace(cmpOr(strings.TrimSpace(host), strings.TrimSuffix(strings.TrimSpace(ip), "]")))
	return nil
}

// lastField returns the index of the last key in s that follows a blank,
// or -1.
func lastField(s, key string) int {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], key)
		if i <= 0 {
			return -1
		}
		if s[i-1] == ' ' || s[i-1] == '\t' {
			return i
		}
		end = i
	}
}

// headerLine reads the fields of the other "#" lines of an entry header:
// "Key: value" pairs separated by blanks, a key right after a key having
// an empty value ("Schema:   QC_hit: No").
func (p *slowParser) headerLine(line []byte) error {
	if hasPrefixBytes(line, "# administrator command:") {
		p.cur.admin = adminCommand(line)
		p.cur.inBody = true
		return nil
	}
	b := line[1:]
	if t := bytes.TrimLeft(b, " \t"); hasPrefixBytes(t, "explain:") {
		// MariaDB log_slow_verbosity=explain: a table row, kept whole.
		return p.field([]byte("explain:"), bytes.TrimLeft(t[len("explain:"):], " \t"))
	}
	var key []byte
	for i := 0; i < len(b); {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		j := i
		for j < len(b) && b[j] != ' ' && b[j] != '\t' {
			j++
		}
		tok := b[i:j]
		i = j
		if len(tok) == 0 {
			break
		}
		if tok[len(tok)-1] == ':' {
			if key != nil {
				if err := p.field(key, nil); err != nil {
					return err
				}
			}
			key = tok
			continue
		}
		if key != nil {
			if err := p.field(key, tok); err != nil {
				return err
			}
			key = nil
		}
	}
	if key != nil {
		return p.field(key, nil)
	}
	return nil
}

// adminCommand returns X of "# administrator command: X;".
func adminCommand(line []byte) string {
	return strings.TrimSuffix(strings.TrimSpace(string(line[len("# administrator command:"):])), ";")
}

// field reads one "Key: value" of an entry header (val nil when empty).
// The keys the reader needs set the entry; the others are kept as written.
func (p *slowParser) field(key, val []byte) error {
	e := &p.cur
	p.b.field(key[:len(key)-1])
	switch {
	case string(key) == "Thread_id:" || string(key) == "Id:":
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil || n < 0 {
			return p.errf("%s %q: want the connection id, a number", key, val)
		}
		e.thread, e.hasThread = n, true
	case string(key) == "Schema:":
		e.schema, e.hasSchema = string(val), true
	case string(key) == "Query_time:":
		d, err := parseSeconds(string(val))
		if err != nil {
			return p.errf("Query_time: %v", err)
		}
		e.dur = d
	case string(key) == "Errno:" || string(key) == "Last_errno:":
		if n, err := strconv.Atoi(string(val)); err == nil {
			e.errno = n
		}
	case string(key) == "Start:":
		if us, res, err := parseLogTime(val); err == nil && res == time.Microsecond {
			e.startUS, e.hasStart = us, true
		}
	default:
		if len(e.fields) > 0 {
			e.fields = append(e.fields, '\n')
		}
		e.fields = append(e.fields, key...)
		if len(val) > 0 {
			e.fields = append(e.fields, ' ')
			e.fields = append(e.fields, val...)
		}
	}
	return nil
}

// bodyLine reads a line after the header: "use" and "SET timestamp"
// lines, an administrator command, or a line of the statement.
func (p *slowParser) bodyLine(line []byte) {
	e := &p.cur
	e.inBody = true
	if !e.metaDone {
		// The server writes its "use" line before its SET line; a "use"
		// after it is the statement.
		meta := trimRightBytes(line)
		if db, ok := useLine(meta); ok && !e.hasUse && !e.hasTS {
			e.useDB, e.hasUse = db, true
			return
		}
		if us, res, ok := setTimestampLine(meta); ok && !e.hasTS {
			e.tsUS, e.tsRes, e.hasTS = us, res, true
			return
		}
		if hasPrefixBytes(line, "# administrator command:") {
			e.admin = adminCommand(line)
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		e.metaDone = true
	}
	if len(e.body) > 0 {
		e.body = append(e.body, '\n')
	}
	e.body = append(e.body, line...)
}

// finish turns the open entry into a statement (or a skipped entry).
func (p *slowParser) finish() {
	e := &p.cur
	if !e.open {
		return
	}
	e.open = false
	if e.hasUse {
		p.fileDB = e.useDB
	}
	if e.admin != "" {
		p.b.skipped["administrator command: "+e.admin]++
		return
	}
	sql := strings.TrimSpace(string(e.body))
	sql = strings.TrimSpace(strings.TrimSuffix(sql, ";"))
	if sql == "" && e.hasUse && !e.hasTS {
		// A log without SET lines (MySQL before 5.7): a lone "use" line
		// was the statement.
		sql = "use " + e.useDB
	}
	switch {
	case sql == "":
		p.b.skipped["entry without a statement"]++
		return
	case strings.HasPrefix(sql, "throttle:") && strings.Contains(sql, "warning(s) suppressed"):
		// log_throttle_queries_not_using_indexes summary (MySQL manual).
		p.b.skipped["throttle summary"]++
		return
	}
	schema := p.fileDB
	if e.hasSchema {
		schema = e.schema
	}
	out := entry{seg: p.b.seg, thread: e.thread, hasThread: e.hasThread, user: e.user, host: e.host, schema: schema,
		dur: e.dur, errno: e.errno, sql: MaskPasswords(sql), fields: string(e.fields),
		slow: slowTimes{ok: true, timeUS: p.timeUS, timeRes: p.timeRes, hasTime: p.hasTime, zoneless: p.timeZoneless,
			tsUS: e.tsUS, tsRes: e.tsRes, hasTS: e.hasTS, logStartUS: e.startUS, hasLogStart: e.hasStart}}
	if e.headless && !e.hasUserHost {
		if len(p.headless) == 0 {
			p.headlessLine = e.line
		}
		p.headless = append(p.headless, out)
		return
	}
	p.b.entries = append(p.b.entries, out)
}

// useLine parses "use db;" or "use `db`;", the line the server writes
// when an entry's schema differs from the last one it wrote.
func useLine(line []byte) (string, bool) {
	if !hasPrefixBytes(line, "use ") || !hasSuffixBytes(line, ";") {
		return "", false
	}
	db := strings.TrimSpace(string(line[4 : len(line)-1]))
	if len(db) >= 2 && db[0] == '`' && db[len(db)-1] == '`' {
		db = strings.ReplaceAll(db[1:len(db)-1], "``", "`")
	}
	return db, db != ""
}

// setTimestampLine parses "SET timestamp=N;" and its forms with other
// assignments ("SET last_insert_id=1,insert_id=2,timestamp=N;"), N whole
// or fractional seconds since the Unix epoch.
func setTimestampLine(line []byte) (int64, time.Duration, bool) {
	if !hasPrefixBytes(line, "SET ") || !hasSuffixBytes(line, ";") {
		return 0, 0, false
	}
	var us int64
	var res time.Duration
	found := false
	for _, a := range strings.Split(string(line[4:len(line)-1]), ",") {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return 0, 0, false
		}
		if strings.TrimSpace(k) != "timestamp" {
			if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
				return 0, 0, false
			}
			continue
		}
		v = strings.TrimSpace(v)
		sec, frac, hasFrac := strings.Cut(v, ".")
		s, err := strconv.ParseInt(sec, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		us, res, found = s*1e6, time.Second, true
		if hasFrac {
			f, ok := digits([]byte(frac))
			if !ok || len(frac) > 6 {
				return 0, 0, false
			}
			for n := len(frac); n < 6; n++ {
				f *= 10
			}
			us += int64(f)
			res = time.Microsecond
		}
	}
	return us, res, found
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
