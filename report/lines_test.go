package report

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

func TestWriteImportance(t *testing.T) {
	var b bytes.Buffer
	WriteImportance(&b, []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.75}, {Knob: "innodb_doublewrite", Importance: 0.05}}, 30, "")
	want := "from 30 complete trials; the knobs explain 80 %"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "innodb_buffer_pool_size           75.0 %  ##############################") {
		t.Fatalf("got:\n%s", b.String())
	}
	b.Reset()
	if strings.Contains(b.String(), "caveat") {
		t.Fatalf("no caveat given, one printed:\n%s", b.String())
	}
	b.Reset()
	WriteImportance(&b, []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.75}}, 5, "from only 4 distinct configurations")
	if !strings.Contains(b.String(), "  caveat: from only 4 distinct configurations\n") {
		t.Fatalf("caveat: got:\n%s", b.String())
	}
	b.Reset()
	WriteImportance(&b, []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.001}}, 16, "")
	if !strings.Contains(b.String(), "no knob's effect stands out") || strings.Contains(b.String(), "innodb_buffer_pool_size") {
		t.Fatalf("nothing explained: got:\n%s", b.String())
	}
}

// The headline gain is the paired A/B comparison on the objective (tps),
// never the score and never the first baseline measured at another time:
// here the baseline first measured 400 tps and the best 700 (+75 %), but
// the interleaved pairs, measured after the machine sped up, say +10 %.
func TestGainIsThePairedABOnTheObjective(t *testing.T) {
	level := func(tps float64) []measure.Level {
		return []measure.Level{{Threads: 16, Eval: measure.Eval{MeanTPS: tps}}}
	}
	tr := func(n int, k search.Kind, tps float64, cfg space.Config) search.Trial {
		return search.Trial{Number: n, Kind: k, State: search.Complete, Params: cfg,
			Outcome: measure.Outcome{Score: tps / 2, MeanTPS: tps, Measurement: measure.Measurement{Levels: level(tps)}}, RepeatLink: search.RepeatLink{RepeatOf: 1}}
	}
	best := space.Config{"innodb_buffer_pool_size": "4294967296"}
	trials := []search.Trial{tr(0, search.Baseline, 400, space.Config{}), tr(1, search.Sampled, 700, best),
		tr(2, search.ABBest, 770, best), tr(3, search.ABBase, 700, space.Config{}),
		tr(4, search.ABBase, 690, space.Config{}), tr(5, search.ABBest, 762, best),
		tr(6, search.ABBest, 775, best), tr(7, search.ABBase, 702, space.Config{})}
	trials[0].RepeatOf, trials[1].RepeatOf = 0, 0
	var out strings.Builder
	WriteGain(&out, measure.GoalTPS, trials, trials[1])
	want := "gain over the baseline: +10.3 % tps (95 % CI +9.7 .. +10.9 %, 3 interleaved pairs, p = 0.00017): significant\n" +
		"gain over the expert warm start: none: the study measured no expert warm start (--warm-start=false, or no rule applied to this host and dataset): it has no rules to compare with\n"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
}

// everyKnobChanged sets every knob the space searches to a value other
// than its default (the first other choice, or the top of the range), as a
// screening trial does.
func everyKnobChanged(sp *space.Space) space.Config {
	c := space.Config{}
	for _, k := range sp.Knobs() {
		switch k.Kind {
		case space.Enum, space.Bool:
			for _, o := range k.Options() {
				if o != k.Default {
					c[k.Name] = o
					break
				}
			}
		default:
			v, err := k.FromFloat(k.Max)
			if err == nil && v != k.Default {
				c[k.Name] = v
			}
		}
	}
	return c
}

