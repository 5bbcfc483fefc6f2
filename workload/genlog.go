package workload

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The general query log, as the servers write it to a file. Sources:
// MySQL manual "The General Query Log" (5.7, 8.0); MariaDB KB "General
// Query Log"; the servers' writers (MySQL File_query_log::write_general,
// MariaDB MYSQL_QUERY_LOG::write): TIME, a tab, the thread id right-aligned
// in 5 (MySQL) or 6 (MariaDB) columns, a space, the command name, a tab,
// the argument, which goes on over the following lines when it holds
// newlines. TIME is
//
//	2024-01-02T03:04:05.123456Z   MySQL/Percona 5.7+, every line (log_timestamps UTC; SYSTEM gives +hh:mm)
//	240102  3:04:05               MariaDB, MySQL <= 5.6: only when the second changed, else the line starts "\t\t"
//
// Commands are the server's command names (MySQL sql_parse.cc
// command_name, MariaDB adds a few): a client statement is "Query", or
// "Execute" (a prepared statement, with its parameters written in);
// "Connect" gives the account and schema, "Init DB" changes the schema.
// Samples: percona-toolkit t/lib/samples/genlogs, logs written by MariaDB
// 10.11 on this machine.

// genCommands are the command names, longest first so that "Binlog Dump
// GTID" wins over "Binlog Dump".
var genCommands = func() []string {
	c := []string{"Sleep", "Quit", "Init DB", "Query", "Field List", "Create DB", "Drop DB", "Refresh", "Shutdown",
		"Statistics", "Processlist", "Connect", "Kill", "Debug", "Ping", "Time", "Delayed insert", "Change user",
		"Binlog Dump", "Binlog Dump GTID", "Table Dump", "Connect Out", "Register Slave", "Register Replica",
		"Prepare", "Execute", "Long Data", "Close stmt", "Reset stmt", "Set option", "Fetch", "Daemon",
		"Reset Connection", "Reset connection", "Error", "Bulk_execute", "Slave_IO", "Slave_SQL", "Slave_worker",
		"Com_multi", "Clone"}
	sort.Slice(c, func(i, j int) bool { return len(c[i]) > len(c[j]) })
	return c
}()

// ReadGeneralLogsWith reads general query log files in the given order as
// one log. Errors name the file and line and say what was expected; a log
// that yields no statement is an error, and so are logs that are not one
// server's (ReadOptions.MixServers).
func ReadGeneralLogsWith(o ReadOptions, paths ...string) (*Workload, error) {
	return readLogs(SourceGeneralLog, paths, parseGeneral, o)
}

// parseGenLine splits a general log line. ok is false for a line that is
// not an entry (a continuation of the previous argument); err is set for
// a line that starts with a time but does not go on as an entry.
func parseGenLine(line []byte) (us int64, res time.Duration, hasTime, zoneless bool, thread int64, cmd string, ok bool, arg []byte) {
	i := 0
	if len(line) > 0 && line[0] >= '0' && line[0] <= '9' {
		// The time runs to the first tab; or, in logs whose tabs were
		// turned to spaces, over the date and the clock.
		end := bytes.IndexByte(line, '\t')
		if end < 0 || end > 40 {
			end = timeEnd(line)
		}
		if end <= 0 {
			return
		}
		t, r, zl, err := parseLogTimeZone(bytes.TrimSpace(line[:end]))
		if err != nil {
			return
		}
		us, res, hasTime, zoneless, i = t, r, true, zl, end
	} else if len(line) == 0 || (line[0] != '\t' && line[0] != ' ') {
		return
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	start := i
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == start || i-start > 18 || i >= len(line) || line[i] != ' ' {
		return
	}
	thread, _ = strconv.ParseInt(string(line[start:i]), 10, 64)
	for i < len(line) && line[i] == ' ' {
		i++
	}
	rest := line[i:]
	for _, c := range genCommands {
		if hasPrefixBytes(rest, c) && (len(rest) == len(c) || rest[len(c)] == '\t' || rest[len(c)] == ' ') {
			cmd, ok = c, true
			arg = bytes.TrimLeft(rest[len(c):], " \t")
			return
		}
	}
	return
}

// timeEnd returns the end of a leading "YYMMDD H:MM:SS" or ISO time
// followed by spaces, or -1.
func timeEnd(line []byte) int {
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return -1
	}
	if sp == 6 { // YYMMDD, spaces, clock
		j := sp
		for j < len(line) && line[j] == ' ' {
			j++
		}
		k := bytes.IndexByte(line[j:], ' ')
		if k < 0 {
			return -1
		}
		return j + k
	}
	return sp
}

