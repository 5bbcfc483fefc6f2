package study

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autotune/autotune/measure"
	"github.com/autotune/autotune/runner"
	"github.com/autotune/autotune/search"
	"github.com/autotune/autotune/space"
	"github.com/autotune/autotune/storage"
	"github.com/autotune/autotune/strategy"
)

// observing is a strategy that records what it is told of the history.
type observing struct {
	search.Strategy
	observed []space.Config
}

func (o *observing) Observe(c space.Config, v float64) error {
	o.observed = append(o.observed, c)
	return o.Strategy.(interface {
		Observe(space.Config, float64) error
	}).Observe(c, v)
}

// A study resumed with --allow-changes under another durability policy
// starts a new segment of its history: the run says so, its strategy is
// told none of the earlier trials, it measures its own baseline, its
// trial numbers go on after the earlier ones, and its best and its
// views (LoadStudy: export, show, report, diff; compare) are the new
// segment's alone, though the earlier segment's scores are higher.
func TestAllowChangesStartsANewSegment(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trials.db")
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sp := space.Default()
	var logs []string
	req := func(durability string, allow bool) OpenRequest {
		return OpenRequest{Name: "s", Manifest: storage.Manifest{Workload: "oltp_read_write", Threads: 4, Space: &storage.SpaceManifest{Durability: durability}},
			Seed: 3, ServerVersion: "10.11.19-MariaDB", Host: runner.Host{Cores: 2, RAMBytes: 8 << 30}, AllowChanges: allow,
			Started: time.Now(), Logf: func(f string, a ...any) { logs = append(logs, strings.TrimSpace(fmt.Sprintf(f, a...))) }}
	}
	run := func(op Opened, scale float64, trials int) (search.Result, *observing) {
		t.Helper()
		inner, err := strategy.NewStrategy("random", sp, strategy.StrategyOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		obs := &observing{Strategy: inner}
		st := &search.Study{Name: "s", Strategy: obs, Store: storage.SegmentStore{DB: db, Key: op.Fingerprint.Key()}, FirstNumber: op.Next,
			MaxTrials: trials, Space: sp, Base: sp.Fixed(),
			Objective: func(_ context.Context, tr search.Trial) (measure.Outcome, error) {
				v := scale * float64(100+len(tr.Params))
				return measure.Outcome{Score: v, MeanTPS: v}, nil
			}}
		res, err := st.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return res, obs
	}
	op, err := Open(ctx, db, req("strict", false))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := run(op, 10, 4) // scores of 1000 and more
	if _, err := Open(ctx, db, req("relaxed", false)); !IsUsage(err) {
		t.Fatalf("changed durability without --allow-changes: %v, want a usage error", err)
	}
	logs = nil
	op, err = Open(ctx, db, req("relaxed", true))
	if err != nil {
		t.Fatal(err)
	}
	log := strings.Join(logs, "\n")
	if !strings.Contains(log, "4 trial(s) were measured under other conditions (durability strict → relaxed)") ||
		!strings.Contains(log, "starts a new segment (fingerprint "+op.Fingerprint.Key()+") and measures its own baseline") {
		t.Errorf("the resume does not say it starts a new segment:\n%s", log)
	}
	second, obs := run(op, 1, 3) // scores near 100
	if len(obs.observed) != 0 {
		t.Errorf("the strategy was told %d trials of the earlier segment", len(obs.observed))
	}
	if len(second.Trials) != 3 || second.Trials[0].Kind != search.Baseline || second.Trials[0].Number != len(first.Trials) {
		t.Fatalf("new segment's trials %v; want 3 from number %d, a baseline first", numbersOf(second.Trials), len(first.Trials))
	}
	if second.Best.Score > 200 || second.Baseline.Number != len(first.Trials) {
		t.Errorf("new segment's best %d (%.0f) over baseline %d: an earlier segment's trial", second.Best.Number, second.Best.Score, second.Baseline.Number)
	}
	all, err := db.Trials(ctx, "s")
	if err != nil || len(all) != 7 {
		t.Fatalf("store holds %d trials (%v), want both segments' 7", len(all), err)
	}
	_, st, own, err := LoadStudy(ctx, path, "s")
	if err != nil {
		t.Fatal(err)
	}
	if best, _ := search.Best(own); len(own) != 3 || best.Number != second.Best.Number || st.Name != "s" {
		t.Errorf("LoadStudy: %v with best %d; want the new segment's 3 trials, best %d", numbersOf(own), best.Number, second.Best.Number)
	}
	// A second resume under the new conditions is no change: no line.
	logs = nil
	if _, err := Open(ctx, db, req("relaxed", false)); err != nil || strings.Contains(strings.Join(logs, "\n"), "other conditions") {
		t.Errorf("resume under the same conditions: %v\n%s", err, strings.Join(logs, "\n"))
	}
}

func numbersOf(ts []search.Trial) []int {
	var out []int
	for _, t := range ts {
		out = append(out, t.Number)
	}
	return out
}
