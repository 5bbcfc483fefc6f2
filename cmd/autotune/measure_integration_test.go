package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
)

// TestMeasurementRealServer runs a short real study with two thread
// levels, confirmation, baseline rechecks and a final A/B pair, then checks
// what trials.db holds: per-level scores with status and CPU metrics from
// the running server, per-second history list samples, the detected
// warm-up, the score components, and the links of the re-measurements.
func TestMeasurementRealServer(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "sb")
	dbPath := filepath.Join(dir, "trials.db")
	args := []string{"search", "--minimize=false", "--study", "m", "--db", dbPath, "--workdir", work, "--trials", "2",
		"--tables", "2", "--table-size", "5000", "--threads", "2,4", "--warmup", "1s", "--duration", "3s", "--seed", "5",
		"--confirm", "1", "--recheck-every", "1", "--ab-pairs", "1", "--ab-share", "0", "--strategy", "tpe", "--warm-start=false"}
	p := startAutotune(t, bin, args...)
	code, out := p.wait(t, 8*time.Minute)
	if code != 0 {
		t.Fatalf("search exit %d:\n%s", code, out)
	}
	assertNoServer(t, work)

	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT number, kind, state, repeat_of, confirm_needed, warmup_s, warmup_capped, pen_variance, levels FROM trials ORDER BY number`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	kinds := map[string]int{}
	for rows.Next() {
		var (
			n, need, capped int
			kind, state     string
			repeatOf        sql.NullInt64
			warm, variance  sql.NullFloat64
			levels          sql.NullString
		)
		if err := rows.Scan(&n, &kind, &state, &repeatOf, &need, &warm, &capped, &variance, &levels); err != nil {
			t.Fatal(err)
		}
		kinds[kind]++
		if state != "complete" {
			t.Fatalf("trial %d (%s) %s", n, kind, state)
		}
		switch kind {
		case "sampled":
			if need != 1 || repeatOf.Valid {
				t.Fatalf("sampled trial %d: confirm_needed %d repeat_of %v", n, need, repeatOf)
			}
		case "confirm", "recheck", "ab-best", "ab-base":
			if !repeatOf.Valid {
				t.Fatalf("%s trial %d without repeat_of", kind, n)
			}
		}
		// 3 s blocks cannot be judged before the 3 s maximum (3 x the
		// 1 s --warmup): not steady, window after 3 s.
		if !warm.Valid || warm.Float64 != 3 || capped != 1 || !variance.Valid {
			t.Fatalf("trial %d: warm-up %v capped %d variance %v", n, warm, capped, variance)
		}
		var lv []struct {
			Threads   int                 `json:"threads"`
			Score     *float64            `json:"score"`
			Window    int                 `json:"window_s"`
			HLLSource string              `json:"hll_source"`
			Metrics   map[string]*float64 `json:"metrics"`
		}
		if err := json.Unmarshal([]byte(levels.String), &lv); err != nil {
			t.Fatalf("trial %d levels %q: %v", n, levels.String, err)
		}
		if len(lv) != 2 || lv[0].Threads != 2 || lv[1].Threads != 4 || lv[0].Score == nil || lv[1].Window != 3 {
			t.Fatalf("trial %d levels %s", n, levels.String)
		}
		for _, l := range lv {
			if l.HLLSource != "status:Innodb_history_list_length" {
				t.Fatalf("trial %d: history list source %q", n, l.HLLSource)
			}
			for _, k := range []string{"rows_read_ps", "bp_read_requests_ps", "threads_running_mean", "cpu_user", "cpu_idle", "restarted"} {
				if l.Metrics[k] == nil {
					t.Fatalf("trial %d, %d threads: metric %s missing: %v", n, l.Threads, k, l.Metrics)
				}
			}
			if *l.Metrics["restarted"] != 0 || *l.Metrics["rows_read_ps"] <= 0 {
				t.Fatalf("trial %d: restarted %g rows_read_ps %g", n, *l.Metrics["restarted"], *l.Metrics["rows_read_ps"])
			}
		}
	}
	if kinds["baseline"] != 1 || kinds["sampled"] != 1 || kinds["recheck"] != 1 {
		t.Fatalf("kinds %v, want the baseline, one sampled trial and one recheck after it", kinds)
	}
	if kinds["confirm"] == 1 && kinds["ab-best"]+kinds["ab-base"] != 2 && !strings.Contains(out, "demoted") {
		t.Fatalf("a confirmed best needs one A/B pair: %v\n%s", kinds, out)
	}
	// Warm trials: every restarted trial waited for the buffer pool load
	// of the snapshot's page list, and recorded the wait.
	var phases string
	if err := db.QueryRow(`SELECT phases FROM trials WHERE number = 0`).Scan(&phases); err != nil {
		t.Fatal(err)
	}
	var ph map[string]float64
	if err := json.Unmarshal([]byte(phases), &ph); err != nil {
		t.Fatal(err)
	}
	if v, ok := ph["preload"]; !ok || v < 0 || v > 60 {
		t.Fatalf("baseline phases %s: want a preload wait", phases)
	}
	// ... and every trial loaded it: none ran cold.
	var total, loaded int
	if err := db.QueryRow(`SELECT count(*), sum(pool_load = 'loaded') FROM trials`).Scan(&total, &loaded); err != nil {
		t.Fatal(err)
	}
	if total == 0 || loaded != total {
		cold, _ := db.Query(`SELECT number, pool_load FROM trials WHERE pool_load <> 'loaded'`)
		var why []string
		for cold != nil && cold.Next() {
			var n int
			var load string
			_ = cold.Scan(&n, &load)
			why = append(why, fmt.Sprintf("trial %d: %q", n, load))
		}
		t.Fatalf("%d of %d trials loaded the buffer pool's page list: %s", loaded, total, strings.Join(why, "; "))
	}
	var n, withHLL, threads4 int
	if err := db.QueryRow(`SELECT count(*), count(hll), sum(threads = 4) FROM samples`).Scan(&n, &withHLL, &threads4); err != nil {
		t.Fatal(err)
	}
	if n == 0 || withHLL < n/2 || threads4 == 0 {
		t.Fatalf("samples: %d, %d with history list length, %d at 4 threads", n, withHLL, threads4)
	}

	cnf := filepath.Join(dir, "best.cnf")
	p = startAutotune(t, bin, "export", "--study", "m", "--db", dbPath, "-o", cnf)
	if code, out := p.wait(t, time.Minute); code != 0 {
		t.Fatalf("export exit %d:\n%s", code, out)
	}
	body, _ := os.ReadFile(cnf)
	if !strings.Contains(string(body), "[mysqld]") {
		t.Fatalf("export:\n%s", body)
	}
	if kinds["ab-best"] > 0 && !strings.Contains(string(body), "only 1 vs 1 interleaved A/B runs, too few") {
		t.Fatalf("export without the A/B gain:\n%s", body)
	}
}

// TestNoiseWithBenchCmd runs `autotune noise` on a real server with a
// --bench-cmd that is sysbench itself, so the placeholder and parsing path
// of custom commands meets a real server.
func TestNoiseWithBenchCmd(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	p := startAutotune(t, bin, "noise", "--workdir", filepath.Join(dir, "sb"), "--repeats", "2",
		"--tables", "2", "--table-size", "5000", "--threads", "4", "--warmup", "1s", "--duration", "3s",
		"--bench-cmd", "sysbench oltp_read_only --db-driver=mysql --mysql-socket={socket} --mysql-user={user} --mysql-db={db} --tables={tables} --table-size={table_size} --threads={threads} --time={seconds} --report-interval=1 run")
	code, out := p.wait(t, 5*time.Minute)
	if code != 0 {
		t.Fatalf("noise exit %d:\n%s", code, out)
	}
	for _, want := range []string{"run 1: warm-up", "run 2: warm-up", "raw mean tps: mean", "score:        mean", "CV"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
	assertNoServer(t, filepath.Join(dir, "sb"))
}

// TestVerifyRealServer verifies a small my.cnf against the server defaults
// on a real sandboxed server: two interleaved pairs through the engine,
// each run preloaded, and a verdict with the documented exit code (0
// verified, 3 not: with 3 s windows either may come out).
func TestVerifyRealServer(t *testing.T) {
	t.Parallel()
	realtest.EachServer(t, testVerifyRealServer)
}

func testVerifyRealServer(t *testing.T, s realtest.Server) {
	bin := buildBinary(t)
	var server []string
	if s.Mysqld != "" {
		server = []string{"--mysqld", s.Mysqld}
	}
	dir := t.TempDir()
	cnf := filepath.Join(dir, "candidate.cnf")
	if err := os.WriteFile(cnf, []byte("# a candidate\n[mysqld]\ninnodb_buffer_pool_size = 256M\n[client]\nport = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startAutotune(t, bin, append([]string{"verify", cnf, "--workdir", filepath.Join(dir, "sb"), "--pairs", "2",
		"--tables", "2", "--table-size", "5000", "--threads", "2", "--warmup", "1s", "--duration", "3s"}, server...)...)
	code, out := p.wait(t, 6*time.Minute)
	if code != 0 && code != 3 {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
	for _, want := range []string{"innodb_buffer_pool_size=256M", "pair 1 file", "pair 1 baseline", "pair 2 baseline", "pair 2 file",
		"2 of 2 pairs complete", "gain over the baseline: ", "interleaved pairs", "verdict: "} {
		if !strings.Contains(out, want) {
			t.Fatalf("verify output lacks %q:\n%s", want, out)
		}
	}
	// Pair 1 runs the file first, pair 2 the baseline first.
	if strings.Index(out, "pair 1 file") > strings.Index(out, "pair 1 baseline") || strings.Index(out, "pair 2 baseline") > strings.Index(out, "pair 2 file") {
		t.Fatalf("pairs not interleaved A B, B A:\n%s", out)
	}
	if (code == 0) != strings.Contains(out, "verdict: VERIFIED") {
		t.Fatalf("exit %d does not match the verdict:\n%s", code, out)
	}
	assertNoServer(t, filepath.Join(dir, "sb"))

	// With --max-p95 below any latency, every run is over the limit: its
	// pair does not count, and the verdict is NOT VERIFIED (exit 3).
	p = startAutotune(t, bin, append([]string{"verify", cnf, "--workdir", filepath.Join(dir, "sb"), "--pairs", "2", "--max-p95", "0.001",
		"--tables", "2", "--table-size", "5000", "--threads", "2", "--warmup", "1s", "--duration", "3s"}, server...)...)
	code, out = p.wait(t, 6*time.Minute)
	for _, want := range []string{"pair 1 file", "OVER --max-p95: the pair does not count", "0 of 2 pairs complete",
		"verdict: NOT VERIFIED (exit code 3): the file's p95 latency exceeded --max-p95 in 2 of its runs"} {
		if code != 3 || !strings.Contains(out, want) {
			t.Fatalf("verify --max-p95 0.001: exit %d, want 3 and %q:\n%s", code, want, out)
		}
	}
	assertNoServer(t, filepath.Join(dir, "sb"))

	// A file that changes nothing is a usage error (exit 2), not a verdict.
	same := filepath.Join(dir, "same.cnf")
	if err := os.WriteFile(same, []byte("[client]\nport = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p = startAutotune(t, bin, append([]string{"verify", same, "--workdir", filepath.Join(dir, "sb"), "--tables", "2", "--table-size", "5000",
		"--threads", "2", "--warmup", "1s", "--duration", "3s"}, server...)...)
	if code, out := p.wait(t, 3*time.Minute); code != 2 || !strings.Contains(out, "sets nothing that differs from the baseline") {
		t.Fatalf("no-op file: exit %d:\n%s", code, out)
	}
}

// TestVerifyArmsRealServer compares two files and the defaults in one
// interleaved run: every round measures each arm once, the order rotated
// round by round, and the table states each arm's gain over the defaults
// and over the reference.
func TestVerifyArmsRealServer(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.cnf"), filepath.Join(dir, "b.cnf")
	if err := os.WriteFile(a, []byte("[mysqld]\ninnodb_buffer_pool_size = 256M\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("[mysqld]\ninnodb_buffer_pool_size = 256M\ninnodb_io_capacity = 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startAutotune(t, bin, "verify", a, b, "--reference", b, "--workdir", filepath.Join(dir, "sb"), "--pairs", "2",
		"--tables", "2", "--table-size", "5000", "--threads", "2", "--warmup", "1s", "--duration", "3s")
	code, out := p.wait(t, 8*time.Minute)
	if code != 0 && code != 3 {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
	// Round 1: a, b, defaults; round 2: b, defaults, a.
	order := []string{"round 1 " + a, "round 1 " + b, "round 1 the server defaults", "round 2 " + b, "round 2 the server defaults", "round 2 " + a}
	last := -1
	for _, o := range order {
		i := strings.Index(out, o+":")
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of the rotated order %v:\n%s", o, order, out)
		}
		last = i
	}
	for _, want := range []string{"vs the server defaults (95 % CI)", "vs " + b + " (95 % CI)", b + " (reference)", "2/2", "verdict: "} {
		if !strings.Contains(out, want) {
			t.Fatalf("verify output lacks %q:\n%s", want, out)
		}
	}
	if (code == 0) != strings.Contains(out, "verdict: VERIFIED") {
		t.Fatalf("exit %d does not match the verdict:\n%s", code, out)
	}
	assertNoServer(t, filepath.Join(dir, "sb"))
}
