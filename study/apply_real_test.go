package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/internal/teststore"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/runner/sysbench"
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
	t.Helper()
	srv := teststore.StartOn(t, s, "loose-innodb_buffer_pool_chunk_size = 2M\ninnodb_buffer_pool_size = 128M\n")
	ctx := context.Background()
	if err := srv.Exec(ctx, "CREATE DATABASE IF NOT EXISTS sbtest"); err != nil {
		t.Fatal(err)
	}
	b := applyDataset
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
	c := ApplyConfig{DSN: a.dsn, File: file, DB: filepath.Join(t.TempDir(), "trials.db"), Watch: 84 * time.Second,
		Window: 4 * time.Second, BurnIn: 3 * time.Second, Yes: true, Seed: 7,
		// Windows of seconds on a busy 2-core machine measure a neutral
		// change within about ±20 % (95 %); 30-minute watches of
		// 2-minute windows (the defaults) are judged on 5 %.
		Margin: 0.25}
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

// A good configuration (a larger buffer pool, neutral on this dataset)
// passes on the live traffic and is persisted; a harmful one (a buffer
// pool a quarter of the dataset) fails and is reverted, the runtime and
// persisted values equal to the originals afterwards.
func TestRealApplyGoodPassesHarmfulFails(t *testing.T) {
	realtest.EachServer(t, func(t *testing.T, s realtest.Server) {
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
		t.Logf("harmful: %s %s", out.Verdict.Verdict, out.Verdict.Reason)
		if run, per := a.pool(t); run != orig || per != origPersisted {
			t.Errorf("after the harmful apply: buffer pool %s (persisted %q), want the original %s (%q)", run, per, orig, origPersisted)
		}

		good := a.config(t, a.file(t, "innodb_buffer_pool_size = 256M\n"))
		out, err = Apply(ctx, good, &applyLog{t: t})
		if err != nil || out.Verdict.Verdict != result.VerdictPass || len(out.Persisted) == 0 {
			t.Fatalf("good: %+v, persisted %v, err %v; want a pass, persisted", out.Verdict, out.Persisted, err)
		}
		t.Logf("good: %s %s", out.Verdict.Verdict, out.Verdict.Reason)
		if run, per := a.pool(t); run != "268435456" || (per != "268435456" && per != "256M") {
			t.Errorf("after the good apply: buffer pool %s (persisted %q), want 256M both", run, per)
		}
	})
}
