package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

func TestWriteImportance(t *testing.T) {
	var b bytes.Buffer
	WriteImportance(&b, []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.75}, {Knob: "innodb_doublewrite", Importance: 0.05}}, 30)
	want := "from 30 complete trials; the knobs explain 80 %"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "innodb_buffer_pool_size           75.0 %  ##############################") {
		t.Fatalf("got:\n%s", b.String())
	}
	b.Reset()
	WriteImportance(&b, []search.KnobImportance{{Knob: "innodb_buffer_pool_size", Importance: 0.001}}, 16)
	if !strings.Contains(b.String(), "no knob's effect stands out") || strings.Contains(b.String(), "innodb_buffer_pool_size") {
		t.Fatalf("nothing explained: got:\n%s", b.String())
	}
}

// The headline gain is the paired A/B comparison on the objective (tps),
// never the score and never the first baseline measured at another time:
// here the baseline first measured 400 tps and the best 700 (+75 %), but
// the interleaved pairs, measured after the machine sped up, say +10 %.
func TestGainIsThePairedABOnTheObjective(t *testing.T) {
	level := func(tps float64) []search.Level {
		return []search.Level{{Threads: 16, Eval: search.Eval{MeanTPS: tps}}}
	}
	tr := func(n int, k search.Kind, tps float64, cfg space.Config) search.Trial {
		return search.Trial{Number: n, Kind: k, State: search.Complete, Params: cfg,
			Outcome: search.Outcome{Score: tps / 2, MeanTPS: tps, Measurement: search.Measurement{Levels: level(tps)}}, Repeat: search.Repeat{RepeatOf: 1}}
	}
	best := space.Config{"innodb_buffer_pool_size": "4294967296"}
	trials := []search.Trial{tr(0, search.Baseline, 400, space.Config{}), tr(1, search.Sampled, 700, best),
		tr(2, search.ABBest, 770, best), tr(3, search.ABBase, 700, space.Config{}),
		tr(4, search.ABBase, 690, space.Config{}), tr(5, search.ABBest, 762, best),
		tr(6, search.ABBest, 775, best), tr(7, search.ABBase, 702, space.Config{})}
	trials[0].RepeatOf, trials[1].RepeatOf = 0, 0
	var out strings.Builder
	WriteGain(&out, search.GoalTPS, trials, trials[1])
	want := "gain over the baseline: +10.3 % tps (95 % CI +9.7 .. +10.9 %, 3 interleaved pairs, p = 0.00017): significant\n"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
	out.Reset()
	WriteGainComment(&out, search.GoalTPS, trials[:4], trials[1])
	if !strings.Contains(out.String(), "only 1 vs 1 interleaved A/B runs") || !strings.Contains(out.String(), "no gain is claimed") {
		t.Fatal(out.String())
	}
}
