package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/autotune/autotune/workload"
)

// fakeClock is a clock that moves only when a session sleeps or a
// statement takes time: pacing is checked without real time.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// fakeConn records what a session runs, at which fake time; a statement
// takes cost and fails with failures[sql] when set.
type fakeConn struct {
	clock    *fakeClock
	cost     time.Duration
	failures map[string]error
	log      []string
	at       []time.Duration
	start    time.Time
	stopAt   int // cancel after this many statements (0: never)
	cancel   context.CancelFunc
}

func (f *fakeConn) Exec(ctx context.Context, sql string, args ...any) error {
	f.log = append(f.log, fmt.Sprintf("%s%v", sql, args))
	f.at = append(f.at, f.clock.now().Sub(f.start))
	f.clock.advance(f.cost)
	if f.stopAt > 0 && len(f.log) >= f.stopAt {
		f.cancel()
	}
	return f.failures[sql]
}

func (f *fakeConn) Use(ctx context.Context, schema string) error {
	f.log = append(f.log, "USE "+schema)
	f.at = append(f.at, f.clock.now().Sub(f.start))
	if f.stopAt > 0 && len(f.log) >= f.stopAt {
		f.cancel()
	}
	return nil
}

func testSession() session {
	w := &workload.Workload{Resolution: time.Microsecond, Connections: []workload.Connection{{ID: 1, Schema: "shop", Statements: []workload.Statement{
		{At: 0, SQL: "SELECT 1", Schema: "shop"},
		{At: 100 * time.Millisecond, SQL: "INSERT INTO t VALUES (1)", Schema: "shop"},
		{At: 300 * time.Millisecond, SQL: "UPDATE t SET a = 2", Schema: "other"},
		{At: 300 * time.Millisecond, SQL: "SET GLOBAL innodb_io_capacity = 100", Schema: "other"},
		{At: 400 * time.Millisecond, SQL: "SELECT c FROM t WHERE id = ?", Schema: "other", Params: "n"},
	}}}}
	s, _ := buildPlan(w, false, false)
	return s[0]
}

// playFake runs one session on a fake connection until it has run n
// statements (USE included; the run ends during the n-th).
func playFake(t *testing.T, speed float64, period, cost time.Duration, n int, failures map[string]error) (*fakeConn, *player) {
	t.Helper()
	clock := &fakeClock{t: time.Unix(1000, 0)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &fakeConn{clock: clock, cost: cost, failures: failures, start: clock.now(), stopAt: n, cancel: cancel}
	p := newPlayer(nil, speed, period, time.Second)
	p.now = clock.now
	p.sleep = func(ctx context.Context, d time.Duration) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		clock.advance(d)
		return nil
	}
	if err := p.play(ctx, c, testSession(), clock.now()); err != nil {
		t.Fatal(err)
	}
	return c, p
}

func TestPlayKeepsOrderSchemaAndCapturedPace(t *testing.T) {
	// Two passes at twice the captured pace: the second starts at
	// period/speed = 500ms.
	c, p := playFake(t, 2, time.Second, 10*time.Millisecond, 10, nil)
	wantLog := []string{"USE shop", "SELECT 1[]", "INSERT INTO t VALUES (1)[]", "USE other", "UPDATE t SET a = 2[]", "SELECT c FROM t WHERE id = ?[0]",
		"USE shop", "SELECT 1[]", "INSERT INTO t VALUES (1)[]", "USE other"}
	if !slices.Equal(c.log, wantLog) {
		t.Fatalf("ran\n%q\nwant\n%q", c.log, wantLog)
	}
	ms := time.Millisecond
	wantAt := []time.Duration{0, 0, 50 * ms, 150 * ms, 150 * ms, 200 * ms, 500 * ms, 500 * ms, 550 * ms, 650 * ms}
	if !slices.Equal(c.at, wantAt) {
		t.Errorf("statement starts %v, want %v (captured offsets / speed, each pass period/speed later)", c.at, wantAt)
	}
	if s := p.summary(); s.Loops != 1 || s.Statements != 6 {
		t.Errorf("loops %d statements %d, want 1 and 6", s.Loops, s.Statements)
	}
}