// TestTrialLinesGolden: a trial's second line lists only what it changes
// from the baseline, cut to the width with a count of the rest and where
// to see them all; the baseline itself, a re-measurement of it and a
// worker's trial (no baseline known) say so.
func TestTrialLinesGolden(t *testing.T) {
	sp := space.Default()
	pins := space.Config{"innodb_doublewrite": "ON", "innodb_flush_log_at_trx_commit": "1"}
	base := search.Trial{Number: 0, Kind: search.Baseline, State: search.Complete, Params: pins,
		Outcome: measure.Outcome{Score: 480.3, MeanTPS: 503.2}}
	wide := search.Trial{Number: 4, Kind: search.Screen, State: search.Complete, Params: pins.Merge(everyKnobChanged(sp)),
		Outcome: measure.Outcome{Score: 512.7, MeanTPS: 540.1}}
	few := search.Trial{Number: 5, Kind: search.Sampled, State: search.Complete,
		Params:  pins.Merge(space.Config{"innodb_buffer_pool_size": "2778726400", "innodb_io_capacity": "200"}),
		Outcome: measure.Outcome{Score: 775.2, MeanTPS: 781.9}}
	recheck := search.Trial{Number: 6, Kind: search.Recheck, State: search.Complete, Params: pins, RepeatLink: search.RepeatLink{RepeatOf: 0},
		Outcome: measure.Outcome{Score: 470.0, MeanTPS: 499.0}}
	seed := search.Trial{Number: 1, Kind: search.Seed, Source: "prod.cnf:ram=64G,cores=16", State: search.Complete,
		Params:  pins.Merge(space.Config{"innodb_buffer_pool_size": "1073741824"}),
		Outcome: measure.Outcome{Score: 700.4, MeanTPS: 712.0}}
	tpcc := func(t search.Trial) search.Trial { t.Summary = `{"workload":"tpcc","tpmC":1}`; return t }
	hinted := search.Trial{Number: 8, Kind: search.Refine, State: search.Complete, Why: "innodb_log_file_size doubled: the checkpoint age peaked at 51M, 80 % of the 64M redo log",
		Params:  pins.Merge(space.Config{"innodb_log_file_size": "134217728"}),
		Outcome: measure.Outcome{Score: 790.1, MeanTPS: 801.5}}
	failed := search.Trial{Number: 7, Kind: search.Screen, State: search.Failed, Params: pins}
	failed.Failure = "the server did not start"
	var out bytes.Buffer
	for _, tc := range []struct {
		name  string
		e     search.Standing
		width int
	}{
		{"TPC-C: a failed trial, the best's gain in tpmC", search.Standing{Trial: failed, Best: tpcc(few), Baseline: tpcc(base)}, 120},
		{"a seed names its source", search.Standing{Trial: seed, Best: base, Baseline: base}, 120},
		{"baseline", search.Standing{Trial: base, Best: base, Baseline: base}, 120},
		{"every knob changed, 120 columns", search.Standing{Trial: wide, Best: base, Baseline: base}, 120},
		{"every knob changed, 80 columns", search.Standing{Trial: wide, Best: base, Baseline: base}, 80},
		{"every knob changed, 20 columns (cut at 60)", search.Standing{Trial: wide, Best: base, Baseline: base}, 20},
		{"every knob changed, 2000 columns", search.Standing{Trial: wide, Best: base, Baseline: base}, 2000},
		{"two changes (the pins and a default left out)", search.Standing{Trial: few, Best: few, Baseline: base}, 120},
		{"recheck of the baseline", search.Standing{Trial: recheck, Best: few, Baseline: base}, 120},
		{"a probe a diagnosis led to says why", search.Standing{Trial: hinted, Best: few, Baseline: base}, 120},
		{"worker: no baseline", search.Standing{Trial: few, Best: search.Trial{Number: -1}, Baseline: search.Trial{Number: -1}}, 120},
	} {
		fmt.Fprintf(&out, "== %s\n%s\n", tc.name, TrialLine(sp, tc.e, tc.width))
	}
	golden.Check(t, "trial-lines.golden", out.Bytes())
}

