package workload

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/golden"
)

// flavorCase is the reference case slowlog-flavor-formats, copied
// unchanged: five slow log excerpts (MariaDB 10.8 with tabs in
// its header and a restart, MariaDB 10.3, MariaDB with an administrator
// command, Percona 5.6, MySQL 8.0 constructed from the documented
// layout) and expected.md, the rules a reader of them must keep.
const flavorCase = "testdata/slowlog-flavor-formats"

// The case's inputs.
const (
	caseA = "a-mariadb-10.8-tabs-and-restart.log"
	caseB = "b-mariadb-10.3-basic.log"
	caseC = "c-mariadb-admin-command.log"
	caseD = "d-percona-5.6.log"
	caseE = "e-mysql-8.0-rfc3339.CONSTRUCTED.log"
)

// readCase reads case inputs as one slow log, returning the reader's
// entries (before they are placed in connections) with the workload.
func readCase(t *testing.T, o ReadOptions, names ...string) (*builder, *Workload) {
	t.Helper()
	var in []named
	for _, n := range names {
		f, err := os.Open(filepath.Join(flavorCase, n))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in = append(in, named{filepath.Join(flavorCase, n), f})
	}
	b := newBuilder(SourceSlowLog)
	w, err := parseInto(b, in, parseSlow, o)
	if err != nil {
		t.Fatal(err)
	}
	return b, w
}

