package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/internal/realtest"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/study"
)

// TestRealSkewCheckStudy runs a tiny real study under --rand-type uniform
// with --skew-check special on a sandboxed MariaDB and Debian's sysbench
// 1.0.20 (4 x 20000 rows, 2 s warm-up + 4 s windows; a baseline with an
// 8M buffer pool and a seed with 256M, so a best other than the baseline
// is found; 2 A/B pairs and the skew check's 3), and checks that the
// summary event and the export give both gains, that the export names the
// distribution, and that the skew check's runs are stored apart from the
// study's trials.
func TestRealSkewCheckStudy(t *testing.T) {
	t.Parallel()
	realtest.Require(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "sb")
	dbPath := filepath.Join(dir, "trials.db")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	spaceFile := write("space.toml", "include = [\"innodb_buffer_pool_size\", \"innodb_io_capacity\"]\n")
	baseline := write("baseline.cnf", "[mysqld]\ninnodb_buffer_pool_size = 8M\n")
	seed := write("seed.cnf", "[mysqld]\ninnodb_buffer_pool_size = 256M\n")
	p := startAutotune(t, bin, "search", "--minimize=false", "--study", "skew", "--db", dbPath, "--workdir", work,
		"--trials", "2", "--space", spaceFile, "--baseline-cnf", baseline, "--seed-from", seed, "--warm-start=false",
		"--tables", "4", "--table-size", "20000", "--threads", "4", "--warmup", "2s", "--duration", "4s", "--steady-block", "1s",
		"--rand-type", "uniform", "--skew-check", "special",
		"--confirm", "0", "--recheck-every", "0", "--ab-pairs", "2", "--prune=false", "--json")
	code, out := p.wait(t, 10*time.Minute)
	if code != 0 {
		t.Fatalf("search exit %d:\n%s", code, out)
	}
	assertNoServer(t, work)

	var summary struct {
		Workload string `json:"workload"`
		Gain     *struct {
			Pct float64 `json:"pct"`
		} `json:"gain"`
		SkewChecks []struct {
			Variant string `json:"variant"`
			Gain    *struct {
				Pct float64 `json:"pct"`
			} `json:"gain"`
			Pairs int `json:"pairs"`
		} `json:"skew_checks"`
	}
	var text string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Event   string          `json:"event"`
			Text    string          `json:"text"`
			Summary json.RawMessage `json:"summary"`
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.Event == "summary" {
			text = e.Text
			if err := json.Unmarshal(e.Summary, &summary); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !strings.Contains(summary.Workload, "--rand-type=uniform") {
		t.Errorf("summary workload %q, want the distribution", summary.Workload)
	}
	if summary.Gain == nil || len(summary.SkewChecks) != 1 || summary.SkewChecks[0].Variant != "--rand-type=special" ||
		summary.SkewChecks[0].Gain == nil || summary.SkewChecks[0].Pairs < 2 {
		t.Fatalf("summary %+v: want the A/B gain and the skew check's under special\n%s", summary, text)
	}
	for _, want := range []string{"gain over the baseline: ", "skew check under --rand-type=special: "} {
		if !strings.Contains(text, want) {
			t.Errorf("summary text lacks %q:\n%s", want, text)
		}
	}

	ctx := context.Background()
	var exp bytes.Buffer
	if err := runExport(ctx, &exportOptions{study: "skew", db: dbPath, format: "cnf", trial: -1}, &exp, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# gain over the baseline: ", "# skew check under --rand-type=special: ", "# tuned with sysbench ", " oltp_read_write --rand-type=uniform\n",
		"--rand-type=uniform, 4 x 20000 rows"} {
		if !strings.Contains(exp.String(), want) {
			t.Errorf("export lacks %q:\n%s", want, exp.String())
		}
	}

	// The skew check's runs are stored marked, linked to the best, and
	// counted in no trial cap or estimate.
	db, _, trials, err := study.LoadStudy(ctx, dbPath, "skew")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	best, _ := search.Best(trials)
	skewed, counted := 0, 0
	for _, tr := range trials {
		switch {
		case tr.Kind.Skewed():
			skewed++
			if tr.Source != "--rand-type=special" || tr.RepeatOf != best.Number {
				t.Errorf("skew run %d: source %q, repeats %d; want --rand-type=special and the best %d", tr.Number, tr.Source, tr.RepeatOf, best.Number)
			}
		case !tr.Kind.Extra() && tr.State.Finished():
			counted++
		}
	}
	if skewed < 4 || counted != 2 {
		t.Errorf("%d skew runs and %d counted trials, want at least 4 and 2", skewed, counted)
	}
}
