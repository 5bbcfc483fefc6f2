package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/runner/sysbench"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// applyServer is a running server with a sysbench dataset, as a live
// server autotune did not start, and its live traffic.
type applyServer struct {
	srv     *teststore.Server
	dsn     string
	bench   sysbench.Bench
	include string
	mysql   bool
}

// applyDataset is the live server's data and workload: 4 tables of
// 50,000 rows (about 55 MB in InnoDB), held whole by the default 128M
// buffer pool, read uniformly (a quarter of it cached misses three reads
// in four; sysbench's default special distribution would keep its hot
// rows in any pool).
var applyDataset = sysbench.Bench{Workload: "oltp_read_only", Tables: 4, TableSize: 50000, Rand: sysbench.Distribution{Type: sysbench.RandUniform}}

// startApplyServer starts s with small buffer pool chunks (so a runtime
// resize to a small pool takes effect) and loads the dataset.
func startApplyServer(t *testing.T, s realtest.Server) *applyServer {
	return startApplyServerWith(t, s, applyDataset)
}

// smallDataset is the data of the tests that judge no cache effect (the
// kills, the tripwire, bad input): quick to load.
var smallDataset = sysbench.Bench{Workload: "oltp_read_only", Tables: 1, TableSize: 10000, Rand: sysbench.Distribution{Type: sysbench.RandUniform}}

// startApplyServerWith is startApplyServer with dataset b.
func startApplyServerWith(t *testing.T, s realtest.Server, b sysbench.Bench) *applyServer {
	t.Helper()
	srv := teststore.StartOn(t, s, "loose-innodb_buffer_pool_chunk_size = 2M\ninnodb_buffer_pool_size = 128M\n")
	ctx := context.Background()
	if err := srv.Exec(ctx, "CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
		t.Fatal(err)
	}
	if err := b.Prepare(ctx, srv.Server); err != nil {
		t.Fatal(err)
	}
	a := &applyServer{srv: srv, dsn: "root@unix(" + srv.Socket + ")/", bench: b, include: filepath.Join(srv.Dir, "autotune-apply.cnf"),
		mysql: srv.Binary.Flavor == runner.MySQL}
	return a
}