// caseText returns a case input's text.
func caseText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(flavorCase, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parseText reads a slow log given as text.
func parseText(t *testing.T, name, text string) *Workload {
	t.Helper()
	w, err := parseSlowLog(name, strings.NewReader(text))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w
}

// fieldMap splits an entry's kept header fields ("Key: value" lines).
func fieldMap(fields string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(fields, "\n") {
		if l == "" {
			continue
		}
		k, v, _ := strings.Cut(l, ":")
		m[k] = strings.TrimSpace(v)
	}
	return m
}

func utc(us int64) string { return time.UnixMicro(us).UTC().Format(time.RFC3339Nano) }

// dumpEntries renders the entries as the reader found them: the three
// times each gives (# Time, SET timestamp, Query_time), the start picked,
// the kept header fields, the statement.
func dumpEntries(b *builder) string {
	var s strings.Builder
	for i, e := range b.entries {
		fmt.Fprintf(&s, "entry %d: run %d, file %d, thread %d (logged %v), user %q, host %q, schema %q\n", i+1, e.seg, e.file, e.thread, e.hasThread, e.user, e.host, e.schema)
		t := e.slow
		hdr, ts := "none", "none"
		if t.hasTime {
			hdr = utc(t.timeUS)
			if t.zoneless {
				hdr += " (server-local, no zone)"
			}
		}
		if t.hasTS {
			ts = utc(t.tsUS)
		}
		start := "none"
		if e.hasStart {
			start = fmt.Sprintf("%s to %s", utc(e.startUS), e.res)
		}
		fmt.Fprintf(&s, "  # Time: %s; SET timestamp: %s; Query_time: %s; start: %s\n", hdr, ts, e.dur, start)
		fmt.Fprintf(&s, "  kept fields: %s\n", strings.ReplaceAll(e.fields, "\n", " | "))
		fmt.Fprintf(&s, "  sql: %s\n", e.sql)
	}
	return s.String()
}

// TestFlavorFormatsGolden: each input of the case reads to its golden
// record (testdata/golden/slowlog-flavor-formats/NAME.txt; go test -update
// rewrites them): the entries as read, the workload file, the summary
// `autotune capture` prints.
func TestFlavorFormatsGolden(t *testing.T) {
	for _, name := range []string{caseA, caseB, caseC, caseD, caseE} {
		t.Run(name, func(t *testing.T) {
			b, w := readCase(t, ReadOptions{}, name)
			var out bytes.Buffer
			fmt.Fprintf(&out, "entries as read:\n%s\nworkload file:\n", dumpEntries(b))
			if err := Encode(&out, w); err != nil {
				t.Fatal(err)
			}
			out.WriteString("\nsummary:\n")
			Summarize(&out, "w.jsonl", w)
			golden.Check(t, filepath.Join("golden", "slowlog-flavor-formats", strings.TrimSuffix(name, ".log")+".txt"), out.Bytes())
		})
	}
}

// TestFlavorFormatsRules checks, input by input, each rule of the case's
// expected.md that concerns a reader of captured workloads.
func TestFlavorFormatsRules(t *testing.T) {
	type stmt struct {
		thread int64
		user   string
		host   string
		schema string
		sql    string
		start  string // UTC, RFC 3339
		dur    time.Duration
	}
	for _, tc := range []struct {
		name     string
		server   string // flavour and version from the header; "" for none
		stmts    []stmt
		res      time.Duration
		restarts []int // lines of the restart headers
		skipped  map[string]int
		// the three times the entries give: # Time (zone-less or not), SET timestamp, Query_time
		hdr      string
		zoneless bool
		ts       string
		fields   map[string]string // kept header fields of the first entry (unknown keys among them)
		notes    []string
		coverage string
	}{
		{name: caseA, server: "mariadb 10.8.3",
			stmts: []stmt{{4, "appuser", "localhost", "", "select sleep(15), @@version", "2022-08-13T12:04:19Z", 15000337 * time.Microsecond}},
			res:   time.Second, restarts: []int{11},
			hdr: "2022-08-13T12:04:19Z", zoneless: true, ts: "2022-08-13T12:04:19Z",
			fields:   map[string]string{"QC_hit": "No", "Rows_affected": "0", "Bytes_sent": "117", "Rows_sent": "1", "Lock_time": "0.000000"},
			coverage: "coverage: 1 entries read from 1 files, 1 statements, 0 left out; 1 restarts (a-mariadb-10.8-tabs-and-restart.log:11); time span 2022-08-13 12:04:19 to 2022-08-13 12:04:34.000337 UTC"},
		{name: caseB, server: "mariadb 10.3.34",
			stmts: []stmt{{59, "appuser", "localhost", "", "SELECT FROM_UNIXTIME(UNIX_TIMESTAMP() - variable_value) AS server_start FROM INFORMATION_SCHEMA.GLOBAL_STATUS WHERE variable_name='Uptime'", "2022-05-04T16:46:40Z", 563 * time.Microsecond}},
			res:   time.Second,
			hdr:   "2022-05-04T12:46:40Z", zoneless: true, ts: "2022-05-04T16:46:40Z",
			fields:   map[string]string{"QC_hit": "No", "Rows_affected": "0", "Bytes_sent": "85"},
			notes:    []string{`"# Time:" lines are the server's local time, UTC-04:00`},
			coverage: "coverage: 1 entries read from 1 files, 1 statements, 0 left out; 0 restarts; time span 2022-05-04 16:46:40 to 2022-05-04 16:46:40.000563 UTC"},
		{name: caseC,
			stmts:   []stmt{{4371, "appuser", "localhost", "", "SHOW GLOBAL VARIABLES", "2018-08-27T10:03:25Z", 2916 * time.Microsecond}},
			res:     time.Second,
			skipped: map[string]int{"administrator command: Ping": 1},
			ts:      "2018-08-27T10:03:25Z",
			fields:  map[string]string{"QC_hit": "No", "Rows_affected": "0", "Rows_examined": "596"},
			// the line before the first "# User@Host:" is an entry (counted), not lines left out
			coverage: "coverage: 2 entries read from 1 files, 1 statements, 1 left out; 0 restarts; time span 2018-08-27 10:03:25 to 2018-08-27 10:03:25.002916 UTC"},
		{name: caseD, server: "percona 5.6.35",
			stmts: []stmt{{2459, "appuser", "192.0.2.7", "appdb", "REPLACE INTO t_rank(user_id, rnk) SELECT u.id, @r := @r + 1 FROM t_user u JOIN (SELECT @r := 0) x WHERE u.state='active' ORDER BY u.score DESC", "2017-02-13T16:00:33Z", 26717140 * time.Microsecond}},
			res:   time.Second,
			hdr:   "2017-02-13T16:00:33Z", zoneless: true, ts: "2017-02-13T16:00:33Z",
			fields:   map[string]string{"Killed": "0", "Bytes_sent": "58", "Rows_affected": "989715"},
			coverage: "coverage: 1 entries read from 1 files, 1 statements, 0 left out; 0 restarts; time span 2017-02-13 16:00:33 to 2017-02-13 16:00:59.71714 UTC"},
		{name: caseE, server: "mysql 8.0.36",
			// the end (# Time) less Query_time, in the second SET timestamp names
			stmts: []stmt{{12, "appuser", "localhost", "", "SELECT c FROM sbtest1 WHERE id=5012", "2019-04-28T10:28:16.514437Z", 563 * time.Microsecond}},
			res:   time.Microsecond,
			hdr:   "2019-04-28T10:28:16.515Z", ts: "2019-04-28T10:28:16Z",
			fields:   map[string]string{"Rows_sent": "1", "Rows_examined": "1", "Lock_time": "0.000137"},
			coverage: "coverage: 1 entries read from 1 files, 1 statements, 0 left out; 0 restarts; time span 2019-04-28 10:28:16.514437 to 2019-04-28 10:28:16.515 UTC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, w := readCase(t, ReadOptions{}, tc.name)
			text := caseText(t, tc.name)

			// 1. Entry boundaries: the statements, nothing of the header,
			// no SET timestamp or use line among them.
			var got []stmt
			for _, c := range w.Connections {
				for _, s := range c.Statements {
					got = append(got, stmt{c.ThreadID, c.User, c.Host, s.Schema, s.SQL, w.Start.Add(s.At).UTC().Format(time.RFC3339Nano), s.Duration})
					for _, bad := range []string{"started with:", "Tcp port:", "Argument", "SET timestamp", "use ", "administrator command"} {
						if strings.Contains(s.SQL, bad) {
							t.Errorf("statement %q holds %q", s.SQL, bad)
						}
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.stmts) {
				t.Errorf("statements\n%v\nwant\n%v", got, tc.stmts)
			}
			// A header in the middle is a restart, recorded.
			var lines []int
			for _, r := range w.Restarts {
				lines = append(lines, r.Line)
				if r.File != filepath.Join(flavorCase, tc.name) || r.Server == "" {
					t.Errorf("restart %+v", r)
				}
			}
			if fmt.Sprint(lines) != fmt.Sprint(tc.restarts) {
				t.Errorf("restarts at lines %v, want %v", lines, tc.restarts)
			}

			// 2. Time formats: the three times are kept apart; the start is
			// SET timestamp, or the µs end less Query_time in its second;
			// never the zone-less header time.
			if len(b.entries) != 1 {
				t.Fatalf("%d entries, want 1", len(b.entries))
			}
			e := b.entries[0].slow
			hdr := ""
			if e.hasTime {
				hdr = utc(e.timeUS)
			}
			if hdr != tc.hdr || e.zoneless != tc.zoneless {
				t.Errorf("# Time %q (zone-less %v), want %q (%v)", hdr, e.zoneless, tc.hdr, tc.zoneless)
			}
			if !e.hasTS || utc(e.tsUS) != tc.ts {
				t.Errorf("SET timestamp %v %s, want %s", e.hasTS, utc(e.tsUS), tc.ts)
			}
			if w.Resolution != tc.res {
				t.Errorf("resolution %s, want %s", w.Resolution, tc.res)
			}

			// 3. Header fields: every variant read (thread, schema, user,
			// host above); the pairs not interpreted are kept, with their
			// values, and counted in the workload.
			kept := fieldMap(b.entries[0].fields)
			for k, v := range tc.fields {
				if kept[k] != v {
					t.Errorf("kept field %s = %q, want %q (kept %v)", k, kept[k], v, kept)
				}
				if w.Fields[k] == 0 {
					t.Errorf("workload fields %v lack %s", w.Fields, k)
				}
			}

			// 4. Session context: admin commands counted, no statement.
			if fmt.Sprint(w.Skipped) != fmt.Sprint(tc.skipped) {
				t.Errorf("skipped %v, want %v", w.Skipped, tc.skipped)
			}

			// 5. Coverage.
			if got := Coverage(w); got != tc.coverage {
				t.Errorf("coverage\n%s\nwant\n%s", got, tc.coverage)
			}
			var sum bytes.Buffer
			Summarize(&sum, "w.jsonl", w)
			if !strings.Contains(sum.String(), tc.coverage) {
				t.Errorf("summary does not print the coverage:\n%s", sum.String())
			}
			notes := strings.Join(w.Notes, "\n")
			for _, n := range tc.notes {
				if !strings.Contains(notes, n) {
					t.Errorf("notes %q do not say %q", notes, n)
				}
			}
			if strings.Contains(notes, "precede the first entry") || strings.Contains(notes, "read as UTC") {
				t.Errorf("notes %q: lines left out, or zone-less times used", notes)
			}

			// 6. Provenance: the flavour and version of the header, kept
			// through the workload file.
			server := ""
			if !w.Server.Version.IsZero() {
				server = w.Server.Version.String()
			}
			if server != tc.server || (tc.server != "" && !strings.Contains(text, w.Server.Text)) {
				t.Errorf("server %q (%q), want %q", server, w.Server.Text, tc.server)
			}
			var file bytes.Buffer
			if err := Encode(&file, w); err != nil {
				t.Fatal(err)
			}
			back, err := Decode(&file, "w.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if back.Server != w.Server || fmt.Sprint(back.Restarts) != fmt.Sprint(w.Restarts) || fmt.Sprint(back.Fields) != fmt.Sprint(w.Fields) {
				t.Errorf("read back: server %v restarts %v fields %v, want %v %v %v", back.Server, back.Restarts, back.Fields, w.Server, w.Restarts, w.Fields)
			}
		})
	}
}

// TestFlavorFormatsHeaderForms: the file header triple is metadata in any
// blanks (tabs, runs of spaces, trailing blanks, CRLF, the Windows port
// line), wherever it stands: before the first entry, alone (its first
// line cut off), right after a statement. One in the middle of a file is
// a restart that splits the connections, even of the same thread id.
func TestFlavorFormatsHeaderForms(t *testing.T) {
	a := caseText(t, caseA)
	blanks := regexp.MustCompile(`[ \t]+`)
	// headerLines applies f to the lines of a's two headers.
	headerLines := func(f func(string) string) func(string) string {
		return func(s string) string {
			lines := strings.SplitAfter(s, "\n")
			for i, l := range lines {
				if i < 3 || (i >= 10 && i < 13) {
					lines[i] = f(strings.TrimSuffix(l, "\n")) + "\n"
				}
			}
			return strings.Join(lines, "")
		}
	}
	forms := map[string]func(string) string{
		"as written":      func(s string) string { return s },
		"tabs to spaces":  headerLines(func(l string) string { return strings.ReplaceAll(l, "\t", "    ") }),
		"blanks to a tab": headerLines(func(l string) string { return blanks.ReplaceAllString(l, "\t") }),
		"trailing blanks": headerLines(func(l string) string { return l + " \t " }),
		"CRLF and trailing blanks everywhere": func(s string) string {
			return strings.ReplaceAll(s, "\n", " \t\r\n")
		},
		"Windows port line": func(s string) string {
			return strings.ReplaceAll(s, "Tcp port: 3306  Unix socket: /var/lib/mysql/mysql.sock", "TCP Port: 3306, Named Pipe: MySQL")
		},
	}
	// The restart's header followed by an entry of the same thread id.
	after := "# Time: 220813 12:05:02\n# User@Host: appuser[appuser] @ localhost []\n# Thread_id: 4  Schema: shop  QC_hit: No\n" +
		"# Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\nuse shop;\nSET timestamp=1660392302;\nselect 2;\n"
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			w := parseText(t, "a.log", form(a+after))
			if len(w.Restarts) != 1 || w.Restarts[0].Line != 11 {
				t.Errorf("restarts %+v, want one at line 11", w.Restarts)
			}
			if len(w.Connections) != 2 || w.Connections[0].ThreadID != 4 || w.Connections[1].ThreadID != 4 {
				t.Fatalf("connections %+v, want thread 4 before the restart and thread 4 after it apart", w.Connections)
			}
			if s := w.Connections[1].Statements[0]; s.SQL != "select 2" || s.Schema != "shop" || s.At != 43*time.Second {
				t.Errorf("after the restart: %+v", s)
			}
			if sql := w.Connections[0].Statements[0].SQL; strings.Contains(sql, "Argument") || strings.Contains(sql, "port") || strings.Contains(sql, "Version") {
				t.Errorf("header read as SQL: %q", sql)
			}
			if w.Server.Text != "10.8.3-MariaDB (MariaDB Server)" {
				t.Errorf("server %q", w.Server.Text)
			}
		})
	}
	// The header's second and third lines alone, after a statement and
	// before the first entry (d): metadata, not SQL, not a restart.
	d := caseText(t, caseD)
	i := strings.Index(d, "# Time:")
	w := parseText(t, "d.log", d+d[:i]+strings.Replace(d[i:], "2459", "2460", 1))
	if len(w.Restarts) != 1 {
		t.Errorf("restarts %+v, want 1 (the full header after the first entry)", w.Restarts)
	}
	cut := d + "Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\nTime                 Id Command    Argument\n" + d[i:]
	w = parseText(t, "d-cut.log", cut)
	if w.Statements() != 2 || len(w.Restarts) != 0 {
		t.Errorf("%d statements, restarts %+v; want 2, none", w.Statements(), w.Restarts)
	}
	for _, c := range w.Connections {
		for _, s := range c.Statements {
			if strings.Contains(s.SQL, "Argument") || strings.Contains(s.SQL, "Tcp port") {
				t.Errorf("header lines read as SQL: %q", s.SQL)
			}
		}
	}
}