// TestKnobLineFitsAndCounts: at any width the knob line fits (from 60
// columns up), and the knobs shown plus the "+N more" count are all the
// changes.
func TestKnobLineFitsAndCounts(t *testing.T) {
	sp := space.Default()
	base := search.Trial{Number: 0, Kind: search.Baseline, State: search.Complete, Params: space.Config{}}
	wide := search.Trial{Number: 4, Kind: search.Screen, State: search.Complete, Params: everyKnobChanged(sp)}
	all := sp.ChangesFrom(base.Params, wide.Params)
	if len(all) < 25 {
		t.Fatalf("only %d changes: the test needs a wide trial", len(all))
	}
	more := regexp.MustCompile(` … \+(\d+) more \(autotune show 4\)$`)
	for w := minWidth; w <= 1200; w += 7 {
		line := knobLine(sp, search.Standing{Trial: wide, Best: base, Baseline: base}, w)
		if n := utf8.RuneCountInString(line); n > w {
			t.Errorf("width %d: %d columns: %q", w, n, line)
		}
		shown := strings.Fields(strings.TrimPrefix(line, "      vs baseline:"))
		rest := 0
		if m := more.FindStringSubmatch(line); m != nil {
			rest, _ = strconv.Atoi(m[1])
			shown = strings.Fields(strings.TrimPrefix(more.ReplaceAllString(line, ""), "      vs baseline:"))
		}
		if len(shown)+rest != len(all) || (len(shown) > 0 && shown[0] != all[0]) {
			t.Errorf("width %d: %d shown + %d more, want %d changes: %q", w, len(shown), rest, len(all), line)
		}
	}
}

// measuredRun is a complete run whose score is its tps less its penalties.
func measuredRun(n int, kind search.Kind, of int, tps float64, p measure.Penalties) search.Trial {
	p.HLLGrowthPS = math.NaN()
	score := tps - p.Variance - p.Dips - p.Stalls - p.Errors - p.Purge
	return search.Trial{Number: n, Kind: kind, State: search.Complete, RepeatLink: search.RepeatLink{RepeatOf: of},
		Params:  space.Config{"innodb_buffer_pool_size": "1073741824"},
		Outcome: measure.Outcome{Score: score, MeanTPS: tps, Measurement: measure.Measurement{Penalties: p}}}
}

// TestBestReasonsGolden: a best slower than the baseline in tps says why it
// is the best, from the penalties stored with the runs that count (the
// confirmations of the best, the baseline and its rechecks); a best that
// is faster says nothing more.
func TestBestReasonsGolden(t *testing.T) {
	sp := space.Default()
	var out bytes.Buffer
	show := func(name string, trials []search.Trial) {
		best, base := search.Best(trials)
		last := trials[len(trials)-1]
		fmt.Fprintf(&out, "== %s\n%s\n", name, TrialLine(sp, search.Standing{Trial: last, Best: best, Baseline: base}, PlainWidth))
		WriteOutcome(&out, sp, best, base)
	}
	baseline := func(tps float64, p measure.Penalties) search.Trial {
		b := measuredRun(0, search.Baseline, 0, tps, p)
		b.Params = space.Config{}
		return b
	}
	candidate := measuredRun(1, search.Sampled, 0, 960, measure.Penalties{Variance: 30})
	candidate.ConfirmNeeded = 2
	recheck := measuredRun(4, search.Recheck, 0, 940, measure.Penalties{Variance: 116})
	recheck.Params = space.Config{}
	show("unsteady baseline (re-measured), confirmed best", []search.Trial{
		baseline(930, measure.Penalties{Variance: 104}), candidate,
		measuredRun(2, search.Confirm, 1, 912, measure.Penalties{Variance: 12}),
		measuredRun(3, search.Confirm, 1, 922, measure.Penalties{Variance: 8}),
		recheck,
	})
	show("baseline with dips", []search.Trial{
		baseline(930, measure.Penalties{Variance: 20, Dips: 186, DipSeconds: 12}),
		measuredRun(1, search.Sampled, 0, 900, measure.Penalties{Variance: 25}),
	})
	show("faster best: no reason needed", []search.Trial{
		baseline(500, measure.Penalties{Variance: 40}),
		measuredRun(1, search.Sampled, 0, 900, measure.Penalties{Variance: 25}),
	})
	p95 := func(n int, kind search.Kind, tps, ms float64) search.Trial {
		r := measuredRun(n, kind, 0, tps, measure.Penalties{Variance: 1})
		r.Score, r.P95MS = -(ms + 1), ms
		return r
	}
	b := p95(0, search.Baseline, 930, 30.5)
	b.Params = space.Config{}
	show("--objective p95", []search.Trial{b, p95(1, search.Sampled, 900, 22.1)})
	golden.Check(t, "best-reasons.golden", out.Bytes())
}
