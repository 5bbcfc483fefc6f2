package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/report"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study"
)

// TestRealStudyProgressReportExport runs a short real study with --json
// progress on a sandboxed MariaDB (6 trials of 2 s warm-up + 4 s
// measurement on 2 x 5000 rows), checks the event stream, renders the
// report and opens it in headless Chromium, shows and lists the study, and
// applies the SQL export of a measured config to a fresh server, reading
// every value back.
func TestRealStudyProgressReportExport(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	realtest.Chromium(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "sb")
	dbPath := filepath.Join(dir, "trials.db")
	// Knobs that never fail on their own: every trial must complete.
	spaceFile := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(spaceFile, []byte("include = [\"innodb_buffer_pool_size\", \"innodb_flush_neighbors\", \"innodb_io_capacity\", \"innodb_adaptive_hash_index\"]\n[knobs.innodb_buffer_pool_size]\nmax = \"512M\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startAutotune(t, bin, "search", "--minimize=false", "--study", "rep", "--db", dbPath, "--workdir", work, "--trials", "6", "--space", spaceFile,
		"--tables", "2", "--table-size", "5000", "--threads", "4", "--warmup", "2s", "--duration", "4s", "--seed", "5", "--json",
		"--steady-block", "1s", // warm-up decided within the short run, so the measuring phase shows live
		"--confirm", "0", "--recheck-every", "0", "--ab-pairs", "0", "--prune=false") // every trial complete
	code, out := p.wait(t, 8*time.Minute)
	if code != 0 {
		t.Fatalf("search exit %d:\n%s", code, out)
	}
	assertNoServer(t, work)
	ctx := context.Background()
	checkEventStream(t, out, dbPath)

	// The report, as Chromium renders it.
	repDir := filepath.Join(dir, "report")
	var msg bytes.Buffer
	if err := runReport(ctx, &reportOptions{study: "rep", db: dbPath, out: repDir}, &msg, time.Now()); err != nil {
		t.Fatal(err)
	}
	rep, err := buildReport(ctx, dbPath, "rep", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dom, shot := renderInChromium(t, filepath.Join(repDir, report.HTMLFile), 6000)
	checkRendered(t, dom, shot, len(rep.Images))

	// show and studies read the same study.
	var show bytes.Buffer
	o := &showOptions{study: "rep", db: dbPath, samples: true}
	if err := o.validate([]string{"best"}); err != nil {
		t.Fatal(err)
	}
	if err := runShow(ctx, o, &show); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(show.String(), "per-second samples (") || !strings.Contains(show.String(), "phases: restore") {
		t.Errorf("show best:\n%s", show.String())
	}
	var studies bytes.Buffer
	if err := runStudies(ctx, &studiesOptions{db: dbPath}, &studies); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^rep +6 +6 +0 +`).MatchString(studies.String()) {
		t.Errorf("studies:\n%s", studies.String())
	}

	// SET GLOBAL export of a sampled trial (all knobs set) on a fresh server.
	db, _, trials, err := study.LoadStudy(ctx, dbPath, "rep")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	pick := -1
	for _, tr := range trials {
		if tr.State == search.Complete && tr.Kind != search.Baseline && len(tr.Params) > 0 {
			pick = tr.Number
			break
		}
	}
	if pick < 0 {
		t.Fatalf("no complete trial besides the baseline among %d trials", len(trials))
	}
	var sqlOut bytes.Buffer
	if err := runExport(ctx, &exportOptions{study: "rep", db: dbPath, format: "sql", trial: pick}, &sqlOut, time.Now()); err != nil {
		t.Fatal(err)
	}
	applySQLExport(t, work, sqlOut.String())
}

// checkEventStream checks the --json output of a finished study: one JSON
// object per line; each complete trial went through the five phases in
// order, with one sample event per sample stored; a summary event with
// the conclusion (its text as the plain output prints it) comes before the
// last event, done, with the trial count and the best trial.
func checkEventStream(t *testing.T, out, dbPath string) {
	t.Helper()
	phases := map[int][]string{}
	samples := map[int]int{}
	states := map[int]string{}
	var last, summary map[string]any
	for i, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Event  string `json:"event"`
			Trial  *int   `json:"trial"`
			Phase  string `json:"phase"`
			Result *struct {
				State string `json:"state"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("line %d is not a JSON event: %v\n%s", i+1, err, l)
		}
		last = nil // a fresh map per line: summary keeps its own
		_ = json.Unmarshal([]byte(l), &last)
		switch e.Event {
		case "phase":
			phases[*e.Trial] = append(phases[*e.Trial], e.Phase)
		case "sample":
			samples[*e.Trial]++
		case "trial":
			states[*e.Trial] = e.Result.State
		case "summary":
			summary = last
		}
	}
	if len(states) != 6 {
		t.Fatalf("%d trial events, want 6:\n%s", len(states), out)
	}
	for n, st := range states {
		if st != "complete" {
			continue
		}
		if got := strings.Join(phases[n], ","); got != "restoring,starting,preloading,warming up,measuring,stopping" {
			t.Errorf("trial %d phases: %s", n, got)
		}
		db, err := study.OpenExisting(dbPath)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := db.Samples(context.Background(), "rep", n)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if samples[n] != len(stored) || len(stored) < measure.MinMeasureSamples {
			t.Errorf("trial %d: %d sample events, %d samples stored", n, samples[n], len(stored))
		}
	}
	if last["event"] != "done" || last["reason"] != string(search.StopTrials) {
		t.Fatalf("last event: %v", last)
	}
	status, _ := last["status"].(map[string]any)
	if status["finished"] != 6.0 || status["best"] == nil {
		t.Errorf("done status: %v", status)
	}
	sum, _ := summary["summary"].(map[string]any)
	text, _ := summary["text"].(string)
	conclusion, _ := sum["conclusion"].(string)
	if conclusion == "" || !strings.Contains(text, "conclusion: "+conclusion) || sum["best_trial"] == nil {
		t.Errorf("summary event: %v", summary)
	}
}