// TestFlavorFormatsTimes: both time forms in their variants; SET timestamp
// is the start, the zone-less header time never mixed with UTC times;
// the µs end less Query_time only for the flavours that write the end.
func TestFlavorFormatsTimes(t *testing.T) {
	e := caseText(t, caseE)
	for name, hdr := range map[string]string{
		"Z":                    "# Time: 2019-04-28T10:28:16.515000Z",
		"offset":               "# Time: 2019-04-28T12:28:16.515000+02:00",
		"negative offset":      "# Time: 2019-04-28T06:28:16.515000-04:00",
		"fraction of 3 digits": "# Time: 2019-04-28T10:28:16.515Z",
	} {
		w := parseText(t, name, strings.Replace(e, "# Time: 2019-04-28T10:28:16.515000Z", hdr, 1))
		if got := w.Start.UTC().Format(time.RFC3339Nano); got != "2019-04-28T10:28:16.514437Z" || w.Resolution != time.Microsecond {
			t.Errorf("%s: start %s to %s, want 2019-04-28T10:28:16.514437Z to 1µs", name, got, w.Resolution)
		}
	}
	// A session's own SET timestamp: the server's clock wins, a note says so.
	w := parseText(t, "e-own-ts", strings.Replace(e, "SET timestamp=1556447296;", "SET timestamp=1000000000;", 1))
	if got := w.Start.UTC().Format(time.RFC3339Nano); got != "2019-04-28T10:28:16.514437Z" || !strings.Contains(strings.Join(w.Notes, "\n"), "set their own timestamp") {
		t.Errorf("own timestamp: start %s, notes %q", got, w.Notes)
	}

	// YYMMDD with a space-padded or zero-padded hour, and a fraction.
	b := caseText(t, caseB)
	for _, hdr := range []string{"# Time: 220504 12:46:40", "# Time: 220504  2:46:40", "# Time: 220504 02:46:40", "# Time: 220504 12:46:40.123456"} {
		w := parseText(t, hdr, strings.Replace(b, "# Time: 220504 12:46:40", hdr, 1))
		if got := w.Start.UTC().Format(time.RFC3339); got != "2022-05-04T16:46:40Z" {
			t.Errorf("%s: start %s, want SET timestamp's 2022-05-04T16:46:40Z", hdr, got)
		}
	}
	// An entry with only a zone-less # Time after b's: moved to UTC by the
	// offset b's entry shows (12:46:50 local = 16:46:50 UTC), not mixed.
	more := "# Time: 220504 12:46:50\n# User@Host: appuser[appuser] @ localhost []\n# Thread_id: 59  Schema:   QC_hit: No\n# Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\nSELECT 2;\n"
	w = parseText(t, "b-more", b+more)
	if st := w.Connections[0].Statements; len(st) != 2 || st[1].At != 10*time.Second {
		t.Errorf("statements %+v, want the second at 10s", st)
	}
	// No entry shows the offset: the zone-less one gets no time of its
	// own rather than one 4 h off.
	w = parseText(t, "e-more", e+strings.Replace(more, "Thread_id: 59", "Thread_id: 12", 1))
	if st := w.Connections[0].Statements; len(st) != 2 || st[1].At != 0 || !strings.Contains(strings.Join(w.Notes, "\n"), "rather than a time of another zone") {
		t.Errorf("statements %+v notes %q, want the second at the first's offset and a note", st, w.Notes)
	}
	// Only zone-less times: read as UTC, said so; the header time is the
	// start's second, not the end's (a's 15 s sleep starts at 12:04:19).
	a := caseText(t, caseA)
	w = parseText(t, "a-no-ts", strings.Replace(a, "SET timestamp=1660392259;\n", "", 1))
	if got := w.Start.UTC().Format(time.RFC3339); got != "2022-08-13T12:04:19Z" || !strings.Contains(strings.Join(w.Notes, "\n"), "read as UTC") {
		t.Errorf("start %s notes %q", got, w.Notes)
	}
}

