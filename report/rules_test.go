package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/exportfile"
	"github.com/autotune/autotune/internal/golden"
	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
)

// rulesCase is a study's trials as the gain over the rules sees them.
type rulesCase struct {
	name   string
	trials []search.Trial
	best   int // index of the best trial in trials
}

// rulesCases are studies that measured the expert warm start in the rounds
// of their final phase, whose best is the warm start, whose warm start
// failed, that have no warm start, and whose final phase has not run.
func rulesCases() []rulesCase {
	pins := space.Config{"innodb_doublewrite": "ON", "innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}
	warm := pins.Merge(space.Config{"innodb_buffer_pool_size": "1342177280", "innodb_log_file_size": "335544320", "innodb_io_capacity": "2450"})
	best := warm.Merge(space.Config{"innodb_flush_neighbors": "0", "innodb_io_capacity": "4000", "innodb_lru_scan_depth": "256"})
	tr := func(n int, k search.Kind, tps float64, p space.Config, of int) search.Trial {
		return search.Trial{Number: n, Kind: k, State: search.Complete, Params: p,
			Outcome: measure.Outcome{Score: tps * 0.95, MeanTPS: tps, P95MS: 20}, RepeatLink: search.RepeatLink{RepeatOf: of}}
	}
	// Three rounds, the order rotated: best, baseline, warm; baseline,
	// warm, best; warm, best, baseline.
	measured := []search.Trial{tr(0, search.Baseline, 500, pins, 0), tr(1, search.Expert, 760, warm, 0), tr(2, search.Sampled, 850, best, 0),
		tr(3, search.ABBest, 842, best, 2), tr(4, search.ABBase, 505, pins, 2), tr(5, search.ABWarm, 771, warm, 2),
		tr(6, search.ABBase, 498, pins, 2), tr(7, search.ABWarm, 760, warm, 2), tr(8, search.ABBest, 851, best, 2),
		tr(9, search.ABWarm, 768, warm, 2), tr(10, search.ABBest, 839, best, 2), tr(11, search.ABBase, 502, pins, 2)}
	isBest := []search.Trial{tr(0, search.Baseline, 500, pins, 0), tr(1, search.Expert, 760, warm, 0), tr(2, search.Sampled, 700, best, 0),
		tr(3, search.ABBest, 771, warm, 1), tr(4, search.ABBase, 505, pins, 1), tr(5, search.ABBase, 498, pins, 1), tr(6, search.ABBest, 760, warm, 1)}
	failed := []search.Trial{tr(0, search.Baseline, 500, pins, 0), tr(1, search.Expert, 0, warm, 0), tr(2, search.Sampled, 700, best, 0),
		tr(3, search.ABBest, 702, best, 2), tr(4, search.ABBase, 505, pins, 2), tr(5, search.ABBase, 498, pins, 2), tr(6, search.ABBest, 711, best, 2)}
	failed[1].State, failed[1].Failure = search.Failed, "out of memory"
	none := []search.Trial{tr(0, search.Baseline, 500, pins, 0), tr(1, search.Sampled, 700, best, 0),
		tr(2, search.ABBest, 702, best, 1), tr(3, search.ABBase, 505, pins, 1), tr(4, search.ABBase, 498, pins, 1), tr(5, search.ABBest, 711, best, 1)}
	pruned := append([]search.Trial(nil), failed...)
	pruned[1].State, pruned[1].Failure = search.Pruned, ""
	atBase := []search.Trial{tr(0, search.Baseline, 500, pins, 0), tr(1, search.Expert, 500, pins, 0), tr(2, search.Sampled, 700, best, 0),
		tr(3, search.ABBest, 702, best, 2), tr(4, search.ABBase, 505, pins, 2)}
	// The phase left the warm start out: pairs of the best and the baseline.
	pairsOnly := []search.Trial{tr(0, search.Baseline, 500, pins, 0), tr(1, search.Expert, 760, warm, 0), tr(2, search.Sampled, 850, best, 0),
		tr(3, search.ABBest, 842, best, 2), tr(4, search.ABBase, 505, pins, 2), tr(5, search.ABBase, 498, pins, 2), tr(6, search.ABBest, 851, best, 2)}
	return []rulesCase{
		{"warm start measured in 3 rounds", measured, 2},
		{"the final phase left the warm start out", pairsOnly, 2},
		{"the best is the warm start", isBest, 1},
		{"the warm start failed", failed, 2},
		{"no warm start (--warm-start=false)", none, 1},
		{"final phase not run yet", measured[:3], 2},
		{"the warm start was pruned", pruned, 2},
		{"the warm start is the baseline's configuration, 1 pair", atBase, 2},
		{"a chosen trial that is the warm start (export --trial 1)", measured, 1},
	}
}

// myCnfStudy is a study on a MariaDB 10.11 sandbox whose baseline is the
// user's my.cnf, under --durability strict.
func myCnfStudy() storage.StudyRecord {
	file := space.Config{"innodb_buffer_pool_size": "4294967296", "innodb_io_capacity": "1000", "innodb_flush_neighbors": "0"}
	m := storage.Manifest{Workload: "oltp_read_write", Threads: 16, Tables: 8, TableSize: 500000, WarmupS: 30, DurationS: 60, Lambda: 0.5,
		Space: &storage.SpaceManifest{Durability: "strict", Baseline: &storage.Baseline{File: "/etc/mysql/my.cnf", Config: file}}}
	return storage.StudyRecord{Name: "mine", ServerVersion: "10.11.19-MariaDB-0+deb12u1", Settings: m.JSON()}
}

// TestGainOverTheRulesGolden: the search summary, the trials table's
// header, the export header (every format) state the best's gain over the
// expert warm start beside its gain over the baseline, or why there is
// none.
func TestGainOverTheRulesGolden(t *testing.T) {
	now := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	st := myCnfStudy()
	var out bytes.Buffer
	for i, c := range rulesCases() {
		best, base := c.trials[c.best], c.trials[0]
		fmt.Fprintf(&out, "==== %s: summary\n", c.name)
		WriteGain(&out, measure.GoalTPS, c.trials, best)
		formats := []string{"cnf"}
		if i == 0 {
			formats = []string{"cnf", "sql", "json"}
		}
		for _, f := range formats {
			fmt.Fprintf(&out, "==== %s: export --format %s\n", c.name, f)
			if err := exportfile.Write(&out, f, space.Lookup(), st, best, base, c.trials, now); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A TPC-C study under a host profile: its throughput in tpmC, its
	// workload and its memory limit in the header.
	tpcc := storage.Manifest{Workload: "tpcc", Threads: 16, Warehouses: 8, WarmupS: 30, DurationS: 60,
		Space: &storage.SpaceManifest{Durability: "strict"}, HostProfile: &storage.HostProfile{MemoryLimitBytes: 512 << 20}}
	tst := storage.StudyRecord{Name: "tpcc", ServerVersion: "10.11.19-MariaDB-0+deb12u1", Settings: tpcc.JSON()}
	trials := rulesCases()[0].trials
	for i := range trials {
		trials[i].Summary = `{"workload":"tpcc","tpmC":1}`
	}
	fmt.Fprintln(&out, "==== TPC-C under a memory limit: summary")
	WriteGain(&out, measure.GoalTPS, trials, trials[2])
	WriteConclusion(&out, measure.GoalTPS, trials, trials[2], "export it")
	for _, f := range []string{"cnf", "sql"} {
		fmt.Fprintf(&out, "==== TPC-C under a memory limit: export --format %s\n", f)
		if err := exportfile.Write(&out, f, space.Lookup(), tst, trials[2], trials[0], trials, now); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, "gain-over-rules.golden", out.Bytes())
	for _, want := range []string{"% tpmC (95 % CI", "51000.0 tpmC", "# workload: tpcc, 8 warehouses, threads 16, objective tps",
		"# host profile: the server ran under a memory limit of 512M", "-- host profile:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("TPC-C output lacks %q", want)
		}
	}
	if tail := out.String()[strings.Index(out.String(), "==== TPC-C"):]; strings.Contains(tail, "% tps") {
		t.Errorf("a TPC-C gain in tps:\n%s", tail)
	}
	for _, want := range []string{"gain over the expert warm start: +10.", "the best is the expert warm start itself (trial 1)",
		"the expert warm start (trial 1) failed", "(--warm-start=false, or no rule applied to this host and dataset): it has no rules to compare with", "was pruned", "\"gain_over_warm_start\"", "none: trial 1 is the expert warm start itself",
		"in pairs of the best and the baseline, without the expert warm start (trial 1)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
