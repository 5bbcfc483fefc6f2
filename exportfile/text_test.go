package exportfile

import (
	"strings"
	"testing"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
)

// Without two complete interleaved pairs, the option file's header says
// why there is no gain and claims none.
func TestGainCommentWithoutPairsClaimsNone(t *testing.T) {
	level := func(tps float64) []measure.Level {
		return []measure.Level{{Threads: 16, Eval: measure.Eval{MeanTPS: tps}}}
	}
	tr := func(n int, k search.Kind, tps float64, cfg space.Config) search.Trial {
		return search.Trial{Number: n, Kind: k, State: search.Complete, Params: cfg,
			Outcome: measure.Outcome{Score: tps / 2, MeanTPS: tps, Measurement: measure.Measurement{Levels: level(tps)}}, RepeatLink: search.RepeatLink{RepeatOf: 1}}
	}
	best := space.Config{"innodb_buffer_pool_size": "4294967296"}
	trials := []search.Trial{tr(0, search.Baseline, 400, space.Config{}), tr(1, search.Sampled, 700, best),
		tr(2, search.ABBest, 770, best), tr(3, search.ABBase, 700, space.Config{})}
	trials[0].RepeatOf, trials[1].RepeatOf = 0, 0
	var out strings.Builder
	writeGainComment(&out, measure.GoalTPS, trials, trials[1])
	if !strings.Contains(out.String(), "only 1 vs 1 interleaved A/B runs") || !strings.Contains(out.String(), "no gain is claimed") {
		t.Fatal(out.String())
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