// applySQLExport starts a server on the study's snapshot with the server
// defaults, runs every statement of the SQL export, and checks that the
// server then runs with the exported values.
func applySQLExport(t *testing.T, work, export string) {
	t.Helper()
	ctx := context.Background()
	binary, err := runner.FindServer(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	sb, err := runner.OpenSandbox(work, binary)
	if err != nil {
		t.Fatal(err)
	}
	data, err := sb.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := runner.Start(ctx, binary, sb.Options(data, "", "sql-export-check.err", 20))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(time.Minute)
	db, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmt := regexp.MustCompile(`^SET GLOBAL ([a-z_]+) = (.+);$`)
	sp := space.Default()
	n := 0
	for _, l := range strings.Split(export, "\n") {
		m := stmt.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n++
		if _, err := db.ExecContext(ctx, l); err != nil {
			t.Fatalf("the server refused %q: %v", l, err)
		}
		k, _ := sp.Knob(m[1])
		want, err := k.Normalize(strings.Trim(m[2], "'"))
		if err != nil {
			t.Fatal(err)
		}
		var v string
		if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL."+m[1]).Scan(&v); err != nil {
			t.Fatal(err)
		}
		got, err := k.Normalize(v)
		if err != nil {
			t.Fatalf("%s reads back as %q: %v", m[1], v, err)
		}
		if k.Name == "innodb_buffer_pool_size" {
			// A resize is rounded up to whole chunks.
			var chunk int64
			if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.innodb_buffer_pool_chunk_size").Scan(&chunk); err != nil {
				t.Fatal(err)
			}
			gf, _ := k.Float(got)
			wf, _ := k.Float(want)
			if gf < wf || (gf > wf && gf-wf >= float64(chunk)) {
				t.Errorf("%s: set %s, server has %s (chunk %d)", m[1], want, got, chunk)
			}
			continue
		}
		if k.Kind == space.Float {
			gf, _ := k.Float(got)
			wf, _ := k.Float(want)
			if fmt.Sprintf("%.3f", gf) != fmt.Sprintf("%.3f", wf) {
				t.Errorf("%s: set %s, server has %s", m[1], want, got)
			}
			continue
		}
		if got != want {
			t.Errorf("%s: set %s, server has %s", m[1], want, got)
		}
	}
	if n == 0 {
		t.Fatalf("no SET GLOBAL statement in the export:\n%s", export)
	}
}
