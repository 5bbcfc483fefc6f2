package study

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/runner/replay"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/workload"
)

// replayDump is a tiny logical dump as mariadb-dump writes one: its own
// database, conditional comments, a trigger in a DELIMITER block (which
// only the mysql client runs).
const replayDump = `/*!40101 SET NAMES utf8mb4 */;
CREATE DATABASE /*!32312 IF NOT EXISTS*/ ` + "`shop`" + `;
USE ` + "`shop`" + `;
CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(8,2), sold INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO items VALUES (1,'tea',3.50,0),(2,'cake',4.00,0),(3,'jam',2.25,0);
CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, item INT NOT NULL) ENGINE=InnoDB;
DELIMITER ;;
/*!50003 CREATE TRIGGER sold AFTER INSERT ON orders FOR EACH ROW UPDATE items SET sold = sold + 1 WHERE id = NEW.item */;;
DELIMITER ;
`

// replayWorkload is three captured connections on schema shop: reads, a
// writer, and order transactions, plus a statement a replay leaves out.
func replayWorkload() *workload.Workload {
	ms := time.Millisecond
	st := func(at time.Duration, sql string) workload.Statement {
		return workload.Statement{At: at, SQL: sql, Schema: "shop", Duration: ms}
	}
	return &workload.Workload{Source: workload.SourceSlowLog, Files: []string{"slow.log"}, Resolution: time.Microsecond,
		Start: time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC),
		Connections: []workload.Connection{
			{ID: 1, ThreadID: 10, Schema: "shop", Statements: []workload.Statement{
				st(0, "SELECT name, price FROM items WHERE id = 1"), st(10*ms, "SELECT SUM(sold) FROM items"),
				st(20*ms, "SET GLOBAL innodb_io_capacity = 100")}},
			{ID: 2, ThreadID: 11, Schema: "shop", Statements: []workload.Statement{
				st(5*ms, "UPDATE items SET price = price + 0.01 WHERE id = 2")}},
			{ID: 3, ThreadID: 12, Schema: "shop", Statements: []workload.Statement{
				st(5*ms, "BEGIN"), st(6*ms, "INSERT INTO orders (item) VALUES (3)"), st(7*ms, "COMMIT"),
				st(8*ms, "SELECT COUNT(*) FROM orders")}},
		}}
}

// TestReplayThroughTheEngine loads a tiny dump into the sandbox and
// replays a tiny workload as fast as possible for a few seconds per trial
// through the engine; then replays it on an existing server, reads only.
func TestReplayThroughTheEngine(t *testing.T) {
	realtest.EachServer(t, testReplayThroughTheEngine)
}