// genConn is what the reader knows of a connection of the general log.
type genConn struct {
	user, host, schema string
	connected          bool
	execQuery          int // index in the builder's entries of the last Query EXECUTE of this connection, -1 for none
}

type genParser struct {
	b       *builder
	name    string
	lr      *lineReader
	conns   map[[2]int64]*genConn
	timeUS  int64
	timeRes time.Duration
	hasTime bool
	// the entry being read (its argument may go on over the next lines)
	open     bool
	thread   int64
	cmd      string
	arg      []byte
	entries  int
	headers  int // file headers in this file
	junk     int // first line outside any entry
	slowLike int
	before   int // connections that started before the log
}

func parseGeneral(b *builder, name string, r io.Reader) error {
	// A file that goes on from the previous one (rotated without a
	// header) goes on with its connections and time.
	if b.gen.conns == nil {
		b.gen.conns = map[[2]int64]*genConn{}
	}
	p := &genParser{b: b, name: name, lr: newLineReader(bufio.NewReaderSize(r, 1<<16)), conns: b.gen.conns,
		timeUS: b.gen.timeUS, timeRes: b.gen.timeRes, hasTime: b.gen.hasTime}
	err := p.run()
	b.gen.timeUS, b.gen.timeRes, b.gen.hasTime = p.timeUS, p.timeRes, p.hasTime
	return err
}

func (p *genParser) run() error {
	for {
		line, err := p.lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("general query log %s: %w", p.name, err)
		}
		if isFileHeader(line) {
			p.finish()
			p.b.header(string(line), p.lr.n, p.entries == 0 && p.headers == 0)
			p.headers++
			continue
		}
		us, res, hasTime, zoneless, thread, cmd, ok, arg := parseGenLine(line)
		if !ok {
			if isHeaderRest(line) && !p.open {
				if isPortLine(line) {
					p.b.headerPort(line)
				}
				continue
			}
			if looksTimed(line) {
				return fmt.Errorf("general query log %s line %d: want \"ID Command<TAB>Argument\" after the time, Command one of Query, Execute, Connect, Init DB, Quit, ... (the server's command names)", p.name, p.lr.n)
			}
			if p.open {
				p.arg = append(p.arg, '\n')
				p.arg = append(p.arg, line...)
				continue
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if p.junk == 0 {
				p.junk = p.lr.n
			}
			if hasPrefixBytes(line, "# Time:") || hasPrefixBytes(line, "# User@Host:") {
				p.slowLike++
			}
			continue
		}
		p.finish()
		if hasTime {
			p.timeUS, p.timeRes, p.hasTime = us, res, true
			if zoneless {
				p.b.note(zonelessNote)
			}
		}
		p.open, p.thread, p.cmd, p.arg = true, thread, cmd, append(p.arg[:0], arg...)
		p.entries++
	}
	p.finish()
	if p.before > 0 {
		p.b.note("%s: %d connections started before the log did: their schema before their first Init DB or USE is unknown (recorded as none)", p.name, p.before)
	}
	if p.junk > 0 {
		if p.entries == 0 {
			hint := ""
			if p.slowLike > 0 {
				hint = " (its lines look like a slow query log: use --from-slow-log)"
			}
			return fmt.Errorf("general query log %s line %d: want \"TIME<TAB>ID Command<TAB>Argument\" (TIME 2024-01-02T03:04:05.123456Z or YYMMDD H:MM:SS, or left out when it repeats)%s", p.name, p.junk, hint)
		}
		p.b.note("%s: lines from %d on that precede the first entry were left out (the log was rotated in the middle of an entry?)", p.name, p.junk)
	}
	return nil
}

