package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/study/result"
)

// TestWaterfallGolden: the waterfall from the baseline to the minimal
// configuration has one bar per measured kept change, in the order the
// steps kept them, each with its interval as a whisker, and a last bar
// for their product; untried changes have no bar.
func TestWaterfallGolden(t *testing.T) {
	_, m := minimizedCase()
	svg := string(waterfallSVG(space.Lookup(), m))
	golden.Check(t, "waterfall.golden", []byte(svg+"\n"))
	bars := regexp.MustCompile(`<rect class="bar"[^>]*><title>([^<]*)</title>`).FindAllStringSubmatch(svg, -1)
	var titles []string
	for _, b := range bars {
		titles = append(titles, b[1])
	}
	want := []string{"innodb_io_capacity + innodb_io_capacity_max: +8.3 %", "innodb_buffer_pool_size=4G: +48.2 %", "minimal configuration: +60.5 %"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Fatalf("bars %q, want %q", titles, want)
	}
	if n := strings.Count(svg, `class="ci"`); n != 2 {
		t.Fatalf("%d whiskers, want 2 (one per measured kept change)", n)
	}
	// Nothing measured kept: no waterfall.
	none := m
	none.Steps = []search.MinStep{{Knobs: []string{"innodb_flush_neighbors"}, Status: search.MinReverted, Pairs: 2}}
	if svg := waterfallSVG(space.Lookup(), none); svg != "" {
		t.Fatalf("waterfall without a kept change: %s", svg)
	}
}

// TestReportShowsTheMinimisation: the page has the minimal configuration
// section with the waterfall, every kept change with its contribution,
// and one row per step.
func TestReportShowsTheMinimisation(t *testing.T) {
	c, m := minimizedCase()
	in := result.StudyReport{Study: "min", Space: space.Lookup(), Trials: []search.Trial{c.base, c.best}, Minimized: &m}
	r, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	page := string(r.HTML)
	for _, want := range []string{`<h2 id="minimal">Minimal configuration</h2>`, `<svg id="waterfall"`, "innodb_buffer_pool_size = 4G <span class=\"note\"># &#43;48 % tps (±8 %)</span>", /* html/template writes + as &#43; */
		"keeps 4 of them (20 runs)", "not worse, accepted"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	steps := page[strings.Index(page, `id="min-steps"`):]
	steps = steps[:strings.Index(steps, "</table>")]
	if n := strings.Count(steps, "<tr><td>"); n != len(m.Steps) {
		t.Errorf("%d step rows, want %d", n, len(m.Steps))
	}
	// A minimisation of another trial (the best moved on) is not shown.
	m.Best = 3
	r, err = Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(r.HTML, []byte(`id="minimal"`)) {
		t.Error("the minimisation of trial 3 is shown for best trial 7")
	}
}

// TestWriteMinimization: the text summary lists every step, the check and
// the kept changes with their contributions.
func TestWriteMinimization(t *testing.T) {
	_, m := minimizedCase()
	var b bytes.Buffer
	WriteMinimization(&b, space.Lookup(), m)
	golden.Check(t, "minimization.golden", b.Bytes())
	if !strings.Contains(b.String(), "minimal configuration: 4 of the 5 changes") {
		t.Fatalf("summary:\n%s", b.String())
	}
}

// exportCase is a study with its best trial and its baseline.
type exportCase struct {
	name       string
	st         storage.StudyRecord
	best, base search.Trial
}

// minimizedCase is a minimised study on a MariaDB 10.11 sandbox with the
// server defaults as the baseline: of the best's five changes, the buffer
// pool and the io capacity pair (one dependency group) were kept,
// innodb_flush_neighbors reverted, the log file size left untried.
func minimizedCase() (exportCase, search.Minimized) {
	pins := space.Config{"innodb_doublewrite": "ON", "innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}
	best := pins.Merge(space.Config{"innodb_buffer_pool_size": "4294967296", "innodb_io_capacity": "2000", "innodb_io_capacity_max": "4000",
		"innodb_flush_neighbors": "0", "innodb_log_file_size": "268435456"})
	m := storage.Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 500000, WarmupS: 30, DurationS: 60, Lambda: 0.5,
		Space: &storage.SpaceManifest{Durability: "strict"}}
	c := exportCase{name: "minimal", st: storage.StudyRecord{Name: "min", ServerVersion: "10.11.19-MariaDB-0+deb12u1", Settings: m.JSON()},
		best: search.Trial{Number: 7, Kind: search.Sampled, State: search.Complete, Params: best, Outcome: measure.Outcome{Score: 1150, MeanTPS: 1210, P95MS: 12.5}},
		base: search.Trial{Number: 0, Kind: search.Baseline, State: search.Complete, Params: pins, Outcome: measure.Outcome{Score: 950, MeanTPS: 1000, P95MS: 20}}}
	cfg := best.Clone()
	delete(cfg, "innodb_flush_neighbors")
	return c, search.Minimized{Best: 7, Goal: measure.GoalTPS, Changes: 5, Config: cfg, Runs: 20, Done: true, Accepted: true,
		Steps: []search.MinStep{
			{Knobs: []string{"innodb_flush_neighbors", "innodb_log_file_size"}, Values: space.Config{"innodb_flush_neighbors": "0", "innodb_log_file_size": "268435456"},
				Status: search.MinSplit, Pct: 9.1, LoPct: 1.2, HiPct: 17.6, Pairs: 2},
			{Knobs: []string{"innodb_flush_neighbors"}, Values: space.Config{"innodb_flush_neighbors": "0"}, Status: search.MinReverted, Pct: 1.4, LoPct: -6.1, HiPct: 9.4, Pairs: 2},
			{Knobs: []string{"innodb_io_capacity", "innodb_io_capacity_max"}, Values: space.Config{"innodb_io_capacity": "2000", "innodb_io_capacity_max": "4000"},
				Status: search.MinKept, Pct: 8.3, LoPct: 1.1, HiPct: 16.0, Pairs: 2},
			{Knobs: []string{"innodb_buffer_pool_size"}, Values: space.Config{"innodb_buffer_pool_size": "4294967296"}, Status: search.MinKept, Pct: 48.2, LoPct: 40.1, HiPct: 56.9, Pairs: 2},
			{Knobs: []string{"innodb_log_file_size"}, Values: space.Config{"innodb_log_file_size": "268435456"}, Status: search.MinUntested},
		},
		Check: &search.MinCheck{Pct: -1.2, LoPct: -8.0, HiPct: 6.1, Pairs: 2}}
}