// traffic runs sysbench against the server at rate transactions per
// second until the test ends or stop is called.
func (a *applyServer) traffic(t *testing.T, rate int) (stop func()) {
	t.Helper()
	args := a.bench.Args(a.srv.Server, false, "--threads=4", fmt.Sprintf("--rate=%d", rate), "--time=3600", "--report-interval=0", "run")
	cmd := exec.Command("sysbench", args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := false
	stop = func() {
		if !done {
			done = true
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}

func (a *applyServer) file(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "apply.cnf")
	if err := os.WriteFile(p, []byte("[mysqld]\n"+body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func (a *applyServer) config(t *testing.T, file string) ApplyConfig {
	c := ApplyConfig{DSN: a.dsn, File: file, DB: filepath.Join(t.TempDir(), "trials.db"), Watch: 30 * time.Second,
		Window: 3 * time.Second, BurnIn: 2 * time.Second, Yes: true, Seed: 7,
		Margin: 0.05}
	if !a.mysql {
		c.IncludeFile = a.include
	}
	return c
}

// pool returns the running buffer pool size and the persisted one ("" none).
func (a *applyServer) pool(t *testing.T) (running, persisted string) {
	t.Helper()
	ctx := context.Background()
	ex, err := runner.OpenExisting(a.dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ex.Globals(ctx, []string{"innodb_buffer_pool_size"})
	if err != nil {
		t.Fatal(err)
	}
	running = g["innodb_buffer_pool_size"]
	if a.mysql {
		persisted, _ = ex.QueryString(ctx, "SELECT VARIABLE_VALUE FROM performance_schema.persisted_variables WHERE VARIABLE_NAME = 'innodb_buffer_pool_size'")
		return running, persisted
	}
	b, err := os.ReadFile(a.include)
	if err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "innodb_buffer_pool_size = "); ok {
				persisted = v
			}
		}
	}
	return running, persisted
}

type applyLog struct {
	t     *testing.T
	steps []string
}

func (l *applyLog) Emit(e result.Event) {
	switch e := e.(type) {
	case result.ApplyStep:
		l.steps = append(l.steps, e.Kind+": "+e.Message)
		l.t.Logf("%s: %s", e.Kind, e.Message)
	case result.ApplyJudged:
		l.t.Logf("verdict %s: %s", e.Verdict.Verdict, e.Verdict.Reason)
	case result.ApplyTripped:
		l.t.Logf("TRIPWIRE %s: %s (%s)", e.Name, e.Value, e.Limit)
	}
}

// A harmful configuration (a buffer pool a quarter of the dataset) fails
// on the live traffic and is reverted, the runtime and persisted values
// equal to the originals afterwards; a good one (a pool that holds the
// data, on a server running the quarter pool) passes at the default 5 %
// margin and is persisted.
func TestRealApplyGoodPassesHarmfulFails(t *testing.T) {
	realtest.EachServer(t, func(t *testing.T, s realtest.Server) {
		t.Parallel()
		a := startApplyServer(t, s)
		a.traffic(t, 150)
		orig, origPersisted := a.pool(t)
		ctx := context.Background()

		harmful := a.config(t, a.file(t, "innodb_buffer_pool_size = 16M\n"))
		log := &applyLog{t: t}
		out, err := Apply(ctx, harmful, log)
		var nk NotKept
		if !errors.As(err, &nk) || !out.Reverted || (out.Verdict.Verdict != result.VerdictFail && out.Verdict.Verdict != result.VerdictTripwire) {
			t.Fatalf("harmful: %+v, err %v; want it failed and reverted", out.Verdict, err)
		}
		t.Logf("%s harmful: %s %s", s.Name, out.Verdict.Verdict, out.Verdict.Reason)
		if run, per := a.pool(t); run != orig || per != origPersisted {
			t.Errorf("after the harmful apply: buffer pool %s (persisted %q), want the original %s (%q)", run, per, orig, origPersisted)
		}

		// The good configuration is the one a study of this server would
		// export: the live server now runs the quarter pool (as set by
		// hand), and the file gives back a pool that holds the data.
		ex, err := runner.OpenExisting(a.dsn, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := ex.SetGlobal(ctx, "innodb_buffer_pool_size", "16777216"); err != nil {
			t.Fatal(err)
		}
		waitResized(t, ex)
		good := a.config(t, a.file(t, "innodb_buffer_pool_size = 128M\n"))
		out, err = Apply(ctx, good, &applyLog{t: t})
		t.Logf("%s good: %s %s", s.Name, out.Verdict.Verdict, out.Verdict.Reason)
		if err != nil || out.Verdict.Verdict != result.VerdictPass || len(out.Persisted) == 0 {
			t.Fatalf("good: %+v, persisted %v, err %v; want a pass, persisted", out.Verdict, out.Persisted, err)
		}
		if run, per := a.pool(t); run != "134217728" || (per != "134217728" && per != "128M") {
			t.Errorf("after the good apply: buffer pool %s (persisted %q), want 128M both", run, per)
		}
	})
}

// waitResized waits until the server's buffer pool resize has ended.
func waitResized(t *testing.T, ex *runner.Existing) {
	t.Helper()
	for i := 0; i < 600; i++ {
		busy, err := ex.ResizeInProgress(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if busy == "" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the buffer pool resize did not end within a minute")
}

// A neutral change (innodb_io_capacity, which a read-only load does not
// exercise) under a load doubled in the middle of the watch (a second
// client at the same rate) is not judged a fail: the arms alternate, so
// the change of load falls on both. AUTOTUNE_APPLY_RUNS repeats it (the
// false-fail rate of docs/apply.md); each run's verdict is logged.
func TestRealApplyNeutralUnderDoubledLoad(t *testing.T) {
	realtest.Require(t)
	t.Parallel()
	runs := 1
	if n, err := strconv.Atoi(os.Getenv("AUTOTUNE_APPLY_RUNS")); err == nil && n > 0 {
		runs = n
	}
	a := startApplyServer(t, realtest.Host)
	ctx := context.Background()
	tally := map[string]int{}
	for i := 0; i < runs; i++ {
		stop := a.traffic(t, 100)
		value := []string{"300", "600"}[i%2]
		c := a.config(t, a.file(t, "innodb_io_capacity = "+value+"\n"))
		c.Seed = uint64(i + 1)
		c.Margin = 0.05
		second := make(chan func(), 1)
		go func() {
			time.Sleep(c.Watch * 2 / 5)
			second <- a.traffic(t, 100)
		}()
		out, err := Apply(ctx, c, &applyLog{t: t})
		(<-second)()
		stop()
		tally[out.Verdict.Verdict]++
		t.Logf("run %d: %s %s", i+1, out.Verdict.Verdict, out.Verdict.Reason)
		var nk NotKept
		if err != nil && !errors.As(err, &nk) {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if out.Verdict.Verdict == result.VerdictFail && runs == 1 {
			t.Errorf("a neutral change under a doubled load was judged a fail: %s", out.Verdict.Reason)
		}
	}
	t.Logf("verdicts of %d runs: %v", runs, tally)
}

// A tripwire puts the old settings back at once, within the window, and
// the output names it: here memory, its limit set below what the server
// holds.
func TestRealApplyTripwireMemory(t *testing.T) {
	realtest.Require(t)
	t.Parallel()
	a := startApplyServerWith(t, realtest.Host, smallDataset)
	a.traffic(t, 100)
	ctx := context.Background()
	ex, err := runner.OpenExisting(a.dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	h, err := ex.ReadHealth(ctx)
	if err != nil || h.RSSBytes <= 0 {
		t.Fatalf("the server's memory: %+v, %v", h, err)
	}
	orig, _ := a.pool(t)
	c := a.config(t, a.file(t, "innodb_buffer_pool_size = 256M\n"))
	c.MaxMemory = h.RSSBytes * 8 / 10
	t0 := time.Now()
	out, err := Apply(ctx, c, &applyLog{t: t})
	var nk NotKept
	if !errors.As(err, &nk) || out.Verdict.Verdict != result.VerdictTripwire || !strings.Contains(out.Verdict.Tripwire, "memory") || !out.Reverted {
		t.Fatalf("%+v, err %v: want the memory tripwire, reverted", out.Verdict, err)
	}
	for _, w := range out.Windows {
		if w.Arm == "new" {
			t.Errorf("a window of the new settings was measured before the tripwire fired (%s after the start): want it within the first", time.Since(t0))
		}
	}
	if run, _ := a.pool(t); run != orig {
		t.Errorf("buffer pool %s after the tripwire, want the original %s", run, orig)
	}
}

// Bad input changes nothing and says what is wrong: an unreachable
// server, a user who may not SET GLOBAL, a value the server refuses (the
// settings set before it are put back), a file measured on another
// server, a second apply on a server while one runs.
func TestRealApplyBadInput(t *testing.T) {
	realtest.Require(t)
	t.Parallel()
	a := startApplyServerWith(t, realtest.Host, smallDataset)
	ctx := context.Background()
	ex, err := runner.OpenExisting(a.dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	before, err := ex.Globals(ctx, []string{"innodb_io_capacity", "optimizer_switch"})
	if err != nil {
		t.Fatal(err)
	}
	unchanged := func(what string) {
		t.Helper()
		now, err := ex.Globals(ctx, []string{"innodb_io_capacity", "optimizer_switch"})
		if err != nil || now["innodb_io_capacity"] != before["innodb_io_capacity"] || now["optimizer_switch"] != before["optimizer_switch"] {
			t.Errorf("%s: the server changed: %v, was %v (%v)", what, now, before, err)
		}
	}
	good := a.file(t, "innodb_io_capacity = 333\n")

	c := a.config(t, good)
	c.DSN = "root@unix(" + filepath.Join(t.TempDir(), "none.sock") + ")/"
	if _, err := Apply(ctx, c, &applyLog{t: t}); err == nil || !strings.Contains(err.Error(), "cannot read the server") {
		t.Errorf("unreachable server: %v", err)
	}

	if err := a.srv.Exec(ctx, "CREATE USER 'reader'@'localhost'", "GRANT SELECT, PROCESS ON *.* TO 'reader'@'localhost'"); err != nil {
		t.Fatal(err)
	}
	c = a.config(t, good)
	c.DSN = "reader@unix(" + a.srv.Socket + ")/"
	if _, err := Apply(ctx, c, &applyLog{t: t}); err == nil || !strings.Contains(err.Error(), "may not change global variables") {
		t.Errorf("a user without the privilege: %v", err)
	}
	unchanged("no privilege")

	c = a.config(t, a.file(t, "innodb_io_capacity = 333\noptimizer_switch = 'no_such_flag=on'\n"))
	out, err := Apply(ctx, c, &applyLog{t: t})
	if err == nil || !strings.Contains(err.Error(), "the server refused optimizer_switch") || !out.Reverted {
		t.Errorf("a value the server refuses: %v (reverted %v)", err, out.Reverted)
	}
	unchanged("refused value")

	other := storage.Fingerprint{{"server", "9.7.4-2"}, {"target", "sandbox"}}
	exp := filepath.Join(t.TempDir(), "best.cnf")
	body := "# measured under fingerprint " + other.Key() + ` server="9.7.4-2" target="sandbox"` + "\n[mysqld]\ninnodb_io_capacity = 333\n"
	if err := os.WriteFile(exp, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if a.mysql {
		t.Fatal("the bad-input test runs on MariaDB")
	}
	if _, err := Apply(ctx, a.config(t, exp), &applyLog{t: t}); !IsUsage(err) || !strings.Contains(err.Error(), "was measured on mysql 9.7") {
		t.Errorf("a file of another server: %v", err)
	}
	unchanged("another server's file")

	// A second apply while one runs.
	a.traffic(t, 50)
	first := a.config(t, good)
	first.Watch, first.Window = 10*time.Minute, time.Minute
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := Apply(cctx, first, &applyLog{t: t}); done <- err }()
	deadline := time.Now().Add(time.Minute)
	for {
		now, _ := ex.Globals(ctx, []string{"innodb_io_capacity"})
		if now["innodb_io_capacity"] == "333" || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	second := a.config(t, good)
	second.DB = first.DB
	if _, err := Apply(ctx, second, &applyLog{t: t}); err == nil || !strings.Contains(err.Error(), "another autotune apply runs on this server") {
		t.Errorf("a second apply: %v", err)
	}
	cancel()
	<-done
	unchanged("the first apply, interrupted")
}

// TestApplyChildProcess is the apply that TestRealApplyKilledAtRandom
// kills: it runs only as that test's child (AUTOTUNE_APPLY_CHILD holds
// its configuration as JSON).
func TestApplyChildProcess(t *testing.T) {
	raw := os.Getenv("AUTOTUNE_APPLY_CHILD")
	if raw == "" {
		t.Skip("the child of TestRealApplyKilledAtRandom")
	}
	var c ApplyConfig
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		t.Fatal(err)
	}
	_, err := Apply(context.Background(), c, &applyLog{t: t})
	var nk NotKept
	if err != nil && !errors.As(err, &nk) {
		t.Fatal(err)
	}
}

// SIGKILL of apply at random points (6 on each of two servers) always leaves
// the server, after the next apply's recovery, on its original settings
// (runtime and persisted) or on the new ones persisted after a pass,
// never a mix; and no apply stays pending.
func TestRealApplyKilledAtRandom(t *testing.T) {
	realtest.EachServer(t, func(t *testing.T, s realtest.Server) {
		if s.Name == "mariadb-11.8" {
			t.Skip("the persist paths are MariaDB's include file (mariadb-10.11) and MySQL's SET PERSIST (mysql-9.7)")
		}
		t.Parallel()
		a := startApplyServerWith(t, s, smallDataset)
		a.traffic(t, 50)
		ctx := context.Background()
		db := filepath.Join(t.TempDir(), "trials.db")
		ex, err := runner.OpenExisting(a.dsn, "")
		if err != nil {
			t.Fatal(err)
		}
		state := func() (run, persisted string) {
			g, err := ex.Globals(ctx, []string{"innodb_io_capacity"})
			if err != nil {
				t.Fatal(err)
			}
			if a.mysql {
				persisted, _ = ex.QueryString(ctx, "SELECT VARIABLE_VALUE FROM performance_schema.persisted_variables WHERE VARIABLE_NAME = 'innodb_io_capacity'")
			} else if b, err := os.ReadFile(a.include); err == nil {
				for _, l := range strings.Split(string(b), "\n") {
					if v, ok := strings.CutPrefix(l, "innodb_io_capacity = "); ok {
						persisted = v
					}
				}
			}
			return g["innodb_io_capacity"], persisted
		}
		rng := rand.New(rand.NewPCG(11, 13))
		kept, reverted, started := 0, 0, 0
		const kills = 6 // on each of two servers
		for i := 0; i < kills; i++ {
			run0, per0 := state()
			value := "300"
			if run0 == value {
				value = "600"
			}
			c := a.config(t, a.file(t, "innodb_io_capacity = "+value+"\n"))
			c.DB, c.Watch, c.Window, c.BurnIn, c.Margin, c.Seed = db, 5*time.Second, 500*time.Millisecond, 300*time.Millisecond, 0.9, uint64(i+1) // a wide margin: some pass, so that kills also fall on the persist
			raw, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestApplyChildProcess$", "-test.v")
			cmd.Env = append(os.Environ(), "AUTOTUNE_APPLY_CHILD="+string(raw))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			delay := time.Duration(50+rng.IntN(11000)) * time.Millisecond
			time.Sleep(delay)
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()

			rc := a.config(t, "")
			rc.DB, rc.RecoverOnly = db, true
			out, err := Apply(ctx, rc, &applyLog{t: t})
			if err != nil {
				t.Fatalf("kill %d (after %s): recovery: %v", i, delay, err)
			}
			st, err := storage.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			as, err := st.Applies(ctx, "")
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			last := storage.ApplyRecord{}
			for _, r := range as {
				if storage.PendingPhase(r.Phase) {
					t.Errorf("kill %d: apply %d still %s after the recovery", i, r.ID, r.Phase)
				}
				last = r
			}
			run1, per1 := state()
			if last.Source == c.File {
				started++
			}
			passed := last.Phase == storage.ApplyPassed && last.Source == c.File
			switch {
			case passed && run1 == value && per1 == value:
				kept++
			case !passed && run1 == run0 && per1 == per0:
				reverted++
			default:
				t.Errorf("kill %d (after %s, apply %d %s): runtime %s, persisted %q; before %s, %q; new %s: a mix", i, delay, last.ID, last.Phase, run1, per1, run0, per0, value)
			}
			t.Logf("kill %d after %s: apply %d ended %s (%s); recovered %v", i, delay, last.ID, last.Phase, last.Reason, out.Recovered)
		}
		t.Logf("%d kills: %d left the new settings persisted after a pass, %d the original ones; %d applies had begun", kills, kept, reverted, started)
		if started < kills/2 {
			t.Errorf("only %d of the %d killed applies had begun: the kills did not exercise apply", started, kills)
		}
	})
}