// looksTimed reports whether a line starts like a timed entry: an ISO or
// YYMMDD time followed by a tab.
func looksTimed(line []byte) bool {
	tab := bytes.IndexByte(line, '\t')
	if tab < 13 || tab > 40 {
		return false
	}
	_, _, err := parseLogTime(bytes.TrimSpace(line[:tab]))
	return err == nil
}

// conn returns the state of a thread of the current server run.
func (p *genParser) conn(thread int64) *genConn {
	k := [2]int64{int64(p.b.seg), thread}
	c := p.conns[k]
	if c == nil {
		c = &genConn{execQuery: -1}
		p.conns[k] = c
	}
	return c
}

// finish applies the open entry.
func (p *genParser) finish() {
	if !p.open {
		return
	}
	p.open = false
	c := p.conn(p.thread)
	arg := string(bytes.TrimSpace(p.arg))
	exec := c.execQuery
	c.execQuery = -1
	switch p.cmd {
	case "Connect":
		if strings.HasPrefix(arg, "Access denied") {
			p.b.skipped["Connect (access denied)"]++
			return
		}
		p.b.skipped["Connect"]++
		c.user, c.host, c.schema = parseConnect(arg)
		c.connected = true
	case "Init DB":
		p.b.skipped["Init DB"]++
		p.touch(c)
		c.schema = arg
	case "Query", "Execute":
		if p.cmd == "Execute" && exec >= 0 {
			// The expanded statement of the SQL EXECUTE just logged: it
			// replaces it, as in the slow log.
			p.b.entries[exec].sql = MaskPasswords(arg)
			return
		}
		if arg == "" {
			p.b.skipped["empty "+p.cmd]++
			return
		}
		p.touch(c)
		db, isUse := "", false
		if p.cmd == "Query" {
			db, isUse = useStatement(arg)
		}
		if isUse {
			// The slow log, written after the statement ran, gives a
			// USE its new schema; so does this reader.
			c.schema = db
		}
		e := entry{seg: p.b.seg, thread: p.thread, hasThread: true, user: c.user, host: c.host, schema: c.schema,
			sql: MaskPasswords(arg), startUS: p.timeUS, hasStart: p.hasTime, res: p.timeRes}
		p.b.entries = append(p.b.entries, e)
		if p.cmd == "Query" {
			if hasPrefixFold(arg, "EXECUTE") && len(arg) > 7 && !isWordByte(arg[7]) {
				c.execQuery = len(p.b.entries) - 1
			}
		}
	default:
		p.b.skipped[p.cmd]++
	}
}

// touch notes a connection whose first line is not its Connect.
func (p *genParser) touch(c *genConn) {
	if !c.connected {
		c.connected = true
		p.before++
	}
}

// parseConnect reads the argument of a Connect line:
// "app@10.0.0.5 on shop using TCP/IP", "root@localhost on  using Socket",
// "root@localhost on db1" (MySQL <= 5.6), "user@host as anonymous on db".
func parseConnect(arg string) (user, host, schema string) {
	who, rest, _ := strings.Cut(arg, " ")
	if at := strings.LastIndexByte(who, '@'); at >= 0 {
		user, host = who[:at], who[at+1:]
	} else {
		user = who
	}
	if i := strings.Index(" "+rest, " on "); i >= 0 {
		db := (" " + rest)[i+4:]
		if j := strings.Index(db, " using "); j >= 0 {
			db = db[:j]
		}
		schema = strings.TrimSpace(db)
	}
	return user, host, schema
}

// useStatement parses a USE statement sent as a query: "USE shop",
// "use `my db`;".
func useStatement(sql string) (string, bool) {
	if !hasPrefixFold(sql, "USE") || len(sql) < 5 || (sql[3] != ' ' && sql[3] != '\t' && sql[3] != '\n') {
		return "", false
	}
	db := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(sql[4:]), ";"))
	if len(db) >= 2 && db[0] == '`' && db[len(db)-1] == '`' {
		return strings.ReplaceAll(db[1:len(db)-1], "``", "`"), true
	}
	if db == "" || strings.ContainsAny(db, " \t\n;") {
		return "", false
	}
	return db, true
}

func hasPrefixFold(s, p string) bool { return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) }

func sortStrings(s []string) { sort.Strings(s) }
