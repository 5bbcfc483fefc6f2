package workload

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/golden"
)

// parseSlowLog and parseGeneralLog read one log from r; name is the file
// name used in errors and in Workload.Files.
func parseSlowLog(name string, r io.Reader) (*Workload, error) {
	return parseLogs(SourceSlowLog, []named{{name, r}}, parseSlow, ReadOptions{})
}

func parseGeneralLog(name string, r io.Reader) (*Workload, error) {
	return parseLogs(SourceGeneralLog, []named{{name, r}}, parseGeneral, ReadOptions{})
}

// readLog reads a testdata log by the kind its name says.
func readLog(t testing.TB, name string) *Workload {
	t.Helper()
	read := ReadSlowLogs
	if strings.Contains(name, "general") {
		read = func(paths ...string) (*Workload, error) { return ReadGeneralLogsWith(ReadOptions{}, paths...) }
	}
	w, err := read(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestParseGolden: every log of testdata/ reads to its golden workload
// file (testdata/golden/NAME.jsonl; go test -update rewrites them).
func TestParseGolden(t *testing.T) {
	logs, _ := filepath.Glob("testdata/*.log")
	if len(logs) < 10 {
		t.Fatalf("%d logs in testdata, want the samples of every flavour", len(logs))
	}
	for _, p := range logs {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Encode(&b, readLog(t, name)); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("golden", strings.TrimSuffix(name, ".log")+".jsonl"), b.Bytes())
		})
	}
}

// shape is what logs of one workload must agree on: per connection (in
// order of their first statement), the statements with their schemas.
func shape(w *Workload) string {
	var b strings.Builder
	for _, c := range w.Connections {
		fmt.Fprintf(&b, "connection %d user %s schema %q\n", c.ID, c.User, c.Schema)
		for _, s := range c.Statements {
			fmt.Fprintf(&b, "  [%s] %s\n", s.Schema, s.SQL)
		}
	}
	return b.String()
}

// TestFlavoursReadToTheSameStatements: the "shop" workload, as MariaDB
// 10.11 wrote it on this machine (slow and general log), and as MySQL
// 5.7/8.0, Percona Server 5.7/8.0 and MariaDB 11.4 write it (logs made by
// hand from their documented formats and the samples cited in
// testdata/README.md), reads to the same connections, statements and
// schemas; the logs of one timeline agree on the offsets to their
// precision. The sysbench run's slow and general logs (prepared
// statements over the binary protocol, a restart) agree too.
func TestFlavoursReadToTheSameStatements(t *testing.T) {
	ref := readLog(t, "mariadb-10.11-slow.log")
	for _, name := range []string{"mariadb-10.11-general.log", "mariadb-11.4-slow.log", "mysql-5.7-slow.log", "mysql-5.7-general.log",
		"mysql-8.0-slow.log", "mysql-8.0-general.log", "percona-5.7-slow.log", "percona-8.0-slow.log"} {
		w := readLog(t, name)
		if got, want := shape(w), shape(ref); got != want {
			t.Errorf("%s reads to\n%s\nwant (as mariadb-10.11-slow.log)\n%s", name, got, want)
		}
	}
	// One timeline: the hand-made logs; the µs ones agree exactly, the
	// others within their precision.
	timed := readLog(t, "mysql-8.0-general.log")
	for _, name := range []string{"mariadb-11.4-slow.log", "mysql-5.7-slow.log", "mysql-5.7-general.log", "mysql-8.0-slow.log", "percona-5.7-slow.log", "percona-8.0-slow.log"} {
		w := readLog(t, name)
		for i, c := range w.Connections {
			for j, s := range c.Statements {
				want := timed.Connections[i].Statements[j].At
				if d := s.At - want; d < -w.Resolution || d > w.Resolution {
					t.Errorf("%s connection %d statement %d at %s, want %s ± %s", name, c.ID, j+1, s.At, want, w.Resolution)
				}
			}
		}
	}
	slow, gen := readLog(t, "mariadb-10.11-sysbench-slow.log"), readLog(t, "mariadb-10.11-sysbench-general.log")
	if shape(slow) != shape(gen) {
		t.Errorf("sysbench logs differ:\nslow\n%s\ngeneral\n%s", shape(slow), shape(gen))
	}
	if len(slow.Connections) != 5 {
		t.Errorf("sysbench: %d connections, want 5 (two runs of the server reuse thread ids)", len(slow.Connections))
	}
}