func TestPlayBackToBackAndLateLatency(t *testing.T) {
	// Back to back: no waits, each statement right after the previous.
	c, _ := playFake(t, 0, time.Second, 10*time.Millisecond, 4, nil)
	ms := time.Millisecond
	if want := []time.Duration{0, 0, 10 * ms, 20 * ms}; !slices.Equal(c.at, want) {
		t.Errorf("back to back: starts %v, want %v", c.at, want)
	}
	// At the captured pace with statements slower than the gaps, a
	// statement starts when the previous one ends, late: the INSERT
	// (scheduled at 100ms) starts at 150ms and ends at 300ms. Its latency
	// is its own 150ms; its 50ms lateness is counted apart.
	_, p := playFake(t, 1, time.Second, 150*time.Millisecond, 4, nil)
	if s := p.summary(); s.LateMS != 25 {
		t.Errorf("mean lateness %g ms, want 25 (0 and 50)", s.LateMS)
	}
	if p.sec.ok != 2 || !slices.Equal(p.sec.latMS, []float64{150, 150}) {
		t.Errorf("latencies %v, want [150 150] (each statement's own)", p.sec.latMS)
	}
}

func TestPlayCountsErrorsByKindAndNumber(t *testing.T) {
	fail := map[string]error{
		"INSERT INTO t VALUES (1)": &mysql.MySQLError{Number: 1062, Message: "Duplicate entry '1' for key 'PRIMARY'"},
		"UPDATE t SET a = 2":       errors.New("i/o timeout"),
	}
	_, p := playFake(t, 0, time.Second, time.Millisecond, 13, fail)
	s := p.summary()
	want := map[string]KindCount{KindSelect: {Statements: 4}, KindInsert: {Statements: 2, Errors: 2}, KindUpdate: {Statements: 2, Errors: 2}}
	for k, w := range want {
		if got := s.Kinds[k]; got == nil || *got != w {
			t.Errorf("kind %s: %+v, want %+v", k, got, w)
		}
	}
	if s.Errors != 4 || s.Errnos["1062"] != 2 || s.Errnos["client"] != 2 {
		t.Errorf("errors %d by number %v, want 4: 1062 x2, client x2", s.Errors, s.Errnos)
	}
	if s.FirstErrors["1062"] != "Duplicate entry '?' for key '?'" { // the dump's values are masked
		t.Errorf("first 1062 message %q", s.FirstErrors["1062"])
	}
	iv := p.take(1, 1)
	if iv.TPS != 4 || iv.ErrPS != 4 || iv.Reads != 4 || iv.Writes != 0 || iv.LatMS == nil {
		t.Errorf("interval %+v: want 4 ok (reads), 4 errors, a latency", iv)
	}
	if again := p.take(2, 1); again.TPS != 0 || again.LatMS != nil {
		t.Errorf("the next second starts empty: %+v", again)
	}
}

func TestPlayStopsOnLostConnection(t *testing.T) {
	fail := map[string]error{"SELECT 1": mysql.ErrInvalidConn}
	clock := &fakeClock{t: time.Unix(1000, 0)}
	c := &fakeConn{clock: clock, failures: fail, start: clock.now()}
	p := newPlayer(nil, 0, time.Second, time.Second)
	err := p.play(context.Background(), c, testSession(), clock.now())
	if err == nil || len(c.log) != 2 {
		t.Fatalf("err %v after %q: want the session to stop at the lost connection", err, c.log)
	}
}

