package report

import (
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/study/result"
)

func TestBuildNeedsACompleteTrial(t *testing.T) {
	_, err := Build(result.StudyReport{Study: "s", Trials: []search.Trial{{Number: 0, State: search.Failed, Kind: search.Baseline}}})
	if err == nil || !strings.Contains(err.Error(), `study "s" has no complete trial`) {
		t.Fatalf("err = %v", err)
	}
}

// TestBuildToleratesUnknownKnobsAndSettings: trials may carry knobs this
// catalogue does not know (a newer autotune wrote them) and settings with
// fields it does not know; the page shows them as stored.
func TestBuildToleratesUnknownKnobsAndSettings(t *testing.T) {
	mk := func(n int, score float64, p space.Config) search.Trial {
		return search.Trial{Number: n, State: search.Complete, Kind: search.Sampled, Params: p,
			Started: time.Unix(0, 0), Ended: time.Unix(20, 0),
			Outcome: measure.Outcome{Score: score, MeanTPS: score + 10, StdTPS: 5}}
	}
	base := mk(0, 100, space.Config{})
	base.Kind = search.Baseline
	trials := []search.Trial{base, mk(1, 150, space.Config{"innodb_doublewrite": "OFF", "innodb_made_up_knob": "8"}), mk(2, 120, space.Config{"innodb_doublewrite": "ON"})}
	r, err := Build(result.StudyReport{Study: "s", Settings: `{"workload":"oltp_read_only","score":{"p99_weight":0.2}}`, Trials: trials})
	if err != nil {
		t.Fatal(err)
	}
	html := string(r.HTML)
	for _, want := range []string{"innodb_made_up_knob = 8", "<td class=\"l\">innodb_made_up_knob</td>", `{&#34;p99_weight&#34;:0.2}`, "innodb_doublewrite ON → OFF", "Best: trial 1"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestByteTicks(t *testing.T) {
	var labels []string
	for _, tk := range (byteTicks{}).Ticks(64<<20, 1<<30) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "64M 128M 256M 512M 1G" {
		t.Errorf("labels %q", got)
	}
	n := 0
	for _, tk := range (byteTicks{}).Ticks(2<<20, 16<<30) {
		if tk.Label != "" {
			n++
		}
	}
	if n > 7 {
		t.Errorf("%d labels over 2M..16G: too crowded", n)
	}
}

func TestExcerptAndSettings(t *testing.T) {
	if got := excerpt("ééé", 3); got != "é …" {
		t.Errorf("excerpt cut inside a rune: %q", got)
	}
	if got := settingsList("not json"); len(got) != 1 || got[0].Value != "not json" {
		t.Errorf("settingsList(not json) = %v", got)
	}
	if got := settingsList(`{"b":2,"a":"x"}`); len(got) != 2 || got[0].Key != "a" || got[1].Value != "2" {
		t.Errorf("settingsList = %v", got)
	}
}

// TestBuildCountsRejectedAsFinished: a rejected trial is finished (like a
// failed one), not running; the page counts it and lists its reason.
func TestBuildCountsRejectedAsFinished(t *testing.T) {
	at := func(n int, st search.State, score float64) search.Trial {
		return search.Trial{Number: n, State: st, Kind: search.Sampled, Params: space.Config{"innodb_doublewrite": "OFF"},
			Started: time.Unix(0, 0), Ended: time.Unix(20, 0), Outcome: measure.Outcome{Score: score, MeanTPS: score}}
	}
	base := at(0, search.Complete, 100)
	base.Kind, base.Params = search.Baseline, space.Config{}
	failed := at(2, search.Failed, 0)
	failed.Failure = "server crashed"
	rejected := at(3, search.Rejected, 0)
	rejected.Failure = "rejected before start: over the memory budget"
	running := at(5, search.Running, 0)
	running.Ended = time.Time{}
	trials := []search.Trial{base, at(1, search.Complete, 120), failed, rejected, at(4, search.Interrupted, 0), running}
	r, err := Build(result.StudyReport{Study: "s", Trials: trials})
	if err != nil {
		t.Fatal(err)
	}
	html := string(r.HTML)
	for _, want := range []string{
		"trials: 6 (4 finished: 2 complete, 1 failed, 1 rejected; 1 interrupted, 1 running)",
		"<td>3</td><td class=\"l\">sampled</td><td class=\"l\">rejected</td><td class=\"l\">rejected before start: over the memory budget</td>",
		"<td>2</td><td class=\"l\">sampled</td><td class=\"l\">failed</td><td class=\"l\">server crashed</td>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestTopTableShowsPooledEstimate: the top table gives each trial's
// configuration estimate pooled over all its runs, so a lucky single run
// is seen next to what its configuration measures on average.
func TestTopTableShowsPooledEstimate(t *testing.T) {
	mk := func(n int, score float64, p space.Config) search.Trial {
		return search.Trial{Number: n, State: search.Complete, Kind: search.Sampled, Params: p,
			Started: time.Unix(0, 0), Ended: time.Unix(20, 0),
			Outcome: measure.Outcome{Score: score, MeanTPS: score}}
	}
	base := mk(0, 100, space.Config{})
	base.Kind = search.Baseline
	off := space.Config{"innodb_doublewrite": "OFF"}
	trials := []search.Trial{base, mk(1, 150, off), mk(2, 130, off), mk(3, 110, off), mk(4, 120, space.Config{"innodb_doublewrite": "ON"})}
	r, err := Build(result.StudyReport{Study: "s", Trials: trials})
	if err != nil {
		t.Fatal(err)
	}
	html := string(r.HTML)
	for _, want := range []string{"<th>config est (runs)</th>", "<td>150.0</td><td>&#43;50.0 %</td><td>130.0 (3)</td>", "<td>120.0</td><td>&#43;20.0 %</td><td>120.0 (1)</td>"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q:\n%s", want, html[strings.Index(html, "<table id=\"top\">"):])
		}
	}
}