// TestBadLogs: empty, foreign and malformed logs are errors that name the
// file and line and say what was expected.
func TestBadLogs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		general bool
		log     string
		want    []string
	}{
		{"empty slow log", false, "", []string{"slow query log x.log: no statement found", `"# Time:"`, "long_query_time=0"}},
		{"empty general log", true, "", []string{"general query log x.log: no statement found", "ID Command<TAB>Argument"}},
		{"header only", false, "/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\nTcp port: 3306  Unix socket: /tmp/s\nTime                 Id Command    Argument\n",
			[]string{"no statement found"}},
		{"text", false, "hello\nworld\n", []string{"x.log line 1: want an entry starting with \"# Time:\""}},
		{"general log as slow", false, "2024-01-02T10:00:00.100000Z\t    4 Query\tSELECT 1\n", []string{"line 1", "use --from-general-log"}},
		{"slow log as general", true, "# Time: 2024-01-02T10:00:00.100000Z\n# User@Host: a[a] @ localhost []  Id: 4\nSELECT 1;\n", []string{"line 1", "use --from-slow-log"}},
		{"bad time", false, "# Time: yesterday\n# User@Host: a[a] @ localhost []\nSELECT 1;\n", []string{"x.log line 1: # Time:", "YYMMDD H:MM:SS"}},
		{"bad month", false, "# Time: 241302 10:00:00\n# User@Host: a[a] @ localhost []\nSELECT 1;\n", []string{"line 1", "241302 10:00:00"}},
		{"bad id", false, "# Time: 2024-01-02T10:00:00.100000Z\n# User@Host: a[a] @ localhost []  Id: four\nSELECT 1;\n", []string{"line 2", `Id "four"`}},
		{"bad query time", false, "# User@Host: a[a] @ localhost []  Id: 4\n# Query_time: fast  Lock_time: 0\nSELECT 1;\n", []string{"line 2", "Query_time", "want seconds"}},
		{"admin only", false, "# User@Host: a[a] @ localhost []  Id: 4\n# Query_time: 0.1\n# administrator command: Quit;\n",
			[]string{"no client statement", "1 administrator command: Quit"}},
		{"general: time without command", true, "2024-01-02T10:00:00.100000Z\t    4 Query\tSELECT 1\n2024-01-02T10:00:00.200000Z\tgarbage\n",
			[]string{"x.log line 2: want \"ID Command<TAB>Argument\" after the time"}},
		{"general: only connects", true, "2024-01-02T10:00:00.100000Z\t    4 Connect\ta@b on  using Socket\n2024-01-02T10:00:00.200000Z\t    4 Quit\t\n",
			[]string{"no client statement", "1 Connect", "1 Quit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parse := parseSlowLog
			if tc.general {
				parse = parseGeneralLog
			}
			w, err := parse("x.log", strings.NewReader(tc.log))
			if err == nil {
				t.Fatalf("no error; workload %+v", w)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
	if _, err := ReadSlowLogs("testdata/nonexistent.log"); err == nil || !strings.Contains(err.Error(), "nonexistent.log") {
		t.Errorf("missing file: %v", err)
	}
}

// TestLogQuirks covers forms the samples do not: a log cut in the middle
// of an entry at either end, a slow log without thread ids, CRLF lines,
// a "# Time:" with the User@Host on the same line (percona-toolkit
// slow062), SQL EXECUTE replaced by its expanded statement, USE sent as a
// query, a connection that began before the general log.
func TestLogQuirks(t *testing.T) {
	slow := "FROM t WHERE a = 1;\n" + // the tail of an entry cut by a rotation
		"# Time: 071218 11:48:27 # User@Host: [SQL_SLAVE] @  []\r\n" +
		"# Query_time: 0.000012  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0\r\n" +
		"SET timestamp=1197996507;\r\n" +
		"BEGIN;\r\n" +
		"# User@Host: app[app] @ web1 [10.0.0.5]\n" +
		"# Query_time: 0.5  Lock_time: 0\n" +
		"use `my db`;\n" +
		"SET last_insert_id=3,insert_id=4,timestamp=1197996508.250000;\n" +
		"SELECT 1\n" +
		"# not a header: part of the statement\n" +
		"FROM dual;\n" +
		"# User@Host: app[app] @ web1 [10.0.0.5]\n" +
		"# Query_time: 0.1\n" +
		"SET timestamp=1197996509;\n" +
		"use `my db`;\n" + // a USE of the schema already current: the statement
		"# User@Host: app[app] @ web1 [10.0.0.5]\n" +
		"# Query_time: 0.1\n" // cut before its statement
	w, err := parseSlowLog("quirks.log", strings.NewReader(slow))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shape(w), "connection 1 user SQL_SLAVE schema \"\"\n  [] BEGIN\n"+
		"connection 2 user app schema \"my db\"\n  [my db] SELECT 1\n# not a header: part of the statement\nFROM dual\n  [my db] use `my db`\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if c := w.Connections[1]; c.Host != "web1" || c.Statements[0].At != 1250*time.Millisecond || c.Statements[0].Duration != 500*time.Millisecond {
		t.Errorf("connection 2 %+v", c)
	}
	notes := strings.Join(w.Notes, "\n")
	for _, want := range []string{"lines 1-1 precede the first entry", "the last entry has no statement", "carry no thread id"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q do not say %q", notes, want)
		}
	}

	gen := "\t\t    7 Query\tUPDATE t SET a = 1\n" + // began before the log
		"240102  9:00:00\t    8 Connect\tapp@10.0.0.5 on shop using TCP/IP\n" +
		"\t\t    8 Query\tUSE `other`\n" +
		"\t\t    8 Query\tPREPARE s FROM 'SELECT ?'\n" +
		"\t\t    8 Prepare\tSELECT ?\n" +
		"\t\t    8 Query\tEXECUTE s USING @a\n" +
		"\t\t    8 Execute\tSELECT 5\n" +
		"240102  9:00:01\t    8 Execute\tSELECT 6\n" + // binary protocol: no Query before it
		"\t\t    8 Query\tCREATE USER u IDENTIFIED BY 'pw'\n"
	w, err = parseGeneralLog("quirks-general.log", strings.NewReader(gen))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shape(w), "connection 1 user  schema \"\"\n  [] UPDATE t SET a = 1\n"+
		"connection 2 user app schema \"other\"\n  [other] USE `other`\n  [other] PREPARE s FROM 'SELECT ?'\n  [other] SELECT 5\n  [other] SELECT 6\n  [other] CREATE USER u IDENTIFIED BY '***'\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if at := w.Connections[1].Statements[3].At; at != time.Second {
		t.Errorf("SELECT 6 at %s, want 1s", at)
	}
}