// TestFlavorFormatsFields: header lines in any blanks, with empty values
// and keys the reader does not know, read; "Id:" after any blank.
func TestFlavorFormatsFields(t *testing.T) {
	log := "# Time: 2024-01-02T10:00:00.100000Z\n" +
		"# User@Host: app[app] @ web1 [10.0.0.5]\tId:\t77\n" +
		"# Thread_id: 77\tSchema:\tQC_hit: No  Frobs_twiddled: 3 Empty_one:\n" +
		"# Schema: shop  Last_errno: 1062  Killed: 0  New_key_2031: a,b\n" +
		"# Query_time: 0.000100  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\n" +
		"# explain: id\tselect_type\ttable\n" +
		"SET timestamp=1704189600;\n" +
		"INSERT INTO t VALUES (1);\n"
	b := newBuilder(SourceSlowLog)
	w, err := parseInto(b, []named{{"fields.log", strings.NewReader(log)}}, parseSlow, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := w.Connections[0]
	if c.ThreadID != 77 || c.User != "app" || c.Host != "web1" || c.Statements[0].Schema != "shop" || c.Statements[0].Errno != 1062 {
		t.Errorf("connection %+v", c)
	}
	kept := fieldMap(b.entries[0].fields)
	for k, v := range map[string]string{"QC_hit": "No", "Frobs_twiddled": "3", "Empty_one": "", "Killed": "0", "New_key_2031": "a,b", "explain": "id\tselect_type\ttable"} {
		if got, ok := kept[k]; !ok || got != v {
			t.Errorf("kept %s = %q (%v), want %q", k, got, ok, v)
		}
	}
	if w.Fields["Frobs_twiddled"] != 1 || w.Fields["Schema"] != 2 || w.Fields["Id"] != 1 {
		t.Errorf("fields %v", w.Fields)
	}
}

// TestFlavorFormatsSession: "use db;" sets the schema of what follows
// (the statement, and later entries without a Schema: field); SET
// timestamp is never a statement; administrator commands are counted
// wherever they stand, never replayed.
func TestFlavorFormatsSession(t *testing.T) {
	d := caseText(t, caseD)
	noSchema := strings.Replace(d, "# Schema: appdb  Last_errno: 0  Killed: 0\n", "", 1)
	next := "# Time: 170213 16:00:40\n# User@Host: appuser[appuser] @  [192.0.2.7]  Id:  2460\n" +
		"# Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0\nSET timestamp=1487001640;\nUPDATE t_user SET x = 1;\n"
	w := parseText(t, "d-use", noSchema+next)
	if got := shape(w); !strings.Contains(got, "[appdb] REPLACE INTO") || !strings.Contains(got, "[appdb] UPDATE t_user SET x = 1\n") {
		t.Errorf("schemas:\n%s", got)
	}
	if c := w.Connections[0]; c.Schema != "appdb" {
		t.Errorf("connection schema %q, want appdb", c.Schema)
	}
	c := caseText(t, caseC)
	i := strings.Index(c, "# User@Host:")
	entry := c[i:]
	// Ping as an entry's first line (c), in its place after SET timestamp,
	// and a Quit.
	ping := strings.Replace(entry, "SHOW GLOBAL VARIABLES;\n", "# administrator command: Ping;\n", 1)
	quit := strings.Replace(entry, "SHOW GLOBAL VARIABLES;\n", "# administrator command: Quit;\n", 1)
	w = parseText(t, "c-admin", c+ping+quit)
	if w.Statements() != 1 || w.Skipped["administrator command: Ping"] != 2 || w.Skipped["administrator command: Quit"] != 1 {
		t.Errorf("%d statements, skipped %v; want 1, Ping 2, Quit 1", w.Statements(), w.Skipped)
	}
	for _, s := range w.Connections[0].Statements {
		if strings.Contains(s.SQL, "SET timestamp") || strings.Contains(s.SQL, "administrator") {
			t.Errorf("statement %q", s.SQL)
		}
	}
}

// TestFlavorFormatsEntries: an entry is a run of "#" lines and the
// statement after it, whatever line the run starts with: a log written
// with log_short_format (no # Time, no # User@Host) reads; in a log that
// has # User@Host lines, an entry without one (its start cut off) is left
// out and counted.
func TestFlavorFormatsEntries(t *testing.T) {
	short := "# Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\nSET timestamp=1704189600;\nSELECT 1;\n" +
		"# Thread_id: 9  Schema: shop  QC_hit: No\n# Query_time: 0.000100  Lock_time: 0.000000  Rows_sent: 1  Rows_examined: 0\nSET timestamp=1704189601;\nSELECT 2;\n"
	w := parseText(t, "short.log", short)
	if got := shape(w); got != "connection 1 user  schema \"\"\n  [] SELECT 1\nconnection 2 user  schema \"shop\"\n  [shop] SELECT 2\n" {
		t.Errorf("short format:\n%s", got)
	}
	b := caseText(t, caseB)
	i := strings.Index(b, "# Query_time:")
	w = parseText(t, "b-cut", b[i:]+b)
	if w.Statements() != 1 || w.Skipped["entry without its # User@Host line (cut)"] != 1 {
		t.Errorf("%d statements, skipped %v", w.Statements(), w.Skipped)
	}
	if cov := Coverage(w); !strings.Contains(cov, "2 entries read from 1 files, 1 statements, 1 left out") {
		t.Errorf("coverage %q", cov)
	}
}

// TestFlavorFormatsEmpty: 0 entries from a file that is not empty is an
// error naming the file, alone or among good files; a log of only
// headers yields no workload.
func TestFlavorFormatsEmpty(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.log")
	if err := os.WriteFile(junk, []byte("Mon Aug 13 12:04:19 2022 something else\nselect 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	headers := filepath.Join(dir, "headers.log")
	a := caseText(t, caseA)
	if err := os.WriteFile(headers, []byte(a[:strings.Index(a, "# Time:")]), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(flavorCase, caseB)
	for _, tc := range []struct {
		files []string
		want  []string
	}{
		{[]string{junk}, []string{"junk.log line 1", "0 entries read"}},
		{[]string{good, junk}, []string{"junk.log line 1", "0 entries read"}},
		{[]string{headers}, []string{"headers.log", "no statement found"}},
	} {
		_, err := ReadSlowLogs(tc.files...)
		for _, s := range tc.want {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("%v: error %v does not say %q", tc.files, err, s)
			}
		}
	}
	if _, err := Capture(context.Background(), Config{SlowLogs: []string{headers}, Out: filepath.Join(dir, "w.jsonl")}); err == nil {
		t.Error("capture of a log without entries: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "w.jsonl")); err == nil {
		t.Error("capture of a log without entries wrote a workload file")
	}
}

// TestFlavorFormatsServers: logs of different servers are refused in one
// workload unless asked for: files whose headers name different servers,
// and files whose times overlap; asked, they are read with each file's
// connections apart. One server's log split in two reads as one.
func TestFlavorFormatsServers(t *testing.T) {
	dir := t.TempDir()
	b, d := filepath.Join(flavorCase, caseB), filepath.Join(flavorCase, caseD)
	if _, err := ReadSlowLogs(d, b); err == nil || !strings.Contains(err.Error(), "not one server's log") ||
		!strings.Contains(err.Error(), "10.3.34-MariaDB") || !strings.Contains(err.Error(), "5.6.35-80.0-log") {
		t.Errorf("different servers: %v", err)
	}
	cfg := Config{SlowLogs: []string{d, b}, Out: filepath.Join(dir, "w.jsonl")}
	if _, err := Capture(context.Background(), cfg); err == nil {
		t.Error("capture of two servers' logs: no error")
	}
	cfg.MixServers = true
	w, err := Capture(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Connections) != 2 || len(w.Restarts) != 0 || !strings.Contains(strings.Join(w.Notes, "\n"), "as asked") {
		t.Errorf("mixed: %d connections, restarts %+v, notes %q", len(w.Connections), w.Restarts, w.Notes)
	}
	// Two servers' logs put one after the other in one file: the second
	// goes back in time after its header.
	if _, err := parseSlowLog("ab.log", strings.NewReader(caseText(t, caseA)+caseText(t, caseB))); err == nil ||
		!strings.Contains(err.Error(), "entries of ab.log after its header at line 14 end from 2022-05-04T16:46:40.000563Z on") {
		t.Errorf("two servers in one file: %v", err)
	}

	// Without headers: two servers' logs of the same minutes overlap.
	e := caseText(t, caseE)
	body := e[strings.Index(e, "# Time:"):]
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	later := strings.NewReplacer("10:28:16.515000Z", "10:28:46.515000Z", "1556447296", "1556447326").Replace(body)
	one := write("one.log", body+later)
	two := write("two.log", strings.Replace(body, "Id:    12", "Id:    13", 1))
	if _, err := ReadSlowLogs(one, two); err == nil || !strings.Contains(err.Error(), "before the last entry of") {
		t.Errorf("overlapping logs: %v", err)
	}
	// One server's log rotated: the second file follows the first.
	first, second := write("slow.log.1", e), write("slow.log", later)
	w, err = ReadSlowLogs(first, second)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Connections) != 1 || w.Statements() != 2 || w.Connections[0].Statements[1].At != 30*time.Second {
		t.Errorf("rotated: %s", shape(w))
	}
	// Given newest first, they are refused too.
	if _, err := ReadSlowLogs(second, first); err == nil || !strings.Contains(err.Error(), "oldest first") {
		t.Errorf("newest first: %v", err)
	}
}
