package search

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/autotune/autotune/space"
)

// importanceTrials samples n random configs of sp and scores them with f
// plus seeded noise of sd noise.
func importanceTrials(t *testing.T, sp *space.Space, n int, noise float64, f func(space.Config) float64) []Trial {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var out []Trial
	for i := 0; i < n; i++ {
		cfg := space.Config{}
		for _, k := range sp.Knobs() {
			switch k.Kind {
			case space.Enum, space.Bool:
				opts := k.Options()
				cfg[k.Name] = opts[rng.IntN(len(opts))]
			default:
				x := k.Min + rng.Float64()*(k.Max-k.Min)
				if k.Scale == space.Log {
					x = math.Exp(math.Log(k.Min) + rng.Float64()*(math.Log(k.Max)-math.Log(k.Min)))
				}
				v, err := k.FromFloat(clampRound(k, x))
				if err != nil {
					t.Fatal(err)
				}
				cfg[k.Name] = v
			}
		}
		out = append(out, Trial{Number: i, State: Complete, Kind: Sampled, Params: cfg,
			Outcome: Outcome{Score: f(cfg) + rng.NormFloat64()*noise}})
	}
	return out
}

func TestImportanceFindsTheKnobsThatMatter(t *testing.T) {
	sp := firstSpace(t)
	// The buffer pool dominates (log-linear), flush_log_at_trx_commit adds
	// a step, everything else is noise.
	score := func(c space.Config) float64 {
		bp, _ := strconv.ParseFloat(c["innodb_buffer_pool_size"], 64)
		s := 100 * math.Log2(bp/(64<<20))
		if c["innodb_flush_log_at_trx_commit"] != "1" {
			s += 150
		}
		return s
	}
	trials := importanceTrials(t, sp, 60, 20, score)
	// A failed trial and an interrupted one carry no score: ignored.
	trials = append(trials, Trial{Number: 60, State: Failed, Params: space.Config{"innodb_buffer_pool_size": "67108864"}},
		Trial{Number: 61, State: Interrupted})
	imp, err := Importance(sp, trials)
	if err != nil {
		t.Fatal(err)
	}
	if len(imp) != len(sp.Knobs()) {
		t.Fatalf("%d results for %d knobs", len(imp), len(sp.Knobs()))
	}
	var sum float64
	for i, k := range imp {
		sum += k.Importance
		if k.Importance < 0 || k.Importance > 1 {
			t.Errorf("%s importance %g outside 0..1", k.Knob, k.Importance)
		}
		if i > 0 && k.Importance > imp[i-1].Importance {
			t.Errorf("not sorted: %v", imp)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("shares sum to %g, want 1", sum)
	}
	if imp[0].Knob != "innodb_buffer_pool_size" || imp[1].Knob != "innodb_flush_log_at_trx_commit" {
		t.Fatalf("top two = %s, %s; want buffer pool then flush_log_at_trx_commit\n%v", imp[0].Knob, imp[1].Knob, imp)
	}
	if imp[0].Importance+imp[1].Importance < 0.8 {
		t.Errorf("the two knobs that matter get only %.2f of the credit: %v", imp[0].Importance+imp[1].Importance, imp)
	}
}

func TestImportanceEdgeCases(t *testing.T) {
	sp := firstSpace(t)
	flat := importanceTrials(t, sp, 10, 0, func(space.Config) float64 { return 42 })
	imp, err := Importance(sp, flat)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range imp {
		if k.Importance != 0 {
			t.Fatalf("constant score: %s got %g, want 0", k.Knob, k.Importance)
		}
	}
	if imp[0].Knob != sp.Knobs()[0].Name {
		t.Errorf("ties not in space order: %v", imp)
	}

	if _, err := Importance(sp, flat[:2]); err == nil || !strings.Contains(err.Error(), "2 complete trials") {
		t.Errorf("two trials: err = %v", err)
	}

	bad := importanceTrials(t, sp, 5, 1, func(space.Config) float64 { return 1 })
	bad[3].Params["innodb_io_capacity"] = "lots"
	if _, err := Importance(sp, bad); err == nil || !strings.Contains(err.Error(), "innodb_io_capacity") || !strings.Contains(err.Error(), "trial 3") {
		t.Errorf("bad value: err = %v", err)
	}

	// Baseline-style trials with no params use the defaults.
	base := []Trial{{Number: 0, State: Complete, Outcome: Outcome{Score: 10}},
		{Number: 1, State: Complete, Params: space.Config{"innodb_doublewrite": "OFF"}, Outcome: Outcome{Score: 20}},
		{Number: 2, State: Complete, Params: space.Config{"innodb_doublewrite": "OFF"}, Outcome: Outcome{Score: 21}},
		{Number: 3, State: Complete, Outcome: Outcome{Score: 11}}}
	imp, err = Importance(sp, base)
	if err != nil {
		t.Fatal(err)
	}
	if imp[0].Knob != "innodb_doublewrite" || math.Abs(imp[0].Importance-1) > 1e-9 {
		t.Errorf("only doublewrite varied: %v", imp)
	}
}

// firstSpace is the first search space: twelve InnoDB knobs, durability
// included (relaxed).
func firstSpace(t *testing.T) *space.Space {
	t.Helper()
	var ks []space.Knob
	for _, k := range space.Lookup().All() {
		switch k.Name {
		case "innodb_buffer_pool_size", "innodb_log_file_size", "innodb_log_buffer_size", "innodb_flush_log_at_trx_commit",
			"innodb_flush_method", "innodb_io_capacity", "innodb_doublewrite", "innodb_adaptive_hash_index",
			"innodb_change_buffering", "innodb_max_dirty_pages_pct", "innodb_purge_threads", "innodb_flush_neighbors":
			ks = append(ks, k)
		}
	}
	sp, err := space.New(ks)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}