func TestParseLogTime(t *testing.T) {
	base := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2024-01-02T03:04:05.123456Z":      base.Add(123456 * time.Microsecond),
		"2024-01-02T11:04:05.000001+08:00": base.Add(time.Microsecond),
		"2024-01-02T03:04:05Z":             base,
		"240102  3:04:05":                  base,
		"240102 03:04:05":                  base,
		"240102 3:04:05":                   base,
		"240102 03:04:05.5":                base.Add(500 * time.Millisecond),
		"991231 23:59:59":                  time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC),
	} {
		us, _, err := parseLogTime([]byte(in))
		if err != nil || !time.UnixMicro(us).UTC().Equal(want) {
			t.Errorf("parseLogTime(%q) = %s, %v; want %s", in, time.UnixMicro(us).UTC(), err, want)
		}
	}
	for _, bad := range []string{"", "2024-01-02T03:04:05", "24010 3:04:05", "240102 3:4:05", "240132 03:04:05", "240102 25:00:00", "240102 03:04:05.1234567"} {
		if _, _, err := parseLogTime([]byte(bad)); err == nil {
			t.Errorf("parseLogTime(%q): no error", bad)
		}
	}
}

// benchLog repeats the sysbench slow (or general) log of testdata until
// it holds about n statements.
func benchLog(b *testing.B, name string, n int) ([]byte, int) {
	b.Helper()
	one, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	w := readLog(b, name)
	per := w.Statements()
	reps := (n + per - 1) / per
	return bytes.Repeat(one, reps), per * reps
}

// BenchmarkParseSlowLog reports the slow log reader's rate in statements
// per second on the real sysbench oltp_read_write log of testdata,
// repeated to 100k statements.
func BenchmarkParseSlowLog(b *testing.B) {
	benchParse(b, "mariadb-10.11-sysbench-slow.log", parseSlowLog)
}

// BenchmarkParseGeneralLog is the same for the general log.
func BenchmarkParseGeneralLog(b *testing.B) {
	benchParse(b, "mariadb-10.11-sysbench-general.log", parseGeneralLog)
}

func benchParse(b *testing.B, name string, parse func(string, io.Reader) (*Workload, error)) {
	log, n := benchLog(b, name, 100000)
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := parse(name, bytes.NewReader(log))
		if err != nil || w.Statements() != n {
			b.Fatalf("%v: %d statements, want %d", err, w.Statements(), n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "statements/s")
}

// TestRotatedSlowLogs: a file rotated without a header goes on with the
// previous file's schema; both read as one log.
func TestRotatedSlowLogs(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "slow.log.1")
	second := filepath.Join(dir, "slow.log")
	entry := "# Time: 2024-01-02T10:00:0%d.000100Z\n# User@Host: app[app] @ localhost []  Id:     4\n# Query_time: 0.000100  Lock_time: 0 Rows_sent: 0  Rows_examined: 0\n%sSET timestamp=1704189600;\nSELECT %d;\n"
	if err := os.WriteFile(first, []byte(fmt.Sprintf(entry, 1, "use shop;\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, []byte(fmt.Sprintf(entry, 2, "", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := ReadSlowLogs(first, second)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shape(w), "connection 1 user app schema \"shop\"\n  [shop] SELECT 1\n  [shop] SELECT 2\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if at := w.Connections[0].Statements[1].At; at != time.Second {
		t.Errorf("second statement at %s, want 1s", at)
	}
}
