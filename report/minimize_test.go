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

// TestKeptChangesWriteTheContributionOnTheLead: a kept group's
// contribution sits on its lead knob, not on its first in catalogue
// order.
func TestKeptChangesWriteTheContributionOnTheLead(t *testing.T) {
	m := search.Minimized{Goal: measure.GoalTPS, Steps: []search.MinStep{{
		Knobs: []string{"innodb_log_file_size", "innodb_buffer_pool_size"}, Lead: "innodb_buffer_pool_size",
		Values: space.Config{"innodb_log_file_size": "335544320", "innodb_buffer_pool_size": "1342177280"},
		Status: search.MinKept, Pct: 98.8, LoPct: 80, HiPct: 118, Pairs: 2}}}
	got := map[string]string{}
	for _, c := range KeptChanges(space.Lookup(), m) {
		got[c.Name] = c.Comment
	}
	if want := "+99 % tps (±19 %), with innodb_log_file_size"; got["innodb_buffer_pool_size"] != want {
		t.Errorf("pool: %q, want %q", got["innodb_buffer_pool_size"], want)
	}
	if want := "reverts together with innodb_buffer_pool_size (one contribution)"; got["innodb_log_file_size"] != want {
		t.Errorf("redo log: %q, want %q", got["innodb_log_file_size"], want)
	}
}