func testReplayThroughTheEngine(t *testing.T, srv realtest.Server) {
	server := teststore.StartOn(t, srv, "")
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "at-replay")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	dump, wl := filepath.Join(dir, "dump.sql"), filepath.Join(dir, "shop.jsonl.gz")
	if err := os.WriteFile(dump, []byte(replayDump), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := workload.Write(wl, replayWorkload()); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Study: "replay", DB: filepath.Join(dir, "t.db"), Trials: 2, Workdir: filepath.Join(dir, "sb"), Strategy: "random",
		Bench: BenchSettings{Driver: "replay", Workload: "replay:" + wl, Data: dump, Threads: []int{16}},
		Measure: Measure{Warmup: 2 * time.Second, Duration: 4 * time.Second, Lambda: 0.5, Objective: "tps", DipShare: 0.5,
			SteadyBlock: time.Second, SteadySpread: 0.5, SteadyTrend: 0.5},
		Space: Space{Durability: "strict", MemoryBudget: "75%", Apply: ApplyRestart, Mysqld: srv.Mysqld}}
	if err := Search(ctx, cfg, silent{}); err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	trials := storedTrials(t, cfg.DB, cfg.Study)
	for _, tr := range trials {
		if tr.State != search.Complete {
			t.Fatalf("trial %d: %s %s", tr.Number, tr.State, tr.Failure)
		}
		if tr.MeanTPS <= 0 || len(tr.Levels) != 1 || tr.Levels[0].Threads != 3 {
			t.Errorf("trial %d: %.0f statements/s, levels %+v: want throughput at 3 connections (one per captured connection)", tr.Number, tr.MeanTPS, tr.Levels)
		}
		s := summaryOf(t, tr)
		if s.Connections != 3 || s.Kinds[replay.KindInsert] == nil || s.Kinds[replay.KindUpdate] == nil || s.Loops == 0 {
			t.Errorf("trial %d summary %+v: want 3 connections, inserts and updates, loops", tr.Number, s)
		}
		if s.Errors != 0 {
			t.Errorf("trial %d: %d errors %v", tr.Number, s.Errors, s.FirstErrors)
		}
		if s.Skipped[replay.SkipServerWide] != 1 {
			t.Errorf("trial %d: skipped %v, want the SET GLOBAL", tr.Number, s.Skipped)
		}
	}

	// The same workload as prepared statements: every DML statement
	// prepared once per connection; none fails.
	ps := cfg
	ps.Study, ps.Trials, ps.Bench.Prepared = "replay-prepared", 1, true
	if err := Search(ctx, ps, silent{}); err != nil {
		t.Fatalf("prepared: %v", err)
	}
	for _, tr := range storedTrials(t, ps.DB, ps.Study) {
		s := summaryOf(t, tr)
		if tr.State != search.Complete || s.Errors != 0 || s.Prepared == 0 || s.Prepared > s.Statements {
			t.Errorf("prepared trial %d: %s %s, %d of %d statements prepared, errors %v: want all complete, some prepared, no errors",
				tr.Number, tr.State, tr.Failure, s.Prepared, s.Statements, s.FirstErrors)
		}
	}

	// The same workload on a server autotune does not own: reads only.
	if _, err := exec.LookPath("mariadb"); err != nil {
		// A skip CI would also take is a failure under AUTOTUNE_REQUIRE_REAL.
		realtest.Program(t, fmt.Errorf("no mariadb client to load the existing server: %w", err))
	}
	load := exec.Command("mariadb", "--no-defaults", "-uroot", "--socket="+server.Socket)
	load.Stdin, _ = os.Open(dump)
	if out, err := load.CombinedOutput(); err != nil {
		t.Fatalf("load the existing server: %v: %s", err, out)
	}
	ex := cfg
	ex.Study, ex.Bench.Data = "replay-existing", ""
	ex.Existing = &ExistingServer{DSN: "root@unix(" + server.Socket + ")/", ConfigFile: filepath.Join(dir, "include.cnf"), NotSandbox: true}
	ex.Trials = 1
	if err := Search(ctx, ex, silent{}); err != nil {
		t.Fatalf("existing server: %v", err)
	}
	tr := storedTrials(t, ex.DB, ex.Study)[0]
	s := summaryOf(t, tr)
	if tr.State != search.Complete || s.Kinds[replay.KindInsert] != nil || s.Kinds[replay.KindUpdate] != nil || s.Kinds[replay.KindSelect] == nil {
		t.Errorf("existing server: %s, kinds %v: want reads only", tr.State, s.Kinds)
	}
	if s.Skipped[replay.SkipNotRead] != 2 || s.Connections != 2 {
		t.Errorf("existing server: skipped %v on %d connections: want the UPDATE and the INSERT left out, the writer's connection with them", s.Skipped, s.Connections)
	}
}

func storedTrials(t *testing.T, db, study string) []search.Trial {
	t.Helper()
	st, err := storage.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	trials, err := st.Trials(context.Background(), study)
	if err != nil || len(trials) == 0 {
		t.Fatalf("%s: %v, %d trials", study, err, len(trials))
	}
	return trials
}

func summaryOf(t *testing.T, tr search.Trial) replay.Summary {
	t.Helper()
	var s replay.Summary
	if err := json.Unmarshal([]byte(tr.Summary), &s); err != nil {
		t.Fatalf("trial %d summary %q: %v", tr.Number, tr.Summary, err)
	}
	return s
}