func TestSkipReason(t *testing.T) {
	for _, tc := range []struct {
		sql      string
		readOnly bool
		want     string
	}{
		{"SELECT c FROM sbtest1 WHERE id=5", true, ""},
		{"select * from t for update", true, SkipNotRead},
		{"SELECT a INTO OUTFILE '/tmp/x' FROM t", true, SkipNotRead},
		{"INSERT INTO t VALUES (1)", false, ""},
		{"INSERT INTO t VALUES (1)", true, SkipNotRead},
		{"BEGIN", true, ""},
		{"START TRANSACTION", false, ""},
		{"START SLAVE", false, SkipServerWide},
		{"SET GLOBAL innodb_io_capacity=100", false, SkipServerWide},
		{"SET @@global.max_connections=10", false, SkipServerWide},
		{"SET SESSION sql_mode=''", true, ""},
		{"SET autocommit=0", false, ""},
		{"KILL 42", false, SkipServerWide},
		{"FLUSH TABLES", false, SkipServerWide},
		{"SHUTDOWN", false, SkipServerWide},
		{"LOAD DATA LOCAL INFILE 'x' INTO TABLE t", false, SkipLocalFile},
		{"LOAD DATA INFILE 'x' INTO TABLE t", false, ""},
		{"SHOW TABLES", true, ""},
		// Read-only on a server autotune does not own: nothing that lifts
		// the session's guards or changes accounts gets through.
		{"SET PASSWORD = ?", true, SkipNotRead},
		{"SET PASSWORD FOR 'app'@'%' = PASSWORD('x')", true, SkipNotRead},
		{"SET SESSION TRANSACTION READ WRITE", true, SkipNotRead},
		{"SET TRANSACTION ISOLATION LEVEL READ COMMITTED", true, SkipNotRead},
		{"SET transaction_read_only = 0", true, SkipNotRead},
		{"SET @@session.tx_read_only=OFF", true, SkipNotRead},
		{"SET max_statement_time=0", true, SkipNotRead},
		{"SET STATEMENT max_statement_time=0 FOR DELETE FROM t", true, SkipNotRead},
		{"SET DEFAULT ROLE admin", true, SkipNotRead},
		{"SET ROLE admin", true, SkipNotRead},
		{"START TRANSACTION READ WRITE", true, SkipNotRead},
		{"START TRANSACTION READ ONLY", true, ""},
		{"SET NAMES utf8mb4", true, ""},
		{"SET LOCAL sql_mode=''", true, ""},
		{"/* app */ UPDATE t SET a=1", true, SkipNotRead},
		{"   ", false, SkipEmpty},
	} {
		if got := skipReason(workload.Statement{SQL: tc.sql}, tc.readOnly); got != tc.want {
			t.Errorf("skipReason(%q, readOnly %v) = %q, want %q", tc.sql, tc.readOnly, got, tc.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	v := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	if got := percentile(v, 0.95); got != 19 {
		t.Errorf("p95 of 1..20 = %g, want 19 (nearest rank)", got)
	}
	if got := percentile([]float64{3}, 0.95); got != 3 {
		t.Errorf("p95 of one value = %g", got)
	}
}

func TestPlayDoesNotCountTheStatementTheRunEndsIn(t *testing.T) {
	// The run ends during the first SELECT (log entry 2): nothing counted.
	_, p := playFake(t, 0, time.Second, time.Millisecond, 2, nil)
	if s := p.summary(); s.Statements != 0 || p.sec.ok != 0 {
		t.Errorf("statements %d, second %d: want none counted", s.Statements, p.sec.ok)
	}
}

func TestMaskQuoted(t *testing.T) {
	for in, want := range map[string]string{
		"Duplicate entry 'alice@example.com' for key 'email'":    "Duplicate entry '?' for key '?'",
		`Duplicate entry 'o\'brien' for key 'PRIMARY'`:           "Duplicate entry '?' for key '?'",
		"Lock wait timeout exceeded; try restarting transaction": "Lock wait timeout exceeded; try restarting transaction",
	} {
		if got := maskQuoted(in); got != want {
			t.Errorf("maskQuoted(%q) = %q, want %q", in, got, want)
		}
	}
}
